#include "runner/run/naming.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>

#include "results-xml/store/result_store.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/sysinfo/phodevi_strings.h"
#include "runner/sysinfo/sysinfo.h"

namespace ptsn::run {
namespace {

std::string Format(std::time_t t, const char* f) {
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, f, &tm);
  return buf;
}

}  // namespace

namespace {

// pts_client::swap_variables(): each '$' starts a name that runs to the next space; a known name
// with a non-empty value replaces every "$name" in the string, and the scan goes on after it.
std::string SwapVariables(std::string s, const std::map<std::string, std::string>& variables) {
  size_t offset = 0;
  while (offset < s.size()) {
    size_t start = s.find('$', offset);
    if (start == std::string::npos) break;
    ++start;
    size_t end = s.find(' ', start);
    std::string name = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    auto it = variables.find(name);
    std::string value = it == variables.end() ? "" : it->second;
    if (!value.empty()) {
      std::string token = "$" + name;
      for (size_t at = s.find(token); at != std::string::npos; at = s.find(token, at + value.size()))
        s.replace(at, token.size(), value);
    }
    offset = start + value.size();
  }
  return s;
}

bool KeptInIdentifier(char c) {
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
  static const std::string kKeep = " -_:,/\\.@+;=";
  return kKeep.find(c) != std::string::npos;
}

}  // namespace

std::string CleanResultsIdentifier(const std::string& s, const std::map<std::string, std::string>& variables) {
  std::string kept;
  for (char c : Trim(SwapVariables(s, variables)))
    if (KeptInIdentifier(c)) kept += c;
  if (kept == "0") return "";  // PHP's empty() in remove_redundant(): " 0 " is trimmed to "0" first
  std::string out;
  for (char c : kept)
    if (!(c == ' ' && !out.empty() && out.back() == ' ')) out += c;
  return Trim(out);
}

std::map<std::string, std::string> IdentifierVariables(const std::vector<std::pair<std::string, std::string>>& hardware,
                                                       const std::vector<std::pair<std::string, std::string>>& software,
                                                       const std::string& hostname) {
  static const std::vector<std::pair<const char*, const char*>> kNames = {
      {"Processor", "PROCESSOR"},  {"Motherboard", "MOTHERBOARD"},      {"Chipset", "CHIPSET"},
      {"Graphics", "VIDEO_CARD"},  {"Screen Resolution", "VIDEO_RESOLUTION"}, {"Display Driver", "VIDEO_DRIVER"},
      {"OpenGL", "OPENGL_DRIVER"}, {"OS", "OPERATING_SYSTEM"},        {"Kernel", "KERNEL_VERSION"},
      {"Compiler", "COMPILER"}};
  std::map<std::string, std::string> out;
  for (const auto* list : {&hardware, &software})
    for (const auto& [component, value] : *list)
      for (const auto& [name, variable] : kNames)
        if (component == name) {
          std::string v = value;
          if (size_t detail = v.rfind(" ("); detail != std::string::npos && !v.empty() && v.back() == ')') v.resize(detail);
          out[variable] = Trim(v);
        }
  if (!hostname.empty()) out["HOSTNAME"] = hostname;
  return out;
}

std::map<std::string, std::string> LiveIdentifierVariables(const sysinfo::SystemReader& reader) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  return IdentifierVariables(sysinfo::HardwareComponents(reader), sysinfo::SoftwareComponents(reader, "/"), host);
}

RunNaming ResolveNaming(const std::optional<std::string>& name, const std::optional<std::string>& identifier,
                        const std::optional<std::string>& description, std::time_t now,
                        const std::map<std::string, std::string>& variables) {
  RunNaming n;
  std::string wanted = name ? Trim(*name) : "";
  if (wanted.empty()) {
    n.title = n.save_name = Format(now, "%Y-%m-%d-%H%M");
  } else {
    n.title = wanted.substr(0, 126);
    n.save_name = results::CleanSaveName(wanted);
  }
  n.identifier = identifier ? CleanResultsIdentifier(*identifier, variables) : "";
  if (n.identifier.empty()) n.identifier = Format(now, "%Y-%m-%d %H:%M");
  if (n.identifier.size() > 128) n.identifier.resize(128);
  if (description && !Trim(*description).empty()) n.description = Trim(*description);
  return n;
}

std::string AutoResultsIdentifier(const std::string& hardware, const std::string& software,
                                  const std::vector<std::string>& test_types, bool batch) {
  std::string all = hardware + ", " + software;
  std::vector<std::string> names;
  for (const auto& type : test_types) {
    std::string component = sysinfo::ComponentValue(all, type);
    if (type.empty() || component.empty()) continue;
    std::string name = Trim(sysinfo::TrimSearchQuery(component));
    if (!name.empty() && sysinfo::IsVendorString(name) &&
        std::find(names.begin(), names.end(), name) == names.end())
      names.push_back(name);
    if (names.size() >= 3 || name.size() >= 20) break;
  }
  std::string id = Join(names, " - ");
  if (id.empty() && !batch) {
    // PTS joins CPU model, GPU model and motherboard even when some are empty ("X -  - "); we
    // leave empty ones out.
    std::vector<std::string> parts;
    for (const auto& v : {sysinfo::ComponentModel(sysinfo::ComponentValue(hardware, "Processor")),
                          sysinfo::ComponentModel(sysinfo::ComponentValue(hardware, "Graphics")),
                          sysinfo::ComponentValue(hardware, "Motherboard")})
      if (!v.empty()) parts.push_back(v);
    id = Join(parts, " - ");
  }
  if (id.size() > 55) {
    id = id.substr(0, 54);
    size_t space = id.rfind(' ');
    id = space == std::string::npos ? "" : id.substr(0, space);
  }
  return id;
}

std::optional<std::string> NearDuplicateIdentifier(const std::vector<std::string>& systems, const std::string& identifier) {
  auto letters_and_digits = [](const std::string& s) {
    std::string out;
    for (unsigned char c : s)
      if (std::isalnum(c) || c >= 0x80) out += static_cast<char>(std::tolower(c));
    return out;
  };
  const std::string key = letters_and_digits(identifier);
  if (key.empty()) return std::nullopt;
  for (const auto& existing : systems)
    if (existing == identifier) return std::nullopt;
  for (const auto& existing : systems)
    if (letters_and_digits(existing) == key) return existing;
  return std::nullopt;
}

}  // namespace ptsn::run
