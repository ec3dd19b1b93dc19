// Result names as PTS batch mode derives them (spec pts-results.md e): TEST_RESULTS_NAME ->
// title + cleaned directory name, TEST_RESULTS_IDENTIFIER -> cleaned identifier, dates when absent.
#pragma once

#include <ctime>
#include <optional>
#include <string>

namespace ptsn::run {

struct RunNaming {
  std::string title;       // Generated/Title: the name as given
  std::string save_name;   // directory under test-results/
  std::string identifier;  // System/Identifier
  std::optional<std::string> description;  // TEST_RESULTS_DESCRIPTION when given
};

// clean_results_identifier(): keep [A-Za-z0-9 -_:,/.@+;=] (parentheses go), collapse double spaces.
std::string CleanResultsIdentifier(const std::string& s);

// name/identifier/description: the values given (env or prompt), nullopt when absent.
// `now` fills the PTS defaults: name "Y-m-d-Hi" (both title and directory), identifier "Y-m-d H:i".
RunNaming ResolveNaming(const std::optional<std::string>& name, const std::optional<std::string>& identifier,
                        const std::optional<std::string>& description, std::time_t now);

}  // namespace ptsn::run
