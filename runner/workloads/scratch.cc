#include "runner/workloads/scratch.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/workloads/units.h"

namespace ptsn::workloads {
namespace {

std::atomic<int> g_signal{0};
struct sigaction g_old_int, g_old_term;

void OnSignal(int sig) { g_signal.store(sig); }

}  // namespace

bool Interrupted() { return g_signal.load(std::memory_order_relaxed) != 0; }
int InterruptSignal() { return g_signal.load(); }

void ThrowIfInterrupted() {
  if (Interrupted()) throw Error("interrupted; scratch directory removed", 128 + InterruptSignal());
}

InterruptGuard::InterruptGuard() {
  g_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &g_old_int);
  sigaction(SIGTERM, &sa, &g_old_term);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &g_old_int, nullptr);
  sigaction(SIGTERM, &g_old_term, nullptr);
}

ScratchDir::ScratchDir(const std::string& parent, uint64_t bytes_needed, const std::string& kind) {
  MakeDirectories(parent);
  constexpr uint64_t kMargin = 64ull << 20;
  uint64_t free_bytes = FreeBytes(parent);
  if (free_bytes < bytes_needed + kMargin)
    throw FileError(parent, "not enough free space for the " + kind + " workload: need " +
                                FormatSize(bytes_needed + kMargin) + " (including a 64 MiB margin), " +
                                FormatSize(free_bytes) + " free");
  std::string tmpl = parent + "/pts-native-" + kind + "-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) throw FileError(parent, std::string("cannot create a scratch directory: ") + std::strerror(errno));
  path_ = buf.data();
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace ptsn::workloads
