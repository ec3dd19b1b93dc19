#include "runner/common/cpu_features.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace ptsn {

namespace {

struct Features {
  bool aes = false, sha = false, sse41 = false;
};

Features Read() {
  Features f;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a, b, c, d;
  if (__get_cpuid_count(1, 0, &a, &b, &c, &d)) {
    f.aes = (c & bit_AES) != 0;
    f.sse41 = (c & bit_SSE4_1) != 0;
  }
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) f.sha = (b & bit_SHA) != 0;
#endif
  return f;
}

const Features& Cpu() {
  static const Features f = Read();
  return f;
}

}  // namespace

bool CpuHasAesNi() { return Cpu().aes; }
bool CpuHasShaNi() { return Cpu().sha && Cpu().sse41; }

}  // namespace ptsn
