#include "results-xml/export_csv.h"

#include <unordered_map>

#include "results-xml/export_common.h"
#include "results-xml/statistics.h"

namespace ptsn::results {

namespace {

// The CSV cell PTS writes for one value: comma-separated series become round(mean, 2).
std::string CellValue(const std::string& value) {
  if (value.find(',') == std::string::npos) return value;
  double sum = 0;
  auto parts = SplitViews(value, ',');
  for (auto p : parts) sum += NumericValue(p).value_or(0);
  return PhpFloatToString(PhpRound(sum / static_cast<double>(parts.size()), 2));
}

void AppendResultLabel(std::string& out, const Result& r) {
  AppendCsvField(out, r.title);
  out += ',';
  AppendCsvField(out, r.description);
  out += ',';
  AppendCsvField(out, r.scale);
  out += ',';
  AppendCsvField(out, r.proportion);
}

}  // namespace

void AppendCsvField(std::string& out, std::string_view field) {
  bool quote = !field.empty() && (field.front() == ' ' || field.back() == ' ');
  for (char c : field)
    if (c == ',' || c == '"' || c == '\n' || c == '\r') quote = true;
  if (!quote) {
    out += field;
    return;
  }
  out += '"';
  for (char c : field) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string ResultFileToCsv(const ResultFile& file) {
  // Columns: unique system identifiers in file order (a merge may repeat one; its first entry wins).
  std::vector<const std::string*> columns;
  std::unordered_map<std::string_view, size_t> column_of;
  for (const auto& s : file.systems)
    if (column_of.emplace(s.identifier, columns.size()).second) columns.push_back(&s.identifier);

  std::string out;
  out.reserve(64 + file.results.size() * (64 + columns.size() * 10));
  out += "Title,Description,Scale,Proportion";
  for (const auto* c : columns) {
    out += ',';
    AppendCsvField(out, *c);
  }
  out += '\n';

  std::vector<const Entry*> row(columns.size());
  for (const auto& r : file.results) {
    std::fill(row.begin(), row.end(), nullptr);
    for (const auto& e : r.entries) {
      auto it = column_of.find(e.identifier);
      if (it != column_of.end() && !row[it->second]) row[it->second] = &e;
    }
    AppendResultLabel(out, r);
    for (const Entry* e : row) {
      out += ',';
      if (e) AppendCsvField(out, CellValue(e->value));
    }
    out += '\n';
  }
  return out;
}

std::string ResultFileRawToCsv(const ResultFile& file) {
  std::string out = "Title,Description,Scale,Proportion,System,Trial,Value\n";
  for (const auto& r : file.results) {
    for (const auto& e : r.entries) {
      // PTS leaves RawString empty when it equals Value (single trial, monitor series).
      const std::string& raw = e.raw_string && !e.raw_string->empty() ? *e.raw_string : e.value;
      if (raw.empty()) continue;
      const char sep = raw == e.value && e.value.find(',') != std::string::npos ? ',' : ':';
      size_t trial = 0;
      for (auto v : SplitViews(raw, sep)) {
        AppendResultLabel(out, r);
        out += ',';
        AppendCsvField(out, e.identifier);
        out += ',';
        out += std::to_string(++trial);
        out += ',';
        AppendCsvField(out, v);
        out += '\n';
      }
    }
  }
  return out;
}

}  // namespace ptsn::results
