// The two published reconstructions in ../shared/reference/seed-results as plans: which of
// their tests run as stored, which through a bundled stand-in, which cannot run — on a machine
// where PTS's own profiles cannot be installed (no network) and no Debian benchmark package is
// present, so every test the bundled native engines cover becomes a stand-in.
#include <gtest/gtest.h>

#include <iostream>

#include <filesystem>

#include "results-xml/model/result_xml.h"
#include "runner/common/shared_dir.h"
#include "runner/profile/profile_repository.h"
#include "runner/reproduce/catalog.h"
#include "runner/reproduce/plan.h"
#include "runner/reproduce/stand_in.h"

namespace ptsn::reproduce {

namespace {

std::string Shared(const std::string& rel) { return ::ptsn::SharedDir() + "/" + rel; }

struct SeedPlan {
  results::ResultFile file;
  ReproducePlan plan;
  std::string text;
};

SeedPlan PlanFor(const std::string& seed) {
  std::vector<std::string> roots = {std::string(PTSN_SOURCE_DIR) + "/profiles", Shared("corpus/test-profiles")};
  profile::ProfileRepository repo(roots);
  RepositoryCatalog catalog(
      repo,
      [](const profile::TestProfile& p) -> std::string {
        if (p.identifier.rfind("native/", 0) == 0) return "";
        if (p.identifier.rfind("debian/", 0) == 0) return "Debian package not installed (fake)";
        return "sources cannot be downloaded here (fake: offline)";
      },
      [](const profile::TestProfile&) { return false; });
  SeedPlan out;
  out.file = results::ReadResultFile(Shared("reference/seed-results/" + seed));
  out.plan = BuildPlan(out.file, catalog, LoadStandIns(roots));
  out.text = FormatPlan(out.file, out.plan);
  return out;
}

const PlanItem* ItemFor(const SeedPlan& s, const std::string& original, const std::string& args) {
  for (const auto& it : s.plan.items)
    if (it.original == original && s.file.results[it.result_index].arguments == args) return &it;
  return nullptr;
}

}  // namespace

TEST(SeedPlan, AesNi1110088) {
  if (!std::filesystem::exists(Shared("reference/seed-results"))) GTEST_SKIP() << "shared reference tree absent";
  auto s = PlanFor("1110088-AR-1110066AR56.xml");
  // 15 results: 7 tests with an Identifier are re-run... the rest are monitor results.
  EXPECT_EQ(s.plan.items.size() + s.plan.not_rerun.size(), s.file.results.size());
  for (const auto& n : s.plan.not_rerun) EXPECT_TRUE(s.file.results[n.result_index].identifier.empty());

  const PlanItem* fs = ItemFor(s, "pts/fs-mark-1.0.0", "-s 1048576 -n 1000");
  ASSERT_TRUE(fs) << s.text;
  EXPECT_EQ(fs->kind, PlanKind::kStandIn) << s.text;
  EXPECT_EQ(fs->profile, "native/fs-files-1.0.0");
  EXPECT_EQ(fs->arguments, "--files 1000 --file-size 1m");
  EXPECT_EQ(fs->stand_in_label, "native/fs-files-1.0.0 for pts/fs-mark-1.0");
  // The newer pts/fs-mark-1.0.3 exists (corpus) but cannot be installed here, and the Debian
  // fs_mark stand-in is tried before the native one: both reasons are kept.
  EXPECT_NE(fs->reason.find("pts/fs-mark-1.0.3: sources cannot be downloaded"), std::string::npos) << fs->reason;
  EXPECT_NE(fs->reason.find("stand-in debian/fs-mark-1.0.0: Debian package not installed"), std::string::npos)
      << fs->reason;

  const PlanItem* tio = ItemFor(s, "pts/tiobench-1.1.0", "-k3 -k2 -f 64 -t 8");
  ASSERT_TRUE(tio);
  EXPECT_EQ(tio->kind, PlanKind::kStandIn);
  EXPECT_EQ(tio->arguments, "--block-size 4k --size 64m --threads 8 --iodepth 1 --fsync end");
  const PlanItem* io = ItemFor(s, "pts/iozone-1.7.0", "-r 64k -s 8192M -i0");
  ASSERT_TRUE(io);
  EXPECT_EQ(io->profile, "native/disk-seq-write-1.0.0");
  EXPECT_EQ(io->arguments, "--block-size 64k --size 8192m --fsync end");
  const PlanItem* pm = ItemFor(s, "pts/postmark-1.0.0", "");
  ASSERT_TRUE(pm);
  EXPECT_EQ(pm->profile, "native/mail-server-1.0.0");
  EXPECT_EQ(pm->arguments, "--transactions 25000");
  const PlanItem* dbench = ItemFor(s, "pts/dbench-1.0.0", "12");
  ASSERT_TRUE(dbench);
  EXPECT_EQ(dbench->kind, PlanKind::kUnavailable);  // only the Debian program stands in, and it is absent
  EXPECT_NE(s.text.find("CANNOT RUN pts/dbench-1.0.0"), std::string::npos) << s.text;
}

TEST(SeedPlan, Ubuntu1304DiskEncryption) {
  if (!std::filesystem::exists(Shared("reference/seed-results"))) GTEST_SKIP() << "shared reference tree absent";
  auto s = PlanFor("ubuntu-1304-disk-encryption.xml");
  const PlanItem* pm = ItemFor(s, "pts/postmark-1.1.0", "");
  ASSERT_TRUE(pm) << s.text;
  EXPECT_EQ(pm->arguments, "--transactions 250000");
  const PlanItem* cb = ItemFor(s, "pts/compilebench-1.0.0", "COMPILE");
  ASSERT_TRUE(cb) << s.text;
  EXPECT_EQ(cb->kind, PlanKind::kUnavailable);
  const PlanItem* rd = ItemFor(s, "pts/iozone-1.8.0", "-r 1m -s 8192M -i0 -i1");
  ASSERT_TRUE(rd) << s.text;
  EXPECT_EQ(rd->profile, "native/disk-seq-read-1.0.0");
  EXPECT_NE(s.text.find("Plan: 13 tests: 0 original, 7 stand-in, 6 cannot run; 13 derived"), std::string::npos)
      << s.text;
}

}  // namespace ptsn::reproduce
