// Using more than one core to read result files: many files parsed side by side (merge-results);
// for one large file (exports) see StreamResultFile's StreamOptions in result_xml.h, which cuts
// the file where ResultSplitPoints says it may and reads the stretches side by side.
// Either way the outcome is the single-threaded one: the same model, the same Results in the
// same order, and on bad input the same error (any doubt falls back to the sequential parse).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "results-xml/result_file.h"

namespace ptsn::results {

// The setting results.read_threads (PTS_NATIVE_READ_THREADS): 0 = one per hardware thread.
// At least 1; 1 = everything single-threaded.
unsigned ReadThreads();

// ReadResultFile(paths[i]) for every path on up to `threads` threads (a few files ahead of the
// caller, so memory stays that of a few inputs), handing each model to consume(i, model) on the
// calling thread in input order. consume may take what it wants from the model; what it leaves
// is reused to read a later file into. The error is the sequential loop's: the first failing file in
// input order (ReadResultFile's message), unless consume threw for an earlier one.
void ReadResultFilesInOrder(const std::vector<std::string>& paths, unsigned threads,
                            const std::function<void(size_t, ResultFile&)>& consume);

// Where `xml` may be cut into `parts` pieces that parse independently: the offsets (ascending,
// at most parts - 1) of literal "<Result>" tags, the first at or after first_share of the file and
// the rest spaced evenly after it. Empty (do not cut) unless every '<' after the root's start tag
// is an element tag: the root start tag must be exactly "<PhoronixTestSuite>" and nothing after
// it may be a comment, CDATA section, DOCTYPE or processing instruction ("<!", "<?"), so no
// "<Result>" can be text. Whether a cut is at the root's child depth is not known here: the
// parser checks it (a piece cut elsewhere is not well-formed and the caller falls back).
std::vector<size_t> ResultSplitPoints(std::string_view xml, size_t parts, double first_share);

}  // namespace ptsn::results
