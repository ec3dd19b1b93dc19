// A fast reader for the plain XML that result files are made of, ahead of libxml2: elements
// without attributes or prefixes, text with the five predefined entities and character
// references, comments, an XML declaration. On that subset it makes the calls libxml2's SAX1
// parser makes (text may come in other pieces), three to four times faster; at the first thing
// outside it (an attribute, CDATA, a DOCTYPE, a processing instruction, a carriage return, a
// name with ':' or beyond ASCII, anything malformed or unusual) it gives up, and the caller
// reads the document with libxml2 instead, which then also gives the errors. So a document it
// reads to the end is one libxml2 reads without error, with the same calls: it never decides
// what is well-formed, only what is plainly so.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ptsn::results {

// a[0..n) == b[0..n) for short strings such as element names, eight bytes at a time and without
// a call (memcmp's call costs more than the comparison here).
inline bool SameShortBytes(const char* a, const char* b, size_t n) {
  auto word = [](const char* p) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    return w;
  };
  if (n >= 8) {
    // Whole words, the last one overlapping the one before it.
    for (; n > 8; a += 8, b += 8, n -= 8)
      if (word(a) != word(b)) return false;
    return word(a + n - 8) == word(b + n - 8);
  }
  if (n >= 4) {  // two overlapping halves
    uint32_t x1, y1, x2, y2;
    std::memcpy(&x1, a, 4), std::memcpy(&y1, b, 4), std::memcpy(&x2, a + n - 4, 4), std::memcpy(&y2, b + n - 4, 4);
    return x1 == y1 && x2 == y2;
  }
  for (; n > 0; ++a, ++b, --n)
    if (*a != *b) return false;
  return true;
}

// Where the run of XML text from p ends (at most `end`): at the first byte that is `a`, `b` or
// `c`, a control byte other than tab and line feed, or not ASCII. The reader's text scan ('<',
// '&', ']') and the writer's escaping ('<', '>', '&') both stop there; a run is sixteen bytes at
// a time with SSE2 (a byte from 0x80 is negative as a signed byte, so below 0x20 too), the last
// few too when the sixteen from there lie in one page (reading beyond `end` inside a page cannot
// fault; those bytes are masked off): most texts of a result file are shorter than sixteen bytes.
// Always inlined (it is called per text, and GCC would not inline it by itself), except under
// AddressSanitizer, which must not check it (it would take that read for an overflow) and cannot
// inline a function it does not check.
#if defined(__SANITIZE_ADDRESS__)
#define PTSN_READS_WITHIN_PAGE [[gnu::no_sanitize_address]]
#else
#define PTSN_READS_WITHIN_PAGE [[gnu::always_inline]]
#endif
#if defined(__SSE2__)
// XmlTextRunEnd's test of the sixteen bytes at `at`: bit i set when byte i ends the run.
PTSN_READS_WITHIN_PAGE inline unsigned XmlTextStops16(const char* at, char a, char b, char c) {
  const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
  const __m128i control = _mm_andnot_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\t')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                                           _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)));
  const __m128i chosen = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(a)), _mm_cmpeq_epi8(v, _mm_set1_epi8(b))),
                                      _mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
  return static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(control, chosen)));
}
#endif

PTSN_READS_WITHIN_PAGE inline const char* XmlTextRunEnd(const char* p, const char* end, char a, char b, char c) {
#if defined(__SSE2__)
  while (end - p >= 16) {
    if (const unsigned mask = XmlTextStops16(p, a, b, c)) return p + std::countr_zero(mask);
    p += 16;
  }
  if (p < end && (reinterpret_cast<uintptr_t>(p) & 4095) <= 4096 - 16) {
    const unsigned mask = XmlTextStops16(p, a, b, c) & ((1u << (end - p)) - 1);
    return mask ? p + std::countr_zero(mask) : end;
  }
#endif
  for (; p < end; ++p) {
    const auto u = static_cast<unsigned char>(*p);
    if ((u < 0x20 && u != '\t' && u != '\n') || u >= 0x80 || *p == a || *p == b || *p == c) break;
  }
  return p;
}

// Each call returns whether to go on: false ends the read there (as given up).
class FastXmlHandler {
 public:
  virtual ~FastXmlHandler() = default;
  virtual bool StartElement(std::string_view name) = 0;
  virtual bool EndElement(std::string_view name) = 0;
  // Inside the root element only (libxml2 reports no text outside it).
  virtual bool Characters(std::string_view text) = 0;
  virtual bool Comment(const std::string& text) = 0;
  // <name>text</name> with text that needs no decoding (most of a result file), met in one go:
  // the same as StartElement, Characters (unless the text is empty) and EndElement, and by default
  // exactly that.
  virtual bool Leaf(std::string_view name, std::string_view text) {
    return StartElement(name) && (text.empty() || Characters(text)) && EndElement(name);
  }
  // Text of a line feed and spaces only (the indentation between elements): the same as
  // Characters, and by default exactly that.
  virtual bool Indentation(std::string_view text) { return Characters(text); }

  // Set by a handler while Indentation would do nothing but go on: the reader then does not call it
  // (a result file has one indentation per element).
  bool indentation_is_nothing = false;
};

// Feeds a document in parts that split it between tokens (a result file cut at <Result> tags,
// with the root's start and end tags as parts of their own), then Finish().
class FastXmlReader {
 public:
  explicit FastXmlReader(FastXmlHandler& handler) : handler_(handler) {}
  // False once the reader has given up (on this part or an earlier one).
  bool Feed(std::string_view part);
  // True when the document ended as a whole one (the root closed, nothing given up).
  bool Finish();
  bool gave_up() const { return gave_up_; }

 private:
  enum class State { kProlog, kContent, kEpilog };
  bool GiveUp() {
    gave_up_ = true;
    return false;
  }
  bool Markup(const char*& p, const char* end, bool document_start);
  bool Text(const char*& p, const char* end);
  bool Reference(const char*& p, const char* end);
  bool Comment(const char*& p, const char* end);
  bool Declaration(const char*& p, const char* end);
  bool StartTag(const char*& p, const char* end);
  bool EndTag(const char*& p, const char* end);

  FastXmlHandler& handler_;
  State state_ = State::kProlog;
  std::vector<std::string_view> open_;  // names of the open elements (in the fed parts)
  bool started_ = false;                // a part has been fed (the XML declaration only first)
  bool gave_up_ = false;
  std::string comment_;
};

}  // namespace ptsn::results
