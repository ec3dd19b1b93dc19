// Result names as PTS batch mode derives them (spec pts-results.md e): TEST_RESULTS_NAME ->
// title + cleaned directory name, TEST_RESULTS_IDENTIFIER -> cleaned identifier, dates when absent.
#pragma once

#include <ctime>
#include <optional>
#include <string>
#include <vector>

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

// pts_test_run_manager::auto_generate_results_identifier() for a new result file: the
// Hardware/Software component of each tested subsystem (the profiles' TestType in run order:
// "Processor", "Disk", "Graphics"...), shortened with TrimSearchQuery and kept when it reads as a
// product name, up to three joined by " - " ("AMD EPYC"); outside batch mode it falls back to CPU
// - GPU - motherboard. Over 55 characters it is cut at a word. "" = keep the date.
std::string AutoResultsIdentifier(const std::string& hardware, const std::string& software,
                                  const std::vector<std::string>& test_types, bool batch);

}  // namespace ptsn::run
