#include "runner/run/naming.h"

#include <algorithm>

#include "results-xml/result_store.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/sysinfo/phodevi_strings.h"

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

std::string CleanResultsIdentifier(const std::string& s) {
  static const std::string kKeep = " -_:,/.@+;=";
  std::string out;
  for (char c : s) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || kKeep.find(c) != std::string::npos)) continue;
    if (c == ' ' && !out.empty() && out.back() == ' ') continue;
    out += c;
  }
  return Trim(out);
}

RunNaming ResolveNaming(const std::optional<std::string>& name, const std::optional<std::string>& identifier,
                        const std::optional<std::string>& description, std::time_t now) {
  RunNaming n;
  std::string wanted = name ? Trim(*name) : "";
  if (wanted.empty()) {
    n.title = n.save_name = Format(now, "%Y-%m-%d-%H%M");
  } else {
    n.title = wanted.substr(0, 126);
    n.save_name = results::CleanSaveName(wanted);
  }
  n.identifier = identifier ? CleanResultsIdentifier(*identifier) : "";
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

}  // namespace ptsn::run
