// merge-results with PTS 10.8.6 semantics (pts_result_file::merge / add_result /
// pts_test_result_buffer::add_buffer_item), minus its data loss:
//  * Results line up by comparison hash; order = first file's results, then results first seen
//    in the second file, then the third...; entries are appended in file order; a result some
//    systems lack simply has fewer entries.
//  * An entry whose (identifier, value) already exists is skipped; an existing entry with an
//    empty Value (failed/incomplete) is replaced by the incoming one for that identifier.
//  * Title/Description come from the first file (from a later one only where it is empty).
//  * Annotations are concatenated (" \n" between, skipped when already contained).
//  * The output is what PTS's reader+writer would make of it (NormalizeLikePts).
// Deliberate differences, each chosen by ClashPolicy or stated here:
//  * System identifier clashes: PTS silently appends a second System with the same identifier,
//    which makes the two indistinguishable in every view. kRename (default) renames the
//    incoming one to "Name #2" (#3, ...) and reports it; kError refuses; kKeep does what PTS does.
//    A System identical in every field to one already present whose entries are all already
//    present with the same values (the same run merged twice) is not a clash under
//    kRename/kError: it is not added again.
//  * Two Results with the same comparison hash inside ONE input: PTS's reader keeps only the
//    later one (at the earlier's position), dropping the earlier's entries; we merge them.
//  * PTS prefixes a merged annotation with " \n" even when there was none before; we do not.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

enum class ClashPolicy { kError, kRename, kKeep };
// "error" | "rename" | "keep"; throws ptsn::Error on anything else.
ClashPolicy ParseClashPolicy(const std::string& text);

struct MergeInput {
  std::string name;  // file name or saved name, for messages
  ResultFile file;
};

struct MergeOutcome {
  ResultFile merged;
  std::vector<std::string> notices;  // one line per renamed system, for stderr
};

// Incremental form, so a command can read, merge and free one file at a time (peak memory =
// the merged file + one input): Add() each input in order, then Finish() once.
class ResultMerger {
 public:
  explicit ResultMerger(ClashPolicy on_clash = ClashPolicy::kRename);
  ~ResultMerger();
  ResultMerger(const ResultMerger&) = delete;
  ResultMerger& operator=(const ResultMerger&) = delete;
  // Throws ptsn::Error under kError on a clash.
  void Add(MergeInput input);
  MergeOutcome Finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// All at once. Needs at least one input (two to be useful).
MergeOutcome MergeResultFiles(std::vector<MergeInput> inputs, ClashPolicy on_clash = ClashPolicy::kRename);

// What reading and re-writing a file through PTS does to it: Generated Notes/InternalTags/
// ReferenceID/PreSetEnvironmentVariables become present (empty if absent), System Notes present,
// System JSON dropped when empty/"{}"/"[]", RawString present and "" when it equals Value,
// CostValueForComparison kept only when numeric and > 0.
void NormalizeLikePts(ResultFile& file);

}  // namespace ptsn::results
