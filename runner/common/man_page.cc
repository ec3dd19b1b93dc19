#include "runner/common/man_page.h"

#include <cctype>

#include "runner/common/strings.h"

namespace ptsn {

std::string RoffLiteral(std::string_view line) {
  std::string out;
  if (!line.empty() && (line.front() == '.' || line.front() == '\'')) out = "\\&";
  for (char c : line) {
    if (c == '\\') out += "\\e";
    else if (c == '-') out += "\\-";  // a minus sign, so options copied from the page work
    else out += c;
  }
  return out;
}

std::string ManPage(std::string_view name, std::string_view version, std::string_view summary,
                    const std::vector<ManSection>& sections) {
  std::string upper(name);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  std::string out = ".TH " + RoffLiteral(upper) + " 1 \"\" \"" + std::string(version) + "\" \"User Commands\"\n";
  out += ".SH NAME\n" + RoffLiteral(name) + " \\- " + RoffLiteral(summary) + "\n";
  for (const auto& s : sections) {
    out += (s.subsection ? ".SS " : ".SH ") + RoffLiteral(s.title) + "\n.nf\n";
    std::string_view text = s.text;
    while (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    for (const auto& line : Split(text, '\n')) out += line.empty() ? ".sp\n" : RoffLiteral(line) + "\n";
    out += ".fi\n";
  }
  return out;
}

}  // namespace ptsn
