// Loads, validates and expands every profile under a PTS-layout root, the way `pts-native
// validate-test-profile` + option expansion would; prints the time of the whole pass.
// usage: bench_profiles ROOT [--schemas DIR] [--cache FILE] [--threads N]
//   --cache FILE: read profile directories through the profile cache FILE (warm when it exists
//   and matches; it is written back at the end, outside the timed pass).
// bench/bench_profiles.sh runs it cold and warm against the real PTS.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
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
  auto start = std::chrono::steady_clock::now();
  double sys_start;
  double cpu_start = CpuMs(&sys_start);
  ProfileRepository repo({root});
  auto schemas = schema_dir.empty() ? nullptr : std::make_unique<ProfileSchemas>(schema_dir);
  std::shared_ptr<ProfileCache> cache = repo.UseCacheFile(cache_file);
  MachineFacts facts = DetectMachineFacts();
  auto since = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(); };
  double t_setup = since(), c_setup = CpuMs() - cpu_start;
  std::vector<ValidationReport> reports = ValidateAllProfiles(repo, schemas.get(), threads);
  double t_load = since(), c_load = CpuMs() - cpu_start;
  std::vector<size_t> combos(reports.size());
  ForEachParallel(reports.size(), threads, [&](size_t i) {
    if (!reports[i].loaded) return;
    TestProfile& p = reports[i].profile;
    AutoProcessOptions(&p.options, facts, p.external_dependencies);
    combos[i] = BatchOptions(p.options).size() + DefaultOptions(p.options).size();
  });
  size_t loaded = 0, rejected = 0, warnings = 0, total_combos = 0;
  for (size_t i = 0; i < reports.size(); ++i) {
    reports[i].loaded ? ++loaded : ++rejected;
    warnings += reports[i].issues.size();
    total_combos += combos[i];
  }
  double ms = since();
  if (std::getenv("BENCH_PHASES"))
    std::fprintf(stderr, "phases (wall/cpu ms): setup %.1f/%.1f, load+validate %.1f/%.1f, expand %.1f/%.1f\n", t_setup,
                 c_setup, t_load - t_setup, c_load - c_setup, ms - t_load, CpuMs() - cpu_start - c_load);
  double sys_end;
  double cpu = CpuMs(&sys_end) - cpu_start;
  if (std::getenv("BENCH_PHASES")) std::fprintf(stderr, "system cpu %.1f ms of %.1f\n", sys_end - sys_start, cpu);
  std::string how = "cold";
  if (cache) {
    how = cache->misses() == 0 ? "warm" : "cache misses " + std::to_string(cache->misses()) + "/" +
                                              std::to_string(cache->hits() + cache->misses());
    if (!cache->load_problem().empty()) std::fprintf(stderr, "%s\n", cache->load_problem().c_str());
    cache->Save();
  }
  std::printf("pts-native (%s): %zu profiles loaded, %zu rejected, %zu warnings, %zu option combinations in %.1f ms (cpu %.1f ms)\n",
              how.c_str(), loaded, rejected, warnings, total_combos, ms, cpu);
  return rejected == 0 ? 0 : 1;
}
