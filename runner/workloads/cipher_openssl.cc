// OpenSSL EVP backend: one context per direction, keyed once; per unit only the IV is reset.
#include <openssl/err.h>
#include <openssl/evp.h>

#include <array>

#include "runner/common/error.h"
#include "runner/workloads/cipher_backends.h"

namespace ptsn::workloads {
namespace {

std::string OpenSslError(const std::string& what) {
  unsigned long e = ERR_get_error();
  char buf[256] = "unknown error";
  if (e) ERR_error_string_n(e, buf, sizeof buf);
  return "OpenSSL: " + what + ": " + buf;
}

const EVP_CIPHER* EvpCipher(const CipherInfo& c) {
  if (c.mode == CipherMode::kChaCha20Poly1305) return EVP_chacha20_poly1305();
  if (c.algo != CipherAlgo::kAes) return nullptr;
  switch (c.mode) {
    case CipherMode::kCbc: return c.key_bits == 128 ? EVP_aes_128_cbc() : EVP_aes_256_cbc();
    case CipherMode::kXts: return c.key_bits == 256 ? EVP_aes_128_xts() : EVP_aes_256_xts();
    case CipherMode::kGcm: return EVP_aes_256_gcm();
    default: return nullptr;
  }
}

class OpenSslSectorCipher : public SectorCipher {
 public:
  OpenSslSectorCipher(const CipherInfo& c, std::span<const uint8_t> key, size_t block_size)
      : SectorCipher(c, block_size) {
    const EVP_CIPHER* evp = EvpCipher(c);
    if (!evp) throw Error(c.name + " is not available through OpenSSL");
    for (int enc = 0; enc < 2; ++enc) {
      EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
      ctx_[enc] = ctx;
      if (!ctx || EVP_CipherInit_ex(ctx, evp, nullptr, key.data(), nullptr, enc) != 1)
        throw Error(OpenSslError("cannot key " + c.name));
      EVP_CIPHER_CTX_set_padding(ctx, 0);
    }
  }
  ~OpenSslSectorCipher() override {
    for (auto* ctx : ctx_) EVP_CIPHER_CTX_free(ctx);
  }

  bool Unit(bool encrypt, const uint8_t* iv, std::span<const uint8_t> aad, const uint8_t* in, uint8_t* out,
            size_t size, uint8_t* tag) override {
    int enc = encrypt ? 1 : 0;
    EVP_CIPHER_CTX* ctx = ctx_[enc];
    int n = 0;
    if (EVP_CipherInit_ex(ctx, nullptr, nullptr, nullptr, iv, enc) != 1) throw Error(OpenSslError(info_.name + " failed"));
    if (!aad.empty() && EVP_CipherUpdate(ctx, nullptr, &n, aad.data(), static_cast<int>(aad.size())) != 1)
      throw Error(OpenSslError(info_.name + ": additional data rejected"));
    if (EVP_CipherUpdate(ctx, out, &n, in, static_cast<int>(size)) != 1) throw Error(OpenSslError(info_.name + " failed"));
    if (!info_.aead()) return true;
    int fin = 0;
    if (!encrypt && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) != 1) throw Error(OpenSslError("cannot set the tag"));
    if (EVP_CipherFinal_ex(ctx, out + n, &fin) != 1) {
      if (encrypt) throw Error(OpenSslError(info_.name + " failed"));
      ERR_clear_error();
      return false;
    }
    if (encrypt && EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) != 1) throw Error(OpenSslError("cannot read the tag"));
    return true;
  }

 private:
  std::array<EVP_CIPHER_CTX*, 2> ctx_{nullptr, nullptr};
};

}  // namespace

std::unique_ptr<SectorCipher> MakeOpenSslCipher(const CipherInfo& c, std::span<const uint8_t> key, size_t block_size) {
  return std::make_unique<OpenSslSectorCipher>(c, key, block_size);
}

}  // namespace ptsn::workloads
