// What the x86 CPU offers, asked with CPUID when first needed. (GCC's __builtin_cpu_supports
// would link libgcc's constructor that asks for every feature at every start: ~20 CPUID
// instructions, each a trap to the hypervisor on a virtual machine, ~60 us of every command.)
#pragma once

namespace ptsn {

bool CpuHasAesNi();  // AES-NI
bool CpuHasShaNi();  // the SHA extensions and SSE4.1 (which their use needs)

}  // namespace ptsn
