#include "runner/fleet/job_spec.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::fleet {

namespace {

bool NameChar(unsigned char c) { return std::isalnum(c) || c == '.' || c == '_' || c == '-'; }

void CheckTestName(const std::string& t) {
  bool ok = !t.empty() && t.size() <= 128 && t.front() != '-' && t.front() != '.' && t.find("..") == std::string::npos;
  int slashes = 0;
  for (unsigned char c : t) {
    if (c == '/') ++slashes;
    else ok = ok && NameChar(c);
  }
  ok = ok && slashes <= 1 && t.back() != '/' && t.find("/.") == std::string::npos && t.find("/-") == std::string::npos;
  if (!ok)
    throw Error("job: test '" + t.substr(0, 80) +
                "' is not a profile or suite name (letters, digits, . _ - and at most one '/', e.g. native/cipher)");
}

}  // namespace

void CheckJobSpec(const JobSpec& spec) {
  if (spec.tests.empty()) throw Error("job: no test profile or suite to run");
  if (spec.tests.size() > 32) throw Error("job: at most 32 tests per job");
  for (const auto& t : spec.tests) CheckTestName(t);
  if (spec.presets.size() > 4096) throw Error("job: presets are limited to 4096 characters");
  for (unsigned char c : spec.presets)
    if (c < 0x20 || c == 0x7f) throw Error("job: presets hold a control character");
  for (const auto& entry : Split(spec.presets, ';')) {
    std::string e = Trim(entry);
    if (e.empty()) continue;
    auto eq = e.find('='), dot = e.find('.');
    if (eq == std::string::npos || dot == std::string::npos || dot == 0 || dot + 1 >= eq)
      throw Error("job: preset '" + e.substr(0, 80) + "' is not test.option=choice");
  }
  if (spec.times < 0 || spec.times > 100) throw Error("job: times must be 0 (the profile's count) to 100");
}

std::string JobSpecToJson(const JobSpec& spec) {
  nlohmann::ordered_json j{{"tests", spec.tests}, {"presets", spec.presets}, {"times", spec.times}};
  return j.dump();
}

JobSpec JobSpecFromJson(const std::string& text) {
  JobSpec spec;
  try {
    auto j = nlohmann::json::parse(text);
    if (!j.is_object()) throw Error("job: not a JSON object");
    for (const auto& [k, v] : j.items())
      if (k != "tests" && k != "presets" && k != "times") throw Error("job: unknown field '" + k.substr(0, 40) + "'");
    spec.tests = j.at("tests").get<std::vector<std::string>>();
    spec.presets = j.value("presets", std::string());
    spec.times = j.value("times", 0);
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("job: ") + e.what());
  }
  CheckJobSpec(spec);
  return spec;
}

void CheckMachineName(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 64;
  for (unsigned char c : name) ok = ok && NameChar(c);
  if (!ok) throw Error("machine name '" + name.substr(0, 80) + "' must be 1-64 characters of A-Z a-z 0-9 _ . -");
}

void CheckMachineSelector(const std::string& selector) {
  if (selector == "all") return;
  if (StartsWith(selector, "tag:")) {
    CheckMachineName(selector.substr(4));
    return;
  }
  auto names = Split(selector, ',');
  if (names.empty()) throw Error("--machines: give all, tag:NAME or machine names separated by commas");
  for (const auto& n : names) CheckMachineName(Trim(n));
}

}  // namespace ptsn::fleet
