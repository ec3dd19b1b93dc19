#include "runner/common/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

#include "runner/common/error.h"

namespace ptsn {

int ParseTextWidth(const std::string& text, const std::string& what) {
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < 20 || v > 10000)
    throw Error(what + ": '" + text + "' is not a width (20..10000)", 2);
  return static_cast<int>(v);
}

int ChooseTerminalWidth(const std::optional<std::string>& variable, int terminal_columns) {
  if (variable && !variable->empty()) return ParseTextWidth(*variable, "TERMINAL_WIDTH");
  return terminal_columns >= 40 ? terminal_columns : kPtsFallbackTerminalWidth;
}

int TerminalWidth() {
  const char* env = std::getenv("TERMINAL_WIDTH");
  winsize ws{};
  int columns = isatty(STDIN_FILENO) && ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
  return ChooseTerminalWidth(env ? std::optional<std::string>(env) : std::nullopt, columns);
}

}  // namespace ptsn
