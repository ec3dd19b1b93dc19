#include "results-xml/views/multi_way.h"

#include <algorithm>
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

// "A: B" -> "B: A" (a name without ": " stays as it is).
std::string Swapped(const std::string& identifier) {
  if (identifier.find(": ") == std::string::npos) return identifier;
  return NameInGroup(identifier) + ": " + GroupOf(identifier);
}

}  // namespace

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
      // A system already named "GROUP: NAME" (a multi-way file) as "GROUP / NAME", so that the
      // condensed result is still a two-way comparison: option set by system.
      for (const auto& e : r.entries) {
        std::string system = e.identifier;
        for (size_t at = 0; (at = system.find(": ", at)) != std::string::npos;) system.replace(at, 2, " / ");
        out.entries.push_back({value + ": " + system, e.value, e.raw_string, e.json});
      }
    }
    out.description = (option.empty() ? "Options" : option) + ": " + values + (best->shared.empty() ? "" : " - " + best->shared);
    out.arguments = arguments;
    formed.emplace_back(i, std::move(out));
  }
  if (formed.empty()) return 0;
  // The replaced results go with their monitor children (a child names its test by hash).
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
  return formed.size();
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
