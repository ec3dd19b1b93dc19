// How many of a profile tree's checksummed downloads the Debian source archive holds byte for
// byte (same SHA256): the reach of the Debian download fallback (runner/install/fallbacks.h).
//   build/bench/debian_moved_downloads ../shared/corpus/test-profiles [MIRROR [SUITE...]]
// Fetches (or reuses, for a day) the suite's Sources.xz index under $TMPDIR/ptsn-debian-index.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "runner/common/error.h"
#include "runner/install/debian_sources.h"
#include "runner/install/fetcher.h"
#include "runner/profile/profile_repository.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: debian_moved_downloads PROFILE_ROOT [MIRROR [SUITE...]]\n";
    return 2;
  }
  using namespace ptsn;
  install::DebianArchive archive;
  if (argc > 2) archive.mirror = argv[2];
  if (argc > 3) archive.suites.assign(argv + 3, argv + argc);
  archive.cache_dir = std::filesystem::temp_directory_path().string() + "/ptsn-debian-index";
  archive.ttl_seconds = 24 * 3600;
  try {
    auto t0 = std::chrono::steady_clock::now();
    auto fetcher = install::MakeCurlFetcher(20);
    std::vector<install::DebianSourcesIndex> indexes;
    for (const auto& suite : archive.suites)
      for (const auto& component : archive.components) {
        std::vector<std::string> problems;
        indexes.push_back(install::DebianSourcesIndex::Load(archive, suite, component, *fetcher, problems));
        for (const auto& p : problems) std::cerr << "warning: " << p << "\n";
        std::cout << "Debian " << suite << "/" << component << ": " << indexes.back().size() << " files indexed\n";
      }
    auto t1 = std::chrono::steady_clock::now();
    profile::ProfileRepository repo({argv[1]});
    size_t profiles = 0, packages = 0, checksummed = 0, found = 0;
    std::set<std::string> distinct, distinct_found;
    std::map<std::string, std::string> hits;  // file -> "profiles: debian path"
    for (const auto& ref : repo.ListProfiles()) {
      profile::TestProfile p;
      try {
        p = repo.LoadProfile(ref.identifier);
      } catch (const Error& e) {
        std::cerr << "skipped: " << e.what() << "\n";
        continue;
      }
      ++profiles;
      for (const auto& d : p.downloads) {
        ++packages;
        if (d.sha256.empty()) continue;
        ++checksummed;
        distinct.insert(d.sha256);
        for (const auto& index : indexes) {
          if (auto f = index.Find(d.sha256)) {
            ++found;
            distinct_found.insert(d.sha256);
            auto& h = hits[d.file_name + " -> " + f->path];
            h += (h.empty() ? "" : ", ") + ref.identifier;
            break;
          }
        }
      }
    }
    auto t2 = std::chrono::steady_clock::now();
    for (const auto& [file, ids] : hits) std::cout << "  " << file << "  (" << ids << ")\n";
    std::printf("%zu profiles, %zu downloads, %zu with a SHA256 (%zu distinct): %zu found in Debian by SHA256 (%zu distinct)\n",
                profiles, packages, checksummed, distinct.size(), found, distinct_found.size());
    std::printf("index load %.2f s, profile scan + lookups %.2f s\n",
                std::chrono::duration<double>(t1 - t0).count(), std::chrono::duration<double>(t2 - t1).count());
  } catch (const Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
