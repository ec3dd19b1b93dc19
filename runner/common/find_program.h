// Where a program is: the first directory of $PATH (and of `extra_dirs`, searched after it)
// holding an executable file of that name, as a shell finds it. A name with a '/' is a path:
// returned when that file is executable.
#pragma once

#include <optional>
#include <string>

namespace ptsn {

std::optional<std::string> FindProgram(const std::string& name, const std::string& extra_dirs = "");

}  // namespace ptsn
