// Forwarding header: the wire format moved to runner/openbenchmarking/wire.h. Only bunzip2.cc
// (and its test) still include this path; both go when libbz2 replaces our decoder (issue 24),
// and this file with them.
#pragma once
#include "runner/openbenchmarking/wire.h"
