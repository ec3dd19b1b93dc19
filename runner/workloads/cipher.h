// Ciphers as dm-crypt uses them: a buffer of fixed-size sectors, each encrypted on its own with
// an IV derived from its sector number (plain64: the 64-bit little-endian sector number, zero
// padded to the IV length). Three backends implement the same interface: OpenSSL EVP, libgcrypt
// and the Linux kernel crypto API (AF_ALG).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace ptsn::workloads {

enum class CipherMode { kCbc, kXts, kGcm, kChaCha20Poly1305 };
enum class Backend { kOpenSsl, kGcrypt, kKernel };
enum class CipherAlgo { kAes, kSerpent, kTwofish, kChaCha20 };

const char* BackendName(Backend b);  // "openssl", "gcrypt", "kernel"

struct CipherInfo {
  std::string name;          // as OpenSSL spells it: "aes-256-xts", or "serpent-xts"
  CipherAlgo algo;
  CipherMode mode;
  size_t key_bits;           // whole key, both XTS halves included (aes-256-xts = 512)
  bool openssl;              // which backends offer it
  bool gcrypt;
  bool kernel;
  size_t iv_bytes() const { return mode == CipherMode::kGcm || mode == CipherMode::kChaCha20Poly1305 ? 12 : 16; }
  bool aead() const { return mode == CipherMode::kGcm || mode == CipherMode::kChaCha20Poly1305; }
  size_t unit_bytes() const { return mode == CipherMode::kCbc || mode == CipherMode::kXts ? 16 : 1; }
};

// The catalogue. `key_bits` 0 = the cipher's default; Serpent and Twofish take it (CBC 128/256,
// XTS 256/512, as `cryptsetup benchmark` lists them); for AES it must match the name.
// Throws ptsn::Error listing the known names when `name` is unknown or the key size is invalid.
CipherInfo LookupCipher(const std::string& name, size_t key_bits = 0);
std::vector<CipherInfo> AllCiphers();

// plain64 IV for `sector`.
void Plain64Iv(uint64_t sector, std::span<uint8_t> iv);

class SectorCipher {
 public:
  SectorCipher(const CipherInfo& cipher, size_t block_size) : info_(cipher), block_size_(block_size) {}
  virtual ~SectorCipher() = default;
  // `in` and `out` hold whole sectors (size = n * block_size) and may be the same buffer; sector
  // i of the buffer uses IV first_sector + i. AEAD ciphers write/read 16 tag bytes per sector.
  void Encrypt(uint64_t first_sector, const uint8_t* in, uint8_t* out, size_t size, uint8_t* tags);
  // Returns false when an AEAD tag does not verify.
  bool Decrypt(uint64_t first_sector, const uint8_t* in, uint8_t* out, size_t size, const uint8_t* tags);

  // One unit of `size` bytes with an explicit IV (iv_bytes() long) and optional additional
  // authenticated data: what test vectors need. Decrypt returns false on a bad tag.
  virtual bool Unit(bool encrypt, const uint8_t* iv, std::span<const uint8_t> aad, const uint8_t* in,
                    uint8_t* out, size_t size, uint8_t* tag) = 0;

  const CipherInfo& info() const { return info_; }
  size_t block_size() const { return block_size_; }

 protected:
  // Encrypt/Decrypt's loop over the sectors; returns false when an AEAD tag does not verify. The
  // default calls Unit per sector; a backend may run the same per-sector calls in a tighter loop.
  virtual bool Sectors(bool encrypt, uint64_t first_sector, const uint8_t* in, uint8_t* out, size_t size, uint8_t* tags);

  CipherInfo info_;
  size_t block_size_;
};

// Throws ptsn::Error when the backend lacks the cipher, the block size is not a multiple of the
// cipher's unit, or (kernel) AF_ALG is unavailable — with the reason. `kernel_driver` (kernel
// backend only): the implementation by its driver name ("xts-aes-aesni", "xts(ecb(aes-generic))"),
// else the kernel's choice (the highest priority).
std::unique_ptr<SectorCipher> MakeSectorCipher(const CipherInfo& cipher, Backend backend,
                                               std::span<const uint8_t> key, size_t block_size,
                                               const std::string& kernel_driver = "");
// The kernel's algorithm name for a cipher ("xts(aes)"): what its drivers implement.
std::string KernelAlgName(const CipherInfo& cipher);

// libgcrypt must be initialised once before use; `disable_aesni` turns off its AES-NI/VAES/PCLMUL
// code paths (only effective before the first call).
void InitGcrypt(bool disable_aesni);

// Whether the kernel crypto API accepts sockets here; `reason` says why not.
bool KernelCryptoAvailable(std::string* reason);

}  // namespace ptsn::workloads
