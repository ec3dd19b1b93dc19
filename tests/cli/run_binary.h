// Runs the built pts-native binary through the shell and captures stdout+stderr and the exit
// code; for end-to-end tests of commands.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

namespace ptsn::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

// `args` is pasted into a shell command line; `env` is a prefix of VAR=value assignments.
inline CommandResult RunPtsNative(const std::string& args, const std::string& env = "",
                                  bool merge_stderr = true) {
  std::string cmd = env + " " + PTSN_BINARY + " " + args + (merge_stderr ? " 2>&1" : "");
  CommandResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  int status = pclose(p);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace ptsn::test
