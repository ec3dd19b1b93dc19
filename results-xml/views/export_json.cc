#include "results-xml/views/export_json.h"

#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/stats/statistics.h"
#include "results-xml/views/export_common.h"
#include "results-xml/views/export_compare.h"
#include "results-xml/views/multi_way.h"

namespace ptsn::results {

namespace {

// Writes JSON formatted exactly like PHP's json_encode($x, JSON_PRETTY_PRINT): 4-space indent,
// "key": value, "\/" and \uXXXX escapes (non-ASCII as UTF-16 units, bad UTF-8 as U+FFFD), floats
// in PHP's shortest notation ("8", "0.1", "1.0e+25"), "{}"/"[]" for empty containers.
class PhpJsonWriter {
 public:
  explicit PhpJsonWriter(std::string& out) : out_(out) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view key) {
    NextElement();
    Quoted(key);
    out_ += ": ";
    after_key_ = true;
  }
  void String(std::string_view s) {
    NextElement();
    Quoted(s);
  }
  void Number(double v) {
    NextElement();
    AppendPhpJsonFloat(out_, v);
  }
  void KeyNumber(std::string_view key, double v) {
    Key(key);
    Number(v);
  }
  // A numeric text as PHP's float of it (0 when it is not numeric).
  void NumberFromText(std::string_view text) { Number(NumericValue(text).value_or(0)); }
  void Integer(long long v) {
    NextElement();
    out_ += std::to_string(v);
  }
  void Bool(bool b) {
    NextElement();
    out_ += b ? "true" : "false";
  }
  void Null() {
    NextElement();
    out_ += "null";
  }
  // A decoded JSON document (System/JSON, Entry/JSON), re-encoded as PHP would.
  void Value(const nlohmann::ordered_json& j) {
    switch (j.type()) {
      case nlohmann::json::value_t::object:
        BeginObject();
        for (auto it = j.begin(); it != j.end(); ++it) {
          Key(it.key());
          Value(it.value());
        }
        EndObject();
        break;
      case nlohmann::json::value_t::array:
        BeginArray();
        for (const auto& v : j) Value(v);
        EndArray();
        break;
      case nlohmann::json::value_t::string: String(j.get_ref<const std::string&>()); break;
      case nlohmann::json::value_t::boolean: Bool(j.get<bool>()); break;
      case nlohmann::json::value_t::number_integer: Integer(j.get<long long>()); break;
      case nlohmann::json::value_t::number_unsigned: Number(static_cast<double>(j.get<unsigned long long>())); break;
      case nlohmann::json::value_t::number_float: Number(j.get<double>()); break;
      default: Null();
    }
  }

 private:
  void Open(char c) {
    NextElement();
    out_ += c;
    counts_.push_back(0);
  }
  void Close(char c) {
    const bool had_members = counts_.back() > 0;
    counts_.pop_back();
    if (had_members) Newline();
    out_ += c;
  }
  // Separator, newline and indentation before an element (not after a key).
  void NextElement() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (counts_.empty()) return;
    if (counts_.back()++ > 0) out_ += ',';
    Newline();
  }
  void Newline() {
    out_ += '\n';
    out_.append(counts_.size() * 4, ' ');
  }
  void Escaped(unsigned code_unit) {
    static constexpr char kHex[] = "0123456789abcdef";
    out_ += "\\u";
    for (int shift = 12; shift >= 0; shift -= 4) out_ += kHex[(code_unit >> shift) & 0xF];
  }
  void Quoted(std::string_view s) {
    out_ += '"';
    for (size_t i = 0; i < s.size(); ++i) {
      const auto c = static_cast<unsigned char>(s[i]);
      switch (c) {
        case '"': out_ += "\\\""; continue;
        case '\\': out_ += "\\\\"; continue;
        case '/': out_ += "\\/"; continue;
        case '\b': out_ += "\\b"; continue;
        case '\f': out_ += "\\f"; continue;
        case '\n': out_ += "\\n"; continue;
        case '\r': out_ += "\\r"; continue;
        case '\t': out_ += "\\t"; continue;
        default: break;
      }
      if (c < 0x20) {
        Escaped(c);
      } else if (c < 0x80) {  // the run of characters that need no escape, in one append
        size_t end = i + 1;
        while (end < s.size() && s[end] >= 0x20 && s[end] != '"' && s[end] != '\\' && s[end] != '/') ++end;
        out_.append(s, i, end - i);
        i = end - 1;
      } else {
        // UTF-8 → code point → \uXXXX (a surrogate pair above the BMP); bad bytes → U+FFFD.
        unsigned cp = 0xFFFD;
        size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (len > 1 && i + len <= s.size()) {
          cp = c & (0x7F >> len);
          for (size_t k = 1; k < len; ++k) {
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xC0) != 0x80) {
              cp = 0xFFFD, len = 1;
              break;
            }
            cp = (cp << 6) | (cc & 0x3F);
          }
        } else {
          len = 1;
        }
        i += len - 1;
        if (cp >= 0x10000) {
          cp -= 0x10000;
          Escaped(0xD800 + (cp >> 10));
          Escaped(0xDC00 + (cp & 0x3FF));
        } else {
          Escaped(cp);
        }
      }
    }
    out_ += '"';
  }

  std::string& out_;
  std::vector<size_t> counts_;  // members written so far, per open container
  bool after_key_ = false;
};

// json_decode($text, true); null when absent or invalid.
nlohmann::ordered_json Decode(const std::optional<std::string>& text) {
  if (!text || text->empty()) return nullptr;
  auto j = nlohmann::ordered_json::parse(*text, nullptr, /*allow_exceptions=*/false);
  return j.is_discarded() ? nlohmann::ordered_json(nullptr) : j;
}

// The string of `json` when it is exactly {"test-run-times":"..."} with a string json_decode()
// takes as it is (no escapes, no control characters); nullopt for any other text.
std::optional<std::string_view> OnlyTestRunTimes(const std::optional<std::string>& json) {
  static constexpr std::string_view kHead = "{\"test-run-times\":\"", kTail = "\"}";
  if (!json) return std::nullopt;
  std::string_view text = *json;
  if (!text.starts_with(kHead) || !text.ends_with(kTail) || text.size() < kHead.size() + kTail.size())
    return std::nullopt;
  text = text.substr(kHead.size(), text.size() - kHead.size() - kTail.size());
  for (char c : text)
    if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) return std::nullopt;
  return text;
}

// PHP array_filter() keeps a value when it is truthy: not "", "0", 0, null, false or empty.
bool Truthy(const nlohmann::ordered_json& j) {
  if (j.is_null()) return false;
  if (j.is_string()) return !PhpEmpty(j.get_ref<const std::string&>());
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number()) return j.get<double>() != 0;
  return !j.empty();
}

void StringIfTruthy(PhpJsonWriter& w, std::string_view key, std::string_view value) {
  if (PhpEmpty(value)) return;
  w.Key(key);
  w.String(value);
}

// PHP arrays keyed by identifier/hash keep one value per key: the LAST one assigned, at the
// position of the FIRST. `emit` lists the winning indices in output order; `shadowed` the rest.
struct KeyedOrder {
  std::vector<size_t> emit, shadowed;
};

template <typename KeyOf>
KeyedOrder OrderByKey(size_t n, KeyOf key_of) {
  KeyedOrder o;
  auto take = [&](size_t i, size_t position, bool added) {  // position in o.emit
    if (added) {
      o.emit.push_back(i);
    } else {
      o.shadowed.push_back(o.emit[position]);
      o.emit[position] = i;
    }
  };
  std::unordered_map<std::string_view, size_t> slot;  // key → position in o.emit
  for (size_t i = 0; i < n; ++i) {
    auto [it, added] = slot.emplace(key_of(i), o.emit.size());
    take(i, it->second, added);
  }
  return o;
}

void Components(PhpJsonWriter& w, std::string_view key, std::string_view components) {
  auto parts = SplitComponents(components);
  if (parts.empty()) return;
  w.Key(key);
  w.BeginObject();
  for (const auto& [k, v] : parts) {
    w.Key(k);
    w.String(v);
  }
  w.EndObject();
}

void SystemBody(PhpJsonWriter& w, const System& s) {
  StringIfTruthy(w, "identifier", s.identifier);
  Components(w, "hardware", s.hardware);
  Components(w, "software", s.software);
  StringIfTruthy(w, "user", s.user);
  StringIfTruthy(w, "timestamp", s.timestamp);
  StringIfTruthy(w, "client_version", s.test_client_version);
  StringIfTruthy(w, "notes", s.notes.value_or(""));
  auto data = Decode(s.json);
  if (Truthy(data)) {
    w.Key("data");
    w.Value(data);
  }
}

void NumberList(PhpJsonWriter& w, std::string_view key, std::string_view list, char sep, bool as_numbers) {
  w.Key(key);
  w.BeginArray();
  ForEachPart(list, sep, [&](std::string_view part) {
    if (as_numbers) w.NumberFromText(part);
    else w.String(part);
  });
  w.EndArray();
}

void Statistics(PhpJsonWriter& w, const Entry& e) {
  // A LINE_GRAPH value is a series of monitor samples, not independent trials: describe it
  // (n, mean, median, min, max, sd) but give no interval or outlier verdicts.
  const bool series = IsSeries(e);
  const TrialSummary s = Summarize(EntryNumbers(e));
  w.Key("ptsn_statistics");
  w.BeginObject();
  w.Key("n");
  w.Integer(static_cast<long long>(s.n));
  if (s.n > 0) {
    w.KeyNumber("mean", s.mean);
    w.KeyNumber("median", s.median);
    w.KeyNumber("min", s.min);
    w.KeyNumber("max", s.max);
    w.KeyNumber("sd", s.sd);
    w.KeyNumber("percent_sd", s.percent_sd);
  }
  if (s.n > 0 && !series) {
    w.KeyNumber("se", s.se);
    w.Key("ci95");
    w.BeginArray();
    w.Number(s.ci95_low);
    w.Number(s.ci95_high);
    w.EndArray();
    // 0-based positions (in raw_values) of trials flagged by the modified Z-score; none dropped.
    w.Key("outliers");
    w.BeginArray();
    for (size_t i = 0; i < s.outliers.size(); ++i)
      if (s.outliers[i]) w.Integer(static_cast<long long>(i));
    w.EndArray();
  }
  // A trial entry's numbers are its numeric trials, whose standard error is s.se; a series'
  // label (if it has a RawString at all) is about those trials, not the samples.
  const std::string label = series ? StandardErrorLabel(e) : StandardErrorLabel(e, s.se);
  if (!label.empty()) {
    w.Key("se_label");
    w.String(label);
  }
  w.EndObject();
}

// The members of one entry object, in PTS's order: value, raw_values, min_result, max_result,
// test_run_times, details (array_filter()ed), then our additions.
void EntryBody(PhpJsonWriter& w, const Entry& e, const JsonOptions& options) {
  const bool with_statistics = options.statistics();
  // A series ("92.05,91.06,...") is never numeric (is_numeric() takes no ','): not parsed.
  const std::optional<double> value = IsSeries(e) ? std::nullopt : NumericValue(e.value);
  if (value) {
    if (*value != 0) {
      w.Key("value");
      w.NumberFromText(e.value);
    }
  } else if (!PhpEmpty(e.value)) {
    w.Key("value");
    w.String(e.value);
  }
  // PTS keeps no raw string when it (loosely) equals the value.
  const std::string_view raw = e.raw_string ? std::string_view(*e.raw_string) : std::string_view();
  if (!raw.empty() && raw != e.value) {
    // Several trials ("8.08:8.02") are never one number (is_numeric() takes no ':'): not parsed.
    bool equals_value = false;
    if (value && raw.find(':') == std::string_view::npos)
      if (const std::optional<double> raw_number = NumericValue(raw)) equals_value = *raw_number == *value;
    if (!equals_value) NumberList(w, "raw_values", raw, ':', true);
  }

  // PTS's usual Entry/JSON is {"test-run-times":"8.08:8.02:8.07"} and nothing else: written
  // directly, as the general path below would (no other member, so no "details").
  if (auto times = OnlyTestRunTimes(e.json)) {
    NumberList(w, "test_run_times", *times, ':', true);
    // (No stand-in mark: test-run-times is the JSON's only key.)
    if (with_statistics) Statistics(w, e);
    return;
  }
  auto details = Decode(e.json);
  if (details.is_object()) {
    struct Rename {
      const char* from;
      const char* to;
    };
    static constexpr Rename kRenames[] = {{"min-result", "min_result"}, {"max-result", "max_result"}};
    for (const auto& [from, to] : kRenames) {
      auto it = details.find(from);
      if (it == details.end() || it->is_null()) continue;
      if (it->is_string()) NumberList(w, to, it->get<std::string>(), ':', false);
      else {
        w.Key(to);
        w.BeginArray();
        w.Value(*it);
        w.EndArray();
      }
      details.erase(it);
    }
    auto it = details.find("test-run-times");
    if (it != details.end() && !it->is_null()) {
      if (it->is_string()) NumberList(w, "test_run_times", it->get<std::string>(), ':', true);
      else {
        w.Key("test_run_times");
        w.BeginArray();
        w.Value(*it);
        w.EndArray();
      }
      details.erase(it);
    }
  }
  if (Truthy(details)) {
    w.Key("details");
    w.Value(details);
  }
  if (with_statistics) Statistics(w, e);
  // Also in "details" (PTS's key), but a tool must not have to know our JSON to see it.
  if (options.lossless())
    if (auto label = StandInMark(e)) {
      w.Key("ptsn_stand_in");
      w.String(*label);
    }
}

// `systems`: the file's, to name a condensed result's (cmw, cmv) values by group and system.
void ResultBody(PhpJsonWriter& w, const Result& r, const JsonOptions& options, const std::vector<System>& systems) {
  StringIfTruthy(w, "identifier", r.identifier);
  StringIfTruthy(w, "title", r.title);
  StringIfTruthy(w, "app_version", r.app_version);
  StringIfTruthy(w, "arguments", r.arguments);
  StringIfTruthy(w, "description", r.description);
  StringIfTruthy(w, "scale", r.scale);
  StringIfTruthy(w, "proportion", r.proportion);
  StringIfTruthy(w, "display_format", r.display_format);
  StringIfTruthy(w, "annotation", r.annotation.value_or(""));
  StringIfTruthy(w, "parent", r.parent.value_or(""));
  if (r.entries.empty()) return;
  const KeyedOrder order = OrderByKey(r.entries.size(), [&](size_t i) { return std::string_view(r.entries[i].identifier); });
  // Ours: a condensed result's "GROUP: SYSTEM" keys also as two fields, so that a tool need not split them.
  const auto named = options.lossless() ? GroupsAndSystems(r, systems) : std::vector<std::pair<std::string, std::string>>{};
  auto group_and_system = [&](size_t i) {
    if (named.empty()) return;
    w.Key("ptsn_group");
    w.String(named[i].first);
    w.Key("ptsn_system");
    w.String(named[i].second);
  };
  w.Key("results");
  w.BeginObject();
  for (size_t i : order.emit) {
    w.Key(r.entries[i].identifier);
    w.BeginObject();
    EntryBody(w, r.entries[i], options);
    group_and_system(i);
    w.EndObject();
  }
  w.EndObject();
  if (options.lossless() && !order.shadowed.empty()) {
    w.Key("ptsn_shadowed_entries");
    w.BeginArray();
    for (size_t i : order.shadowed) {
      w.BeginObject();
      w.Key("ptsn_key");
      w.String(r.entries[i].identifier);
      EntryBody(w, r.entries[i], options);
      group_and_system(i);
      w.EndObject();
    }
    w.EndArray();
  }
}

// The document up to "results": title... and the systems keyed by identifier. Returns which
// systems PTS's keyed array would drop (for the ptsn_shadowed_systems tail).
std::vector<size_t> WriteHead(PhpJsonWriter& w, const ResultFile& file) {
  const auto& g = file.generated;
  w.BeginObject();
  StringIfTruthy(w, "title", g.title);
  StringIfTruthy(w, "last_modified", g.last_modified);
  StringIfTruthy(w, "description", g.description);
  StringIfTruthy(w, "notes", g.notes.value_or(""));
  StringIfTruthy(w, "internal_tags", g.internal_tags.value_or(""));
  StringIfTruthy(w, "reference_id", g.reference_id.value_or(""));
  StringIfTruthy(w, "preset_environment_variables", g.preset_environment_variables.value_or(""));

  // PHP encodes an empty array as [], a keyed one as {}.
  const KeyedOrder systems =
      OrderByKey(file.systems.size(), [&](size_t i) { return std::string_view(file.systems[i].identifier); });
  w.Key("systems");
  if (systems.emit.empty()) {
    w.BeginArray();
    w.EndArray();
  } else {
    w.BeginObject();
    for (size_t i : systems.emit) {
      w.Key(file.systems[i].identifier);
      w.BeginObject();
      SystemBody(w, file.systems[i]);
      w.EndObject();
    }
    w.EndObject();
  }
  return systems.shadowed;
}

void WriteShadowedSystems(PhpJsonWriter& w, const std::vector<System>& shadowed) {
  if (shadowed.empty()) return;
  w.Key("ptsn_shadowed_systems");
  w.BeginArray();
  for (const System& s : shadowed) {
    w.BeginObject();
    w.Key("ptsn_key");
    w.String(s.identifier);
    SystemBody(w, s);
    w.EndObject();
  }
  w.EndArray();
}

// With the file's verdicts in the words every other view of it uses (compare-results, HTML, the
// server's page; issue 50).
void WriteTrailer(PhpJsonWriter& w, const ResultFile& file) {
  w.Key("ptsn");
  w.BeginObject();
  w.Key("generator");
  w.String("pts-native");
  w.Key("confidence_level");
  w.Number(0.95);
  if (const std::string verdicts = FileVerdictsText(file, {}); !verdicts.empty()) {
    w.Key("verdicts");
    w.String(verdicts);
  }
  w.EndObject();
}

void WriteKeyedResult(PhpJsonWriter& w, const std::string& hash, const Result& r, const JsonOptions& options,
                      const std::vector<System>& systems) {
  w.Key(hash);
  w.BeginObject();
  ResultBody(w, r, options, systems);
  w.EndObject();
}

// Results as they are read. A second Result with the same comparison hash would replace the
// first in place (PTS's keyed array), which cannot be done once the first is written: the view
// then asks for the whole file (ResultFileToJson).
class JsonView : public StreamingView {
 public:
  explicit JsonView(const JsonOptions& options) : options_(options), w_(out_) {}
  void Head(const ResultFile& head) override {
    if (options_.statistics()) throw NeedsWholeFile{};  // the verdicts need every result
    systems_ = head.systems;
    for (size_t i : WriteHead(w_, head)) shadowed_systems_.push_back(head.systems[i]);
  }
  void OnResult(const Result& r) override {
    std::string hash = ComparisonHash(r);
    if (!hashes_.insert(hash).second) throw NeedsWholeFile{};
    if (!results_open_) {
      w_.Key("results");
      w_.BeginObject();
      results_open_ = true;
    }
    WriteKeyedResult(w_, hash, r, options_, systems_);
  }
  std::string& Pending() override { return out_; }
  void Finish() override {
    if (!results_open_) {  // PHP encodes an empty array as []
      w_.Key("results");
      w_.BeginArray();
      w_.EndArray();
    } else {
      w_.EndObject();
    }
    if (options_.lossless()) WriteShadowedSystems(w_, shadowed_systems_);
    w_.EndObject();
  }

 private:
  JsonOptions options_;
  std::vector<System> systems_;
  bool results_open_ = false;
  std::string out_;
  PhpJsonWriter w_;
  std::vector<System> shadowed_systems_;
  std::unordered_set<std::string> hashes_;
};

}  // namespace

std::unique_ptr<StreamingView> MakeJsonView(const JsonOptions& options) { return std::make_unique<JsonView>(options); }

std::string ResultFileToJson(const ResultFile& file, const JsonOptions& options) {
  std::string out;
  PhpJsonWriter w(out);
  std::vector<System> shadowed_systems;
  for (size_t i : WriteHead(w, file)) shadowed_systems.push_back(file.systems[i]);

  std::vector<std::string> hashes;
  hashes.reserve(file.results.size());
  for (const auto& r : file.results) hashes.push_back(ComparisonHash(r));
  const KeyedOrder results = OrderByKey(file.results.size(), [&](size_t i) { return std::string_view(hashes[i]); });
  w.Key("results");
  if (results.emit.empty()) {
    w.BeginArray();
    w.EndArray();
  } else {
    w.BeginObject();
    for (size_t i : results.emit) WriteKeyedResult(w, hashes[i], file.results[i], options, file.systems);
    w.EndObject();
  }

  if (options.lossless()) {
    WriteShadowedSystems(w, shadowed_systems);
    if (!results.shadowed.empty()) {
      w.Key("ptsn_shadowed_results");
      w.BeginArray();
      for (size_t i : results.shadowed) {
        w.BeginObject();
        w.Key("ptsn_key");
        w.String(hashes[i]);
        ResultBody(w, file.results[i], options, file.systems);
        w.EndObject();
      }
      w.EndArray();
    }
  }
  if (options.statistics()) WriteTrailer(w, file);
  w.EndObject();
  return out;
}

}  // namespace ptsn::results
