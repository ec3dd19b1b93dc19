#include "runner/reproduce/resolve.h"

#include <filesystem>

#include "results-xml/result_store.h"
#include "results-xml/result_xml.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/reproduce/result_id.h"

namespace ptsn::reproduce {

ResolvedResult ResolveResult(const std::string& name, const ResolveOptions& options, const Cloner& clone) {
  if (auto dir = results::FindSavedResultDir(name, options.result_dirs)) {
    ResolvedResult r;
    std::string saved = *dir + "/composite.xml";
    r.path = saved;
    r.file = results::ReadResultFile(saved);
    r.origin = "saved result " + saved;
    // A PTS home's copy is read, never written: the reproduction is saved in our results dir.
    std::string own = options.save_dir + "/" + name + "/composite.xml";
    if (!options.save_dir.empty() && std::filesystem::absolute(own) != std::filesystem::absolute(saved)) {
      r.path = results::SaveResult(options.save_dir, name, r.file, {.keep_as_read = true});
      r.origin += " (copied to " + r.path + ")";
    }
    return r;
  }
  std::string searched = "no saved result '" + name + "' in " + Join(options.result_dirs, ", ");
  if (!IsOpenBenchmarkingId(name))
    throw Error(searched + ", and '" + name + "' is not a result ID (like 1110088-AR-1110066AR56) to ask a server for");
  if (options.offline) throw Error(searched + "; not asking a server because network.offline is set");
  if (options.servers.empty()) throw Error(searched + ", and no results server is configured (server.url, --server)");

  std::vector<std::string> failures;
  for (const auto& server : options.servers) {
    std::string xml;
    try {
      xml = clone(server, name);
    } catch (const Error& e) {
      failures.push_back(e.what());
      continue;
    }
    ResolvedResult r;
    r.file = results::ParseResultFile(xml, server + " result " + name);
    r.file.generated.reference_id = name;
    r.path = results::SaveResult(options.save_dir, name, r.file, {.keep_as_read = true});
    r.origin = "cloned from " + server;
    r.cloned = true;
    return r;
  }
  throw Error(searched + "; " + Join(failures, "; "));
}

}  // namespace ptsn::reproduce
