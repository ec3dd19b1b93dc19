// Storing a result published elsewhere (an OpenBenchmarking.org result, a colleague's file)
// under its original ID, so that clients clone it by the ID they know:
// `pts-native-server import-result FILE --id ID`. Checked as an upload is; importing the same
// file again is a no-op; an ID that already holds a different file is refused.
#pragma once

#include <ctime>
#include <string>

#include "server/store/storage.h"
#include "server/store/upload_check.h"

namespace ptsn::server {

enum class ImportOutcome { kStored, kAlreadyStored };

// Throws ptsn::Error: not a valid result file (the reason), an ID of the wrong shape, or an ID
// taken by another file (naming both sha1s).
ImportOutcome ImportResult(Storage& storage, const std::string& xml, const std::string& id, std::time_t now,
                           const UploadLimits& limits = {});

}  // namespace ptsn::server
