#include "runner/reproduce/stand_in.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <regex>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/reproduce/profile_id.h"

namespace ptsn::reproduce {

namespace {

using XmlDoc = std::unique_ptr<xmlDoc, decltype(&xmlFreeDoc)>;

std::string Text(xmlNode* n) {
  xmlChar* c = xmlNodeGetContent(n);
  std::string s = c ? reinterpret_cast<const char*>(c) : "";
  xmlFree(c);
  return Trim(s);
}

std::string Name(xmlNode* n) { return reinterpret_cast<const char*>(n->name); }

std::regex CompilePattern(const std::string& pattern, const std::string& path) {
  try {
    return std::regex(pattern, std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    throw FileError(path, "StandInFor/Test/Arguments: '" + pattern + "' is not a valid regular expression (" +
                              e.what() + ")");
  }
}

}  // namespace

std::vector<StandInRule> ParseStandInDeclaration(const std::string& xml, const std::string& stand_in_profile,
                                                 const std::string& path) {
  // No network, no entity substitution, no DTD loading: a declaration is data, never a fetch.
  XmlDoc doc(xmlReadMemory(xml.data(), static_cast<int>(xml.size()), path.c_str(), nullptr,
                           XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING),
             xmlFreeDoc);
  if (!doc) throw FileError(path, "not well-formed XML");
  // Declarations never need a DOCTYPE; refusing one rules out entity tricks entirely.
  if (doc->intSubset || doc->extSubset) throw FileError(path, "a DOCTYPE is not allowed");
  xmlNode* root = xmlDocGetRootElement(doc.get());
  if (!root || Name(root) != "StandInFor") throw FileError(path, "the root element must be <StandInFor>");

  std::vector<StandInRule> rules;
  for (xmlNode* t = root->children; t; t = t->next) {
    if (t->type != XML_ELEMENT_NODE) continue;
    if (Name(t) != "Test") throw FileError(path, "unexpected element <" + Name(t) + "> in <StandInFor>");
    StandInRule r;
    r.stand_in_profile = stand_in_profile;
    r.declared_in = path;
    r.use_arguments = "$&";
    for (xmlNode* f = t->children; f; f = f->next) {
      if (f->type != XML_ELEMENT_NODE) continue;
      std::string n = Name(f), v = Text(f);
      if (n == "Profile") r.for_profile = v;
      else if (n == "Arguments") r.arguments_pattern = v;
      else if (n == "UseArguments") r.use_arguments = v;
      else if (n == "UseDescription") r.use_description = v;
      else if (n == "Note") r.note = v;
      else throw FileError(path, "unexpected element <" + n + "> in <StandInFor><Test>");
    }
    if (r.for_profile.empty()) throw FileError(path, "StandInFor/Test " + std::to_string(rules.size() + 1) + " has no <Profile>");
    if (r.arguments_pattern) CompilePattern(*r.arguments_pattern, path);
    rules.push_back(std::move(r));
  }
  return rules;
}

std::vector<StandInRule> LoadStandIns(const std::vector<std::string>& profile_roots) {
  namespace fs = std::filesystem;
  std::vector<StandInRule> all;
  for (const auto& root : profile_roots) {
    std::error_code ec;
    const fs::path dir = fs::path(root) / kStandInsDirectory;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& repo : fs::directory_iterator(dir, ec)) {
      if (!repo.is_directory()) continue;
      for (const auto& decl : fs::directory_iterator(repo.path(), ec))
        if (decl.path().extension() == ".xml" && decl.is_regular_file()) files.push_back(decl.path());
    }
    std::sort(files.begin(), files.end());  // directory order is arbitrary; rule order must not be
    for (const auto& f : files) {
      std::string id = f.parent_path().filename().string() + "/" + f.stem().string();
      auto rules = ParseStandInDeclaration(ReadFile(f.string()), id, f.string());
      all.insert(all.end(), rules.begin(), rules.end());
    }
  }
  return all;
}

bool ProfileCovers(const std::string& for_profile, const std::string& identifier) {
  ProfileId want = SplitProfileId(for_profile), have = SplitProfileId(identifier);
  if (want.base != have.base) return false;
  if (want.version.empty()) return true;
  return have.version == want.version || StartsWith(have.version, want.version + ".");
}

std::vector<StandInMatch> FindStandIns(const std::vector<StandInRule>& rules, const std::string& original_identifier,
                                       const std::string& arguments) {
  std::string args = Trim(arguments);
  std::vector<StandInMatch> found;
  for (const auto& r : rules) {
    if (!ProfileCovers(r.for_profile, original_identifier)) continue;
    if (std::any_of(found.begin(), found.end(),
                    [&](const StandInMatch& m) { return m.rule->stand_in_profile == r.stand_in_profile; }))
      continue;
    std::regex re = CompilePattern(r.arguments_pattern.value_or("[\\s\\S]*"), r.declared_in);
    std::smatch m;
    if (!std::regex_match(args, m, re)) continue;
    StandInMatch out;
    out.rule = &r;
    out.arguments = Trim(m.format(r.use_arguments));
    if (r.use_description) out.description = Trim(m.format(*r.use_description));
    found.push_back(std::move(out));
  }
  return found;
}

std::string StandInLabel(const std::string& stand_in_profile, const std::string& original_identifier) {
  ProfileId id = SplitProfileId(original_identifier);
  std::string series = id.version.empty() ? id.base : id.base + "-" + MajorMinor(id.version);
  return stand_in_profile + " for " + series;
}

}  // namespace ptsn::reproduce
