// The OpenBenchmarking wire format shared by client and server: how a result upload is encoded
// into form fields (base64, raw DEFLATE or bzip2 as PTS chooses, sha1 of the plain XML) and how
// a server decodes and checks those fields. No network here: both sides call these functions.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct z_stream_s;  // zlib's z_stream

namespace ptsn::wire {

// A decoding failure a client caused; the message is meant for the HTTP response.
struct WireError {
  std::string message;
};

std::string Base64Encode(std::string_view bytes);
// Strict: rejects characters outside the alphabet, bad padding and truncated input. Ignores
// CR/LF (PHP's base64_encode never writes them, but line-wrapped input is common).
std::optional<std::string> Base64Decode(std::string_view text);

std::string Sha1Hex(std::string_view bytes);
std::string Sha256Hex(std::string_view bytes);

// Raw DEFLATE (PHP gzdeflate) and bzip2 (PHP bzcompress). The decoders stop at `max_output`
// bytes and return nullopt then, so a small body cannot expand into gigabytes.
std::string RawDeflate(std::string_view bytes, int level = 9);
// RawDeflate with its zlib state (~270 KB) kept for the next file and reset, instead of
// allocated, faulted in and freed for each one (half the cost of a 78 KB upload's deflate).
class RawDeflater {
 public:
  explicit RawDeflater(int level = 9);  // throws std::bad_alloc when zlib has no memory
  ~RawDeflater();
  RawDeflater(const RawDeflater&) = delete;
  RawDeflater& operator=(const RawDeflater&) = delete;
  // Throws std::bad_alloc when zlib fails (it fails only for memory).
  std::string Deflate(std::string_view bytes);

 private:
  std::unique_ptr<z_stream_s> zs_;
};
std::optional<std::string> RawInflate(std::string_view bytes, size_t max_output);
std::string Bzip2Compress(std::string_view bytes, int block_size = 8);
std::optional<std::string> Bzip2Decompress(std::string_view bytes, size_t max_output);
// The same through libbz2's streaming API, as the server decoded every upload before Bunzip2
// (bunzip2.h): Bunzip2 hands it streams with the obsolete "randomised" blocks; tests and
// benchmarks compare against it.
std::optional<std::string> Libbz2Bunzip2(std::string_view bytes, size_t max_output);

using FormFields = std::vector<std::pair<std::string, std::string>>;

// application/x-www-form-urlencoded, as PHP's http_build_query writes it.
std::string UrlEncode(std::string_view s);
std::string EncodeForm(const FormFields& fields);
// The inverse ('+' is a space); throws WireError on a malformed %-escape.
FormFields DecodeForm(std::string_view body);
// multipart/form-data (RFC 7578), as `curl -F` and browsers send forms: each part's content under
// its name (file parts too; their file name is not kept). `content_type` is the request's
// Content-Type header, which names the boundary. Throws WireError on a malformed body.
FormFields DecodeMultipart(std::string_view body, std::string_view content_type);

struct Upload {
  std::string xml;                         // composite.xml exactly as saved
  std::string local_file_name;             // the saved result's directory name
  std::optional<std::string> system_logs_zip;  // raw zip bytes
  bool unlisted = false;                   // our extension: keep out of listings and search
  std::string xml_sha1;                    // set by DecodeUpload (it checks it); not sent
  std::optional<std::string> xml_deflated; // set by DecodeUpload: the composite_xml_gz bytes
};

// The fields `r=upload_test_result` carries, compressed as PTS 10.8.6 does without PHP's bz2
// extension (Debian's default): raw DEFLATE above 10 000 bytes, plain otherwise (never bzip2,
// which DecodeUpload still accepts). `r` and `client_version` included.
FormFields EncodeUpload(const Upload& upload);

// Field access for the decoder (the server passes its parsed form).
using FieldLookup = std::function<std::optional<std::string>(const std::string& name)>;

// Decodes composite_xml / composite_xml_gz / composite_xml_bz, checks composite_xml_hash
// (sha1 of the plain XML) and system_logs_hash (sha1 of the base64 text) when logs are given.
// Throws WireError naming the field at fault.
Upload DecodeUpload(const FieldLookup& field, size_t max_xml_bytes);

// The shape PTS requires of a result ID before it asks a server
// (pts_openbenchmarking::is_string_openbenchmarking_result_id_compliant): 22 characters, three
// dash-separated parts — 7 digits, 2..8 alphanumerics, alphanumerics ("1110088-AR-1110066AR56").
// Says nothing about whether any server knows the ID.
bool IsResultIdCompliant(std::string_view id);

}  // namespace ptsn::wire
