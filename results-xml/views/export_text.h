// The plain-text view of a result file, as PTS's result-file-to-text prints it: header with the
// systems' hardware/software, then per result its title, description, scale and one line per
// system — "Name ..... 124.13 |=======" for bar results, "MIN: x  AVG: y  MAX: z" for line
// (monitor) series — with bar lengths and precision computed by PTS's rules.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "results-xml/model/result_file.h"
#include "results-xml/views/export_stream.h"

namespace ptsn::results {

// PTS's result_file_to_text() defaults to 79 columns; PTS's CLI passes the terminal width
// (TERMINAL_WIDTH). Wider than 80 indents each result block by four spaces, as PTS does.
inline constexpr int kDefaultTextWidth = 79;

std::string ResultFileToText(const ResultFile& file, int terminal_width = kDefaultTextWidth);
// The same view one Result at a time (export_stream.h).
std::unique_ptr<StreamingView> MakeTextView(int terminal_width = kDefaultTextWidth);

// PTS's result-file-confidence view: per result and system the trials, their mean, the
// percent standard deviation and PTS's (population) three-sigma limits, and the trials outside
// them. Only multi-trial numeric entries are listed.
std::string ResultFileConfidenceText(const ResultFile& file);

// One result block (leading newline, no trailing blank lines) appended to `out`.
void AppendResultText(std::string& out, const Result& result, int terminal_width,
                      std::string_view prepend_line);

}  // namespace ptsn::results
