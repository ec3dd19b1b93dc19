#include "server/store/storage_sql.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <optional>

#include "runner/openbenchmarking/wire.h"
#include "runner/common/strings.h"
#include "server/store/storage.h"

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

namespace {

// zlib's levels 1-3 take the same time here and 3 packs real files tighter (76 KB of real PTS
// results: 5.2 KB against 6.0 KB at 1); 6 takes twice as long. Deflating and writing ~4 KB costs
// less CPU than writing 78 KB of plain XML into SQLite (~70 + 50 us against ~180 us, and ~20
// fewer pages to flush per upload); the database is 5-20x smaller; a fetch inflates the file
// again in ~20 us (and fetches are cached).
constexpr int kStoreDeflateLevel = 3;

// Deflaters kept between uploads (see wire::RawDeflater).
class DeflaterPool {
 public:
  // nullopt when zlib has no memory: the file is then stored as it is.
  std::optional<std::string> Deflate(std::string_view in) {
    try {
      std::unique_ptr<wire::RawDeflater> d = Take();
      std::string out = d->Deflate(in);
      std::lock_guard lock(mu_);
      if (free_.size() < kKeep) free_.push_back(std::move(d));
      return out;
    } catch (const std::bad_alloc&) {
      return std::nullopt;  // a deflater that failed is not kept
    }
  }

 private:
  static constexpr size_t kKeep = 8;  // uploads are deflated inside the FairGate: a few at a time
  std::unique_ptr<wire::RawDeflater> Take() {
    {
      std::lock_guard lock(mu_);
      if (!free_.empty()) {
        auto d = std::move(free_.back());
        free_.pop_back();
        return d;
      }
    }
    return std::make_unique<wire::RawDeflater>(kStoreDeflateLevel);
  }
  std::mutex mu_;
  std::vector<std::unique_ptr<wire::RawDeflater>> free_;
};

}  // namespace

void PackForStorage(NewResult& r, std::optional<std::string> client) {
  static DeflaterPool pool;
  if (!client || client->size() >= r.xml.size()) client = pool.Deflate(r.xml);
  if (client && client->size() < r.xml.size()) r.xml_deflated = std::move(client);
  else r.xml_deflated.reset();
}

std::string Storage::Insert(const NewResult& result, const std::string& day_key, const IdMaker& make_id,
                            const Dedupe& dedupe) {
  InsertRequest request{&result, day_key, make_id, "", "", dedupe};
  std::vector<InsertRequest*> batch{&request};
  InsertBatch(batch);
  if (!request.error.empty()) throw StorageError{request.error};
  return request.id;
}

}  // namespace ptsn::server

namespace ptsn::server {

std::int64_t SqlRow::Int(size_t i) const {
  const auto& v = cols.at(i);
  return v ? std::strtoll(v->c_str(), nullptr, 10) : 0;
}

double SqlRow::Real(size_t i) const {
  const auto& v = cols.at(i);
  return v ? std::strtod(v->c_str(), nullptr) : 0;
}

std::string ForDialect(const std::string& sql, SqlDialect dialect) {
  const bool pg = dialect == SqlDialect::kPostgres;
  std::string s = sql;
  auto replace = [&](const std::string& from, const std::string& to) {
    for (size_t pos; (pos = s.find(from)) != std::string::npos;) s.replace(pos, from.size(), to);
  };
  replace("{serial}", pg ? "BIGSERIAL PRIMARY KEY" : "INTEGER PRIMARY KEY");
  replace("{skip_locked}", pg ? " FOR UPDATE SKIP LOCKED" : "");
  return s;
}

}  // namespace ptsn::server
