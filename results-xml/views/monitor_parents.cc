#include "results-xml/views/monitor_parents.h"

#include <string>
#include <unordered_map>

#include "results-xml/model/comparison_hash.h"

namespace ptsn::results {

std::vector<size_t> MonitorParents(const ResultFile& file) {
  const size_t n = file.results.size();
  std::vector<size_t> parent(n, kNoMonitorParent);
  std::unordered_map<std::string, size_t> by_hash;
  for (size_t i = 0; i < n; ++i)
    if (file.results[i].parent) {
      for (size_t k = 0; k < n; ++k) by_hash.emplace(ComparisonHash(file.results[k]), k);
      break;
    }
  for (size_t i = 0; i < n; ++i) {
    const Result& m = file.results[i];
    if (m.parent) {
      if (auto it = by_hash.find(*m.parent); it != by_hash.end() && it->second != i) parent[i] = it->second;
      continue;
    }
    if (!m.identifier.empty() || m.display_format != "LINE_GRAPH") continue;
    size_t best_arguments = 0;
    for (size_t k = 0; k < n; ++k) {
      const Result& t = file.results[k];
      if (t.identifier.empty() || t.title != m.title || m.arguments.size() <= t.arguments.size() ||
          !m.arguments.ends_with(t.arguments) || (parent[i] != kNoMonitorParent && t.arguments.size() <= best_arguments))
        continue;
      parent[i] = k, best_arguments = t.arguments.size();
    }
  }
  return parent;
}

std::vector<std::vector<size_t>> ResultPages(const ResultFile& file, size_t size) {
  const std::vector<size_t> parent = MonitorParents(file);
  const size_t n = parent.size();
  // Each result's test: up its parents (a series of a series follows the test too); a result on a
  // loop of parents, which no test heads, stands on its own.
  auto root = [&](size_t i) {
    size_t r = i;
    for (size_t steps = 0; parent[r] != kNoMonitorParent && steps <= n; ++steps) r = parent[r];
    return parent[r] == kNoMonitorParent ? r : i;
  };
  std::vector<std::vector<size_t>> series(n);
  std::vector<bool> heads(n, false);
  for (size_t i = 0; i < n; ++i) {
    const size_t r = root(i);
    if (r == i) heads[i] = true;
    else series[r].push_back(i);
  }
  std::vector<std::vector<size_t>> pages;
  auto add = [&](size_t k) {
    if (pages.back().size() == size) pages.emplace_back();
    pages.back().push_back(k);
  };
  for (size_t i = 0; i < n; ++i) {
    if (!heads[i]) continue;
    if (pages.empty() || (!pages.back().empty() && pages.back().size() + 1 + series[i].size() > size)) pages.emplace_back();
    add(i);
    for (size_t k : series[i]) add(k);
  }
  return pages;
}

}  // namespace ptsn::results
