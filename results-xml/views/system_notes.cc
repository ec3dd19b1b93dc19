#include "results-xml/views/system_notes.h"

#include <cctype>
#include <nlohmann/json.hpp>

#include "runner/common/strings.h"

namespace ptsn::results {
namespace {

using Json = nlohmann::ordered_json;

// A JSON value as PHP would print it in a string context ("" for null/false).
std::string Text(const Json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null() || (v.is_boolean() && !v.get<bool>())) return "";
  if (v.is_boolean()) return "1";
  return v.dump();
}

// ucwords(str_replace(['_', '-'], ' ', $key)).
std::string Words(const std::string& key) {
  std::string out;
  bool start = true;
  for (char c : key) {
    if (c == '_' || c == '-') c = ' ';
    out += start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    start = c == ' ' || c == '\t' || c == '\n';
  }
  return out;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> SystemNoteSections(const System& system) {
  std::vector<std::pair<std::string, std::string>> out;
  auto set = [&](const std::string& section, const std::string& text) {
    for (auto& [s, t] : out)
      if (s == section) return void(t = text);
    out.emplace_back(section, text);
  };
  auto get = [&](const std::string& section) -> std::string {
    for (auto& [s, t] : out)
      if (s == section) return t;
    return "";
  };
  Json json = Json::object();
  std::string raw = system.json.value_or("");
  if (!Trim(raw).empty()) {
    json = Json::parse(raw, nullptr, false);
    if (json.is_discarded() || !json.is_object()) {
      json = Json::object();
      set("System JSON", raw);
    }
  }
  auto take = [&](const char* key) -> std::string {
    auto it = json.find(key);
    if (it == json.end()) return "";
    std::string v = Text(*it);
    json.erase(it);
    return v;
  };
  auto has = [&](const char* key) { return json.contains(key); };
  auto nonempty = [&](const char* key) { return has(key) && !Text(json[key]).empty(); };

  if (nonempty("kernel-parameters")) set("Kernel", take("kernel-parameters"));
  if (nonempty("kernel-extra-details")) {
    std::string before = get("Kernel");
    set("Kernel", (before.empty() ? "" : before + " - ") + take("kernel-extra-details"));
  }
  if (nonempty("environment-variables")) set("Environment", take("environment-variables"));
  if (nonempty("compiler-configuration")) set("Compiler", take("compiler-configuration"));
  if (has("disk-scheduler") && has("disk-mount-options")) {
    std::string disk = take("disk-scheduler") + " / " + take("disk-mount-options");
    if (nonempty("disk-details")) disk += " / " + take("disk-details");
    set("Disk", disk);
  }
  if (has("cpu-scaling-governor") || has("cpu-microcode") || has("cpu-thermald")) {
    std::vector<std::string> cpu;
    if (nonempty("cpu-scaling-governor")) cpu.push_back("Scaling Governor: " + take("cpu-scaling-governor"));
    if (nonempty("platform-profile")) cpu.push_back("Platform Profile: " + take("platform-profile"));
    if (nonempty("cpu-microcode")) cpu.push_back("CPU Microcode: " + take("cpu-microcode"));
    if (nonempty("cpu-thermald")) cpu.push_back("Thermald " + take("cpu-thermald"));
    if (nonempty("cpu-pm")) cpu.push_back(take("cpu-pm"));
    set("Processor", Join(cpu, " - "));
  }
  if (has("cpu-smt")) set("Processor", "SMT (threads per core): " + take("cpu-smt"));
  if (has("graphics-2d-acceleration") || has("graphics-aa") || has("graphics-af") || has("bar1-visible-vram")) {
    std::vector<std::string> report;
    for (const char* key : {"graphics-2d-acceleration", "graphics-aa", "graphics-af"})
      if (nonempty(key)) report.push_back(take(key));
    if (has("bar1-visible-vram")) report.push_back("BAR1 / Visible vRAM Size: " + take("bar1-visible-vram"));
    if (has("vbios-version")) report.push_back("vBIOS Version: " + take("vbios-version"));
    set("Graphics", Join(report, " - "));
  }
  if (has("graphics-compute-cores")) set("OpenCL", "GPU Compute Cores: " + take("graphics-compute-cores"));
  if (system.notes && !system.notes->empty()) set("System", *system.notes);
  for (auto it = json.begin(); it != json.end(); ++it) {
    std::string v = Text(it.value());
    if (!v.empty()) set(Words(it.key()), v);
  }
  std::erase_if(out, [](const auto& s) { return s.second.empty(); });
  return out;
}

}  // namespace ptsn::results
