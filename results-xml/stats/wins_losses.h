// Which system wins and loses each test of a result file, as PTS's wins-and-losses
// (winners-and-losers) counts it (pts_result_file_analyzer::display_results_wins_losses):
// per test result (monitor children left out) with entries from at least two systems and at
// least half of them, the winner is the best value by the result's Proportion (HIB: highest,
// LIB: lowest) and the loser the worst; results without a Proportion count for nothing.
//
// One difference, on purpose: PTS counts only results whose test profile it can load on the
// machine it runs on (the same file gives different counts on different machines); we count every
// test result in the file.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

struct WinsLosses {
  std::vector<std::pair<std::string, int>> wins, losses;  // most first; ties in order of first win/loss
  int counted = 0;   // results that had a winner and a loser
  int possible = 0;  // test results in the file
};

WinsLosses CountWinsLosses(const ResultFile& file);

// The command's text as PTS prints it (without colour): the title, then the WINS and LOSSES
// tables with each share, then "TESTS COUNTED: n" ("n of m" when some could not be counted); a
// file with fewer than two systems says so instead.
std::string WinsLossesText(const ResultFile& file);

}  // namespace ptsn::results
