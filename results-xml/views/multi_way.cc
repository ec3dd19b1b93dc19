#include "results-xml/views/multi_way.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_set>

#include "results-xml/model/comparison_hash.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

std::vector<std::string> SplitOn(const std::string& s, const std::string& sep) {
  std::vector<std::string> out;
  size_t from = 0;
  for (size_t at; (at = s.find(sep, from)) != std::string::npos; from = at + sep.size()) out.push_back(s.substr(from, at - from));
  out.push_back(s.substr(from));
  return out;
}

std::string JoinExcept(const std::vector<std::string>& parts, size_t skip) {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i)
    if (i != skip) out += (out.empty() ? "" : " - ") + parts[i];
  return out;
}

// A system's name as the NAME of a condensed result's "GROUP: NAME": one already named
// "GROUP: NAME" (a multi-way file) as "GROUP / NAME", so that the condensed result is still a
// two-way comparison: option set (or version) by system.
std::string AsNameInGroup(std::string system) {
  for (size_t at = 0; (at = system.find(": ", at)) != std::string::npos;) system.replace(at, 2, " / ");
  return system;
}

// "pts/dbench-1.0.2" -> {"pts/dbench", "1.0.2"}; an identifier without a version: {it, ""}.
std::pair<std::string, std::string> SplitVersion(const std::string& identifier) {
  const auto dash = identifier.rfind('-');
  if (dash == std::string::npos || dash + 1 == identifier.size()) return {identifier, ""};
  const std::string version = identifier.substr(dash + 1);
  const bool numeric = std::isdigit(static_cast<unsigned char>(version[0])) &&
                       std::all_of(version.begin(), version.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; });
  return numeric ? std::pair{identifier.substr(0, dash), version} : std::pair{identifier, std::string()};
}

// Puts each formed result at the index of its first member (`formed` in index order) and drops
// the results it replaced (`taken`) with their monitor children (a child names its test by hash).
void ReplaceResults(ResultFile& file, const std::vector<bool>& taken, std::vector<std::pair<size_t, Result>>& formed) {
  std::unordered_set<std::string> replaced;
  for (size_t i = 0; i < file.results.size(); ++i)
    if (taken[i]) replaced.insert(ComparisonHash(file.results[i]));
  std::vector<Result> kept;
  size_t next = 0;
  for (size_t i = 0; i < file.results.size(); ++i) {
    if (next < formed.size() && formed[next].first == i) kept.push_back(std::move(formed[next++].second));
    if (taken[i] || (file.results[i].parent && replaced.count(*file.results[i].parent))) continue;
    kept.push_back(std::move(file.results[i]));
  }
  file.results = std::move(kept);
}

}  // namespace

std::string Swapped(const std::string& identifier) {
  if (identifier.find(": ") == std::string::npos) return identifier;
  return NameInGroup(identifier) + ": " + GroupOf(identifier);
}

bool MultiWay(const Result& r) {
  if (r.entries.size() < 2) return false;
  for (const auto& e : r.entries) {
    const std::string& id = e.identifier;
    if (std::count(id.begin(), id.end(), ':') != 1) return false;
    if (id.size() > 14 && id[4] == '-' && id[13] == ':') return false;
  }
  return true;
}

std::string GroupOf(const std::string& identifier) {
  const auto at = identifier.find(": ");
  return Trim(at == std::string::npos ? identifier : identifier.substr(0, at));
}

std::string NameInGroup(const std::string& identifier) {
  const auto at = identifier.find(": ");
  return at == std::string::npos ? "" : Trim(identifier.substr(at + 2));
}

size_t CondenseOptionSets(ResultFile& file) {
  // Each test result belongs to one candidate set per part of its description: the results of
  // the same test, unit and direction whose other parts are the same.
  struct Candidate {
    size_t part;
    std::string shared;  // the other parts
    std::vector<size_t> members;
  };
  std::map<std::string, Candidate> candidates;
  std::vector<std::vector<std::string>> keys(file.results.size());
  for (size_t i = 0; i < file.results.size(); ++i) {
    const Result& r = file.results[i];
    if (r.identifier.empty() || r.parent || r.display_format != "BAR_GRAPH" || r.entries.empty()) continue;
    const std::vector<std::string> parts = SplitOn(r.description, " - ");
    for (size_t p = 0; p < parts.size(); ++p) {
      const std::string shared = JoinExcept(parts, p);
      std::string key = r.identifier + '\n' + r.scale + '\n' + r.proportion + '\n' + std::to_string(parts.size()) + '\n' +
                        std::to_string(p) + '\n' + shared;
      auto& c = candidates[key];
      c.part = p, c.shared = shared;
      c.members.push_back(i);
      keys[i].push_back(std::move(key));
    }
  }
  // In file order, each result not yet taken joins its largest set of two or more still free.
  // A set holds one result per value of its varying part: a test run twice with the same
  // options stays as it is (merged, its groups had the same name twice).
  std::vector<bool> taken(file.results.size(), false);
  auto free_members = [&](const Candidate& c) {
    std::vector<size_t> out;
    std::set<std::string> seen;
    for (size_t k : c.members)
      if (!taken[k] && seen.insert(SplitOn(file.results[k].description, " - ")[c.part]).second) out.push_back(k);
    return out;
  };
  std::vector<std::pair<size_t, Result>> formed;  // at the index of its first member
  for (size_t i = 0; i < file.results.size(); ++i) {
    if (taken[i]) continue;
    const Candidate* best = nullptr;
    std::vector<size_t> members;
    for (const auto& key : keys[i]) {
      const Candidate& c = candidates[key];
      std::vector<size_t> free = free_members(c);
      if (free.size() > std::max<size_t>(members.size(), 1) && free.front() == i) best = &c, members = std::move(free);
    }
    if (!best) continue;
    Result out;
    const Result& first = file.results[i];
    out.title = first.title;
    out.app_version = first.app_version;
    out.scale = first.scale;
    out.proportion = first.proportion;
    std::string option, values, arguments;
    for (size_t k : members) {
      taken[k] = true;
      const Result& r = file.results[k];
      const std::string part = SplitOn(r.description, " - ")[best->part];
      // "Client Count: 1": the option's name once, each set by its value.
      const bool named = part.find(": ") != std::string::npos;
      const std::string value = named ? NameInGroup(part) : Trim(part);
      if (option.empty() && named) option = GroupOf(part);
      values += (values.empty() ? "" : "; ") + value;
      arguments += (arguments.empty() ? "" : ", ") + r.arguments;
      for (const auto& e : r.entries) out.entries.push_back({value + ": " + AsNameInGroup(e.identifier), e.value, e.raw_string, e.json});
    }
    out.description = (option.empty() ? "Options" : option) + ": " + values + (best->shared.empty() ? "" : " - " + best->shared);
    out.arguments = arguments;
    formed.emplace_back(i, std::move(out));
  }
  ReplaceResults(file, taken, formed);
  return formed.size();
}

size_t CondenseVersions(ResultFile& file) {
  // The results of one test (without its version), description, unit and direction.
  std::map<std::string, std::vector<size_t>> sets;
  std::vector<std::string> key_of(file.results.size());
  for (size_t i = 0; i < file.results.size(); ++i) {
    const Result& r = file.results[i];
    if (r.identifier.empty() || r.parent || r.display_format != "BAR_GRAPH" || r.entries.empty()) continue;
    const auto [test, version] = SplitVersion(r.identifier);
    if (version.empty()) continue;
    key_of[i] = test + '\n' + r.description + '\n' + r.scale + '\n' + r.proportion;
    sets[key_of[i]].push_back(i);
  }
  // In file order, each result not yet taken with the later free ones of its set, one per version:
  // a repeat of a version stays as it is (merged, its group had the same name twice).
  std::vector<bool> taken(file.results.size(), false);
  std::vector<std::pair<size_t, Result>> formed;
  for (size_t i = 0; i < file.results.size(); ++i) {
    if (taken[i] || key_of[i].empty()) continue;
    std::vector<size_t> members;
    std::set<std::string> versions;
    for (size_t k : sets[key_of[i]])
      if (k >= i && !taken[k] && versions.insert(SplitVersion(file.results[k].identifier).second).second) members.push_back(k);
    if (members.size() < 2) continue;
    // A version by the program's version where every member has its own, else the test profile's.
    std::set<std::string> app_versions;
    for (size_t k : members) app_versions.insert(file.results[k].app_version);
    const bool by_app = app_versions.size() == members.size() && !app_versions.count("");
    const Result& first = file.results[i];
    Result out;
    out.title = first.title;
    out.scale = first.scale;
    out.proportion = first.proportion;
    out.description = "Version Comparison" + (first.description.empty() ? "" : " (" + first.description + ")");
    std::string arguments;
    for (size_t k : members) {
      taken[k] = true;
      const Result& r = file.results[k];
      const std::string version = by_app ? r.app_version : SplitVersion(r.identifier).second;
      arguments += (arguments.empty() ? "" : ", ") + r.arguments;
      for (const auto& e : r.entries) out.entries.push_back({version + ": " + AsNameInGroup(e.identifier), e.value, e.raw_string, e.json});
    }
    out.arguments = arguments;
    formed.emplace_back(i, std::move(out));
  }
  ReplaceResults(file, taken, formed);
  return formed.size();
}

std::vector<std::pair<std::string, std::string>> GroupsAndSystems(const Result& r, const std::vector<System>& systems) {
  if (!MultiWay(r)) return {};
  std::map<std::string, std::string> system_of_name;
  for (const auto& s : systems) system_of_name[AsNameInGroup(s.identifier)] = s.identifier;
  for (const auto& e : r.entries)
    for (const auto& s : systems)
      if (s.identifier == e.identifier) return {};
  // "GROUP: SYSTEM" as cmw and cmv name the values, else "SYSTEM: GROUP" as imw leaves them.
  for (const bool transposed : {false, true}) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& e : r.entries) {
      const std::string group = transposed ? NameInGroup(e.identifier) : GroupOf(e.identifier);
      auto system = system_of_name.find(transposed ? GroupOf(e.identifier) : NameInGroup(e.identifier));
      if (system == system_of_name.end()) break;
      out.emplace_back(group, system->second);
    }
    if (out.size() == r.entries.size()) return out;
  }
  return {};
}

std::vector<std::pair<std::string, Result>> SplitByGroup(const Result& r, const std::vector<System>& systems) {
  const auto named = GroupsAndSystems(r, systems);
  std::vector<std::pair<std::string, Result>> out;
  for (size_t k = 0; k < named.size(); ++k) {
    const std::string& group = named[k].first;  // (not a structured binding: clang's lambdas can't capture one)
    const std::string& system = named[k].second;
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& g) { return g.first == group; });
    if (it == out.end()) {
      Result part = r;
      part.title = Trim(r.title + " " + r.app_version) + " (" + group + ")";
      part.app_version.clear();
      part.entries.clear();
      out.emplace_back(group, std::move(part));
      it = out.end() - 1;
    }
    const Entry& e = r.entries[k];
    it->second.entries.push_back({system, e.value, e.raw_string, e.json});
  }
  return out;
}

size_t TransposeMultiWay(ResultFile& file) {
  std::unordered_set<std::string> systems;
  for (const auto& s : file.systems) systems.insert(s.identifier);
  size_t transposed = 0;
  bool named_by_systems = false;  // some transposed result's values were the systems' (not cmw's)
  for (auto& r : file.results) {
    if (!MultiWay(r)) continue;
    for (auto& e : r.entries) {
      named_by_systems = named_by_systems || systems.count(e.identifier) > 0;
      e.identifier = Swapped(e.identifier);
    }
    ++transposed;
  }
  Result names;  // the systems' names, checked as a result's values are
  for (const auto& s : file.systems) names.entries.push_back({s.identifier, "", {}, {}});
  if (named_by_systems && MultiWay(names))
    for (auto& s : file.systems) s.identifier = Swapped(s.identifier);
  return transposed;
}

}  // namespace ptsn::results
