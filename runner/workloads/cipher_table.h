// The kernel's cipher implementations side by side (`workload cipher-table`, the published
// comparison 5) as a result file: one System per implementation ("generic", "aesni", "sse2",
// "3way"...), one Result per cipher and direction, so the usual views, comparisons and merges
// work on it.
#pragma once

#include <string>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::workloads {

// One row of the table: a cipher through one kernel driver, MiB/s of each trial.
struct CipherTableRow {
  std::string cipher;  // "aes-128-cbc"
  std::string driver;  // "cbc(aes-generic)", "xts-aes-aesni"
  std::vector<double> encrypt, decrypt;
};

// The implementation a driver stands for, the name of its System: the innermost driver with the
// mode and the cipher left out. "cbc(aes-generic)" and "xts(ecb(aes-generic))" -> "generic",
// "xts-aes-aesni" -> "aesni", "xts(ecb-serpent-sse2)" -> "sse2", "cbc(twofish-asm)" -> "asm".
std::string ImplementationOf(const std::string& driver);

// The table as a result file: `base` (this machine's System) once per implementation, its Notes
// naming the driver of each cipher; a Result "Native Cipher Throughput" per cipher and direction
// (as native/cipher's with the kernel backend), its trials as the entries' raw values. Where one
// implementation has several drivers of a cipher (xts-aes-aesni and the template
// xts(ecb(aes-aesni))), its own driver is kept (the fewest templates; then the first listed);
// `skipped` gets the others.
results::ResultFile CipherTableFile(const std::vector<CipherTableRow>& rows, const results::System& base,
                                    size_t block_size, std::vector<std::string>* skipped = nullptr);

}  // namespace ptsn::workloads
