// Finding the result file `run <ID>` (and `clone-result <ID>`) names, in PTS's order: a saved
// result of that name (our results directory, then a PTS home's test-results/), then the
// configured servers in order through the clone protocol, and last — for the results that ship
// with pts-native, such as 1110088-AR-1110066AR56 — the bundled copy, so that the headline
// command works on a machine that cannot reach any server. A clone is saved as
// <results dir>/<ID>/composite.xml with Generated/ReferenceID = ID (and its system logs beside
// it), as PTS's clone step does, unless `save` is off (--dry-run). No socket is opened when a
// saved result answers; servers are reached only through the injected Cloner.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"

namespace ptsn::reproduce {

// What a server gave: the composite.xml text, and its system-log zip when it had one (already
// checked against the sha1 the server named).
struct ClonedFile {
  ClonedFile(std::string composite_xml = "", std::optional<std::string> logs = std::nullopt)
      : xml(std::move(composite_xml)), system_logs_zip(std::move(logs)) {}
  std::string xml;
  std::optional<std::string> system_logs_zip;
};

// Asks one server for `id`; throws ptsn::Error (not found, refused, unreachable) with a message
// naming the server.
using Cloner = std::function<ClonedFile(const std::string& server_url, const std::string& id)>;

struct ResolveOptions {
  std::vector<std::string> result_dirs;  // searched in order for <dir>/<name>/composite.xml
  std::string save_dir;                  // where a clone is saved (the first results dir)
  std::vector<std::string> servers;      // asked in order, only for OpenBenchmarking-style IDs
  bool offline = false;                  // never ask a server; say so when it would be needed
  bool save = true;                      // false: a clone or bundled copy is not written (--dry-run)
  std::vector<std::string> bundled_dirs;  // <dir>/<ID>/composite.xml: copies shipped with pts-native
};

struct ResolvedResult {
  std::string path;  // the composite.xml this reproduction reads and appends to (when saved)
  results::ResultFile file;
  std::string origin;  // "saved result DIR" / "cloned from URL" / "the copy bundled with pts-native"
  bool cloned = false;
  bool bundled = false;
  std::string notice;  // one line for the user when the bundled copy stands in for the servers
};

// The real Cloner: one server asked through the OpenBenchmarking protocol
// (runner/client/ob_client.h); the result's system logs come along when it has them and their
// sha1 matches (otherwise they are left out).
Cloner ServerCloner(bool offline);

// Throws ptsn::Error naming what was tried and what to do next when nothing answers.
ResolvedResult ResolveResult(const std::string& name, const ResolveOptions& options, const Cloner& clone);

// The directories of result files shipped with pts-native (bundled-results/ of the source tree,
// beside the binary, or ../share/pts-native/), those that exist.
std::vector<std::string> BundledResultDirectories();

}  // namespace ptsn::reproduce
