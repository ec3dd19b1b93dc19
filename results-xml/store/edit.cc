#include "results-xml/store/edit.h"

#include <algorithm>
#include <unordered_set>

#include "results-xml/model/comparison_hash.h"
#include "runner/common/error.h"

namespace ptsn::results {

void RenameIdentifier(ResultFile& file, const std::string& from, const std::string& to) {
  if (to.empty() || to.size() > 128) throw Error("the new identifier must be 1 to 128 characters long");
  auto sys = std::find_if(file.systems.begin(), file.systems.end(),
                          [&](const System& s) { return s.identifier == from; });
  if (sys == file.systems.end()) throw Error("no system identifier '" + from + "' in this result file");
  if (from == to) return;
  for (const System& s : file.systems)
    if (s.identifier == to) throw Error("the identifier '" + to + "' is already used by another system");
  sys->identifier = to;
  for (Result& r : file.results) {
    auto e = std::find_if(r.entries.begin(), r.entries.end(), [&](const Entry& x) { return x.identifier == from; });
    if (e != r.entries.end()) e->identifier = to;
  }
}

size_t FindResult(const ResultFile& file, const std::string& index_or_hash) {
  bool digits = !index_or_hash.empty() && index_or_hash.size() < 6 &&
                std::all_of(index_or_hash.begin(), index_or_hash.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) {
    size_t n = std::stoul(index_or_hash);
    if (n < 1 || n > file.results.size())
      throw Error("result number " + index_or_hash + " is out of range (the file has " +
                  std::to_string(file.results.size()) + " results)");
    return n - 1;
  }
  std::string want = index_or_hash;
  std::transform(want.begin(), want.end(), want.begin(), [](unsigned char c) { return std::tolower(c); });
  bool hex = want.size() >= 6 && want.size() <= 40 &&
             std::all_of(want.begin(), want.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
  if (!hex) throw Error("'" + index_or_hash + "' is neither a result number nor a comparison hash");
  std::vector<size_t> found;
  for (size_t i = 0; i < file.results.size(); ++i)
    if (ComparisonHash(file.results[i]).starts_with(want)) found.push_back(i);
  if (found.empty()) throw Error("no result with comparison hash " + index_or_hash);
  if (found.size() > 1) throw Error("comparison hash prefix " + index_or_hash + " matches several results");
  return found[0];
}

std::vector<std::string> RemoveResult(ResultFile& file, size_t index) {
  if (index >= file.results.size()) throw Error("result index out of range");
  std::string hash = ComparisonHash(file.results[index]);
  std::vector<std::string> removed;
  std::vector<Result> kept;
  kept.reserve(file.results.size());
  for (size_t i = 0; i < file.results.size(); ++i) {
    Result& r = file.results[i];
    if (i == index || (r.parent && *r.parent == hash)) {
      removed.push_back(r.title + " (" + r.description + ")");
    } else {
      kept.push_back(std::move(r));
    }
  }
  file.results = std::move(kept);
  return removed;
}

size_t RemoveSystem(ResultFile& file, const std::string& identifier) {
  size_t systems = std::erase_if(file.systems, [&](const System& s) { return s.identifier == identifier; });
  if (systems == 0) throw Error("no system identifier '" + identifier + "' in this result file");
  size_t entries = 0;
  for (Result& r : file.results)
    entries += std::erase_if(r.entries, [&](const Entry& e) { return e.identifier == identifier; });
  std::erase_if(file.results, [](const Result& r) { return r.entries.empty(); });
  return entries;
}

}  // namespace ptsn::results
