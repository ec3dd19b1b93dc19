// Test helpers shared by the reproduce tests that install profiles: a file written with its
// directories, and a small published result (two systems, a Points result per test) to reproduce.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "results-xml/model/result_file.h"
#include "runner/common/atomic_file.h"

namespace ptsn::testing {

inline void Put(const std::filesystem::path& path, const std::string& text) {
  MakeDirectories(path.parent_path().string());
  WriteFileAtomically(path.string(), text);
}

// Systems "Published A" (44.1) and "Published B" (45.1) on each test: {identifier, title}.
inline results::ResultFile TwoSystemPublished(const std::string& title, const std::string& description,
                                              const std::vector<std::pair<std::string, std::string>>& tests) {
  results::ResultFile f;
  f.generated.title = title;
  f.generated.last_modified = "2026-11-01 10:00:00";
  f.generated.test_client = "Phoronix Test Suite v10.8.6";
  f.generated.description = description;
  for (const char* name : {"Published A", "Published B"}) {
    results::System s;
    s.identifier = name;
    s.hardware = "Processor: Test CPU (2 Cores)";
    s.software = "OS: Debian 12";
    s.timestamp = "2026-11-01 09:00:00";
    s.test_client_version = "10.8.6";
    f.systems.push_back(s);
  }
  for (const auto& [identifier, test_title] : tests) {
    results::Result r;
    r.identifier = identifier;
    r.title = test_title;
    r.app_version = "1.0";
    r.scale = "Points";
    r.proportion = "HIB";
    r.entries = {{"Published A", "44.1", "44:44.2", std::nullopt}, {"Published B", "45.1", "45:45.2", std::nullopt}};
    f.results.push_back(r);
  }
  return f;
}

}  // namespace ptsn::testing
