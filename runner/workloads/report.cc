#include "runner/workloads/report.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace ptsn::workloads {

Report& Report::Text(const std::string& key, const std::string& label, const std::string& value) {
  fields_.push_back({key, label, value, ""});
  return *this;
}
Report& Report::Number(const std::string& key, const std::string& label, double value, const std::string& unit) {
  fields_.push_back({key, label, value, unit});
  return *this;
}
Report& Report::Integer(const std::string& key, const std::string& label, int64_t value, const std::string& unit) {
  fields_.push_back({key, label, value, unit});
  return *this;
}
Report& Report::Flag(const std::string& key, bool value) {
  fields_.push_back({key, "", value, ""});
  return *this;
}
Report& Report::Null(const std::string& key) {
  fields_.push_back({key, "", std::monostate{}, ""});
  return *this;
}

const ReportField* Report::Find(const std::string& key) const {
  for (const auto& f : fields_)
    if (f.key == key) return &f;
  return nullptr;
}

std::string Report::ToText() const {
  std::string out;
  for (const auto& f : fields_) {
    if (f.label.empty()) continue;
    std::string v;
    if (auto s = std::get_if<std::string>(&f.value)) v = *s;
    else if (auto d = std::get_if<double>(&f.value)) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.2f", *d);
      v = buf;
    } else if (auto i = std::get_if<int64_t>(&f.value)) v = std::to_string(*i);
    else continue;
    out += f.label + ": " + v + (f.unit.empty() ? "" : " " + f.unit) + "\n";
  }
  return out;
}

std::string Report::ToJson() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& f : fields_) {
    if (auto s = std::get_if<std::string>(&f.value)) j[f.key] = *s;
    else if (auto d = std::get_if<double>(&f.value)) j[f.key] = std::isfinite(*d) ? nlohmann::ordered_json(std::round(*d * 1000) / 1000) : nlohmann::ordered_json();
    else if (auto i = std::get_if<int64_t>(&f.value)) j[f.key] = *i;
    else if (auto b = std::get_if<bool>(&f.value)) j[f.key] = *b;
    else j[f.key] = nullptr;
  }
  return j.dump() + "\n";
}

}  // namespace ptsn::workloads
