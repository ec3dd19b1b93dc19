// What a workload prints: an ordered list of fields, rendered either as the stable text format
// that the bundled results-definition.xml templates parse ("Encrypt: 1234.56 MiB/s"), or as one
// JSON object (--json). Both come from the same fields so they cannot drift apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace ptsn::workloads {

struct ReportField {
  std::string key;    // JSON key, e.g. "encrypt_mib_per_s"
  std::string label;  // text label, e.g. "Encrypt"; empty = JSON only
  std::variant<std::monostate, std::string, double, int64_t, bool> value;
  std::string unit;   // text only, e.g. "MiB/s"
};

class Report {
 public:
  Report& Text(const std::string& key, const std::string& label, const std::string& value);
  Report& Number(const std::string& key, const std::string& label, double value, const std::string& unit = "");
  Report& Integer(const std::string& key, const std::string& label, int64_t value, const std::string& unit = "");
  Report& Flag(const std::string& key, bool value);
  Report& Null(const std::string& key);

  const std::vector<ReportField>& fields() const { return fields_; }
  const ReportField* Find(const std::string& key) const;

  // "Label: value unit" per labelled field; numbers with two decimals.
  std::string ToText() const;
  // One JSON object on one line, keys in field order.
  std::string ToJson() const;

 private:
  std::vector<ReportField> fields_;
};

}  // namespace ptsn::workloads
