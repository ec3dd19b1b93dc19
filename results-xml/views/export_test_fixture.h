// A small result file built in code (two systems, a bar result, its monitor series, a result
// only one system has, a failed entry) shared by the export unit tests. The numbers are those
// of PTS's golden merge (../shared/reference/pts-output/merged), so expectations can be checked
// against what the real PTS printed.
#pragma once

#include <string>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results::test {

inline ResultFile SmallResultFile() {
  ResultFile f;
  f.generated.title = "Sample Disk Golden A";
  f.generated.description = "Golden run A.";
  f.generated.last_modified = "2026-11-30 07:42:40";
  for (const char* id : {"Baseline", "Tuned"}) {
    System s;
    s.identifier = id;
    s.hardware = "Processor: AMD EPYC (2 Cores), Memory: 24GB, Disk: 252GB";
    s.software = "OS: Debian 12, Kernel: 6.18.44 (x86_64), File-System: ext4";
    s.user = "phoronix";
    s.timestamp = "2026-11-30 07:38:31";
    s.test_client_version = "10.8.6";
    f.systems.push_back(s);
  }
  Result bar;
  bar.identifier = "local/sample-disk-1.0.0";
  bar.title = "Sample Disk";
  bar.app_version = "1.0";
  bar.arguments = "--bs=4k";
  bar.description = "Block Size: 4KB";
  bar.scale = "MB/s";
  bar.proportion = "HIB";
  bar.entries = {{"Baseline", "124.13", "125.1:121.99:125.29", R"({"test-run-times":"10.66:8.05:7.92"})"},
                 {"Tuned", "123.11", "123.51:121.3:124.52", R"({"test-run-times":"10.26:7.98:7.99"})"}};
  f.results.push_back(bar);

  Result monitor;
  monitor.title = "Sample Disk";
  monitor.app_version = "1.0";
  monitor.arguments = "CPU Usage (Summary) --bs=4k";
  monitor.description = "CPU Usage (Summary) Monitor";
  monitor.scale = "Percent";
  monitor.proportion = "LIB";
  monitor.display_format = "LINE_GRAPH";
  monitor.parent = "2deeb28142ce87a23bdae19f6a64aeb25d716585";
  monitor.entries = {{"Baseline", "84.21,77.27,78.02,100.00,99.02,100.00,75.00", "", std::nullopt},
                     {"Tuned", "51.52,52.53,60.61,100.00,99.01,100.00,50.50", "", std::nullopt}};
  f.results.push_back(monitor);

  Result partial;
  partial.identifier = "local/sample-disk-1.0.0";
  partial.title = "Sample Disk";
  partial.app_version = "1.0";
  partial.arguments = "--bs=64k";
  partial.description = "Block Size: 64KB";
  partial.scale = "MB/s";
  partial.proportion = "LIB";
  partial.entries = {{"Tuned", "9.5", "9:10", std::nullopt}};
  f.results.push_back(partial);

  Result failed = partial;
  failed.arguments = "--bs=1m";
  failed.description = "Block Size: 1MB";
  failed.entries = {{"Baseline", "", "", R"({"error":"The test quit with a non-zero exit status."})"},
                    {"Tuned", "1456.9", "1400.1:1513.7", std::nullopt}};
  f.results.push_back(failed);
  return f;
}

// SmallResultFile with its Results repeated `copies` times more, each copy a result of its own
// (other arguments, a parent of its own): a file large enough to leave a streamed export in pieces.
inline ResultFile RepeatedResultFile(int copies) {
  ResultFile model = SmallResultFile();
  const std::vector<Result> base = model.results;
  for (int i = 0; i < copies; ++i)
    for (Result r : base) {
      r.arguments += " --run=" + std::to_string(i);
      if (r.parent) r.parent = std::string(40, "0123456789"[i % 10]) + std::to_string(i);
      model.results.push_back(r);
    }
  return model;
}

}  // namespace ptsn::results::test
