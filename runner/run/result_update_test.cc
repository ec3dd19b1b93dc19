#include "runner/run/result_update.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "results-xml/result_xml.h"

namespace fs = std::filesystem;

namespace ptsn::run {
namespace {

// Threads stand in for processes: each opens the lock file itself, and flock() locks belong to
// the open file, so they exclude each other as separate runs do.
TEST(ResultUpdate, ConcurrentSavesKeepEverySavedResult) {
  fs::path dir = fs::path(::testing::TempDir()) / ("result-update-" + std::to_string(getpid()));
  fs::remove_all(dir);
  constexpr int kRuns = 8, kSaves = 5;
  std::vector<std::thread> runs;
  for (int r = 0; r < kRuns; ++r)
    runs.emplace_back([&, r] {
      std::string id = "Run " + std::to_string(r);
      for (int s = 0; s < kSaves; ++s)
        UpdateResultFile(dir.string(), [&](results::ResultFile& file, bool existed) {
          if (!existed) file.generated.title = "shared";
          if (std::none_of(file.systems.begin(), file.systems.end(), [&](auto& x) { return x.identifier == id; }))
            file.systems.push_back({id, "Processor: X", "OS: Y", "u", "2024-01-01 00:00:00", "10.8.6", ""});
          results::Result res;
          res.identifier = "local/t-1.0.0";
          res.title = "T";
          res.arguments = id + " save " + std::to_string(s);
          res.scale = "Units";
          res.proportion = "HIB";
          res.entries.push_back({id, "1", std::nullopt, std::nullopt});
          file.results.push_back(res);
        });
    });
  for (auto& t : runs) t.join();
  auto file = results::ReadResultFile((dir / "composite.xml").string());
  EXPECT_EQ(file.generated.title, "shared");
  EXPECT_EQ(file.systems.size(), static_cast<size_t>(kRuns));
  EXPECT_EQ(file.results.size(), static_cast<size_t>(kRuns * kSaves));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ptsn::run
