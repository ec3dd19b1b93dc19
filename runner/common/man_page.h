// A manual page (man(7), roff) made from the help text a binary prints, so the installed page
// says what `--help` says and cannot drift from it (CMake runs each binary to write its page).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ptsn {

struct ManSection {
  std::string title;  // "DESCRIPTION", "COMMANDS", ...
  std::string text;   // help lines, kept as laid out (no filling: help text is aligned by hand)
  bool subsection = false;  // .SS under the section before it rather than .SH
};

// The page: .TH, NAME ("name \- summary"), then each section; no date, so a rebuild is identical.
std::string ManPage(std::string_view name, std::string_view version, std::string_view summary,
                    const std::vector<ManSection>& sections);

// One line as roff prints it literally: '\' and '-' escaped, a leading '.' or '\'' guarded.
std::string RoffLiteral(std::string_view line);

}  // namespace ptsn
