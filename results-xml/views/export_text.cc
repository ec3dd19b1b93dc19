#include "results-xml/views/export_text.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "results-xml/stats/statistics.h"
#include "results-xml/views/export_common.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

// pts_test_result_buffer::adjust_precision('auto') applied to a copy of the entry values: results
// whose smallest value is >= 10 show at most two decimals, others keep their widest precision.
// Numeric min/max of a series, or PHP's string-comparison result for mixed series (rare).
std::string_view MixedSeriesEnd(std::string_view value, bool max) {
  return max ? PhpMax(SplitViews(value, ',')) : PhpMin(SplitViews(value, ','));
}
std::optional<double> SeriesEnd(const ParsedSeries& p, std::string_view value, bool max) {
  return p.all_numeric ? std::optional<double>(max ? p.max : p.min) : NumericValue(MixedSeriesEnd(value, max));
}
std::string FormatSeriesEnd(const ParsedSeries& p, std::string_view value, int precision, bool max) {
  return p.all_numeric ? PhpNumberFormat(max ? p.max : p.min, precision) : SetPrecision(MixedSeriesEnd(value, max), precision);
}

std::vector<std::string> AdjustedValues(const Result& result, const std::vector<ParsedSeries>& parsed) {
  std::optional<double> min_value;  // the buffer's running minimum (0 means "unset" in PTS)
  double tracked_min = 0;
  int max_precision = 0;
  for (size_t i = 0; i < result.entries.size(); ++i) {
    const Entry& e = result.entries[i];
    std::optional<double> lo = NumericValue(e.value);
    if (!lo) {
      lo = SeriesEnd(parsed[i], e.value, false);
      if (!lo) continue;
    }
    double v = *lo;
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
    values.push_back(SetPrecision(e.value, precision));
  return values;
}

// PTS's find_percentile() on sorted values: sorted[floor(n * q)].
double Percentile(const std::vector<double>& sorted, double q) {
  size_t idx = static_cast<size_t>(std::floor(static_cast<double>(sorted.size()) * q));
  return sorted[std::min(idx, sorted.size() - 1)];
}

// The little box plot PTS draws after a line-graph row when the terminal has room and more than
// one identifier has a brand colour.
void AppendBoxPlot(std::string& line, std::vector<double> values, double max_value, int terminal_width) {
  const long size = terminal_width - static_cast<long>(line.size());
  if (size <= 0) return;
  std::string plot(static_cast<size_t>(size), ' ');
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

namespace {

void AppendResultBlock(std::string& out, const Result& result, int terminal_width, std::string_view prepend_line);

}  // namespace

void AppendResultText(std::string& out, const Result& result, int terminal_width,
                      std::string_view prepend_line) {
  std::vector<std::string> notes = StandInFootnotes(result);
  if (notes.empty()) return AppendResultBlock(out, result, terminal_width, prepend_line);
  // Stand-in rows are named "identifier *" and the block ends with what they stand in for.
  Result marked = result;
  for (auto& e : marked.entries) e.identifier = EntryLabel(e);
  AppendResultBlock(out, marked, terminal_width, prepend_line);
  for (const auto& note : notes) {
    out += '\n';
    out += prepend_line;
    out += "    " + note;
  }
}

namespace {

void AppendResultBlock(std::string& out, const Result& result, int terminal_width, std::string_view prepend_line) {
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

  // Series are parsed once: a monitor result carries hundreds of samples per system.
  std::vector<ParsedSeries> parsed(result.entries.size());
  for (size_t i = 0; i < result.entries.size(); ++i)
    if (!PhpIsNumeric(result.entries[i].value)) parsed[i] = ParseSeries(result.entries[i].value);
  const std::vector<std::string> values = AdjustedValues(result, parsed);

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
      double hi = SeriesEnd(parsed[i], v, true).value_or(0);
      double lo = SeriesEnd(parsed[i], v, false).value_or(0);
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
  size_t brand_rows = 0;  // rows with a brand colour: a box plot (line graphs only) needs two
  if (is_line_graph)
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
      if (parsed[i].values.empty()) parsed[i] = ParseSeries(val);  // a plain number in a line-graph block
      const ParsedSeries& p = parsed[i];
      std::string min_text = FormatSeriesEnd(p, val, precision, false);
      std::string avg_text = PhpNumberFormat(p.sum / static_cast<double>(p.values.size()), precision);
      line += "MIN: ";
      line += min_text;
      if (largest_min_length > min_text.size()) line.append(largest_min_length - min_text.size(), ' ');
      line += "  AVG: ";
      line += avg_text;
      if (max_value_length > avg_text.size()) line.append(max_value_length - avg_text.size(), ' ');
      line += "  MAX: ";
      line += FormatSeriesEnd(p, val, precision, true);
      line += ' ';
      if (terminal_width > static_cast<int>(line.size()) * 2 && brand_rows > 1)
        AppendBoxPlot(line, p.values, max_value, terminal_width);
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


// Title, description and each system's hardware/software: the header of both text views.
void AppendHeader(std::string& out, const ResultFile& file) {
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
}

}  // namespace

namespace {

class TextView : public StreamingView {
 public:
  explicit TextView(int terminal_width) : width_(terminal_width), prepend_(terminal_width > 80 ? "    " : "") {}
  void Head(const ResultFile& head) override { AppendHeader(out_, head); }
  void OnResult(const Result& result) override {
    AppendResultText(out_, result, width_, prepend_);
    out_ += "\n\n";
  }
  std::string& Pending() override { return out_; }
  void Finish() override {}

 private:
  int width_;
  std::string_view prepend_;
  std::string out_;
};

}  // namespace

std::unique_ptr<StreamingView> MakeTextView(int terminal_width) { return std::make_unique<TextView>(terminal_width); }

std::string ResultFileToText(const ResultFile& file, int terminal_width) {
  TextView view(terminal_width);
  return RenderModel(file, view);
}

std::string ResultFileConfidenceText(const ResultFile& file) {
  std::string out;
  AppendHeader(out, file);
  for (const auto& r : file.results) {
    // identifier → trials, keyed like PTS's array (a repeated identifier keeps its first slot).
    std::vector<std::pair<const std::string*, std::vector<std::string>>> rows;
    for (const auto& e : r.entries) {
      const std::string raw = e.raw_string.value_or("");
      if (!PhpIsNumeric(e.value) || PhpEmpty(e.value) || raw.empty() || raw == e.value) continue;
      std::vector<std::string> trials;
      double sum = 0;
      for (auto t : SplitViews(raw, ':')) {
        trials.emplace_back(t);
        sum += NumericValue(t).value_or(0);
      }
      if (sum == 0) continue;
      auto it = std::find_if(rows.begin(), rows.end(), [&](const auto& row) { return *row.first == e.identifier; });
      if (it != rows.end()) it->second = std::move(trials);
      else rows.emplace_back(&e.identifier, std::move(trials));
    }
    if (rows.empty()) continue;
    out += "\n    ";
    out += Trim(r.title + " " + r.app_version);
    out += "\n    ";
    out += r.description;
    for (const auto& [id, trials] : rows) {
      int precision = 0;
      std::vector<double> values;
      for (const auto& t : trials) {
        precision = std::max(precision, PtsPrecision(t));
        values.push_back(NumericValue(t).value_or(0));
      }
      const auto [low, high] = ThreeSigmaLimits(values, precision);
      out += "\n    " + *id + "\n        Values: " + Join(trials, ", ") +
             "\n        Arithmetic Mean: " + PhpFloatToString(PhpRound(Mean(values), precision)) +
             "\n        Std Deviation: " + PhpFloatToString(PhpRound(PercentStandardDeviation(values), precision)) +
             "%\n        Three-Sigma Limits: " + PhpFloatToString(low) + " " + PhpFloatToString(high) + "\n";
      std::vector<std::string> outside;
      for (size_t i = 0; i < values.size(); ++i)
        if (values[i] < low || values[i] > high) outside.push_back(trials[i]);
      if (!outside.empty()) out += "            Results Outside Limits: " + Join(outside, ", ") + "\n";
    }
  }
  return out;
}

}  // namespace ptsn::results
