/* gcrypt_ref: the reference the native cipher workload is held to — a plain libgcrypt loop that
 * encrypts a buffer of sectors, one cipher call per sector with the IV set to the sector number
 * (dm-crypt's plain64), single-threaded, for a fixed time. Prints "<cipher> <MiB/s>".
 *   gcrypt_ref CIPHER [SECTOR_BYTES=4096] [SECONDS=3] [openssl]
 * With "openssl" the same loop runs through OpenSSL EVP (cipher keyed once; per sector: new IV,
 * one update, final, and for AEAD ciphers the tag read) — the same-work reference for AEAD ciphers,
 * which `openssl speed -aead` is not quite (one nonce for every block, tag never read).
 * Also prints MiB per CPU-second of the process ("<cipher> <MiB/s> <MiB/cpu-s>"), the figure that
 * stays comparable when other work shares the cores.
 * CIPHER: aes-128-cbc aes-256-cbc aes-128-xts aes-256-xts aes-256-gcm chacha20-poly1305
 *         serpent-xts twofish-xts serpent-cbc twofish-cbc (Serpent/Twofish with 256-bit keys) */
#include <gcrypt.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: gcrypt_ref CIPHER [SECTOR_BYTES] [SECONDS]\n");
    return 2;
  }
  const char* name = argv[1];
  size_t sector = argc > 2 ? (size_t)atol(argv[2]) : 4096;
  double seconds = argc > 3 ? atof(argv[3]) : 3.0;
  static const struct { const char* name; int algo, mode; size_t key, iv; int aead; } table[] = {
      {"aes-128-cbc", GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CBC, 16, 16, 0},
      {"aes-256-cbc", GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_CBC, 32, 16, 0},
      {"aes-128-xts", GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_XTS, 32, 16, 0},
      {"aes-256-xts", GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_XTS, 64, 16, 0},
      {"aes-256-gcm", GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_GCM, 32, 12, 1},
      {"chacha20-poly1305", GCRY_CIPHER_CHACHA20, GCRY_CIPHER_MODE_POLY1305, 32, 12, 1},
      {"serpent-xts", GCRY_CIPHER_SERPENT128, GCRY_CIPHER_MODE_XTS, 32, 16, 0},
      {"twofish-xts", GCRY_CIPHER_TWOFISH128, GCRY_CIPHER_MODE_XTS, 32, 16, 0},
      {"serpent-cbc", GCRY_CIPHER_SERPENT256, GCRY_CIPHER_MODE_CBC, 32, 16, 0},
      {"twofish-cbc", GCRY_CIPHER_TWOFISH, GCRY_CIPHER_MODE_CBC, 32, 16, 0},
  };
  int c = -1;
  for (size_t i = 0; i < sizeof table / sizeof table[0]; ++i)
    if (!strcmp(table[i].name, name)) c = (int)i;
  if (c < 0) {
    fprintf(stderr, "gcrypt_ref: unknown cipher %s\n", name);
    return 2;
  }
  size_t sectors = 65536 / sector ? 65536 / sector : 1, size = sectors * sector;
  unsigned char* buf = malloc(size);
  memset(buf, 0x5a, size);
  unsigned char key[64], iv[16], tag[16];
  for (size_t i = 0; i < sizeof key; ++i) key[i] = (unsigned char)(i * 7 + 1);
  uint64_t bytes = 0, s = 0;
  double cpu0, start, end;
  if (argc > 4 && !strcmp(argv[4], "openssl")) {
    const EVP_CIPHER* evp = EVP_get_cipherbyname(name);
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    if (!evp || !EVP_CipherInit_ex(ctx, evp, NULL, key, NULL, 1)) {
      fprintf(stderr, "gcrypt_ref: OpenSSL cannot set up %s\n", name);
      return 1;
    }
    int n, aead = table[c].aead;
    cpu0 = cpu_now(), start = now();
    do {
      for (size_t i = 0; i < sectors; ++i, ++s) {
        memset(iv, 0, sizeof iv);
        for (int b = 0; b < 8; ++b) iv[b] = (unsigned char)(s >> (8 * b));
        EVP_CipherInit_ex(ctx, NULL, NULL, NULL, iv, 1);
        EVP_CipherUpdate(ctx, buf + i * sector, &n, buf + i * sector, (int)sector);
        EVP_CipherFinal_ex(ctx, buf + i * sector + n, &n);
        if (aead) EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag);
      }
      bytes += size;
      end = now();
    } while (end - start < seconds);
    double cpu = cpu_now() - cpu0;
    printf("%s %.2f %.2f\n", name, (double)bytes / 1048576.0 / (end - start), (double)bytes / 1048576.0 / cpu);
    EVP_CIPHER_CTX_free(ctx);
    free(buf);
    return 0;
  }
  gcry_check_version(NULL);
  gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
  gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
  gcry_cipher_hd_t h;
  if (gcry_cipher_open(&h, table[c].algo, table[c].mode, 0) || gcry_cipher_setkey(h, key, table[c].key)) {
    fprintf(stderr, "gcrypt_ref: cannot set up %s\n", name);
    return 1;
  }
  cpu0 = cpu_now(), start = now();
  do {
    for (size_t i = 0; i < sectors; ++i, ++s) {
      memset(iv, 0, sizeof iv);
      for (int b = 0; b < 8; ++b) iv[b] = (unsigned char)(s >> (8 * b));
      /* AEAD: setiv starts a new message (no gcry_cipher_reset needed), final marks the one data
       * call as the last, gettag reads the tag — per sector, as the engine does. */
      gcry_cipher_setiv(h, iv, table[c].iv);
      if (table[c].aead) gcry_cipher_final(h);
      gcry_cipher_encrypt(h, buf + i * sector, sector, NULL, 0);
      if (table[c].aead) gcry_cipher_gettag(h, tag, 16);
    }
    bytes += size;
    end = now();
  } while (end - start < seconds);
  double cpu = cpu_now() - cpu0;
  printf("%s %.2f %.2f\n", name, (double)bytes / 1048576.0 / (end - start), (double)bytes / 1048576.0 / cpu);
  gcry_cipher_close(h);
  free(buf);
  return 0;
}
