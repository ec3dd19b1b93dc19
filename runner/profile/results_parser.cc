#include "runner/profile/results_parser.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "runner/profile/options.h"
#include "runner/profile/php_compat.h"
#include "runner/profile/xml_tree.h"

namespace ptsn::profile {

using php::Value;

namespace {

constexpr size_t npos = std::string::npos;

// ---- PHP string primitives with PHP's false-position behaviour -------------------------------

// strrpos($h, $n, $offset) for offset >= 0: the last occurrence starting at or after offset.
size_t StrRPos(const std::string& h, const std::string& n, size_t offset = 0) {
  if (n.empty() || offset > h.size()) return npos;
  size_t p = h.rfind(n);
  return p != npos && p >= offset ? p : npos;
}
size_t StrPos(const std::string& h, const std::string& n, size_t offset = 0) {
  if (offset > h.size()) return npos;
  return h.find(n, offset);
}
// A false position used as an int is 0.
size_t Pos0(size_t p) { return p == npos ? 0 : p; }
// substr($s, $start) with $start >= 0.
std::string SubstrFrom(const std::string& s, size_t start) { return start >= s.size() ? "" : s.substr(start); }
// substr($s, 0, $len) where a false length is 0.
std::string SubstrTo(const std::string& s, size_t len) { return len == npos ? "" : s.substr(0, std::min(len, s.size())); }

// pts_strings::trim_spaces: collapse runs of spaces, then PHP trim().
std::string TrimSpaces(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == ' ' && i + 1 < s.size() && s[i + 1] == ' ') continue;
    out += s[i];
  }
  return php::Trim(out);
}

std::vector<std::string> ExplodeSpace(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t p; (p = s.find(' ', start)) != npos; start = p + 1) out.push_back(s.substr(start, p - start));
  out.push_back(s.substr(start));
  return out;
}

std::string SpaceOut(std::string s, const std::vector<char>& chars) {
  for (char& c : s)
    if (std::find(chars.begin(), chars.end(), c) != chars.end()) c = ' ';
  return s;
}

// array_search($needle, $haystack) with loose comparison; npos when absent.
size_t ArraySearch(const std::string& needle, const std::vector<std::string>& hay) {
  for (size_t i = 0; i < hay.size(); ++i)
    if (php::LooseEquals(Value::Str(hay[i]), Value::Str(needle))) return i;
  return npos;
}

// ---- value cleaning -------------------------------------------------------------------------

// strip_result_cleaner: StripFromResult, StripResultPostfix, then a trailing k/M multiplier.
void StripResult(Value* v, const ResultsParserBlock& e) {
  if (!e.strip_from_result.empty()) *v = Value::Str(php::StrReplace(v->ToString(), e.strip_from_result, ""));
  if (!e.strip_result_postfix.empty()) {
    std::string s = v->ToString();
    const std::string& post = e.strip_result_postfix;
    std::string tail = s.size() >= post.size() ? s.substr(s.size() - post.size()) : s;
    if (tail == post) *v = Value::Str(s.size() >= post.size() ? s.substr(0, s.size() - post.size()) : "");
  }
  if (!v->IsNumeric()) {
    std::string s = v->ToString();
    std::string head = s.empty() ? "" : s.substr(0, s.size() - 1);
    if (php::IsNumericString(head)) {
      char last = static_cast<char>(std::tolower(static_cast<unsigned char>(s.back())));
      if (last == 'k') *v = php::Mul(Value::Str(head), Value::Int(1000));
      if (last == 'm') *v = php::Mul(Value::Str(head), Value::Int(1000000));
    }
  }
}

bool ContainsI(const std::string& h, const std::string& n) {
  std::string a = h, b = n;
  for (auto& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (auto& c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return a.find(b) != npos;
}

// Arithmetic that PHP 8 refuses (a wholly non-numeric string) throws a TypeError and PTS dies;
// we drop the value instead.
std::optional<Value> SafeNumber(const Value& v) {
  if (v.is_string()) {
    std::string t = v.s;
    size_t p = 0;
    while (p < t.size() && (t[p] == ' ' || t[p] == '\t' || t[p] == '\n' || t[p] == '\r' || t[p] == '\v' || t[p] == '\f')) ++p;
    if (p >= t.size()) return std::nullopt;
    char c = t[p];
    bool starts_numeric = std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '-';
    if (!starts_numeric) return std::nullopt;
  }
  return php::ToNumber(v);
}

// valid_numeric_input_handler: accepts numbers and a few time formats (converted to seconds).
bool ValidNumeric(Value* v, const std::string& line) {
  if (v->IsNumeric()) return true;
  std::string s = v->ToString();
  std::string no_hms;
  for (char c : s) {
    char l = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (l != 'h' && l != 'm' && l != 's') no_hms += c;
  }
  if (php::IsNumericString(no_hms)) {
    // "1h2m3s" style.
    Value vtime = Value::Int(0);
    std::string ni = s;
    const std::pair<int, char> units[] = {{3600, 'h'}, {60, 'm'}, {1, 's'}};
    for (const auto& [mult, u] : units) {
      size_t x = npos;
      for (size_t i = 0; i < ni.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(ni[i])) == u) {
          x = i;
          break;
        }
      if (x == npos) continue;
      std::string extracted = ni.substr(0, x);
      ni = SubstrFrom(ni, x + 1);
      if (!php::IsNumericString(extracted)) return false;
      vtime = php::Add(vtime, php::Mul(Value::Str(extracted), Value::Int(mult)));
    }
    if (vtime.ToDouble() > 0) {
      *v = vtime;
      return true;
    }
    return false;
  }
  size_t colon = s.find(':');
  std::string digits;
  for (char c : s)
    if (c != ':' && c != '.') digits += c;
  if (colon != npos && s.find('.') != npos && php::IsNumericString(digits) && ContainsI(line, "time")) {
    // "03:03.17" -> seconds (pts/blender).
    Value seconds = Value::Int(0);
    if (s.rfind(':') == colon && php::IsNumericString(s.substr(0, colon))) {
      auto rest = SafeNumber(Value::Str(s.substr(colon + 1)));
      if (rest) seconds = php::Add(php::Mul(Value::Str(s.substr(0, colon)), Value::Int(60)), *rest);
    }
    if (!seconds.Truthy()) return false;
    *v = seconds;
    return true;
  }
  if (colon != npos && !s.empty() && std::tolower(static_cast<unsigned char>(s.back())) == 's') {
    // "01h:04m:33s".
    Value seconds = Value::Int(0);
    bool invalid = false;
    size_t start = 0;
    while (true) {
      size_t p = s.find(':', start);
      std::string seg = s.substr(start, p == npos ? npos : p - start);
      if (!seg.empty()) {
        char post = static_cast<char>(std::tolower(static_cast<unsigned char>(seg.back())));
        std::string val = seg.substr(0, seg.size() - 1);
        Value vv = Value::Str(val);
        if (!php::LooseEquals(vv, Value::Int(0)) && php::IsNumericString(val)) {
          if (post == 'h') seconds = php::Add(seconds, php::Mul(vv, Value::Int(3600)));
          else if (post == 'm') seconds = php::Add(seconds, php::Mul(vv, Value::Int(60)));
          else if (post == 's') seconds = php::Add(seconds, vv);
          else invalid = true;
        }
      }
      if (p == npos) break;
      start = p + 1;
    }
    if (seconds.Truthy() && seconds.ToDouble() > 0 && !invalid) {
      *v = seconds;
      return true;
    }
  }
  return false;
}

// get_precision(): the largest number of decimals among the printed values.
int GroupPrecision(const std::vector<Value>& values) {
  int p = 0;
  for (const auto& v : values) p = std::max(p, php::DecimalsOf(v.ToString()));
  return p;
}

// ---- the per-result state PTS keeps on the cloned pts_test_result ----------------------------

struct ResultState {
  std::string description, scale, proportion, display_format, precision;
  bool secondary = false;
};

void AppendToDescription(std::string* desc, const std::string& arg) {
  if ((" " + *desc + " ").find(" " + arg + " ") != npos) return;
  size_t x = arg.find(": ");
  if (x != npos) {
    std::string prefix = arg.substr(0, x);
    size_t y = desc->find(" " + prefix);
    if (y != npos) *desc = desc->substr(0, y);
  }
  *desc += (!desc->empty() && !arg.empty() && arg[0] != ' ' ? " " : "") + arg;
}

struct XmlLookup {
  bool found_scalar = false;
  std::string text;
};

// FileFormat XML: SimpleXML -> json -> array, then walk the template's '/' path; the node
// reached (stopping at the first missing key) counts only if it is a scalar.
XmlLookup WalkXml(const std::string& output, const std::string& path) {
  XmlLookup out;
  XmlElement root;
  try {
    root = ParseXmlString(output, "log");
  } catch (...) {
    return out;
  }
  // A node is either an element (array when it has element children, else its text) or a list
  // of same-named siblings.
  std::vector<const XmlElement*> current = {&root};
  bool is_list = false;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    std::string key = path.substr(start, slash == npos ? npos : slash - start);
    std::vector<const XmlElement*> next;
    bool next_list = false;
    if (is_list) {
      if (php::IsNumericString(key)) {
        long idx = std::strtol(key.c_str(), nullptr, 10);
        if (idx >= 0 && idx < static_cast<long>(current.size())) next = {current[idx]};
      }
    } else {
      const XmlElement* e = current[0];
      if (!e->children.empty()) {
        next = e->Children(key);
        next_list = next.size() > 1;
      }
    }
    if (next.empty()) break;
    current = next;
    is_list = next_list;
    if (slash == npos) break;
    start = slash + 1;
  }
  if (!is_list && current[0]->children.empty() && current[0] != &root) {
    out.found_scalar = true;
    out.text = php::Trim(current[0]->text);
  }
  return out;
}

std::vector<double> RemoveOutliers(const std::vector<double>& v) {
  if (v.empty()) return v;
  double sum = 0;
  for (double x : v) sum += x;
  double mean = sum / v.size();
  double sd = 0;
  if (v.size() >= 2) {
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    sd = std::sqrt(ss / (v.size() - 1));
  }
  std::vector<double> out;
  for (double x : v)
    if (std::fabs(x - mean) <= 2 * sd) out.push_back(x);
  return out;
}

// check_for_frame_time_parsing: average FPS (or MIN_/MAX_) from per-frame times.
bool FrameTimeParse(std::vector<Value>* results, const std::string& tmpl, const std::string& output,
                    const std::string& prefix) {
  std::vector<std::string> raw;
  if (tmpl == "libframetime-output" || tmpl == "libframetime-output-no-limit") {
    std::vector<std::string> lines;
    size_t start = 0;
    for (size_t p; (p = output.find('\n', start)) != npos; start = p + 1) lines.push_back(output.substr(start, p - start));
    lines.push_back(output.substr(start));
    std::vector<double> times;
    if (lines.size() > 3) {
      for (const auto& l : lines) {
        if (l.size() >= 13 && l.compare(0, 10, "Frametime ") == 0 && l.compare(l.size() - 3, 3, " us") == 0) {
          Value ft = Value::Str(l.substr(10, l.size() - 13));
          if (tmpl == "libframetime-output-no-limit" || ft.ToDouble() > 2000) times.push_back(ft.ToDouble() / 1000);
        }
      }
      times = RemoveOutliers(times);
    }
    for (double t : times) raw.push_back(php::FloatToString(t));
  } else if (tmpl == "csv-dump-frame-latencies") {
    size_t start = 0;
    for (size_t p; (p = output.find(',', start)) != npos; start = p + 1) raw.push_back(output.substr(start, p - start));
    raw.push_back(output.substr(start));
  } else {
    return false;
  }
  if (raw.size() > 3) {
    std::vector<double> fps;
    for (size_t i = 1; i < raw.size(); ++i) {
      if (!php::IsNumericString(raw[i])) continue;
      double v = php::ToNumber(Value::Str(raw[i])).ToDouble();
      if (v == 0) continue;
      fps.push_back(1000 / v);
    }
    if (!fps.empty()) {
      double val;
      if (prefix == "MIN_") val = *std::min_element(fps.begin(), fps.end());
      else if (prefix == "MAX_") val = *std::max_element(fps.begin(), fps.end());
      else {
        double s = 0;
        for (double f : fps) s += f;
        val = s / fps.size();
      }
      if (val != 0) results->push_back(Value::Float(val));
    }
  }
  return true;
}

// ---- one <ResultsParser> block over one trial's log, as named steps -------------------------

// One pass over one block: the block and what the trial's loop knows of it.
struct BlockPass {
  const ResultsParserBlock& block;
  int number = 0;              // 1-based, for the trace
  std::string prefix;          // "" for the value; "MIN_" or "MAX_" for the extremes a template keys
  bool is_pass_fail = false;   // DisplayFormat PASS_FAIL or MULTI_PASS_FAIL
  bool numeric_check = true;   // values must be numbers (all but pass/fail)
  bool have_primary = false;   // an earlier block of this trial produced a value
};

struct EntryResult {
  std::optional<Value> value;  // nullopt = PHP false
  std::optional<Value> min, max;  // MultiMatch min/max (set only with more than one value)
};

// The trace of one pass: a line per step, "block N: ..."; the MIN_/MAX_ passes say only their values.
class PassTrace {
 public:
  PassTrace(std::vector<std::string>* trace, const BlockPass& pass)
      : trace_(trace), prefix_(pass.prefix),
        tag_("block " + std::to_string(pass.number) + (pass.prefix.empty() ? "" : " (" + pass.prefix + ")")) {}
  void operator()(const std::string& msg) const {
    if (trace_ && (prefix_.empty() || msg.rfind("value", 0) == 0)) trace_->push_back(tag_ + ": " + msg);
  }

 private:
  std::vector<std::string>* trace_;
  std::string prefix_, tag_;
};

// Where the result sits in the OutputTemplate: the template's line holding the key, split into
// tokens as the output's lines will be, and the key's token.
struct TemplateKey {
  std::string key;                  // #_RESULT_#, #_MIN_RESULT_#, #_<arguments>_#...
  std::string line;
  std::vector<std::string> tokens;
  size_t token_pos = 0;
  std::vector<char> space_out;      // characters read as spaces in the template and the output
};

// What one pass over the output picks: the line the value is read from and, for a search key,
// the earlier matching lines as backups.
struct PickedLines {
  std::optional<std::string> line;
  std::vector<std::string> backups;
};

// The result key the template holds for this pass.
std::string ResultKey(const BlockPass& p, const std::string& pts_args, const std::string& extra_args) {
  const std::string& key = p.block.result_key;
  if (key == "PTS_TEST_ARGUMENTS") return "#_" + p.prefix + php::StrReplace(pts_args, " ", "") + "_#";
  if (key == "PTS_USER_SET_ARGUMENTS") return "#_" + p.prefix + php::StrReplace(extra_args, " ", "") + "_#";
  return "#_" + p.prefix + "RESULT_#";
}

// The key's line and token in the template (PTS's guess when the key is no token of its own).
TemplateKey LocateKey(const ResultsParserBlock& e, std::string key, size_t start, const PassTrace& note) {
  const std::string& tmpl = e.output_template;
  TemplateKey k;
  k.space_out = {'(', ')', '\t'};
  if (e.file_format == "CSV") k.space_out.push_back(',');
  // PHP: with the key absent, $template[false - 1] is the last character and
  // $template[false + strlen(key)] the character at strlen(key).
  // ($start - 1 is -1 both when the key is absent and when it is at offset 0.)
  size_t before = start == npos || start == 0 ? (tmpl.empty() ? npos : tmpl.size() - 1) : start - 1;
  size_t after = Pos0(start) + key.size();
  if ((before != npos && before < tmpl.size() && tmpl[before] == '/') || (after < tmpl.size() && tmpl[after] == '/'))
    k.space_out.push_back('/');
  size_t end_line = StrPos(tmpl, "\n", after);
  k.line = end_line == npos ? tmpl : tmpl.substr(0, end_line);
  k.line = SubstrFrom(k.line, Pos0(StrRPos(k.line, "\n")));
  k.tokens = ExplodeSpace(TrimSpaces(SpaceOut(php::StrReplace(php::StrReplace(k.line, ":#", " #"), "=", " = "), k.space_out)));
  size_t pos = npos;
  for (size_t i = 0; i < k.tokens.size(); ++i)
    if (k.tokens[i] == key) {
      pos = i;
      break;
    }
  if (pos == npos) {
    // PTS's fallback: the first token x containing the x-th character of the key.
    for (size_t x = 0; x < k.tokens.size(); ++x)
      if (x < key.size() && k.tokens[x].find(key[x]) != npos) {
        pos = x;
        break;
      }
    if (pos != npos) note("key '" + key + "' not a separate template token; guessed token " + std::to_string(pos));
  }
  k.token_pos = Pos0(pos);  // $r[false] is $r[0]
  k.key = std::move(key);
  return k;
}

// DeleteOutputBefore/After: the output cut to what lies between them.
void TrimOutput(const ResultsParserBlock& e, std::string* output) {
  if (!e.delete_output_before.empty()) {
    size_t x = output->find(e.delete_output_before);
    if (x != npos) *output = output->substr(x);
  }
  if (!e.delete_output_after.empty()) {
    size_t x = output->find(e.delete_output_after);
    if (x != npos) *output = output->substr(0, x);
  }
}

// determine_search_key: the text whose last line in the output holds the value; "" for none
// (PHP's null).
std::string SearchKey(const ResultsParserBlock& e, const TemplateKey& k, const std::string& output) {
  const std::string& lh = e.line_hint;
  if (!lh.empty() && k.line.find(lh) != npos) return lh;
  if ((!e.line_before_hint.empty() || !e.line_after_hint.empty()) && !lh.empty() && e.output_template.find(lh) != npos)
    return "";
  std::string first = SubstrTo(k.line, Pos0(StrPos(k.line, k.key)));
  if (!first.empty() && output.find(first) != npos) return first;
  for (const auto& part : k.tokens)
    if (part.find(':') != npos && part.size() > 1) return part;
  return k.key.empty() ? "" : first;
}

// One pass's line: after the LineBeforeHint, before the LineAfterHint, the last one holding the
// search key (earlier ones as backups), or the whole output. It shrinks `out_text` for the next
// pass (nullopt: no next pass).
PickedLines PickLine(const ResultsParserBlock& e, std::string* search_key, std::optional<std::string>* out_text,
                     const PassTrace& note) {
  const std::string& lbh = e.line_before_hint;
  const std::string& lah = e.line_after_hint;
  PickedLines picked;
  std::string& o = **out_text;
  if (!lbh.empty()) {
    size_t hint = StrRPos(o, lbh);
    size_t nl = StrPos(o, "\n", Pos0(hint));
    std::string l = SubstrFrom(o, Pos0(nl));
    l = SubstrTo(l, StrPos(l, "\n", l.size() > 2 ? 1 : 0));
    picked.line = l;
    size_t last_nl = StrRPos(o, "\n", Pos0(hint));
    o = SubstrTo(o, last_nl) + "\n";
    note(hint == npos ? "LineBeforeHint '" + lbh + "' not in the output: PTS uses line 2 of the log"
                      : "LineBeforeHint '" + lbh + "': line after its last occurrence");
  } else if (!lah.empty()) {
    size_t last_nl = StrRPos(o, "\n", Pos0(StrRPos(o, lah)));
    std::string l = SubstrTo(o, last_nl);
    size_t x = StrRPos(l, "\n", l.size() > 2 ? 1 : 0);
    picked.line = SubstrFrom(l, Pos0(x) + 1);  // false + 1 = 1: the first character is lost
    *out_text = std::nullopt;
    note("LineAfterHint '" + lah + "': PTS takes the last line of the output");
  } else if (!search_key->empty()) {
    if (!php::Trim(*search_key).empty()) *search_key = php::Trim(*search_key);
    for (size_t lx; (lx = StrRPos(o, *search_key)) != npos;) {
      size_t nl = StrPos(o, "\n", lx);
      std::string l = SubstrTo(o, nl);
      size_t sol = StrRPos(l, "\n");
      std::string rest = SubstrTo(l, sol) + "\n";
      // A key that matches the line break PTS appends (a template whose key starts its
      // second line gives the key "\n") finds it again forever: PTS then runs until PHP
      // runs out of memory. We stop with the lines found so far.
      if (rest.size() >= o.size()) {
        note("search key '" + *search_key + "' matches the line break PTS appends: PTS would search forever; stopped");
        break;
      }
      o = std::move(rest);
      picked.backups.push_back(SubstrFrom(l, sol == npos ? 1 : sol + 1));
      if (e.multi_match == "REPORT_ALL") break;
    }
    if (!picked.backups.empty()) {
      picked.line = picked.backups.front();
      picked.backups.erase(picked.backups.begin());
      note("search key '" + *search_key + "': last matching line '" + *picked.line + "'" +
           (picked.backups.empty() ? "" : " (" + std::to_string(picked.backups.size()) + " earlier ones as backups)"));
    } else {
      note("search key '" + *search_key + "' not found in the output");
    }
  } else {
    picked.line = php::Trim(o);
    note("no hint: the whole output is the line");
  }
  return picked;
}

// The value's token in the picked line (ResultBeforeString, ResultAfterString, or the key's
// position), with PTS's retries: the line again with a space after each colon, then the
// backups. With MultiMatch the backups not tried become the next pass's output.
void TakeToken(const BlockPass& p, const TemplateKey& k, bool search, PickedLines picked, std::vector<Value>* results,
               std::optional<std::string>* out_text, const PassTrace& note) {
  const ResultsParserBlock& e = p.block;
  const bool multi = !e.multi_match.empty() && e.multi_match != "NONE";
  std::optional<std::string>& line = picked.line;
  std::vector<std::string>& possible_lines = picked.backups;
  auto clean = [&](std::optional<std::string>* l) {
    if (!e.turn_chars_to_space.empty() && *l && !(*l)->empty()) **l = php::StrReplace(**l, e.turn_chars_to_space, " ");
  };
  clean(&line);
  bool did_colon = false;
  bool try_again;
  do {
    try_again = false;
    std::vector<std::string> r;
    if (line && !line->empty()) r = ExplodeSpace(TrimSpaces(SpaceOut(php::StrReplace(*line, "=", " = "), k.space_out)));
    auto accept = [&](Value v, const std::string& what) {
      StripResult(&v, e);
      if (!p.numeric_check || ValidNumeric(&v, line ? *line : "")) {
        results->push_back(v);
        note("token " + what + " -> '" + v.ToString() + "'");
      } else {
        note("token " + what + " '" + v.ToString() + "' is not numeric: rejected");
      }
    };
    if (!e.result_before_string.empty()) {
      size_t b = ArraySearch(e.result_before_string, r);
      if (b != npos && b != 0) accept(Value::Str(r[b - 1]), "before '" + e.result_before_string + "'");
      else note("ResultBeforeString '" + e.result_before_string + "' not found after the first token of the line");
    } else if (!e.result_after_string.empty()) {
      size_t a = ArraySearch(e.result_after_string, r);
      if (a != npos) {
        for (size_t f = a + 1; f < r.size(); ++f) {
          if (r[f] == ":" || r[f] == "," || r[f] == "-" || r[f] == "=") continue;
          accept(Value::Str(r[f]), "after '" + e.result_after_string + "'");
          break;
        }
      } else {
        note("ResultAfterString '" + e.result_after_string + "' not found in the line");
      }
    } else if (k.token_pos < r.size()) {
      accept(Value::Str(r[k.token_pos]), std::to_string(k.token_pos));
    } else if (!did_colon && line && !line->empty() && line->find(':') != npos) {
      *line = php::StrReplace(*line, ":", ": ");
      did_colon = true;
      try_again = true;
    } else if (line) {
      note("line has no token " + std::to_string(k.token_pos));
    }
    if (!try_again && results->empty() && !possible_lines.empty()) {
      line = possible_lines.front();
      possible_lines.erase(possible_lines.begin());
      clean(&line);
      note("trying backup line '" + *line + "'");
      try_again = true;
    } else if (!results->empty() && multi && !possible_lines.empty() && search) {
      std::string rebuilt;
      for (auto it = possible_lines.rbegin(); it != possible_lines.rend(); ++it) rebuilt += *it + "\n";
      *out_text = rebuilt;
    }
  } while (try_again);
}

// The passes over the output: one, or with MultiMatch as many as keep finding values.
void MatchLines(const BlockPass& p, const TemplateKey& k, std::string search_key, const std::string& output,
                std::vector<Value>* results, const PassTrace& note) {
  const ResultsParserBlock& e = p.block;
  const bool multi = !e.multi_match.empty() && e.multi_match != "NONE";
  const bool search = !search_key.empty();  // "$search_key != null": "" counts as null
  if (!search && e.line_before_hint.empty() && e.line_after_hint.empty() && (k.tokens.empty() || k.tokens[0] != k.key)) {
    note("no result: no hint, no search key and the key is not the first template token");
    return;
  }
  std::optional<std::string> out_text = output;
  size_t count;
  bool repeats = false;  // this pass will be the previous one again, forever
  do {
    count = results->size();
    // With results already found and the output as the last pass left it, a pass does
    // exactly what the last one did: PTS then loops until PHP runs out of memory (a
    // LineBeforeHint that is absent, or whose line is the log's last, never shrinks the
    // output). We stop after that pass instead.
    std::optional<std::string> out_before;
    if (count > 0) out_before = out_text;
    TakeToken(p, k, search, PickLine(e, &search_key, &out_text, note), results, &out_text, note);
    repeats = count > 0 && out_before == out_text;
    if (repeats && multi && results->size() != count) note("the output did not shrink: PTS would repeat this pass forever; stopped");
  } while (!repeats && multi && results->size() != count && out_text && !(out_text->empty() || *out_text == "0"));
}

// RESULTPOSTPROCESSING, per value: strip, "m:ss.f" read as seconds, non-numbers dropped (nullopt),
// DivideResultBy, DivideResultDivisor, MultiplyResultBy.
std::vector<std::optional<Value>> PostProcess(const BlockPass& p, const std::vector<Value>& results, const PassTrace& note) {
  const ResultsParserBlock& e = p.block;
  Value multiply = Value::Str(e.multiply_result_by), divide = Value::Str(e.divide_result_by),
        divisor = Value::Str(e.divide_result_divisor);
  std::vector<std::optional<Value>> slots(results.begin(), results.end());
  for (auto& slot : slots) {
    Value& v = *slot;
    StripResult(&v, e);
    if (p.numeric_check && !v.IsNumeric()) {
      std::string s = v.ToString();
      size_t c = s.find(':'), d = s.find('.');
      if (std::count(s.begin(), s.end(), ':') == 1 && std::count(s.begin(), s.end(), '.') == 1 && d > c) {
        auto minutes = SafeNumber(Value::Str(s.substr(0, c)));
        auto secs = SafeNumber(Value::Str(" " + s.substr(c + 1)));
        if (minutes && secs) v = php::Add(php::Mul(*minutes, Value::Int(60)), *secs);
      }
    }
    if (p.numeric_check && !v.IsNumeric()) {
      note("value '" + v.ToString() + "' is not numeric: dropped");
      slot.reset();
      continue;
    }
    if (!e.divide_result_by.empty() && divide.IsNumeric() && !php::LooseEquals(divide, Value::Int(0))) {
      if (auto n = SafeNumber(v)) v = php::Div(*n, divide);
    }
    if (!e.divide_result_divisor.empty() && divisor.IsNumeric() && !php::LooseEquals(divisor, Value::Int(0)) &&
        !php::LooseEquals(v, Value::Int(0))) {
      if (auto n = SafeNumber(v)) v = php::Div(divisor, *n);
    }
    if (!e.multiply_result_by.empty() && multiply.IsNumeric() && !php::LooseEquals(multiply, Value::Int(0))) {
      if (auto n = SafeNumber(v)) v = php::Mul(*n, multiply);
    }
  }
  return slots;
}

// The mean PTS reports of several numeric values (MultiMatch: arithmetic, GEOMETRIC_MEAN, HARMONIC_MEAN).
double MeanOf(const std::string& multi_match, const std::vector<Value>& values) {
  if (multi_match == "GEOMETRIC_MEAN") {
    double power = 1.0 / values.size();
    Value total = Value::Int(1);
    for (size_t c = 0; c < values.size(); c += 8) {
      Value prod = Value::Int(1);
      for (size_t k = c; k < std::min(values.size(), c + 8); ++k) prod = php::Mul(prod, values[k]);
      total = php::Mul(total, Value::Float(std::pow(prod.ToDouble(), power)));
    }
    return total.ToDouble();
  }
  if (multi_match == "HARMONIC_MEAN") {
    Value sum = Value::Int(0);
    for (const auto& v : values) sum = php::Add(sum, php::Div(Value::Int(1), v));
    return (1 / sum.ToDouble()) * values.size();
  }
  Value sum = Value::Int(0);
  for (const auto& v : values) sum = php::Add(sum, v);
  return php::Div(sum, Value::Int(static_cast<int64_t>(values.size()))).ToDouble();
}

// The values become one: REPORT_ALL joins them (a line graph), numbers give their mean (and
// with several, the min and max), else the last value. False when nothing is left.
struct Combined {
  Value result;
  std::string display_format;  // "" = the block's own
  bool numeric_check = true;   // REPORT_ALL's joined values are no number
};
bool Combine(const BlockPass& p, std::vector<std::optional<Value>> slots, Combined* c, EntryResult* out) {
  const ResultsParserBlock& e = p.block;
  std::vector<Value> values;
  for (const auto& s : slots)
    if (s) values.push_back(*s);
  if (values.empty()) return false;
  c->numeric_check = p.numeric_check;
  // $test_result still references the last array element after the foreach (unless that one
  // was unset): assigning the mean overwrites it before min()/max() look (quirk Q2).
  Value* alias = slots.back() ? &*slots.back() : nullptr;
  if (e.multi_match == "REPORT_ALL") {
    std::string joined;
    for (size_t i = 0; i < values.size(); ++i) joined += (i ? "," : "") + values[i].ToString();
    c->result = Value::Str(joined);
    c->display_format = "LINE_GRAPH";
    c->numeric_check = false;
  } else if (p.numeric_check) {
    c->result = Value::Float(php::Round(MeanOf(e.multi_match, values), GroupPrecision(values)));
    if (alias) *alias = c->result;
    if (values.size() > 1) {
      std::vector<Value> now;
      for (const auto& s : slots)
        if (s) now.push_back(*s);
      auto less = [](const Value& a, const Value& b) { return php::Compare(a, b) < 0; };
      out->min = *std::min_element(now.begin(), now.end(), less);
      out->max = *std::max_element(now.begin(), now.end(), less);
    }
  } else {
    c->result = alias ? *alias : values.back();
  }
  return true;
}

// Pass/fail values read as PASS or FAIL; otherwise a value that must be a number and is not
// gives no result (false).
bool Judge(const BlockPass& p, const Combined& c, Value* result, const PassTrace& note) {
  if (p.is_pass_fail) {
    std::string s = result->ToString();
    std::string stripped = php::StrReplace(php::StrReplace(php::StrReplace(s, "PASS", ""), "FAIL", ""), ",", "");
    if (stripped.empty()) {
    } else if (php::LooseEquals(*result, Value::Str("TRUE")) || php::LooseEquals(*result, Value::Str("PASSED"))) {
      *result = Value::Str("PASS");
    } else {
      *result = Value::Str("FAIL");
    }
  } else if (c.numeric_check && !result->IsNumeric()) {
    note("no result: '" + result->ToString() + "' is not numeric");
    return false;
  }
  return true;
}

std::string ToLowerAscii(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

class BlockParser {
 public:
  BlockParser(const ResultsDefinition& def, const std::string& pts_args, const std::string& extra_args,
              const std::optional<std::string>& log, std::vector<std::string>* trace)
      : def_(def), pts_args_(pts_args), extra_args_(extra_args), log_(log), trace_(trace) {}

  // One pass of `p.block` over the log: the value (none when the block does not apply or finds
  // nothing) and what it sets of the result's state (`state`, and whether a description was
  // appended to).
  EntryResult Parse(const BlockPass& p, ResultState* state, bool* did_dynamic_append) const {
    EntryResult out;
    const PassTrace note(trace_, p);
    const std::optional<std::vector<Value>> values = Read(p, note);
    if (!values) return out;
    if (values->empty()) {
      note("no result");
      return out;
    }
    Combined c;
    if (!Combine(p, PostProcess(p, *values, note), &c, &out)) return out;
    Value result = c.result;
    if (!Judge(p, c, &result, note)) return out;
    if (result.Truthy()) {
      Record(p, c, state, did_dynamic_append);
      note("value " + result.ToString());
    } else {
      note("no result: value '" + result.ToString() + "' counts as false in PHP (0 is no result)");
    }
    out.value = result;
    return out;
  }

 private:
  // The values the block reads from the log, as found (nullopt: the block does not apply here).
  std::optional<std::vector<Value>> Read(const BlockPass& p, const PassTrace& note) const {
    const ResultsParserBlock& e = p.block;
    const std::string& tmpl = e.output_template;
    if (!e.match_to_test_arguments.empty() && e.match_to_test_arguments != "0" &&
        pts_args_.find(e.match_to_test_arguments) == npos) {
      note("skipped: MatchToTestArguments '" + e.match_to_test_arguments + "' is not in the arguments '" + pts_args_ + "'");
      return std::nullopt;
    }
    std::string key = ResultKey(p, pts_args_, extra_args_);
    const size_t start = StrRPos(tmpl, key);
    if (!p.prefix.empty() && start == npos && tmpl != "csv-dump-frame-latencies" && tmpl != "libframetime-output" &&
        e.file_format.empty())
      return std::nullopt;
    if (!log_) {
      note("no result: no log file");
      return std::nullopt;
    }
    std::vector<Value> results;
    if (e.file_format == "XML") {
      XmlLookup x = WalkXml(*log_, tmpl);
      if (x.found_scalar) results.push_back(Value::Str(x.text));
      else note("no result: the XML path '" + tmpl + "' does not lead to a value in the log");
      return results;
    }
    const TemplateKey k = LocateKey(e, std::move(key), start, note);
    if (FrameTimeParse(&results, tmpl, *log_, p.prefix)) return results;
    std::string output = *log_;
    TrimOutput(e, &output);
    MatchLines(p, k, SearchKey(e, k, output), output, &results, note);
    return results;
  }

  // A value sets the result's scale, proportion, display format, precision, description and
  // importance from the block.
  void Record(const BlockPass& p, const Combined& c, ResultState* tr, bool* did_dynamic_append) const {
    const ResultsParserBlock& e = p.block;
    const PassTrace note(trace_, p);
    if (!e.result_scale.empty()) tr->scale = e.result_scale;
    if (!e.result_proportion.empty()) tr->proportion = e.result_proportion;
    std::string df = !c.display_format.empty() ? c.display_format : e.display_format;
    if (!df.empty()) tr->display_format = df;
    if (!e.result_precision.empty() && php::IsNumericString(e.result_precision)) {
      // PTS would pad the value with that many zeros; past what PHP's printf prints (318
      // decimals) that is only memory, so a larger precision is ignored instead.
      const double decimals = php::ToNumber(Value::Str(e.result_precision)).ToDouble();
      if (decimals > 318)
        note("ResultPrecision '" + e.result_precision + "' is more than 318 decimals: ignored");
      else if (decimals >= 0)
        tr->precision = e.result_precision;
    }
    if (!e.arguments_description.empty()) tr->description = e.arguments_description;
    if (!e.importance.empty() && ToLowerAscii(e.importance) == "secondary" && p.have_primary) tr->secondary = true;
    if (!e.append_to_arguments_description.empty()) {
      for (const auto& other : def_.parsers)
        if (!other.append_to_arguments_description.empty())
          tr->description = php::StrReplace(tr->description, " - " + other.append_to_arguments_description, "");
      AppendToDescription(&tr->description, " - " + e.append_to_arguments_description);
      *did_dynamic_append = true;
    }
  }

  const ResultsDefinition& def_;
  const std::string& pts_args_;
  const std::string& extra_args_;
  const std::optional<std::string>& log_;
  std::vector<std::string>* trace_;
};

}  // namespace

ParseContext ParseContextFor(const TestProfile& profile, const std::string& arguments, const std::string& description) {
  ParseContext c;
  c.arguments = arguments;
  c.description = description;
  c.default_arguments = profile.default_arguments;
  c.default_post_arguments = profile.default_post_arguments;
  c.result_scale = profile.result_scale;
  c.proportion = profile.proportion;
  c.display_format = profile.display_format.empty() ? "BAR_GRAPH" : profile.display_format;
  c.subtitle = profile.subtitle;
  return c;
}

ParseSession::ParseSession(ResultsDefinition definition, ParseContext context)
    : definition_(std::move(definition)), context_(std::move(context)) {
  pts_test_arguments_ =
      PtsTestArguments(context_.default_arguments, context_.arguments, context_.default_post_arguments);
}

bool ParseSession::ParseLog(const std::optional<std::string>& log, std::vector<std::string>* trace) {
  if (!definition_.present()) {
    if (trace) trace->push_back("no results-definition.xml: nothing to parse");
    return false;
  }
  if (context_.display_format == "IMAGE_COMPARISON") {
    // PTS crops <install dir><SourceImage> with PHP GD and stores the base64 PNG; pts-native links
    // no image library, so it says exactly what it skips instead of producing anything.
    if (trace) {
      trace->push_back("DisplayFormat IMAGE_COMPARISON is not supported: PTS's result is an image crop, not a number from the log");
      for (const auto& ip : definition_.image_parsers)
        trace->push_back("  unsupported ImageParser: SourceImage '" + ip.source_image + "' cropped to x=" + ip.image_x +
                         " y=" + ip.image_y + " width=" + ip.image_width + " height=" + ip.image_height +
                         (ip.match_to_test_arguments.empty() ? "" : " (MatchToTestArguments '" + ip.match_to_test_arguments + "')"));
    }
    return false;
  }
  if (trace && definition_.parsers.empty())
    for (const auto& m : definition_.system_monitors)
      trace->push_back("no ResultsParser: the result comes from <SystemMonitor> " + m.sensor +
                       (m.sensor == "sys.time" ? " (each trial's run time, measured by the runner), not from the log"
                                               : " (sampled by the runner while the trial runs), not from the log"));
  BlockParser parser(definition_, pts_test_arguments_, context_.arguments, log, trace);
  bool produced = false;
  bool did_dynamic_append = false;
  bool have_primary = false;
  ResultState primary;  // the first block of this trial that produced a value, as it was then
  std::vector<Value> avoid_duplicates;
  int block_no = 0;
  for (const auto& e : definition_.parsers) {
    ++block_no;
    ResultState tr{context_.description, context_.result_scale, context_.proportion, context_.display_format, "", false};
    if (!e.display_format.empty()) tr.display_format = e.display_format;
    bool is_pass_fail = tr.display_format == "PASS_FAIL" || tr.display_format == "MULTI_PASS_FAIL";
    bool numeric_check = !is_pass_fail;
    EntryResult r = parser.Parse(BlockPass{e, block_no, "", is_pass_fail, numeric_check, have_primary}, &tr, &did_dynamic_append);
    if (!r.value || !r.value->Truthy()) continue;
    const Value& v = *r.value;
    bool dup = std::any_of(avoid_duplicates.begin(), avoid_duplicates.end(),
                           [&](const Value& d) { return php::LooseEquals(d, v); });
    if (dup && !did_dynamic_append) {
      if (trace) trace->push_back("block " + std::to_string(block_no) + ": value " + v.ToString() +
                                  " equals an earlier block's value: dropped as a duplicate");
      continue;
    }
    avoid_duplicates.push_back(v);
    std::optional<Value> mn, mx;
    if (numeric_check) {
      bool d2 = did_dynamic_append;
      if (r.min && r.min->IsNumeric()) mn = r.min;
      else {
        EntryResult m = parser.Parse(BlockPass{e, block_no, "MIN_", is_pass_fail, numeric_check, false}, &tr, &d2);
        mn = m.value;
      }
      if (r.max && r.max->IsNumeric()) mx = r.max;
      else {
        EntryResult m = parser.Parse(BlockPass{e, block_no, "MAX_", is_pass_fail, numeric_check, false}, &tr, &d2);
        mx = m.value;
      }
      did_dynamic_append = d2;
    }
    // Bucket by comparison hash: identifier, arguments and AppVersion are the same for every
    // block of a run, so description + scale decide.
    ParsedResult* bucket = FindBucket(tr.description, tr.scale);
    if (!bucket) {
      ParsedResult nb;
      nb.description = tr.description;
      nb.arguments = context_.arguments;
      nb.scale = tr.scale;
      nb.proportion = tr.proportion;
      nb.display_format = tr.display_format;
      nb.is_secondary = tr.secondary;
      if (tr.secondary) nb.primary_description = primary.description, nb.primary_scale = primary.scale;
      nb.result_precision = tr.precision;
      nb.block = block_no;
      bucket = &buckets_.emplace_back(std::move(nb));
    }
    bucket->trial_values.push_back(v.ToString());
    bucket->trial_min.push_back(mn ? std::optional<std::string>(mn->ToString()) : std::nullopt);
    bucket->trial_max.push_back(mx ? std::optional<std::string>(mx->ToString()) : std::nullopt);
    produced = true;
    if (!have_primary) primary = tr;
    have_primary = true;
  }
  return produced;
}

ParsedResult* ParseSession::FindBucket(const std::string& description, const std::string& scale) {
  ParsedResult* bucket = nullptr;
  for (auto& b : buckets_)
    if (b.description == description && b.scale == scale) bucket = &b;  // the last one, as before
  return bucket;
}

void ParseSession::AddMonitorValue(const std::string& value) {
  ParsedResult* bucket = FindBucket(context_.description, context_.result_scale);
  if (!bucket) {
    bucket = &buckets_.emplace_back();
    bucket->description = context_.description;
    bucket->arguments = context_.arguments;
    bucket->scale = context_.result_scale;
    bucket->proportion = context_.proportion;
    bucket->display_format = context_.display_format;
  }
  bucket->trial_values.push_back(value);
  bucket->trial_min.push_back(std::nullopt);
  bucket->trial_max.push_back(std::nullopt);
}

std::vector<ParsedResult> ParseSession::Results() const {
  std::vector<ParsedResult> out = buckets_;
  for (auto& r : out)
    if (r.description.empty()) r.description = context_.subtitle;
  return out;
}

FinalValue FinalizeResult(const ParsedResult& r, const std::string& quantifier) {
  FinalValue f;
  const auto& trials = r.trial_values;
  Value end = Value::Int(0);
  const std::string& df = r.display_format;
  if (df == "NO_RESULT") {
    f.saved = true;
    return f;
  }
  if (trials.empty()) {
    f.reason = "no trial produced a value";
    return f;
  }
  if (df == "LINE_GRAPH" || df == "FILLED_LINE_GRAPH" || df == "TEST_COUNT_PASS") {
    end = Value::Str(trials[0]);
  } else if (df == "PASS_FAIL" || df == "MULTI_PASS_FAIL") {
    if (trials.size() == 1) {
      end = Value::Str(trials[0]);
    } else {
      std::string state;
      for (const auto& t : trials) {
        if (t == "FALSE" || t == "0" || t == "FAIL" || t == "FAILED") {
          if (state.empty() || state == "PASS") state = "FAIL";
        } else if (state.empty()) {
          state = "PASS";
        }
      }
      end = Value::Str(state);
    }
  } else if (quantifier == "MAX" || quantifier == "MIN") {
    std::vector<Value> vals;
    for (const auto& t : trials) vals.push_back(Value::Str(t));
    auto cmp = [](const Value& a, const Value& b) { return php::Compare(a, b) < 0; };
    end = quantifier == "MAX" ? *std::max_element(vals.begin(), vals.end(), cmp)
                              : *std::min_element(vals.begin(), vals.end(), cmp);
  } else {
    bool is_float = false;
    Value total = Value::Int(0);
    int count = 0;
    int decimals = 0;
    for (const auto& t : trials) {
      std::string s = php::Trim(t);
      decimals = std::max(decimals, php::DecimalsOf(t));
      if (php::IsNumericString(s)) {
        total = php::Add(total, Value::Str(s));
        ++count;
        if (s.find('.') != npos) is_float = true;
      }
    }
    int precision = 2;
    if (!r.result_precision.empty()) {
      precision = static_cast<int>(php::ToNumber(Value::Str(r.result_precision)).ToDouble());
    } else if (decimals > 0 && decimals < 10) {
      precision = decimals;
    }
    double avg = php::Div(total, Value::Int(count > 0 ? count : 1)).ToDouble();
    std::string formatted = php::NumberFormat(avg, precision);
    end = is_float ? Value::Str(formatted) : Value::Float(php::Round(php::ToNumber(Value::Str(formatted)).ToDouble(), 0));
    // min()/max() over the trials' MIN_/MAX_ values: a missing min makes min() null -> 0.
    double end_d = end.ToDouble();
    if (!r.trial_min.empty()) {
      bool any_missing = std::any_of(r.trial_min.begin(), r.trial_min.end(), [](const auto& m) { return !m; });
      if (!any_missing) {
        double mn = php::ToNumber(Value::Str(*r.trial_min[0])).ToDouble();
        for (const auto& m : r.trial_min) mn = std::min(mn, php::ToNumber(Value::Str(*m)).ToDouble());
        mn = php::Round(mn, 2);
        if (mn < end_d && mn != 0) f.min = php::FloatToString(mn);
      }
    }
    if (!r.trial_max.empty()) {
      std::optional<double> mx;
      for (const auto& m : r.trial_max)
        if (m) {
          double d = php::ToNumber(Value::Str(*m)).ToDouble();
          mx = mx ? std::max(*mx, d) : d;
        }
      if (mx) {
        double v = php::Round(*mx, 2);
        if (v > end_d && v != 0) f.max = php::FloatToString(v);
      }
    }
  }
  f.value = end.ToString();
  bool numeric = end.IsNumeric();
  if ((numeric && end.ToDouble() > 0) || (!numeric && f.value.size() >= 4)) {
    f.saved = true;
  } else {
    f.reason = numeric ? "value " + f.value + " is not above 0" : "value '" + f.value + "' is too short to be a result";
    f.min.reset();
    f.max.reset();
  }
  return f;
}

}  // namespace ptsn::profile
