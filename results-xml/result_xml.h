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
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "results-xml/result_file.h"

namespace ptsn::results {

// What PTS 10.8.6 stamps into a file it saves (pts_core::program_title()).
inline constexpr const char* kPtsProgramTitle = "Phoronix Test Suite v10.8.6";

// Parses a composite.xml. `source_name` is the file name used in error messages.
// Throws ptsn::Error "SOURCE: line N: what is wrong" on: malformed or truncated XML, bytes that
// are not UTF-8, any DOCTYPE (entity declarations are how XML bombs and external-entity reads
// start; result files never carry one), entity references, a root other than
// <PhoronixTestSuite>, a missing or duplicated required element, an element inside a leaf
// element. Unknown elements (with all they hold) and attributes are skipped and noted.
// Never touches the network or the file system beyond `xml`.
ResultFile ParseResultFile(std::string_view xml, const std::string& source_name);

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
ResultFile ParseResultFile(std::string_view xml, const std::string& source_name, const ReadLimits& limits);

// Reads and parses the file at `path` (errors name `path`).
ResultFile ReadResultFile(const std::string& path);
// The same into `into`, whose Results (strings, entries) are reused for the new ones: reading many
// files one after another into one model allocates little after the first. On an error `into`
// holds some valid model.
void ReadResultFile(const std::string& path, ResultFile& into);

// Every read goes first through the fast reader for plain XML (fast_xml.h), then through
// libxml2 where it gives up: the same result and errors either way. On by default (setting
// results.fast_xml); this overrides the setting for the process (tests, benchmarks).
void UseFastXmlReader(bool on);

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

  // Reading one file on several cores (StreamResultFile with threads > 1): the file is cut into
  // stretches of Results, this visitor is given the first and a fork of it each later one, fed
  // by whichever thread reads that stretch (the calling thread included); the forks are then
  // joined back in file order.
  //  * CanFork(): whether Fork() works (asked before the read starts).
  //  * Fork(): on the calling thread, right after Head. The fork is given OnResult calls only,
  //    for Results that come after at least one Result given to this visitor.
  //  * Join(fork): on the calling thread, once this visitor (with the forks joined before) has
  //    had every Result before the fork's. It must leave this visitor as if it had been given
  //    the fork's Results itself. Its exceptions are this visitor's and propagate; a fork's own
  //    exception is not: that stretch is then read again, by this visitor.
  //  * Adopt(fork): on the calling thread before Join, once this visitor (with the forks joined
  //    before) has had every Result before the fork's, while the fork may still be running on its
  //    thread. true: the visitor has taken what the fork made so far and lets the fork carry on
  //    into the visitor's own destination (an export's output), so that work overlaps the fork's
  //    rest. The fork's stretch can then no longer be read again: if it does not end cleanly,
  //    StreamResultFile returns false (the caller falls back to the whole-file read, which meets
  //    the same error). false (the default): nothing changes.
  virtual bool CanFork() const { return false; }
  virtual std::unique_ptr<ResultVisitor> Fork() { return nullptr; }
  virtual bool Adopt(ResultVisitor& fork) {
    (void)fork;
    return false;
  }
  virtual void Join(ResultVisitor& fork) { (void)fork; }
};

// Unknown elements and attributes a read skipped are noted once per file (source name) and
// process: "SOURCE: line N: unknown element <X> in <Result> (and M more) ignored: ...". By default
// the note is one line on standard error ("pts-native: warning: ..."); `handler` (nullptr: the
// default again) takes it instead. Setting one forgets which files were noted.
using ReadNoticeHandler = std::function<void(const std::string& message)>;
void SetReadNoticeHandler(ReadNoticeHandler handler);

// Parses `xml` as ParseResultFile does (same checks, same errors), feeding `visitor` as it goes.
// Returns false, having stopped early, when a <Generated> or <System> follows a <Result> (legal,
// never written by PTS): the caller then discards what it was given and uses the whole-file
// ParseResultFile instead. On an error the visitor may have seen part of the file. With several
// threads, false also when a stretch whose fork was adopted (ResultVisitor::Adopt) did not end
// cleanly: the whole-file read then reports the error.
struct StreamOptions {
  // > 1 with a visitor that CanFork(): the file is cut at top-level <Result> tags into
  // stretches parsed (and visited) by `threads` threads side by side. The outcome is the single-threaded
  // read's: the same Results in the same order, the same error, the same false. Only for files
  // of at least min_parallel_bytes.
  unsigned threads = 1;
  size_t min_parallel_bytes = 256 << 10;  // below this a parse takes about a millisecond
  // The file is cut into up to stretches_per_thread stretches per thread, none smaller than about
  // min_stretch_bytes (but at least one per thread); each thread takes the next unread stretch
  // when it is done with one, so a thread on a slower core reads fewer of them.
  unsigned stretches_per_thread = 4;
  size_t min_stretch_bytes = 128 << 10;
  // Where the first cut goes, as a share of the file (the others are spaced evenly after it);
  // 0: stretches of equal size.
  double first_share = 0;
};
bool StreamResultFile(std::string_view xml, const std::string& source_name, ResultVisitor& visitor,
                      const StreamOptions& options = {});
// The same single-threaded, under the bounds of `limits` (ParseResultFile's, same errors): a
// check that needs no model of the whole file (the server's upload check).
bool StreamResultFile(std::string_view xml, const std::string& source_name, ResultVisitor& visitor,
                      const ReadLimits& limits);

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
