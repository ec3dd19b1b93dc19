// Result-file commands (results-xml/): merge, exports, show, validate, rename, remove, compare.
#include "runner/cli/command.h"

namespace ptsn::cli {

std::vector<Command> ResultCommands() { return {}; }

}  // namespace ptsn::cli
