// Results-server commands: upload-result, clone-result, list-results (runner/client/).
#include <filesystem>
#include <iostream>

#include "results-xml/checks/upload_check.h"
#include "runner/cli/command.h"
#include "runner/client/client.h"
#include "runner/client/ob_client.h"
#include "runner/client/system_logs.h"
#include "runner/client/upload_queue.h"
#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/reproduce/resolve.h"

namespace ptsn::cli {

namespace {

namespace fs = std::filesystem;

// A saved name (test-results/NAME, then the PTS home's), a result directory or a composite.xml.
std::string FindResultFile(const std::string& name_or_path) {
  std::error_code ec;
  if (fs::is_regular_file(name_or_path, ec)) return name_or_path;
  if (fs::is_regular_file(name_or_path + "/composite.xml", ec)) return name_or_path + "/composite.xml";
  const auto& s = GlobalSettings();
  for (const auto& dir : {s.ResultsDirectory(), s.Get("results.pts_home") + "/test-results"}) {
    std::string p = dir + "/" + name_or_path + "/composite.xml";
    if (fs::is_regular_file(p, ec)) return p;
  }
  throw Error("upload-result: no saved result '" + name_or_path + "' (looked in " + s.ResultsDirectory() +
              " and " + s.Get("results.pts_home") + "/test-results)");
}

// Where an upload goes: --server, else server.upload_url. Never server.url, whose default is
// OpenBenchmarking.org: publishing there happens only when the user names it.
std::string UploadServerOf(const Args& a) {
  std::string server = a.ValueOr("--server", GlobalSettings().Get("server.upload_url"));
  if (server.empty())
    throw Error("upload-result: no server to upload to: pass --server URL (your pts-native-server), or set "
                "server.upload_url; to publish on OpenBenchmarking.org say so: --server https://openbenchmarking.org",
                2);
  return server;
}

std::string ListServerOf(const Args& a) {
  if (auto s = a.Value("--server")) return *s;
  auto servers = client::ParseServerList(GlobalSettings().Get("server.url"));
  if (servers.empty()) throw Error("list-server-results: no server (--server URL)", 2);
  return servers.front();
}
std::string QueueDir() { return GlobalSettings().Home() + "/upload-queue"; }

// The file, checked as a results server checks an upload (results-xml/checks/upload_check.h): what it
// would refuse is neither sent nor queued.
std::string ReadAsTheServerWill(const std::string& path, const std::string& local_file_name) {
  auto refuse = [&](const std::string& why) {
    return Error("upload-result: " + path + " is not a result file a server takes: " + why + "; not sent, not queued");
  };
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) throw FileError(path, "cannot read: " + ec.message());
  if (std::string why = results::UploadSizeProblem(size); !why.empty()) throw refuse(why + " (pts-native-server's default --max-xml)");
  std::string xml = ReadFile(path);
  try {
    results::CheckUploadedResultFile(xml);
  } catch (const results::UploadRejected& e) {
    throw refuse(e.message);
  }
  if (std::string why = results::UploadNameProblem(local_file_name); !why.empty()) throw refuse(why);
  return xml;
}

void PrintUploaded(const client::UploadOutcome& out) {
  std::cout << "Results Uploaded To: " << out.url << "\n" << out.id << std::endl;
}

// `server_override` (from --server) replaces the URL each upload was queued for.
int RetryPending(const std::string& token, const std::string& server_override) {
  std::vector<std::string> damaged;
  auto pending = client::PendingUploads(QueueDir(), &damaged);
  for (const auto& note : damaged) std::cerr << "pts-native: " << note << "\n";
  if (pending.empty()) {
    std::cout << "No pending uploads in " << QueueDir() << "\n";
    return damaged.empty() ? 0 : 1;
  }
  auto http = client::CurlTransport();
  int failed = 0;
  for (const auto& p : pending) {
    try {
      auto out = client::UploadResult(*http, server_override.empty() ? p.server_url : server_override, token, p.form_body);
      client::RemovePending(p);
      std::cout << p.name << ": uploaded as " << out.id << " (" << out.url << ")\n";
    } catch (const client::ServerRefusal& e) {
      ++failed;
      if (e.refuses_the_upload()) {  // sending it again cannot help: out of the queue, kept for the user
        std::cerr << "pts-native: " << p.name << ": " << e.what() << " (refused: set aside in "
                  << client::SetAsideRefused(p) << ", not retried)\n";
        continue;
      }
      std::cerr << "pts-native: " << p.name << ": " << e.what() << " (still pending)\n";
    } catch (const Error& e) {
      ++failed;
      std::cerr << "pts-native: " << p.name << ": still pending: " << e.what() << "\n";
    }
  }
  return failed == 0 && damaged.empty() ? 0 : 1;
}

int UploadCommand(const std::vector<std::string>& argv) {
  auto a = Args::Parse(argv, {{"--server", "--token"}, {"--unlisted", "--dry-run", "--retry-pending", "--no-system-logs"}});
  std::string token = a.ValueOr("--token", GlobalSettings().Get("server.token"));
  if (a.Has("--retry-pending")) return RetryPending(token, a.ValueOr("--server", ""));
  if (a.positional().size() != 1) throw Error("usage: pts-native upload-result <saved-name|path> [--server URL] [--token T] [--unlisted] [--no-system-logs] [--dry-run]", 2);
  std::string path = FindResultFile(a.positional()[0]);
  wire::Upload up;
  up.local_file_name = fs::path(path).parent_path().filename().string();
  up.xml = ReadAsTheServerWill(path, up.local_file_name);
  up.unlisted = a.Has("--unlisted");
  // As PTS does when it does not prompt: the result's system-logs/ go along when they can.
  if (!a.Has("--no-system-logs")) {
    auto logs = client::CollectSystemLogs(fs::path(path).parent_path().string());
    if (logs.zip) up.system_logs_zip = std::move(logs.zip);
    if (!logs.skipped_because.empty())
      std::cerr << "pts-native: upload-result: system logs not attached: " << logs.skipped_because << "\n";
  }
  wire::FormFields fields = wire::EncodeUpload(up);
  std::string server = UploadServerOf(a);
  if (a.Has("--dry-run")) {
    std::cout << "POST " << client::UploadUrl(server) << "\n"
              << "Authorization: Bearer " << (token.empty() ? "(none)" : "(token given)") << "\n"
              << "Content-Type: application/x-www-form-urlencoded\n\n"
              << wire::EncodeForm(fields) << "\n";
    return 0;
  }
  auto http = client::CurlTransport();  // no token: sent without one (OpenBenchmarking.org, --anonymous-uploads servers)
  std::string body = wire::EncodeForm(fields);
  try {
    PrintUploaded(client::UploadResult(*http, server, token, body));
    return 0;
  } catch (const client::ServerRefusal& e) {
    if (!e.retryable()) throw;  // a bad token or an invalid file: retrying would not help
    std::string queued = client::QueueUpload(QueueDir(), server, body, up.local_file_name);
    throw Error(std::string(e.what()) + " (queued as " + queued + "; send later with: pts-native upload-result --retry-pending)", 75);
  } catch (const Error& e) {
    std::string queued = client::QueueUpload(QueueDir(), server, body, up.local_file_name);
    throw Error(std::string(e.what()) + " (queued as " + queued + "; send later with: pts-native upload-result --retry-pending)", 75);
  }
}

int CloneCommand(const std::vector<std::string>& argv) {
  auto a = Args::Parse(argv, {{"--server"}, {"--offline"}});
  if (a.positional().size() != 1) throw Error("usage: pts-native clone-result <ID> [--server URL] [--offline]", 2);
  const std::string& id = a.positional()[0];
  if (id.empty() || id.find('/') != std::string::npos || id == "." || id == "..")
    throw Error("clone-result: '" + id + "' cannot be a result ID");
  const auto& s = GlobalSettings();
  reproduce::ResolveOptions o;
  o.save_dir = s.ResultsDirectory();  // no saved results searched: a clone is asked for anew
  o.servers = client::ServersFrom(s, a.Values("--server"));
  o.offline = a.Has("--offline") || s.GetBool("network.offline");
  o.bundled_dirs = reproduce::BundledResultDirectories();
  auto r = reproduce::ResolveResult(id, o, reproduce::ServerCloner(o.offline));
  if (!r.notice.empty()) std::cout << r.notice << "\n";
  std::cout << "Saved " << id << " to " << r.path << (r.cloned ? " (" + r.origin + ")" : "") << std::endl;
  return 0;
}

int ListCommand(const std::vector<std::string>& argv) {
  auto a = Args::Parse(argv, {{"--server", "--search", "--test", "--system"}, {}});
  auto http = client::CurlTransport();
  auto rows = client::ListResults(*http, ListServerOf(a), a.ValueOr("--search", ""), a.ValueOr("--test", ""),
                                  a.ValueOr("--system", ""));
  for (const auto& r : rows) std::cout << r.id << "  " << r.title << "  [" << r.systems << "]  " << r.tests << "\n";
  if (rows.empty()) std::cout << "No results.\n";
  return 0;
}

// `list-results` is both PTS's list of saved results and, with --server, the server's list.
int ListResultsDispatch(const std::vector<std::string>& argv) {
  for (const auto& arg : argv)
    if (arg == "--server" || StartsWith(arg, "--server=")) return ListCommand(argv);
  return FindCommand("list-saved-results")->run(argv);
}

}  // namespace

std::vector<Command> ClientCommands() {
  return {
      {"upload-result", {"upload"}, "Results server", "<saved-name|path> [--server URL] [--token T] [--unlisted] [--no-system-logs] [--dry-run] | --retry-pending",
       "upload a saved result file; prints the new ID on the last line", UploadCommand},
      {"clone-result", {"clone"}, "Results server", "<ID> [--server URL]... [--offline]",
       "download a result by ID into test-results/<ID>/ (servers in order: server.url, OpenBenchmarking.org by default)",
       CloneCommand},
      {"list-server-results", {}, "Results server", "[--server URL] [--search TEXT] [--test T] [--system S]",
       "list or search the public results on a server", ListCommand},
      {"list-results", {}, "Results server", "[--server URL ...]",
       "saved results; with --server, the server's results", ListResultsDispatch},
  };
}

}  // namespace ptsn::cli
