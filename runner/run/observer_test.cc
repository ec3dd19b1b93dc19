#include "runner/run/observer.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

namespace ptsn::run {
namespace {

struct FakeClock {
  double now = 100;
  Clock AsClock() {
    return [this] { return now; };
  }
};

void Script(RunObserver& o, FakeClock& clock) {
  TestHeader h{1, 2, "local/trivial-1.0.0", "Trivial", "Size: 4KB", 3, 10};
  o.RunStarted("My Run", "Box", {10, 20});
  o.TestStarted(h);
  clock.now += 2;
  o.TrialFinished(h, {1, 3, false, true, "1.5", "", 2});
  clock.now += 2;
  o.TrialFinished(h, {2, 3, false, false, "", "exited with status 1", 2});
  o.RunsAdded(h, 1, "1 failed run(s) retried");
  o.TestFinished(h, {"1.5", "Units", 4, 1, "", false});
  o.Saved("/tmp/x/composite.xml");
  o.RunFinished(1, 0);
}

TEST(PlainPrinterTest, OneLinePerEvent) {
  std::ostringstream out;
  FakeClock clock;
  auto p = MakePrinter(PrinterKind::kPlain, out, clock.AsClock());
  Script(*p, clock);
  EXPECT_EQ(out.str(),
            "Running 2 test(s) for My Run as Box, estimated run time about 30s\n"
            "Test 1 of 2: local/trivial-1.0.0 [Size: 4KB] (3 trials)\n"
            "  trial 1 of 3: 1.5 [2.00 s]\n"
            "  trial 2 of 3: FAILED (exited with status 1) [2.00 s]\n"
            "  +1 run(s): 1 failed run(s) retried\n"
            "  result: 1.5 Units (4 trials)\n"
            "Saved /tmp/x/composite.xml\n"
            "1 test(s) completed, 0 failed, in 4s\n");
}

TEST(TtyPrinterTest, StatusLineShowsTrialElapsedAndEta) {
  std::ostringstream out;
  FakeClock clock;
  auto p = MakePrinter(PrinterKind::kTty, out, clock.AsClock());
  Script(*p, clock);
  std::string s = out.str();
  // After trial 1 (2 s each): 2 trials left here (4 s) + 20 s estimated for test 2.
  EXPECT_NE(s.find("test 1/2, trial 1/3, elapsed 2s, ~24s left"), std::string::npos) << s;
  EXPECT_NE(s.find("\r\033[K  trial 2 of 3: FAILED (exited with status 1)\n"), std::string::npos) << s;
  EXPECT_NE(s.find("1 test(s) completed"), std::string::npos);
}

TEST(JsonPrinterTest, EveryLineIsAJsonEvent) {
  std::ostringstream out;
  FakeClock clock;
  auto p = MakePrinter(PrinterKind::kJson, out, clock.AsClock());
  Script(*p, clock);
  std::istringstream lines(out.str());
  std::vector<nlohmann::json> events;
  for (std::string line; std::getline(lines, line);) events.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(events.size(), 8u);
  EXPECT_EQ(events[0]["event"], "run-started");
  EXPECT_EQ(events[0]["estimated_seconds"], 30);
  EXPECT_EQ(events[2]["value"], "1.5");
  EXPECT_EQ(events[3]["failure"], "exited with status 1");
  EXPECT_EQ(events[4]["reason"], "1 failed run(s) retried");
  EXPECT_EQ(events[5]["extra_runs"], 1);
  EXPECT_DOUBLE_EQ(events[5]["t"].get<double>(), 4.0);
}

// Each event reaches the stream's buffer flushed, so a pipe (tee, a CI log) shows it at once.
TEST(PlainPrinterTest, FlushesEveryLine) {
  struct CountingBuf : std::stringbuf {
    int syncs = 0;
    int sync() override {
      ++syncs;
      return std::stringbuf::sync();
    }
  } buf;
  std::ostream out(&buf);
  FakeClock clock;
  for (auto kind : {PrinterKind::kPlain, PrinterKind::kJson}) {
    buf.syncs = 0;
    auto p = MakePrinter(kind, out, clock.AsClock());
    Script(*p, clock);
    EXPECT_EQ(buf.syncs, 8) << static_cast<int>(kind);
  }
}

TEST(JsonPrinterTest, TargetsAreNamedInTrialsAndTheirLifeIsReported) {
  FakeClock clock;
  std::ostringstream out;
  auto p = MakePrinter(PrinterKind::kJson, out, clock.AsClock());
  TestHeader h{1, 1, "local/target-write-1.0.0", "Target Write", "", 3, 1};
  p->TargetReady("plain ext4", 0.25, "/t/.ptsn-targets-1/t1-plain");
  p->TrialFinished(h, {1, 3, false, true, "120", "", 1, {}, "plain ext4"});
  p->TestFinished(h, {"120", "MB/s", 3, 0, "", false, "plain ext4"});
  p->TargetRemoved("plain ext4", 0.125);
  std::istringstream lines(out.str());
  std::vector<nlohmann::json> events;
  for (std::string line; std::getline(lines, line);) events.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0]["event"], "target-ready");
  EXPECT_EQ(events[0]["setup_seconds"], 0.25);
  EXPECT_EQ(events[1]["target"], "plain ext4");
  EXPECT_EQ(events[2]["target"], "plain ext4");
  EXPECT_EQ(events[3]["event"], "target-removed");
  EXPECT_EQ(events[3]["teardown_seconds"], 0.125);

  std::ostringstream plain;
  auto q = MakePrinter(PrinterKind::kPlain, plain, clock.AsClock());
  q->TrialFinished(h, {2, 3, false, true, "121", "", 1, {}, "fscrypt AES-256-XTS ext4"});
  EXPECT_EQ(plain.str(), "  trial 2 of 3 on fscrypt AES-256-XTS ext4: 121 [1.00 s]\n");
}

TEST(PlainPrinterTest, TrialValuesAreLabelledWithTheirUnits) {
  // A disk test reports throughput, IOPS and a p99 latency from one trial: each value says what
  // it is ("1237.56, 19800.89, 442.37" told nothing).
  TestHeader h{1, 1, "native/disk-rand-read-1.0.0", "Native Random Read", "Block Size: 4KB", 3, 10};
  TrialReport t{1, 3, false, true, "1237.56, 19800.89, 442.37", "", 2,
                {{"1237.56", "MiB/s", "Block Size: 4KB"},
                 {"19800.89", "IOPS", "Block Size: 4KB"},
                 {"442.37", "Microseconds", "Block Size: 4KB - p99 Latency"}}};
  EXPECT_EQ(LabelledTrialValues(t, h.description), "1237.56 MiB/s, 19800.89 IOPS, 442.37 Microseconds (p99 Latency)");
  std::ostringstream out;
  FakeClock clock;
  auto p = MakePrinter(PrinterKind::kPlain, out, clock.AsClock());
  p->TrialFinished(h, t);
  EXPECT_EQ(out.str(), "  trial 1 of 3: 1237.56 MiB/s, 19800.89 IOPS, 442.37 Microseconds (p99 Latency) [2.00 s]\n");
  std::ostringstream json;
  auto j = MakePrinter(PrinterKind::kJson, json, clock.AsClock());
  j->TrialFinished(h, t);
  auto event = nlohmann::json::parse(json.str());
  EXPECT_EQ(event["values"][2]["scale"], "Microseconds");
  EXPECT_EQ(event["values"][2]["description"], "Block Size: 4KB - p99 Latency");
  // Without units (a report that only has the text) the text is shown as it is.
  EXPECT_EQ(LabelledTrialValues({1, 3, false, true, "1.5", "", 2}, ""), "1.5");
  // A description unrelated to the test's is shown whole.
  EXPECT_EQ(LabelledTrialValues({1, 1, false, true, "7", "", 1, {{"7", "s", "Other"}}}, "Size: 4KB"), "7 s (Other)");
}

}  // namespace
}  // namespace ptsn::run
