// Reading and writing composite.xml exactly as PTS 10.8.6 (pts_result_file::get_xml through PHP
// DOMDocument with formatOutput) does: XML declaration, the program-title comment, 2-space
// indentation, `<X></X>` for empty elements, fixed element order, libxml2's text escaping.
//
// The reader is strict where PTS is silent: a missing required element or a duplicate child is an
// error naming the file and line, never a silently dropped value. An element or attribute PTS does
// not know is read past as PTS reads past it (and, as PTS, not written back), with a notice (see
// SetReadNoticeHandler). It keeps everything else it reads (absent vs empty optional elements, the
// leading comment, every Result even if two share a comparison hash) so Serialize(Parse(x)) == x
// for every file PTS writes.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

// What PTS 10.8.6 stamps into a file it saves (pts_core::program_title()).
inline constexpr const char* kPtsProgramTitle = "Phoronix Test Suite v10.8.6";

// Hard bounds for untrusted input (the results server), checked in the reader's own SAX
// callbacks so a hostile upload is refused in the same single pass. The first bound exceeded
// stops the parse at once and is the error reported ("SOURCE: elements nested deeper than ...").
// 0 = no bound of that kind.
struct ReadLimits {
  size_t max_depth = 0;        // element nesting
  size_t max_nodes = 0;        // elements, text nodes, comments, processing instructions
  size_t max_value_bytes = 0;  // one text node
  // Also refuse what result-file.xsd refuses and the reader otherwise lets through: elements out
  // of the schema's sequence order (Generated, Systems, Results; fields in table order), a
  // <Data> without <Entry>, namespaced elements, unknown elements and attributes. Files PTS
  // writes always pass.
  bool schema_structure = false;
};

// Parses a composite.xml. `source_name` is the file name used in error messages.
// Throws ptsn::Error "SOURCE: line N: what is wrong" on: malformed or truncated XML, bytes that
// are not UTF-8, any DOCTYPE (entity declarations are how XML bombs and external-entity reads
// start; result files never carry one), entity references, a root other than
// <PhoronixTestSuite>, a missing or duplicated required element, an element inside a leaf
// element, a bound of `limits` exceeded. Unknown elements (with all they hold) and attributes
// are skipped and noted. Never touches the network or the file system beyond `xml`.
ResultFile ParseResultFile(std::string_view xml, const std::string& source_name, const ReadLimits& limits = {});

// Reads and parses the file at `path` (errors name `path`).
ResultFile ReadResultFile(const std::string& path);

// Streaming reads, for views that need one Result at a time: PTS writes Generated and every
// System before the first Result, so a 1,000-result file can be rendered with the memory of one.
class ResultVisitor {
 public:
  virtual ~ResultVisitor() = default;
  // Once, at the first <Result> (at the end for a file without results): Generated and the
  // systems; `head.results` holds nothing the visitor may rely on.
  virtual void Head(const ResultFile& head) = 0;
  // Each Result, complete, in file order. The object is reused for the next Result: copy what
  // must outlive the call. An exception thrown here stops the parse and propagates.
  virtual void OnResult(const Result& result) = 0;
};

// Unknown elements and attributes a read skipped are noted once per file (source name) and
// process: "SOURCE: line N: unknown element <X> in <Result> (and M more) ignored: ...". By default
// the note is one line on standard error ("pts-native: warning: ..."); `handler` (nullptr: the
// default again) takes it instead. Setting one forgets which files were noted.
using ReadNoticeHandler = std::function<void(const std::string& message)>;
void SetReadNoticeHandler(ReadNoticeHandler handler);

// Parses `xml` as ParseResultFile does (same checks, same errors), feeding `visitor` as it goes:
// a check or view that needs no model of the whole file (the server's upload check, exports).
// Returns false, having stopped early, when a <Generated> or <System> follows a <Result> (legal,
// never written by PTS): the caller then discards what it was given and uses the whole-file
// ParseResultFile instead. On an error the visitor may have seen part of the file.
bool StreamResultFile(std::string_view xml, const std::string& source_name, ResultVisitor& visitor,
                      const ReadLimits& limits = {});

struct SerializeOptions {
  // false (default, what PTS does on every save): LastModified = `now`, TestClient and the leading
  // comment = kPtsProgramTitle, and System/Notes and Entry/RawString are always written (PTS
  // writes them even when empty). true: write the file as it was read — LastModified, TestClient
  // and the leading comment unchanged, absent Notes/RawString stay absent — for byte-exact round
  // trips and for edits that should not pretend the file was re-generated.
  bool keep_as_read = false;
  // "YYYY-MM-DD HH:MM:SS" used for LastModified when restamping; empty = the current local time
  // (PTS uses date() in PHP's default time zone).
  std::string now;
};

// The XML text, byte for byte what PTS's get_xml() would produce for the same model. Results
// without any Entry are skipped, as PTS does (the XSD requires at least one).
std::string SerializeResultFile(const ResultFile& file, const SerializeOptions& options = {});

// Serializes and replaces `path` atomically (temporary file + rename); on failure the previous
// file is untouched and ptsn::Error names `path`.
void WriteResultFile(const std::string& path, const ResultFile& file,
                     const SerializeOptions& options = {});

// "YYYY-MM-DD HH:MM:SS" in local time, the format of LastModified and TimeStamp.
std::string CurrentTimestamp();

}  // namespace ptsn::results
