// pts-native: a thin entry point over the command table.
#include <iostream>
#include <string>
#include <vector>

#include "runner/cli/command.h"
#include "runner/cli/target_flags.h"
#include "runner/common/error.h"
#include "runner/targets/mount_namespace.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) args = {"help"};
  // Not a command (nor in `help`): the build writes the manual page with it.
  if (args[0] == "--man-page") {
    std::cout << ptsn::cli::ManualPage();
    return 0;
  }
  const ptsn::cli::Command* command = ptsn::cli::FindCommand(args[0]);
  if (!command) {
    std::cerr << ptsn::cli::UnknownCommandMessage(args[0]) << "\n";
    return 2;
  }
  // Every command takes --help (and -h, where it is not an option of its own: see Args::Parse).
  if (args.size() > 1 && (args[1] == "--help" || args[1] == "-h")) {
    std::cout << ptsn::cli::CommandHelp(*command);
    return 0;
  }
  std::vector<std::string> rest(args.begin() + 1, args.end());
  // A command that mounts storage targets gets a mount namespace of its own, here, before it
  // starts any thread (the kernel refuses it to a process with several). When that fails (not
  // root...), making a target says why.
  if (ptsn::cli::MountsTargets(command->name, rest)) ptsn::targets::EnterPrivateMountNamespace();
  try {
    return command->run(rest);
  } catch (const ptsn::HelpRequested&) {
    std::cout << ptsn::cli::CommandHelp(*command);
    return 0;
  } catch (const ptsn::Error& e) {
    std::cerr << "pts-native: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "pts-native: error: " << e.what() << "\n";
    return 1;
  }
}
