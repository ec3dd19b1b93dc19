#include "runner/run/run_setup.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/install/fetcher.h"

namespace fs = std::filesystem;

namespace ptsn::run {
namespace {

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars](const std::string& k) -> std::optional<std::string> {
    auto it = vars.find(k);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

class RunSetupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("run-setup-" + std::to_string(getpid()));
    fs::remove_all(root_);
    Put("sys/proc/cpuinfo",
        "processor\t: 0\nmodel name\t: Test CPU @ 2.00GHz\nphysical id\t: 0\ncore id\t: 0\n\n"
        "processor\t: 1\nmodel name\t: Test CPU @ 2.00GHz\nphysical id\t: 0\ncore id\t: 1\n\n"
        "processor\t: 2\nmodel name\t: Test CPU @ 2.00GHz\nphysical id\t: 0\ncore id\t: 0\n\n");
    Put("sys/proc/meminfo", "MemTotal:        4194304 kB\n");
    Put("sys/etc/os-release", "ID=debian\nVERSION_ID=\"12\"\nPRETTY_NAME=\"Debian GNU/Linux 12\"\n");
    reader_ = sysinfo::MakeRootedReader((root_ / "sys").string());
  }
  void TearDown() override { fs::remove_all(root_); }
  void Put(const std::string& rel, const std::string& text) {
    MakeDirectories((root_ / rel).parent_path().string());
    WriteFileAtomically((root_ / rel).string(), text);
  }
  Settings Load(std::map<std::string, std::string> vars) {
    vars["PTS_NATIVE_CONFIG"] = "/dev/null";
    vars["PTS_NATIVE_HOME"] = (root_ / "home").string();
    return Settings::Load(FakeEnv(vars));
  }

  fs::path root_;
  std::unique_ptr<sysinfo::SystemReader> reader_;
};

// run.test_dir is where disk tests run, whatever else exists: made when missing, canonical, an
// error when it cannot be made.
TEST_F(RunSetupTest, TestDirectoryIsTheSettingMadeWhenMissing) {
  MakeDirectories((root_ / "home/installed-tests").string());
  EXPECT_EQ(TestDirectory(Load({})), (root_ / "home/scratch").string());
  EXPECT_TRUE(fs::is_directory(root_ / "home/scratch"));
  EXPECT_EQ(TestDirectory(Load({{"PTS_NATIVE_TEST_DIR", (root_ / "scratch/../elsewhere/x").string()}})),
            (root_ / "elsewhere/x").string());
  Put("file", "in the way\n");
  try {
    TestDirectory(Load({{"PTS_NATIVE_TEST_DIR", (root_ / "file/sub").string()}}));
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("run.test_dir: ", 0), 0u) << e.what();
  }
}

TEST_F(RunSetupTest, BaseRunConfigTakesSettingsEnvironmentAndThisSystem) {
  Settings s = Load({{"PTS_NATIVE_MAX_RUNS", "7"}, {"PTS_NATIVE_DYNAMIC_RUNS", "false"},
                     {"PTS_NATIVE_SETTLE_SECONDS", "1.5"}, {"PTS_NATIVE_TRIAL_TIMEOUT", "90"}});
  auto env = FakeEnv({{"USER", "alice"}, {"HOME", "/home/alice"}, {"FORCE_TIMES_TO_RUN", "4"},
                      {"TEST_EXEC_PREPEND", "nice -n 5"}});
  RunConfig c = BaseRunConfig(s, *reader_, {"Box A", (root_ / "home").string(), false, 1700000000}, env);
  EXPECT_EQ(c.system.identifier, "Box A");
  EXPECT_NE(c.system.hardware.find("Processor: Test @ 2.00GHz (2 Cores / 3 Threads)"), std::string::npos)
      << c.system.hardware;
  EXPECT_NE(c.system.hardware.find("Memory: 4GB"), std::string::npos) << c.system.hardware;
  EXPECT_NE(c.system.software.find("OS: 12"), std::string::npos) << c.system.software;
  EXPECT_EQ(c.system.user, "alice");
  EXPECT_EQ(c.system.test_client_version, "10.8.6");
  EXPECT_EQ(c.install_root, (root_ / "home/installed-tests").string());
  EXPECT_EQ(c.facts.logical_cores, 3);
  EXPECT_EQ(c.facts.physical_cores, 2);
  EXPECT_EQ(c.facts.memory_mb, 4096);
  EXPECT_EQ(c.facts.os_id, "debian");
  EXPECT_EQ(c.facts.real_home, "/home/alice");
  EXPECT_EQ(c.facts.run_start_time, 1700000000);
  ASSERT_TRUE(c.overrides.force_times_to_run);
  EXPECT_EQ(*c.overrides.force_times_to_run, 4);
  EXPECT_FALSE(c.limits.enabled);
  EXPECT_EQ(c.limits.max_runs, 7);
  EXPECT_DOUBLE_EQ(c.limits.sd_threshold_percent, 2.5);
  EXPECT_DOUBLE_EQ(c.settle_seconds, 1.5);
  EXPECT_DOUBLE_EQ(c.trial_timeout, 90);
  EXPECT_EQ(c.exec_prepend, "nice -n 5");
  EXPECT_TRUE(c.result_dir.empty()) << "the caller names the result";
  EXPECT_FALSE(c.drop_caches);
  EXPECT_FALSE(c.system.notes);
  // run.drop_caches: on in the config, and said in the System notes every target's notes begin with.
  c = BaseRunConfig(Load({{"PTS_NATIVE_DROP_CACHES", "true"}}), *reader_,
                    {"Box A", (root_ / "home").string(), false, 1700000000}, env);
  EXPECT_TRUE(c.drop_caches);
  EXPECT_EQ(c.system.notes.value_or(""), "Caches dropped (sync; echo 3 > /proc/sys/vm/drop_caches) before every disk trial.");
}

TEST_F(RunSetupTest, InstallContextUsesTheCachesAndHashSwitch) {
  Settings s = Load({{"PTS_NATIVE_PTS_HOME", (root_ / "pts").string()}});
  auto fetcher = install::MakeOfflineFetcher();
  auto c = MakeInstallContext(s, *fetcher, true, false, {}, FakeEnv({{"NO_FILE_HASH_CHECKS", "1"},
                                                                    {"PTS_DOWNLOAD_CACHE", "/srv/cache"}}));
  EXPECT_TRUE(c.offline);
  EXPECT_TRUE(c.downloads.skip_hashes);
  EXPECT_EQ(c.fetcher, fetcher.get());
  EXPECT_EQ(c.install_root, (root_ / "home/installed-tests").string());
  std::vector<std::string> caches;
  for (const auto& l : c.downloads.caches) caches.push_back(l.location);
  EXPECT_NE(std::find(caches.begin(), caches.end(), "/srv/cache"), caches.end());
  EXPECT_NE(std::find(caches.begin(), caches.end(), (root_ / "pts/download-cache").string()), caches.end());
  EXPECT_FALSE(MakeInstallContext(s, *fetcher, false, false, {}, FakeEnv({})).downloads.skip_hashes);
}

std::string Definition(const std::string& title, const std::string& extends) {
  return "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><TestInformation><Title>" + title +
         "</Title><AppVersion>1</AppVersion><ResultScale>Points</ResultScale><Proportion>HIB</Proportion>"
         "<Executable>x</Executable><TimesToRun>1</TimesToRun></TestInformation><TestProfile><Version>1.0.0</Version>"
         "<SupportedPlatforms>Linux</SupportedPlatforms><SoftwareType>Utility</SoftwareType><TestType>System</TestType>"
         "<License>Free</License>" +
         (extends.empty() ? "" : "<Extends>" + extends + "</Extends>") + "</TestProfile></PhoronixTestSuite>\n";
}

TEST_F(RunSetupTest, InstallWithParentsInstallsTheParentFirstAndEachOnce) {
  Put("profiles/local/base-1.0.0/test-definition.xml", Definition("Base", ""));
  for (const char* name : {"base", "child", "broken"})
    Put(std::string("profiles/local/") + name + "-1.0.0/results-definition.xml",
        "<PhoronixTestSuite><ResultsParser><OutputTemplate>R: #_RESULT_#</OutputTemplate></ResultsParser>"
        "</PhoronixTestSuite>\n");
  Put("profiles/local/base-1.0.0/install.sh", "echo base >> ../order\n");
  Put("profiles/local/child-1.0.0/test-definition.xml", Definition("Child", "local/base-1.0.0"));
  Put("profiles/local/child-1.0.0/install.sh", "echo child >> ../order\n");
  Put("profiles/local/broken-1.0.0/test-definition.xml", Definition("Broken", ""));
  Put("profiles/local/broken-1.0.0/install.sh", "echo 'no compiler' >&2; echo 3 > install-exit-status\n");
  profile::ProfileRepository repo({(root_ / "profiles").string()});
  Settings s = Load({});
  auto fetcher = install::MakeOfflineFetcher();
  auto ctx = MakeInstallContext(s, *fetcher, true, false, {}, FakeEnv({}));
  ctx.progress = nullptr;
  exec::PosixProcessRunner runner;
  std::set<std::string> done;
  std::vector<std::string> reported;
  auto report = [&](const std::string& id, bool already) { reported.push_back(id + (already ? " already" : "")); };
  InstallWithParents(repo, repo.LoadProfile("local/child-1.0.0"), ctx, runner, done, report);
  EXPECT_EQ(reported, (std::vector<std::string>{"local/base-1.0.0", "local/child-1.0.0"}));
  EXPECT_EQ(ReadFile((root_ / "home/installed-tests/local/order").string()), "base\nchild\n");
  InstallWithParents(repo, repo.LoadProfile("local/child-1.0.0"), ctx, runner, done, report);
  EXPECT_EQ(reported.size(), 2u) << "done once in this run";
  std::set<std::string> fresh;
  InstallWithParents(repo, repo.LoadProfile("local/child-1.0.0"), ctx, runner, fresh, report);
  EXPECT_EQ(reported.back(), "local/child-1.0.0 already");
  try {
    InstallWithParents(repo, repo.LoadProfile("local/broken-1.0.0"), ctx, runner, done, report);
    ADD_FAILURE() << "a failing install.sh must throw";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("local/broken-1.0.0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ptsn::run

namespace ptsn::run {
namespace {

TEST_F(RunSetupTest, TargetSystemDescribesTheTargetsFileSystemOnThisMachine) {
  Put("sys/proc/mounts", "/dev/vda / ext4 rw,relatime 0 0\n/dev/loop3 /t/.ptsn-targets-9/t1-plain xfs rw,noatime 0 0\n");
  results::System base;
  base.identifier = "box";
  base.hardware = "Processor: Test CPU";
  base.software = "OS: Debian, File-System: ext4";
  auto s = TargetSystem(base, *reader_, "plain xfs", "/t/.ptsn-targets-9/t1-plain", "pts-native target plain xfs.");
  EXPECT_EQ(s.identifier, "plain xfs");
  EXPECT_EQ(s.hardware, base.hardware);
  EXPECT_NE(s.software.find("File-System: xfs"), std::string::npos) << s.software;
  ASSERT_TRUE(s.json);
  EXPECT_NE(s.json->find("\"disk-mount-options\":\"noatime,rw\""), std::string::npos) << *s.json;
  EXPECT_EQ(s.notes, "pts-native target plain xfs.");
}

}  // namespace
}  // namespace ptsn::run
