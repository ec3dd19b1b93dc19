#include "server/results/import_result.h"

#include "runner/common/error.h"
#include "runner/openbenchmarking/wire.h"

namespace ptsn::server {

namespace {

// The same ID holding the same bytes is what a repeated import leaves; anything else is refused.
ImportOutcome Existing(const StoredResult& stored, const std::string& sha1, const std::string& id) {
  if (stored.xml_sha1 == sha1) return ImportOutcome::kAlreadyStored;
  throw Error("import-result: ID " + id + " already holds a different result file (sha1 " + stored.xml_sha1 +
              ", this file " + sha1 + "); not replaced");
}

}  // namespace

ImportOutcome ImportResult(Storage& storage, const std::string& xml, const std::string& id, std::time_t now,
                           const UploadLimits& limits) {
  // PTS's shape of a result ID: it asks a server only for those (and we store under any other
  // path-safe ID only what our own uploads name).
  if (!wire::IsResultIdCompliant(id))
    throw Error("import-result: --id " + id + ": not an OpenBenchmarking result ID (like 1110088-AR-1110066AR56)");
  const std::string sha1 = wire::Sha1Hex(xml);
  if (auto stored = storage.Get(id)) return Existing(*stored, sha1, id);
  NewResult r;
  try {
    r.summary = CheckResultFile(xml, limits);
  } catch (const UploadRejected& e) {
    throw Error("import-result: " + e.message);
  }
  r.owner = "import";
  r.xml_sha1 = sha1;
  r.xml = xml;
  PackForStorage(r, std::nullopt);
  r.local_file_name = id;
  r.uploaded_at = now;
  try {
    storage.Insert(r, "import", [&](std::int64_t) { return id; });
  } catch (const StorageError& e) {
    // Another import of the same ID won the race: judge what it stored.
    if (auto stored = storage.Get(id)) return Existing(*stored, sha1, id);
    throw Error("import-result: " + std::string(e.what()));
  }
  return ImportOutcome::kStored;
}

}  // namespace ptsn::server
