// End-to-end tests of the result-file commands: golden merges and edits through the binary,
// saved names, and bad input (every case: one line naming the file, exit 1, nothing written).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <string>

#include "results-xml/model/test_support.h"
#include "runner/common/atomic_file.h"
#include "tests/cli/run_binary.h"

namespace fs = std::filesystem;
using ptsn::ReadFile;
using ptsn::WriteFileAtomically;
using ptsn::test::RunPtsNative;

namespace {

std::string Ref(const std::string& rel) { return ptsn::results::test::ReferenceDir() + "/pts-output/" + rel; }

// LastModified is the time of the save; everything else must match byte for byte.
std::string WithoutLastModified(const std::string& xml) {
  return std::regex_replace(xml, std::regex("<LastModified>[^<]*</LastModified>"), "<LastModified/>");
}

std::string Quote(const std::string& s) { return "'" + s + "'"; }

class ResultsCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("ptsn_results_cli_" + std::to_string(getpid()) + "_" +
                                             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "results");
    env_ = "PTS_NATIVE_CONFIG=/nonexistent/config.yaml PTS_NATIVE_RESULTS_DIR=" + Quote((dir_ / "results").string()) +
           " PTS_NATIVE_PTS_HOME=" + Quote((dir_ / "pts").string()) + " PTS_NATIVE_RESULT_XSD=";
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  ptsn::test::CommandResult Run(const std::string& args) { return RunPtsNative(args, env_); }
  std::string Path(const std::string& rel) { return (dir_ / rel).string(); }
  std::string Write(const std::string& rel, const std::string& content) {
    WriteFileAtomically(Path(rel), content);
    return Path(rel);
  }
  // Copies a golden file into a saved result called `name`.
  void Save(const std::string& name, const std::string& golden) {
    fs::create_directories(dir_ / "results" / name);
    fs::copy_file(Ref(golden), dir_ / "results" / name / "composite.xml");
  }
  fs::path dir_;
  std::string env_;
};

TEST_F(ResultsCli, MergeMatchesPtsMergedFile) {
  PTSN_REQUIRE_REFERENCE();
  auto r = Run("merge-results " + Quote(Ref("result-a/composite.xml")) + " " + Quote(Ref("result-b/composite.xml")) +
          " -o " + Quote(Path("out.xml")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("Merged Results Saved To: " + Path("out.xml")), std::string::npos) << r.output;
  EXPECT_EQ(WithoutLastModified(ReadFile(Path("out.xml"))), WithoutLastModified(ReadFile(Ref("merged/composite.xml"))));
}

TEST_F(ResultsCli, MergeBySavedNameWithoutOutputSavesANewResult) {
  PTSN_REQUIRE_REFERENCE();
  Save("golden-a", "result-a/composite.xml");
  Save("golden-b", "result-b/composite.xml");
  auto r = Run("merge golden-a golden-b");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string saved = Path("results/merge-1/composite.xml");
  EXPECT_NE(r.output.find(saved), std::string::npos) << r.output;
  EXPECT_EQ(WithoutLastModified(ReadFile(saved)), WithoutLastModified(ReadFile(Ref("merged/composite.xml"))));
  auto list = Run("list-saved-results");
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.output.find("3 Saved Results"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("merge-1  Sample Disk Golden A"), std::string::npos) << list.output;
  EXPECT_NE(list.output.find("    - Tuned"), std::string::npos) << list.output;
}

TEST_F(ResultsCli, MergeClashPolicies) {
  PTSN_REQUIRE_REFERENCE();
  std::string a = Quote(Ref("result-a/composite.xml")), clash = Quote(Ref("merge-experiments/inputs/exp-a-clash.xml"));
  auto r = Run("merge-results " + a + " " + clash + " -o " + Quote(Path("renamed.xml")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("system 'Baseline' renamed to 'Baseline #2'"), std::string::npos) << r.output;
  EXPECT_NE(ReadFile(Path("renamed.xml")).find("<Identifier>Baseline #2</Identifier>"), std::string::npos);

  r = Run("merge-results " + a + " " + clash + " --on-clash=keep -o " + Quote(Path("keep.xml")));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(WithoutLastModified(ReadFile(Path("keep.xml"))),
            WithoutLastModified(ReadFile(Ref("merge-experiments/1-a-plus-clash.xml"))));

  r = Run("merge-results " + a + " " + clash + " --on-clash=error -o " + Quote(Path("error.xml")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("system identifier 'Baseline' is already used"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(Path("error.xml")));

  r = Run("merge-results " + a + " " + clash + " --on-clash=overwrite -o " + Quote(Path("x.xml")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("--on-clash must be error, rename or keep"), std::string::npos) << r.output;
}

TEST_F(ResultsCli, MergeMissingOrBadInputIsAHardErrorAndWritesNothing) {
  PTSN_REQUIRE_REFERENCE();
  std::string a = Quote(Ref("result-a/composite.xml"));
  auto r = Run("merge-results " + a + " no-such-result -o " + Quote(Path("out.xml")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("no-such-result: no such file and no saved result of that name"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(Path("out.xml")));
  std::string bad = Write("bad.xml", "<?xml version=\"1.0\"?>\n<PhoronixTestSuite>\n  <Generated>\n");
  r = Run("merge-results " + a + " " + Quote(bad) + " -o " + Quote(Path("out.xml")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find(bad + ": line "), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(Path("out.xml")));
  r = Run("merge-results " + a);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("at least two"), std::string::npos);
}

// Inputs are read and merged in input order: the first error in that order is the one reported
// (a clash before a bad file, a bad file before a clash), and nothing is written.
TEST_F(ResultsCli, MergeReportsTheFirstErrorInInputOrder) {
  PTSN_REQUIRE_REFERENCE();
  std::string inputs;
  for (const char* rel : {"result-a/composite.xml", "result-b/composite.xml", "merge-experiments/inputs/exp-a-clash.xml",
                          "merge-experiments/inputs/exp-c-partial.xml", "merged/composite.xml"})
    inputs += " " + Quote(Ref(rel));
  std::string bad = Quote(Write("bad.xml", "<?xml version=\"1.0\"?>\n<PhoronixTestSuite>\n  <Generated>\n"));
  auto r = RunPtsNative("merge-results" + inputs + inputs + " -o " + Quote(Path("out.xml")), env_);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string out = Quote(Path("x.xml"));
  for (const auto& [args, error] :
       {std::pair<std::string, std::string>{"merge-results" + inputs + " " + bad + inputs + " --on-clash=error -o " + out,
                                            "is already used by an earlier file"},
        {"merge-results " + Quote(Ref("result-a/composite.xml")) + " " + bad + inputs + " --on-clash=error -o " + out,
         "bad.xml: "},
        {"merge-results" + inputs + inputs + " " + bad + " -o " + out, "bad.xml: "}}) {
    auto one = RunPtsNative(args, env_);
    EXPECT_EQ(one.exit_code, 1) << one.output;
    EXPECT_NE(one.output.find(error), std::string::npos) << one.output;
    EXPECT_FALSE(fs::exists(Path("x.xml")));
  }
}

// No export writes over a result file (issue 48, hole 2): -o naming the file it reads (by path,
// through a linked folder, with "..") or any saved result's composite.xml, and standard output
// appended to the file it reads, are refused with one line naming the path (exit 2); the saved
// results stay byte for byte. Before, `result-file-to-text r1 -o .../r1/composite.xml` exited 0
// and r1 was text ("malformed XML").
TEST_F(ResultsCli, ExportsNeverWriteOverAResultFile) {
  PTSN_REQUIRE_REFERENCE();
  Save("r1", "result-a/composite.xml");
  Save("r2", "result-a/composite.xml");
  const std::string saved = Path("results/r1/composite.xml"), other = Path("results/r2/composite.xml");
  const std::string before = ReadFile(saved);
  fs::create_directory_symlink(dir_ / "results" / "r1", dir_ / "link");
  for (const char* command : {"result-file-to-text", "result-file-to-html", "result-file-to-csv", "result-file-to-json",
                              "result-file-raw-to-csv", "result-file-to-svg", "result-file-confidence"})
    for (const std::string& out : {saved, Path("link/composite.xml"), Path("results/r1/../r1/composite.xml"), other}) {
      auto r = Run(std::string(command) + " r1 -o " + Quote(out));
      EXPECT_EQ(r.exit_code, 2) << command << " -o " << out << "\n" << r.output;
      EXPECT_EQ(r.output.rfind("pts-native: error: " + out + ": is the ", 0), 0u) << r.output;
      EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 1) << r.output;
    }
  auto r = Run("compare-results r2 r1 -o " + Quote(Path("link/composite.xml")));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("is the result file this command reads (" + saved + ")"), std::string::npos) << r.output;
  // `>> composite.xml`: the shell opens the file it reads for the view to be appended to.
  r = RunPtsNative("show-result r1 >> " + Quote(saved) + " 2> " + Quote(Path("err")), env_, false);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(ReadFile(Path("err")), "pts-native: error: standard output is " + saved +
                                       ", the result file this command reads; write the view elsewhere\n");
  EXPECT_EQ(ReadFile(saved), before);
  EXPECT_EQ(ReadFile(other), before);
  EXPECT_EQ(Run("validate-result-file r1").exit_code, 0);
  // Beside a saved result, and a result file of no results folder, are fine.
  r = Run("result-file-to-text r1 -o " + Quote(Path("results/r1/r1.txt")));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = Run("result-file-to-html r1 -o " + Quote(Path("composite.xml")));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST_F(ResultsCli, RenameIdentifierMatchesPts) {
  PTSN_REQUIRE_REFERENCE();
  Save("exp-rename", "merged/composite.xml");
  fs::create_directories(Path("results/exp-rename/system-logs/Tuned"));
  auto r = Run("rename-identifier-in-result-file exp-rename Tuned 'Tuned (renamed)'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(WithoutLastModified(ReadFile(Path("results/exp-rename/composite.xml"))),
            WithoutLastModified(ReadFile(Ref("merge-experiments/6-rename-identifier.xml"))));
  EXPECT_TRUE(fs::is_directory(Path("results/exp-rename/system-logs/Tuned renamed")));
  r = Run("rename-identifier-in-result-file exp-rename Nobody X");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("no system identifier 'Nobody'"), std::string::npos) << r.output;
}

TEST_F(ResultsCli, RemoveResultFromFileMatchesPts) {
  PTSN_REQUIRE_REFERENCE();
  Save("exp-remove", "merged/composite.xml");
  Save("exp-remove-hash", "merged/composite.xml");
  auto r = Run("remove-result-from-result-file exp-remove 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("removed: Sample Disk (CPU Usage (Summary) Monitor)"), std::string::npos) << r.output;
  std::string golden = WithoutLastModified(ReadFile(Ref("merge-experiments/7-remove-result.xml")));
  EXPECT_EQ(WithoutLastModified(ReadFile(Path("results/exp-remove/composite.xml"))), golden);
  r = Run("remove-result-from-result-file " + Quote(Path("results/exp-remove-hash/composite.xml")) + " 2deeb281");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(WithoutLastModified(ReadFile(Path("results/exp-remove-hash/composite.xml"))), golden);
  r = Run("remove-result-from-result-file exp-remove 9");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("out of range"), std::string::npos);
}

TEST_F(ResultsCli, RemoveRunFromResultFile) {
  PTSN_REQUIRE_REFERENCE();
  Save("three", "merge-experiments/5-a-b-partial.xml");
  auto r = Run("remove-run-from-result-file three Partial");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string xml = ReadFile(Path("results/three/composite.xml"));
  EXPECT_EQ(xml.find("<Identifier>Partial</Identifier>"), std::string::npos);
  EXPECT_NE(xml.find("<Identifier>Tuned</Identifier>"), std::string::npos);
  r = Run("remove-run-from-result-file three Partial");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("no system identifier 'Partial'"), std::string::npos) << r.output;
}

TEST_F(ResultsCli, RemoveSavedResult) {
  PTSN_REQUIRE_REFERENCE();
  Save("doomed", "result-a/composite.xml");
  auto r = Run("remove-result doomed");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(Path("results/doomed")));
  r = Run("remove-result doomed");
  EXPECT_EQ(r.exit_code, 1);
  r = Run("remove-result " + Quote(Path("results")));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("not a path"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::is_directory(Path("results")));
}

TEST_F(ResultsCli, ValidateGoldenFilesAndSchema) {
  PTSN_REQUIRE_REFERENCE();
  auto r = Run("validate-result-file " + Quote(Ref("merged/composite.xml")));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(": valid"), std::string::npos);
  std::string xsd = ptsn::results::test::ReferenceDir() + "/schemas/result-file.xsd";
  if (fs::exists(xsd)) {
    r = Run("validate-result-file " + Quote(Ref("merged/composite.xml")) + " --schema " + Quote(xsd));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    std::string bad = ReadFile(Ref("result-a/composite.xml"));
    bad.replace(bad.find("<Proportion>HIB"), 15, "<Proportion>UP!");
    r = Run("validate-result-file " + Quote(Write("enum.xml", bad)) + " --schema " + Quote(xsd));
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.output.find("'UP!' is not one of LIB, HIB, ABSTRACT or empty"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("[facet 'enumeration']"), std::string::npos) << r.output;
  }
}

// Every bad file: exit 1, a message naming the file, no crash, nothing leaked.
TEST_F(ResultsCli, ValidateRejectsBadInput) {
  PTSN_REQUIRE_REFERENCE();
  std::string good = ReadFile(Ref("result-a/composite.xml"));
  struct Case {
    std::string name, content, expect;
  };
  std::string bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n";
  std::string prev = "lol";
  for (int i = 1; i <= 9; ++i) {
    std::string refs;
    for (int k = 0; k < 10; ++k) refs += "&" + prev + ";";
    prev = "lol" + std::to_string(i);
    bomb += "<!ENTITY " + prev + " \"" + refs + "\">\n";
  }
  bomb += "]>\n<PhoronixTestSuite><Generated><Title>&lol9;</Title></Generated></PhoronixTestSuite>\n";
  std::string non_numeric = good;
  non_numeric.replace(non_numeric.find("<Value>124.13"), 13, "<Value>fast!!");
  std::string latin1 = good;
  latin1.replace(latin1.find("Sample Disk Golden A"), 20, "Sample Disk G\xF6lden A");
  std::vector<Case> cases = {
      {"truncated.xml", good.substr(0, good.size() / 2), "malformed XML"},
      {"wrong-root.xml", "<?xml version=\"1.0\"?>\n<TestSuite><X/></TestSuite>\n", "root element is <TestSuite>"},
      {"garbage.xml", "\x01\x02 this is not XML at all", "malformed XML"},
      {"empty.xml", "", "empty file"},
      {"non-numeric.xml", non_numeric, "'fast!!' is not a number"},
      {"bomb.xml", bomb, "DOCTYPE is not allowed"},
      {"xxe.xml",
       "<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>\n"
       "<PhoronixTestSuite><Generated><Title>&x;</Title></Generated></PhoronixTestSuite>\n",
       "DOCTYPE is not allowed"},
      {"latin1.xml", latin1, "line 5: not valid UTF-8 (byte 0xF6)"},
      {"missing.xml", std::regex_replace(good, std::regex("    <Scale>MB/s</Scale>\n"), ""),
       "lacks the required element <Scale>"},
  };
  for (const Case& c : cases) {
    std::string path = Write(c.name, c.content);
    auto r = Run("validate-result-file " + Quote(path));
    EXPECT_EQ(r.exit_code, 1) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(path), std::string::npos) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << c.name << ": " << r.output;
    EXPECT_EQ(r.output.find("root:x:0"), std::string::npos) << c.name;
    EXPECT_LT(r.output.size(), 600u) << c.name << ": " << r.output;
  }
}

// A write into a directory we may not write to fails with one line and leaves the previous file
// byte for byte as it was (and no temporary file behind). As root, permissions do not stop
// writes, so the binary runs as nobody through setpriv.
TEST_F(ResultsCli, ReadOnlyOutputDirectoryKeepsThePreviousFile) {
  PTSN_REQUIRE_REFERENCE();
  std::string prefix;
  if (geteuid() == 0) {
    if (system("command -v setpriv > /dev/null 2>&1") != 0) GTEST_SKIP() << "running as root without setpriv";
    prefix = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  }
  fs::create_directories(Path("ro"));
  fs::copy_file(Ref("result-a/composite.xml"), Path("a.xml"));
  fs::copy_file(Ref("result-b/composite.xml"), Path("b.xml"));
  std::string previous = "previous content\n";
  Write("ro/out.xml", previous);
  fs::permissions(dir_, fs::perms::all, fs::perm_options::add);
  fs::permissions(Path("ro"), fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                                  fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(Path("a.xml"), fs::perms::others_read, fs::perm_options::add);
  fs::permissions(Path("b.xml"), fs::perms::others_read, fs::perm_options::add);
  auto r = RunPtsNative("merge-results " + Quote(Path("a.xml")) + " " + Quote(Path("b.xml")) + " -o " +
                            Quote(Path("ro/out.xml")),
                        env_ + " " + prefix);
  fs::permissions(Path("ro"), fs::perms::owner_all, fs::perm_options::add);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(Path("ro/out.xml") + ": cannot create a temporary file"), std::string::npos) << r.output;
  EXPECT_EQ(ReadFile(Path("ro/out.xml")), previous);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(Path("ro"))) files += e.is_regular_file();
  EXPECT_EQ(files, 1u);
}

}  // namespace
