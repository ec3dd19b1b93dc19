#include "results-xml/views/export_common.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <nlohmann/json.hpp>

#include "results-xml/stats/statistics.h"
#include "runner/common/strings.h"

namespace ptsn::results {

std::optional<double> NumericValue(std::string_view s) {
  // The plain decimals result files are made of, read exactly (as strtod) by std::from_chars
  // without a copy; anything else (a leading '+', white space, hex, overflow) by PHP's rules.
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  if (!s.empty() && (digit(s[0]) || s[0] == '-' || s[0] == '.') && digit(s.back())) {
    double v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size()) return v;
  }
  if (!PhpIsNumeric(s)) return std::nullopt;
  return PhpToNumber(s);
}

std::vector<double> EntryNumbers(const Entry& e) {
  std::vector<double> out;
  auto add = [&](std::string_view piece) {
    if (auto n = NumericValue(piece)) out.push_back(*n);
  };
  if (IsSeries(e)) ForEachPart(e.value, ',', add);
  else if (!e.raw_string || e.raw_string->empty()) add(e.value);  // one trial: the Value
  else ForEachPart(*e.raw_string, ':', add);
  return out;
}

ParsedSeries ParseSeries(std::string_view s) {
  ParsedSeries p;
  ForEachPart(s, ',', [&](std::string_view piece) {
    const std::optional<double> n = NumericValue(piece);
    if (!n) p.all_numeric = false;
    const double v = n.value_or(0);
    // As std::minmax_element: the first smallest, the last largest (0.0 vs -0.0).
    if (p.values.empty()) p.min = p.max = v;
    p.min = v < p.min ? v : p.min;
    p.max = v >= p.max ? v : p.max;
    p.sum += v;
    p.values.push_back(v);
  });
  return p;
}

void AppendPhpJsonFloat(std::string& out, double v) {
  if (!std::isfinite(v) || (v == 0 && !std::signbit(v))) return void(out += '0');
  if (v == 0) return void(out += "-0.0");
  // The shortest digits that round-trip ("-d.ddde+XX"), then PHP's layout of them.
  char sci[40];
  const char* const sci_end = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific).ptr;
  const char* const e = std::find(static_cast<const char*>(sci), sci_end, 'e');
  char digit_buffer[24];
  size_t n = 0;
  for (const char* c = sci + (v < 0); c < e; ++c)
    if (*c != '.') digit_buffer[n++] = *c;
  const std::string_view digits(digit_buffer, n);
  int exponent = 0;
  std::from_chars(e + 1 + (e[1] == '+'), sci_end, exponent);
  if (v < 0) out += '-';
  if (exponent < -4 || exponent > 16) {
    out += digits[0];
    out += '.';
    out += digits.size() > 1 ? digits.substr(1) : std::string_view("0");
    out += exponent < 0 ? "e-" : "e+";
    out += std::to_string(std::abs(exponent));
  } else if (exponent < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exponent - 1), '0');
    out += digits;
  } else if (digits.size() <= static_cast<size_t>(exponent) + 1) {
    out += digits;
    out.append(static_cast<size_t>(exponent) + 1 - digits.size(), '0');
  } else {
    out += digits.substr(0, static_cast<size_t>(exponent) + 1);
    out += '.';
    out += digits.substr(static_cast<size_t>(exponent) + 1);
  }
}

std::string SetPrecision(std::string_view value, int decimals) {
  auto n = NumericValue(value);
  return n ? PhpNumberFormat(*n, decimals) : std::string(value);
}

int PhpCompare(std::string_view a, std::string_view b) {
  auto na = NumericValue(a);
  auto nb = NumericValue(b);
  if (na && nb) return *na < *nb ? -1 : (*na > *nb ? 1 : 0);
  int c = a.compare(b);
  return c < 0 ? -1 : (c > 0 ? 1 : 0);
}

std::string_view PhpMin(const std::vector<std::string_view>& values) {
  if (values.empty()) return {};
  std::string_view best = values.front();
  for (size_t i = 1; i < values.size(); ++i)
    if (PhpCompare(values[i], best) < 0) best = values[i];
  return best;
}

std::string_view PhpMax(const std::vector<std::string_view>& values) {
  if (values.empty()) return {};
  std::string_view best = values.front();
  for (size_t i = 1; i < values.size(); ++i)
    if (PhpCompare(values[i], best) > 0) best = values[i];
  return best;
}

std::vector<std::string_view> SplitViews(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    if (p == std::string_view::npos) {
      out.push_back(s.substr(start));
      return out;
    }
    out.push_back(s.substr(start, p - start));
    start = p + 1;
  }
}

std::vector<std::pair<std::string, std::string>> SplitComponents(std::string_view components) {
  std::vector<std::pair<std::string, std::string>> out;
  size_t start = 0;
  while (start <= components.size()) {
    size_t end = components.find(", ", start);
    std::string_view piece =
        components.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    size_t colon = piece.find(": ");
    if (colon != std::string_view::npos) {
      std::string key(piece.substr(0, colon));
      // explode(': ') keeps only the second piece: "A: B: C" → value "B".
      std::string_view rest = piece.substr(colon + 2);
      std::string value(rest.substr(0, rest.find(": ")));
      bool replaced = false;
      for (auto& kv : out)
        if (kv.first == key) kv.second = value, replaced = true;
      if (!replaced) out.emplace_back(std::move(key), std::move(value));
    }
    if (end == std::string_view::npos) break;
    start = end + 2;
  }
  return out;
}

std::string BrandColor(std::string_view identifier) {
  if (identifier.empty()) return {};
  const std::string i = ToLower(identifier) + " ";
  auto has = [&](const char* needle) { return i.find(needle) != std::string::npos; };
  if (has("geforce") || has("nvidia") || has("quadro") || has("rtx ") || has("gtx ")) return "#77b900";
  if (has("radeon") || has("amd ") || has("epyc") || has("opteron ") || has("fx-") || has("firepro ") ||
      has("ryzen ") || has("threadripper ") || has("a10-") || has("athlon ") || has("r9 ") ||
      has("r7 ") || has("hd 7") || (has("rx ") && !has("thunderx ")))
    return "#f1052d";
  if (has("intel ") || has("xeon ") || has("core i") || has("core ultra") || has("pentium") ||
      has("celeron") || has("arc "))
    return "#0b5997";
  if (has("bsd")) return "#850000";
  if (has("windows ") || has("microsoft")) return "#373277";
  if (has("ec2 ") || has("amazon")) return "#ff9900";
  if (has("google")) return "#4885ed";
  if (has("arm ")) return "#f6d452";
  return {};
}

std::optional<std::string> EntryJsonString(const Entry& e, const char* key) {
  // Most entries carry no JSON or PTS's own keys: skip the parse unless the key is there.
  if (!e.json || e.json->find(key) == std::string::npos) return std::nullopt;
  auto j = nlohmann::json::parse(*e.json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

std::optional<std::string> StandInMark(const Entry& e) { return EntryJsonString(e, kStandInKey); }

bool SameUnit(std::string_view a, std::string_view b) {
  auto norm = [](std::string_view s) {
    std::string n = ToLower(Trim(s));
    return n == "mib/s" ? std::string("mb/s") : n;  // many PTS "MB/s" are MiB/s; the note says which
  };
  return norm(a) == norm(b);
}

bool StandInInOtherUnit(const Entry& e, const Result& r) {
  auto scale = EntryJsonString(e, kStandInScaleKey);
  return scale && StandInMark(e) && !SameUnit(*scale, r.scale);
}

std::string EntryLabel(const Entry& e) { return StandInMark(e) ? e.identifier + " *" : e.identifier; }

std::string StandInFootnote(const std::string& label) { return "* STAND-IN: " + label + " (not the original program)"; }

std::vector<std::string> StandInFootnotes(const Result& r) {
  std::vector<std::string> out;
  for (const auto& e : r.entries)
    if (auto label = StandInMark(e)) {
      std::string note = StandInFootnote(*label);
      if (std::find(out.begin(), out.end(), note) == out.end()) out.push_back(std::move(note));
    }
  return out;
}

}  // namespace ptsn::results
