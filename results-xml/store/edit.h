// In-place edits of a result file, as PTS's rename-identifier-in-result-file,
// remove-result-from-result-file and remove-run-from-result-file do them. Each returns what it
// changed and throws ptsn::Error (naming the identifier/result) when there is nothing to change,
// so a typo never silently rewrites a file.
#pragma once

#include <string>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

// pts_result_file::rename_run(): the first System called `from` and, in every Result, the first
// Entry of `from` get the identifier `to` (taken verbatim, as PTS does). Refuses an unknown
// `from`, an empty or >128-character `to`, and a `to` another System already uses.
void RenameIdentifier(ResultFile& file, const std::string& from, const std::string& to);

// Finds a result by 1-based position (as PTS's menu numbers them) or by comparison hash (full
// or an unambiguous prefix of at least 6 hex digits). Returns the 0-based index.
size_t FindResult(const ResultFile& file, const std::string& index_or_hash);

// Removes the result at `index` and its derived children (Results whose Parent is its
// comparison hash, e.g. the monitor results of a test). Returns the removed results' titles
// with descriptions, for the message.
std::vector<std::string> RemoveResult(ResultFile& file, size_t index);

// Removes every System called `identifier` and its entries; Results left without entries are
// removed too (PTS's writer would drop them). Returns the number of entries removed.
size_t RemoveSystem(ResultFile& file, const std::string& identifier);

}  // namespace ptsn::results
