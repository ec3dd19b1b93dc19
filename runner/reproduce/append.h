// Filing this system's results into the published file so each lines up under the published
// ones. A test run with the stored profile produces a Result with the same comparison hash and
// lands in the original Result element, as PTS's add_result() does. A stand-in produces a
// different test (other profile, other arguments, often another scale), so its hash cannot
// match; its entry is filed into the ORIGINAL Result element instead, and marked:
//   Entry/JSON  {"stand-in":"native/fs-files-1.0.0 for pts/fs-mark-1.0", ...}
//   System/Notes of the new identifier: "Stand-ins: ... ." listing each one
// so no view can pass it off as the original program's number.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "results-xml/views/export_common.h"
#include "runner/reproduce/plan.h"

namespace ptsn::reproduce {

// The Entry JSON key that marks a stand-in entry (the views read it: results-xml/views/export_common.h).
inline constexpr const char* kStandInJsonKey = results::kStandInKey;
// On the entries of a stand-in that measured in another unit or direction than the original:
// the original Result's comparison hash. Such a stand-in is never filed under the original (its
// bar would sit on the original's axis): it keeps Results of its own, right after the original.
inline constexpr const char* kStandInForJsonKey = "stand-in-for";

inline constexpr size_t kNoResult = static_cast<size_t>(-1);
// Where `item`'s published Result is in `file` now (by its comparison hash, so results inserted
// before it do not matter); kNoResult when it is not there.
size_t OriginalIndex(const results::ResultFile& file, const PlanItem& item);

// Whether `identifier` has a value for the published test `file.results[original]`: an entry of
// its own there (the original's, or a stand-in's filed under it), or one of a stand-in kept apart
// (a Result of its own whose entry points at the original's hash). The one test of "done" that
// resuming a reproduction (RemainingItems) and finish-run's choice of incomplete runs share.
bool HasValueFor(const results::ResultFile& file, size_t original, const std::string& identifier);

// The original's comparison hash when `entry` is a stand-in kept apart from it, else nullopt.
std::optional<std::string> StandInForOf(const results::Entry& entry);
// Whether a stand-in's result may be filed under (drawn on the axis of) the original's: the
// same unit (SameUnit) and not the opposite direction (HIB vs LIB).
bool LinesUp(const results::Result& stand_in, const results::Result& original);

// "native/fs-files-1.0.0 for pts/fs-mark-1.0" when `entry` is a stand-in's, else nullopt.
std::optional<std::string> StandInOf(const results::Entry& entry);
// The stand-in's own unit when it differs from the published result's scale, else nullopt.
std::optional<std::string> StandInScaleOf(const results::Entry& entry);

// Adds (or replaces, on a resumed run) `entry` in `result`; a stand-in label is merged into the
// entry's JSON (PTS json_encode style, '/' escaped).
void PutEntry(results::Result& result, results::Entry entry, const std::optional<std::string>& stand_in_label);

// Rewrites what a stand-in produced so it files under the original: the test result takes the
// original's Identifier/Title/AppVersion/Arguments/Description/Scale/Proportion (hence its
// comparison hash), its entries are marked with `label` (and "stand-in-scale" when the stand-in
// measured in another unit); monitor children follow (Parent, Title, AppVersion, the arguments
// suffix). Used both by FoldRunResults and as a hook for a run loop that merges by hash itself.
std::vector<results::Result> RelabelAsOriginal(const std::vector<results::Result>& produced,
                                               const results::Result& original, const std::string& label);

// Folds what the runner produced for `item` into `file`. `produced` holds the run's results
// for the test: the test's own result first, then its derived (monitor) children whose Parent is
// the test result's comparison hash. Each carries one Entry for `identifier`.
//  * original: results merge by comparison hash (a new Result element is appended when the hash
//    is new, e.g. the newer profile changed AppVersion — exactly what PTS does);
//  * stand-in: the test entry goes into file.results[item.result_index]; its monitor children
//    are re-labelled as children of the original (Title/AppVersion/arguments of the original,
//    Parent = the original's hash) so they line up with the published monitor results too;
//  * a stand-in that does not line up (LinesUp: another unit or the opposite direction) keeps its
//    own Results, marked with the label and kStandInForJsonKey, placed right after the original.
// Returns the comparison hashes the entries were filed under, test result first.
std::vector<std::string> FoldRunResults(results::ResultFile& file, const PlanItem& item,
                                        const std::vector<results::Result>& produced, const std::string& identifier);

// Units that compare directly: equal, or MB/s vs MiB/s (the comparison prints the caveat).
using results::SameUnit;

// For a run loop that files every result by its own hash (results::ResultIndex::Upsert): moves
// each stand-in's result (Identifier = the stand-in profile, Arguments = the plan's) and its monitor
// children for `identifier` under the original results, marked, and drops what is left empty.
// A stand-in that does not line up (LinesUp) is instead marked with kStandInForJsonKey and its
// Results are moved, whole, to just after the original's. Idempotent, so it can run after every
// save; returns how many stand-ins were filed.
size_t FoldStandIns(results::ResultFile& file, const ReproducePlan& plan, const std::string& identifier);

// PTS 10.8.6 names a sensor's per-test monitor result "<name> (<qualifier>) <test arguments>"
// ("CPU Usage (Summary) -s 1048576 -n 1000"); files written by PTS 3.x/4.x (the seed
// reconstructions) have "CPU Usage -s 1048576 -n 1000" for the same series. Moves `identifier`'s
// entries from a monitor child of the newer name (our targets may share one: each moves its own)
// into the published child of the older name
// with the same Parent and Scale, so they line up; returns how many moved. Idempotent.
size_t FoldIntoOlderMonitorNames(results::ResultFile& file, const std::string& identifier);

// Appends "Reproduction of NAME by pts-native." and, when the plan has stand-ins, "Stand-ins
// (not the original programs): A; B." to the notes of the new `system` (idempotent). The first
// sentence is also how a later run recognises this system as its own (see consent.h).
void NoteReproduction(results::System& system, const std::string& reproduced_name, const ReproducePlan& plan);
bool IsReproductionSystem(const results::System& system);

}  // namespace ptsn::reproduce
