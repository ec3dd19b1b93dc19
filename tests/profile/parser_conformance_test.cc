// Every case of ../shared/conformance/parser: the real PTS 10.8.6 parser's output for a real
// profile, an argument string and a program output. We must reproduce its results exactly.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "runner/common/atomic_file.h"
#include "runner/common/shared_dir.h"
#include "runner/profile/profile_repository.h"
#include "runner/profile/results_parser.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ptsn::profile;

namespace {

const std::string kCases = ::ptsn::SharedDir() + "/conformance/parser";

std::string Str(const json& j) { return j.is_null() ? "<null>" : j.get<std::string>(); }

// Returns "" when the case matches, else the first difference.
std::string RunCase(const fs::path& dir) {
  json c = json::parse(ptsn::ReadFile((dir / "case.json").string()));
  json expected = json::parse(ptsn::ReadFile((dir / "expected.json").string()));
  ProfileRepository repo({});
  TestProfile p = repo.LoadDirectory((dir / "profile").string(), c["profile"].get<std::string>());
  ParseSession session(p.results, ParseContextFor(p, c.value("arguments", ""), c.value("description", "")));
  bool produced = session.ParseLog(ptsn::ReadFile((dir / "output.log").string()));
  if (session.pts_test_arguments() != expected["pts_test_arguments"].get<std::string>())
    return "pts_test_arguments '" + session.pts_test_arguments() + "' != '" + Str(expected["pts_test_arguments"]) + "'";
  if (produced != expected["produced_result"].get<bool>()) return "produced_result differs";
  std::vector<ParsedResult> got = session.Results();
  // PTS's "results" are the saved ones; "dropped_results" were generated but rejected.
  std::vector<std::pair<ParsedResult, FinalValue>> saved;
  for (const auto& r : got) {
    FinalValue f = FinalizeResult(r, p.result_quantifier);
    if (f.saved) saved.emplace_back(r, f);
  }
  const json& want = expected["results"];
  if (saved.size() != want.size())
    return "results count " + std::to_string(saved.size()) + " != " + std::to_string(want.size());
  for (size_t i = 0; i < saved.size(); ++i) {
    const auto& [r, f] = saved[i];
    const json& w = want[i];
    std::string at = "result " + std::to_string(i) + ": ";
    if (r.description != Str(w["description"])) return at + "description '" + r.description + "' != '" + Str(w["description"]) + "'";
    if (r.scale != Str(w["scale"])) return at + "scale '" + r.scale + "' != '" + Str(w["scale"]) + "'";
    if (r.proportion != Str(w["proportion"])) return at + "proportion '" + r.proportion + "' != '" + Str(w["proportion"]) + "'";
    if (r.display_format != Str(w["display_format"])) return at + "display_format '" + r.display_format + "' != '" + Str(w["display_format"]) + "'";
    if (r.is_secondary != w["is_secondary"].get<bool>()) return at + "is_secondary differs";
    std::vector<std::string> tv = w["trial_values"].get<std::vector<std::string>>();
    if (r.trial_values != tv) return at + "trial_values '" + (r.trial_values.empty() ? "" : r.trial_values[0]) + "' != '" + (tv.empty() ? "" : tv[0]) + "'";
    for (size_t k = 0; k < w["trial_min"].size() && k < r.trial_min.size(); ++k) {
      std::string a = r.trial_min[k] ? *r.trial_min[k] : "<null>", b = Str(w["trial_min"][k]);
      if (a != b) return at + "trial_min '" + a + "' != '" + b + "'";
      a = r.trial_max[k] ? *r.trial_max[k] : "<null>", b = Str(w["trial_max"][k]);
      if (a != b) return at + "trial_max '" + a + "' != '" + b + "'";
    }
    if (f.value != Str(w["value"])) return at + "value '" + f.value + "' != '" + Str(w["value"]) + "'";
    std::string mn = f.min ? *f.min : "<null>", mx = f.max ? *f.max : "<null>";
    if (mn != Str(w["min"])) return at + "min '" + mn + "' != '" + Str(w["min"]) + "'";
    if (mx != Str(w["max"])) return at + "max '" + mx + "' != '" + Str(w["max"]) + "'";
  }
  return "";
}

}  // namespace

TEST(ParserConformance, EveryCaseMatchesRealPts) {
  if (!fs::is_directory(kCases)) GTEST_SKIP() << kCases << " is absent";
  std::vector<fs::path> cases;
  for (const auto& e : fs::directory_iterator(kCases))
    if (fs::is_regular_file(e.path() / "case.json")) cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  int passed = 0;
  std::vector<std::string> failures;
  for (const auto& c : cases) {
    std::string diff;
    try {
      diff = RunCase(c);
    } catch (const std::exception& e) {
      diff = std::string("exception: ") + e.what();
    }
    if (diff.empty()) ++passed;
    else failures.push_back(c.filename().string() + ": " + diff);
  }
  std::cout << "parser conformance: " << passed << "/" << cases.size() << " cases match the real PTS\n";
  for (const auto& f : failures) ADD_FAILURE() << f;
  EXPECT_EQ(passed, static_cast<int>(cases.size()));
}
