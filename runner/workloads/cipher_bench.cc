#include "runner/workloads/cipher_bench.h"

#include <gcrypt.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <ctime>
#include <latch>
#include <thread>
#include <vector>

#include "runner/common/error.h"
#include "runner/workloads/units.h"

namespace ptsn::workloads {
namespace {

using Clock = std::chrono::steady_clock;

std::vector<uint8_t> RandomBytes(size_t n) {
  std::vector<uint8_t> v(n);
  if (n && RAND_bytes(v.data(), static_cast<int>(n)) != 1) throw Error("OpenSSL: RAND_bytes failed");
  return v;
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

struct ThreadTally {
  uint64_t bytes = 0;
  double seconds = 0;
  double cpu_seconds = 0;
  std::string error;
};

// Runs one direction on every thread; returns MiB/s summed over threads. `per_cpu` gets MiB per
// CPU-second of the worker threads: the figure that stays comparable on a machine shared with
// other work.
double TimedRun(const CipherBenchOptions& o, Backend backend, bool encrypt, double seconds, double* elapsed,
                double* per_cpu = nullptr) {
  size_t sectors = std::max<size_t>(1, o.buffer_bytes / o.block_size);
  size_t size = sectors * o.block_size;
  std::vector<uint8_t> key = RandomKey(o.cipher.key_bits);
  std::vector<ThreadTally> tally(o.threads);
  std::latch ready(o.threads + 1);
  std::atomic<bool> go{false};
  Clock::time_point deadline;
  std::vector<std::thread> workers;
  for (int t = 0; t < o.threads; ++t) {
    workers.emplace_back([&, t] {
      ThreadTally& me = tally[t];
      bool counted = false;
      try {
        auto cipher = MakeSectorCipher(o.cipher, backend, key, o.block_size, o.kernel_driver);
        std::vector<uint8_t> plain = RandomBytes(size), in = plain, out(size), tags(sectors * 16);
        if (!encrypt) {
          // Decrypt real ciphertext (with valid tags) and check the first round trip.
          cipher->Encrypt(0, plain.data(), in.data(), size, tags.data());
          if (!cipher->Decrypt(0, in.data(), out.data(), size, tags.data()) || out != plain)
            throw Error(o.cipher.name + " (" + BackendName(backend) + "): decrypt(encrypt(x)) != x");
        }
        ready.count_down();
        counted = true;
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        double cpu0 = ThreadCpuSeconds();
        auto start = Clock::now(), now = start;
        // The common deadline keeps the threads' runs overlapping; a thread that the scheduler
        // starts late (a loaded machine) still runs the full time, so that its rate is measured
        // over `seconds`, not over a single buffer.
        const Clock::time_point until =
            std::max(deadline, start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
        do {
          if (encrypt) {
            cipher->Encrypt(0, in.data(), out.data(), size, tags.data());
          } else if (!cipher->Decrypt(0, in.data(), out.data(), size, tags.data())) {
            throw Error(o.cipher.name + ": tag verification failed during the run");
          }
          me.bytes += size;
          now = Clock::now();
        } while (now < until);
        me.seconds = std::chrono::duration<double>(now - start).count();
        me.cpu_seconds = ThreadCpuSeconds() - cpu0;
      } catch (const std::exception& e) {
        me.error = e.what();
        if (!counted) ready.count_down();
      }
    });
  }
  ready.arrive_and_wait();
  deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  go.store(true, std::memory_order_release);
  for (auto& w : workers) w.join();
  double mib = 0, longest = 0, cpu = 0, total = 0;
  for (const auto& t : tally) {
    if (!t.error.empty()) throw Error(t.error);
    cpu += t.cpu_seconds;
    total += static_cast<double>(t.bytes) / kMiB;
    if (t.seconds > 0) mib += static_cast<double>(t.bytes) / kMiB / t.seconds;
    longest = std::max(longest, t.seconds);
  }
  if (elapsed) *elapsed = longest;
  if (per_cpu) *per_cpu = cpu > 0 ? total / cpu : 0;
  return mib;
}

}  // namespace

std::vector<uint8_t> RandomKey(size_t bits) {
  std::vector<uint8_t> key = RandomBytes(bits / 8);
  size_t half = key.size() / 2;
  if (half && std::memcmp(key.data(), key.data() + half, half) == 0) key[0] ^= 0xff;
  return key;
}

Backend FasterBackend(const std::vector<CalibrationSample>& samples) {
  Backend choice = Backend::kOpenSsl;
  double best = -1;
  for (const auto& s : samples)
    if (s.mib_per_cpu_s > best) best = s.mib_per_cpu_s, choice = s.backend;
  return choice;
}

Backend ChooseBackend(const CipherInfo& cipher, size_t block_size, std::string* calibration) {
  if (!cipher.openssl) return Backend::kGcrypt;
  if (!cipher.gcrypt) return Backend::kOpenSsl;
  CipherBenchOptions o;
  o.cipher = cipher;
  o.block_size = block_size;
  // Judged per CPU-second, not by the wall clock: on a shared machine a wall-clock sample mostly
  // measures how much of a core the thread got, and flipped the choice between runs. Short runs in
  // ABBA order, best of each: other work only ever slows a sample down.
  constexpr Backend kOrder[] = {Backend::kOpenSsl, Backend::kGcrypt, Backend::kGcrypt, Backend::kOpenSsl,
                                Backend::kOpenSsl, Backend::kGcrypt};
  std::vector<CalibrationSample> samples;
  double best[2] = {0, 0};
  for (Backend b : kOrder) {
    double per_cpu = 0;
    TimedRun(o, b, true, 0.05, nullptr, &per_cpu);
    samples.push_back({b, per_cpu});
    double& slot = best[b == Backend::kGcrypt];
    slot = std::max(slot, per_cpu);
  }
  if (calibration) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "openssl %.1f MiB/cpu-s, gcrypt %.1f MiB/cpu-s (best of 3 each)", best[0], best[1]);
    *calibration = buf;
  }
  return FasterBackend(samples);
}

CipherBenchResult RunCipherBench(const CipherBenchOptions& o) {
  if (o.threads < 1) throw Error("--threads must be at least 1");
  CipherBenchResult r;
  if (o.backend) {
    r.backend = *o.backend;
  } else {
    r.backend = ChooseBackend(o.cipher, o.block_size, &r.calibration);
    r.auto_chosen = true;
  }
  if (o.encrypt) r.encrypt_mib_per_s = TimedRun(o, r.backend, true, o.seconds, &r.encrypt_seconds, &r.encrypt_mib_per_cpu_s);
  if (o.decrypt) r.decrypt_mib_per_s = TimedRun(o, r.backend, false, o.seconds, &r.decrypt_seconds, &r.decrypt_mib_per_cpu_s);
  return r;
}

uint64_t NextPbkdf2Iterations(uint64_t iterations, double taken, double min_cpu_seconds) {
  double f = taken / min_cpu_seconds;  // cryptsetup: <= 62, 125, 250 ms of its 500
  return iterations << (f <= 0.125 ? 4 : f <= 0.25 ? 3 : f <= 0.5 ? 2 : 1);
}

Pbkdf2Result RunPbkdf2(const std::string& hash, Backend backend, double min_cpu_seconds) {
  if (hash != "sha256" && hash != "sha512") throw Error("--hash: '" + hash + "' is not sha256 or sha512");
  if (backend == Backend::kKernel) throw Error("PBKDF2 is measured through openssl or gcrypt, not the kernel");
  // cryptsetup benchmark's inputs: a 3-byte password, a 32-byte salt, a 256-bit key.
  const char password[] = "foo";
  std::vector<uint8_t> salt = RandomBytes(32);
  uint8_t out[32];
  auto derive = [&](uint64_t iterations) {
    if (backend == Backend::kOpenSsl) {
      const EVP_MD* md = hash == "sha256" ? EVP_sha256() : EVP_sha512();
      if (PKCS5_PBKDF2_HMAC(password, sizeof password - 1, salt.data(), static_cast<int>(salt.size()),
                            static_cast<int>(iterations), md, sizeof out, out) != 1)
        throw Error("OpenSSL: PBKDF2 failed");
    } else {
      InitGcrypt(false);
      if (gcry_kdf_derive(password, sizeof password - 1, GCRY_KDF_PBKDF2,
                          hash == "sha256" ? GCRY_MD_SHA256 : GCRY_MD_SHA512, salt.data(), salt.size(),
                          static_cast<unsigned long>(iterations), sizeof out, out))
        throw Error("libgcrypt: PBKDF2 failed");
    }
  };
  // User CPU time of this thread: what cryptsetup's getrusage(RUSAGE_SELF) ru_utime counts, without
  // the other threads of the process (there are none here) or time spent waiting for a core.
  auto user_seconds = [] {
    rusage ru{};
    getrusage(RUSAGE_THREAD, &ru);
    return static_cast<double>(ru.ru_utime.tv_sec) + static_cast<double>(ru.ru_utime.tv_usec) / 1e6;
  };
  Pbkdf2Result r{hash};
  double cpu = 0;
  for (uint64_t iterations = 1u << 15;; iterations = NextPbkdf2Iterations(iterations, cpu, min_cpu_seconds)) {
    if (iterations > 0x7fffffffu) throw Error("PBKDF2: more than 2^31 iterations without reaching the measuring time");
    double cpu0 = user_seconds();
    auto t0 = Clock::now();
    derive(iterations);
    double wall = std::chrono::duration<double>(Clock::now() - t0).count();
    cpu = user_seconds() - cpu0;
    if (cpu > 0) r.iterations_per_second = static_cast<double>(iterations) / cpu;
    if (wall > 0) r.iterations_per_wall_second = static_cast<double>(iterations) / wall;
    r.iterations = iterations;
    if (cpu > min_cpu_seconds) return r;
  }
}

}  // namespace ptsn::workloads

namespace ptsn::workloads {

namespace {
bool CpuHasAesNi() {
#if defined(__x86_64__) || defined(__i386__)
  return __builtin_cpu_supports("aes");
#else
  return false;
#endif
}
}  // namespace

Report CipherReport(const CipherBenchOptions& o, const CipherBenchResult& r, bool aesni_disabled) {
  Report rep;
  rep.Text("workload", "Workload", "cipher");
  rep.Text("cipher", "Cipher", o.cipher.name);
  rep.Integer("key_bits", "Key", static_cast<int64_t>(o.cipher.key_bits), "bits");
  rep.Text("backend", "Backend", BackendName(r.backend));
  rep.Flag("backend_auto", r.auto_chosen);
  if (!o.kernel_driver.empty()) rep.Text("kernel_driver", "Kernel driver", o.kernel_driver);
  if (!r.calibration.empty()) rep.Text("calibration", "Calibration", r.calibration);
  rep.Flag("aesni_disabled", aesni_disabled);
  rep.Text("aesni", "AES-NI", aesni_disabled ? "disabled" : CpuHasAesNi() ? "enabled" : "not in this CPU");
  rep.Integer("block_size", "Block size", static_cast<int64_t>(o.block_size), "bytes");
  rep.Integer("threads", "Threads", o.threads);
  rep.Number("seconds", "", o.seconds);
  if (r.encrypt_mib_per_s) rep.Number("encrypt_mib_per_s", "Encrypt", *r.encrypt_mib_per_s, "MiB/s");
  else rep.Null("encrypt_mib_per_s");
  if (r.decrypt_mib_per_s) rep.Number("decrypt_mib_per_s", "Decrypt", *r.decrypt_mib_per_s, "MiB/s");
  else rep.Null("decrypt_mib_per_s");
  if (r.encrypt_mib_per_s) rep.Number("encrypt_mib_per_cpu_s", "", r.encrypt_mib_per_cpu_s);
  if (r.decrypt_mib_per_s) rep.Number("decrypt_mib_per_cpu_s", "", r.decrypt_mib_per_cpu_s);
  return rep;
}

Report Pbkdf2Report(const std::vector<Pbkdf2Result>& results, Backend backend) {
  Report rep;
  rep.Text("workload", "", "pbkdf2");
  rep.Text("backend", "", BackendName(backend));
  rep.Integer("key_bits", "", 256);
  for (const auto& p : results) {
    rep.Number("pbkdf2_" + p.hash + "_iterations_per_s", "", p.iterations_per_second);
    rep.Number("pbkdf2_" + p.hash + "_iterations_per_wall_s", "", p.iterations_per_wall_second);
    rep.Integer("pbkdf2_" + p.hash + "_iterations", "", static_cast<int64_t>(p.iterations));
  }
  return rep;
}

// cryptsetup's own line format, so the same results-definition parses both programs.
std::string Pbkdf2Text(const std::vector<Pbkdf2Result>& results) {
  std::string out;
  for (const auto& p : results) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "PBKDF2-%-9s %7.0f iterations per second for 256-bit key\n", p.hash.c_str(), p.iterations_per_second);
    out += buf;
  }
  return out;
}

}  // namespace ptsn::workloads
