#include "runner/workloads/cipher_table.h"

#include <gtest/gtest.h>

namespace ptsn::workloads {
namespace {

TEST(CipherTable, ImplementationIsTheInnermostDriverWithoutModeAndCipher) {
  EXPECT_EQ(ImplementationOf("cbc(aes-generic)"), "generic");
  EXPECT_EQ(ImplementationOf("xts(ecb(aes-generic))"), "generic");
  EXPECT_EQ(ImplementationOf("xts-aes-aesni"), "aesni");
  EXPECT_EQ(ImplementationOf("xts(aes-aesni)"), "aesni");
  EXPECT_EQ(ImplementationOf("xts(ecb-serpent-sse2)"), "sse2");
  EXPECT_EQ(ImplementationOf("cbc-twofish-3way"), "3way");
  EXPECT_EQ(ImplementationOf("cbc(twofish-asm)"), "asm");
  EXPECT_EQ(ImplementationOf("ecb-serpent-avx2"), "avx2");
}

TEST(CipherTable, OneSystemPerImplementationOneResultPerCipherAndDirection) {
  results::System base;
  base.hardware = "Processor: X";
  base.software = "Kernel: 6.1";
  std::vector<CipherTableRow> rows = {
      {"aes-128-cbc", "cbc(aes-aesni)", {900, 950}, {3000, 3100}},  // listed first, as the kernel lists them
      {"aes-128-cbc", "cbc-aes-aesni", {1000, 1100}, {4000, 4200}},  // aesni's own driver: kept
      {"aes-128-cbc", "cbc(aes-generic)", {200, 210}, {190, 200}},
      {"serpent-cbc", "cbc(serpent-generic)", {80, 82}, {90, 91}},
  };
  std::vector<std::string> skipped;
  auto file = CipherTableFile(rows, base, 65536, &skipped);
  ASSERT_EQ(file.systems.size(), 2u);
  EXPECT_EQ(file.systems[0].identifier, "aesni");
  EXPECT_EQ(file.systems[0].hardware, "Processor: X");
  EXPECT_EQ(file.systems[0].notes.value_or(""), "Kernel cipher drivers (AF_ALG): aes-128-cbc: cbc-aes-aesni.");
  EXPECT_EQ(file.systems[1].notes.value_or(""),
            "Kernel cipher drivers (AF_ALG): aes-128-cbc: cbc(aes-generic), serpent-cbc: cbc(serpent-generic).");
  EXPECT_EQ(skipped, std::vector<std::string>{"aes-128-cbc cbc(aes-aesni) (aesni: cbc-aes-aesni)"});
  ASSERT_EQ(file.results.size(), 4u);  // 2 ciphers x encrypt, decrypt
  const auto& r = file.results[0];
  EXPECT_EQ(r.identifier, "native/cipher-1.0.0");
  EXPECT_EQ(r.arguments, "--cipher aes-128-cbc --direction encrypt --block-size 65536 --backend kernel");
  EXPECT_EQ(r.description, "Cipher: AES-128-CBC - Direction: Encrypt - Block Size: 65536 Bytes - Backend: Kernel Crypto API (AF_ALG)");
  EXPECT_EQ(r.scale, "MiB/s");
  EXPECT_EQ(r.proportion, "HIB");
  ASSERT_EQ(r.entries.size(), 2u);
  EXPECT_EQ(r.entries[0].identifier, "aesni");
  EXPECT_EQ(r.entries[0].value, "1050.00");
  EXPECT_EQ(r.entries[0].raw_string.value_or(""), "1000.00:1100.00");
  EXPECT_EQ(r.entries[1].identifier, "generic");
  EXPECT_EQ(file.results[1].entries.size(), 1u) << "serpent-cbc: generic only";
  EXPECT_NE(file.results[2].description.find("Direction: Decrypt"), std::string::npos);
  EXPECT_EQ(file.results[2].entries[0].value, "4100.00");
}

}  // namespace
}  // namespace ptsn::workloads
