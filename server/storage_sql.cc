#include "server/storage_sql.h"

#include <zlib.h>

#include <limits>
#include <memory>
#include <mutex>
#include <optional>

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

namespace {

// zlib's levels 1-3 take the same time here and 3 packs real files tighter (76 KB of real PTS
// results: 5.2 KB against 6.0 KB at 1); 6 takes twice as long. Deflating and writing ~4 KB costs
// less CPU than writing 78 KB of plain XML into SQLite (~70 + 50 us against ~180 us, and ~20
// fewer pages to flush per upload); the database is 5-20x smaller; a fetch inflates the file
// again in ~20 us (and fetches are cached).
constexpr int kStoreDeflateLevel = 3;

// Raw DEFLATE streams kept between uploads and reset: zlib's state (~270 KB) made afresh for
// each upload came from mmap and was faulted in each time, half the cost of the deflate.
class DeflaterPool {
 public:
  // nullopt when zlib fails (no memory): the file is then stored as it is.
  std::optional<std::string> Deflate(std::string_view in) {
    if (in.size() > std::numeric_limits<uInt>::max() / 2) return std::nullopt;  // zlib counts in 32 bits
    std::unique_ptr<z_stream, End> zs = Take();
    if (!zs) return std::nullopt;
    std::string out(deflateBound(zs.get(), in.size()), '\0');
    zs->next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs->avail_in = static_cast<uInt>(in.size());
    zs->next_out = reinterpret_cast<Bytef*>(out.data());
    zs->avail_out = static_cast<uInt>(out.size());
    const bool done = deflate(zs.get(), Z_FINISH) == Z_STREAM_END;
    out.resize(zs->total_out);
    if (deflateReset(zs.get()) == Z_OK) {
      std::lock_guard lock(mu_);
      if (free_.size() < kKeep) free_.push_back(std::move(zs));
    }
    if (!done) return std::nullopt;
    return out;
  }

 private:
  struct End {
    void operator()(z_stream* zs) const {
      deflateEnd(zs);
      delete zs;
    }
  };
  static constexpr size_t kKeep = 8;  // uploads are deflated inside the FairGate: a few at a time
  std::unique_ptr<z_stream, End> Take() {
    {
      std::lock_guard lock(mu_);
      if (!free_.empty()) {
        auto zs = std::move(free_.back());
        free_.pop_back();
        return zs;
      }
    }
    auto zs = std::make_unique<z_stream>();
    if (deflateInit2(zs.get(), kStoreDeflateLevel, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return nullptr;
    return std::unique_ptr<z_stream, End>(zs.release());
  }
  std::mutex mu_;
  std::vector<std::unique_ptr<z_stream, End>> free_;
};

}  // namespace

void PackForStorage(NewResult& r, std::optional<std::string> client) {
  static DeflaterPool pool;
  if (!client || client->size() >= r.xml.size()) client = pool.Deflate(r.xml);
  if (client && client->size() < r.xml.size()) r.xml_deflated = std::move(client);
  else r.xml_deflated.reset();
}

std::string Storage::Insert(const NewResult& result, const std::string& day_key, const IdMaker& make_id) {
  InsertRequest request{&result, day_key, make_id, "", ""};
  std::vector<InsertRequest*> batch{&request};
  InsertBatch(batch);
  if (!request.error.empty()) throw StorageError{request.error};
  return request.id;
}

}  // namespace ptsn::server
