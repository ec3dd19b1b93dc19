// Counting replacements of the global operator new/delete (test binary only). A separate
// translation unit, so the compiler does not see malloc and delete paired in one place.
#include "runner/monitor/test_allocations.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<long> allocations{0};
}

void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

long ptsn::monitor::test::AllocationCount() { return allocations.load(); }
