#include "runner/workloads/cipher.h"

#include <algorithm>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/workloads/cipher_backends.h"

namespace ptsn::workloads {

const char* BackendName(Backend b) {
  switch (b) {
    case Backend::kOpenSsl: return "openssl";
    case Backend::kGcrypt: return "gcrypt";
    case Backend::kKernel: return "kernel";
  }
  return "?";
}

std::vector<CipherInfo> AllCiphers() {
  using M = CipherMode;
  using A = CipherAlgo;
  return {
      {"aes-128-cbc", A::kAes, M::kCbc, 128, true, true, true},
      {"aes-256-cbc", A::kAes, M::kCbc, 256, true, true, true},
      {"aes-128-xts", A::kAes, M::kXts, 256, true, true, true},
      {"aes-256-xts", A::kAes, M::kXts, 512, true, true, true},
      {"aes-256-gcm", A::kAes, M::kGcm, 256, true, true, false},
      {"chacha20-poly1305", A::kChaCha20, M::kChaCha20Poly1305, 256, true, true, false},
      {"serpent-cbc", A::kSerpent, M::kCbc, 256, false, true, true},
      {"serpent-xts", A::kSerpent, M::kXts, 256, false, true, true},
      {"twofish-cbc", A::kTwofish, M::kCbc, 256, false, true, true},
      {"twofish-xts", A::kTwofish, M::kXts, 256, false, true, true},
  };
}

CipherInfo LookupCipher(const std::string& name, size_t key_bits) {
  std::string lower = ToLower(name);
  std::vector<std::string> names;
  for (auto c : AllCiphers()) {
    names.push_back(c.name);
    if (c.name != lower) continue;
    if (key_bits == 0 || key_bits == c.key_bits) return c;
    bool xts = c.mode == CipherMode::kXts;
    bool variable = c.algo == CipherAlgo::kSerpent || c.algo == CipherAlgo::kTwofish;
    size_t lo = xts ? 256 : 128, hi = xts ? 512 : 256;
    if (variable && (key_bits == lo || key_bits == hi)) {
      c.key_bits = key_bits;
      return c;
    }
    throw Error("--key-bits " + std::to_string(key_bits) + " is not valid for " + c.name +
                (variable ? " (use " + std::to_string(lo) + " or " + std::to_string(hi) + ")"
                          : " (its key is " + std::to_string(c.key_bits) + " bits)"));
  }
  throw Error("unknown cipher '" + name + "' (known: " + Join(names, ", ") + ")");
}

void Plain64Iv(uint64_t sector, std::span<uint8_t> iv) {
  std::fill(iv.begin(), iv.end(), 0);
  for (size_t i = 0; i < 8 && i < iv.size(); ++i) iv[i] = static_cast<uint8_t>(sector >> (8 * i));
}

void SectorCipher::Encrypt(uint64_t sector, const uint8_t* in, uint8_t* out, size_t size, uint8_t* tags) {
  Sectors(true, sector, in, out, size, tags);
}

bool SectorCipher::Decrypt(uint64_t sector, const uint8_t* in, uint8_t* out, size_t size, const uint8_t* tags) {
  return Sectors(false, sector, in, out, size, const_cast<uint8_t*>(tags));  // decrypting reads tags only
}

bool SectorCipher::Sectors(bool encrypt, uint64_t sector, const uint8_t* in, uint8_t* out, size_t size, uint8_t* tags) {
  uint8_t iv[16];
  std::span<uint8_t> ivs(iv, info_.iv_bytes());
  bool ok = true;
  for (size_t off = 0, i = 0; off < size; off += block_size_, ++i, ++sector) {
    Plain64Iv(sector, ivs);
    if (!Unit(encrypt, iv, {}, in + off, out + off, block_size_, info_.aead() ? tags + i * 16 : nullptr)) ok = false;
  }
  return ok;
}

std::unique_ptr<SectorCipher> MakeSectorCipher(const CipherInfo& cipher, Backend backend,
                                               std::span<const uint8_t> key, size_t block_size,
                                               const std::string& kernel_driver) {
  if (!kernel_driver.empty() && backend != Backend::kKernel)
    throw Error("a kernel driver (" + kernel_driver + ") is chosen with the kernel backend only, not " + BackendName(backend));
  if (key.size() * 8 != cipher.key_bits)
    throw Error(cipher.name + ": key of " + std::to_string(key.size() * 8) + " bits, expected " +
                std::to_string(cipher.key_bits));
  if (block_size == 0 || block_size % cipher.unit_bytes() != 0 || (cipher.mode == CipherMode::kXts && block_size < 16))
    throw Error(cipher.name + ": block size " + std::to_string(block_size) + " is not a multiple of " +
                std::to_string(cipher.unit_bytes()) + " bytes");
  bool offered = backend == Backend::kOpenSsl ? cipher.openssl
                 : backend == Backend::kGcrypt ? cipher.gcrypt
                                                : cipher.kernel;
  if (!offered)
    throw Error(cipher.name + " is not available through the " + BackendName(backend) + " backend");
  switch (backend) {
    case Backend::kOpenSsl: return MakeOpenSslCipher(cipher, key, block_size);
    case Backend::kGcrypt: return MakeGcryptCipher(cipher, key, block_size);
    case Backend::kKernel: return MakeKernelCipher(cipher, key, block_size, kernel_driver);
  }
  return nullptr;
}

}  // namespace ptsn::workloads
