#include "runner/openbenchmarking/wire.h"

#include <bzlib.h>
#include <libdeflate.h>
#include <openssl/evp.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <memory>
#include <cctype>
#include <limits>
#include <new>
#include <cstdio>

namespace ptsn::wire {

namespace {

std::string DigestHex(const EVP_MD* md, std::string_view bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest.data(), &len, md, nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 15];
  }
  return out;
}

}  // namespace

// OpenSSL's base64 (EVP_EncodeBlock / EVP_DecodeBlock), already linked for the digests.
std::string Base64Encode(std::string_view bytes) {
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max() / 4 * 3))
    throw WireError{"base64: input too large"};
  std::string out((bytes.size() + 2) / 3 * 4, '\0');
  EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), reinterpret_cast<const unsigned char*>(bytes.data()),
                  static_cast<int>(bytes.size()));
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text) {
  std::string clean;
  // Two memchr scans: find_first_of("\r\n") looks each character up in the set (~90k
  // instructions for an upload's 3 KB, four times the decoding itself).
  if (text.find('\n') != std::string_view::npos || text.find('\r') != std::string_view::npos) {
    clean.reserve(text.size());
    for (char c : text)
      if (c != '\r' && c != '\n') clean += c;
    text = clean;
  }
  // EVP_DecodeBlock takes '=' anywhere and skips blanks around the text: strict here instead.
  if (text.size() % 4 != 0 || text.size() > static_cast<size_t>(std::numeric_limits<int>::max())) return std::nullopt;
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') pad = text[text.size() - 2] == '=' ? 2 : 1;
  const size_t eq = text.find('=');
  if (eq != std::string_view::npos && eq != text.size() - pad) return std::nullopt;
  if (!text.empty() && (text.front() == ' ' || text.front() == '\t')) return std::nullopt;
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0 || static_cast<size_t>(n) != out.size()) return std::nullopt;
  out.resize(out.size() - pad);  // EVP_DecodeBlock counts the padding as zero bytes
  return out;
}

std::string Sha1Hex(std::string_view bytes) { return DigestHex(EVP_sha1(), bytes); }
std::string Sha256Hex(std::string_view bytes) { return DigestHex(EVP_sha256(), bytes); }

RawDeflater::RawDeflater(int level) : zs_(std::make_unique<z_stream>()) {
  if (deflateInit2(zs_.get(), level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::bad_alloc();
}

RawDeflater::~RawDeflater() { deflateEnd(zs_.get()); }

std::string RawDeflater::Deflate(std::string_view bytes) {
  if (bytes.size() > std::numeric_limits<uInt>::max() / 2) throw std::bad_alloc();  // zlib counts in 32 bits
  std::string out(deflateBound(zs_.get(), bytes.size()), '\0');
  zs_->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  zs_->avail_in = static_cast<uInt>(bytes.size());
  zs_->next_out = reinterpret_cast<Bytef*>(out.data());
  zs_->avail_out = static_cast<uInt>(out.size());
  const bool done = deflate(zs_.get(), Z_FINISH) == Z_STREAM_END;
  out.resize(zs_->total_out);
  if (deflateReset(zs_.get()) != Z_OK || !done) throw std::bad_alloc();
  return out;
}

std::string RawDeflate(std::string_view bytes, int level) { return RawDeflater(level).Deflate(bytes); }

// The decoders write straight into the result (no staging buffer and second copy), growing it
// geometrically from a guess of 16x the input (what result files compress to), capped at
// max_output + 1 so that one byte over the limit is seen.
namespace {
size_t NextCapacity(size_t have, size_t in_size, size_t max_output) {
  size_t want = have == 0 ? std::max<size_t>(in_size * 16, 128 * 1024) : have * 2;
  return std::min(want, max_output + 1);
}
}  // namespace

std::optional<std::string> RawInflate(std::string_view bytes, size_t max_output) {
  // libdeflate's whole-buffer decompression, about twice zlib's speed (an upload's 78 KB in
  // ~19 us where zlib's inflate took ~34 us). It needs its room up front: a first guess, then
  // twice that each time it runs short, up to max_output; a stream needing more is refused.
  struct Free {
    void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
  };
  std::unique_ptr<libdeflate_decompressor, Free> d(libdeflate_alloc_decompressor());
  if (!d) return std::nullopt;
  std::string out;
  // NextCapacity's guess and doubling, but never past max_output: libdeflate refuses what does not fit.
  size_t room = std::min(NextCapacity(0, bytes.size(), max_output), max_output);
  for (;;) {
    out.resize(room);
    size_t used = 0, produced = 0;  // bytes after the end of the stream are ignored, as zlib did
    const libdeflate_result rc = libdeflate_deflate_decompress_ex(d.get(), bytes.data(), bytes.size(), out.data(),
                                                                  out.size(), &used, &produced);
    if (rc == LIBDEFLATE_SUCCESS) {
      out.resize(produced);
      return out;
    }
    if (rc != LIBDEFLATE_INSUFFICIENT_SPACE || room >= max_output) return std::nullopt;  // bad, cut, or too big
    room = std::min(NextCapacity(room, bytes.size(), max_output), max_output);
  }
}

std::string Bzip2Compress(std::string_view bytes, int block_size) {
  unsigned int len = bytes.size() + bytes.size() / 100 + 600;
  std::string out(len, '\0');
  if (BZ2_bzBuffToBuffCompress(out.data(), &len, const_cast<char*>(bytes.data()), bytes.size(), block_size, 0, 0) !=
      BZ_OK)
    return {};
  out.resize(len);
  return out;
}

// libbz2's streaming decoder writing into a buffer that grows by doubling up to max_output + 1
// bytes: a stream that would produce more is refused as soon as it passes the bound (a small
// upload cannot expand into gigabytes). Bytes after the first stream's end are ignored.
std::optional<std::string> Bzip2Decompress(std::string_view bytes, size_t max_output) {
  if (bytes.size() > std::numeric_limits<unsigned>::max()) return std::nullopt;
  max_output = std::min(max_output, std::numeric_limits<size_t>::max() / 4);
  struct Stream : bz_stream {
    Stream() : bz_stream{} {}
    ~Stream() { BZ2_bzDecompressEnd(this); }
  };
  Stream bs;
  if (BZ2_bzDecompressInit(&bs, 0, 0) != BZ_OK) return std::nullopt;
  bs.next_in = const_cast<char*>(bytes.data());
  bs.avail_in = static_cast<unsigned>(bytes.size());
  std::string out;
  size_t produced = 0;
  int rc = BZ_OK;
  while (rc == BZ_OK) {
    if (produced == out.size()) {
      if (out.size() > max_output) break;  // the bound passed: refused
      out.resize(NextCapacity(out.size(), bytes.size(), max_output));
    }
    const size_t room = std::min<size_t>(out.size() - produced, std::numeric_limits<unsigned>::max());
    bs.next_out = out.data() + produced;
    bs.avail_out = static_cast<unsigned>(room);
    rc = BZ2_bzDecompress(&bs);
    produced += room - bs.avail_out;
    if (rc == BZ_OK && bs.avail_in == 0 && bs.avail_out != 0) rc = BZ_UNEXPECTED_EOF;  // cut short
  }
  if (rc != BZ_STREAM_END || produced > max_output) return std::nullopt;
  out.resize(produced);
  return out;
}

std::string UrlEncode(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.') {
      out += char(c);
    } else if (c == ' ') {
      out += '+';
    } else {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", c);
      out += hex;
    }
  }
  return out;
}

std::string EncodeForm(const FormFields& fields) {
  std::string out;
  for (const auto& [name, value] : fields) {
    if (!out.empty()) out += '&';
    out += UrlEncode(name) + '=' + UrlEncode(value);
  }
  return out;
}

namespace {

std::string UrlDecode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
  };
  for (size_t i = 0; i < s.size();) {
    // Plain runs (all of a base64 field but its '+' and '/') are copied whole.
    size_t special = i;
    while (special < s.size() && s[special] != '%' && s[special] != '+') ++special;
    out.append(s.data() + i, special - i);
    i = special;
    if (i == s.size()) break;
    if (s[i] == '+') {
      out += ' ';
      ++i;
      continue;
    }
    if (i + 2 >= s.size() || hex(s[i + 1]) < 0 || hex(s[i + 2]) < 0)
      throw WireError{"malformed %-escape in the form body"};
    out += char(hex(s[i + 1]) * 16 + hex(s[i + 2]));
    i += 3;
  }
  return out;
}

}  // namespace

FormFields DecodeForm(std::string_view body) {
  FormFields out;
  size_t start = 0;
  while (start <= body.size()) {
    size_t end = body.find('&', start);
    if (end == std::string_view::npos) end = body.size();
    std::string_view pair = body.substr(start, end - start);
    if (!pair.empty()) {
      size_t eq = pair.find('=');
      std::string name = UrlDecode(pair.substr(0, eq));
      std::string value = eq == std::string_view::npos ? "" : UrlDecode(pair.substr(eq + 1));
      out.emplace_back(std::move(name), std::move(value));
    }
    start = end + 1;
  }
  return out;
}

namespace {

// The value of parameter `name` in a header value ("multipart/form-data; boundary=xyz"), unquoted.
std::optional<std::string> HeaderParam(std::string_view value, std::string_view name) {
  size_t at = 0;
  while ((at = value.find(';', at)) != std::string_view::npos) {
    ++at;
    while (at < value.size() && (value[at] == ' ' || value[at] == '\t')) ++at;
    if (value.size() - at <= name.size() || value[at + name.size()] != '=') continue;
    bool same = true;
    for (size_t i = 0; i < name.size(); ++i)
      same = same && std::tolower(static_cast<unsigned char>(value[at + i])) == name[i];
    if (!same) continue;
    std::string_view v = value.substr(at + name.size() + 1);
    if (!v.empty() && v.front() == '"') {
      v.remove_prefix(1);
      return std::string(v.substr(0, v.find('"')));
    }
    return std::string(v.substr(0, v.find_first_of("; \t")));
  }
  return std::nullopt;
}

}  // namespace

FormFields DecodeMultipart(std::string_view body, std::string_view content_type) {
  const std::string boundary = HeaderParam(content_type, "boundary").value_or("");
  if (boundary.empty() || boundary.size() > 200) throw WireError{"multipart/form-data: no usable boundary in the Content-Type"};
  const std::string delimiter = "--" + boundary;
  FormFields out;
  size_t at = body.find(delimiter);
  if (at == std::string_view::npos) throw WireError{"multipart/form-data: the body has no part"};
  for (;;) {
    at += delimiter.size();
    if (body.substr(at, 2) == "--") return out;  // the closing delimiter
    if (body.substr(at, 2) != "\r\n") throw WireError{"multipart/form-data: a delimiter is not followed by a line break"};
    at += 2;
    const size_t head_end = body.find("\r\n\r\n", at);
    if (head_end == std::string_view::npos) throw WireError{"multipart/form-data: a part's headers do not end"};
    std::optional<std::string> name;
    for (std::string_view head = body.substr(at, head_end - at); !head.empty();) {
      size_t eol = head.find("\r\n");
      std::string_view line = head.substr(0, eol);
      head = eol == std::string_view::npos ? std::string_view() : head.substr(eol + 2);
      constexpr std::string_view kDisposition = "content-disposition:";
      if (line.size() < kDisposition.size()) continue;
      bool is_disposition = true;
      for (size_t i = 0; i < kDisposition.size(); ++i)
        is_disposition = is_disposition && std::tolower(static_cast<unsigned char>(line[i])) == kDisposition[i];
      if (!is_disposition) continue;
      std::string_view v = line.substr(kDisposition.size());
      // The parameter search needs a ';' before each name: "form-data; name=..." has it.
      name = HeaderParam(v, "name");
    }
    if (!name) throw WireError{"multipart/form-data: a part has no name"};
    const size_t content = head_end + 4;
    const size_t next = body.find("\r\n" + delimiter, content);
    if (next == std::string_view::npos) throw WireError{"multipart/form-data: part '" + name->substr(0, 64) + "' does not end"};
    out.emplace_back(std::move(*name), std::string(body.substr(content, next - content)));
    at = next + 2;
  }
}

FormFields EncodeUpload(const Upload& upload) {
  FormFields fields{{"r", "upload_test_result"}, {"client_version", "10860"}};
  // Above 10 000 bytes raw DEFLATE, as a stock PTS sends it (Debian's php-cli has zlib but not
  // bzip2). PTS with PHP's bz2 extension sends bzip2 above 40 000 bytes; servers take both, and
  // ours stores DEFLATE as sent.
  if (upload.xml.size() > 10000) {
    fields.emplace_back("composite_xml_gz", Base64Encode(RawDeflate(upload.xml, 9)));
  } else {
    fields.emplace_back("composite_xml", Base64Encode(upload.xml));
  }
  fields.emplace_back("composite_xml_hash", Sha1Hex(upload.xml));
  if (!upload.local_file_name.empty()) fields.emplace_back("local_file_name", upload.local_file_name);
  if (upload.system_logs_zip) {
    std::string logs = Base64Encode(*upload.system_logs_zip);
    fields.emplace_back("system_logs_hash", Sha1Hex(logs));
    fields.emplace_back("system_logs_zip", std::move(logs));
  }
  if (upload.unlisted) fields.emplace_back("unlisted", "1");
  return fields;
}

Upload DecodeUpload(const FieldLookup& field, size_t max_xml_bytes) {
  Upload out;
  std::optional<std::string> xml;
  std::string which;
  // Base64 grows data by 4/3; a compressed body can expand, so the plain size is checked after.
  for (const char* name : {"composite_xml", "composite_xml_gz", "composite_xml_bz"}) {
    auto value = field(name);
    if (!value) continue;
    if (!which.empty()) throw WireError{"only one of composite_xml, composite_xml_gz, composite_xml_bz may be sent"};
    which = name;
    auto bytes = Base64Decode(*value);
    if (!bytes) throw WireError{which + ": not valid base64 (truncated or bad characters)"};
    if (which == "composite_xml_gz") {
      xml = RawInflate(*bytes, max_xml_bytes);
      if (!xml) throw WireError{which + ": not a raw DEFLATE stream, truncated, or over " + std::to_string(max_xml_bytes) + " bytes"};
      out.xml_deflated = std::move(bytes);
    } else if (which == "composite_xml_bz") {
      xml = Bzip2Decompress(*bytes, max_xml_bytes);
      if (!xml) throw WireError{which + ": not a bzip2 stream, truncated, or over " + std::to_string(max_xml_bytes) + " bytes"};
    } else {
      xml = std::move(bytes);
    }
  }
  if (!xml) throw WireError{"missing composite_xml (or composite_xml_gz / composite_xml_bz)"};
  if (xml->size() > max_xml_bytes)
    throw WireError{which + ": result file is over the limit of " + std::to_string(max_xml_bytes) + " bytes"};
  auto hash = field("composite_xml_hash");
  if (!hash) throw WireError{"missing composite_xml_hash"};
  out.xml_sha1 = Sha1Hex(*xml);
  if (out.xml_sha1 != *hash) throw WireError{"composite_xml_hash: does not match the sha1 of the result file"};
  out.xml = std::move(*xml);
  if (auto logs = field("system_logs_zip"); logs && !logs->empty()) {
    auto logs_hash = field("system_logs_hash");
    if (!logs_hash || Sha1Hex(*logs) != *logs_hash)
      throw WireError{"system_logs_hash: missing or does not match the sha1 of system_logs_zip"};
    auto zip = Base64Decode(*logs);
    if (!zip) throw WireError{"system_logs_zip: not valid base64"};
    out.system_logs_zip = std::move(zip);
  }
  out.local_file_name = field("local_file_name").value_or("");
  auto unlisted = field("unlisted");
  out.unlisted = unlisted && (*unlisted == "1" || *unlisted == "true");
  return out;
}

bool IsResultIdCompliant(std::string_view id) {
  auto all_of = [](std::string_view part, int (*pred)(int)) {
    if (part.empty()) return false;
    for (unsigned char c : part)
      if (!pred(c)) return false;
    return true;
  };
  if (id.size() != 22) return false;
  size_t a = id.find('-');
  if (a == std::string_view::npos) return false;
  size_t b = id.find('-', a + 1);
  if (b == std::string_view::npos || id.find('-', b + 1) != std::string_view::npos) return false;
  std::string_view p0 = id.substr(0, a), p1 = id.substr(a + 1, b - a - 1), p2 = id.substr(b + 1);
  return p0.size() == 7 && all_of(p0, isdigit) && p1.size() >= 2 && p1.size() <= 8 && all_of(p1, isalnum) &&
         all_of(p2, isalnum);
}

}  // namespace ptsn::wire
