#include "results-xml/store/result_update.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "results-xml/model/result_xml.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace fs = std::filesystem;

namespace ptsn::results {
namespace {

class ResultUpdate : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("result-update-" + std::to_string(getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Composite() const { return (dir_ / "composite.xml").string(); }
  fs::path dir_;
};

// Threads stand in for processes: each opens the lock file itself, and flock() locks belong to
// the open file, so they exclude each other as separate runs do.
TEST_F(ResultUpdate, ConcurrentSavesKeepEverySavedResult) {
  constexpr int kRuns = 8, kSaves = 5;
  std::vector<std::thread> runs;
  for (int r = 0; r < kRuns; ++r)
    runs.emplace_back([&, r] {
      std::string id = "Run " + std::to_string(r);
      for (int s = 0; s < kSaves; ++s)
        UpdateResultFile(Composite(), [&](ResultFile& file, bool existed) {
          if (!existed) file.generated.title = "shared";
          if (std::none_of(file.systems.begin(), file.systems.end(), [&](auto& x) { return x.identifier == id; }))
            file.systems.push_back({id, "Processor: X", "OS: Y", "u", "2024-01-01 00:00:00", "10.8.6", ""});
          Result res;
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
  auto file = ReadResultFile(Composite());
  EXPECT_EQ(file.generated.title, "shared");
  EXPECT_EQ(file.systems.size(), static_cast<size_t>(kRuns));
  EXPECT_EQ(file.results.size(), static_cast<size_t>(kRuns * kSaves));
}

// What a writer killed before its rename left is gone after the next save, which keeps its change.
TEST_F(ResultUpdate, TheNextSaveRemovesWhatAKilledWriterLeft) {
  ReplaceResultFile(Composite(), ResultFile{});
  WriteFileAtomically((dir_ / ".composite.xml.tmp-k9x7Qz").string(), "<half");
  UpdateResultFile(Composite(), [](ResultFile& file, bool existed) {
    EXPECT_TRUE(existed);
    file.generated.title = "after";
  });
  EXPECT_FALSE(fs::exists(dir_ / ".composite.xml.tmp-k9x7Qz"));
  EXPECT_EQ(ReadResultFile(Composite()).generated.title, "after");
}

// One identifier, and one that reads the same, cannot be claimed twice at once; another can, and
// a claim released is free again. The refusal names the file, the system and the holder.
TEST_F(ResultUpdate, AnIdentifierIsClaimedOnceAtATime) {
  {
    IdentifierClaim claim(Composite(), {"Box A"}, "a run saving as 'Box A'");
    for (const char* same : {"Box A", "box-a", "BOXA"}) {
      try {
        IdentifierClaim second(Composite(), {"Box C", same}, "a run");
        ADD_FAILURE() << same << " claimed twice";
      } catch (const Error& e) {
        std::string what = e.what();
        EXPECT_NE(what.find(Composite() + ": the system '" + same + "' is in use by another process (pid " +
                            std::to_string(getpid()) + ": a run saving as 'Box A')"),
                  std::string::npos)
            << what;
      }
    }
    IdentifierClaim other(Composite(), {"Box B"}, "a run");
    IdentifierClaim renaming(Composite(), {"box c", "Box-C"}, "a rename");  // one claim, and Box C is free again
  }
  IdentifierClaim again(Composite(), {"Box A", "Box B"}, "a run");
}

}  // namespace
}  // namespace ptsn::results
