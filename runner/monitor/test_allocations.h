// Heap allocations made by the test binary so far (test_allocations.cc replaces operator new),
// so a test can show that sampling allocates nothing per sample.
#pragma once

namespace ptsn::monitor::test {
long AllocationCount();
}  // namespace ptsn::monitor::test
