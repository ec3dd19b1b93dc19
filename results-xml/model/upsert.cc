#include "results-xml/model/upsert.h"

#include <algorithm>
#include <utility>

#include "results-xml/model/comparison_hash.h"
#include "runner/common/error.h"

namespace ptsn::results {

ResultIndex::ResultIndex(ResultFile& file) : file_(file) {
  hashes_.reserve(file_.results.size());
  for (size_t i = 0; i < file_.results.size(); ++i) {
    hashes_.push_back(ComparisonHash(file_.results[i]));
    positions_[hashes_.back()].push_back(i);
  }
}

void ResultIndex::CheckInStep() const {
  if (hashes_.size() != file_.results.size())
    throw Error("result index: the file has " + std::to_string(file_.results.size()) + " results, the index " +
                std::to_string(hashes_.size()) + " (results were added or removed past it)");
}

std::optional<size_t> ResultIndex::Find(const std::string& hash, Match match,
                                        const std::optional<std::string>& parent) const {
  CheckInStep();
  auto it = positions_.find(hash);
  if (it == positions_.end()) return std::nullopt;
  for (size_t i : it->second)
    if (match == Match::kHash || file_.results[i].parent == parent) return i;
  return std::nullopt;
}

std::optional<size_t> ResultIndex::After(const std::string& hash) const {
  CheckInStep();
  auto it = positions_.find(hash);
  if (it == positions_.end()) return std::nullopt;
  return it->second.back() + 1;
}

const std::string& ResultIndex::HashAt(size_t position) const {
  CheckInStep();
  return hashes_.at(position);
}

size_t ResultIndex::Upsert(Result result, Match match, size_t position) {
  std::string hash = ComparisonHash(result);
  std::optional<size_t> have = Find(hash, match, result.parent);
  if (!have) return Insert(std::move(result), std::move(hash), position);
  std::vector<Entry>& entries = file_.results[*have].entries;
  for (Entry& entry : result.entries) {
    auto same = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.identifier == entry.identifier; });
    if (same != entries.end()) *same = std::move(entry);
    else entries.push_back(std::move(entry));
  }
  return *have;
}

size_t ResultIndex::Insert(Result result, std::string hash, size_t position) {
  CheckInStep();
  position = std::min(position, file_.results.size());
  if (position < file_.results.size())
    for (auto& [h, at] : positions_)
      for (size_t& i : at)
        if (i >= position) ++i;
  std::vector<size_t>& at = positions_[hash];
  at.insert(std::upper_bound(at.begin(), at.end(), position), position);
  file_.results.insert(file_.results.begin() + static_cast<std::ptrdiff_t>(position), std::move(result));
  hashes_.insert(hashes_.begin() + static_cast<std::ptrdiff_t>(position), std::move(hash));
  return position;
}

}  // namespace ptsn::results
