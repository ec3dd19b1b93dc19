// A writable copy of a captured /proc+/sys tree (testdata/<name>) for sensor tests. Step(n)
// overwrites files with testdata/<name>.steps/<n>/... in place (same inode), so the files the
// sensors keep open see the next reading, as procfs/sysfs files do.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runner/monitor/sampler.h"

namespace ptsn::monitor::test {

inline std::string TestdataDir() { return PTSN_MONITOR_TESTDATA; }

class FixtureTree {
 public:
  explicit FixtureTree(const std::string& name) : name_(name) {
    namespace fs = std::filesystem;
    root_ = fs::temp_directory_path() / ("ptsn-monitor-" + name + "-" + std::to_string(::getpid()) + "-" +
                                         std::to_string(counter_++));
    fs::remove_all(root_);
    fs::create_directories(root_);
    fs::copy(TestdataDir() + "/" + name, root_, fs::copy_options::recursive);
  }
  ~FixtureTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  std::string root() const { return root_.string(); }

  void Step(int n) {
    namespace fs = std::filesystem;
    fs::path step = fs::path(TestdataDir()) / (name_ + ".steps") / std::to_string(n);
    ASSERT_TRUE(fs::exists(step)) << step;
    for (const auto& e : fs::recursive_directory_iterator(step)) {
      if (!e.is_regular_file()) continue;
      Write(fs::relative(e.path(), step).string(), Slurp(e.path().string()));
    }
  }
  // Overwrites (or creates) one file of the tree in place.
  void Write(const std::string& relative, const std::string& content) {
    std::filesystem::path p = root_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << content;
  }
  void Remove(const std::string& relative) { std::filesystem::remove(root_ / relative); }

  static std::string Slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  }

 private:
  static inline int counter_ = 0;
  std::string name_;
  std::filesystem::path root_;
};

// Advances instantly to each deadline; stops after `end`. `late` adds a delay to one wake-up.
class FakeClock : public MonitorClock {
 public:
  explicit FakeClock(double end) : end_(end) {}
  double Now() override { return now_; }
  bool SleepUntil(double deadline) override {
    if (deadline > end_) return false;
    now_ = deadline + (++wakeups_ == late_at_ ? late_by_ : 0);
    return true;
  }
  void Wake() override {}
  void MakeLate(int wakeup, double by) { late_at_ = wakeup, late_by_ = by; }

 private:
  double now_ = 100;  // not 0: times must be relative to Start
  double end_;
  int wakeups_ = 0, late_at_ = -1;
  double late_by_ = 0;
};

}  // namespace ptsn::monitor::test
