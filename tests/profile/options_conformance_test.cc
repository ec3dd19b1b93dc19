// Option expansion of every corpus profile against ../shared/corpus/test-profiles-options, which
// the real PTS 10.8.6 produced (pts-options.php). Machine-dependent menus are rebuilt from the
// generating machine's facts given in that README (2 logical = 2 physical cores, 24 GiB RAM, no
// display, no GPU/OpenCL/Vulkan, Linux x86_64, only "/" as a writable block-device mount).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "runner/common/atomic_file.h"
#include "runner/common/shared_dir.h"
#include "runner/profile/options.h"
#include "runner/profile/profile_loader.h"
#include "runner/profile/profile_repository.h"

namespace fs = std::filesystem;
using nlohmann::json;
using namespace ptsn::profile;

namespace {

MachineFacts GeneratingMachine() {
  MachineFacts f;
  f.logical_cores = 2;
  f.physical_cores = 2;
  f.memory_mb = 24576;
  f.disk_mount_points = {"/"};
  f.disks = {"/dev/vda"};  // its only disk, as recorded in the golden auto-disks menus
  f.os = "Linux";
  f.arch = "x86_64";
  // PTS assumes OpenCL and Vulkan work unless clinfo/vulkaninfo say otherwise (neither was
  // installed there), so only the GPU-vendor and OS checks dropped entries.
  f.opencl = true;
  f.vulkan = true;
  // auto-file-select / auto-executable / auto-directory-select test paths of that machine; none
  // of the corpus entries exist there except plain system paths, which exist here too.
  f.is_file = [](const std::string& p) { return fs::is_regular_file(p); };
  f.is_executable = [](const std::string& p) { return fs::exists(p) && (fs::status(p).permissions() & fs::perms::owner_exec) != fs::perms::none; };
  f.is_writable_dir = [](const std::string& p) { return fs::is_directory(p); };
  return f;
}

std::string S(const json& j) { return j.is_null() ? "" : j.is_string() ? j.get<std::string>() : j.dump(); }

}  // namespace

TEST(OptionsConformance, EveryCorpusProfileExpandsLikePts) {
  std::string root = ::ptsn::SharedDir() + "/corpus/test-profiles";
  std::string golden = ::ptsn::SharedDir() + "/corpus/test-profiles-options";
  if (!fs::is_directory(root) || !fs::is_directory(golden)) GTEST_SKIP() << "corpus is absent";
  ProfileRepository repo({root});
  MachineFacts facts = GeneratingMachine();
  int compared = 0, matched = 0;
  std::vector<std::string> failures;
  for (const auto& ref : repo.ListProfiles()) {
    fs::path gfile = fs::path(golden) / (ref.identifier + ".json");
    if (!fs::exists(gfile)) continue;
    json g = json::parse(ptsn::ReadFile(gfile.string()));
    TestProfile p = repo.LoadProfile(ref.identifier);
    AutoProcessOptions(&p.options, facts, p.external_dependencies);
    ++compared;
    std::string diff;
    // The golden files were made with each profile alone (no --profiles-root), so an Extends
    // parent was not available to PTS there and nothing was inherited; we do inherit (PTS's
    // xg() asks the parent), so compare our own element texts for those.
    bool orphaned = !p.extends.empty();
    std::string def_args = p.default_arguments, def_post = p.default_post_arguments;
    if (orphaned) {
      ProfileSource src = ReadProfileDirectory(ref.directory, ref.identifier, nullptr);
      def_args = src.fields.count("TestSettings/Default/Arguments") ? src.fields["TestSettings/Default/Arguments"] : "";
      def_post = src.fields.count("TestSettings/Default/PostArguments") ? src.fields["TestSettings/Default/PostArguments"] : "";
    }
    if (S(g["default_arguments"]) != def_args) diff = "default_arguments";
    if (S(g["default_post_arguments"]) != def_post) diff = "default_post_arguments";
    if (diff.empty() && g["options"].size() != p.options.size()) diff = "option count";
    for (size_t i = 0; diff.empty() && i < p.options.size(); ++i) {
      const json& go = g["options"][i];
      const TestOption& o = p.options[i];
      if (S(go["identifier"]) != o.identifier || S(go["display_name"]) != o.display_name ||
          S(go["prefix"]) != o.prefix || S(go["postfix"]) != o.postfix)
        diff = "option " + o.identifier + " attributes";
      else if (go["default_index"].get<int>() != o.ExplicitDefault())
        diff = "option " + o.identifier + " default_index " + std::to_string(o.ExplicitDefault());
      else if (go["entries"].size() != o.entries.size())
        diff = "option " + o.identifier + " entry count " + std::to_string(o.entries.size()) + " != " +
               std::to_string(go["entries"].size());
      for (size_t k = 0; diff.empty() && k < o.entries.size(); ++k) {
        const json& ge = go["entries"][k];
        if (S(ge["name"]) != o.entries[k].name || S(ge["value"]) != o.entries[k].value ||
            S(ge["message"]) != o.entries[k].message)
          diff = "option " + o.identifier + " entry " + std::to_string(k) + " '" + o.entries[k].name + "'";
      }
    }
    auto compare = [&](const char* what, const std::vector<RunOption>& mine) {
      const json& want = g[what];
      if (!diff.empty()) return;
      if (want.size() != mine.size()) {
        diff = std::string(what) + " count " + std::to_string(mine.size()) + " != " + std::to_string(want.size());
        return;
      }
      for (size_t k = 0; k < mine.size(); ++k)
        if (S(want[k]["arguments"]) != mine[k].arguments || S(want[k]["description"]) != mine[k].description) {
          diff = std::string(what) + "[" + std::to_string(k) + "] '" + mine[k].arguments + "' / '" +
                 mine[k].description + "' != '" + S(want[k]["arguments"]) + "' / '" + S(want[k]["description"]) + "'";
          return;
        }
    };
    compare("batch", BatchOptions(p.options));
    compare("defaults", DefaultOptions(p.options));
    if (diff.empty()) ++matched;
    else failures.push_back(ref.identifier + ": " + diff);
  }
  std::cout << "option expansion: " << matched << "/" << compared << " corpus profiles match the real PTS\n";
  for (const auto& f : failures) ADD_FAILURE() << f;
  EXPECT_GT(compared, 600);
}
