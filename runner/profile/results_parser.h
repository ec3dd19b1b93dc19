// PTS's results parser (pts_test_result_parser, v10.8.6) and the result finalisation of
// pts_test_execution: a trial's $LOG_FILE + the profile's ResultsParser blocks -> result buckets
// with trial values printed as PHP prints them, then the value PTS stores.
//
//   ParseSession session(profile.results, ParseContextFor(profile, run_option));
//   for each trial: session.ParseLog(log_text);          // or ParseLog(std::nullopt) for no log
//   for (auto& r : session.Results()) { FinalValue v = FinalizeResult(r, quantifier); ... }
//
// Quirks are reproduced on purpose (spec §8: last match wins, LineBeforeHint takes the line after
// the last hint, 0 is no result, duplicate values are dropped, MultiMatch min/max aliasing, the
// token-position fallback...). Output that does not match yields no result and a reason in the
// trace; a non-numeric match is rejected. Nothing is ever invented.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/profile/test_profile.h"

namespace ptsn::profile {

struct ParseContext {
  std::string arguments;    // the result's stored arguments (option values, no Default/Arguments)
  std::string description;  // the arguments description
  std::string default_arguments, default_post_arguments;  // TestSettings/Default
  std::string result_scale, proportion, display_format = "BAR_GRAPH";  // profile values
  std::string subtitle;     // TestInformation/SubTitle, used for an empty description
};
ParseContext ParseContextFor(const TestProfile& profile, const std::string& arguments, const std::string& description);

// One result PTS would generate (a pts_test_result with its trial buffer). Blocks whose results
// end with the same description and scale share one (PTS's comparison-hash merge).
struct ParsedResult {
  std::string description, arguments, scale, proportion, display_format;
  bool is_secondary = false;  // Importance=Secondary with a primary result
  // When is_secondary: the description and scale the trial's primary result had as this one was
  // made (PTS's set_parent_hash_from_result($primary_result)); with the test's identifier,
  // arguments and AppVersion they give the comparison hash stored as this result's <Parent>.
  std::string primary_description, primary_scale;
  std::string result_precision;  // ResultPrecision of the block that created it ("" = none)
  std::vector<std::string> trial_values;               // as PHP prints them
  std::vector<std::optional<std::string>> trial_min;   // MIN_ key / MultiMatch min, else nullopt
  std::vector<std::optional<std::string>> trial_max;
  int block = 0;  // 1-based ResultsParser block that created it; 0 = a SystemMonitor value
};

class ParseSession {
 public:
  ParseSession(ResultsDefinition definition, ParseContext context);
  // Parses one trial's log (nullopt: no log file). Returns whether any block produced a value
  // (PTS's parse_result()). `trace` gets a human explanation per block when non-null.
  bool ParseLog(const std::optional<std::string>& log, std::vector<std::string>* trace = nullptr);
  // A trial value from a <SystemMonitor> (sys.time...) instead of the log: it goes to the test's
  // own result (its description, ResultScale and Proportion), as PTS's gen_result_active_handle
  // on the unmodified test result does.
  void AddMonitorValue(const std::string& value);
  // The results so far with empty descriptions filled from the SubTitle (as run_test() does).
  std::vector<ParsedResult> Results() const;
  const std::string& pts_test_arguments() const { return pts_test_arguments_; }

 private:
  // Blocks whose results end with the same description and scale share one (comparison hash).
  ParsedResult* FindBucket(const std::string& description, const std::string& scale);
  ResultsDefinition definition_;
  ParseContext context_;
  std::string pts_test_arguments_;
  std::vector<ParsedResult> buckets_;
};

struct FinalValue {
  std::string value;  // what composite.xml stores, e.g. "290.3", "2460.32", "PASS"
  std::optional<std::string> min, max;
  bool saved = false;  // PTS keeps it: numeric > 0, or non-numeric of 4+ characters
  std::string reason;  // why it is not saved
};
// calculate_end_result_post_processing: quantifier is ResultQuantifier (AVG default, MAX, MIN).
FinalValue FinalizeResult(const ParsedResult& result, const std::string& quantifier = "");

}  // namespace ptsn::profile
