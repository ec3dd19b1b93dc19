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
#include <type_traits>

#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "server/app.h"
#include "runner/openbenchmarking/wire.h"
#include "runner/fleet/job_spec.h"
#include "server/store/auth.h"
#include "server/fleet/fleet_store.h"
#include "server/results/downloads.h"
#include "server/http/http_server.h"
#include "server/results/import_result.h"
#include "server/results/profile_mirror.h"

namespace {

constexpr const char* kUsage =
    "usage: pts-native-server [--data DIR] [--database URL] [--listen HOST:PORT] [--public-url URL]\n"
    "                         [--threads N] [--write-rate PER_SECOND] [--write-burst N]\n"
    "                         [--address-write-rate PER_SECOND] [--address-write-burst N]\n"
    "                         [--max-body BYTES] [--max-body-memory BYTES] [--max-xml BYTES]\n"
    "                         [--cpu-slots N] [--cache-seconds S]\n"
    "                         [--max-connections N] [--max-connections-per-address N]\n"
    "                         [--header-timeout S] [--body-timeout S] [--trust-proxy ADDR[,ADDR...]]\n"
    "                         [--dedupe-seconds S] [--disk-reserve BYTES]\n"
    "                         [--fleet-lease S] [--fleet-poll S] [--fleet-return S] [--fleet-queue S]\n"
    "                         [--fleet-offline S] [--fleet-webhook URL] [--fleet-min-change PCT] [--fleet-window N]\n"
    "                         [--anonymous-uploads] [--public-fleet]\n"
    "       pts-native-server token create NAME [--data DIR] [--database URL]\n"
    "       pts-native-server token create --agent MACHINE [--data DIR] [--database URL]\n"
    "       pts-native-server import-downloads DIR [--data D] [--downloads DIR]\n"
    "       pts-native-server import-profiles TREE [--data DIR]\n"
    "       pts-native-server import-result FILE --id ID [--data DIR] [--database URL]\n"
    "  --data DIR       where the SQLite database lives (default ./pts-native-server-data)\n"
    "  --database URL   postgresql://... to use PostgreSQL instead of SQLite\n"
    "  --listen         address to serve on (default 127.0.0.1:8080; port 0 picks a free one)\n"
    "  --cpu-slots N    requests decoding/checking at once, the rest wait first come first served\n"
    "                   (default: one per core)\n"
    "  --downloads DIR  test downloads served as GET /downloads/<sha256> (default DATA/downloads;\n"
    "                   import-downloads fills it)\n"
    "  --cache-seconds  how long fetched results and tokens are served from memory (default 10;\n"
    "                   0 = off; bounds how late a delete by another server process is seen)\n"
    "  --threads N      threads running requests (default 64); connections beyond them wait, idle\n"
    "                   or slow ones cost no thread\n"
    "  --write-rate     uploads and deletes per second per token (default 10, burst 60; 0 = no limit)\n"
    "  --address-write-rate  ... per client address, all tokens together (default 10x the above)\n"
    "  --max-connections-per-address  open connections from one address (default 256; 0 = no cap,\n"
    "                   e.g. behind a reverse proxy that caps them itself)\n"
    "  --max-body-memory  request bodies held in memory at once, all requests together (default\n"
    "                   268435456); a request that would go over it gets 503 and Retry-After\n"
    "  --header-timeout S  a request's headers must be in within S seconds of the connection's\n"
    "                   start or previous answer (default 30; also the keep-alive idle time)\n"
    "  --body-timeout S its body within S seconds of its headers (default 120)\n"
    "  --trust-proxy    addresses of reverse proxies whose X-Real-IP / X-Forwarded-For names the client\n"
    "  --dedupe-seconds the same file uploaded again with the same token within S seconds gets the\n"
    "                   first upload's ID (default 86400; 0 = off)\n"
    "  --disk-reserve   SQLite: bytes kept beside the database (results.db-reserve) and given up when\n"
    "                   its disk fills, so writes come back once there is room for them (default\n"
    "                   33554432; 0 = none)\n"
    "  --fleet-lease S  an agent's hold on a running task; renewed every S/3 (default 30)\n"
    "  --fleet-poll S   longest long-poll of an idle agent (default 25; a parked poll holds no thread)\n"
    "  --fleet-return S a machine that lost a task's lease has S seconds to come back for the\n"
    "                   retry before the task fails (default 3600)\n"
    "  --fleet-queue S  a task no machine took within S seconds fails (default 86400)\n"
    "  --fleet-offline S  machines not heard from in S seconds show as offline (default 90)\n"
    "  --fleet-webhook URL  POST each regression/improvement there as JSON\n"
    "  --fleet-min-change PCT  smaller change points are never flagged (default 1.5)\n"
    "  --fleet-window N a machine's newest N results of a test are searched for change points (default 200)\n"
    "  token create --agent MACHINE  a fleet agent's token (replaces that machine's earlier one)\n"
    "  --anonymous-uploads  take r=upload_test_result without a token, as OpenBenchmarking.org does\n"
    "                   (what a stock PTS client sends); uploads are owned by 'anonymous'\n"
    "  --public-fleet   show the fleet (machines' hardware and software, jobs, schedules, history;\n"
    "                   the /fleet pages) without a token; by default only to a user's token\n"
    "  import-profiles  load a tree of test profiles (<repo>/<name>-<version>/, e.g. a PTS\n"
    "                   test-profiles/ directory) into DIR/openbenchmarking.org/, served to clients\n"
    "                   as OpenBenchmarking.org serves them (repo_index, acquire_test)\n"
    "  import-result    store a published result file under its original ID (clone-result ID)\n";

std::string DataDir(const ptsn::Args& args) { return args.ValueOr("--data", "pts-native-server-data"); }
// Test profiles served as OpenBenchmarking.org serves them (profile_mirror.h).
std::string MirrorDir(const ptsn::Args& args) { return DataDir(args) + "/openbenchmarking.org"; }

// The value of a numeric option, or `fallback` when it is not given.
template <typename T>
T NumberArg(const ptsn::Args& args, const std::string& name, T fallback) {
  auto v = args.Value(name);
  if (!v) return fallback;
  try {
    if constexpr (std::is_floating_point_v<T>) return static_cast<T>(std::stod(*v));
    else return static_cast<T>(std::stoull(*v));
  } catch (const std::exception&) {
    throw ptsn::Error(name + ": not a number: " + *v);
  }
}
size_t SizeArg(const ptsn::Args& args, const std::string& name, size_t fallback) { return NumberArg(args, name, fallback); }
double DoubleArg(const ptsn::Args& args, const std::string& name, double fallback) { return NumberArg(args, name, fallback); }

std::unique_ptr<ptsn::server::Storage> OpenFromArgs(const ptsn::Args& args) {
  const std::uint64_t reserve = SizeArg(args, "--disk-reserve", ptsn::server::kDefaultDiskReserve);
  if (auto db = args.Value("--database")) return ptsn::server::OpenStorage(*db, reserve);
  std::string dir = DataDir(args);
  ptsn::MakeDirectories(dir);
  return ptsn::server::OpenSqliteStorage(dir + "/results.db", reserve);
}


int ImportProfilesCommand(const ptsn::Args& args, const std::string& tree) {
  auto start = std::chrono::steady_clock::now();
  auto report = ptsn::server::ImportProfiles(tree, MirrorDir(args), std::time(nullptr));
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& [dir, why] : report.skipped) std::cerr << "pts-native-server: skipped " << dir << ": " << why << "\n";
  std::printf("Imported %zu test profiles (%zu new or changed, %zu unchanged) into %s in %.2f s; repositories: %s\n",
              report.added + report.unchanged, report.added, report.unchanged, MirrorDir(args).c_str(), seconds,
              report.repos.empty() ? "none" : ptsn::Join(report.repos, ", ").c_str());
  return report.added + report.unchanged > 0 ? 0 : 1;
}

int ImportResultCommand(const ptsn::Args& args, const std::string& file) {
  auto id = args.Value("--id");
  if (!id) throw ptsn::Error("import-result: give the result's ID with --id (e.g. --id 1110088-AR-1110066AR56)", 2);
  std::string xml = ptsn::ReadFile(file);
  auto storage = OpenFromArgs(args);
  auto outcome = ptsn::server::ImportResult(*storage, xml, *id, std::time(nullptr));
  std::cout << (outcome == ptsn::server::ImportOutcome::kStored ? "Stored " : "Already stored: ") << file << " as "
            << *id << std::endl;
  return 0;
}


std::string DownloadsDir(const ptsn::Args& args) {
  return args.ValueOr("--downloads", args.ValueOr("--data", "pts-native-server-data") + "/downloads");
}

int Serve(const ptsn::Args& args) {
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

  auto storage = OpenFromArgs(args);
  ptsn::server::ServerOptions options;
  ptsn::server::http::ServerLimits limits;
  options.public_url = args.ValueOr("--public-url", "");
  limits.workers = static_cast<int>(SizeArg(args, "--threads", limits.workers));
  limits.max_connections_per_address =
      static_cast<unsigned>(SizeArg(args, "--max-connections-per-address", limits.max_connections_per_address));
  limits.max_connections = static_cast<unsigned>(SizeArg(args, "--max-connections", limits.max_connections));
  // Each connection is a descriptor; keep room for the database's and the process's own.
  if (files > 0 && limits.max_connections + 256 > static_cast<unsigned long>(files))
    limits.max_connections = static_cast<unsigned>(std::max(64L, files - 256));
  limits.header_timeout_seconds = static_cast<unsigned>(SizeArg(args, "--header-timeout", limits.header_timeout_seconds));
  limits.body_timeout_seconds = static_cast<unsigned>(SizeArg(args, "--body-timeout", limits.body_timeout_seconds));
  if (auto v = args.Value("--trust-proxy")) limits.trusted_proxies = ptsn::Split(*v, ',');
  options.max_body_bytes = SizeArg(args, "--max-body", options.max_body_bytes);
  limits.max_body_memory = SizeArg(args, "--max-body-memory", limits.max_body_memory);
  options.max_xml_bytes = SizeArg(args, "--max-xml", options.max_xml_bytes);
  options.write_rate_per_second = DoubleArg(args, "--write-rate", options.write_rate_per_second);
  options.write_burst = DoubleArg(args, "--write-burst", options.write_burst);
  options.address_rate_per_second = DoubleArg(args, "--address-write-rate", options.address_rate_per_second);
  options.address_burst = DoubleArg(args, "--address-write-burst", options.address_burst);
  options.cpu_slots = static_cast<int>(SizeArg(args, "--cpu-slots", 0));
  options.cache_seconds = DoubleArg(args, "--cache-seconds", options.cache_seconds);
  options.dedupe_seconds = static_cast<int64_t>(SizeArg(args, "--dedupe-seconds", options.dedupe_seconds));
  limits.max_body_bytes = options.max_body_bytes;
  auto& fleet = options.fleet;
  fleet.limits.lease_seconds = NumberArg<std::int64_t>(args, "--fleet-lease", fleet.limits.lease_seconds);
  fleet.limits.return_seconds = NumberArg<std::int64_t>(args, "--fleet-return", fleet.limits.return_seconds);
  fleet.limits.queue_seconds = NumberArg<std::int64_t>(args, "--fleet-queue", fleet.limits.queue_seconds);
  fleet.poll_seconds = NumberArg<int>(args, "--fleet-poll", fleet.poll_seconds);
  fleet.offline_after = NumberArg<std::int64_t>(args, "--fleet-offline", fleet.offline_after);
  fleet.policy.window = SizeArg(args, "--fleet-window", fleet.policy.window);
  fleet.policy.min_change_pct = DoubleArg(args, "--fleet-min-change", fleet.policy.min_change_pct);
  fleet.webhook_url = args.ValueOr("--fleet-webhook", "");
  if (fleet.limits.lease_seconds < 3) throw ptsn::Error("--fleet-lease: at least 3 seconds");
  options.mirror_dir = MirrorDir(args);
  options.anonymous_uploads = args.Has("--anonymous-uploads");
  options.fleet.public_reads = args.Has("--public-fleet");

  std::string listen = args.ValueOr("--listen", "127.0.0.1:8080");
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw ptsn::Error("--listen: expected HOST:PORT, got '" + listen + "'");
  std::string host = listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  int port = std::stoi(listen.substr(colon + 1));

  ptsn::server::App app(*storage, options);
  ptsn::server::http::Router router;
  app.Install(router);
  ptsn::server::InstallDownloadRoutes(router, DownloadsDir(args));
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
  try {
    ptsn::ArgSpec spec{{"--data", "--database", "--listen", "--public-url", "--threads", "--write-rate",
                        "--write-burst", "--address-write-rate", "--address-write-burst", "--max-body", "--max-body-memory", "--max-xml",
                        "--cpu-slots", "--cache-seconds", "--max-connections", "--max-connections-per-address",
                        "--header-timeout", "--body-timeout", "--trust-proxy", "--dedupe-seconds", "--disk-reserve", "--downloads", "--id",
                        "--fleet-lease", "--fleet-poll", "--fleet-return", "--fleet-queue", "--fleet-offline",
                        "--fleet-webhook", "--fleet-min-change", "--fleet-window", "--agent"},
                       {"--help", "-h", "--anonymous-uploads", "--public-fleet"}};
    auto args = ptsn::Args::Parse(argv_list, spec);
    if (args.Has("--help") || args.Has("-h")) {
      std::cout << kUsage;
      return 0;
    }
    const auto& pos = args.positional();
    if (pos.empty()) return Serve(args);
    if (pos.size() == 2 && pos[0] == "token" && pos[1] == "create" && args.Value("--agent")) {
      const std::string machine = *args.Value("--agent");
      ptsn::fleet::CheckMachineName(machine);
      auto storage = OpenFromArgs(args);
      ptsn::server::FleetStore fleet(*storage);
      std::string token = ptsn::server::NewToken();
      fleet.SetAgentToken(machine, ptsn::wire::Sha256Hex(token), std::time(nullptr));
      std::cout << "Agent token for machine " << machine << " (shown once; give it to pts-native agent --token):\n"
                << token << std::endl;
      return 0;
    }
    if (pos.size() == 3 && pos[0] == "token" && pos[1] == "create") {
      auto storage = OpenFromArgs(args);
      std::cout << ptsn::server::CreateToken(*storage, pos[2]) << std::endl;
      return 0;
    }
    if (pos.size() == 2 && pos[0] == "import-downloads") {
      auto n = ptsn::server::ImportDownloads(pos[1], DownloadsDir(args));
      std::cout << "Imported " << n.added << " file(s) (" << n.bytes << " bytes) into " << DownloadsDir(args) << "; "
                << n.present << " already there" << std::endl;
      return 0;
    }
    if (pos.size() == 2 && pos[0] == "import-profiles") return ImportProfilesCommand(args, pos[1]);
    if (pos.size() == 2 && pos[0] == "import-result") return ImportResultCommand(args, pos[1]);
    std::cerr << kUsage;
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
