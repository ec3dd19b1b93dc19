#include "results-xml/views/export_csv.h"

#include <unordered_map>

#include "results-xml/stats/statistics.h"
#include "results-xml/views/export_common.h"
#include "results-xml/views/multi_way.h"

namespace ptsn::results {

namespace {

// The CSV cell PTS writes for one value: comma-separated series become round(mean, 2).
std::string CellValue(const std::string& value) {
  if (value.find(',') == std::string::npos) return value;
  const ParsedSeries series = ParseSeries(value);  // non-numeric samples count as 0, as PHP's array_sum
  return PhpFloatToString(PhpRound(series.sum / static_cast<double>(series.values.size()), 2));
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

namespace {

// Columns: unique system identifiers in file order (a merge may repeat one; its first entry wins).
class CsvView : public StreamingView {
 public:
  void Head(const ResultFile& head) override {
    systems_ = head.systems;
    for (const auto& s : head.systems)
      if (column_of_.emplace(s.identifier, columns_.size()).second) columns_.push_back(s.identifier);
    out_ += "Title,Description,Scale,Proportion";
    for (const auto& c : columns_) {
      out_ += ',';
      AppendCsvField(out_, c);
    }
    out_ += '\n';
    row_.resize(columns_.size());
  }
  void OnResult(const Result& r) override {
    // A condensed result (cmw, cmv) as a row per option set or version, a column per system.
    const auto parts = SplitByGroup(r, systems_);
    if (parts.empty()) Row(r);
    for (const auto& part : parts) Row(part.second);
  }
  std::string& Pending() override { return out_; }
  void Finish() override {}

 private:
  void Row(const Result& r) {
    std::fill(row_.begin(), row_.end(), nullptr);
    for (const auto& e : r.entries) {
      auto it = column_of_.find(e.identifier);
      if (it != column_of_.end() && !row_[it->second]) row_[it->second] = &e;
    }
    AppendResultLabel(out_, r);
    for (const Entry* e : row_) {
      out_ += ',';
      if (!e) continue;
      if (e->value.find(',') == std::string::npos) AppendCsvField(out_, e->value);  // the common case, no copy
      else AppendCsvField(out_, CellValue(e->value));
    }
    out_ += '\n';
  }

  std::vector<System> systems_;
  std::vector<std::string> columns_;
  std::unordered_map<std::string, size_t> column_of_;
  std::vector<const Entry*> row_;
  std::string out_;
};

}  // namespace

std::unique_ptr<StreamingView> MakeCsvView() { return std::make_unique<CsvView>(); }

std::string ResultFileToCsv(const ResultFile& file) {
  CsvView view;
  return RenderModel(file, view);
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
