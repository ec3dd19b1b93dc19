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

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace ptsn::results {

// a[0..n) == b[0..n) for short strings such as element names, eight bytes at a time and without
// a call (memcmp's call costs more than the comparison here).
inline bool SameShortBytes(const char* a, const char* b, size_t n) {
  for (; n >= 8; a += 8, b += 8, n -= 8) {
    uint64_t x, y;
    std::memcpy(&x, a, 8);
    std::memcpy(&y, b, 8);
    if (x != y) return false;
  }
  for (; n > 0; ++a, ++b, --n)
    if (*a != *b) return false;
  return true;
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
