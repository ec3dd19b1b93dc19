#include "runner/profile/profile_cache.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <filesystem>
#include <fstream>

#include "runner/common/atomic_file.h"
#include "runner/common/shared_dir.h"
#include "runner/profile/schema_set.h"
#include "runner/profile/test_temp_dir.h"
#include "runner/profile/validate.h"

namespace ptsn::profile {
namespace {

namespace fs = std::filesystem;
const std::string kFixtures = std::string(PTSN_SOURCE_DIR) + "/runner/profile/testdata/profiles";

using test::TempDir;

struct Pass {
  std::vector<ValidationReport> reports;
  size_t hits = 0, misses = 0;
  std::string load_problem;
};

// Validates every profile under `root`, through the cache file when `cache_file` is set.
Pass LoadPass(const std::string& root, const std::string& schema_dir, const std::string& cache_file, unsigned threads = 2) {
  ProfileRepository repo({root});
  auto schemas = schema_dir.empty() ? nullptr : std::make_unique<ProfileSchemas>(schema_dir);
  std::shared_ptr<ProfileCache> cache = repo.UseCacheFile(cache_file);
  Pass pass;
  pass.reports = ValidateAllProfiles(repo, schemas.get(), threads);
  if (cache) {
    pass.hits = cache->hits();
    pass.misses = cache->misses();
    pass.load_problem = cache->load_problem();
    cache->Save();
  }
  return pass;
}

void ExpectSame(const std::vector<ValidationReport>& cold, const std::vector<ValidationReport>& warm) {
  ASSERT_EQ(cold.size(), warm.size());
  for (size_t i = 0; i < cold.size(); ++i) {
    SCOPED_TRACE(cold[i].identifier);
    EXPECT_EQ(cold[i].identifier, warm[i].identifier);
    EXPECT_EQ(cold[i].loaded, warm[i].loaded);
    EXPECT_EQ(cold[i].error, warm[i].error);
    EXPECT_TRUE(cold[i].issues == warm[i].issues);
    EXPECT_TRUE(cold[i].profile == warm[i].profile);
  }
}

std::string SchemaDir() { return DefaultSchemaDirectory(""); }

TEST(ProfileCache, WarmLoadOfTheCorpusEqualsColdLoad) {
  std::string corpus = ::ptsn::SharedDir() + "/corpus/test-profiles";
  if (!fs::is_directory(corpus) || SchemaDir().empty()) GTEST_SKIP() << "../shared corpus or schemas absent";
  TempDir tmp;
  std::string cache = tmp.path + "/cache/profiles.bin";
  Pass cold = LoadPass(corpus, SchemaDir(), "");
  Pass first = LoadPass(corpus, SchemaDir(), cache);  // fills the cache (parents shared by several hit)
  EXPECT_GE(first.misses, cold.reports.size());
  Pass warm = LoadPass(corpus, SchemaDir(), cache);
  EXPECT_EQ(warm.misses, 0u);
  EXPECT_GE(warm.hits, cold.reports.size());
  EXPECT_EQ(warm.load_problem, "");
  ExpectSame(cold.reports, first.reports);
  ExpectSame(cold.reports, warm.reports);
  // A warm load without schemas serves the validated entries, minus the schema findings.
  Pass no_schema_cold = LoadPass(corpus, "", "");
  Pass no_schema_warm = LoadPass(corpus, "", cache, 1);
  EXPECT_EQ(no_schema_warm.misses, 0u);
  ExpectSame(no_schema_cold.reports, no_schema_warm.reports);
}

class CacheOnFixtures : public ::testing::Test {
 protected:
  void SetUp() override {
    root = tmp.path + "/profiles";
    fs::copy(kFixtures, root, fs::copy_options::recursive);
    cache = tmp.path + "/profiles.bin";
    LoadPass(root, "", cache);
    Pass warm = LoadPass(root, "", cache);
    // Files that do not parse (malformed-1.0.0, entity-1.0.0) raise errors, which are not cached.
    uncached = warm.misses;
    ASSERT_EQ(uncached, 2u);
    ASSERT_GT(warm.hits, 0u);
  }
  // After a change: the cache must not serve the stale entry, and must equal a cold load.
  void ExpectColdEquivalent(size_t min_misses) {
    Pass warm = LoadPass(root, "", cache);
    EXPECT_GE(warm.misses, uncached + min_misses);
    ExpectSame(LoadPass(root, "", "").reports, warm.reports);
    Pass again = LoadPass(root, "", cache);  // the refreshed entries are served next time
    EXPECT_EQ(again.misses, uncached);
    ExpectSame(warm.reports, again.reports);
  }
  TempDir tmp;
  std::string root, cache;
  size_t uncached = 0;
};

TEST_F(CacheOnFixtures, ReadsRightAfterConstructionWaitForTheFileBeingLoaded) {
  // The file is read on another thread: Read()s on several threads at once, before it is done,
  // must all be served from it (and a cache destroyed unused must not lose it).
  { ProfileCache unused(cache); }
  ProfileCache loaded(cache);
  std::string dir = root + "/local/mini-2.0.0";
  std::vector<ProfileSource> got(4);
  std::vector<std::thread> threads;
  for (auto& src : got) threads.emplace_back([&] {
    std::vector<LoadIssue> issues;
    src = loaded.Read(dir, "", &issues);
  });
  for (auto& t : threads) t.join();
  EXPECT_EQ(loaded.hits(), 4u);
  EXPECT_EQ(loaded.misses(), 0u);
  EXPECT_EQ(loaded.load_problem(), "");
  std::vector<LoadIssue> issues;
  ProfileSource cold = ReadProfileDirectory(dir, "", &issues);
  for (const auto& src : got) EXPECT_TRUE(src == cold);
}

TEST_F(CacheOnFixtures, ChangedFileIsReadAgain) {
  std::string def = root + "/local/mini-2.0.0/test-definition.xml";
  std::string xml = ReadFile(def);
  size_t at = xml.find("<Title>");
  ASSERT_NE(at, std::string::npos);
  xml.insert(at + 7, "Changed ");
  WriteFileAtomically(def, xml);
  ExpectColdEquivalent(1);
  TestProfile p = ProfileRepository({root}).LoadProfile("local/mini-2.0.0");
  ProfileRepository cached({root});
  cached.SetCache(std::make_shared<ProfileCache>(cache));
  EXPECT_EQ(cached.LoadProfile("local/mini-2.0.0").title, p.title);
  EXPECT_EQ(p.title.rfind("Changed ", 0), 0u);
}

TEST_F(CacheOnFixtures, SameSizeEditOfAParentIsSeenByTheChild) {
  // local/child extends local/mini-1.0 (= mini-1.0.2) and inherits its results definition; a
  // same-size edit there must reach the child through the parent's cache entry.
  std::string results = root + "/local/mini-1.0.2/results-definition.xml";
  std::string xml = ReadFile(results);
  size_t at = xml.find("MB/s");
  ASSERT_NE(at, std::string::npos);
  xml.replace(at, 4, "GB/s");
  WriteFileAtomically(results, xml);
  ExpectColdEquivalent(1);
  ProfileRepository cached({root});
  cached.SetCache(std::make_shared<ProfileCache>(cache));
  TestProfile child = cached.LoadProfile("local/child");
  ASSERT_FALSE(child.results.parsers.empty());
  EXPECT_NE(child.results.parsers[0].output_template.find("GB/s"), std::string::npos);
}

TEST(ProfileCacheStamps, SettledFilesAreTrustedByStampAndRewritesAreStillSeen) {
  TempDir tmp;
  std::string root = tmp.path + "/profiles", cache = tmp.path + "/profiles.bin";
  fs::copy(kFixtures, root, fs::copy_options::recursive);
  std::string def = root + "/local/mini-2.0.0/test-definition.xml";
  // Files changed in the last 2 s get no stamp (a same-tick rewrite could keep it); wait them out.
  std::this_thread::sleep_for(std::chrono::milliseconds(2200));
  LoadPass(root, "", cache);
  ProfileCache loaded(cache);
  std::vector<LoadIssue> issues;
  ProfileSource unused = loaded.Read(root + "/local/mini-2.0.0", "", &issues);
  ASSERT_EQ(loaded.hits(), 1u);
  EXPECT_TRUE(StampOf(def).known());
  // A repository kept from before the rewrite: its index's stamps (taken now) must not stand for
  // the file once they are old (a server or a long run holds a repository for hours).
  ProfileRepository held({root});
  held.SetCache(std::make_shared<ProfileCache>(cache));
  ASSERT_FALSE(held.ListProfiles().empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  // Rewrite with the same size, then put the old mtime back: ctime still moves, so it is re-read.
  struct stat before;
  ASSERT_EQ(stat(def.c_str(), &before), 0);
  std::string xml = ReadFile(def);
  size_t at = xml.find("<Title>");
  ASSERT_NE(at, std::string::npos);
  xml[at + 7] = xml[at + 7] == 'X' ? 'Y' : 'X';
  { std::ofstream(def, std::ios::binary | std::ios::trunc) << xml; }
  const timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(utimensat(AT_FDCWD, def.c_str(), times, 0), 0);
  // Whichever way the directory was listed (stamps taken by the listing, or none and a stat()
  // now), the rewrite is seen. (Each from the cache file as it was: a ProfileCache saves its
  // refreshed entries when destroyed.)
  std::string before_rewrite = ReadFile(cache);
  for (bool stamped : {true, false}) {
    SCOPED_TRACE(stamped ? "listing with stamps" : "listing without stamps");
    WriteFileAtomically(cache, before_rewrite);
    std::vector<DirEntry> listing;
    ASSERT_TRUE(ListDirectory(root + "/local/mini-2.0.0", &listing, stamped ? IsProfileInput : nullptr));
    ProfileCache again(cache);
    DirectoryRead how;
    how.listing = &listing;
    how.listing_stamps_current = stamped;
    ProfileSource src = again.Read(root + "/local/mini-2.0.0", "", &issues, how);
    EXPECT_EQ(again.misses(), 1u);
    EXPECT_EQ(src.fields["TestInformation/Title"][0], xml[at + 7]);
  }
  Pass warm = LoadPass(root, "", cache);
  ExpectSame(LoadPass(root, "", "").reports, warm.reports);
  EXPECT_EQ(ProfileRepository({root}).LoadProfile("local/mini-2.0.0").title[0], xml[at + 7]);
  EXPECT_EQ(held.LoadProfile("local/mini-2.0.0").title[0], xml[at + 7]);
  // Once saved, the new bytes are served by stamp again from a stamped listing.
  std::vector<DirEntry> listing;
  ASSERT_TRUE(ListDirectory(root + "/local/mini-2.0.0", &listing, IsProfileInput));
  ProfileCache settled(cache);
  DirectoryRead how;
  how.listing = &listing;
  how.listing_stamps_current = true;
  EXPECT_EQ(settled.Read(root + "/local/mini-2.0.0", "", &issues, how).fields["TestInformation/Title"][0], xml[at + 7]);
  EXPECT_EQ(settled.hits(), 1u);
}

TEST_F(CacheOnFixtures, AddedAndRemovedFilesAreSeen) {
  WriteFileAtomically(root + "/local/mini-2.0.0/post.sh", "#!/bin/sh\n");
  ExpectColdEquivalent(1);
  fs::remove(root + "/local/mini-2.0.0/post.sh");
  ExpectColdEquivalent(1);
  // A results definition appearing where there was none changes what loads.
  fs::copy_file(root + "/local/mini-2.0.0/results-definition.xml", root + "/local/no-results-1.0.0/results-definition.xml");
  ExpectColdEquivalent(1);
}

TEST_F(CacheOnFixtures, TruncatedCorruptOrForeignCacheFallsBackToColdLoad) {
  std::string good = ReadFile(cache);
  ASSERT_GT(good.size(), 64u);
  std::string flipped = good;
  flipped[flipped.size() / 2] ^= 0x5a;
  const std::pair<std::string, std::string> bad[] = {{good.substr(0, good.size() / 2), "truncated"},
                                                    {flipped, "checksum"},
                                                    {"not a cache at all", "not a profile cache"},
                                                    {"", "not a profile cache"}};
  Pass cold = LoadPass(root, "", "");
  for (const auto& [content, why] : bad) {
    SCOPED_TRACE(why);
    WriteFileAtomically(cache, content);
    Pass warm = LoadPass(root, "", cache);
    EXPECT_NE(warm.load_problem.find(why), std::string::npos) << warm.load_problem;
    ExpectSame(cold.reports, warm.reports);
    Pass rewritten = LoadPass(root, "", cache);  // Save() replaced the bad file
    EXPECT_EQ(rewritten.load_problem, "");
    EXPECT_EQ(rewritten.misses, uncached);
  }
}

TEST_F(CacheOnFixtures, SchemaChangeRevalidates) {
  if (SchemaDir().empty()) GTEST_SKIP() << "PTS schemas (../shared/reference/schemas) are absent";
  std::string schemas = tmp.path + "/schemas";
  fs::copy(SchemaDir(), schemas, fs::copy_options::recursive);
  LoadPass(root, schemas, cache);  // unvalidated entries are not enough when schemas are asked for
  Pass warm = LoadPass(root, schemas, cache);
  EXPECT_EQ(warm.misses, uncached);
  std::ofstream(schemas + "/types.xsd", std::ios::app) << "<!-- changed -->\n";
  Pass changed = LoadPass(root, schemas, cache);
  EXPECT_GT(changed.misses, uncached);
  ExpectSame(LoadPass(root, schemas, "").reports, changed.reports);
}

}  // namespace
}  // namespace ptsn::profile
