// The end of `run <ID>` with set-ups built as targets: what each set-up costs here relative to
// the unencrypted reference (the first target), test by test, beside what the published systems
// it stands for cost relative to each other:
//
//   FS-Mark 3.3 [Test: 1000 Files, 1MB Size] (Files/s, higher is better)
//     fscrypt ...: 0.770x of plain ext4 here [0.720, 0.810] (3 instance pairs, 9 rounds)
//       published: no unencrypted system to compare with
//     fscrypt aesni vs fscrypt generic: 1.230x here [1.10, 1.31] (...); published 1.050x
//       (Encrypted Home (eCryptfs): AES-NI Intel / Encrypted Home (eCryptfs): Stock): different
//
// Judged with the project's verdict code (results-xml/stats/verdict.h): the ratio here from its
// instance pairs (DecideVerdict), and the ratio here against the published one by the same rule
// over the per-round log ratios less the published log ratio ("different" when the interval
// excludes it, "same within +-X %" when it lies within that of it, else "within noise"). The
// published ratio is taken as it was published: its two systems ran once each, separately, so its
// own spread is not in the interval. With one instance of each target no verdict is given (one
// instance pair cannot tell a set-up from its instance). Pure: no I/O.
#pragma once

#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "results-xml/stats/verdict.h"

namespace ptsn::reproduce {

// One of our targets (its first instance's System identifier) and the published systems it stands for.
struct TargetOrigin {
  std::string identifier;
  std::vector<std::string> published;
};

// `targets`: ours in run order, the reference first. "" when fewer than two targets gave values.
std::string SetupCostText(const results::ResultFile& file, const std::vector<TargetOrigin>& targets,
                          const results::VerdictSettings& settings);

}  // namespace ptsn::reproduce
