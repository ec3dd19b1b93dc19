// The questions a reproduction may have to ask before anything runs — whether to skip tests
// that cannot run here, and the new system's identifier — answered by flags and environment
// first, by the user on a TTY otherwise, and never guessed: `--non-interactive` without an
// answer is an error naming what is missing.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "runner/reproduce/plan.h"
#include "runner/run/prompter.h"

namespace ptsn::reproduce {

using run::Prompter;  // the run's question interface (run/prompter.h), shared with `run`
using run::TerminalPrompter;

// Returns normally when nothing is unavailable, or `skip_unavailable`, or the user says yes.
// Otherwise throws ptsn::Error listing every test that cannot run and why.
void RequireConsentToSkip(const results::ResultFile& file, const ReproducePlan& plan, bool skip_unavailable,
                          Prompter& prompter);

// The new system's identifier: TEST_RESULTS_IDENTIFIER's value when given, else asked, cleaned
// as PTS cleans a typed identifier (run::CleanResultsIdentifier with `variables` for "$NAME").
// An identifier that names a published system is refused (its entries would be mixed with
// theirs); one left by an earlier, interrupted reproduction is accepted (the missing tests are
// resumed); one that cleans to nothing is refused.
std::string ChooseIdentifier(const results::ResultFile& file, const std::optional<std::string>& from_environment,
                             Prompter& prompter, const std::map<std::string, std::string>& variables = {});

// The items still to run for `identifier` (all of them for a new identifier): those without a
// value for it (HasValueFor, append.h).
std::vector<PlanItem> RemainingItems(const results::ResultFile& file, const ReproducePlan& plan,
                                     const std::string& identifier);

// The systems a finish-run can complete, in file order: each lacks a value (HasValueFor) for some
// test of the file (NotATest excluded) — PTS's has_missing_or_incomplete_data(), with a stand-in
// kept apart counting for the test it stands in for. The same test of "done" as RemainingItems.
std::vector<std::string> IncompleteSystems(const results::ResultFile& file);

}  // namespace ptsn::reproduce
