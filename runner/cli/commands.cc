#include "runner/cli/command.h"

#include "runner/common/strings.h"

namespace ptsn::cli {

const std::vector<Command>& AllCommands() {
  static const std::vector<Command> all = [] {
    std::vector<Command> out;
    for (auto group : {CoreCommands, ResultCommands, ExportCommands, WorkloadCommands, ProfileCommands, MonitorCommands, ClientCommands, RunCommands, ReproduceCommands, FleetCommands}) {
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

}  // namespace ptsn::cli
