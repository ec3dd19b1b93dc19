// The result-file reader as the server runs it on an upload (server::CheckResultFile: ReadLimits
// bounds, the XSD's structure, validation), and two oracles on the same bytes:
//  * streaming and the whole-model read agree: the same error, or both accept;
//  * a file the reader accepts is written and read back to the same text (Serialize(Parse(x)) is
//    a fixed point of Parse then Serialize).
// An accepted file also goes through the verdicts view (compare-results --paired), which reads
// the trials and each entry's JSON ("verdict-looks") of any file it is given.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "results-xml/model/result_xml.h"
#include "results-xml/stats/verdict.h"
#include "runner/common/error.h"
#include "server/store/upload_check.h"

namespace {

using namespace ptsn::results;

struct Ignore : ResultVisitor {
  void Head(const ResultFile&) override {}
  void OnResult(const Result&) override {}
};

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "oracle failed: %s\n", what.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  try {
    ptsn::server::CheckResultFile(xml);
  } catch (const ptsn::server::UploadRejected&) {
  }

  const ptsn::server::UploadLimits upload;
  const ReadLimits limits{.max_depth = upload.max_depth, .max_nodes = upload.max_nodes,
                          .max_value_bytes = upload.max_value_bytes, .schema_structure = true};
  std::string whole_error, stream_error;
  ResultFile file;
  try {
    file = ParseResultFile(xml, "fuzz.xml", limits);
  } catch (const ptsn::Error& e) {
    whole_error = e.what();
  }
  bool streamed = false;
  try {
    Ignore ignore;
    streamed = StreamResultFile(xml, "fuzz.xml", ignore, limits);
  } catch (const ptsn::Error& e) {
    stream_error = e.what();
  }
  // (A stream that stopped at a <System> after a <Result> says so with false; the whole read decides.)
  if (streamed || !stream_error.empty()) {
    if (stream_error != whole_error) Fail("stream error '" + stream_error + "' vs whole-file error '" + whole_error + "'");
  }
  if (!whole_error.empty()) return 0;

  const SerializeOptions keep{.keep_as_read = true};
  const std::string once = SerializeResultFile(file, keep);
  std::string twice;
  try {
    twice = SerializeResultFile(ParseResultFile(once, "written.xml"), keep);
  } catch (const ptsn::Error& e) {
    Fail(std::string("the written file does not read back: ") + e.what());
  }
  if (twice != once) Fail("written, read and written again differs");
  (void)VerdictView(file, {});
  return 0;
}
