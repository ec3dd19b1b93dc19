#include "results-xml/export_json.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "results-xml/comparison_hash.h"
#include "results-xml/export_common.h"
#include "results-xml/statistics.h"

namespace ptsn::results {

namespace {

using Json = nlohmann::ordered_json;

// PHP's json_encode prints an integral float without a fraction ("8", not "8.0").
Json PhpFloat(double v) {
  if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 1e15) return static_cast<int64_t>(v);
  return v;
}

Json PhpFloat(std::string_view numeric_string) { return PhpFloat(NumericValue(numeric_string).value_or(0)); }

// json_decode($text, true): objects and arrays, null when invalid; integral floats normalised.
Json Decode(const std::optional<std::string>& text) {
  if (!text || text->empty()) return nullptr;
  Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return nullptr;
  auto normalise = [](auto& self, Json& node) -> void {
    if (node.is_number_float()) node = PhpFloat(node.get<double>());
    else if (node.is_structured())
      for (auto& child : node) self(self, child);
  };
  normalise(normalise, j);
  return j;
}

// PHP array_filter() without a callback: drops "", "0", 0, null, false and empty arrays.
bool PhpTruthy(const Json& j) {
  if (j.is_null()) return false;
  if (j.is_string()) return !PhpEmpty(j.get_ref<const std::string&>());
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number()) return j.get<double>() != 0;
  return !j.empty();
}

void SetIfTruthy(Json& obj, const char* key, Json value) {
  if (PhpTruthy(value)) obj[key] = std::move(value);
}

Json ComponentObject(std::string_view components) {
  Json obj = Json::object();
  for (auto& [k, v] : SplitComponents(components)) obj[k] = v;
  return obj;
}

Json Explode(const std::string& s, char sep, bool as_numbers) {
  Json arr = Json::array();
  for (auto part : SplitViews(s, sep)) {
    if (as_numbers) arr.push_back(PhpFloat(part));
    else arr.push_back(std::string(part));
  }
  return arr;
}

// Puts `value` at obj[key]; an existing value there moves to obj-level `shadow` array (what
// PTS's keyed arrays would lose).
void PutKeyed(Json& obj, const std::string& key, Json value, Json* shadow) {
  auto it = obj.find(key);
  if (it != obj.end() && shadow) {
    Json old = std::move(*it);
    if (old.is_object()) old["ptsn_key"] = key;
    shadow->push_back(std::move(old));
  }
  obj[key] = std::move(value);
}

Json Statistics(const Entry& e) {
  std::vector<double> values;
  if (e.value.find(',') != std::string::npos) {
    for (auto p : SplitViews(e.value, ','))
      if (auto n = NumericValue(p)) values.push_back(*n);
  } else {
    values = NumericTrials(e);
  }
  const TrialSummary s = Summarize(values);
  Json j = Json::object();
  j["n"] = s.n;
  if (s.n > 0) {
    j["mean"] = s.mean;
    j["median"] = s.median;
    j["min"] = s.min;
    j["max"] = s.max;
    j["sd"] = s.sd;
    j["percent_sd"] = s.percent_sd;
    j["se"] = s.se;
    j["ci95"] = Json::array({s.ci95_low, s.ci95_high});
    j["outliers"] = s.outliers;
  }
  std::string label = StandardErrorLabel(e);
  if (!label.empty()) j["se_label"] = label;
  return j;
}

Json EntryJson(const Entry& e, bool with_statistics) {
  Json b = Json::object();
  b["value"] = PhpIsNumeric(e.value) ? PhpFloat(e.value) : Json(e.value);
  // PTS keeps no raw string when it equals the value (so single trials have no raw_values).
  // (PHP's loose != : "124.13" and "124.130" are equal numbers).
  const bool has_raw = e.raw_string && !e.raw_string->empty() && *e.raw_string != e.value &&
                       !(PhpIsNumeric(e.value) && PhpIsNumeric(*e.raw_string) &&
                         PhpToNumber(e.value) == PhpToNumber(*e.raw_string));
  b["raw_values"] = has_raw ? Explode(*e.raw_string, ':', true) : Json::array();
  Json details = Decode(e.json);
  if (details.is_object()) {
    for (auto [from, to] : {std::pair{"min-result", "min_result"}, std::pair{"max-result", "max_result"}}) {
      auto it = details.find(from);
      if (it == details.end() || it->is_null()) continue;
      b[to] = it->is_string() ? Explode(it->get<std::string>(), ':', false) : Json::array({*it});
      details.erase(it);
    }
    auto it = details.find("test-run-times");
    if (it != details.end() && !it->is_null()) {
      b["test_run_times"] = it->is_string() ? Explode(it->get<std::string>(), ':', true) : Json::array({*it});
      details.erase(it);
    }
  }
  b["details"] = std::move(details);
  Json out = Json::object();
  for (auto& [k, v] : b.items())
    if (PhpTruthy(v)) out[k] = v;
  if (with_statistics) out["ptsn_statistics"] = Statistics(e);
  return out;
}

// PHP json_encode escapes '/' as "\/"; a '/' only ever occurs inside strings in JSON text.
std::string EscapeSlashes(const std::string& s) {
  std::string out;
  out.reserve(s.size() + s.size() / 32);
  for (char c : s) {
    if (c == '/') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string ResultFileToJson(const ResultFile& file, const JsonOptions& options) {
  const bool ours = options.statistics;
  const auto& g = file.generated;
  Json root = Json::object();
  SetIfTruthy(root, "title", g.title);
  SetIfTruthy(root, "last_modified", g.last_modified);
  SetIfTruthy(root, "description", g.description);
  SetIfTruthy(root, "notes", g.notes.value_or(""));
  SetIfTruthy(root, "internal_tags", g.internal_tags.value_or(""));
  SetIfTruthy(root, "reference_id", g.reference_id.value_or(""));
  SetIfTruthy(root, "preset_environment_variables", g.preset_environment_variables.value_or(""));

  Json systems = Json::object();
  Json shadowed_systems = Json::array();
  for (const auto& s : file.systems) {
    Json sys = Json::object();
    SetIfTruthy(sys, "identifier", s.identifier);
    SetIfTruthy(sys, "hardware", ComponentObject(s.hardware));
    SetIfTruthy(sys, "software", ComponentObject(s.software));
    SetIfTruthy(sys, "user", s.user);
    SetIfTruthy(sys, "timestamp", s.timestamp);
    SetIfTruthy(sys, "client_version", s.test_client_version);
    SetIfTruthy(sys, "notes", s.notes.value_or(""));
    SetIfTruthy(sys, "data", Decode(s.json));
    PutKeyed(systems, s.identifier, std::move(sys), ours ? &shadowed_systems : nullptr);
  }
  // PHP encodes an empty array as [], not {}.
  root["systems"] = systems.empty() ? Json::array() : std::move(systems);

  Json results = Json::object();
  Json shadowed_results = Json::array();
  for (const auto& r : file.results) {
    Json res = Json::object();
    SetIfTruthy(res, "identifier", r.identifier);
    SetIfTruthy(res, "title", r.title);
    SetIfTruthy(res, "app_version", r.app_version);
    SetIfTruthy(res, "arguments", r.arguments);
    SetIfTruthy(res, "description", r.description);
    SetIfTruthy(res, "scale", r.scale);
    SetIfTruthy(res, "proportion", r.proportion);
    SetIfTruthy(res, "display_format", r.display_format);
    SetIfTruthy(res, "annotation", r.annotation.value_or(""));
    SetIfTruthy(res, "parent", r.parent.value_or(""));
    if (!r.entries.empty()) {
      Json entries = Json::object();
      Json shadowed_entries = Json::array();
      for (const auto& e : r.entries)
        PutKeyed(entries, e.identifier, EntryJson(e, ours), ours ? &shadowed_entries : nullptr);
      res["results"] = std::move(entries);
      if (!shadowed_entries.empty()) res["ptsn_shadowed_entries"] = std::move(shadowed_entries);
    }
    PutKeyed(results, ComparisonHash(r), std::move(res), ours ? &shadowed_results : nullptr);
  }
  root["results"] = results.empty() ? Json::array() : std::move(results);
  if (ours) {
    if (!shadowed_systems.empty()) root["ptsn_shadowed_systems"] = std::move(shadowed_systems);
    if (!shadowed_results.empty()) root["ptsn_shadowed_results"] = std::move(shadowed_results);
    root["ptsn"] = {{"generator", "pts-native"}, {"confidence_level", 0.95}};
  }
  return EscapeSlashes(root.dump(4, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace));
}

}  // namespace ptsn::results
