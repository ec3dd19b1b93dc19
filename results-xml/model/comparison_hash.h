// PTS's comparison hash: the key that decides which results of different files (or runs) are
// "the same test" and line up in a merge (pts_test_result::get_comparison_hash(true, false)).
//
//   tp   = Result/Identifier without its last ".segment" (patch level), or Result/Title if empty
//   hash = hex sha1(tp "," trim(Arguments) "," trim(Description) "," trim(AppVersion) "," trim(Scale))
//
// So pts/x-1.0.0 and pts/x-1.0.3 line up, 1.1.0 does not; AppVersion or Scale changes split.
#pragma once

#include <string>
#include <string_view>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

// The text that is hashed (exposed for tests and diagnostics).
std::string ComparisonHashInput(const Result& result);

// 40 lower-case hex digits.
std::string ComparisonHash(const Result& result);

// Lower-case hex sha1 of arbitrary bytes (OpenSSL).
std::string Sha1Hex(std::string_view data);

}  // namespace ptsn::results
