#include "runner/client/profile_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <unistd.h>

#include <filesystem>
#include <map>

#include "runner/common/atomic_file.h"
#include "runner/openbenchmarking/profile_zip.h"

namespace ptsn::client {
namespace {

namespace fs = std::filesystem;

std::string Definition(const std::string& title, const std::string& extends = "") {
  return "<?xml version=\"1.0\"?>\n<PhoronixTestSuite>\n  <TestInformation>\n    <Title>" + title +
         "</Title>\n  </TestInformation>\n  <TestProfile>\n    <Version>1.0.0</Version>\n" +
         (extends.empty() ? "" : "    <Extends>" + extends + "</Extends>\n") + "  </TestProfile>\n</PhoronixTestSuite>\n";
}

// A server with an index and zips, answering through the protocol's own encoders.
struct FakeMirror : HttpTransport {
  ob::RepoIndexDoc index;
  std::map<std::string, std::string> zips;  // qualified -> zip
  std::map<std::string, std::string> lie;   // qualified -> the sha1 claimed instead
  std::vector<std::string> requests;
  void Add(const std::string& name, const std::vector<std::string>& versions, const std::string& extends = "") {
    ob::IndexTest t;
    t.title = name;
    t.test_type = "Disk";
    t.versions = versions;
    index.tests[name] = t;
    for (const auto& v : versions)
      zips["pts/" + name + "-" + v] = ob::WriteZip({{"test-definition.xml", Definition(name + " " + v, extends), false}});
  }
  HttpResponse Post(const std::string&, const std::string& body, const std::string&) override {
    auto form = wire::DecodeForm(body);
    std::map<std::string, std::string> f(form.begin(), form.end());
    requests.push_back(f["r"] + (f.count("i") ? " " + f["i"] : ""));
    if (f["r"] == "repo_index") {
      if (f["repo"] != "pts") return {404, ob::EncodeError("repo", "none")};
      return {200, ob::EncodeRepoIndex(index)};
    }
    if (f["r"] == "acquire_test") {
      auto it = zips.find(f["i"]);
      if (it == zips.end()) return {404, ob::EncodeError("test", "no such test")};
      ob::AcquiredTest t{it->second, lie.count(f["i"]) ? lie[f["i"]] : "", "", ""};
      return {200, ob::EncodeAcquireTest(t)};
    }
    return {400, "{}"};
  }
  HttpResponse Get(const std::string&) override { return {404, ""}; }
};

struct Env {
  fs::path root = fs::path(::testing::TempDir()) / ("ptsn-source-" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "-" + std::to_string(getpid()));
  FakeMirror mirror;
  std::time_t now = std::time(nullptr);
  Env() {
    fs::remove_all(root);
    mirror.Add("fs-mark", {"1.0.3", "1.0.2", "1.0.0"});
    mirror.Add("iozone", {"1.9.6"});
    mirror.Add("iozone-child", {"1.0.0"}, "pts/iozone");
  }
  ~Env() { fs::remove_all(root); }
  ProfileSourceOptions Options() {
    ProfileSourceOptions o;
    o.cache_dir = (root / "cache").string();
    o.profiles_dir = (root / "profiles").string();
    o.now = [this] { return now; };
    return o;
  }
  // A client whose transport is `mirror` (borrowed).
  ObClient Client(bool offline = false) {
    return ObClient({"http://mirror"}, offline, [this] {
      struct Borrowed : HttpTransport {
        FakeMirror* m;
        HttpResponse Post(const std::string& u, const std::string& b, const std::string& t) override { return m->Post(u, b, t); }
        HttpResponse Get(const std::string& u) override { return m->Get(u); }
      };
      auto b = std::make_unique<Borrowed>();
      b->m = &mirror;
      return b;
    });
  }
};

TEST(ProfileSource, ResolvesFetchesAndThenWorksOfflineFromTheCache) {
  Env env;
  auto client = env.Client();
  ProfileSource source(env.Options(), client);
  EXPECT_EQ(source.Resolve("pts/fs-mark"), "pts/fs-mark-1.0.3");
  EXPECT_EQ(source.Resolve("pts/fs-mark-1.0"), "pts/fs-mark-1.0.3");
  EXPECT_EQ(source.Resolve("pts/fs-mark-1.0.0"), "pts/fs-mark-1.0.0");
  std::string why;
  EXPECT_FALSE(source.Resolve("pts/fs-mark-2.0", &why));
  EXPECT_NE(why.find("no version 2.0 of fs-mark"), std::string::npos) << why;
  EXPECT_FALSE(source.Resolve("pts/nothing", &why));
  EXPECT_EQ(FetchByName(source, "pts/fs-mark"), "pts/fs-mark-1.0.3");
  EXPECT_TRUE(fs::exists(env.root / "profiles/pts/fs-mark-1.0.3/test-definition.xml"));
  EXPECT_TRUE(fs::exists(env.root / "cache/pts/fs-mark-1.0.3.zip"));
  EXPECT_TRUE(fs::exists(env.root / "cache/pts.index"));
  EXPECT_EQ(env.mirror.requests, (std::vector<std::string>{"repo_index", "acquire_test pts/fs-mark-1.0.3"}));

  // Offline, from the cache: the index at any age, the extracted profile or its zip.
  env.now += 30 * 86400;
  fs::remove_all(env.root / "profiles");
  auto offline = env.Client(true);
  ProfileSource cached(env.Options(), offline);
  EXPECT_EQ(FetchByName(cached, "pts/fs-mark"), "pts/fs-mark-1.0.3");
  EXPECT_TRUE(fs::exists(env.root / "profiles/pts/fs-mark-1.0.3/test-definition.xml"));
  EXPECT_EQ(env.mirror.requests.size(), 2u) << "nothing asked offline";
  try {
    FetchByName(cached, "pts/iozone");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("pts/iozone-1.9.6: not in the profile cache"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("offline"), std::string::npos) << e.what();
  }
}

TEST(ProfileSource, TheIndexIsAskedAgainOnlyAfterItsTtl) {
  Env env;
  auto client = env.Client();
  // Each command has a source of its own (within one, the index is read once).
  ASSERT_TRUE(ProfileSource(env.Options(), client).Index("pts"));
  env.now = std::time(nullptr) + 2 * 86400;  // the cached file is two days old
  ASSERT_TRUE(ProfileSource(env.Options(), client).Index("pts"));
  EXPECT_EQ(env.mirror.requests.size(), 1u);
  env.now = std::time(nullptr) + 4 * 86400;  // past PTS's three days
  ASSERT_TRUE(ProfileSource(env.Options(), client).Index("pts"));
  EXPECT_EQ(env.mirror.requests.size(), 2u);
}

TEST(ProfileSource, AZipWhoseSha1DoesNotMatchIsNeverUsed) {
  Env env;
  env.mirror.lie["pts/fs-mark-1.0.3"] = wire::Sha1Hex("something else");
  auto client = env.Client();
  ProfileSource source(env.Options(), client);
  try {
    FetchByName(source, "pts/fs-mark");
    FAIL() << "a zip with the wrong sha1 was used";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("sha1"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(env.root / "profiles/pts/fs-mark-1.0.3"));
  EXPECT_FALSE(fs::exists(env.root / "cache/pts/fs-mark-1.0.3.zip"));
}

TEST(ProfileSource, ParentsComeAlong) {
  Env env;
  auto client = env.Client();
  ProfileSource source(env.Options(), client);
  auto fetched = source.Fetch("pts/iozone-child-1.0.0");
  EXPECT_EQ(fetched, (std::vector<std::string>{"pts/iozone-child-1.0.0", "pts/iozone-1.9.6"}));
  EXPECT_TRUE(fs::exists(env.root / "profiles/pts/iozone-1.9.6/test-definition.xml"));
  EXPECT_TRUE(source.Fetch("pts/iozone-child-1.0.0").empty()) << "on disk: nothing fetched again";
}

TEST(ProfileSource, WithoutKeepTheCacheIsReadButNeverWritten) {
  Env env;
  auto client = env.Client();
  ProfileSourceOptions options = env.Options();
  options.keep = false;
  ProfileSource source(options, client);
  EXPECT_EQ(FetchByName(source, "pts/fs-mark-1.0"), "pts/fs-mark-1.0.3");
  EXPECT_EQ(FetchByName(source, "pts/iozone"), "pts/iozone-1.9.6");
  EXPECT_TRUE(fs::is_regular_file(env.root / "profiles/pts/fs-mark-1.0.3/test-definition.xml"));
  EXPECT_FALSE(fs::exists(env.root / "cache")) << "a dry run's fetches were written to the cache";
  EXPECT_EQ(std::count(env.mirror.requests.begin(), env.mirror.requests.end(), "repo_index"), 1)
      << "the index fetched is kept in memory";
}

TEST(ProfileSource, AnIndexNoServerGaveIsAskedForOncePerProcess) {
  Env env;
  struct Unreachable : HttpTransport {
    int* asked;
    explicit Unreachable(int* a) : asked(a) {}
    HttpResponse Post(const std::string& u, const std::string&, const std::string&) override {
      ++*asked;
      throw Error(u + ": Couldn't resolve host name");
    }
    HttpResponse Get(const std::string& u) override { throw Error(u + ": not expected"); }
  };
  int asked = 0;
  ObClient client({"http://nowhere"}, false, [&] { return std::make_unique<Unreachable>(&asked); });
  ProfileSource source(env.Options(), client);
  std::string why1, why2;
  EXPECT_FALSE(source.Resolve("pts/fs-mark-1.0", &why1));
  EXPECT_FALSE(source.Resolve("pts/iozone-1.9", &why2));
  EXPECT_NE(why1.find("Couldn't resolve host name"), std::string::npos) << why1;
  EXPECT_EQ(why1, why2);
  EXPECT_EQ(asked, 1) << "one request for the index, not one per profile";
}

TEST(ProfileSource, OfflineWithNothingCachedNamesWhatIsMissing) {
  Env env;
  auto client = env.Client(true);
  ProfileSource source(env.Options(), client);
  try {
    FetchByName(source, "pts/fs-mark");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("Missing from the cache: pts/fs-mark"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(env.mirror.requests.empty());
}

}  // namespace
}  // namespace ptsn::client
