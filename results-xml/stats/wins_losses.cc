#include "results-xml/stats/wins_losses.h"

#include <algorithm>
#include <optional>

#include "results-xml/stats/statistics.h"
#include "runner/common/strings.h"

namespace ptsn::results {
namespace {

// The system with the lowest and the highest value, as pts_test_result_buffer finds them
// (check_buffer_item_for_min_max): entries in order, a comma list by its smallest and largest
// part, non-numeric values left out; the minimum starts "unset" at 0 and the maximum at 0, so
// ties keep the first and a maximum never goes below 0.
struct Extremes {
  std::optional<std::string> min_identifier, max_identifier;
};
Extremes FindExtremes(const Result& r) {
  Extremes x;
  double min_value = 0, max_value = 0;
  for (const Entry& e : r.entries) {
    double low = 0, high = 0;
    if (PhpIsNumeric(e.value)) {
      low = high = PhpToNumber(e.value);
    } else {
      std::vector<std::string> parts = Split(e.value, ',');
      bool first = true, numeric = true;
      for (const auto& p : parts) {
        if (!PhpIsNumeric(p)) {
          numeric = false;
          break;
        }
        double v = PhpToNumber(p);
        low = first ? v : std::min(low, v);
        high = first ? v : std::max(high, v);
        first = false;
      }
      if (!numeric || parts.empty()) continue;
    }
    if (low < min_value || min_value == 0) min_value = low, x.min_identifier = e.identifier;
    if (high > max_value) max_value = high, x.max_identifier = e.identifier;
  }
  return x;
}

void Count(std::vector<std::pair<std::string, int>>& tally, const std::string& identifier) {
  auto it = std::find_if(tally.begin(), tally.end(), [&](const auto& t) { return t.first == identifier; });
  if (it == tally.end()) tally.emplace_back(identifier, 1);
  else ++it->second;
}

// pts_user_io::display_text_table(): each column as wide as its longest text cell plus one; the
// losses' counts are PHP integers there, which do not widen their column.
struct Cell {
  std::string text;
  bool widens = true;
};
std::string TextTable(const std::vector<std::vector<Cell>>& rows, const std::string& prefix) {
  std::vector<size_t> widths;
  for (const auto& row : rows)
    for (size_t c = 0; c < row.size(); ++c) {
      if (widths.size() <= c) widths.push_back(0);
      if (row[c].widens) widths[c] = std::max(widths[c], row[c].text.size());
    }
  std::string out;
  for (size_t r = 0; r < rows.size(); ++r) {
    std::string line = prefix;
    for (size_t c = 0; c < rows[r].size(); ++c) {
      line += rows[r][c].text;
      size_t room = widths[c] + 1;
      if (room > rows[r][c].text.size()) line.append(room - rows[r][c].text.size(), ' ');
    }
    out += (r == 0 ? "" : "\n") + line;
  }
  return out;
}

}  // namespace

WinsLosses CountWinsLosses(const ResultFile& file) {
  WinsLosses w;
  const size_t systems = file.systems.size();
  for (const Result& r : file.results) {
    if (r.identifier.empty()) continue;
    ++w.possible;
    if (r.entries.size() < 2 || r.entries.size() < systems / 2) continue;
    Extremes x = FindExtremes(r);
    std::optional<std::string> winner, loser;
    if (r.proportion == "LIB") winner = x.min_identifier, loser = x.max_identifier;
    else if (r.proportion == "HIB") winner = x.max_identifier, loser = x.min_identifier;
    if (!winner || !loser) continue;
    Count(w.wins, *winner);
    Count(w.losses, *loser);
    ++w.counted;
  }
  auto most_first = [](const auto& a, const auto& b) { return a.second > b.second; };
  std::stable_sort(w.wins.begin(), w.wins.end(), most_first);
  std::stable_sort(w.losses.begin(), w.losses.end(), most_first);
  return w;
}

std::string WinsLossesText(const ResultFile& file) {
  const std::string prefix = "   ";
  std::string out = prefix + file.generated.title + "\n\n";
  if (file.systems.size() < 2) return out + "\nThere are not multiple test runs in this result file.\n";
  WinsLosses w = CountWinsLosses(file);
  if (w.wins.empty()) return out;
  auto share = [&](int count) { return " [" + PhpNumberFormat(100.0 * count / w.counted, 1) + "%]"; };
  std::vector<std::vector<Cell>> rows;
  auto row = [&](std::string a, Cell b, std::string c) { rows.push_back({Cell{std::move(a)}, std::move(b), Cell{std::move(c)}}); };
  row("WINS:", Cell{""}, "");
  for (const auto& [id, count] : w.wins) row(id + ": ", Cell{std::to_string(count) + " "}, share(count));
  row("", Cell{""}, "");
  row("LOSSES: ", Cell{""}, "");
  for (const auto& [id, count] : w.losses) row(id + ": ", Cell{std::to_string(count), false}, share(count));
  out += TextTable(rows, prefix) + "\n";
  out += prefix + "TESTS COUNTED: " +
         (w.counted == w.possible ? std::to_string(w.counted) : std::to_string(w.counted) + " of " + std::to_string(w.possible)) +
         "\n";
  return out;
}

}  // namespace ptsn::results
