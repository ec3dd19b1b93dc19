#include "runner/run/observer.h"

#include "runner/common/strings.h"
#include "runner/run/estimate.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <numeric>

namespace ptsn::run {

void ObserverList::RunStarted(const std::string& n, const std::string& i, const std::vector<double>& e) {
  for (auto* o : list_) o->RunStarted(n, i, e);
}
void ObserverList::TestStarted(const TestHeader& h) {
  for (auto* o : list_) o->TestStarted(h);
}
void ObserverList::TrialFinished(const TestHeader& h, const TrialReport& t) {
  for (auto* o : list_) o->TrialFinished(h, t);
}
void ObserverList::RunsAdded(const TestHeader& h, int c, const std::string& r) {
  for (auto* o : list_) o->RunsAdded(h, c, r);
}
void ObserverList::InstanceAdded(const TestHeader& h, int i, const std::string& r) {
  for (auto* o : list_) o->InstanceAdded(h, i, r);
}
void ObserverList::TestFinished(const TestHeader& h, const TestReport& r) {
  for (auto* o : list_) o->TestFinished(h, r);
}
void ObserverList::Saved(const std::string& p) {
  for (auto* o : list_) o->Saved(p);
}
void ObserverList::Message(const std::string& t) {
  for (auto* o : list_) o->Message(t);
}
void ObserverList::RunFinished(int ok, int failed) {
  for (auto* o : list_) o->RunFinished(ok, failed);
}
void ObserverList::TargetReady(const std::string& id, double seconds, const std::string& dir) {
  for (auto* o : list_) o->TargetReady(id, seconds, dir);
}
void ObserverList::TargetRemoved(const std::string& id, double seconds) {
  for (auto* o : list_) o->TargetRemoved(id, seconds);
}

Clock SteadyClock() {
  return [] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  };
}

std::string LabelledTrialValues(const TrialReport& t, const std::string& test_description) {
  if (t.values.empty()) return t.value;
  std::string out;
  for (const auto& v : t.values) {
    if (!out.empty()) out += ", ";
    out += v.value;
    if (!v.scale.empty()) out += " " + v.scale;
    // A result of its own within the test (a latency beside the throughput) says which.
    std::string what = v.description;
    if (what == test_description) what.clear();
    else if (!test_description.empty() && what.rfind(test_description + " - ", 0) == 0)
      what = what.substr(test_description.size() + 3);
    if (!what.empty()) out += " (" + what + ")";
  }
  return out;
}

namespace {

// Elapsed time and a remaining-time estimate shared by the human printers: the remaining
// trials of this test at its measured pace, plus the estimates of the tests still to come.
class Progress {
 public:
  explicit Progress(Clock clock) : clock_(std::move(clock)) {}
  void Start(const std::vector<double>& estimates) {
    start_ = clock_();
    estimates_ = estimates;
  }
  void TestStarted(const TestHeader& h) {
    test_start_ = clock_();
    trials_done_ = 0;
    current_ = h.index;
  }
  void TrialDone() { trials_done_++; }
  double Elapsed() const { return clock_() - start_; }
  std::optional<double> Remaining(int planned_trials) const {
    double rest = 0;
    for (size_t i = current_; i < estimates_.size(); ++i) {
      if (estimates_[i] <= 0) return std::nullopt;
      rest += estimates_[i];
    }
    if (trials_done_ == 0) return std::nullopt;
    double per_trial = (clock_() - test_start_) / trials_done_;
    return rest + per_trial * std::max(0, planned_trials - trials_done_);
  }

 private:
  Clock clock_;
  double start_ = 0, test_start_ = 0;
  int trials_done_ = 0;
  int current_ = 0;
  std::vector<double> estimates_;
};

std::string TrialText(const TestHeader& h, const TrialReport& t) {
  std::string s = t.warmup ? "warm-up" : "trial " + std::to_string(t.trial) + " of " + std::to_string(t.of);
  if (!t.target.empty()) s += " on " + t.target;
  return s + (t.ok ? ": " + LabelledTrialValues(t, h.description) : ": FAILED (" + t.failure + ")");
}

std::string TestName(const TestHeader& h) {
  return h.identifier + (h.description.empty() ? "" : " [" + h.description + "]");
}

// One line per event, each flushed as it is written: piped into tee or a CI log, progress shows
// as it happens rather than when a block buffer fills or the run ends.
class PlainPrinter : public RunObserver {
 public:
  PlainPrinter(std::ostream& out, Clock clock) : out_(out), progress_(std::move(clock)) {}
  void RunStarted(const std::string& name, const std::string& id, const std::vector<double>& e) override {
    progress_.Start(e);
    Line("Running " + std::to_string(e.size()) + " test(s)" + (name.empty() ? "" : " for " + name) +
         (id.empty() ? "" : " as " + id) + ", estimated run time " + DescribeEstimate(e));
  }
  void TestStarted(const TestHeader& h) override {
    progress_.TestStarted(h);
    Line("Test " + std::to_string(h.index) + " of " + std::to_string(h.total) + ": " + TestName(h) + " (" +
         std::to_string(h.scheduled_trials) + " trials)");
  }
  void TrialFinished(const TestHeader& h, const TrialReport& t) override {
    if (!t.warmup) progress_.TrialDone();
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f", t.seconds);
    Line("  " + TrialText(h, t) + " [" + secs + " s]");
  }
  void RunsAdded(const TestHeader&, int count, const std::string& reason) override {
    Line("  +" + std::to_string(count) + " run(s): " + reason);
  }
  void InstanceAdded(const TestHeader&, int instance, const std::string& reason) override {
    Line("  +instance " + std::to_string(instance) + " of every target: " + reason);
  }
  void TestFinished(const TestHeader&, const TestReport& r) override {
    std::string prefix = r.target.empty() ? "  " : "  " + r.target + ": ";
    if (r.skipped) Line(prefix + "skipped: " + r.failure);
    else if (r.value.empty()) Line(prefix + "result: FAILED (" + r.failure + ")");
    else Line(prefix + "result: " + r.value + " " + r.scale + " (" + std::to_string(r.trials) + " trials)");
    for (const auto& note : r.notes) Line(prefix + "note: " + note);
  }
  void Saved(const std::string& path) override { Line("Saved " + path); }
  void Message(const std::string& text) override { Line(text); }
  void RunFinished(int ok, int failed) override {
    Line(std::to_string(ok) + " test(s) completed, " + std::to_string(failed) + " failed, in " +
         FormatDuration(progress_.Elapsed()));
  }
  void TargetReady(const std::string& id, double seconds, const std::string& dir) override {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f", seconds);
    Line("Target " + id + ": ready in " + secs + " s (" + dir + ")");
  }
  void TargetRemoved(const std::string& id, double seconds) override {
    char secs[32];
    std::snprintf(secs, sizeof secs, "%.2f", seconds);
    Line("Target " + id + ": removed in " + secs + " s");
  }

 protected:
  void Line(const std::string& text) { out_ << text << '\n' << std::flush; }
  std::ostream& out_;
  Progress progress_;
};

// On a terminal the trial progress rewrites one status line ("\r\033[K"); finished tests and
// messages are printed as normal lines above it.
class TtyPrinter : public PlainPrinter {
 public:
  using PlainPrinter::PlainPrinter;
  void TestStarted(const TestHeader& h) override {
    ClearLine();
    PlainPrinter::TestStarted(h);
    Status(h, 0, h.scheduled_trials);
  }
  void TrialFinished(const TestHeader& h, const TrialReport& t) override {
    if (!t.warmup) progress_.TrialDone();
    if (!t.ok) {
      ClearLine();
      out_ << "  " << TrialText(h, t) << "\n";
    }
    Status(h, t.warmup ? 0 : t.trial, t.of);
  }
  void RunsAdded(const TestHeader& h, int count, const std::string& reason) override {
    ClearLine();
    PlainPrinter::RunsAdded(h, count, reason);
  }
  void InstanceAdded(const TestHeader& h, int instance, const std::string& reason) override {
    ClearLine();
    PlainPrinter::InstanceAdded(h, instance, reason);
  }
  void TestFinished(const TestHeader& h, const TestReport& r) override {
    ClearLine();
    PlainPrinter::TestFinished(h, r);
  }
  void Saved(const std::string& path) override {
    ClearLine();
    PlainPrinter::Saved(path);
  }
  void Message(const std::string& text) override {
    ClearLine();
    PlainPrinter::Message(text);
  }
  void RunFinished(int ok, int failed) override {
    ClearLine();
    PlainPrinter::RunFinished(ok, failed);
  }
  void TargetReady(const std::string& id, double seconds, const std::string& dir) override {
    ClearLine();
    PlainPrinter::TargetReady(id, seconds, dir);
  }
  void TargetRemoved(const std::string& id, double seconds) override {
    ClearLine();
    PlainPrinter::TargetRemoved(id, seconds);
  }

 private:
  void ClearLine() {
    if (status_shown_) out_ << "\r\033[K";
    status_shown_ = false;
  }
  void Status(const TestHeader& h, int trial, int of) {
    auto eta = progress_.Remaining(of);
    out_ << "\r\033[K  test " << h.index << "/" << h.total << ", trial " << trial << "/" << of << ", elapsed "
         << FormatDuration(progress_.Elapsed()) << (eta ? ", ~" + FormatDuration(*eta) + " left" : "")
         << std::flush;
    status_shown_ = true;
  }
  bool status_shown_ = false;
};

class JsonPrinter : public RunObserver {
 public:
  JsonPrinter(std::ostream& out, Clock clock) : out_(out), clock_(std::move(clock)), start_(clock_()) {}
  void RunStarted(const std::string& name, const std::string& id, const std::vector<double>& e) override {
    double total = 0;
    for (double s : e) total += std::max(0.0, s);
    Emit({{"event", "run-started"}, {"name", name}, {"identifier", id}, {"tests", e.size()},
          {"estimated_seconds", std::round(total)}});
  }
  void TestStarted(const TestHeader& h) override {
    Emit({{"event", "test-started"}, {"test", h.index}, {"of", h.total}, {"identifier", h.identifier},
          {"description", h.description}, {"trials", h.scheduled_trials}});
  }
  void TrialFinished(const TestHeader& h, const TrialReport& t) override {
    nlohmann::ordered_json j = {{"event", "trial-finished"}, {"test", h.index}, {"trial", t.trial},
                                {"of", t.of}, {"warmup", t.warmup}, {"ok", t.ok}, {"seconds", t.seconds}};
    if (!t.target.empty()) j["target"] = t.target;
    if (t.ok) {
      j["value"] = t.value;
      if (!t.values.empty()) {
        j["values"] = nlohmann::ordered_json::array();
        for (const auto& v : t.values)
          j["values"].push_back({{"value", v.value}, {"scale", v.scale}, {"description", v.description}});
      }
    } else {
      j["failure"] = t.failure;
    }
    Emit(j);
  }
  void RunsAdded(const TestHeader& h, int count, const std::string& reason) override {
    Emit({{"event", "runs-added"}, {"test", h.index}, {"count", count}, {"reason", reason}});
  }
  void InstanceAdded(const TestHeader& h, int instance, const std::string& reason) override {
    Emit({{"event", "instance-added"}, {"test", h.index}, {"instance", instance}, {"reason", reason}});
  }
  void TestFinished(const TestHeader& h, const TestReport& r) override {
    nlohmann::ordered_json j = {{"event", "test-finished"}, {"test", h.index}, {"ok", !r.value.empty()},
                                {"trials", r.trials}, {"extra_runs", r.extra_runs}};
    if (!r.target.empty()) j["target"] = r.target;
    if (!r.value.empty()) {
      j["value"] = r.value;
      j["scale"] = r.scale;
    } else {
      j["failure"] = r.failure;
      j["skipped"] = r.skipped;
    }
    Emit(j);
  }
  void Saved(const std::string& path) override { Emit({{"event", "saved"}, {"path", path}}); }
  void Message(const std::string& text) override { Emit({{"event", "message"}, {"text", text}}); }
  void RunFinished(int ok, int failed) override {
    Emit({{"event", "run-finished"}, {"tests_ok", ok}, {"tests_failed", failed}});
  }
  void TargetReady(const std::string& id, double seconds, const std::string& dir) override {
    Emit({{"event", "target-ready"}, {"target", id}, {"setup_seconds", seconds}, {"work_dir", dir}});
  }
  void TargetRemoved(const std::string& id, double seconds) override {
    Emit({{"event", "target-removed"}, {"target", id}, {"teardown_seconds", seconds}});
  }

 private:
  void Emit(nlohmann::ordered_json j) {
    j["t"] = std::round((clock_() - start_) * 1000) / 1000;
    out_ << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n" << std::flush;
  }
  std::ostream& out_;
  Clock clock_;
  double start_;
};

}  // namespace

std::unique_ptr<RunObserver> MakePrinter(PrinterKind kind, std::ostream& out, Clock clock) {
  switch (kind) {
    case PrinterKind::kTty: return std::make_unique<TtyPrinter>(out, std::move(clock));
    case PrinterKind::kPlain: return std::make_unique<PlainPrinter>(out, std::move(clock));
    case PrinterKind::kJson: return std::make_unique<JsonPrinter>(out, std::move(clock));
  }
  return nullptr;
}

}  // namespace ptsn::run
