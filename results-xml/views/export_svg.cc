#include "results-xml/views/export_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "results-xml/stats/statistics.h"
#include "results-xml/views/export_common.h"
#include "results-xml/views/multi_way.h"
#include "results-xml/views/viewer_options.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

constexpr const char* kGrid = "#BABABA";
constexpr const char* kDefaultBar = "#2196f3";
// Distinct series colours for line charts (and bars of systems without a brand colour when
// several systems are drawn in one line chart).
constexpr const char* kPalette[] = {"#2196f3", "#e53935", "#43a047", "#fb8c00", "#8e24aa",
                                    "#00acc1", "#6d4c41", "#3949ab", "#c0ca33", "#d81b60"};

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

// Tick label: as few decimals as the step needs.
std::string TickLabel(double v, double step) {
  int decimals = step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", std::min(decimals, 6), v);
  return buf;
}

// A round axis maximum and step (1, 2, 2.5, 5 x 10^k) giving about five ticks above `max`.
std::pair<double, double> NiceAxis(double max) {
  if (!(max > 0)) return {1, 0.2};
  const double raw = max / 5;
  const double mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (raw <= m * mag) {
      step = m * mag;
      break;
    }
  return {std::ceil(max / step) * step, step};
}

// Rough width of text in the default sans-serif font (enough to size margins).
double TextWidth(std::string_view text, double font_size) { return static_cast<double>(text.size()) * font_size * 0.58; }

void Text(std::string& out, double x, double y, std::string_view text, const char* attrs) {
  out += "<text x=\"" + Num(x) + "\" y=\"" + Num(y) + "\" " + attrs + ">";
  AppendXmlEscaped(out, text);
  out += "</text>";
}

// "<scale>, More Is Better" as PTS words it under the title.
std::string ScaleLine(const Result& r) {
  if (r.scale.empty()) return "";
  std::string line = r.scale;
  if (r.proportion == "HIB") line += ", More Is Better";
  else if (r.proportion == "LIB") line += ", Fewer Is Better";
  return line;
}

void Header(std::string& out, const Result& r, int width, int height, const SvgOptions& o, const std::string& scale_line) {
  if (o.xml_declaration) out += "<?xml version=\"1.0\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"";
  if (o.y_offset >= 0) out += " x=\"0\" y=\"" + Num(o.y_offset) + "\"";
  out += " width=\"" + std::to_string(width) +
         "\" height=\"" + std::to_string(height) + "\" viewBox=\"0 0 " + std::to_string(width) + " " +
         std::to_string(height) + "\" font-family=\"sans-serif, helvetica, verdana\">";
  out += "<rect x=\"0.5\" y=\"0.5\" width=\"" + std::to_string(width - 1) + "\" height=\"" + std::to_string(height - 1) +
         "\" fill=\"#FEFEFE\" stroke=\"#757575\"/>";
  Text(out, 6, 19, Trim(r.title + " " + r.app_version), "font-size=\"17\" font-weight=\"bold\" fill=\"#231f20\"");
  Text(out, 6, 36, r.description, "font-size=\"11\" font-weight=\"bold\" fill=\"#231f20\"");
  if (!scale_line.empty()) Text(out, 6, 54, scale_line, "font-size=\"9\" font-weight=\"bold\" fill=\"#065695\"");
}

// Room the stand-in footnotes of `r` take at the bottom of its chart.
int FootnoteHeight(const Result& r) { return 14 * static_cast<int>(StandInFootnotes(r).size()); }

void Footer(std::string& out, const Result& r, int width, int height) {
  const std::vector<std::string> notes = StandInFootnotes(r);
  for (size_t i = 0; i < notes.size(); ++i)
    Text(out, 6, height - 18 - 14.0 * static_cast<double>(notes.size() - 1 - i), notes[i],
         "font-size=\"10\" font-weight=\"bold\" fill=\"#c80000\" class=\"stand-in\"");
  Text(out, width - 6, height - 6, "pts-native", "font-size=\"8\" fill=\"#757575\" text-anchor=\"end\"");
  out += "</svg>";
}

struct Bar {
  const Entry* entry;
  double value;
  std::string label;  // at the bar's end
};

int BarChart(std::string& out, const Result& r, const std::vector<Bar>& bars, bool grouped, const SvgOptions& o) {
  const int width = std::max(o.width, 300);
  double label_width = 60;
  // Room left of the bars for the identifier and, under it, the smaller "SE +/- x, N = n": with a
  // short identifier the SE label is the wider of the two.
  for (const auto& b : bars)
    label_width = std::max({label_width, TextWidth(grouped ? NameInGroup(b.entry->identifier) : EntryLabel(*b.entry), 11),
                            TextWidth(StandardErrorLabel(*b.entry), 8)});
  label_width = std::min(label_width + 12, width * 0.45);
  const double x0 = label_width, x1 = width - 16.0, top = 64, row = 46, bar_height = 30;
  // Grouped (AppendResultSvg sorted the bars by group): a title row above each group's cluster.
  std::vector<std::string> names;  // grouped: each NAME once, for its colour
  size_t group_count = 0;
  for (size_t k = 0; grouped && k < bars.size(); ++k) {
    group_count += k == 0 || GroupOf(bars[k].entry->identifier) != GroupOf(bars[k - 1].entry->identifier);
    const std::string name = NameInGroup(bars[k].entry->identifier);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  const double group_title = 20;
  const double bottom = top + row * static_cast<double>(bars.size()) + group_title * static_cast<double>(group_count);
  const int height = static_cast<int>(bottom + 36) + FootnoteHeight(r);
  Header(out, r, width, height, o,
         o.relative ? "Relative to the base (= 1), More Is Better; each system's own value in brackets" : ScaleLine(r));

  double max = 0;
  for (const auto& b : bars) max = std::max(max, b.value);
  auto [axis_max, step] = NiceAxis(max);
  const double plot = x1 - x0;
  out += "<g stroke=\"" + std::string(kGrid) + "\" stroke-width=\"1\">";
  for (double t = step; t <= axis_max + step / 1000; t += step) {
    const double x = x0 + t / axis_max * plot;
    out += "<line x1=\"" + Num(x) + "\" y1=\"" + Num(top) + "\" x2=\"" + Num(x) + "\" y2=\"" + Num(bottom) +
           "\" stroke-dasharray=\"5,5\"/>";
  }
  out += "</g><g font-size=\"10\" fill=\"#065695\" text-anchor=\"middle\">";
  for (double t = step; t <= axis_max + step / 1000; t += step)
    Text(out, x0 + t / axis_max * plot, bottom + 14, TickLabel(t, step), "");
  out += "</g><line x1=\"" + Num(x0) + "\" y1=\"" + Num(top) + "\" x2=\"" + Num(x0) + "\" y2=\"" + Num(bottom) +
         "\" stroke=\"#757575\"/><line x1=\"" + Num(x0) + "\" y1=\"" + Num(bottom) + "\" x2=\"" + Num(x1) + "\" y2=\"" +
         Num(bottom) + "\" stroke=\"#757575\"/>";

  double y = top + (row - bar_height) / 2;
  for (size_t k = 0; k < bars.size(); ++k) {
    const Bar& b = bars[k];
    const std::string group = grouped ? GroupOf(b.entry->identifier) : "";
    if (grouped && (k == 0 || group != GroupOf(bars[k - 1].entry->identifier))) {
      out += "<g class=\"group\">";
      Text(out, 6, y + 10, group, "font-size=\"12\" font-weight=\"bold\" fill=\"#065695\"");
      out += "</g>";
      y += group_title;
    }
    const std::string name = grouped ? NameInGroup(b.entry->identifier) : "";
    const std::string color = [&] {
      if (grouped) {
        const size_t n = static_cast<size_t>(std::find(names.begin(), names.end(), name) - names.begin());
        return std::string(kPalette[n % std::size(kPalette)]);
      }
      std::string c = BrandColor(b.entry->identifier);
      return c.empty() ? std::string(kDefaultBar) : c;
    }();
    const double w = std::max(1.0, b.value / axis_max * plot);
    out += "<rect x=\"" + Num(x0) + "\" y=\"" + Num(y) + "\" width=\"" + Num(w) + "\" height=\"" + Num(bar_height) +
           "\" fill=\"" + color + "\" stroke=\"#949494\"/>";
    Text(out, x0 - 5, y + bar_height / 2 + 2, grouped ? name : EntryLabel(*b.entry),
         "font-size=\"11\" font-weight=\"bold\" fill=\"#231f20\" text-anchor=\"end\"");
    const std::string se = StandardErrorLabel(*b.entry);
    if (!se.empty()) Text(out, x0 - 5, y + bar_height - 1, se, "font-size=\"8\" fill=\"#065695\" text-anchor=\"end\"");
    const std::string& label = b.label;
    if (TextWidth(label, 10) + 10 < w)
      Text(out, x0 + w - 5, y + bar_height / 2 + 4, label,
           "font-size=\"10\" font-weight=\"bold\" fill=\"#FFFFFF\" text-anchor=\"end\"");
    else
      Text(out, x0 + w + 4, y + bar_height / 2 + 4, label, "font-size=\"10\" font-weight=\"bold\" fill=\"#231f20\"");
    y += row;
  }
  Footer(out, r, width, height);
  return height;
}

struct Series {
  const Entry* entry;
  std::vector<double> values;
};

int LineChart(std::string& out, const Result& r, const std::vector<Series>& series, const SvgOptions& o) {
  const int width = std::max(o.width, 300);
  const double x0 = 56, x1 = width - 16.0, top = 64, plot_height = 180;
  const double bottom = top + plot_height;
  const int height = static_cast<int>(bottom + 28 + 16 * static_cast<double>(series.size()) + 16) + FootnoteHeight(r);
  Header(out, r, width, height, o, ScaleLine(r));

  double lo = 0, hi = 0;
  size_t longest = 1;
  for (const auto& s : series) {
    for (double v : s.values) lo = std::min(lo, v), hi = std::max(hi, v);
    longest = std::max(longest, s.values.size());
  }
  const double axis_max = NiceAxis(hi).first, step = NiceAxis(hi).second;  // (no structured binding: clang 14's lambdas cannot capture one)
  const double axis_min = lo < 0 ? -NiceAxis(-lo).first : 0;
  auto ypos = [&](double v) { return bottom - (v - axis_min) / (axis_max - axis_min) * plot_height; };
  auto xpos = [&](size_t i) {
    return longest > 1 ? x0 + static_cast<double>(i) / static_cast<double>(longest - 1) * (x1 - x0) : (x0 + x1) / 2;
  };
  out += "<g stroke=\"" + std::string(kGrid) + "\" stroke-width=\"1\">";
  for (double t = axis_min + step; t <= axis_max + step / 1000; t += step)
    out += "<line x1=\"" + Num(x0) + "\" y1=\"" + Num(ypos(t)) + "\" x2=\"" + Num(x1) + "\" y2=\"" + Num(ypos(t)) +
           "\" stroke-dasharray=\"5,5\"/>";
  out += "</g><g font-size=\"10\" fill=\"#065695\" text-anchor=\"end\">";
  for (double t = axis_min; t <= axis_max + step / 1000; t += step) Text(out, x0 - 4, ypos(t) + 3, TickLabel(t, step), "");
  out += "</g><line x1=\"" + Num(x0) + "\" y1=\"" + Num(top) + "\" x2=\"" + Num(x0) + "\" y2=\"" + Num(bottom) +
         "\" stroke=\"#757575\"/><line x1=\"" + Num(x0) + "\" y1=\"" + Num(bottom) + "\" x2=\"" + Num(x1) + "\" y2=\"" +
         Num(bottom) + "\" stroke=\"#757575\"/>";
  Text(out, x1, bottom + 14, std::to_string(longest) + " samples", "font-size=\"9\" fill=\"#757575\" text-anchor=\"end\"");

  double legend_y = bottom + 30;
  for (size_t k = 0; k < series.size(); ++k) {
    const auto& s = series[k];
    const char* color = kPalette[k % std::size(kPalette)];
    out += "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"1.5\" points=\"";
    for (size_t i = 0; i < s.values.size(); ++i) {
      if (i) out += ' ';
      out += Num(xpos(i)) + "," + Num(ypos(s.values[i]));
    }
    out += "\"/>";
    const TrialSummary st = Summarize(s.values);
    out += "<rect x=\"" + Num(x0) + "\" y=\"" + Num(legend_y - 8) + "\" width=\"10\" height=\"10\" fill=\"" + color + "\"/>";
    char stats[128];
    std::snprintf(stats, sizeof stats, "  Min: %.2f / Avg: %.2f / Max: %.2f", st.min, st.mean, st.max);
    Text(out, x0 + 16, legend_y, EntryLabel(*s.entry) + stats, "font-size=\"10\" fill=\"#231f20\"");
    legend_y += 16;
  }
  Footer(out, r, width, height);
  return height;
}

int ValueList(std::string& out, const Result& r, const SvgOptions& o) {
  const int width = std::max(o.width, 300);
  const int height = 64 + 16 * static_cast<int>(r.entries.size()) + 24 + FootnoteHeight(r);
  Header(out, r, width, height, o, "");
  double y = 72;
  for (const auto& e : r.entries) {
    Text(out, 16, y, EntryLabel(e) + ": " + (e.value.empty() ? "(no result)" : e.value), "font-size=\"11\" fill=\"#231f20\"");
    y += 16;
  }
  Footer(out, r, width, height);
  return height;
}

}  // namespace

void AppendXmlEscaped(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
}

int AppendResultSvg(std::string& out, const Result& r, const SvgOptions& o) {
  std::vector<Series> series;
  std::vector<Bar> bars;
  const bool relative = o.relative && o.relative->size() == r.entries.size();
  for (size_t k = 0; k < r.entries.size(); ++k) {
    const Entry& e = r.entries[k];
    if (IsSeries(e) || (r.display_format == "LINE_GRAPH" && PhpIsNumeric(e.value))) {
      Series s{&e, EntryNumbers(e)};
      if (!s.values.empty()) series.push_back(std::move(s));
    } else if (!relative) {
      if (auto n = NumericValue(e.value)) bars.push_back({&e, *n, e.value});
    } else if (const auto& rel = (*o.relative)[k]) {
      // The base (relative 1) says what 1 stands for; the others keep their own value beside.
      char buf[48];
      std::snprintf(buf, sizeof buf, "%.*f", o.relative_decimals, *rel);
      bars.push_back({&e, *rel, *rel == 1.0 ? std::string(buf) + " = " + Trim(e.value + " " + r.scale)
                                            : std::string(buf) + " (" + e.value + ")"});
    }
  }
  if (!series.empty()) return LineChart(out, r, series, o);
  if (bars.empty() || r.display_format == "PASS_FAIL") return ValueList(out, r, o);
  // Grouped: the bars by group, the groups in the order they first appear.
  const bool grouped = o.grouped && MultiWay(r);
  if (grouped) {
    std::vector<std::string> groups;
    auto rank = [&](const Bar& b) { return std::find(groups.begin(), groups.end(), GroupOf(b.entry->identifier)) - groups.begin(); };
    for (const auto& b : bars)
      if (rank(b) == static_cast<std::ptrdiff_t>(groups.size())) groups.push_back(GroupOf(b.entry->identifier));
    std::stable_sort(bars.begin(), bars.end(), [&](const Bar& a, const Bar& b) { return rank(a) < rank(b); });
  }
  return BarChart(out, r, bars, grouped, o);
}

int AppendTrialsSvg(std::string& out, const Result& r, const SvgOptions& o) {
  struct Row {
    const Entry* entry;
    std::vector<double> trials;
    TrialSummary st;
    std::pair<double, double> quartiles;
    size_t group = 0;  // a multi-way comparison's group, in order of first appearance
  };
  std::vector<Row> rows;
  bool any_spread = false;
  for (const auto& e : r.entries) {
    if (IsSeries(e)) continue;
    std::vector<double> t = NumericTrials(e);
    if (t.empty()) continue;
    any_spread = any_spread || t.size() >= 2;
    rows.push_back(Row{&e, t, Summarize(t), Quartiles(t)});
  }
  if (!any_spread) return 0;
  // A multi-way comparison's groups measure different things (PTS normalizes each on its own):
  // each group gets its own axis, under its name, the groups in the order they first appear.
  const bool multi_way = MultiWay(r);
  std::vector<std::string> groups;
  for (auto& row : rows) {
    const std::string name = multi_way ? GroupOf(row.entry->identifier) : "";
    row.group = static_cast<size_t>(std::find(groups.begin(), groups.end(), name) - groups.begin());
    if (row.group == groups.size()) groups.push_back(name);
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.group < b.group; });
  const double group_title = multi_way ? 18 : 0, gap = 24;
  const int width = std::max(o.width, 300);
  double label_width = 60;
  for (const auto& row : rows) label_width = std::max(label_width, TextWidth(EntryLabel(*row.entry), 11));
  label_width = std::min(label_width + 12, width * 0.45);
  const double x0 = label_width, x1 = width - 16.0, top = 64, row_height = 44;
  const double bottom = top + row_height * static_cast<double>(rows.size()) +
                        (group_title + gap) * static_cast<double>(groups.size()) - gap;
  const int height = static_cast<int>(bottom + 48) + FootnoteHeight(r);
  Header(out, r, width, height, o, ScaleLine(r) + (ScaleLine(r).empty() ? "" : "; ") + "every trial");
  // An axis fitted to the trials (not from 0): the spread is what this chart is for.
  double axis_lo = 0, axis_hi = 1;
  auto xpos = [&](double v) { return x0 + (v - axis_lo) / (axis_hi - axis_lo) * (x1 - x0); };
  // Draws the axis of the rows [first, end) of one group from `group_top`; returns where its rows start.
  auto axis_for = [&](size_t first, size_t end, double group_top) {
    if (multi_way) {
      Text(out, 6, group_top + 12, groups[rows[first].group], "font-size=\"11\" font-weight=\"bold\" fill=\"#065695\"");
      group_top += group_title;
    }
    double lo = std::min(rows[first].st.min, rows[first].st.ci95_low), hi = std::max(rows[first].st.max, rows[first].st.ci95_high);
    for (size_t i = first; i < end; ++i)
      lo = std::min({lo, rows[i].st.min, rows[i].st.ci95_low}), hi = std::max({hi, rows[i].st.max, rows[i].st.ci95_high});
    const double group_bottom = group_top + row_height * static_cast<double>(end - first);
    const double step = NiceAxis(hi > lo ? hi - lo : std::max(std::abs(hi), 1.0)).second;
    axis_lo = std::floor(lo / step) * step, axis_hi = std::max(std::ceil(hi / step) * step, axis_lo + step);
    // Ticks counted, not stepped: at 1e15 a step of 1e-3 would not move a double.
    const double steps = (axis_hi - axis_lo) / step;
    const int ticks = std::isfinite(steps) ? static_cast<int>(std::min(50.0, std::round(steps))) : 0;
    out += "<g class=\"axis\" stroke=\"" + std::string(kGrid) + "\" stroke-width=\"1\">";
    for (int k = 0; k <= ticks; ++k) {
      const double x = xpos(axis_lo + static_cast<double>(k) * step);
      out += "<line x1=\"" + Num(x) + "\" y1=\"" + Num(group_top) + "\" x2=\"" + Num(x) + "\" y2=\"" + Num(group_bottom) +
             "\" stroke-dasharray=\"5,5\"/>";
    }
    out += "</g><g font-size=\"10\" fill=\"#065695\" text-anchor=\"middle\">";
    for (int k = 0; k <= ticks; ++k) {
      const double t = axis_lo + static_cast<double>(k) * step;
      Text(out, xpos(t), group_bottom + 14, TickLabel(t, step), "");
    }
    out += "</g>";
    return group_top;
  };
  double y = top;
  for (size_t n = 0; n < rows.size(); ++n) {
    const Row& row = rows[n];
    if (n == 0 || row.group != rows[n - 1].group) {
      size_t end = n;
      while (end < rows.size() && rows[end].group == row.group) ++end;
      y = axis_for(n, end, y + (n == 0 ? 0 : gap));
    }
    const TrialSummary& st = row.st;
    const double mid = y + 16, box_top = mid - 8, box_height = 16;
    out += "<g class=\"box\" data-system=\"";
    AppendXmlEscaped(out, row.entry->identifier);
    out += "\">";
    Text(out, x0 - 5, mid + 4, EntryLabel(*row.entry), "font-size=\"11\" font-weight=\"bold\" fill=\"#231f20\" text-anchor=\"end\"");
    // Whiskers from min to max, with caps.
    out += "<path d=\"M" + Num(xpos(st.min)) + " " + Num(mid) + "H" + Num(xpos(st.max)) + "M" + Num(xpos(st.min)) + " " +
           Num(box_top + 3) + "v10M" + Num(xpos(st.max)) + " " + Num(box_top + 3) + "v10\" stroke=\"#231f20\" fill=\"none\"/>";
    out += "<rect x=\"" + Num(xpos(row.quartiles.first)) + "\" y=\"" + Num(box_top) + "\" width=\"" +
           Num(std::max(1.0, xpos(row.quartiles.second) - xpos(row.quartiles.first))) + "\" height=\"" + Num(box_height) +
           "\" fill=\"#cfe3f7\" stroke=\"#231f20\"/>";
    out += "<line x1=\"" + Num(xpos(st.median)) + "\" y1=\"" + Num(box_top) + "\" x2=\"" + Num(xpos(st.median)) + "\" y2=\"" +
           Num(box_top + box_height) + "\" stroke=\"#231f20\" stroke-width=\"3\"/>";
    // A dot per trial, spread over three heights so that equal trials stay countable.
    for (size_t i = 0; i < row.trials.size(); ++i)
      out += "<circle class=\"trial\" cx=\"" + Num(xpos(row.trials[i])) + "\" cy=\"" + Num(mid - 4 + 4.0 * static_cast<double>(i % 3)) +
             "\" r=\"2.5\" fill=\"#e53935\" fill-opacity=\"0.8\"/>";
    // The mean and its 95 % interval under the box.
    if (st.n >= 2)
      out += "<path class=\"ci\" d=\"M" + Num(xpos(st.ci95_low)) + " " + Num(mid + 15) + "H" + Num(xpos(st.ci95_high)) + "M" +
             Num(xpos(st.ci95_low)) + " " + Num(mid + 12) + "v6M" + Num(xpos(st.ci95_high)) + " " + Num(mid + 12) +
             "v6\" stroke=\"#065695\" fill=\"none\"/>";
    out += "<path class=\"mean\" d=\"M" + Num(xpos(st.mean)) + " " + Num(mid + 11) + "l4 4l-4 4l-4 -4z\" fill=\"#065695\"/></g>";
    y += row_height;
  }
  Text(out, 6, bottom + 30, "Box: quartiles; thick bar: median; whiskers: min to max; dots: each trial; "
       "diamond with bar: the mean and its 95 % interval", "font-size=\"9\" fill=\"#231f20\"");
  Footer(out, r, width, height);
  return height;
}

std::string ResultToSvg(const Result& result, const SvgOptions& options) {
  std::string out;
  AppendResultSvg(out, result, options);
  out += '\n';
  return out;
}

std::string ResultFileToSvg(const ResultFile& file, const SvgOptions& options) {
  SvgOptions inner = options;
  inner.xml_declaration = false;
  std::string charts;
  double y = 0;
  const int width = std::max(options.width, 300);
  for (const auto& r : file.results) {
    inner.y_offset = y;
    y += AppendResultSvg(charts, r, inner) + 10;
  }
  std::string out = options.xml_declaration ? "<?xml version=\"1.0\"?>\n" : "";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + std::to_string(width) +
         "\" height=\"" + Num(std::max(1.0, y)) + "\">";
  out += "<title>";
  AppendXmlEscaped(out, file.generated.title);
  out += "</title>";
  out += charts;
  out += "</svg>\n";
  return out;
}

}  // namespace ptsn::results
