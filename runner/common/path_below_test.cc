#include "runner/common/path_below.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>

namespace ptsn {
namespace {

namespace fs = std::filesystem;

const NameOrigin kOrigin{"downloads.xml FileName", "the install folder"};

std::string Refusal(std::string_view name, NameDepth depth = NameDepth::kOneName) {
  try {
    JoinBelow("/home/u/installed-tests/local/evil-1.0.0", name, kOrigin, depth);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PathBelow, JoinsAPlainName) {
  EXPECT_EQ(JoinBelow("/a/b", "x.tar.gz", kOrigin), "/a/b/x.tar.gz");
  EXPECT_EQ(JoinBelow("/a/b/", "x", kOrigin), "/a/b/x");
  EXPECT_EQ(JoinBelow("/a", "p/q.diff", kOrigin, NameDepth::kRelativePath), "/a/p/q.diff");
  EXPECT_EQ(JoinBelow("/a", "p/", kOrigin, NameDepth::kRelativePath), "/a/p/");
  EXPECT_EQ(JoinBelow("/a", "..x", kOrigin), "/a/..x");  // a name that starts with dots is a name
}

TEST(PathBelow, RefusesWhatClimbsOutNamingTheFieldAndTheFolder) {
  EXPECT_EQ(Refusal("../../victim2"),
            "downloads.xml FileName '../../victim2' leaves the install folder (a '..' component)");
  EXPECT_EQ(Refusal("/etc/passwd"), "downloads.xml FileName '/etc/passwd' leaves the install folder (an absolute path)");
  EXPECT_EQ(Refusal(".."), "downloads.xml FileName '..' leaves the install folder (a '..' component)");
  EXPECT_EQ(Refusal("a/../../b", NameDepth::kRelativePath),
            "downloads.xml FileName 'a/../../b' leaves the install folder (a '..' component)");
}

TEST(PathBelow, RefusesWhatIsNoNameInTheFolder) {
  EXPECT_EQ(Refusal(""), "downloads.xml FileName '' cannot name a file in the install folder: an empty name");
  EXPECT_EQ(Refusal("."), "downloads.xml FileName '.' cannot name a file in the install folder: a '.' component");
  EXPECT_EQ(Refusal("sub/x"), "downloads.xml FileName 'sub/x' cannot name a file in the install folder: a '/' in a file name");
  EXPECT_EQ(Refusal(std::string("a\nb")),
            "downloads.xml FileName 'a\\x0ab' cannot name a file in the install folder: a control character in the name");
  EXPECT_EQ(Refusal(std::string("a\0b", 3)),
            "downloads.xml FileName 'a\\x00b' cannot name a file in the install folder: a control character in the name");
  EXPECT_NE(Refusal("a\\..\\b"), "");
  EXPECT_NE(Refusal(std::string(256, 'x')), "");
  EXPECT_NE(Refusal("a//b", NameDepth::kRelativePath), "");
  EXPECT_NE(Refusal("a/./b", NameDepth::kRelativePath), "");
  EXPECT_NE(Refusal("/", NameDepth::kRelativePath), "");
}

// The property: whatever the name, a path JoinBelow gives is inside its folder — lexically
// below it and not the folder itself — and, for one name, directly in it.
TEST(PathBelow, NoNameGivesAPathOutsideItsFolder) {
  const std::string folder = "/base/dir";
  const std::string alphabet[] = {".", "..", "/", "a", "\\", std::string(1, '\0'), "\n", "~", "b.c", "//", " "};
  std::mt19937 rng(48);
  int accepted = 0;
  for (int i = 0; i < 40000; ++i) {
    std::string name;
    for (int n = rng() % 7; n >= 0; --n) name += alphabet[rng() % std::size(alphabet)];
    for (NameDepth depth : {NameDepth::kOneName, NameDepth::kRelativePath}) {
      std::string joined;
      try {
        joined = JoinBelow(folder, name, kOrigin, depth);
      } catch (const Error&) {
        continue;
      }
      ++accepted;
      const fs::path rel = fs::path(joined).lexically_normal().lexically_relative(folder);
      ASSERT_FALSE(rel.empty()) << name;
      ASSERT_NE(rel.string(), ".") << name;
      ASSERT_NE(*rel.begin(), "..") << name;
      ASSERT_EQ(joined.find('\0'), std::string::npos) << name;
      if (depth == NameDepth::kOneName) {
        ASSERT_EQ(fs::path(joined).parent_path(), folder) << name;
      }
    }
  }
  EXPECT_GT(accepted, 1000);  // the property was tested on names that pass, not only refusals
}

}  // namespace
}  // namespace ptsn
