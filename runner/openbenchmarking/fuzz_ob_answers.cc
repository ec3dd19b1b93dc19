// libFuzzer target: the decoders of what a server answers (repository index, acquire_test,
// clone, upload, is_openbenchmarking_result). Whatever the bytes, each returns a value or throws
// ProtocolError; an acquired zip is only ever returned with the sha1 the answer named.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "runner/openbenchmarking/protocol.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  using namespace ptsn::ob;
  try {
    RepoIndexDoc index = DecodeRepoIndex(text);
    DecodeRepoIndex(EncodeRepoIndex(index));  // what we encode we read back
  } catch (const ProtocolError&) {
  }
  try {
    AcquiredTest t = DecodeAcquireTest(text, "pts/x-1.0.0");
    if (ptsn::wire::Sha1Hex(t.zip) != t.sha1) std::abort();
  } catch (const ProtocolError&) {
  }
  try {
    DecodeClonedResult(text, "X");
  } catch (const ProtocolError&) {
  }
  try {
    DecodeUploadAnswer(text);
  } catch (const ProtocolError&) {
  }
  DecodeIsResult(text);
  ErrorMessage(text);
  return 0;
}
