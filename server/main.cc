// pts-native-server: serve results (`--data DIR --listen HOST:PORT`), manage upload tokens
// (`token create NAME --data DIR`) or import test downloads (`import-downloads DIR --data D`).

#include <csignal>
#include <iostream>

#include "runner/common/args.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "server/app.h"
#include "server/auth.h"
#include "server/downloads.h"
#include "server/http_server.h"

namespace {

constexpr const char* kUsage =
    "usage: pts-native-server [--data DIR] [--database URL] [--listen HOST:PORT] [--public-url URL]\n"
    "                         [--threads N] [--write-rate PER_SECOND] [--write-burst N]\n"
    "                         [--max-body BYTES] [--max-xml BYTES] [--cpu-slots N] [--cache-seconds S]\n"
    "       pts-native-server token create NAME [--data DIR] [--database URL]\n"
    "       pts-native-server import-downloads DIR [--data D] [--downloads DIR]\n"
    "  --data DIR       where the SQLite database lives (default ./pts-native-server-data)\n"
    "  --database URL   postgresql://... to use PostgreSQL instead of SQLite\n"
    "  --listen         address to serve on (default 127.0.0.1:8080; port 0 picks a free one)\n"
    "  --cpu-slots N    requests decoding/checking at once, the rest wait first come first served\n"
    "                   (default: one per core)\n"
    "  --downloads DIR  test downloads served as GET /downloads/<sha256> (default DATA/downloads;\n"
    "                   import-downloads fills it)\n"
    "  --cache-seconds  how long fetched results and tokens are served from memory (default 10;\n"
    "                   0 = off; bounds how late a delete by another server process is seen)\n";

httplib::Server* g_server = nullptr;

void OnSignal(int) {
  if (g_server) g_server->stop();
}

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

std::string DownloadsDir(const ptsn::Args& args) {
  return args.ValueOr("--downloads", args.ValueOr("--data", "pts-native-server-data") + "/downloads");
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

  std::string listen = args.ValueOr("--listen", "127.0.0.1:8080");
  auto colon = listen.rfind(':');
  if (colon == std::string::npos) throw ptsn::Error("--listen: expected HOST:PORT, got '" + listen + "'");
  std::string host = listen.substr(0, colon);
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  int port = std::stoi(listen.substr(colon + 1));

  ptsn::server::HttpServer svr;
  ptsn::server::App app(*storage, options);
  app.Install(svr);
  ptsn::server::InstallDownloadRoutes(svr, DownloadsDir(args));
  if (port == 0) {
    port = svr.bind_to_any_port(host);
    if (port < 0) throw ptsn::Error("--listen: cannot bind " + host);
  } else if (!svr.bind_to_port(host, port)) {
    throw ptsn::Error("--listen: cannot bind " + listen + " (in use, or not a local address)");
  }
  svr.WidenBacklog();
  g_server = &svr;
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGPIPE, SIG_IGN);
  std::cout << "pts-native-server: listening on http://" << host << ":" << port << " (" << storage->Describe()
            << ")" << std::endl;
  bool ok = svr.listen_after_bind();
  g_server = nullptr;
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> argv_list(argv + 1, argv + argc);
  try {
    ptsn::ArgSpec spec{{"--data", "--database", "--listen", "--public-url", "--threads", "--write-rate",
                        "--write-burst", "--max-body", "--max-xml", "--cpu-slots", "--cache-seconds", "--downloads"},
                       {"--help", "-h"}};
    auto args = ptsn::Args::Parse(argv_list, spec);
    if (args.Has("--help") || args.Has("-h")) {
      std::cout << kUsage;
      return 0;
    }
    const auto& pos = args.positional();
    if (pos.empty()) return Serve(args);
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
