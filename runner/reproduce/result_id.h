// Recognising what `run <ID>` was given: an OpenBenchmarking-style result ID
// (`1110088-AR-1110066AR56`) as opposed to a test profile, suite or path.
#pragma once

#include <string_view>

#include "runner/openbenchmarking/wire.h"

namespace ptsn::reproduce {

// The client-side shape check PTS applies before asking a server (22 characters, three
// dash-separated parts: 7 digits, 2..8 alphanumerics, alphanumerics). Says nothing about
// whether any server knows the ID.
inline bool IsOpenBenchmarkingId(std::string_view s) { return wire::IsResultIdCompliant(s); }

}  // namespace ptsn::reproduce
