// The width text views are drawn for, as PTS's pts_client::terminal_width() finds it: the
// TERMINAL_WIDTH variable, else the columns of the terminal on standard input (PTS asks
// `stty size`, which reads standard input) when it has at least 40, else 80. (The library's own
// default, kDefaultTextWidth = 79, is what PTS's result_file_to_text() uses when no width is
// passed, e.g. by its web viewer; the commands always pass this one.)
#pragma once

#include <optional>
#include <string>

namespace ptsn {

inline constexpr int kPtsFallbackTerminalWidth = 80;

// The rule on its own: `variable` = TERMINAL_WIDTH (nullopt or "" = unset), `terminal_columns` =
// the terminal's width (0 = standard input is not a terminal). Throws ptsn::Error (exit code 2)
// naming TERMINAL_WIDTH when it is set to anything but a number from 20 to 10000.
int ChooseTerminalWidth(const std::optional<std::string>& variable, int terminal_columns);

// The same for this process: getenv("TERMINAL_WIDTH") and TIOCGWINSZ on standard input.
int TerminalWidth();

// Parses a width given on the command line or in TERMINAL_WIDTH (`what` names it in the error).
int ParseTextWidth(const std::string& text, const std::string& what);

}  // namespace ptsn
