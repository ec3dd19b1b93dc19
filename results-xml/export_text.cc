#include "results-xml/export_text.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "results-xml/export_common.h"
#include "results-xml/statistics.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

// pts_test_result_buffer::adjust_precision('auto') applied to a copy of the entry values: results
// whose smallest value is >= 10 show at most two decimals, others keep their widest precision.
std::vector<std::string> AdjustedValues(const Result& result) {
  std::optional<double> min_value;  // the buffer's running minimum (0 means "unset" in PTS)
  double tracked_min = 0;
  int max_precision = 0;
  for (const auto& e : result.entries) {
    std::string_view lo;
    if (!PhpIsNumeric(e.value)) {
      auto parts = SplitViews(e.value, ',');
      lo = PhpMin(parts);
      if (!PhpIsNumeric(lo)) continue;
    } else {
      lo = e.value;
    }
    double v = *NumericValue(lo);
    if (!min_value || v < tracked_min || tracked_min == 0) tracked_min = v;
    min_value = tracked_min;
    max_precision = std::max(max_precision, PtsPrecision(e.value));
  }

  int precision = max_precision;
  if (min_value) {
    double shown_min = *NumericValue(PhpNumberFormat(*min_value, max_precision));
    if (shown_min >= 10) precision = std::min(2, max_precision);
  }
  std::vector<std::string> values;
  values.reserve(result.entries.size());
  for (const auto& e : result.entries)
    values.push_back(PhpIsNumeric(e.value) ? SetPrecision(e.value, precision) : e.value);
  return values;
}

// PTS's find_percentile() on sorted values: sorted[floor(n * q)].
double Percentile(const std::vector<double>& sorted, double q) {
  size_t idx = static_cast<size_t>(std::floor(static_cast<double>(sorted.size()) * q));
  return sorted[std::min(idx, sorted.size() - 1)];
}

// The little box plot PTS draws after a line-graph row when the terminal has room and more than
// one identifier has a brand colour.
void AppendBoxPlot(std::string& line, const std::vector<std::string_view>& parts, double max_value,
                   int terminal_width) {
  const long size = terminal_width - static_cast<long>(line.size());
  if (size <= 0) return;
  std::string plot(static_cast<size_t>(size), ' ');
  std::vector<double> values;
  for (auto p : parts) values.push_back(std::strtod(std::string(p).c_str(), nullptr));
  std::sort(values.begin(), values.end());
  auto put = [&](double index, char c) {
    if (index >= 0 && index < static_cast<double>(size)) plot[static_cast<size_t>(index)] = c;
  };
  const double whisker_bottom = Percentile(values, 0.02);
  const double whisker_top = Percentile(values, 0.98);
  std::vector<double> unique = values;
  unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
  for (double v : unique)
    if ((v < whisker_bottom || v > whisker_top) && v > 0.1) put(std::floor(v / max_value * size), '.');
  const double start = PhpRound(whisker_bottom / max_value * size, 0);
  const double end = PhpRound(whisker_top / max_value * size, 0);
  for (double i = start; i <= end && i < size - 1; ++i) put(i, '-');
  const double box_left = PhpRound(Percentile(values, 0.25) / max_value * size, 0);
  const double box_middle = PhpRound(Percentile(values, 0.5) / max_value * size, 0);
  const double box_right = PhpRound(Percentile(values, 0.75) / max_value * size, 0);
  for (double i = box_left; i <= box_right; ++i) put(i, '#');
  put(start, '|');
  put(end, '|');
  put(box_middle, 'X');
  line += plot;
}

}  // namespace

void AppendResultText(std::string& out, const Result& result, int terminal_width,
                      std::string_view prepend_line) {
  out += '\n';
  out += prepend_line;
  out += Trim(result.title + " " + result.app_version);
  out += '\n';
  out += prepend_line;
  out += result.description;
  if (!result.scale.empty()) {
    out += '\n';
    out += prepend_line;
    out += result.scale;
    if (result.proportion == "LIB") out += " < Lower Is Better";
    else if (result.proportion == "HIB") out += " > Higher Is Better";
  }
  if (result.entries.empty()) return;

  size_t longest_identifier = 0;
  for (const auto& e : result.entries) longest_identifier = std::max(longest_identifier, e.identifier.size());
  ++longest_identifier;

  const std::vector<std::string> values = AdjustedValues(result);

  // First pass: which rows are shown and the scale of the block.
  double max_value = 0;
  std::optional<double> min_value;       // line graphs: smallest sample of any row
  bool min_poisoned = false;             // PTS compares a failed ("") row as the string ""
  double largest_min = 0;
  size_t longest_result = 0;
  bool is_line_graph = false;
  std::vector<size_t> shown;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string& v = values[i];
    if (!PhpEmpty(v)) shown.push_back(i);
    longest_result = std::max(longest_result, v.size());
    if (v.find(',') != std::string::npos) {
      auto parts = SplitViews(v, ',');
      double hi = NumericValue(PhpMax(parts)).value_or(0);
      double lo = NumericValue(PhpMin(parts)).value_or(0);
      max_value = std::max(max_value, hi * 1.03);
      if (!min_poisoned) min_value = min_value ? std::min(*min_value, lo) : lo;
      largest_min = std::max(largest_min, lo);
      is_line_graph = true;
    } else if (auto n = NumericValue(v)) {
      if (*n > max_value) max_value = *n;
    } else if (v.empty()) {
      min_poisoned = true;
    }
  }
  size_t brand_rows = 0;
  for (size_t i : shown)
    if (!BrandColor(result.entries[i].identifier).empty()) ++brand_rows;
  ++longest_result;

  const bool min_above_29 = !min_poisoned && min_value && *min_value > 29;
  const int precision = (max_value > 100 || (min_above_29 && max_value > 79)) ? 0 : 1;
  size_t largest_min_length = 0, max_value_length = 0;
  if (is_line_graph) {
    largest_min_length = PhpNumberFormat(largest_min, precision).size();
    max_value_length = PhpNumberFormat(max_value, precision).size();
  }

  std::string line;
  for (size_t i : shown) {
    const std::string& id = result.entries[i].identifier;
    const std::string& val = values[i];
    line.assign(prepend_line);
    line += id;
    line += ' ';
    if (longest_identifier > id.size()) {
      line.append(longest_identifier - id.size(), '.');
      line += ' ';
    }
    if (is_line_graph) {
      auto parts = SplitViews(val, ',');
      std::string min_text = SetPrecision(PhpMin(parts), precision);
      double sum = 0;
      for (auto p : parts) sum += std::strtod(std::string(p).c_str(), nullptr);
      std::string avg_text = PhpNumberFormat(sum / static_cast<double>(parts.size()), precision);
      line += "MIN: ";
      line += min_text;
      if (largest_min_length > min_text.size()) line.append(largest_min_length - min_text.size(), ' ');
      line += "  AVG: ";
      line += avg_text;
      if (max_value_length > avg_text.size()) line.append(max_value_length - avg_text.size(), ' ');
      line += "  MAX: ";
      line += SetPrecision(PhpMax(parts), precision);
      line += ' ';
      if (terminal_width > static_cast<int>(line.size()) * 2 && brand_rows > 1)
        AppendBoxPlot(line, parts, max_value, terminal_width);
    } else if (auto n = NumericValue(val)) {
      line += val;
      if (longest_result > val.size()) line.append(longest_result - val.size(), ' ');
      line += '|';
      if (max_value > 0) {
        const double width = static_cast<double>(terminal_width) - static_cast<double>(line.size());
        const double bars = PhpRound(*n / max_value * width, 0);
        if (bars > 0) line.append(static_cast<size_t>(bars), '=');
      }
    } else if (result.display_format == "PASS_FAIL") {
      line += val;
    }
    out += '\n';
    out += line;
  }
}

std::string ResultFileToText(const ResultFile& file, int terminal_width) {
  std::string out;
  out.reserve(256 + file.results.size() * (file.systems.size() + 4) * static_cast<size_t>(terminal_width + 2));
  out += file.generated.title;
  out += '\n';
  out += file.generated.description;
  out += "\n\n\n";
  for (const auto& s : file.systems) {
    out += s.identifier;
    out += ": \n\n\t";
    out += s.hardware;
    out += "\n\n\t";
    out += s.software;
    out += "\n\n";
  }
  const std::string_view prepend = terminal_width > 80 ? "    " : "";
  for (const auto& r : file.results) {
    AppendResultText(out, r, terminal_width, prepend);
    out += "\n\n";
  }
  return out;
}

}  // namespace ptsn::results
