// A system's notes as PTS shows them under its results ("Kernel Notes: Transparent Huge Pages:
// madvise", "Disk Notes: MQ-DEADLINE / discard,relatime,rw / Block Size: 4096", ...): the
// System/JSON keys grouped and worded as pts_result_file_analyzer::system_to_note_array() does,
// then the free-text System/Notes as "System".
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::results {

// (section, text) in PTS's order: Kernel, Environment, Compiler, Disk, Processor, Graphics,
// OpenCL, System, then any other JSON key as its words ("security" -> "Security"). Empty values
// are left out; a JSON that does not parse is shown whole under "System JSON".
std::vector<std::pair<std::string, std::string>> SystemNoteSections(const System& system);

}  // namespace ptsn::results
