#include "runner/sysinfo/phodevi_strings.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "runner/common/strings.h"

namespace ptsn::sysinfo {
namespace {

std::string Lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// PHP str_ireplace() with one search string: every case-insensitive occurrence, left to right.
std::string IReplace(const std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return s;
  std::string lower = Lower(s), needle = Lower(from), out;
  size_t pos = 0;
  for (size_t hit; (hit = lower.find(needle, pos)) != std::string::npos; pos = hit + from.size())
    out += s.substr(pos, hit - pos) + to;
  return out + s.substr(pos);
}

std::string PhpTrim(const std::string& s) {
  static const char* kWs = " \t\n\r\v";
  size_t a = s.find_first_not_of(std::string(kWs) + '\0');
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(std::string(kWs) + '\0');
  return s.substr(a, b - a + 1);
}

// pts_strings::trim_spaces(): runs of spaces become one, then trimmed.
std::string TrimSpaces(const std::string& s) {
  std::string out;
  for (char c : s)
    if (!(c == ' ' && !out.empty() && out.back() == ' ')) out += c;
  return PhpTrim(out);
}

// Cuts "Gtk-WARNING **: ..." noise at the last space before the word.
std::string CutWarning(const std::string& s) {
  std::string lower = Lower(s);
  size_t w = lower.find("warning");
  if (w == std::string::npos) return s;
  size_t space = s.rfind(' ', w);
  return space == std::string::npos ? "" : s.substr(0, space);
}

bool IsLetter(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// PHP is_numeric(): optional surrounding whitespace, sign, digits, '.', exponent.
bool PhpIsNumeric(const std::string& s) {
  std::string t = PhpTrim(s);
  if (t.empty()) return false;
  char* end = nullptr;
  std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size()) return false;
  // strtod also takes hex, "inf" and "nan", which PHP does not.
  return std::none_of(t.begin(), t.end(), [](char c) { return c == 'x' || c == 'X' || c == 'n' || c == 'N'; });
}

}  // namespace

std::string StripString(const std::string& input) {
  std::string s = input;
  static const std::pair<const char*, const char*> kRenames[] = {
      {"Memory Controller Hub", "MCH"},
      {"Advanced Micro Devices", "AMD"},
      {"MICRO-STAR INTERNATIONAL", "MSI"},
      {"Silicon Integrated Systems", "SiS"},
      {"http://www.abit.com.tw/", "Abit"},
      {"ASUSTeK", "ASUS"},
      {"Hewlett-Packard", "HP"},
      {"nVidia", "NVIDIA"},
      {"HARDDISK", "HDD"},
      {"Intel64", "Intel"},
      {"High Definition", "HD"},
      {"Integrated Graphics Controller", "IGP"},
      {"Express Graphics Controller", "IGP"},
      {"Integrated Graphics Device", "IGP"},
      {"Chipset Integrated", "IGP"},
  };
  for (const auto& [from, to] : kRenames) s = IReplace(s, from, to);
  static const char* kRemove[] = {
      "incorporation", "corporation", "corp.", "invalid", "technologies", "technology", " version", " project ",
      "computer", "To Be Filled By", "ODM", "O.E.M.", "Desktop Reference Platform", "small form factor",
      "convertible", " group", "chipset", "community", "reference", "communications", "semiconductor",
      "processor", "host bridge", "adapter", " CPU", "platform", "international", "express", "graphics", " none",
      "electronics", "integrated", "alternate", "quad-core", "memory", "series", "network", "motherboard",
      "electric ", "industrial ", "serverengines", "Manufacturer", "x86/mmx/sse2", "/AGP/SSE/3DNOW!", "/AGP/SSE2",
      "controller", "(extreme graphics innovation)", "pci-e_gfx and ht3 k8 part", "pci-e_gfx and ht1 k8 part",
      "Northbridge only", "dual slot", "dual-core", "dual core", "microsystems", "not specified", "single slot",
      "genuine", "unknown device", "systemberatung", "gmbh", "graphics adapter", "video device", "http://", "www.",
      ".com", ".tw/", "/pci/sse2/3dnow!", "/pcie/sse2", "/pci/sse2", "balloon", "network connection", "ethernet",
      " to ", " fast ", "limited.", " systems", " system", "compliant", "co. ltd", "co.", "ltd.", "LTD ", " LTD",
      "\\AE", "(r)", "(tm)", "inc.", " inch ", "inc", "6.00 PG", ",", "'", "_ ", "_ ", "corp", "product name",
      "base board", "mainboard", "pci to pci", " release ", "nee ", "default string", " AG ", "/DRAM", "shared ",
      " sram", "and subsidiaries", " SCSI", "Disk Device", " ATA", "Daughter Card", "Gigabit Connection",
      "altivec supported", " family", " ing"};
  s += ' ';
  for (const char* phrase : kRemove) s = IReplace(s, phrase, " ");
  s = CutWarning(s);
  std::string lower = Lower(s);
  size_t radeon = lower.find(" with radeon");
  if (radeon == std::string::npos) radeon = lower.find(" w/ radeon");
  if (radeon != std::string::npos) s = s.substr(0, radeon);
  s = TrimSpaces(s);
  s = ReplaceAll(s, " -", "-");
  s = ReplaceAll(s, "- ", " ");
  if (Lower(s).find(" + ") == std::string::npos) {
    std::vector<std::string> words;
    for (const auto& w : Split(s, ' '))
      if (std::find(words.begin(), words.end(), w) == words.end()) words.push_back(w);
    s = Join(words, " ");
  }
  return s;
}

std::string PropertyValue(const std::string& s) {
  std::string stripped = StripString(s), out;
  for (char c : stripped)
    if (static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) <= 0x7f) out += c;
  return out;
}

std::string TrimSearchQuery(const std::string& input) {
  std::string v = input;
  size_t cut = v.find_first_of("@(/[<*\"");
  if (cut != std::string::npos) v = v.substr(0, cut);
  if (v.empty() || (PhpIsNumeric(v) && v.rfind("0x", 0) != 0)) return "";
  v = ReplaceAll(v, "& ", "");
  if (!v.empty() && v.back() == '.') v.pop_back();
  v = CutWarning(v);
  std::vector<std::string> words = Split(PhpTrim(v), ' ');
  if (words.size() == 1) {
    const std::string& w = words[0];
    if (w.size() >= 3) {
      std::string tail = w.substr(w.size() - 2);
      if (tail == "MB" || tail == "GB" || tail == "0W") words.clear();
    }
  } else if (!words.empty()) {
    const std::string& last = words.back();
    if (last.find("v1") != std::string::npos || last.find("MB") != std::string::npos ||
        last.find("GB") != std::string::npos)
      words.pop_back();
    else if (words.front().find("GB") != std::string::npos || words.front().find("TB") != std::string::npos)
      words.erase(words.begin());
  }
  return Join(words, " ");
}

bool IsVendorString(const std::string& v) {
  if (v.size() < 3) return false;
  int digits = 0, letters = 0;
  for (char c : v) {
    if (!(IsLetter(c) || IsDigit(c) || c == '.' || c == ' ' || c == '-')) return false;
    digits += IsDigit(c);
    letters += IsLetter(c);
  }
  std::string lower = Lower(v);
  for (const char* word : {"manufacturer", "vendor", "unknown", "generic", "warning"})
    if (lower.find(word) != std::string::npos) return false;
  if (v.size() > 7 && v.find(' ') == std::string::npos && digits > 0) return false;
  if (letters == 0) return false;
  if (v.size() <= 4 && letters < 2) return false;
  return v.back() != '-';
}

std::string CleansedItemString(const std::vector<std::string>& input) {
  std::vector<std::string> items = input, out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].empty()) continue;
    int found = 1;
    for (size_t j = i + 1; j < items.size(); ++j)
      if (items[j] == items[i]) {
        ++found;
        items[j].clear();
      }
    out.push_back((found > 1 ? std::to_string(found) + " x " : "") + items[i]);
  }
  return Join(out, " + ");
}

std::string ComponentValue(const std::string& components, const std::string& key) {
  std::string value;
  size_t pos = 0;
  while (pos <= components.size()) {
    size_t end = components.find(", ", pos);
    std::string part = components.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    auto fields = [&] {
      std::vector<std::string> f;
      size_t p = 0;
      for (size_t h; (h = part.find(": ", p)) != std::string::npos; p = h + 2) f.push_back(part.substr(p, h - p));
      f.push_back(part.substr(p));
      return f;
    }();
    // Later duplicates win, as in the PHP array it builds.
    if (fields.size() >= 2 && fields[0] == key) value = fields[1];
    if (end == std::string::npos) break;
    pos = end + 2;
  }
  return value;
}

std::string ComponentModel(const std::string& value) {
  std::string v = value;
  for (const char* cut : {" @ ", " ("}) {
    size_t p = v.find(cut);
    if (p != std::string::npos) v = v.substr(0, p);
  }
  return Trim(v);
}

}  // namespace ptsn::sysinfo
