// libgcrypt backend: the same calls cryptsetup's user-space benchmark and a plain loop make —
// setiv + encrypt per sector on a handle keyed once.
#include <gcrypt.h>

#include <array>
#include <mutex>

#include "runner/common/error.h"
#include "runner/workloads/cipher_backends.h"

namespace ptsn::workloads {

void InitGcrypt(bool disable_aesni) {
  static std::once_flag once;
  std::call_once(once, [disable_aesni] {
    if (disable_aesni) {
      // Unknown feature names are rejected one by one; which exist depends on the version.
      for (const char* hwf : {"intel-aesni", "intel-vaes-vpclmul", "intel-pclmul", "intel-shaext"})
        gcry_control(GCRYCTL_DISABLE_HWF, hwf, nullptr);
    }
    if (!gcry_check_version(GCRYPT_VERSION)) throw Error("libgcrypt: version mismatch");
    gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  });
}

namespace {

std::string GcryError(const std::string& what, gcry_error_t e) {
  return "libgcrypt: " + what + ": " + gcry_strerror(e);
}

int GcryAlgo(const CipherInfo& c) {
  size_t bits = c.mode == CipherMode::kXts ? c.key_bits / 2 : c.key_bits;
  switch (c.algo) {
    case CipherAlgo::kAes: return bits == 128 ? GCRY_CIPHER_AES128 : GCRY_CIPHER_AES256;
    case CipherAlgo::kSerpent: return bits == 128 ? GCRY_CIPHER_SERPENT128 : GCRY_CIPHER_SERPENT256;
    case CipherAlgo::kTwofish: return bits == 128 ? GCRY_CIPHER_TWOFISH128 : GCRY_CIPHER_TWOFISH;
    case CipherAlgo::kChaCha20: return GCRY_CIPHER_CHACHA20;
  }
  return 0;
}

int GcryMode(CipherMode m) {
  switch (m) {
    case CipherMode::kCbc: return GCRY_CIPHER_MODE_CBC;
    case CipherMode::kXts: return GCRY_CIPHER_MODE_XTS;
    case CipherMode::kGcm: return GCRY_CIPHER_MODE_GCM;
    case CipherMode::kChaCha20Poly1305: return GCRY_CIPHER_MODE_POLY1305;
  }
  return 0;
}

class GcryptSectorCipher : public SectorCipher {
 public:
  GcryptSectorCipher(const CipherInfo& c, std::span<const uint8_t> key, size_t block_size) : SectorCipher(c, block_size) {
    InitGcrypt(false);
    if (gcry_error_t e = gcry_cipher_open(&h_, GcryAlgo(c), GcryMode(c.mode), 0))
      throw Error(GcryError("cannot open " + c.name, e));
    if (gcry_error_t e = gcry_cipher_setkey(h_, key.data(), key.size()))
      throw Error(GcryError("cannot key " + c.name, e));
  }
  ~GcryptSectorCipher() override { gcry_cipher_close(h_); }

  bool Unit(bool encrypt, const uint8_t* iv, std::span<const uint8_t> aad, const uint8_t* in, uint8_t* out,
            size_t size, uint8_t* tag) override {
    // No gcry_cipher_reset per sector: in GCM and Poly1305 modes setiv alone starts a new message
    // (clears the AAD/data lengths and tag state), and reset would also copy the whole key schedule
    // back from its saved copy, for nothing. Tests compare every sector and tag with OpenSSL's.
    Check(gcry_cipher_setiv(h_, iv, info_.iv_bytes()));
    if (!aad.empty()) Check(gcry_cipher_authenticate(h_, aad.data(), aad.size()));
    // In AEAD modes the last data call must be flagged as final before the tag is used.
    if (info_.aead()) Check(gcry_cipher_final(h_));
    if (encrypt) {
      Check(gcry_cipher_encrypt(h_, out, size, in, size));
      if (info_.aead()) Check(gcry_cipher_gettag(h_, tag, 16));
      return true;
    }
    Check(gcry_cipher_decrypt(h_, out, size, in, size));
    return !info_.aead() || gcry_cipher_checktag(h_, tag, 16) == 0;
  }

 protected:
  // Unit's calls for each sector (and bench/gcrypt_ref.c's), without a virtual call, span and
  // IV-function call per sector: for AES-NI ciphers a 4 KiB sector takes well under a microsecond,
  // so those few dozen instructions were a measurable share. Every call's error is still checked.
  bool Sectors(bool encrypt, uint64_t sector, const uint8_t* in, uint8_t* out, size_t size, uint8_t* tags) override {
    uint8_t iv[16] = {};  // plain64: bytes 8.. stay zero
    const size_t iv_bytes = info_.iv_bytes(), step = block_size_;
    const bool aead = info_.aead();
    bool ok = true;
    for (size_t off = 0, i = 0; off < size; off += step, ++i, ++sector) {
      for (size_t b = 0; b < 8; ++b) iv[b] = static_cast<uint8_t>(sector >> (8 * b));
      Check(gcry_cipher_setiv(h_, iv, iv_bytes));
      if (aead) Check(gcry_cipher_final(h_));
      if (encrypt) {
        Check(gcry_cipher_encrypt(h_, out + off, step, in + off, step));
        if (aead) Check(gcry_cipher_gettag(h_, tags + i * 16, 16));
      } else {
        Check(gcry_cipher_decrypt(h_, out + off, step, in + off, step));
        if (aead && gcry_cipher_checktag(h_, tags + i * 16, 16) != 0) ok = false;
      }
    }
    return ok;
  }

 private:
  void Check(gcry_error_t e) {
    if (e) [[unlikely]] Fail(e);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void Fail(gcry_error_t e) { throw Error(GcryError(info_.name + " failed", e)); }

  gcry_cipher_hd_t h_ = nullptr;
};

}  // namespace

std::unique_ptr<SectorCipher> MakeGcryptCipher(const CipherInfo& c, std::span<const uint8_t> key, size_t block_size) {
  return std::make_unique<GcryptSectorCipher>(c, key, block_size);
}

}  // namespace ptsn::workloads
