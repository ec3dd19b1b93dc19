// Saving into a result file that other runs may be saving into at the same moment: each save
// takes an exclusive lock (flock on .composite.xml.lock beside composite.xml, released by the
// kernel if the run dies), reads the file as it is on disk now, adds this run's part and writes
// it atomically. So two runs into one name both keep every result they reported as saved.
#pragma once

#include <functional>
#include <string>

#include "results-xml/result_file.h"

namespace ptsn::run {

// Under the lock: `change(file, existed)` on <result_dir>/composite.xml as it is on disk (an
// empty file when there is none), then the file written atomically. Returns what was written.
results::ResultFile UpdateResultFile(const std::string& result_dir,
                                     const std::function<void(results::ResultFile& file, bool existed)>& change);

}  // namespace ptsn::run
