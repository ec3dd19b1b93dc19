// The systems of a result file for people: what differs between them first, and what every
// system shares once. OpenBenchmarking repeats every component in every column (1110088 shows
// the same processor, board and kernel four times, while only the encryption set-up, in the
// names and the notes, differs); here a component identical on all systems is one cell spanning
// the columns, and of the notes only the parts that differ are set beside each other. `sdt`
// (OpenBenchmarking's detailed system table) shows the full table instead.
#pragma once

#include <string>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

// One row of the systems table: a component ("Processor"), a notes section ("System Notes") or
// "Tested"; one value per system ("" where a system does not have it).
struct SystemsRow {
  std::string name;
  std::vector<std::string> values;
};

struct SystemsComparison {
  std::vector<SystemsRow> differing;  // rows whose values are not all equal, in first-seen order
  // Rows equal on every system, one value each; a notes section whose parts are partly shared
  // appears here with the shared parts, and in `differing` with each system's other parts.
  std::vector<std::pair<std::string, std::string>> same;
};

SystemsComparison CompareSystems(const ResultFile& file);

// Every row with every system's full value, in first-seen order (components, then "Tested").
std::vector<SystemsRow> FullSystemsTable(const ResultFile& file);

// The "Systems" and "System Notes" sections of the page.
void AppendSystemsHtml(std::string& out, const ResultFile& file, bool detailed);

}  // namespace ptsn::results
