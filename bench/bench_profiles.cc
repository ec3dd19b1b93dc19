// Loads, validates and expands every profile under a PTS-layout root, the way `pts-native
// validate-test-profile` + option expansion would; prints the time of the whole pass.
// usage: bench_profiles ROOT [--schemas DIR]   (bench/bench_profiles.sh runs it against real PTS)
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "runner/profile/options.h"
#include "runner/profile/profile_repository.h"
#include "runner/profile/validate.h"

using namespace ptsn::profile;

static double CpuMs() {
  rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e3 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e3;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_profiles ROOT [--schemas DIR]\n");
    return 2;
  }
  std::string root = argv[1], schemas;
  for (int i = 2; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--schemas") schemas = argv[i + 1];
  auto start = std::chrono::steady_clock::now();
  double cpu_start = CpuMs();
  ProfileRepository repo({root});
  MachineFacts facts = DetectMachineFacts();
  size_t loaded = 0, rejected = 0, warnings = 0, combos = 0;
  for (const auto& ref : repo.ListProfiles()) {
    ValidationReport v = ValidateProfile(repo, ref.directory, schemas);
    if (!v.loaded) {
      ++rejected;
      continue;
    }
    ++loaded;
    warnings += v.issues.size();
    TestProfile& p = v.profile;
    AutoProcessOptions(&p.options, facts, p.external_dependencies);
    combos += BatchOptions(p.options).size() + DefaultOptions(p.options).size();
  }
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::printf("pts-native: %zu profiles loaded, %zu rejected, %zu warnings, %zu option combinations in %.1f ms (cpu %.1f ms)\n",
              loaded, rejected, warnings, combos, ms, CpuMs() - cpu_start);
  return rejected == 0 ? 0 : 1;
}
