#include "runner/exec/pts_environment.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>

namespace ptsn::exec {
namespace {

std::string WithSlash(std::string dir) {
  if (!dir.empty() && dir.back() != '/') dir += '/';
  return dir;
}

std::string EnvName(const std::string& base) {
  std::string out = "TEST_";
  for (char c : base) out += c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

// RANDOM_AVAILABLE_PORT: a port the kernel says is free right now (bind to 0, read it back).
// Only a local bind: no packet leaves the machine.
std::string FreePort() {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) return "";
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  std::string port;
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = std::to_string(ntohs(a.sin_port));
  close(s);
  return port;
}

}  // namespace

int CubeRoot(int n) {
  int i = 1;
  while ((i + 1) * (i + 1) * (i + 1) <= n) ++i;
  return i;
}

Environment PtsEnvironment(const Environment& host, const HostFacts& f, const std::string& install_dir,
                           const std::vector<ExtendedInstall>& extends) {
  Environment env = host;
  auto set = [&](const std::string& k, const std::string& v) { env[k] = v; };
  set("PTS_VERSION", "10.8.6");
  set("NUM_CPU_CORES", std::to_string(f.logical_cores));
  set("OMP_NUM_THREADS", std::to_string(f.logical_cores));
  set("NUM_CPU_PHYSICAL_CORES", std::to_string(f.physical_cores));
  set("NUM_CPU_PHYSICAL_CORES_CUBE", std::to_string(CubeRoot(f.physical_cores)));
  int tpc = f.physical_cores > 0 && f.logical_cores % f.physical_cores == 0 ? f.logical_cores / f.physical_cores : 1;
  set("CPU_THREADS_PER_CORE", std::to_string(std::max(1, tpc)));
  set("NUM_CPU_NODES", std::to_string(f.cpu_nodes));
  set("NUM_CPU_JOBS", std::to_string(f.logical_cores * 2));
  set("SYS_MEMORY", std::to_string(f.memory_mb));
  set("VIDEO_MEMORY", "64");
  set("VIDEO_WIDTH", "-1");
  set("VIDEO_HEIGHT", "-1");
  set("VIDEO_MONITOR_COUNT", "1");
  set("VIDEO_MONITOR_LAYOUT", "CENTER");
  set("OPERATING_SYSTEM", f.os_id);
  set("OS_VERSION", f.os_version);
  set("OS_ARCH", f.arch);
  set("OS_TYPE", "Linux");
  set("CPU_FAMILY", f.cpu_family);
  set("THIS_RUN_TIME", std::to_string(f.run_start_time));
  set("DEBUG_REAL_HOME", WithSlash(f.real_home));
  set("SYSTEM_TYPE_ID", f.system_type_id);
  set("SYSTEM_TYPE", f.system_type);
  if (!env.count("TERMINAL_WIDTH")) set("TERMINAL_WIDTH", "80");
  set("C_CXX_FLAGS_DEFAULT", "-O3 -march=native");
  // Bundled native profiles call `$PTS_NATIVE_BIN workload ...`: point them at this very binary
  // so they work without pts-native on PATH (a value from the caller's environment wins).
  if (!env.count("PTS_NATIVE_BIN")) {
    std::error_code ec;
    auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (!ec) set("PTS_NATIVE_BIN", self.string());
  }
  // extra_environment_variables()
  set("HOME", WithSlash(install_dir));
  set("DEBUG_HOME", WithSlash(install_dir));
  for (const char* k : {"LC_ALL", "LC_NUMERIC", "LC_CTYPE", "LC_MESSAGES"}) env.erase(k);  // "" = not passed
  set("LANG", "en_US.utf8");
  set("RANDOM_AVAILABLE_PORT", FreePort());
  set("vblank_mode", "0");
  set("MESA_VK_WSI_PRESENT_MODE", "immediate");
  set("__GL_SYNC_TO_VBLANK", "0");
  set("CCACHE_DISABLE", "1");
  set("OMPI_ALLOW_RUN_AS_ROOT", "1");
  set("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
  std::string path = env.count("PATH") ? env["PATH"] : "/usr/local/bin:/usr/bin:/bin";
  bool first = true;
  for (const auto& e : extends) {
    if (first) set("TEST_EXTENDS", WithSlash(e.install_dir));
    first = false;
    if (e.install_dir.empty()) continue;
    set(EnvName(e.base_name), WithSlash(e.install_dir));
    path = WithSlash(e.install_dir) + ":" + path;
  }
  set("PATH", path);
  set("DEBUG_PATH", path);
  for (auto it = env.begin(); it != env.end();) it = it->second.empty() ? env.erase(it) : std::next(it);
  return env;
}

}  // namespace ptsn::exec
