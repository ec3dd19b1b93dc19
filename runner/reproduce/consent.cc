#include "runner/reproduce/consent.h"

#include <ctime>
#include <iostream>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/reproduce/append.h"
#include "runner/run/naming.h"

namespace ptsn::reproduce {

namespace {

bool IsYes(const std::string& answer) {
  std::string a = ToLower(Trim(answer));
  return a == "y" || a == "yes";
}

const results::System* FindSystem(const results::ResultFile& file, const std::string& identifier) {
  for (const auto& s : file.systems)
    if (s.identifier == identifier) return &s;
  return nullptr;
}

}  // namespace

void RequireConsentToSkip(const results::ResultFile& file, const ReproducePlan& plan, bool skip_unavailable,
                          Prompter& prompter) {
  auto missing = plan.Unavailable();
  if (missing.empty() || skip_unavailable) return;
  std::vector<std::string> names;
  for (const PlanItem* it : missing) {
    const results::Result& r = file.results[it->result_index];
    names.push_back(r.title + " [" + it->original + (r.arguments.empty() ? "" : " " + r.arguments) + "]: " + it->reason);
  }
  std::string list = Join(names, "; ");
  if (prompter.Interactive()) {
    std::string q = std::to_string(missing.size()) + " of " + std::to_string(plan.items.size()) +
                    " tests cannot run here (listed above). Skip them and run the rest? [y/N] ";
    if (IsYes(prompter.Ask(q))) return;
    throw Error("not started: " + std::to_string(missing.size()) + " tests cannot run here: " + list);
  }
  throw Error(std::to_string(missing.size()) + " tests cannot run here (pass --skip-unavailable to run the rest): " +
              list);
}

std::string ChooseIdentifier(const results::ResultFile& file, const std::optional<std::string>& from_environment,
                             Prompter& prompter, const std::map<std::string, std::string>& variables) {
  auto check = [&](const std::string& given, const std::string& id) {
    if (id.empty())
      return Trim(given).empty() ? std::string("an empty identifier")
                                 : "'" + given + "' is empty once cleaned as PTS cleans identifiers";
    const results::System* s = FindSystem(file, id);
    if (s && !IsReproductionSystem(*s))
      return "'" + id + "' is a published system of this result; choose another identifier for this one";
    std::vector<std::string> names;
    for (const auto& system : file.systems) names.push_back(system.identifier);
    if (auto near = run::NearDuplicateIdentifier(names, id)) {
      const results::System* other = FindSystem(file, *near);
      return "'" + id + "' differs from the system '" + *near +
             "' only in case, spacing or punctuation, so the two would read as one in every view; choose another "
             "identifier" + (other && IsReproductionSystem(*other) ? " (or exactly '" + *near + "' to resume that run)" : "");
    }
    return std::string();
  };
  if (from_environment && !Trim(*from_environment).empty()) {
    std::string id = run::CleanResultsIdentifier(*from_environment, variables);
    if (auto problem = check(*from_environment, id); !problem.empty()) throw Error("TEST_RESULTS_IDENTIFIER: " + problem);
    return id;
  }
  if (!prompter.Interactive()) {
    // Nobody to ask (a script, a pipe, CI): name this system by the time, as batch-run does, and
    // say so, rather than stop a reproduction that was typed exactly as published.
    std::string id = run::ResolveNaming(std::nullopt, std::nullopt, std::nullopt, std::time(nullptr), variables).identifier;
    if (auto problem = check(id, id); !problem.empty())
      throw Error("no identifier for this system: set TEST_RESULTS_IDENTIFIER (" + problem + ")");
    std::cerr << "This system is '" << id << "' in the result (TEST_RESULTS_IDENTIFIER names it; no terminal to ask).\n";
    return id;
  }
  for (int attempt = 0; attempt < 3; ++attempt) {
    std::string given = prompter.Ask("Enter a unique name to describe this test run / configuration: ");
    std::string id = run::CleanResultsIdentifier(given, variables);
    std::string problem = check(given, id);
    if (problem.empty()) return id;
    std::cerr << "  " << problem << "\n";
  }
  throw Error("no usable identifier for this system was given");
}

std::vector<PlanItem> RemainingItems(const results::ResultFile& file, const ReproducePlan& plan,
                                     const std::string& identifier) {
  std::vector<PlanItem> out;
  for (const auto& it : plan.items) {
    if (it.kind == PlanKind::kUnavailable) continue;
    const size_t original = OriginalIndex(file, it);
    if (original == kNoResult || !HasValueFor(file, original, identifier)) out.push_back(it);
  }
  return out;
}

std::vector<std::string> IncompleteSystems(const results::ResultFile& file) {
  std::vector<std::string> out;
  for (const auto& system : file.systems)
    for (size_t i = 0; i < file.results.size(); ++i)
      if (!NotATest(file, i) && !HasValueFor(file, i, system.identifier)) {
        out.push_back(system.identifier);
        break;
      }
  return out;
}

}  // namespace ptsn::reproduce
