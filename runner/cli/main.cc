// pts-native: a thin entry point over the command table.
#include <iostream>
#include <string>
#include <vector>

#include "runner/cli/command.h"
#include "runner/common/error.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) args = {"help"};
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
  try {
    return command->run(std::vector<std::string>(args.begin() + 1, args.end()));
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
