#include "server/storage_sql.h"

#include "runner/client/wire.h"
#include "runner/common/strings.h"
#include "server/storage.h"

namespace ptsn::server::sql {

std::string ContainsPattern(const std::string& needle) {
  if (needle.empty()) return "";
  std::string out = "%";
  for (char c : ToLower(needle)) {
    if (c == '%' || c == '_' || c == '!') out += '!';
    out += c;
  }
  return out + "%";
}

std::string JoinSummary(const std::vector<std::string>& parts) { return Join(parts, ", "); }

std::string WithBlobType(const char* ddl, const char* blob_type) {
  std::string s = ddl;
  for (size_t pos; (pos = s.find("{blob}")) != std::string::npos;) s.replace(pos, 6, blob_type);
  return s;
}

namespace {
constexpr std::string_view kDeflatedTag("\0deflate\n", 9);
}

std::string_view StoredXml(const NewResult& r, std::string& scratch) {
  if (!r.xml_deflated) return r.xml;
  scratch.reserve(kDeflatedTag.size() + r.xml_deflated->size());
  scratch.assign(kDeflatedTag);
  scratch += *r.xml_deflated;
  return scratch;
}

std::string XmlFromStored(std::string stored) {
  if (!std::string_view(stored).starts_with(kDeflatedTag)) return stored;
  // Checked against the upload's hash when it was stored; the bound only guards a damaged row.
  auto xml = wire::RawInflate(std::string_view(stored).substr(kDeflatedTag.size()), size_t{1} << 31);
  if (!xml) throw StorageError{"a stored result file is damaged (its DEFLATE data does not inflate)"};
  return std::move(*xml);
}

}  // namespace ptsn::server::sql

namespace ptsn::server {

std::string Storage::Insert(const NewResult& result, const std::string& day_key, const IdMaker& make_id) {
  InsertRequest request{&result, day_key, make_id, "", ""};
  std::vector<InsertRequest*> batch{&request};
  InsertBatch(batch);
  if (!request.error.empty()) throw StorageError{request.error};
  return request.id;
}

}  // namespace ptsn::server
