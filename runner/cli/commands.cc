#include "runner/cli/command.h"

#include <algorithm>
#include <cstdint>

#include "runner/common/strings.h"

namespace ptsn::cli {

const std::vector<Command>& AllCommands() {
  static const std::vector<Command> all = [] {
    std::vector<Command> out;
    for (auto group : {CoreCommands, ResultCommands, ExportCommands, WorkloadCommands, ProfileCommands, MonitorCommands, ClientCommands, RunCommands, EncryptionCostCommands, ReproduceCommands, InstalledCommands, TargetCommands, FleetCommands}) {
      auto rows = group();
      out.insert(out.end(), rows.begin(), rows.end());
    }
    return out;
  }();
  return all;
}

const Command* FindCommand(const std::string& name) {
  for (const auto& c : AllCommands()) {
    if (SameCommandName(c.name, name)) return &c;
    for (const auto& alias : c.aliases)
      if (SameCommandName(alias, name)) return &c;
  }
  return nullptr;
}

namespace {

// Names compare with '_' as '-' and in lower case, as FindCommand matches them.
std::string Normal(std::string_view name) {
  std::string n = ToLower(name);
  std::replace(n.begin(), n.end(), '_', '-');
  return n;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

std::vector<std::string> SimilarCommands(const std::string& name) {
  const std::string typed = Normal(name);
  if (typed.empty()) return {};
  // A typo costs about one edit per four letters; a prefix of a longer name is a match too.
  const size_t allowed = std::max<size_t>(2, typed.size() / 4);
  std::vector<std::pair<size_t, std::string>> scored;
  for (const auto& c : AllCommands()) {
    size_t best = SIZE_MAX;
    std::vector<std::string> names = c.aliases;
    names.push_back(c.name);
    for (const auto& n : names) {
      const std::string candidate = Normal(n);
      if (StartsWith(candidate, "-")) continue;  // --help, --version
      size_t d = EditDistance(typed, candidate);
      if (typed.size() >= 4 && StartsWith(candidate, typed)) d = std::min<size_t>(d, 1);
      best = std::min(best, d);
    }
    if (best <= allowed) scored.emplace_back(best, c.name);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [d, n] : scored)
    if (out.size() < 3) out.push_back(n);
  return out;
}

std::string UnknownCommandMessage(const std::string& name) {
  std::string message = "pts-native: unknown command '" + name + "'";
  auto similar = SimilarCommands(name);
  if (!similar.empty()) message += "; did you mean " + Join(similar, ", ") + "?";
  return message + " (pts-native help lists them)";
}

std::string CommandHelp(const Command& c) {
  std::string out;
  for (const auto& usage : Split(c.usage.empty() ? std::string(" ") : c.usage, '\n'))
    out += Trim("pts-native " + c.name + " " + usage) + "\n";
  out += "  " + c.summary + "\n";
  if (!c.details.empty())
    for (const auto& line : Split(c.details, '\n')) out += line.empty() ? "\n" : "  " + line + "\n";
  if (!c.aliases.empty()) out += "  aliases: " + Join(c.aliases, " ") + "\n";
  return out;
}

}  // namespace ptsn::cli
