#include "results-xml/fast_xml.h"

#include <array>
#include <cstdint>
#include <cstring>

#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

constexpr bool IsNameStart(unsigned char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_'; }
constexpr std::array<bool, 256> kNameChar = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[c] = IsNameStart(static_cast<unsigned char>(c)) || (c >= '0' && c <= '9') || c == '-' || c == '.';
  return t;
}();
constexpr bool IsNameChar(unsigned char c) { return kNameChar[c]; }

constexpr bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n'; }

// Where the name characters from p end (at most `end`): sixteen bytes at a time with SSE2 while
// sixteen remain (the names of a result file are 4 to 26 bytes long).
[[gnu::always_inline]] inline const char* NameEnd(const char* p, const char* end) {
#if defined(__SSE2__)
  while (end - p >= 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    // Letters either case (| 0x20 folds them; bytes from 0x80 stay negative, below 'a'), digits,
    // '_', '-', '.'.
    const __m128i folded = _mm_or_si128(v, _mm_set1_epi8(0x20));
    const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(folded, _mm_set1_epi8('a' - 1)),
                                         _mm_cmplt_epi8(folded, _mm_set1_epi8('z' + 1)));
    const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(v, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(v, _mm_set1_epi8('9' + 1)));
    const __m128i other = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('_')), _mm_cmpeq_epi8(v, _mm_set1_epi8('-'))),
                                       _mm_cmpeq_epi8(v, _mm_set1_epi8('.')));
    const auto name = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(letter, digit), other)));
    if (name != 0xFFFF) return p + std::countr_one(name);
    p += 16;
  }
#endif
  while (p < end && IsNameChar(static_cast<unsigned char>(*p))) ++p;
  return p;
}

// libxml2's limits without XML_PARSE_HUGE are far above these; beyond them, libxml2 decides.
constexpr size_t kMaxName = 1000;
constexpr size_t kMaxDepth = 64;
constexpr size_t kMaxComment = 100000;

// The length of the UTF-8 character at p, when it is valid UTF-8 and an XML character (not
// U+FFFE or U+FFFF), else 0.
size_t XmlCharLength(const char* p, const char* end) {
  const Utf8Char u = DecodeUtf8(std::string_view(p, static_cast<size_t>(end - p)), 0);
  return u.code_point == 0xFFFE || u.code_point == 0xFFFF ? 0 : u.length;
}

// XML 1.0's Char production, for a character reference's value.
constexpr bool IsXmlChar(uint32_t cp) {
  return cp == 0x9 || cp == 0xA || cp == 0xD || (cp >= 0x20 && cp <= 0xD7FF) || (cp >= 0xE000 && cp <= 0xFFFD) ||
         (cp >= 0x10000 && cp <= 0x10FFFF);
}

size_t EncodeUtf8(uint32_t cp, char* out) {
  if (cp < 0x80) {
    out[0] = static_cast<char>(cp);
    return 1;
  }
  if (cp < 0x800) {
    out[0] = static_cast<char>(0xC0 | (cp >> 6));
    out[1] = static_cast<char>(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = static_cast<char>(0xE0 | (cp >> 12));
    out[1] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out[2] = static_cast<char>(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = static_cast<char>(0xF0 | (cp >> 18));
  out[1] = static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
  out[2] = static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
  out[3] = static_cast<char>(0x80 | (cp & 0x3F));
  return 4;
}

bool StartsWith(const char* p, const char* end, std::string_view s) {
  return ptsn::StartsWith(std::string_view(p, static_cast<size_t>(end - p)), s);
}

}  // namespace

bool FastXmlReader::Feed(std::string_view part) {
  if (gave_up_) return false;
  if (part.empty()) return true;
  const char* p = part.data();
  const char* const end = p + part.size();
  const bool document_start = !started_;
  started_ = true;
  while (p < end) {
    if (*p == '<') {
      if (!Markup(p, end, document_start && p == part.data())) return GiveUp();
    } else if (state_ == State::kContent) {
      // A line feed and spaces up to the next tag: indentation, known to be nothing else.
      const char* q = p;
      if (*q == '\n')
        for (++q; q < end && *q == ' ';) ++q;
      if (q > p && q < end && *q == '<') {
        if (!handler_.indentation_is_nothing && !handler_.Indentation(std::string_view(p, static_cast<size_t>(q - p))))
          return GiveUp();
        p = q;
      } else if (!Text(p, end)) {
        return GiveUp();
      }
    } else {
      // Outside the root only blanks (libxml2 reports none of them).
      while (p < end && IsBlank(*p)) ++p;
      if (p < end && *p != '<') return GiveUp();
    }
  }
  return true;
}

bool FastXmlReader::Finish() {
  if (gave_up_ || state_ != State::kEpilog) return GiveUp();
  return true;
}

bool FastXmlReader::Markup(const char*& p, const char* end, bool document_start) {
  if (end - p < 2) return false;
  switch (p[1]) {
    case '/':
      return EndTag(p, end);
    case '!':
      return Comment(p, end);
    case '?':
      return document_start && Declaration(p, end);
    default:
      return StartTag(p, end);
  }
}

bool FastXmlReader::StartTag(const char*& p, const char* end) {
  if (state_ == State::kEpilog || open_.size() >= kMaxDepth) return false;  // a second root; deep
  const char* const name = p + 1;
  const char* q = name;
  if (q == end || !IsNameStart(static_cast<unsigned char>(*q))) return false;
  q = NameEnd(q, end);
  const std::string_view n(name, static_cast<size_t>(q - name));
  if (n.size() > kMaxName) return false;
  while (q < end && IsBlank(*q)) ++q;
  if (q == end) return false;
  bool empty = false;
  if (*q == '/') {
    if (end - q < 2 || q[1] != '>') return false;
    empty = true;
    ++q;
  } else if (*q != '>') {
    return false;  // an attribute, ':' or a character beyond the subset
  }
  p = q + 1;
  state_ = State::kContent;
  if (!empty) {
    // Plain text and this element's end tag right after it: a leaf, in one call.
    const char* text_end = XmlTextRunEnd(p, end, '<', '&', ']');
    if (static_cast<size_t>(end - text_end) >= n.size() + 3 && text_end[0] == '<' && text_end[1] == '/' &&
        SameShortBytes(text_end + 2, n.data(), n.size()) && text_end[2 + n.size()] == '>') {
      const std::string_view text(p, static_cast<size_t>(text_end - p));
      p = text_end + n.size() + 3;
      if (open_.empty()) state_ = State::kEpilog;
      return handler_.Leaf(n, text);
    }
    if (!handler_.StartElement(n)) return false;
    open_.push_back(n);
    return true;
  }
  if (!handler_.StartElement(n)) return false;
  if (open_.empty()) state_ = State::kEpilog;
  return handler_.EndElement(n);
}

bool FastXmlReader::EndTag(const char*& p, const char* end) {
  if (open_.empty()) return false;
  const std::string_view n = open_.back();
  const char* q = p + 2;
  if (static_cast<size_t>(end - q) < n.size() || !SameShortBytes(q, n.data(), n.size())) return false;
  q += n.size();
  while (q < end && IsBlank(*q)) ++q;
  if (q == end || *q != '>') return false;  // another name, or one that goes on
  p = q + 1;
  open_.pop_back();
  if (open_.empty()) state_ = State::kEpilog;
  return handler_.EndElement(n);
}

// "<!--" text "-->", where the text has no "--" (libxml2's rule) and only XML characters.
bool FastXmlReader::Comment(const char*& p, const char* end) {
  if (!StartsWith(p, end, "<!--")) return false;  // CDATA, DOCTYPE...
  const char* const text = p + 4;
  const char* q = text;
  for (;;) {
    if (q == end || static_cast<size_t>(q - text) > kMaxComment) return false;
    const auto c = static_cast<unsigned char>(*q);
    if (c == '-' && q + 1 < end && q[1] == '-') break;
    if (c >= 0x80) {
      const size_t n = XmlCharLength(q, end);
      if (n == 0) return false;
      q += n;
    } else if (c >= 0x20 || c == '\t' || c == '\n') {
      ++q;
    } else {
      return false;
    }
  }
  if (end - q < 3 || q[2] != '>') return false;  // "--" inside the comment
  comment_.assign(text, static_cast<size_t>(q - text));
  p = q + 3;
  return handler_.Comment(comment_);
}

// The XML declaration at the very start: <?xml version="1.0" [encoding="..."] [standalone="yes|no"] ?>
bool FastXmlReader::Declaration(const char*& p, const char* end) {
  const char* q = p;
  if (!StartsWith(q, end, "<?xml") || end - q < 6 || !IsBlank(q[5])) return false;
  q += 5;
  // One pseudo-attribute: blanks, name, '=', a quoted value checked by `ok`.
  auto attribute = [&](std::string_view name, auto ok) {
    const char* r = q;
    if (r == end || !IsBlank(*r)) return false;
    while (r < end && IsBlank(*r)) ++r;
    if (!StartsWith(r, end, name)) return false;
    r += name.size();
    if (r == end || *r != '=') return false;
    ++r;
    if (r == end || (*r != '"' && *r != '\'')) return false;
    const char quote = *r++;
    const char* const value = r;
    while (r < end && *r != quote) ++r;
    if (r == end || !ok(std::string_view(value, static_cast<size_t>(r - value)))) return false;
    q = r + 1;
    return true;
  };
  if (!attribute("version", [](std::string_view v) { return v == "1.0"; })) return false;
  attribute("encoding", [](std::string_view v) {
    if (v.empty() || !((v[0] >= 'A' && v[0] <= 'Z') || (v[0] >= 'a' && v[0] <= 'z'))) return false;
    for (char c : v)
      if (!(IsNameStart(static_cast<unsigned char>(c)) || (c >= '0' && c <= '9') || c == '.' || c == '-')) return false;
    return true;
  });
  attribute("standalone", [](std::string_view v) { return v == "yes" || v == "no"; });
  while (q < end && IsBlank(*q)) ++q;
  if (!StartsWith(q, end, "?>")) return false;
  p = q + 2;
  return true;
}

// A run of text up to the next markup, with references decoded, handed on in pieces.
bool FastXmlReader::Text(const char*& p, const char* end) {
  const char* run = p;
  for (;;) {
    const char* q = XmlTextRunEnd(run, end, '<', '&', ']');
    if (q == end || *q == '<' || *q == '&') {
      if (q > p && !handler_.Characters(std::string_view(p, static_cast<size_t>(q - p)))) return false;
      p = q;
      if (q == end || *q == '<') return true;
      if (!Reference(p, end)) return false;
      run = p;
      continue;
    }
    const auto c = static_cast<unsigned char>(*q);
    if (c == ']') {
      if (end - q < 3) return false;  // "]]>" might straddle the part's end
      if (q[1] == ']' && q[2] == '>') return false;
      run = q + 1;
    } else if (c >= 0x80) {
      const size_t n = XmlCharLength(q, end);
      if (n == 0) return false;
      run = q + n;
    } else {
      return false;  // a carriage return or another control byte
    }
  }
}

// "&lt;" and the like, "&#65;", "&#x41;": the character handed on. Any other name is an
// undeclared entity (no DTD), which is libxml2's error to report.
bool FastXmlReader::Reference(const char*& p, const char* end) {
  const char* q = p + 1;
  char decoded[4];
  size_t length = 0;
  if (q < end && *q == '#') {
    ++q;
    const bool hex = q < end && *q == 'x';
    q += hex;
    uint32_t cp = 0;
    size_t digits = 0;
    for (; q < end && *q != ';'; ++q, ++digits) {
      const char c = *q;
      uint32_t d;
      if (c >= '0' && c <= '9') d = static_cast<uint32_t>(c - '0');
      else if (hex && c >= 'a' && c <= 'f') d = static_cast<uint32_t>(c - 'a' + 10);
      else if (hex && c >= 'A' && c <= 'F') d = static_cast<uint32_t>(c - 'A' + 10);
      else return false;
      if (digits >= 8) return false;  // (leading zeros beyond that: libxml2's to judge)
      cp = cp * (hex ? 16 : 10) + d;
    }
    if (q == end || digits == 0 || !IsXmlChar(cp)) return false;
    length = EncodeUtf8(cp, decoded);
  } else {
    static constexpr std::pair<std::string_view, char> kPredefined[] = {
        {"lt;", '<'}, {"gt;", '>'}, {"amp;", '&'}, {"quot;", '"'}, {"apos;", '\''}};
    for (const auto& [name, c] : kPredefined)
      if (StartsWith(q, end, name)) {
        decoded[0] = c;
        length = 1;
        q += name.size() - 1;  // on the ';'
        break;
      }
    if (length == 0) return false;
  }
  p = q + 1;
  return handler_.Characters(std::string_view(decoded, length));
}

}  // namespace ptsn::results
