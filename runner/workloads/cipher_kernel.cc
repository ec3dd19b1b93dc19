// Linux kernel crypto API (AF_ALG, "skcipher"): what dm-crypt itself uses. Only CBC and XTS are
// offered (dm-crypt's modes). Kernels built without CONFIG_CRYPTO_USER_API_SKCIPHER, or sandboxes
// that block the address family, refuse the socket: that is reported, not worked around.
#include <linux/if_alg.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "runner/common/atomic_file.h"
#include "runner/common/error.h"
#include "runner/workloads/cipher_backends.h"
#include "runner/targets/crypto_info.h"

#ifndef AF_ALG
#define AF_ALG 38
#endif
#ifndef SOL_ALG
#define SOL_ALG 279
#endif

namespace ptsn::workloads {

bool KernelCryptoAvailable(std::string* reason) {
  int fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    if (reason)
      *reason = std::string("the kernel crypto API (AF_ALG) is not available: socket(AF_ALG): ") +
                std::strerror(errno) +
                " (kernel built without CONFIG_CRYPTO_USER_API_SKCIPHER, or the family is blocked)";
    return false;
  }
  close(fd);
  return true;
}

std::string KernelAlgName(const CipherInfo& c) {
  std::string algo = c.algo == CipherAlgo::kAes ? "aes" : c.algo == CipherAlgo::kSerpent ? "serpent" : "twofish";
  return (c.mode == CipherMode::kXts ? "xts(" : "cbc(") + algo + ")";
}

namespace {

class KernelSectorCipher : public SectorCipher {
 public:
  KernelSectorCipher(const CipherInfo& c, std::span<const uint8_t> key, size_t block_size, const std::string& driver)
      : SectorCipher(c, block_size) {
    std::string reason;
    if (!KernelCryptoAvailable(&reason)) throw Error(reason);
    tfm_ = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    sockaddr_alg sa{};
    sa.salg_family = AF_ALG;
    std::strncpy(reinterpret_cast<char*>(sa.salg_type), "skcipher", sizeof sa.salg_type - 1);
    // A driver name binds that implementation (a template over a named driver, such as
    // xts(ecb(aes-generic)), is instantiated by the kernel on the way); an algorithm name binds
    // the kernel's highest-priority driver of it.
    const std::string name = driver.empty() ? KernelAlgName(c) : driver;
    if (name.size() >= sizeof sa.salg_name) throw Error("kernel crypto API: driver name too long: " + name);
    std::strncpy(reinterpret_cast<char*>(sa.salg_name), name.c_str(), sizeof sa.salg_name - 1);
    if (bind(tfm_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0)
      Fail("the kernel has no " + name + " (bind)");
    if (!driver.empty()) CheckImplements(driver, KernelAlgName(c));
    if (setsockopt(tfm_, SOL_ALG, ALG_SET_KEY, key.data(), key.size()) != 0) Fail("cannot key " + name);
    op_ = accept(tfm_, nullptr, nullptr);
    if (op_ < 0) Fail("accept on the " + name + " socket");
  }
  ~KernelSectorCipher() override {
    if (op_ >= 0) close(op_);
    if (tfm_ >= 0) close(tfm_);
  }

  bool Unit(bool encrypt, const uint8_t* ivp, std::span<const uint8_t> aad, const uint8_t* in, uint8_t* out,
            size_t size, uint8_t*) override {
    if (!aad.empty()) throw Error("kernel crypto API: additional data is not supported for " + info_.name);
    constexpr size_t kIv = 16;
    uint32_t op = encrypt ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
    alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(uint32_t)) + CMSG_SPACE(sizeof(af_alg_iv) + kIv)> control{};
    msghdr msg{};
    msg.msg_control = control.data();
    msg.msg_controllen = control.size();
    cmsghdr* cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_ALG;
    cm->cmsg_type = ALG_SET_OP;
    cm->cmsg_len = CMSG_LEN(sizeof(uint32_t));
    std::memcpy(CMSG_DATA(cm), &op, sizeof op);
    cm = CMSG_NXTHDR(&msg, cm);
    cm->cmsg_level = SOL_ALG;
    cm->cmsg_type = ALG_SET_IV;
    cm->cmsg_len = CMSG_LEN(sizeof(af_alg_iv) + kIv);
    auto* iv = reinterpret_cast<af_alg_iv*>(CMSG_DATA(cm));
    iv->ivlen = kIv;
    std::memcpy(iv->iv, ivp, kIv);
    iovec io{const_cast<uint8_t*>(in), size};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    if (sendmsg(op_, &msg, 0) != static_cast<ssize_t>(size)) Fail("sendmsg");
    if (read(op_, out, size) != static_cast<ssize_t>(size)) Fail("read");
    return true;
  }

 private:
  [[noreturn]] void Fail(const std::string& what) {
    throw Error("kernel crypto API: " + what + ": " + std::strerror(errno));
  }

  // A driver of another algorithm binds as well (it is a valid name): refused here by what
  // /proc/crypto says it implements, so a figure is never filed under the wrong cipher.
  void CheckImplements(const std::string& driver, const std::string& algorithm) {
    std::string text;
    try {
      text = ReadFile("/proc/crypto");
    } catch (const Error&) {
      return;  // nothing to check against (the bind itself succeeded)
    }
    for (const auto& d : targets::ParseProcCrypto(text))
      if (d.driver == driver && d.name != algorithm)
        throw Error("kernel driver " + driver + " implements " + d.name + ", not " + algorithm);
  }

  int tfm_ = -1;
  int op_ = -1;
};

}  // namespace

std::unique_ptr<SectorCipher> MakeKernelCipher(const CipherInfo& c, std::span<const uint8_t> key, size_t block_size,
                                               const std::string& driver) {
  return std::make_unique<KernelSectorCipher>(c, key, block_size, driver);
}

}  // namespace ptsn::workloads
