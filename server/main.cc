// pts-native-server: serve results (`--data DIR --listen HOST:PORT`), manage upload tokens
// (`token create NAME --data DIR`), import test downloads (`import-downloads DIR --data D`), test
// profiles (`import-profiles TREE --data D`) or a published result (`import-result FILE --id ID`).

#include <malloc.h>
#include <pthread.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/man_page.h"
#include "runner/common/strings.h"
#include "server/app.h"
#include "server/server_settings.h"
#include "runner/openbenchmarking/wire.h"
#include "runner/fleet/job_spec.h"
#include "server/store/auth.h"
#include "server/fleet/fleet_store.h"
#include "server/results/downloads.h"
#include "server/http/http_server.h"
#include "server/results/import_result.h"
#include "server/results/profile_mirror.h"

namespace {

constexpr const char* kCommands =
    "usage: pts-native-server [SETTINGS]                        serve results\n"
    "       pts-native-server token create NAME [SETTINGS]      a user's upload token\n"
    "       pts-native-server token create --agent MACHINE [SETTINGS]  a fleet agent's token (replaces that\n"
    "                                                           machine's earlier one)\n"
    "       pts-native-server import-downloads DIR [SETTINGS]   copy test downloads into --downloads\n"
    "       pts-native-server import-profiles TREE [SETTINGS]   load a tree of test profiles (<repo>/<name>-<version>/,\n"
    "                                                           e.g. a PTS test-profiles/ directory) into\n"
    "                                                           DATA/openbenchmarking.org/, served to clients as\n"
    "                                                           OpenBenchmarking.org serves them (repo_index, acquire_test)\n"
    "       pts-native-server import-result FILE --id ID [SETTINGS]  store a published result file under its\n"
    "                                                           original ID (clone-result ID)\n"
    "       pts-native-server config [SETTINGS]                 print each setting's value and where it came from\n"
    "\n"
    "Settings: given as --NAME VALUE, as 'NAME: VALUE' in the YAML file --config FILE (or PTS_NATIVE_SERVER_CONFIG),\n"
    "or in the environment as PTS_NATIVE_SERVER_<NAME>; the command line wins over the environment, which wins over\n"
    "the file.\n";

std::unique_ptr<ptsn::server::Storage> OpenStorage(const ptsn::server::ServerConfig& config) {
  if (!config.database.empty()) return ptsn::server::OpenStorage(config.database, config.disk_reserve);
  ptsn::MakeDirectories(config.data);
  return ptsn::server::OpenSqliteStorage(config.data + "/results.db", config.disk_reserve);
}

int ImportProfilesCommand(const ptsn::server::ServerConfig& config, const std::string& tree) {
  auto start = std::chrono::steady_clock::now();
  auto report = ptsn::server::ImportProfiles(tree, config.MirrorDir(), std::time(nullptr));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& [dir, why] : report.skipped) std::cerr << "pts-native-server: skipped " << dir << ": " << why << "\n";
  std::printf("Imported %zu test profiles (%zu new or changed, %zu unchanged) into %s in %.2f s; repositories: %s\n",
              report.added + report.unchanged, report.added, report.unchanged, config.MirrorDir().c_str(), seconds,
              report.repos.empty() ? "none" : ptsn::Join(report.repos, ", ").c_str());
  return report.added + report.unchanged > 0 ? 0 : 1;
}

int ImportResultCommand(const ptsn::Args& args, const ptsn::server::ServerConfig& config, const std::string& file) {
  auto id = args.Value("--id");
  if (!id) throw ptsn::Error("import-result: give the result's ID with --id (e.g. --id 1110088-AR-1110066AR56)", 2);
  std::string xml = ptsn::ReadFile(file);
  auto storage = OpenStorage(config);
  auto outcome = ptsn::server::ImportResult(*storage, xml, *id, std::time(nullptr));
  std::cout << (outcome == ptsn::server::ImportOutcome::kStored ? "Stored " : "Already stored: ") << file << " as "
            << *id << std::endl;
  return 0;
}


int Serve(const ptsn::server::ServerConfig& config) {
  // Signals are taken by sigwait below, not by whichever thread they land on.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  const long files = ptsn::server::http::RaiseFileLimit();
  // Request bodies and rendered pages of 256 KiB and more get mappings of their own, unmapped
  // when freed. glibc's default threshold rises to the largest block freed (up to 32 MiB), after
  // which such blocks come from the arenas and stay with the process: 100 connections' 15 MiB
  // bodies left 1.5 GB held after they closed (issue 31).
  mallopt(M_MMAP_THRESHOLD, 256 << 10);

  auto storage = OpenStorage(config);
  ptsn::server::ServerOptions options = config.options;
  ptsn::server::http::ServerLimits limits = config.limits;
  // Each connection is a descriptor; keep room for the database's and the process's own.
  if (files > 0 && limits.max_connections + 256 > static_cast<unsigned long>(files))
    limits.max_connections = static_cast<unsigned>(std::max(64L, files - 256));
  if (options.fleet.limits.lease_seconds < 3) throw ptsn::Error("--fleet-lease: at least 3 seconds");

  const std::string& listen = config.listen;
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw ptsn::Error("--listen: expected HOST:PORT, got '" + listen + "'");
  std::string host = listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  int port = 0;
  try {
    port = std::stoi(listen.substr(colon + 1));
  } catch (const std::exception&) {
    throw ptsn::Error("--listen: expected HOST:PORT, got '" + listen + "'");
  }

  ptsn::server::App app(*storage, options);
  ptsn::server::http::Router router;
  app.Install(router);
  ptsn::server::InstallDownloadRoutes(router, config.DownloadsDir());
  ptsn::server::http::HttpServer http_server(router, limits);
  try {
    port = http_server.Start(host, port);
  } catch (const std::runtime_error& e) {
    throw ptsn::Error("--listen: " + std::string(e.what()));
  }
  std::cout << "pts-native-server: listening on http://" << host << ":" << port << " (" << storage->Describe()
            << ")" << std::endl;
  int sig = 0;
  sigwait(&stop_signals, &sig);
  app.fleet().waiters().Shutdown();  // parked long-polls are answered, so Stop need not wait them out
  http_server.Stop();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> argv_list(argv + 1, argv + argc);
  // Not in --help: the build writes the manual page with it, from the same text as --help.
  if (argv_list.size() == 1 && argv_list[0] == "--man-page") {
    std::cout << ptsn::ManPage("pts-native-server", "pts-native-server " PTSN_VERSION, "the pts-native results server",
                               {{"SYNOPSIS", kCommands}, {"SETTINGS", ptsn::server::SettingsHelp()}});
    return 0;
  }
  try {
    auto args = ptsn::Args::Parse(argv_list, ptsn::server::ServerArgSpec({"--id", "--agent"}));
    if (args.Has("--help") || args.Has("-h")) {
      std::cout << kCommands << ptsn::server::SettingsHelp();
      return 0;
    }
    const ptsn::server::ResolvedConfig resolved = ptsn::server::ResolveServerConfig(args, ptsn::ProcessEnvironment());
    const ptsn::server::ServerConfig& config = resolved.config;
    const auto& pos = args.positional();
    if (pos.empty()) return Serve(config);
    if (pos.size() == 1 && pos[0] == "config") {
      std::cout << ptsn::server::DescribeConfig(resolved);
      return 0;
    }
    if (pos.size() == 2 && pos[0] == "token" && pos[1] == "create" && args.Value("--agent")) {
      const std::string machine = *args.Value("--agent");
      ptsn::fleet::CheckMachineName(machine);
      auto storage = OpenStorage(config);
      ptsn::server::FleetStore fleet(*storage);
      std::string token = ptsn::server::NewToken();
      fleet.SetAgentToken(machine, ptsn::wire::Sha256Hex(token), std::time(nullptr));
      std::cout << "Agent token for machine " << machine << " (shown once; give it to pts-native agent --token):\n"
                << token << std::endl;
      return 0;
    }
    if (pos.size() == 3 && pos[0] == "token" && pos[1] == "create") {
      auto storage = OpenStorage(config);
      std::cout << ptsn::server::CreateToken(*storage, pos[2]) << std::endl;
      return 0;
    }
    if (pos.size() == 2 && pos[0] == "import-downloads") {
      auto n = ptsn::server::ImportDownloads(pos[1], config.DownloadsDir());
      std::cout << "Imported " << n.added << " file(s) (" << n.bytes << " bytes) into " << config.DownloadsDir() << "; "
                << n.present << " already there" << std::endl;
      return 0;
    }
    if (pos.size() == 2 && pos[0] == "import-profiles") return ImportProfilesCommand(config, pos[1]);
    if (pos.size() == 2 && pos[0] == "import-result") return ImportResultCommand(args, config, pos[1]);
    std::cerr << kCommands << "(pts-native-server --help lists the settings)\n";
    return 2;
  } catch (const ptsn::Error& e) {
    std::cerr << "pts-native-server: error: " << e.what() << "\n";
    return e.exit_code();
  } catch (const ptsn::server::StorageError& e) {
    std::cerr << "pts-native-server: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "pts-native-server: error: " << e.what() << "\n";
    return 1;
  }
}
