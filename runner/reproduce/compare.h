// The side-by-side view printed after a reproduction: every result that has this system's
// entry, drawn as the text export draws it (bars for every system), followed by this system's
// value as a percentage of each published one and the verdict of a comparison of separately run
// systems (results-xml/stats/runs_verdict.h: with one run of each, "unknown", and what would decide it).
// Stand-in entries are marked in the bars and in the lines below them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "results-xml/stats/runs_verdict.h"

namespace ptsn::reproduce {

struct VersusPublished {
  std::string published;          // the published system's identifier
  double percent = 0;             // this system's value / published value * 100
  bool better = false;            // in the result's direction (HIB: higher, LIB: lower)
  // This system's runs ("NAME", "NAME #2" ...) against the published system's, as compare-results
  // judges separately run systems; nullopt when a side has no trials.
  std::optional<results::RunsVerdict> verdict;
};

struct ResultComparison {
  size_t result_index = 0;
  std::optional<std::string> stand_in;  // label when this system's entry came from a stand-in
  std::string not_comparable;           // why no percentages ("failed", "measured in TPS, not Seconds")
  std::string caveat;                   // percentages shown, but read them with this in mind
  std::vector<VersusPublished> versus;
};

// `identifier`'s entry in `r`; nullptr when it has none.
const results::Entry* FindEntry(const results::Result& r, const std::string& identifier);

// One comparison per result (in file order) that has an entry for `identifier`, derived
// (monitor) results excluded.
std::vector<ResultComparison> CompareWithPublished(const results::ResultFile& file, const std::string& identifier);

// The printed view. `width` is the terminal width for the bars (PTS's default 79).
std::string ComparisonText(const results::ResultFile& file, const std::string& identifier, int width = 79);

}  // namespace ptsn::reproduce
