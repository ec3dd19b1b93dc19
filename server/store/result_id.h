// OpenBenchmarking-style result IDs: `YYMMDDN-XX-STEMDIGITS`, 22 characters (spec section f).
// Our construction: YYMMDD = upload day (UTC), N = the hour of day scaled to one digit, XX = two
// upper-case letters from the uploader's name, then an upper-case letters-only stem of the
// title followed by the day's upload sequence number, zero-padded to fill 22 characters.
// Because the stem holds no digits, the trailing digit run is the sequence number, so two
// uploads of one day with different sequence numbers can never share an ID. The sequence
// number comes from the database (one counter row per day), not from process memory.
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <string_view>

#include "runner/openbenchmarking/wire.h"

namespace ptsn::server {

// The per-day counter key, "YYMMDD".
std::string DayKey(std::time_t when);

// Throws std::invalid_argument when `sequence` < 1 or cannot fit (more than 11 digits).
std::string FormatResultId(std::time_t when, int64_t sequence, std::string_view user, std::string_view title);

// The client-side check PTS applies; one implementation, shared with the client.
using wire::IsResultIdCompliant;

}  // namespace ptsn::server
