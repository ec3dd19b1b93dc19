// One error type for the whole program: a message that already names the file/element/value
// it is about, and the exit code the command line should end with.
#pragma once

#include <stdexcept>
#include <string>

namespace ptsn {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& message, int exit_code = 1)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// A command's arguments asked for its help (--help where a command does not take it as an option
// of its own): thrown by Args::Parse, answered by main with the command's help and exit code 0.
class HelpRequested : public Error {
 public:
  HelpRequested() : Error("help requested", 0) {}
};

// "FILE: what is wrong" — the form every file-related error takes.
inline Error FileError(const std::string& path, const std::string& what, int exit_code = 1) {
  return Error(path + ": " + what, exit_code);
}

}  // namespace ptsn
