// pts-native.1 from the command table and the settings table: the same text `help`, `COMMAND
// --help` and `config` print, so the installed page cannot say otherwise.
#include <map>

#include "runner/cli/command.h"
#include "runner/common/man_page.h"
#include "runner/common/settings.h"

namespace ptsn::cli {

std::string ManualPage() {
  std::vector<ManSection> sections = {{"SYNOPSIS", kUsage}, {"COMMANDS", "pts-native help COMMAND prints the same."}};
  std::map<std::string, std::string> by_group;
  std::vector<std::string> order;
  for (const auto& c : AllCommands()) {
    if (!by_group.count(c.group)) order.push_back(c.group);
    by_group[c.group] += CommandHelp(c) + "\n";
  }
  for (const auto& g : order) sections.push_back({g, by_group[g], true});
  std::string environment;
  for (const auto& spec : SettingsTable())
    environment += std::string(spec.env) + "  (" + spec.key + ", default '" + spec.default_value + "')\n  " +
                   spec.description + "\n";
  sections.push_back({"ENVIRONMENT", "Each setting is also a key of the config file (pts-native config shows both).\n\n" + environment});
  return ManPage("pts-native", std::string("pts-native ") + kVersion, kSummary, sections);
}

}  // namespace ptsn::cli
