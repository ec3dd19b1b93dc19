// help, version, config.
#include <cstdio>
#include <iostream>
#include <map>

#include "runner/cli/command.h"
#include "runner/common/args.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"

namespace ptsn::cli {

namespace {

int Help(const std::vector<std::string>& args) {
  if (!args.empty()) {
    if (const Command* c = FindCommand(args[0])) {
      std::cout << CommandHelp(*c);
      return 0;
    }
    std::cerr << UnknownCommandMessage(args[0]) << "\n";
    return 2;
  }
  std::cout << "pts-native — " << kSummary << "\n\n" << kUsage;
  std::map<std::string, std::vector<const Command*>> groups;
  std::vector<std::string> order;
  for (const auto& c : AllCommands()) {
    if (!groups.count(c.group)) order.push_back(c.group);
    groups[c.group].push_back(&c);
  }
  for (const auto& g : order) {
    std::cout << "\n" << g << ":\n";
    for (const Command* c : groups[g]) {
      std::string head = c->name + " " + c->usage.substr(0, c->usage.find('\n'));
      if (head.size() < 44) head.resize(44, ' ');
      std::cout << "  " << head << " " << c->summary << "\n";
    }
  }
  return 0;
}

int Version(const std::vector<std::string>&) {
  std::cout << "pts-native " << kVersion << " (reads and writes Phoronix Test Suite 10.8.6 result files)\n";
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

// PTS's user-config-set KEY=VALUE...: each into the config file, in order.
int UserConfigSet(const std::vector<std::string>& argv) {
  Args args = Args::Parse(argv, {{}, {}});
  if (args.positional().empty())
    throw Error("user-config-set: give KEY=VALUE (e.g. run.trial_timeout=600 or CacheDirectory=~/cache)", 2);
  const std::string path = GlobalSettings().config_path();
  for (const auto& item : args.positional()) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("user-config-set: '" + item + "' is not KEY=VALUE", 2);
    std::string value = item.substr(eq + 1);
    if (!value.empty() && value.front() == '"') value.erase(0, 1);  // as PTS strips quotes
    if (!value.empty() && value.back() == '"') value.pop_back();
    std::string key = SetInConfigFile(path, item.substr(0, eq), value);
    std::cout << key << " = " << value << "\n";
  }
  std::cout << "New user configuration file written: " << path << "\n";
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
      {"user-config-set", {}, "General", "KEY=VALUE...", "set settings in the config file (keys as `config` shows them)",
       UserConfigSet,
       "KEY is a setting (run.trial_timeout, results.directory, ...) or the PTS user-config option it\n"
       "stands for (EnvironmentDirectory, CacheDirectory, ResultsDirectory, SleepTimeBetweenTests,\n"
       "DynamicRunCount, StandardDeviationThreshold, MinimalTestTime, NoInternetCommunication).\n"
       "The value is checked (true/false, a number) before the file is written; comments in it are not kept."},
      {"list-commands", {}, "General", "", "command names, one per line (for shell completion)", Completion},
  };
}

}  // namespace ptsn::cli
