#include "results-xml/views/viewer_options.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_map>
#include <unordered_set>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/views/export_common.h"
#include "results-xml/views/multi_way.h"
#include "results-xml/stats/runs_verdict.h"
#include "results-xml/stats/statistics.h"
#include "results-xml/stats/verdict.h"
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

// The entries in the order of `systems` (entries of other identifiers last, in their order).
void SortEntriesBySystems(Result& r, const std::vector<System>& systems) {
  auto rank = [&](const Entry& e) {
    size_t i = 0;
    while (i < systems.size() && systems[i].identifier != e.identifier) ++i;
    return i;
  };
  std::stable_sort(r.entries.begin(), r.entries.end(), [&](const Entry& a, const Entry& b) { return rank(a) < rank(b); });
}

// sort_results_by_performance: by value (non-numeric last), higher-is-better reversed: best first.
void SortEntriesBestFirst(Result& r) {
  auto value = [](const Entry& e) {
    const auto v = NumericValue(e.value);
    return v ? *v : std::nan("");
  };
  const bool hib = r.proportion == "HIB";
  std::stable_sort(r.entries.begin(), r.entries.end(), [&](const Entry& a, const Entry& b) {
    const double x = value(a), y = value(b);
    if (std::isnan(x) || std::isnan(y)) return !std::isnan(x) && std::isnan(y);
    return hib ? x > y : x < y;
  });
}

// ftt/ftb: PTS keeps a result when both systems have a value that is true for PHP (neither "" nor
// "0") and `faster`'s beats `slower`'s by the result's direction (higher for HIB, lower otherwise),
// compared as PHP 8 compares two strings: as numbers when both are numeric, else byte by byte (so
// a monitor child's series are compared as text, as in PTS).
bool FasterThan(const Result& r, const std::string& faster, const std::string& slower) {
  const Entry *a = nullptr, *b = nullptr;
  for (const auto& e : r.entries) {
    if (!a && e.identifier == faster) a = &e;
    if (!b && e.identifier == slower) b = &e;
  }
  auto truthy = [](const Entry* e) { return e && !e->value.empty() && e->value != "0"; };
  if (!truthy(a) || !truthy(b)) return false;
  int cmp;
  if (PhpIsNumeric(a->value) && PhpIsNumeric(b->value)) {
    const double x = PhpToNumber(a->value), y = PhpToNumber(b->value);
    cmp = x < y ? -1 : x > y ? 1 : 0;
  } else {
    cmp = a->value.compare(b->value);
  }
  return r.proportion == "HIB" ? cmp > 0 : cmp < 0;
}

// ftd: the verdict of `faster`'s set-up against `slower`'s is "different" and its interval lies at
// least `percent` % on the better side of 1. The verdict is the one the overview's cells give: by
// instance pairs ("NAME", "NAME #2", ...) at the result's level for a run across targets
// (`by_pairs`), else by runs ("NAME", "NAME run 2", ...), so the two never disagree on a pair.
bool DecidedlyFaster(const ResultFile& file, const Result& r, bool by_pairs, const std::string& faster,
                     const std::string& slower, double percent) {
  if (r.proportion != "HIB" && r.proportion != "LIB") return false;
  VerdictKind kind = VerdictKind::kUnknown;
  double low = 0, high = 0;
  if (by_pairs) {
    const auto v = VerdictsAgainstFirst(
        TrialsOfKinds(ResultSystemTrials(file, r), {ParseInstanceName(slower).kind, ParseInstanceName(faster).kind}),
        LevelOfRun(r, VerdictSettings{}));
    if (v.empty() || !v.front().verdict.has_interval) return false;
    kind = v.front().verdict.kind, low = v.front().verdict.ci_low, high = v.front().verdict.ci_high;
  } else {
    std::vector<std::vector<double>> reference, other;
    for (const auto& e : r.entries) {
      if (SetUpOf(e.identifier) == SetUpOf(slower)) reference.push_back(NumericTrials(e));
      else if (SetUpOf(e.identifier) == SetUpOf(faster)) other.push_back(NumericTrials(e));
    }
    const RunsVerdict v = DecideRunsVerdict(reference, other, VerdictSettings{});
    if (!v.has_interval) return false;
    kind = v.kind, low = v.ci_low, high = v.ci_high;
  }
  if (kind != VerdictKind::kDifferent) return false;
  const double k = 1 + percent / 100;
  return r.proportion == "HIB" ? low >= k : high <= 1 / k;
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
  if (harmonic_means) add("shm");
  if (notable) add("spr");
  if (wins_losses) add("swl");
  static const char* kResultOrders[] = {"", "grs", "grt", "gru", "grr", "grw"};
  if (result_order != ResultOrder::kFile) add(kResultOrders[static_cast<int>(result_order)]);
  static const char* kSystemOrders[] = {"", "sro", "sor", "rdt"};
  if (system_order != SystemOrder::kFile) add(kSystemOrders[static_cast<int>(system_order)]);
  if (reverse_systems) add("rro");
  if (condense_multi_way) add("cmw");  // cts reads back as cmw: one name for one view
  if (condense_versions) add("cmv");
  if (transpose_multi_way) add("imw");
  if (!faster.empty() && !slower.empty()) add("ftt=" + UrlEncode(faster) + "&ftb=" + UrlEncode(slower));
  if (!faster.empty() && !slower.empty() && decided_by_percent) {
    char k[32];
    std::snprintf(k, sizeof k, "%g", *decided_by_percent);
    add(std::string("ftd=") + k);
  }
  if (!export_format.empty()) add("export=" + UrlEncode(export_format));
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

std::string ViewerOptions::ToReadableQuery() const { return UrlDecode(ToQuery()); }

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
  o.harmonic_means = get("shm") != nullptr;
  o.notable = get("spr") != nullptr;
  o.wins_losses = get("swl") != nullptr;
  o.reverse_systems = get("rro") != nullptr;
  o.condense_multi_way = get("cmw") != nullptr || get("cts") != nullptr;
  o.condense_versions = get("cmv") != nullptr;
  o.transpose_multi_way = get("imw") != nullptr;
  // PTS tests the result orders in this order, the first present wins.
  if (get("grs")) o.result_order = ResultOrder::kSpread;
  else if (get("grt")) o.result_order = ResultOrder::kTitle;
  else if (get("grw")) o.result_order = ResultOrder::kCommonSuites;
  else if (get("gru")) o.result_order = ResultOrder::kUnit;
  else if (get("grr")) o.result_order = ResultOrder::kRunTime;
  // rdt reorders the systems; sor and sro order each result's values (sro applied last wins).
  if (get("sro")) o.system_order = SystemOrder::kIdentifier;
  else if (get("sor")) o.system_order = SystemOrder::kPerformance;
  else if (get("rdt")) o.system_order = SystemOrder::kRunDate;
  // ftt/ftb: both one system's name, else no filter (PTS: both non-empty strings).
  auto one = [&](const std::string& name) {
    std::string joined;
    if (const auto* v = get(name))
      for (const auto& s : *v) joined += (joined.empty() ? "" : ",") + s;
    return joined;
  };
  o.faster = one("ftt");
  o.slower = one("ftb");
  if (o.faster.empty() || o.slower.empty()) o.faster.clear(), o.slower.clear();
  if (const std::string k = one("ftd"); !o.faster.empty() && !k.empty()) {
    // A number of percent, 0 to 1000, kept to what "%g" writes back (a link reads back the same).
    char* end = nullptr;
    const double v = std::strtod(k.c_str(), &end);
    if (end && *end == '\0' && v >= 0 && v <= 1000) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", v);
      o.decided_by_percent = std::strtod(buf, nullptr);
    }
  }
  o.export_format = ToLower(one("export"));
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

double RunTimeAverage(const Result& r) {
  double sum = 0;
  size_t counted = 0;
  for (const Entry& e : r.entries) {
    const std::optional<std::string> times = EntryJsonString(e, "test-run-times");
    if (!times) continue;
    double total = 0;
    for (const auto& t : SplitViews(*times, ':')) total += std::strtod(std::string(t).c_str(), nullptr);
    if (total > 0) sum += total, ++counted;
  }
  return counted ? sum / static_cast<double>(counted) : -1;
}

bool HasRunTimes(const ResultFile& file) {
  return std::any_of(file.results.begin(), file.results.end(), [](const Result& r) { return RunTimeAverage(r) > 0; });
}

double Spread(const Result& r, bool noisy_check) {
  if (noisy_check && NoisyPercent(r)) return -1;
  if (r.parent || (r.proportion != "HIB" && r.proportion != "LIB")) return -1;
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
  if (!has_min || !has_max) return -1;
  const double best = r.proportion == "HIB" ? max : min, worst = r.proportion == "HIB" ? min : max;
  if (worst == 0) return -1;
  double spread = best / worst;
  if (r.proportion == "LIB" && spread != 0) spread = 1 / spread;
  return spread;
}

bool LittleChange(const Result& r) {
  const double spread = Spread(r, false);
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
  // Each system's sum of (SD/mean)^2 / n over the counted values (NaN once one has < 2 trials).
  std::vector<double> log_var(file.systems.size(), 0);
  for (const auto& r : file.results) {
    if (r.identifier.empty() || r.display_format != "BAR_GRAPH") continue;
    ++g.comparable;
    if (r.entries.size() < file.systems.size()) continue;
    std::vector<double> logs(file.systems.size(), std::nan("")), vars(file.systems.size(), std::nan(""));
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
            const std::vector<double> trials = NumericTrials(e);
            const double mean = Mean(trials);
            if (trials.size() >= 2 && mean > 0) {
              const double cv = SampleStandardDeviation(trials) / mean;
              vars[s] = cv * cv / static_cast<double>(trials.size());
            }
          }
          break;
        }
    }
    if (!usable) continue;
    ++g.counted;
    for (size_t s = 0; s < logs.size(); ++s) log_sum[s] += logs[s], log_var[s] += vars[s];
  }
  if (g.counted < 2 || file.systems.empty()) return g;
  const double k = static_cast<double>(g.counted);
  for (double l : log_sum) g.values.push_back(std::exp(l / k));
  bool all_known = true;
  for (double v : log_var) all_known = all_known && !std::isnan(v);
  if (!all_known) return g;
  constexpr double kZ = 1.959964;  // the normal's 97.5 % point
  for (size_t s = 0; s < log_sum.size(); ++s) {
    const double se = std::sqrt(log_var[s]) / k, ratio_se = std::sqrt(log_var[s] + log_var[0]) / k;
    const double log_ratio = (log_sum[s] - log_sum[0]) / k;
    g.low.push_back(g.values[s] * std::exp(-kZ * se));
    g.high.push_back(g.values[s] * std::exp(kZ * se));
    g.ratio_low.push_back(std::exp(log_ratio - kZ * ratio_se));
    g.ratio_high.push_back(std::exp(log_ratio + kZ * ratio_se));
  }
  return g;
}

std::vector<Result> HarmonicMeanResults(const ResultFile& file) {
  // Per unit, in order of first appearance: each system's values in order of first appearance.
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::vector<double>>>>> units;
  for (const auto& r : file.results) {
    if (r.identifier.empty() || r.display_format != "BAR_GRAPH" || r.proportion == "LIB" ||
        r.entries.size() < file.systems.size())
      continue;
    const std::string& unit = r.scale;
    const std::string lower = ToLower(unit);
    if (unit.find('/') == std::string::npos && lower.find(" per ") == std::string::npos &&
        lower.find("fps") == std::string::npos && lower.find("bps") == std::string::npos &&
        lower.find("iops") == std::string::npos)
      continue;  // a harmonic mean is for rates
    bool numeric = true;
    for (const auto& e : r.entries) numeric = numeric && PhpIsNumeric(e.value);
    if (!numeric) continue;
    auto u = std::find_if(units.begin(), units.end(), [&](const auto& x) { return x.first == unit; });
    if (u == units.end()) u = units.insert(units.end(), {unit, {}});
    for (const auto& e : r.entries) {
      auto sys = std::find_if(u->second.begin(), u->second.end(), [&](const auto& x) { return x.first == e.identifier; });
      if (sys == u->second.end()) sys = u->second.insert(u->second.end(), {e.identifier, {}});
      sys->second.push_back(PhpToNumber(e.value));
    }
  }
  std::vector<Result> out;
  for (const auto& [unit, systems] : units) {
    std::vector<std::pair<std::string, double>> means;
    for (const auto& [id, values] : systems) {
      if (values.size() < 4) continue;  // too little data, as PTS judges it
      double inverse_sum = 0;
      for (double v : values) inverse_sum += 1 / v;
      means.emplace_back(id, static_cast<double>(values.size()) / inverse_sum);
    }
    if (means.size() < 2) continue;
    bool multi_way = true;
    for (const auto& [id, v] : means) multi_way = multi_way && std::count(id.begin(), id.end(), ':') == 1;
    if (!multi_way) std::stable_sort(means.begin(), means.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    Result r;
    r.title = "Harmonic Mean Of " + unit + " Test Results";
    r.description = "Harmonic Mean";
    r.arguments = "Harmonic-Mean - " + unit;
    r.scale = unit;
    r.proportion = "HIB";
    r.display_format = "BAR_GRAPH";
    for (const auto& [id, v] : means) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.3f", v);
      r.entries.push_back({id, buf, std::nullopt, std::nullopt});
    }
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<size_t> NotableResults(const ResultFile& file) {
  // The means sgm and shm add are not results of the file: neither listed nor counted.
  auto added = [](const Result& r) {
    return r.identifier.empty() && !r.parent &&
           (r.arguments == "Geometric-Mean" || r.arguments.rfind("Harmonic-Mean - ", 0) == 0);
  };
  std::vector<std::pair<double, size_t>> spreads;
  for (size_t i = 0; i < file.results.size(); ++i)
    if (!added(file.results[i])) spreads.emplace_back(Spread(file.results[i]), i);
  const size_t results = spreads.size();
  // arsort: largest first, ties in file order.
  std::stable_sort(spreads.begin(), spreads.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  spreads.resize(std::min<size_t>({results, results / 4, 10}));
  std::vector<size_t> out;
  for (const auto& [spread, i] : spreads) out.push_back(i);
  return out;
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
  // Under imw the name as the file had it ("A: B", as the form offers it) names the same system
  // after the swap ("B: A").
  for (const std::string& name : HighlightedNames(options))
    for (const auto& s : file.systems)
      if (s.identifier.find(name) != std::string::npos) return name;
  return "";
}

std::vector<std::string> HighlightedNames(const ViewerOptions& options) {
  std::vector<std::string> out = options.highlight;
  if (options.transpose_multi_way)
    for (const auto& h : options.highlight)
      if (Swapped(h) != h) out.push_back(Swapped(h));
  return out;
}

std::vector<std::string> ApplyViewerOptions(ResultFile& file, const ViewerOptions& o) {
  std::vector<std::string> notes;
  if (o.system_order == SystemOrder::kRunDate) {
    // reorder_runs(get_system_identifiers_by_date()): the values follow their systems.
    std::stable_sort(file.systems.begin(), file.systems.end(),
                     [](const System& a, const System& b) { return a.timestamp < b.timestamp; });
    for (auto& r : file.results) SortEntriesBySystems(r, file.systems);
  }
  if (!o.only_show.empty()) RemoveResults(file, [&](const Result& r) { return !Matches(r, o.only_show); });
  if (!o.hide_matching.empty()) RemoveResults(file, [&](const Result& r) { return Matches(r, o.hide_matching); });
  if (!o.faster.empty()) RemoveResults(file, [&](const Result& r) { return !FasterThan(r, o.faster, o.slower); });
  if (o.decided_by_percent) {
    const bool by_pairs = TrialsInterleaved(file);
    RemoveResults(file, [&](const Result& r) {
      return !DecidedlyFaster(file, r, by_pairs, o.faster, o.slower, *o.decided_by_percent);
    });
  }
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
  // cmw, cmv (PTS's order) and imw before the orders and the means, which then see the condensed results.
  if (o.condense_multi_way && CondenseOptionSets(file) == 0)
    notes.push_back("cmw has no effect here: no test has results under more than one set of options");
  if (o.condense_versions && CondenseVersions(file) == 0)
    notes.push_back("cmv has no effect here: no test has results from more than one of its versions");
  if (o.transpose_multi_way && TransposeMultiWay(file) == 0)
    notes.push_back("imw has no effect here: no result compares \"GROUP: NAME\" values (a multi-way comparison)");
  switch (o.result_order) {
    case ResultOrder::kFile: break;
    case ResultOrder::kCommonSuites:
      // PTS orders by the OpenBenchmarking suites on its own disk that hold each test; a result
      // file names none, and PTS without them reorders by a comparison that decides nothing.
      notes.push_back("grw keeps the file's order here: a result file does not say which suites hold its tests "
                      "(PTS orders by the OpenBenchmarking suites installed beside it)");
      break;
    case ResultOrder::kSpread: {
      // uasort by strcmp of the spreads as PHP writes them (so 10.5 sorts below 2.1), reversed.
      auto key = [](const Result& r) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.14G", Spread(r));
        return std::string(buf);
      };
      std::vector<std::pair<std::string, Result>> keyed;
      for (auto& r : file.results) keyed.emplace_back(key(r), std::move(r));
      std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      file.results.clear();
      for (auto it = keyed.rbegin(); it != keyed.rend(); ++it) file.results.push_back(std::move(it->second));
      break;
    }
    case ResultOrder::kTitle:
      std::stable_sort(file.results.begin(), file.results.end(), [](const Result& a, const Result& b) {
        return ToLower(a.title) + " " + a.app_version < ToLower(b.title) + " " + b.app_version;
      });
      break;
    case ResultOrder::kUnit:
      std::stable_sort(file.results.begin(), file.results.end(), [](const Result& a, const Result& b) {
        return a.proportion + " " + ToLower(a.scale) + " " < b.proportion + " " + ToLower(b.scale) + " ";
      });
      break;
    case ResultOrder::kRunTime:
      // A file without run times keeps its order (PTS would reverse it: all ties, then reversed);
      // else shortest first, ties in file order, then reversed, as PTS's uasort and array_reverse.
      if (HasRunTimes(file)) {
        std::vector<std::pair<double, Result>> keyed;  // each key parsed once, not per comparison
        for (auto& r : file.results) keyed.emplace_back(RunTimeAverage(r), std::move(r));
        std::stable_sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        file.results.clear();
        for (auto it = keyed.rbegin(); it != keyed.rend(); ++it) file.results.push_back(std::move(it->second));
      }
      break;
  }
  if (o.harmonic_means)
    for (auto& r : HarmonicMeanResults(file)) file.results.push_back(std::move(r));
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
  // The order of each result's values, as PTS's graphs draw them: sor best first, sro by
  // identifier, then rro reversed.
  for (auto& r : file.results) {
    if (o.system_order == SystemOrder::kPerformance) SortEntriesBestFirst(r);
    if (o.system_order == SystemOrder::kIdentifier)
      std::stable_sort(r.entries.begin(), r.entries.end(), [](const Entry& a, const Entry& b) { return a.identifier < b.identifier; });
    if (o.reverse_systems) std::reverse(r.entries.begin(), r.entries.end());
  }
  const std::string base = NormalizationBase(file, o);
  if (!base.empty()) {
    auto it = std::find_if(file.systems.begin(), file.systems.end(),
                           [&](const System& s) { return s.identifier.find(base) != std::string::npos; });
    std::rotate(file.systems.begin(), it, it + 1);
  }
  return notes;
}

}  // namespace ptsn::results
