#include "results-xml/export_json.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <nlohmann/json.hpp>
#include <unordered_map>
#include <unordered_set>

#include "results-xml/comparison_hash.h"
#include "results-xml/export_common.h"
#include "results-xml/statistics.h"

namespace ptsn::results {

namespace {

// Streams JSON formatted exactly like PHP's json_encode($x, JSON_PRETTY_PRINT): 4-space indent,
// "key": value, "\/" and \uXXXX escapes, floats in PHP's shortest notation ("8", "0.1",
// "1.0e+25"), "{}"/"[]" for empty containers. Streaming keeps a 1,000 x 10 export to one pass
// over one string buffer. Pieces are composed in a small stage of the writer's own (a few
// fixed-size moves each, no std::string call per piece) and appended to the output string by
// Flush(), which must come before the string is read.
class PhpJsonWriter {
 public:
  explicit PhpJsonWriter(std::string& out) : out_(out) {}
  PhpJsonWriter(const PhpJsonWriter&) = delete;
  PhpJsonWriter& operator=(const PhpJsonWriter&) = delete;

  // Appends what is staged to the output string.
  void Flush() {
    out_.append(stage_, used_);
    used_ = 0;
  }

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view key) {
    if (BreaksFromTable() && key.size() <= kShortKey &&
        std::all_of(key.begin(), key.end(), [](char c) { return NeedsNoEscape(static_cast<unsigned char>(c)); })) {
      // The usual key (an identifier) with its separator and indentation in one piece.
      used_ += PlainKeyInto(Room(kKeyRoom), key);
    } else {
      NextElement();
      Quoted(key);
      Put(": ", 2);
    }
    after_key_ = true;
  }
  // The writer's own keys ("mean", "value"): checked when compiled, so no scan for escapes.
  struct PlainKey {
    template <size_t N>
    consteval PlainKey(const char (&s)[N]) : text(s, N - 1) {  // NOLINT: implicit from a literal
      for (char c : text)
        if (!NeedsNoEscape(static_cast<unsigned char>(c))) throw "a PlainKey needs no JSON escapes";
      if (text.size() > kShortKey) throw "a PlainKey is short";
    }
    std::string_view text;
  };
  [[gnu::always_inline]] void KeyLiteral(PlainKey key) {
    if (BreaksFromTable()) {
      used_ += PlainKeyInto(Room(kKeyRoom), key.text);
      after_key_ = true;
    } else {
      Key(key.text);
    }
  }
  // Key(key) then Number(v) in one piece: a statistics object is made of these.
  [[gnu::always_inline]] void KeyNumber(PlainKey key, double v) {
    if (!BreaksFromTable()) {
      Key(key.text);
      Number(v);
      return;
    }
    char* const p = Room(kKeyRoom + kPhpJsonFloatRoom);
    const size_t n = PlainKeyInto(p, key.text);
    used_ += n + FormatPhpJsonFloat(v, p + n);
  }
  void String(std::string_view s) {
    NextElement();
    Quoted(s);
  }
  [[gnu::always_inline]] void Number(double v) {
    NextElement();
    used_ += FormatPhpJsonFloat(v, Room(kPhpJsonFloatRoom));
  }
  // Number(NumericValue(text).value_or(0)), writing a plain decimal's own digits when they are
  // what PHP would print (see AppendPlainDecimalAsPhpJson) instead of converting them there and back.
  void NumberFromText(std::string_view text) {
    NextElement();
    if (text.size() <= kShortNumber && IsPhpJsonDecimal(text)) {
      CopyShort(Room(kShortNumber), text);
      used_ += text.size();
      return;
    }
    // Other shapes ("58.50", "1e3"): through the std::string formatters, into a short string of
    // its own (held in the string itself) rather than flushing the stage for them.
    std::string formatted;
    if (!AppendPlainDecimalAsPhpJson(formatted, text)) AppendPhpJsonFloat(formatted, NumericValue(text).value_or(0));
    Put(formatted.data(), formatted.size());
  }
  // KeyNumber(key, v) where `text` (possibly empty) parses to v: written as it is when it is
  // what PHP prints for v (IsPhpJsonDecimal, unless the caller knows it is), skipping the
  // shortest-digits search.
  [[gnu::always_inline]] void KeyNumberText(PlainKey key, double v, std::string_view text, bool known_plain = false) {
    if (!BreaksFromTable() || text.empty() || text.size() > kShortNumber || (!known_plain && !IsPhpJsonDecimal(text))) {
      KeyNumber(key, v);
      return;
    }
    char* const p = Room(kKeyRoom + kShortNumber);
    const size_t n = PlainKeyInto(p, key.text);
    CopyShort(p + n, text);
    used_ += n + text.size();
  }
  // The numeric parts of a list and their texts, as EntryNumbersInto gives them, except that a
  // text is left empty unless it is IsPhpJsonDecimal.
  struct ListNumbers {
    std::vector<double>& values;
    std::vector<std::string_view>& texts;
  };
  // NumberFromText(part) for each part of `list` split at `sep`, as elements of the open array:
  // a run time or trial PHP would print as written goes out with its separator in one piece.
  // With `numbers`, the parts' values are kept too (read in the same pass).
  void NumbersFromText(std::string_view list, char sep, ListNumbers* numbers = nullptr) {
    const bool fast = BreaksFromTable();
    const char* c = list.data();
    const char* const end = c + list.size();
    if (numbers) numbers->values.clear(), numbers->texts.clear();
    for (;;) {  // split and shape-checked in one pass (ForEachPart + IsPhpJsonDecimal)
      const char* const start = c;
      bool plain;
      double value = 0;
      c = numbers ? ScanPhpJsonDecimal(c, end, plain, value) : ScanPhpJsonDecimal(c, end, plain);
      if (c != end && *c != sep) {  // more than a decimal: the part goes on to the separator
        plain = false;
        const void* next = std::memchr(c, sep, static_cast<size_t>(end - c));
        c = next ? static_cast<const char*>(next) : end;
      }
      const auto size = static_cast<size_t>(c - start);
      if (numbers) {
        const std::string_view text(start, size);
        std::optional<double> number = plain ? std::optional<double>(value) : NumericValue(text);
        if (number) numbers->values.push_back(*number), numbers->texts.push_back(plain ? text : std::string_view());
      }
      if (fast && plain && size <= kShortNumber) {
        char* const p = Room(kBreakRoom + kShortNumber);
        const size_t n = BreakInto(p);
        CopyShort(p + n, std::string_view(start, size));
        used_ += n + size;
      } else {
        NumberFromText(std::string_view(start, size));
      }
      if (c == end) break;
      ++c;  // the separator
    }
  }
  [[gnu::always_inline]] void Integer(long long v) {
    NextElement();
    char* const p = Room(24);
    used_ += static_cast<size_t>(std::to_chars(p, p + 24, v).ptr - p);
  }
  void Bool(bool b) {
    NextElement();
    if (b) Put("true", 4);
    else Put("false", 5);
  }
  void Null() {
    NextElement();
    Put("null", 4);
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
  static constexpr size_t kShortKey = 60;
  static constexpr size_t kShortNumber = 24;
  static constexpr size_t kBreakIndent = 64;
  static constexpr size_t kBreakRoom = 2 + kBreakIndent;  // what BreakInto writes, always
  static constexpr size_t kKeyRoom = kBreakRoom + kShortKey + 4;
  static constexpr size_t kStage = 8192;
  // ",\n" and kBreakIndent spaces, and one more so that a copy of kBreakRoom bytes may start
  // after the comma.
  static constexpr std::array<char, kBreakRoom + 1> kBreak = [] {
    std::array<char, kBreakRoom + 1> b{};
    b[0] = ',';
    b[1] = '\n';
    for (size_t i = 2; i < b.size(); ++i) b[i] = ' ';
    return b;
  }();

  // Where the next `n` (<= kStage) bytes go: stage_ + used_, flushed first when they would not
  // fit. The caller writes there and adds what it wrote to used_.
  char* Room(size_t n) {
    if (kStage - used_ < n) Flush();
    return stage_ + used_;
  }
  void Put(char c) {
    *Room(1) = c;
    ++used_;
  }
  void Put(const char* p, size_t n) {
    if (n > kStage) {
      Flush();
      out_.append(p, n);
      return;
    }
    std::memcpy(Room(n), p, n);
    used_ += n;
  }
  // Copies text (at most 64 bytes) to dst with a few fixed-size moves instead of a call.
  [[gnu::always_inline]] static void CopyShort(char* dst, std::string_view text) {
    const char* const src = text.data();
    const size_t n = text.size();
    if (n >= 16) {
      if (n > 32) {
        std::memcpy(dst, src, n);
        return;
      }
      std::memcpy(dst, src, 16);
      std::memcpy(dst + n - 16, src + n - 16, 16);
    } else if (n >= 8) {
      std::memcpy(dst, src, 8);
      std::memcpy(dst + n - 8, src + n - 8, 8);
    } else if (n >= 4) {
      std::memcpy(dst, src, 4);
      std::memcpy(dst + n - 4, src + n - 4, 4);
    } else if (n > 0) {
      dst[0] = src[0];
      dst[n / 2] = src[n / 2];
      dst[n - 1] = src[n - 1];
    }
  }

  [[gnu::always_inline]] void Open(char c) {
    NextElement();
    Put(c);
    counts_.push_back(0);
  }
  [[gnu::always_inline]] void Close(char c) {
    const bool had_members = counts_.back() > 0;
    counts_.pop_back();
    if (had_members) Newline();
    Put(c);
  }
  // Separator, newline and indentation before an element (not after a key).
  void NextElement() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (counts_.empty()) return;
    if (counts_.size() * 4 <= kBreakIndent) {
      used_ += BreakInto(Room(kBreakRoom));
      return;
    }
    if (counts_.back()++ > 0) Put(',');
    Newline();
  }
  // Whether the next element (not after a key, inside a container) is preceded by a separator and
  // an indentation that kBreak holds, so that BreakInto can write them.
  bool BreaksFromTable() const { return !after_key_ && !counts_.empty() && counts_.size() * 4 <= kBreakIndent; }
  // Separator, newline and indentation at buf (when BreaksFromTable(); kBreakRoom bytes are
  // written), returning their length; counts the member.
  [[gnu::always_inline]] size_t BreakInto(char* buf) {
    const bool first = counts_.back()++ == 0;
    const size_t n = 2 - first + counts_.size() * 4;
    if (n <= 32) std::memcpy(buf, kBreak.data() + first, 32);  // the usual depths: two 16-byte moves
    else std::memcpy(buf, kBreak.data() + first, kBreakRoom);
    return n;
  }
  // BreakInto, then "key": (a key needing no escapes, at most kShortKey bytes) at buf (which has
  // kKeyRoom bytes), returning the length.
  [[gnu::always_inline]] size_t PlainKeyInto(char* buf, std::string_view key) {
    size_t n = BreakInto(buf);
    buf[n++] = '"';
    CopyShort(buf + n, key);
    n += key.size();
    std::memcpy(buf + n, "\": ", 3);
    return n + 3;
  }
  void Newline() {
    const size_t indent = counts_.size() * 4;
    if (indent <= kBreakIndent) {  // "\n" and the indentation in one piece, as NextElement does
      char* const p = Room(kBreakRoom);
      if (1 + indent <= 32) std::memcpy(p, kBreak.data() + 1, 32);
      else std::memcpy(p, kBreak.data() + 1, kBreakRoom);
      used_ += 1 + indent;
      return;
    }
    Put('\n');
    for (size_t left = indent; left > 0;) {  // deeper than the table: a table's worth at a time
      const size_t n = std::min(left, kBreakIndent);
      Put(kBreak.data() + 2, n);
      left -= n;
    }
  }

  static constexpr std::array<bool, 256> kPlain = [] {  // as a table: Quoted's scan is the writer's inner loop
    std::array<bool, 256> t{};
    for (int b = 0x20; b < 0x80; ++b) t[b] = b != '"' && b != '\\' && b != '/';
    return t;
  }();
  static constexpr bool NeedsNoEscape(unsigned char c) { return kPlain[c]; }
  // NeedsNoEscape() of all 8 bytes of `x`: none at or above 0x80, none below 0x20, none equal
  // to '"', '\\' or '/' (the classic whole-word zero-byte and less-than tests, exact as yes/no
  // once no byte has its top bit set).
  static constexpr bool EightNeedNoEscape(uint64_t x) {
    constexpr uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    auto has_zero = [](uint64_t v) { return ((v - kOnes) & ~v & kHigh) != 0; };
    return (x & kHigh) == 0 && ((x - kOnes * 0x20) & ~x & kHigh) == 0 && !has_zero(x ^ (kOnes * '"')) &&
           !has_zero(x ^ (kOnes * '\\')) && !has_zero(x ^ (kOnes * '/'));
  }
#if defined(__SSE2__)
  // Whether any of the 16 bytes at p is not NeedsNoEscape: below 0x20 or from 0x80 (negative as
  // a signed byte), or '"', '\\' or '/'.
  static bool SixteenNeedEscape(const char* p) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i low = _mm_cmplt_epi8(x, _mm_set1_epi8(0x20));
    const __m128i quote = _mm_cmpeq_epi8(x, _mm_set1_epi8('"'));
    const __m128i backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'));
    const __m128i slash = _mm_cmpeq_epi8(x, _mm_set1_epi8('/'));
    return _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(low, quote), _mm_or_si128(backslash, slash))) != 0;
  }
#endif
  // Checked when compiled: every byte value at every position among plain bytes decides as
  // the table does.
  static constexpr bool EightAgreesWithTable() {
    for (int position = 0; position < 8; ++position)
      for (int byte = 0; byte < 256; ++byte) {
        uint64_t x = 0x6161616161616161ULL;  // "aaaaaaaa"
        x = (x & ~(uint64_t{0xFF} << (8 * position))) | (uint64_t(byte) << (8 * position));
        if (EightNeedNoEscape(x) != NeedsNoEscape(static_cast<unsigned char>(byte))) return false;
      }
    return true;
  }

  // The escape of an ASCII byte that needs one (NeedsNoEscape false, below 0x80) at p; returns
  // its end (2 or 6 bytes).
  static char* EscapeAscii(char* p, unsigned char c) {
    static constexpr char kHex[] = "0123456789abcdef";
    p[0] = '\\';
    switch (c) {
      case '"': p[1] = '"'; return p + 2;
      case '\\': p[1] = '\\'; return p + 2;
      case '/': p[1] = '/'; return p + 2;
      case '\b': p[1] = 'b'; return p + 2;
      case '\f': p[1] = 'f'; return p + 2;
      case '\n': p[1] = 'n'; return p + 2;
      case '\r': p[1] = 'r'; return p + 2;
      case '\t': p[1] = 't'; return p + 2;
      default:  // the other control characters
        std::memcpy(p + 1, "u00", 3);
        p[4] = kHex[c >> 4];
        p[5] = kHex[c & 0xF];
        return p + 6;
    }
  }

  // A short string (an identifier, a title, a label) of ASCII, quoted and escaped at once into
  // the stage: eight bytes at a time where none needs an escape. False, with nothing written,
  // for a longer one or one with a byte from 0x80 (UTF-8, which Quoted converts).
  bool QuotedShortAscii(std::string_view s) {
    static constexpr size_t kShortText = 64;
    if (s.size() > kShortText) return false;
    char* const begin = Room(2 + 6 * kShortText);
    char* p = begin;
    *p++ = '"';
    const char* c = s.data();
    const char* const end = c + s.size();
    for (;;) {
      const char* const chunk_end = end - c >= 8 ? c + 8 : end;
      uint64_t eight;
      if (chunk_end - c == 8 && (std::memcpy(&eight, c, 8), EightNeedNoEscape(eight))) {
        std::memcpy(p, &eight, 8);
        p += 8;
        c += 8;
      } else {
        for (; c < chunk_end; ++c) {
          const auto b = static_cast<unsigned char>(*c);
          if (NeedsNoEscape(b)) *p++ = static_cast<char>(b);
          else if (b < 0x80) p = EscapeAscii(p, b);
          else return false;
        }
      }
      if (c == end) break;
    }
    *p++ = '"';
    used_ += static_cast<size_t>(p - begin);
    return true;
  }

  void Quoted(std::string_view s) {
    static_assert(EightAgreesWithTable());
    if (QuotedShortAscii(s)) return;
    static constexpr char kHex[] = "0123456789abcdef";
    auto u = [&](unsigned cp) {
      char* const p = Room(6);
      p[0] = '\\', p[1] = 'u';
      for (int i = 0; i < 4; ++i) p[2 + i] = kHex[(cp >> (12 - 4 * i)) & 0xF];
      used_ += 6;
    };
    Put('"');
    for (size_t i = 0; i < s.size(); ++i) {
      // Copy the run of characters that need no escaping in one go.
      size_t run = i;
#if defined(__SSE2__)
      for (; run + 16 <= s.size(); run += 16)  // 16 bytes at a time where the target has SSE2
        if (SixteenNeedEscape(s.data() + run)) break;
#endif
      for (uint64_t eight; run + 8 <= s.size(); run += 8) {  // 8 bytes at a time, then byte by byte
        std::memcpy(&eight, s.data() + run, 8);
        if (!EightNeedNoEscape(eight)) break;
      }
      while (run < s.size() && NeedsNoEscape(static_cast<unsigned char>(s[run]))) ++run;
      if (run > i) {
        Put(s.data() + i, run - i);
        i = run;
        if (i == s.size()) break;
      }
      const auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x80) {
        // UTF-8 → code point → \uXXXX (surrogate pair above the BMP); bad bytes → U+FFFD.
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
          u(0xD800 + (cp >> 10));
          u(0xDC00 + (cp & 0x3FF));
        } else {
          u(cp);
        }
        continue;
      }
      char* const p = Room(6);
      used_ += static_cast<size_t>(EscapeAscii(p, c) - p);
    }
    Put('"');
  }

  std::string& out_;
  char stage_[kStage];
  size_t used_ = 0;  // bytes of stage_ not yet flushed
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

void StringIfTruthy(PhpJsonWriter& w, PhpJsonWriter::PlainKey key, std::string_view value) {
  if (PhpEmpty(value)) return;
  w.KeyLiteral(key);
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
  // A result's entries (one per system, ten or so): the keys so far searched in order, which
  // costs less than hashing each key into a map of nodes, once per result of every export.
  constexpr size_t kFew = 32;
  if (n <= kFew) {
    std::string_view keys[kFew];  // keys[p]: the key at position p of o.emit
    size_t distinct = 0;
    for (size_t i = 0; i < n; ++i) {
      const std::string_view key = key_of(i);
      size_t position = 0;
      while (position < distinct && keys[position] != key) ++position;
      const bool added = position == distinct;
      if (added) keys[distinct++] = key;
      take(i, position, added);
    }
    return o;
  }
  std::unordered_map<std::string_view, size_t> slot;  // key → position in o.emit
  for (size_t i = 0; i < n; ++i) {
    auto [it, added] = slot.emplace(key_of(i), o.emit.size());
    take(i, it->second, added);
  }
  return o;
}

void Components(PhpJsonWriter& w, PhpJsonWriter::PlainKey key, std::string_view components) {
  auto parts = SplitComponents(components);
  if (parts.empty()) return;
  w.KeyLiteral(key);
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

void NumberList(PhpJsonWriter& w, PhpJsonWriter::PlainKey key, std::string_view list, char sep, bool as_numbers,
                PhpJsonWriter::ListNumbers* numbers = nullptr) {
  w.KeyLiteral(key);
  w.BeginArray();
  if (as_numbers) w.NumbersFromText(list, sep, numbers);
  else ForEachPart(list, sep, [&](std::string_view part) { w.String(part); });
  w.EndArray();
}

// Working storage reused from entry to entry (no state carries from one entry to the next): an
// entry's numbers (EntryNumbersInto) and each one's text in the entry.
struct EntryNumbersStore {
  std::vector<double> numbers;
  std::vector<std::string_view> texts;
  PhpJsonWriter::ListNumbers list{numbers, texts};
};
EntryNumbersStore& EntryNumbersStorage() {
  thread_local EntryNumbersStore store;
  return store;
}

// `known`: the entry's numbers are already in EntryNumbersStorage() (read while its raw_values
// were written), else they are read here.
void Statistics(PhpJsonWriter& w, const Entry& e, bool known) {
  // A LINE_GRAPH value is a series of monitor samples, not independent trials: describe it
  // (n, mean, median, min, max, sd) but give no interval or outlier verdicts.
  const bool series = IsSeries(e);
  EntryNumbersStore& store = EntryNumbersStorage();
  const std::vector<double>& numbers = store.numbers;
  const std::vector<std::string_view>& texts = store.texts;  // numbers[i] as written in e
  thread_local TrialSummary s;
  if (!known) EntryNumbersInto(e, store.numbers, &store.texts);
  SummarizeInto(numbers, s, /*flag_outliers=*/!series);
  w.KeyLiteral("ptsn_statistics");
  w.BeginObject();
  w.KeyLiteral("n");
  w.Integer(static_cast<long long>(s.n));
  if (s.n > 0) {
    // The median (of an odd count), min and max are trials or samples: their own text, when
    // PHP prints it as it is, is what formatting the double gives (parse once, use twice). Any
    // text of the same double would do, so this is only a shortcut: the median of an even
    // count (a mean of two) is formatted without looking for one.
    auto text_at = [&](double x, size_t i) -> std::string_view {
      return x == 0 ? std::string_view() : texts[i];  // 0 and -0 are equal but print differently
    };
    auto median_text = [&]() -> std::string_view {
      if (s.median == 0 || numbers.size() % 2 == 0) return {};
      for (size_t i = 0; i < numbers.size(); ++i)
        if (numbers[i] == s.median) return texts[i];
      return {};
    };
    w.KeyNumber("mean", s.mean);
    // (Texts read with the raw_values are known to be IsPhpJsonDecimal or empty.)
    w.KeyNumberText("median", s.median, median_text(), known);
    w.KeyNumberText("min", s.min, text_at(s.min, s.min_at), known);
    w.KeyNumberText("max", s.max, text_at(s.max, s.max_at), known);
    w.KeyNumber("sd", s.sd);
    w.KeyNumber("percent_sd", s.percent_sd);
  }
  if (s.n > 0 && !series) {
    w.KeyNumber("se", s.se);
    w.KeyLiteral("ci95");
    w.BeginArray();
    w.Number(s.ci95_low);
    w.Number(s.ci95_high);
    w.EndArray();
    // 0-based positions (in raw_values) of trials flagged by the modified Z-score; none dropped.
    w.KeyLiteral("outliers");
    w.BeginArray();
    for (size_t i = 0; i < s.outliers.size(); ++i)
      if (s.outliers[i]) w.Integer(static_cast<long long>(i));
    w.EndArray();
  }
  // A trial entry's numbers are its numeric trials, whose standard error is s.se; a series'
  // label (if it has a RawString at all) is about those trials, not the samples.
  thread_local std::string label;
  if (series) label = StandardErrorLabel(e);
  else StandardErrorLabelInto(e, s.se, label);
  if (!label.empty()) {
    w.KeyLiteral("se_label");
    w.String(label);
  }
  w.EndObject();
}

// The members of one entry object, in PTS's order: value, raw_values, min_result, max_result,
// test_run_times, details (array_filter()ed), then our additions.
void EntryBody(PhpJsonWriter& w, const Entry& e, const JsonOptions& options) {
  const bool with_statistics = options.statistics();
  bool known = false;  // the entry's numbers are in EntryNumbersStorage()
  // A series ("92.05,91.06,...") is never numeric (is_numeric() takes no ','): not parsed.
  const std::optional<double> value = IsSeries(e) ? std::nullopt : NumericValue(e.value);
  if (value) {
    if (*value != 0) {
      w.KeyLiteral("value");
      w.NumberFromText(e.value);
    }
  } else if (!PhpEmpty(e.value)) {
    w.KeyLiteral("value");
    w.String(e.value);
  }
  // PTS keeps no raw string when it (loosely) equals the value.
  const std::string_view raw = e.raw_string ? std::string_view(*e.raw_string) : std::string_view();
  if (!raw.empty() && raw != e.value) {
    // Several trials ("8.08:8.02") are never one number (is_numeric() takes no ':'): not parsed.
    bool equals_value = false;
    if (value && raw.find(':') == std::string_view::npos)
      if (const std::optional<double> raw_number = NumericValue(raw)) equals_value = *raw_number == *value;
    if (!equals_value) {
      // The trials' numbers are what the statistics describe (EntryNumbersInto reads RawString
      // unless the entry is a series): kept as they are written (parse once, use twice).
      known = with_statistics && !IsSeries(e);
      NumberList(w, "raw_values", raw, ':', true, known ? &EntryNumbersStorage().list : nullptr);
    }
  }

  // PTS's usual Entry/JSON is {"test-run-times":"8.08:8.02:8.07"} and nothing else: written
  // directly, as the general path below would (no other member, so no "details").
  if (auto times = OnlyTestRunTimes(e.json)) {
    NumberList(w, "test_run_times", *times, ':', true);
    // (No stand-in mark: test-run-times is the JSON's only key.)
    if (with_statistics) Statistics(w, e, known);
    return;
  }
  auto details = Decode(e.json);
  if (details.is_object()) {
    struct Rename {
      const char* from;
      PhpJsonWriter::PlainKey to;
    };
    static constexpr Rename kRenames[] = {{"min-result", "min_result"}, {"max-result", "max_result"}};
    for (const auto& [from, to] : kRenames) {
      auto it = details.find(from);
      if (it == details.end() || it->is_null()) continue;
      if (it->is_string()) NumberList(w, to, it->get<std::string>(), ':', false);
      else {
        w.KeyLiteral(to);
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
        w.KeyLiteral("test_run_times");
        w.BeginArray();
        w.Value(*it);
        w.EndArray();
      }
      details.erase(it);
    }
  }
  if (Truthy(details)) {
    w.KeyLiteral("details");
    w.Value(details);
  }
  if (with_statistics) Statistics(w, e, known);
  // Also in "details" (PTS's key), but a tool must not have to know our JSON to see it.
  if (options.lossless())
    if (auto label = StandInMark(e)) {
      w.KeyLiteral("ptsn_stand_in");
      w.String(*label);
    }
}

void ResultBody(PhpJsonWriter& w, const Result& r, const JsonOptions& options) {
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
  w.Key("results");
  w.BeginObject();
  for (size_t i : order.emit) {
    w.Key(r.entries[i].identifier);
    w.BeginObject();
    EntryBody(w, r.entries[i], options);
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

void WriteTrailer(PhpJsonWriter& w) {
  w.Key("ptsn");
  w.BeginObject();
  w.Key("generator");
  w.String("pts-native");
  w.Key("confidence_level");
  w.Number(0.95);
  w.EndObject();
}

void WriteKeyedResult(PhpJsonWriter& w, const std::string& hash, const Result& r, const JsonOptions& options) {
  w.Key(hash);
  w.BeginObject();
  ResultBody(w, r, options);
  w.EndObject();
}

// Results as they are read. A second Result with the same comparison hash would replace the
// first in place (PTS's keyed array), which cannot be done once the first is written: the view
// then asks for the whole file (ResultFileToJson).
class JsonView : public StreamingView {
 public:
  explicit JsonView(const JsonOptions& options) : options_(options), w_(out_) {}
  void Head(const ResultFile& head) override {
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
    WriteKeyedResult(w_, hash, r, options_);
  }
  std::string& Pending() override {
    w_.Flush();
    return out_;
  }
  void Finish() override {
    if (!results_open_) {  // PHP encodes an empty array as []
      w_.Key("results");
      w_.BeginArray();
      w_.EndArray();
    } else {
      w_.EndObject();
    }
    if (options_.lossless()) WriteShadowedSystems(w_, shadowed_systems_);
    if (options_.statistics()) WriteTrailer(w_);
    w_.EndObject();
  }

 private:
  JsonOptions options_;
  bool results_open_ = false;
  std::string out_;
  PhpJsonWriter w_;
  std::vector<System> shadowed_systems_;
  std::unordered_set<std::string> hashes_;
};

}  // namespace

std::unique_ptr<StreamingView> MakeJsonView(const JsonOptions& options) { return std::make_unique<JsonView>(options); }

std::string ResultFileToJson(const ResultFile& file, const JsonOptions& options) {
  const bool statistics = options.statistics();
  // One buffer sized up front: about 2x the values and trials in, plus per-entry overhead.
  size_t estimate = 4096;
  for (const auto& r : file.results)
    for (const auto& e : r.entries)
      estimate += 300 + (statistics ? 700 : 0) + 2 * (e.value.size() + e.raw_string.value_or("").size()) +
                  (statistics && e.value.find(',') != std::string::npos ? 3 * e.value.size() : 0);
  std::string out;
  out.reserve(estimate);
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
    for (size_t i : results.emit) WriteKeyedResult(w, hashes[i], file.results[i], options);
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
        ResultBody(w, file.results[i], options);
        w.EndObject();
      }
      w.EndArray();
    }
  }
  if (options.statistics()) WriteTrailer(w);
  w.EndObject();
  w.Flush();
  return out;
}

}  // namespace ptsn::results
