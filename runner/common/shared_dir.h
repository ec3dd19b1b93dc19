// Where the shared reference tree is (PTS's golden outputs, schemas, the profile corpus): the
// PTSN_SHARED_DIR environment variable when set (PTSN_SHARED_DIR=/nonexistent runs the tests as
// a clone without ../shared beside it would), else the ../shared the build was configured with.
// Conformance tests read it and skip, saying so, when it is absent; validation takes its schemas.
#pragma once

#include <string>

namespace ptsn {

std::string SharedDir();

}  // namespace ptsn
