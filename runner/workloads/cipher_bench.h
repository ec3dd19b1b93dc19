// The cipher benchmark: encrypt (then decrypt) sector buffers for a fixed time on N threads,
// each with its own cipher context, and report MiB/s summed over threads. Plus PBKDF2
// iterations per second as `cryptsetup benchmark` reports them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/workloads/cipher.h"
#include "runner/workloads/report.h"

namespace ptsn::workloads {

struct CipherBenchOptions {
  CipherInfo cipher;
  std::optional<Backend> backend;  // nullopt = auto: the faster of OpenSSL and libgcrypt here
  std::string kernel_driver;       // kernel backend: this implementation by driver name ("" = the kernel's choice)
  size_t block_size = 4096;        // sector size; one IV per sector
  int threads = 1;
  double seconds = 3;              // per direction
  bool encrypt = true;
  bool decrypt = true;
  size_t buffer_bytes = 64 * 1024;  // sectors processed between clock checks (stays in L2)
};

struct CipherBenchResult {
  Backend backend = Backend::kOpenSsl;
  bool auto_chosen = false;
  std::string calibration;  // "openssl 1234.5 MiB/cpu-s, gcrypt 2345.6 MiB/cpu-s (...)" when auto chose
  std::optional<double> encrypt_mib_per_s;
  std::optional<double> decrypt_mib_per_s;
  double encrypt_seconds = 0, decrypt_seconds = 0;
  double encrypt_mib_per_cpu_s = 0, decrypt_mib_per_cpu_s = 0;  // per CPU-second of the workers
};

// Throws ptsn::Error for an unavailable backend/cipher, or when decryption does not give back
// the plaintext (a cipher that computes the wrong thing must not produce a figure).
CipherBenchResult RunCipherBench(const CipherBenchOptions& options);

// Auto backend: short single-threaded encryption runs of each backend offering the cipher,
// compared per CPU-second (load-independent); `calibration` gets the figures.
Backend ChooseBackend(const CipherInfo& cipher, size_t block_size, std::string* calibration);
struct CalibrationSample {
  Backend backend;
  double mib_per_cpu_s;
};
// The backend of the fastest sample: a sample is only ever slowed down by other work, so the best
// one of each backend is its truest figure.
Backend FasterBackend(const std::vector<CalibrationSample>& samples);

struct Pbkdf2Result {
  std::string hash;  // "sha256" / "sha512"
  double iterations_per_second = 0;       // per CPU-second (user time), as cryptsetup counts
  double iterations_per_wall_second = 0;  // the same run by the wall clock
  uint64_t iterations = 0;                // of the run both figures come from
};
// Iterations per second deriving a 256-bit key, measured as `cryptsetup benchmark` does
// (lib/utils_pbkdf.c): one derivation of 2^15 iterations, grown x16/x8/x4/x2 until one run takes
// more than `min_cpu_seconds` (cryptsetup: 0.5) of user CPU time, and the figure is that last
// run's iterations per user-CPU-second. backend: OpenSSL or gcrypt.
Pbkdf2Result RunPbkdf2(const std::string& hash, Backend backend, double min_cpu_seconds = 0.5);
// The growth step: the iterations for the next run after `iterations` took `taken` seconds.
uint64_t NextPbkdf2Iterations(uint64_t iterations, double taken, double min_cpu_seconds);

// A random key of `bits`; XTS keys get two different halves (OpenSSL rejects equal halves).
std::vector<uint8_t> RandomKey(size_t bits);

}  // namespace ptsn::workloads

namespace ptsn::workloads {

Report CipherReport(const CipherBenchOptions& options, const CipherBenchResult& result, bool aesni_disabled);
Report Pbkdf2Report(const std::vector<Pbkdf2Result>& results, Backend backend);

}  // namespace ptsn::workloads

namespace ptsn::workloads {
// "PBKDF2-sha256    1234567 iterations per second for 256-bit key" (cryptsetup's spacing).
std::string Pbkdf2Text(const std::vector<Pbkdf2Result>& results);
}  // namespace ptsn::workloads
