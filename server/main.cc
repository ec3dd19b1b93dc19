// pts-native-server: serve results (`--data DIR --listen HOST:PORT`) or manage upload tokens
// (`token create NAME --data DIR`).

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "server/app.h"
#include "runner/client/wire.h"
#include "runner/fleet/job_spec.h"
#include "server/auth.h"
#include "server/fleet_store.h"
#include "server/http_server.h"

namespace {

constexpr const char* kUsage =
    "usage: pts-native-server [--data DIR] [--database URL] [--listen HOST:PORT] [--public-url URL]\n"
    "                         [--threads N] [--write-rate PER_SECOND] [--write-burst N]\n"
    "                         [--max-body BYTES] [--max-xml BYTES] [--cpu-slots N] [--cache-seconds S]\n"
    "       [--fleet-lease S] [--fleet-poll S] [--fleet-return S] [--fleet-queue S] [--fleet-offline S]\n"
    "       [--fleet-webhook URL] [--fleet-min-change PCT] [--fleet-window N]\n"
    "       pts-native-server token create NAME [--data DIR] [--database URL]\n"
    "       pts-native-server token create --agent MACHINE [--data DIR] [--database URL]\n"
    "  --data DIR       where the SQLite database lives (default ./pts-native-server-data)\n"
    "  --database URL   postgresql://... to use PostgreSQL instead of SQLite\n"
    "  --listen         address to serve on (default 127.0.0.1:8080; port 0 picks a free one)\n"
    "  --cpu-slots N    requests decoding/checking at once, the rest wait first come first served\n"
    "                   (default: one per core)\n"
    "  --cache-seconds  how long fetched results and tokens are served from memory (default 10;\n"
    "                   0 = off; bounds how late a delete by another server process is seen)\n"
    "  --fleet-lease S  an agent's hold on a running task; renewed every S/3 (default 30)\n"
    "  --fleet-poll S   longest long-poll of an idle agent (default 25)\n"
    "  --fleet-return S a machine that lost a task's lease has S seconds to come back for the\n"
    "                   retry before the task fails (default 3600)\n"
    "  --fleet-queue S  a task no machine took within S seconds fails (default 86400)\n"
    "  --fleet-offline S machines not heard from in S seconds show as offline (default 90)\n"
    "  --fleet-webhook URL  POST each regression/improvement there as JSON\n"
    "  --fleet-min-change PCT  smaller moves are never flagged (default 2)\n"
    "  --fleet-window N results of a machine each new one is compared with (default 5)\n"
    "  token create --agent MACHINE  a fleet agent's token (replaces that machine's earlier one)\n";

std::atomic<bool> g_stop{false};

void OnSignal(int) { g_stop = true; }

std::unique_ptr<ptsn::server::Storage> OpenFromArgs(const ptsn::Args& args) {
  if (auto db = args.Value("--database")) return ptsn::server::OpenStorage(*db);
  std::string dir = args.ValueOr("--data", "pts-native-server-data");
  ptsn::MakeDirectories(dir);
  return ptsn::server::OpenSqliteStorage(dir + "/results.db");
}

size_t SizeArg(const ptsn::Args& args, const std::string& name, size_t fallback) {
  auto v = args.Value(name);
  if (!v) return fallback;
  try {
    return std::stoull(*v);
  } catch (const std::exception&) {
    throw ptsn::Error(name + ": not a number: " + *v);
  }
}

int Serve(const ptsn::Args& args) {
  auto storage = OpenFromArgs(args);
  ptsn::server::ServerOptions options;
  options.public_url = args.ValueOr("--public-url", "");
  options.threads = static_cast<int>(SizeArg(args, "--threads", options.threads));
  options.max_body_bytes = SizeArg(args, "--max-body", options.max_body_bytes);
  options.max_xml_bytes = SizeArg(args, "--max-xml", options.max_xml_bytes);
  if (auto v = args.Value("--write-rate")) options.write_rate_per_second = std::stod(*v);
  if (auto v = args.Value("--write-burst")) options.write_burst = std::stod(*v);
  options.cpu_slots = static_cast<int>(SizeArg(args, "--cpu-slots", 0));
  if (auto v = args.Value("--cache-seconds")) options.cache_seconds = std::stod(*v);
  auto& fleet = options.fleet;
  fleet.limits.lease_seconds = static_cast<std::int64_t>(SizeArg(args, "--fleet-lease", fleet.limits.lease_seconds));
  fleet.limits.return_seconds = static_cast<std::int64_t>(SizeArg(args, "--fleet-return", fleet.limits.return_seconds));
  fleet.limits.queue_seconds = static_cast<std::int64_t>(SizeArg(args, "--fleet-queue", fleet.limits.queue_seconds));
  fleet.poll_seconds = static_cast<int>(SizeArg(args, "--fleet-poll", fleet.poll_seconds));
  fleet.offline_after = static_cast<std::int64_t>(SizeArg(args, "--fleet-offline", fleet.offline_after));
  fleet.policy.window = SizeArg(args, "--fleet-window", fleet.policy.window);
  if (auto v = args.Value("--fleet-min-change")) fleet.policy.min_change_pct = std::stod(*v);
  fleet.webhook_url = args.ValueOr("--fleet-webhook", "");
  if (fleet.limits.lease_seconds < 3) throw ptsn::Error("--fleet-lease: at least 3 seconds");

  std::string listen = args.ValueOr("--listen", "127.0.0.1:8080");
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw ptsn::Error("--listen: expected HOST:PORT, got '" + listen + "'");
  std::string host = listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  int port = std::stoi(listen.substr(colon + 1));

  ptsn::server::HttpServer svr;
  ptsn::server::App app(*storage, options);
  app.Install(svr);
  if (port == 0) {
    port = svr.bind_to_any_port(host);
    if (port < 0) throw ptsn::Error("--listen: cannot bind " + host);
  } else if (!svr.bind_to_port(host, port)) {
    throw ptsn::Error("--listen: cannot bind " + listen + " (in use, or not a local address)");
  }
  svr.WidenBacklog();
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  // Stops from a thread, not the signal handler: waiting agents are answered first, so the
  // server does not wait out their long-polls.
  std::thread stopper([&] {
    while (!g_stop && !svr.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    app.fleet().waiters().Shutdown();
    svr.stop();
  });
  std::cout << "pts-native-server: listening on http://" << host << ":" << port << " (" << storage->Describe()
            << ")" << std::endl;
  bool ok = svr.listen_after_bind();
  g_stop = true;
  stopper.join();
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> argv_list(argv + 1, argv + argc);
  try {
    ptsn::ArgSpec spec{{"--data", "--database", "--listen", "--public-url", "--threads", "--write-rate",
                        "--write-burst", "--max-body", "--max-xml", "--cpu-slots", "--cache-seconds",
                        "--fleet-lease", "--fleet-poll", "--fleet-return", "--fleet-queue", "--fleet-offline",
                        "--fleet-webhook", "--fleet-min-change", "--fleet-window", "--agent"},
                       {"--help", "-h"}};
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
