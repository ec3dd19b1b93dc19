// Loads, validates and expands every profile under a PTS-layout root, the way `pts-native
// validate-test-profile` + option expansion would; prints the time of the whole pass.
// usage: bench_profiles ROOT [--schemas DIR] [--cache FILE] [--threads N]
//   --cache FILE: read profile directories through the profile cache FILE (warm when it exists
//   and matches; it is written back at the end, outside the timed pass).
// bench/bench_profiles.sh runs it cold and warm against the real PTS.
#include <malloc.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>

#include "runner/profile/options.h"
#include "runner/profile/profile_cache.h"
#include "runner/profile/profile_repository.h"
#include "runner/profile/validate.h"

using namespace ptsn::profile;

static double CpuMs(double* sys_ms = nullptr) {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  if (sys_ms) *sys_ms = u.ru_stime.tv_sec * 1e3 + u.ru_stime.tv_usec / 1e3;
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_profiles ROOT [--schemas DIR] [--cache FILE] [--threads N]\n");
    return 2;
  }
  std::string root = argv[1], schema_dir, cache_file;
  unsigned threads = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--schemas") schema_dir = argv[i + 1];
    else if (a == "--cache") cache_file = argv[i + 1];
    else if (a == "--threads") threads = static_cast<unsigned>(std::atoi(argv[i + 1]));
  }
  // Heap growth in 16 MiB steps, as a command loading the whole corpus would set it: else glibc
  // grows each thread's heap 128 KiB at a time (~350 brk/mprotect calls for this pass).
  mallopt(M_TOP_PAD, 16 << 20);
  auto start = std::chrono::steady_clock::now();
  double sys_start;
  double cpu_start = CpuMs(&sys_start);
  // The machine facts matter only to expansion: found on another thread meanwhile.
  std::shared_future<MachineFacts> facts = std::async(std::launch::async, DetectMachineFacts).share();
  ProfileRepository repo({root});
  auto schemas = schema_dir.empty() ? nullptr : std::make_unique<ProfileSchemas>(schema_dir);
  std::shared_ptr<ProfileCache> cache = repo.UseCacheFile(cache_file);
  auto since = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
  double t_setup = since(), c_setup = CpuMs() - cpu_start;
  // Each profile's options are expanded by the thread that loaded it, right after loading it (no
  // second pass over 600 profiles, no barrier between loading and expanding).
  std::atomic<size_t> total_combos{0};
  std::vector<ValidationReport> reports =
      ValidateAllProfiles(repo, schemas.get(), threads, [&](size_t, ValidationReport& report) {
        if (!report.loaded) return;
        TestProfile& p = report.profile;
        AutoProcessOptions(&p.options, facts.get(), p.external_dependencies);
        total_combos += BatchOptions(p.options).size() + DefaultOptions(p.options).size();
      });
  size_t loaded = 0, rejected = 0, warnings = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    reports[i].loaded ? ++loaded : ++rejected;
    warnings += reports[i].issues.size();
  }
  double ms = since();
  double sys_end;
  double cpu = CpuMs(&sys_end) - cpu_start;
  if (std::getenv("BENCH_PHASES"))
    std::fprintf(stderr, "phases (wall/cpu ms): setup %.1f/%.1f, load+validate+expand %.1f/%.1f; system cpu %.1f ms\n",
                 t_setup, c_setup, ms - t_setup, cpu - c_setup, sys_end - sys_start);
  std::string how = "cold";
  if (cache) {
    how = cache->misses() == 0 ? "warm" : "cache misses " + std::to_string(cache->misses()) + "/" +
                                              std::to_string(cache->hits() + cache->misses());
    if (!cache->load_problem().empty()) std::fprintf(stderr, "%s\n", cache->load_problem().c_str());
    cache->Save();
  }
  std::printf("pts-native (%s): %zu profiles loaded, %zu rejected, %zu warnings, %zu option combinations in %.1f ms (cpu %.1f ms)\n",
              how.c_str(), loaded, rejected, warnings, total_combos.load(), ms, cpu);
  // Like a CLI command, end without freeing the 600 loaded profiles one allocation at a time (the
  // cache is saved above; the kernel takes the memory back at once).
  std::fflush(stdout);
  std::_Exit(rejected == 0 ? 0 : 1);
}
