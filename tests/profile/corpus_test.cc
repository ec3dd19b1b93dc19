// Every profile of ../shared/corpus/test-profiles loads (or is rejected with a clear reason).
#include <gtest/gtest.h>

#include <filesystem>

#include "runner/common/shared_dir.h"
#include "runner/profile/profile_repository.h"

namespace fs = std::filesystem;
using namespace ptsn::profile;

TEST(ProfileCorpus, EveryProfileLoads) {
  std::string root = ::ptsn::SharedDir() + "/corpus/test-profiles";
  if (!fs::is_directory(root)) GTEST_SKIP() << root << " is absent";
  ProfileRepository repo({root});
  BulkLoadReport report = LoadAllProfiles(repo);
  size_t total = report.loaded.size() + report.rejected.size();
  std::cout << "profile corpus: " << report.loaded.size() << "/" << total << " loaded, " << report.rejected.size()
            << " rejected, " << report.warnings.size() << " warnings\n";
  for (const auto& [id, why] : report.rejected) std::cout << "  rejected " << id << ": " << why << "\n";
  EXPECT_GT(total, 600u);
  EXPECT_TRUE(report.rejected.empty());
}
