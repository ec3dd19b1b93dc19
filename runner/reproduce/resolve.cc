#include "runner/reproduce/resolve.h"

#include <filesystem>

#include "results-xml/model/result_xml.h"
#include "results-xml/store/result_store.h"
#include "runner/client/ob_client.h"
#include "runner/client/system_logs.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/profile/profile_repository.h"
#include "runner/reproduce/result_id.h"

namespace ptsn::reproduce {

namespace fs = std::filesystem;

std::vector<std::string> BundledResultDirectories() { return profile::BundledDirectories("bundled-results"); }

Cloner ServerCloner(bool offline) {
  return [offline](const std::string& server, const std::string& id) {
    client::ObClient ob({server}, offline);
    client::ObClient::Answered<ob::ClonedResult> answer;
    try {
      answer = ob.CloneResult(id);
    } catch (const client::NoServerAnswered& e) {
      throw Error(e.failures());  // names the server; ResolveResult names the ID
    }
    ClonedFile out(std::move(answer.value.composite_xml));
    if (answer.value.system_logs_sha1) {
      try {
        out.system_logs_zip = ob.SystemLogs(server, id, *answer.value.system_logs_sha1);
      } catch (const Error&) {
        // As PTS: a result whose logs do not come (or do not match) is still cloned.
      }
    }
    return out;
  };
}

namespace {

ResolvedResult FromBundle(const std::string& name, const std::string& path, const ResolveOptions& options,
                          const std::string& why_not_servers) {
  ResolvedResult r;
  r.file = results::ReadResultFile(path);
  r.bundled = true;
  r.origin = "the copy bundled with pts-native (" + path + ")";
  r.notice = "No server gave " + name + " (" + why_not_servers +
             "); using the copy bundled with pts-native, a reconstruction of the published result from its "
             "OpenBenchmarking.org page (means and errors as published; trial values and monitor series synthetic).";
  r.path = options.save_dir + "/" + name + "/composite.xml";
  if (options.save) results::SaveResult(options.save_dir, name, r.file, {.keep_as_read = true});
  return r;
}

}  // namespace

ResolvedResult ResolveResult(const std::string& name, const ResolveOptions& options, const Cloner& clone) {
  if (auto dir = results::FindSavedResultDir(name, options.result_dirs)) {
    ResolvedResult r;
    std::string saved = *dir + "/composite.xml";
    r.path = saved;
    r.file = results::ReadResultFile(saved);
    r.origin = "saved result " + saved;
    // A PTS home's copy is read, never written: the reproduction is saved in our results dir.
    std::string own = options.save_dir + "/" + name + "/composite.xml";
    if (!options.save_dir.empty() && fs::absolute(own) != fs::absolute(saved)) {
      r.path = own;
      if (options.save) results::SaveResult(options.save_dir, name, r.file, {.keep_as_read = true});
      r.origin += options.save ? " (copied to " + own + ")" : " (to be copied to " + own + ")";
    }
    return r;
  }
  std::string searched = options.result_dirs.empty() ? name
                                                     : "no saved result '" + name + "' in " + Join(options.result_dirs, ", ");
  if (!IsOpenBenchmarkingId(name))
    throw Error(searched + ", and '" + name + "' is not a result ID (like 1110088-AR-1110066AR56) to ask a server for");

  std::string servers_said;
  if (options.offline) {
    servers_said = "not asking a server because network.offline is set (--offline)";
  } else if (options.servers.empty()) {
    servers_said = "no results server is configured (server.url, --server)";
  } else {
    std::vector<std::string> failures;
    for (const auto& server : options.servers) {
      ClonedFile got;
      try {
        got = clone(server, name);
      } catch (const Error& e) {
        failures.push_back(e.what());
        continue;
      }
      ResolvedResult r;
      try {
        r.file = results::ParseResultFile(got.xml, server + " result " + name);
      } catch (const Error& e) {
        failures.push_back(e.what());
        continue;
      }
      r.file.generated.reference_id = name;
      r.path = options.save_dir + "/" + name + "/composite.xml";
      if (options.save) {
        results::SaveResult(options.save_dir, name, r.file, {.keep_as_read = true});
        if (got.system_logs_zip) client::SaveSystemLogs(*got.system_logs_zip, options.save_dir + "/" + name);
      }
      r.origin = "cloned from " + server;
      r.cloned = true;
      return r;
    }
    servers_said = Join(failures, "; ");
  }
  for (const auto& dir : options.bundled_dirs) {
    std::string path = dir + "/" + name + "/composite.xml";
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) return FromBundle(name, path, options, servers_said);
  }
  throw Error(searched + "; " + servers_said + ". Give a server that has it (--server URL), or save its composite.xml as " +
              options.save_dir + "/" + name + "/composite.xml");
}

}  // namespace ptsn::reproduce
