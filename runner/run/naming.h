// Result names as PTS batch mode derives them (spec pts-results.md e): TEST_RESULTS_NAME ->
// title + cleaned directory name, TEST_RESULTS_IDENTIFIER -> cleaned identifier, dates when absent.
#pragma once

#include <ctime>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runner/sysinfo/sysinfo.h"

namespace ptsn::run {

struct RunNaming {
  std::string title;       // Generated/Title: the name as given
  std::string save_name;   // directory under test-results/
  std::string identifier;  // System/Identifier
  std::optional<std::string> description;  // TEST_RESULTS_DESCRIPTION when given
};

// PTS's clean_results_identifier(): "$NAME" tokens (up to the next space) are replaced by
// `variables` (PTS's user_run_save_variables: HOSTNAME, PROCESSOR, KERNEL_VERSION...), then only
// ASCII letters, digits, space and -_:,/\.@+;= (backslash too: PTS counts it as a slash) are kept,
// parentheses and everything else go; runs of spaces become one, the ends are trimmed; "" and "0"
// (PHP empty()) come back as "".
std::string CleanResultsIdentifier(const std::string& s, const std::map<std::string, std::string>& variables = {});

// The "$NAME" values PTS offers in a typed identifier (user_run_save_variables), taken from this
// system's Hardware/Software components: PROCESSOR, MOTHERBOARD, CHIPSET, VIDEO_CARD,
// VIDEO_RESOLUTION, VIDEO_DRIVER, OPENGL_DRIVER, OPERATING_SYSTEM, KERNEL_VERSION, COMPILER,
// HOSTNAME. PTS reads them from phodevi; a component's trailing " (...)" detail ("(8 Cores)",
// "(x86_64)") is dropped to come close to phodevi's names.
std::map<std::string, std::string> IdentifierVariables(const std::vector<std::pair<std::string, std::string>>& hardware,
                                                       const std::vector<std::pair<std::string, std::string>>& software,
                                                       const std::string& hostname);

// IdentifierVariables of this machine (components read through `reader`, gethostname()).
std::map<std::string, std::string> LiveIdentifierVariables(const sysinfo::SystemReader& reader);

// The identifier of a system already in `systems` that `identifier` differs from only in case,
// spacing or punctuation ("baseline" vs "Baseline", "Tuned-2" vs "Tuned 2"): a new system so named
// would read as the same machine in every view. nullopt when there is none (an exact match is
// the same system, not a near duplicate).
std::optional<std::string> NearDuplicateIdentifier(const std::vector<std::string>& systems, const std::string& identifier);

// name/identifier/description: the values given (env or prompt), nullopt when absent.
// `now` fills the PTS defaults: name "Y-m-d-Hi" (both title and directory), identifier "Y-m-d H:i".
// `variables` fill "$NAME" tokens of the identifier (CleanResultsIdentifier).
RunNaming ResolveNaming(const std::optional<std::string>& name, const std::optional<std::string>& identifier,
                        const std::optional<std::string>& description, std::time_t now,
                        const std::map<std::string, std::string>& variables = {});

// pts_test_run_manager::auto_generate_results_identifier() for a new result file: the
// Hardware/Software component of each tested subsystem (the profiles' TestType in run order:
// "Processor", "Disk", "Graphics"...), shortened with TrimSearchQuery and kept when it reads as a
// product name, up to three joined by " - " ("AMD EPYC"); outside batch mode it falls back to CPU
// - GPU - motherboard. Over 55 characters it is cut at a word. "" = keep the date.
std::string AutoResultsIdentifier(const std::string& hardware, const std::string& software,
                                  const std::vector<std::string>& test_types, bool batch);

}  // namespace ptsn::run
