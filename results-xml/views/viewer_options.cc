#include "results-xml/views/viewer_options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/views/export_common.h"
#include "results-xml/stats/statistics.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

// PTS's check_request_for_var: "_DD_" stands for '.' in values longer than 5 characters.
std::string Undot(std::string v) {
  if (v.size() <= 5) return v;
  for (size_t at = 0; (at = v.find("_DD_", at)) != std::string::npos;) v.replace(at, 4, ".");
  return v;
}

// pts_strings::comma_explode: split at ',', each trimmed, empty pieces dropped.
std::vector<std::string> CommaList(const std::string& s) {
  std::vector<std::string> out;
  ForEachPart(s, ',', [&](std::string_view piece) {
    std::string t = Trim(std::string(piece));
    if (!t.empty()) out.push_back(std::move(t));
  });
  return out;
}

int Hex(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string UrlDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') out += ' ';
    else if (s[i] == '%' && i + 2 < s.size() && Hex(s[i + 1]) >= 0 && Hex(s[i + 2]) >= 0) {
      out += static_cast<char>(Hex(s[i + 1]) * 16 + Hex(s[i + 2]));
      i += 2;
    } else out += s[i];
  }
  return out;
}

std::string UrlEncode(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') out += static_cast<char>(c);
    else out += {'%', kHex[c >> 4], kHex[c & 15]};
  }
  return out;
}

bool ContainsNoCase(const std::string& haystack, const std::string& needle) {
  return ToLower(haystack).find(ToLower(needle)) != std::string::npos;
}

// PTS matches oss/noss against the arguments' description, the test's identifier and its title.
bool Matches(const Result& r, const std::vector<std::string>& words) {
  for (const auto& w : words)
    if (ContainsNoCase(r.description, w) || ContainsNoCase(r.identifier, w) || ContainsNoCase(r.title, w)) return true;
  return false;
}

// Removes every result `drop` says, in file order, each with its monitor children (PTS's
// remove_result_object_by_id deletes the results derived from it, recursively).
template <typename Pred>
void RemoveResults(ResultFile& file, Pred drop) {
  const size_t n = file.results.size();
  std::vector<bool> removed(n, false);
  std::unordered_map<std::string, std::vector<size_t>> children;
  std::vector<std::string> hash(n);
  bool any_children = false;
  for (size_t i = 0; i < n; ++i)
    if (file.results[i].parent) any_children = true;
  if (any_children) {
    for (size_t i = 0; i < n; ++i) hash[i] = ComparisonHash(file.results[i]);
    for (size_t i = 0; i < n; ++i)
      if (file.results[i].parent) children[*file.results[i].parent].push_back(i);
  }
  for (size_t i = 0; i < n; ++i) {
    if (removed[i] || !drop(file.results[i])) continue;
    std::vector<size_t> todo{i};
    while (!todo.empty()) {
      const size_t k = todo.back();
      todo.pop_back();
      if (removed[k] && k != i) continue;
      removed[k] = true;
      if (!any_children) continue;
      if (auto it = children.find(hash[k]); it != children.end())
        for (size_t c : it->second)
          if (!removed[c]) todo.push_back(c);
    }
  }
  size_t out = 0;
  for (size_t i = 0; i < n; ++i)
    if (!removed[i]) {
      if (out != i) file.results[out] = std::move(file.results[i]);
      ++out;
    }
  file.results.resize(out);
}

// pts_render::multi_way_identifier_check: every identifier "A: B" with exactly one ':' (and not
// a "0000-00-00 00:00" date).
bool MultiWay(const Result& r) {
  if (r.entries.size() < 2) return false;
  for (const auto& e : r.entries) {
    const std::string& id = e.identifier;
    if (std::count(id.begin(), id.end(), ':') != 1) return false;
    if (id.size() > 14 && id[4] == '-' && id[13] == ':') return false;
  }
  return true;
}

std::string GroupOf(const std::string& identifier) {
  const auto at = identifier.find(": ");
  return Trim(at == std::string::npos ? identifier : identifier.substr(0, at));
}

}  // namespace

bool ViewerOptions::Any() const { return !ToQuery().empty(); }

std::string ViewerOptions::ToQuery() const {
  std::string q;
  auto add = [&](const std::string& part) { q += (q.empty() ? "" : "&") + part; };
  if (normalize) add("nor");
  if (hide_noisy) add("hnr");
  if (hide_little_change) add("hlc");
  if (hide_incomplete) add("hni");
  if (geometric_mean) add("sgm");
  if (confidence_charts) add("src");
  if (detailed_systems) add("sdt");
  for (const auto& h : highlight) add("hgv%5B%5D=" + UrlEncode(h));
  for (const auto& h : hide_systems) add("rmm%5B%5D=" + UrlEncode(h));
  if (invert_hidden && !hide_systems.empty()) add("rmmi");
  auto joined = [](const std::vector<std::string>& v) {
    std::string s;
    for (const auto& w : v) s += (s.empty() ? "" : ",") + w;
    return s;
  };
  if (!only_show.empty()) add("oss=" + UrlEncode(joined(only_show)));
  if (!hide_matching.empty()) add("noss=" + UrlEncode(joined(hide_matching)));
  return q;
}

ViewerOptions ParseViewerOptions(const QueryParams& params) {
  // The plain name wins over its obr_ form (PTS reads obr_X first, then X over it).
  std::unordered_map<std::string, std::vector<std::string>> plain, obr;
  for (const auto& [raw_name, value] : params) {
    std::string name = raw_name;
    bool list = false;
    if (name.size() > 2 && name.compare(name.size() - 2, 2, "[]") == 0) name.resize(name.size() - 2), list = true;
    auto& into = name.rfind("obr_", 0) == 0 ? obr[name.substr(4)] : plain[name];
    // "hgv=A,B" is a comma list; "hgv[]=A" one name (which may hold a comma).
    if (list) into.push_back(Undot(value));
    else if (value.empty()) into.push_back("");
    else
      for (auto& piece : SplitViews(value, ',')) into.emplace_back(Undot(std::string(piece)));
  }
  auto get = [&](const std::string& name) -> const std::vector<std::string>* {
    if (auto it = plain.find(name); it != plain.end()) return &it->second;
    if (auto it = obr.find(name); it != obr.end()) return &it->second;
    return nullptr;
  };
  auto names = [&](const std::string& name) {
    std::vector<std::string> out;
    if (const auto* v = get(name))
      for (const auto& s : *v)
        if (!s.empty()) out.push_back(s);
    return out;
  };
  // oss/noss: PTS ignores a value of one character. Judged on the words kept (empty pieces and
  // spaces dropped), so that the link ToQuery() writes reads back as the same view ("oss=n,"
  // keeps "n", which alone would be ignored: it is ignored here too).
  auto words = [&](const std::string& name) {
    std::string joined;
    if (const auto* v = get(name))
      for (const auto& s : *v) joined += (joined.empty() ? "" : ",") + s;
    std::vector<std::string> kept = CommaList(joined);
    size_t length = kept.empty() ? 0 : kept.size() - 1;
    for (const auto& w : kept) length += w.size();
    return length > 1 ? kept : std::vector<std::string>{};
  };
  ViewerOptions o;
  o.normalize = get("nor") != nullptr;
  o.hide_noisy = get("hnr") != nullptr;
  o.hide_little_change = get("hlc") != nullptr;
  o.hide_incomplete = get("hni") != nullptr;
  o.geometric_mean = get("sgm") != nullptr;
  o.invert_hidden = get("rmmi") != nullptr;
  o.confidence_charts = get("src") != nullptr;
  o.detailed_systems = get("sdt") != nullptr;
  o.highlight = names("hgv");
  o.hide_systems = names("rmm");
  o.only_show = words("oss");
  o.hide_matching = words("noss");
  return o;
}

ViewerOptions ParseViewerQuery(std::string_view query) {
  if (!query.empty() && query.front() == '?') query.remove_prefix(1);
  QueryParams params;
  ForEachPart(query, '&', [&](std::string_view part) {
    if (part.empty()) return;
    const auto eq = part.find('=');
    params.emplace_back(UrlDecode(part.substr(0, eq)), eq == std::string_view::npos ? "" : UrlDecode(part.substr(eq + 1)));
  });
  return ParseViewerOptions(params);
}

std::optional<double> NoisyPercent(const Result& r) {
  if (r.display_format != "BAR_GRAPH") return std::nullopt;
  const size_t systems = r.entries.size();
  size_t noisy = 0;
  for (const auto& e : r.entries) {
    if (EntryTrials(e).size() <= 2) continue;
    const double p = PercentStandardDeviation(NumericTrials(e));
    if (!(p > 6)) continue;
    // A large comparison is noisy only when several of its systems are.
    if (systems <= 5 || ++noisy > static_cast<size_t>(std::ceil(systems * 0.2))) return p;
  }
  return std::nullopt;
}

bool LittleChange(const Result& r) {
  // get_spread(false): best / worst by the result's direction, -1 when it has none.
  double spread = -1;
  if (!r.parent && (r.proportion == "HIB" || r.proportion == "LIB")) {
    // The buffer's min and max as PTS tracks them (a min of 0 is replaced by the next value).
    double min = 0, max = 0;
    bool has_min = false, has_max = false;
    for (const auto& e : r.entries) {
      double lo = 0, hi = 0;
      if (auto v = NumericValue(e.value)) lo = hi = *v;
      else if (IsSeries(e) && ParseSeries(e.value).all_numeric) lo = ParseSeries(e.value).min, hi = ParseSeries(e.value).max;
      else continue;
      if (lo < min || min == 0) min = lo, has_min = true;
      if (hi > max) max = hi, has_max = true;
    }
    if (has_min && has_max) {
      const double best = r.proportion == "HIB" ? max : min, worst = r.proportion == "HIB" ? min : max;
      if (worst != 0) {
        spread = best / worst;
        if (r.proportion == "LIB" && spread != 0) spread = 1 / spread;
      }
    }
  }
  constexpr double kDistance = 0.03;
  if (spread < 1 + kDistance) return true;
  std::vector<double> values;
  for (const auto& e : r.entries)
    if (auto v = NumericValue(e.value)) values.push_back(*v);
  if (values.size() <= 3) return false;
  // pts_math::remove_outliers(values, 1.5), then the share of values near their mean.
  const double mean = Mean(values), sd = SampleStandardDeviation(values);
  std::vector<double> kept;
  for (double v : values)
    if (std::fabs(v - mean) <= 1.5 * sd) kept.push_back(v);
  if (kept.empty()) return true;
  const double avg = Mean(kept);
  size_t near = 0;
  for (double v : values)
    if (v > avg * (1 - kDistance) && v < avg * (1 + kDistance) && ++near > values.size() * 0.3) return true;
  return false;
}

bool Incomplete(const Result& r, size_t system_count) {
  if (r.entries.size() < system_count) return true;
  for (const auto& e : r.entries)
    if (e.value.empty()) return true;
  return false;
}

GeometricMeans GeometricMeanOfResults(const ResultFile& file) {
  GeometricMeans g;
  for (const auto& s : file.systems) g.systems.push_back(s.identifier);
  std::vector<double> log_sum(file.systems.size(), 0);
  for (const auto& r : file.results) {
    if (r.identifier.empty() || r.display_format != "BAR_GRAPH") continue;
    ++g.comparable;
    if (r.entries.size() < file.systems.size()) continue;
    std::vector<double> logs(file.systems.size(), std::nan(""));
    bool usable = true;
    for (size_t s = 0; s < file.systems.size() && usable; ++s) {
      usable = false;
      for (const auto& e : r.entries)
        if (e.identifier == file.systems[s].identifier) {
          const auto v = NumericValue(e.value);
          if (v && *v != 0) {
            const double hib = r.proportion == "LIB" ? 100 / *v : *v;
            logs[s] = std::log(hib);
            usable = hib > 0;
          }
          break;
        }
    }
    if (!usable) continue;
    ++g.counted;
    for (size_t s = 0; s < logs.size(); ++s) log_sum[s] += logs[s];
  }
  if (g.counted < 2 || file.systems.empty()) return g;
  for (double l : log_sum) g.values.push_back(std::exp(l / static_cast<double>(g.counted)));
  return g;
}

std::optional<Normalized> NormalizeResult(const Result& r, const std::string& base) {
  if (r.display_format != "BAR_GRAPH") return std::nullopt;
  Normalized n;
  n.values.resize(r.entries.size());
  std::vector<std::optional<double>> v(r.entries.size());
  for (size_t i = 0; i < r.entries.size(); ++i) {
    if (!PhpIsNumeric(r.entries[i].value)) continue;
    const double x = PhpToNumber(r.entries[i].value);
    n.decimals = std::max(n.decimals, PtsPrecision(r.entries[i].value));
    v[i] = r.proportion == "LIB" ? 1 / x : x;
  }
  const bool multi_way = MultiWay(r);
  std::vector<std::string> groups;
  for (const auto& e : r.entries) {
    const std::string g = multi_way ? GroupOf(e.identifier) : "";
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  for (const auto& g : groups) {
    auto in_group = [&](size_t i) { return v[i] && (!multi_way || GroupOf(r.entries[i].identifier) == g); };
    std::optional<double> divide;
    if (!base.empty())
      for (size_t i = 0; i < v.size() && !divide; ++i)
        if (in_group(i) && r.entries[i].identifier.find(base) != std::string::npos) divide = *v[i];
    if (!divide)
      for (size_t i = 0; i < v.size(); ++i)
        if (in_group(i) && (!divide || (multi_way ? *v[i] > *divide : *v[i] < *divide))) divide = *v[i];
    if (!divide || *divide == 0) continue;
    for (size_t i = 0; i < v.size(); ++i)
      if (in_group(i)) n.values[i] = *v[i] / *divide;
  }
  return n;
}

std::string NormalizationBase(const ResultFile& file, const ViewerOptions& options) {
  if (options.highlight.size() != 1) return "";
  for (const auto& s : file.systems)
    if (s.identifier.find(options.highlight[0]) != std::string::npos) return options.highlight[0];
  return "";
}

void ApplyViewerOptions(ResultFile& file, const ViewerOptions& o) {
  if (!o.only_show.empty()) RemoveResults(file, [&](const Result& r) { return !Matches(r, o.only_show); });
  if (!o.hide_matching.empty()) RemoveResults(file, [&](const Result& r) { return Matches(r, o.hide_matching); });
  if (o.hide_little_change) RemoveResults(file, [](const Result& r) { return LittleChange(r); });
  if (o.hide_noisy) RemoveResults(file, [](const Result& r) { return NoisyPercent(r).has_value(); });
  if (o.hide_incomplete) {
    const size_t systems = file.systems.size();
    RemoveResults(file, [&](const Result& r) { return Incomplete(r, systems); });
  }
  if (!o.hide_systems.empty()) {
    std::unordered_set<std::string> listed(o.hide_systems.begin(), o.hide_systems.end());
    auto hidden = [&](const std::string& id) { return (listed.count(id) > 0) != o.invert_hidden; };
    std::erase_if(file.systems, [&](const System& s) { return hidden(s.identifier); });
    for (auto& r : file.results) std::erase_if(r.entries, [&](const Entry& e) { return hidden(e.identifier); });
  }
  if (o.geometric_mean) {
    const GeometricMeans g = GeometricMeanOfResults(file);
    if (!g.values.empty()) {
      Result r;
      r.title = "Geometric Mean Of All Test Results";
      r.description = "Result Composite" + (file.generated.title.empty() ? "" : " - " + file.generated.title);
      r.scale = "Geometric Mean";
      r.proportion = "HIB";
      r.arguments = "Geometric-Mean";
      for (size_t s = 0; s < g.values.size(); ++s) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f", g.values[s]);
        r.entries.push_back({g.systems[s], buf, std::nullopt, std::nullopt});
      }
      file.results.push_back(std::move(r));
    }
  }
  const std::string base = NormalizationBase(file, o);
  if (!base.empty()) {
    auto it = std::find_if(file.systems.begin(), file.systems.end(),
                           [&](const System& s) { return s.identifier.find(base) != std::string::npos; });
    std::rotate(file.systems.begin(), it, it + 1);
  }
}

}  // namespace ptsn::results
