// Finding the result file `run <ID>` names, in PTS's order: a saved result of that name (our
// results directory, then a PTS home's test-results/), and only then the results server(s)
// through the clone protocol. A clone is saved as <results dir>/<ID>/composite.xml with
// Generated/ReferenceID = ID, as PTS's clone step does. No socket is opened when a saved result
// answers; servers are reached only through the injected Cloner.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "results-xml/result_file.h"

namespace ptsn::reproduce {

// Returns the composite.xml text the server holds for `id`; throws ptsn::Error (not found,
// refused, unreachable) with a message naming the server.
using Cloner = std::function<std::string(const std::string& server_url, const std::string& id)>;

struct ResolveOptions {
  std::vector<std::string> result_dirs;  // searched in order for <dir>/<name>/composite.xml
  std::string save_dir;                  // where a clone is saved (the first results dir)
  std::vector<std::string> servers;      // asked in order, only for OpenBenchmarking-style IDs
  bool offline = false;                  // never ask a server; say so when it would be needed
};

struct ResolvedResult {
  std::string path;  // the composite.xml this reproduction reads and appends to
  results::ResultFile file;
  std::string origin;  // "saved result DIR" / "cloned from URL"
  bool cloned = false;
};

// Throws ptsn::Error naming what was tried when nothing answers.
ResolvedResult ResolveResult(const std::string& name, const ResolveOptions& options, const Cloner& clone);

}  // namespace ptsn::reproduce
