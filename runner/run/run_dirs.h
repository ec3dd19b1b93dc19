// Where one test of one run works, private to it so that any number of runs of the same
// installed test can run at once (and one run never reads another's exit status or log):
//   home     HOME and the working directory of the test's scripts: a directory in the install
//            directory whose entries link to the install directory's, so the scripts find what
//            install.sh left while what they write into ~ (test-exit-status, their own files)
//            stays theirs;
//   scratch  a directory in run.test_dir for the data disk tests write (PTS_NATIVE_TEST_DIR);
//   logs     LOG_FILE paths and the trial output, in `home`.
// Both are removed when the test is done, and leftovers of runs that died are removed the next
// time the same test runs.
#pragma once

#include <string>

namespace ptsn::run {

class TestDirs {
 public:
  // `install_dir` of the test, `test_dir` the run.test_dir root. Throws ptsn::Error naming the
  // directory when either cannot be made.
  TestDirs(const std::string& install_dir, const std::string& test_dir);
  ~TestDirs();
  TestDirs(const TestDirs&) = delete;
  TestDirs& operator=(const TestDirs&) = delete;

  // Links the install directory's entries that `home` lacks (install.sh's files at the start;
  // before each script, whatever appeared since).
  void LinkInstall();

  const std::string& home() const { return home_; }
  const std::string& scratch() const { return scratch_; }
  // "<home>/<name>", e.g. Path("test-exit-status"), Path("trial-3.log").
  std::string Path(const std::string& name) const { return home_ + "/" + name; }

  // The names of the private directories: "<prefix><pid>-<n>", in the install directory and in
  // run.test_dir; only names of this form whose process is gone are ever cleaned up.
  static constexpr const char* kHomePrefix = ".pts-native-run-";
  static constexpr const char* kScratchPrefix = "pts-native-";

 private:
  std::string install_dir_, home_, scratch_;
};

}  // namespace ptsn::run
