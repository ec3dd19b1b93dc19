// Putting a Result into a result file by comparison hash, the way PTS's add_result does: an
// incoming result with the hash of one already there gives that one its entries (an entry of the
// same system replacing the old), else it is added. The run loop, reproduce, the monitor and
// merge all put results in through a ResultIndex.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

// Which result an incoming one merges into.
enum class Match {
  kHash,           // the first with its comparison hash (PTS)
  kHashAndParent,  // the first with its hash and its Parent: the run loop keeps apart the monitor
                   // children of two results that share a hash only because the children's
                   // fields (title, arguments, version, sensor unit) do
};

// The results of one file by comparison hash, so that putting a result in hashes only the incoming
// one: each result of the file is hashed once, when the index is made or when it comes in through
// the index. The index follows the changes made through it; after any other change to
// file.results, make a new one (a change of their number is caught and is an error).
class ResultIndex {
 public:
  explicit ResultIndex(ResultFile& file);

  // The position of the first result with `hash` (and, with kHashAndParent, `parent`), if any.
  std::optional<size_t> Find(const std::string& hash, Match match = Match::kHash,
                             const std::optional<std::string>& parent = std::nullopt) const;
  // The position after the last result with `hash`; nullopt when there is none.
  std::optional<size_t> After(const std::string& hash) const;
  const std::string& HashAt(size_t position) const;

  // PTS's add_result: `result`'s entries go into the result that Find() gives (an entry of the
  // same identifier is replaced, others are appended, in order); without one, `result` is
  // inserted at `position` (the end when past it). Returns the position it went to.
  size_t Upsert(Result result, Match match = Match::kHash, size_t position = kAtEnd);
  // Inserts `result`, whose comparison hash is `hash`, as a new one at `position` (the end when
  // past it), whatever results have that hash already (merge decides on its own what goes in).
  size_t Insert(Result result, std::string hash, size_t position = kAtEnd);

  static constexpr size_t kAtEnd = static_cast<size_t>(-1);

 private:
  void CheckInStep() const;

  ResultFile& file_;
  std::vector<std::string> hashes_;  // hashes_[i] is the hash of file_.results[i]
  std::unordered_map<std::string, std::vector<size_t>> positions_;  // hash -> its positions, ascending
};

}  // namespace ptsn::results
