// help, version, config.
#include <cstdio>
#include <iostream>
#include <map>

#include "runner/cli/command.h"
#include "runner/common/args.h"
#include "runner/common/settings.h"

namespace ptsn::cli {

namespace {

int Help(const std::vector<std::string>& args) {
  if (!args.empty()) {
    if (const Command* c = FindCommand(args[0])) {
      std::cout << "pts-native " << c->name << " " << c->usage << "\n  " << c->summary << "\n";
      if (!c->aliases.empty()) {
        std::cout << "  aliases:";
        for (const auto& a : c->aliases) std::cout << " " << a;
        std::cout << "\n";
      }
      return 0;
    }
    std::cerr << "pts-native: unknown command '" << args[0] << "'\n";
    return 2;
  }
  std::cout << "pts-native — a native backend for Phoronix Test Suite profiles and result files\n\n"
               "usage: pts-native COMMAND [ARGS]   (names as in PTS; '-'/'_' and case do not matter)\n";
  std::map<std::string, std::vector<const Command*>> groups;
  std::vector<std::string> order;
  for (const auto& c : AllCommands()) {
    if (!groups.count(c.group)) order.push_back(c.group);
    groups[c.group].push_back(&c);
  }
  for (const auto& g : order) {
    std::cout << "\n" << g << ":\n";
    for (const Command* c : groups[g]) {
      std::string head = c->name + " " + c->usage;
      if (head.size() < 44) head.resize(44, ' ');
      std::cout << "  " << head << " " << c->summary << "\n";
    }
  }
  return 0;
}

int Version(const std::vector<std::string>&) {
  std::cout << "pts-native 0.1.0 (reads and writes Phoronix Test Suite 10.8.6 result files)\n";
  return 0;
}

int Config(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{}, {"--json"}});
  const Settings& s = GlobalSettings();
  std::cout << "config file: " << s.config_path() << (s.config_file_found() ? "" : " (not present)") << "\n";
  for (const auto& spec : SettingsTable()) {
    const auto& v = s.GetWithOrigin(spec.key);
    std::string origin = SettingOriginName(v.origin);
    if (v.origin == SettingOrigin::kEnvironment) origin += " " + std::string(spec.env);
    std::string key = spec.key;
    if (key.size() < 26) key.resize(26, ' ');
    std::cout << "  " << key << " = " << (v.value.empty() ? "''" : v.value) << "   [" << origin << "; env "
              << spec.env << "]\n";
  }
  return 0;
}

int Completion(const std::vector<std::string>&) {
  // bash: complete -W "$(pts-native list-commands)" pts-native
  for (const auto& c : AllCommands()) {
    std::cout << c.name << "\n";
    for (const auto& a : c.aliases) std::cout << a << "\n";
  }
  return 0;
}

}  // namespace

std::vector<Command> CoreCommands() {
  return {
      {"help", {"--help", "-h"}, "General", "[COMMAND]", "list the commands, or show one", Help},
      {"version", {"--version"}, "General", "", "print the version", Version},
      {"config", {"show-config"}, "General", "", "show every setting, its value and where it came from", Config},
      {"list-commands", {}, "General", "", "command names, one per line (for shell completion)", Completion},
  };
}

}  // namespace ptsn::cli
