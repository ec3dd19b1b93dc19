#include "runner/run/naming.h"

#include "results-xml/result_store.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

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

}  // namespace ptsn::run
