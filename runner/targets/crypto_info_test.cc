#include "runner/targets/crypto_info.h"

#include <gtest/gtest.h>

namespace ptsn::targets {
namespace {

// Captured from this machine's kernel (6.18, no AES-NI module) plus an AES-NI machine's entries.
const char* kProcCrypto = R"(name         : xts(aes)
driver       : xts(ecb(aes-fixed-time))
module       : kernel
priority     : 100
refcnt       : 1
selftest     : passed
internal     : no
type         : skcipher

name         : aes
driver       : aes-fixed-time
module       : kernel
priority     : 100
selftest     : passed
type         : cipher

name         : aes
driver       : aes-generic
module       : kernel
priority     : 100
selftest     : passed
type         : cipher

name         : xts(aes)
driver       : xts-aes-aesni
module       : aesni_intel
priority     : 401
selftest     : passed
type         : skcipher

name         : xts(aes)
driver       : xts-aes-broken
module       : broken
priority     : 900
selftest     : unknown
type         : skcipher

name         : aes
driver       : aes-aesni
module       : aesni_intel
priority     : 300
selftest     : passed
type         : cipher
)";

TEST(CryptoInfo, ParsesEveryEntryWithItsFields) {
  auto all = ParseProcCrypto(kProcCrypto);
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[0].name, "xts(aes)");
  EXPECT_EQ(all[0].driver, "xts(ecb(aes-fixed-time))");
  EXPECT_EQ(all[0].type, "skcipher");
  EXPECT_EQ(all[3].priority, 401);
  EXPECT_EQ(all[3].module, "aesni_intel");
  EXPECT_FALSE(all[4].selftest_passed);
}

TEST(CryptoInfo, PreferredIsHighestPriorityThatPassedItsSelfTest) {
  auto all = ParseProcCrypto(kProcCrypto);
  ASSERT_NE(PreferredDriver(all, "xts(aes)"), nullptr);
  EXPECT_EQ(PreferredDriver(all, "xts(aes)")->driver, "xts-aes-aesni");
  EXPECT_EQ(PreferredDriver(all, "cts(cbc(aes))"), nullptr);
  EXPECT_EQ(DriverInUse(all, "xts(aes)", "aes-fixed-time")->driver, "xts(ecb(aes-fixed-time))");
  EXPECT_EQ(DriverInUse(all, "xts(aes)", "nothing-like-it")->driver, "xts-aes-aesni");
  EXPECT_EQ(AesCipherDrivers(all), "aes-fixed-time, aes-generic, aes-aesni");
}

TEST(CryptoInfo, ImplementationWordsBecomeCapiNames) {
  auto all = ParseProcCrypto(kProcCrypto);
  EXPECT_EQ(ResolveImplementation(all, "").capi_algorithm, "");
  auto generic = ResolveImplementation(all, "generic");
  EXPECT_EQ(generic.capi_algorithm, "xts(ecb(aes-generic))");
  EXPECT_EQ(generic.driver_hint, "aes-generic");
  EXPECT_EQ(ResolveImplementation(all, "aesni").capi_algorithm, "xts-aes-aesni");
  EXPECT_EQ(ResolveImplementation(all, "aes-fixed-time").capi_algorithm, "xts(ecb(aes-fixed-time))");
  EXPECT_EQ(ResolveImplementation(all, "xts-aes-aesni").capi_algorithm, "xts-aes-aesni");
}

TEST(CryptoInfo, MissingImplementationSaysWhatTheKernelHas) {
  auto all = ParseProcCrypto(kProcCrypto);
  all.erase(all.begin() + 3, all.end());  // this machine: no AES-NI
  auto r = ResolveImplementation(all, "aesni");
  EXPECT_EQ(r.capi_algorithm, "");
  EXPECT_EQ(r.error,
            "no AES driver aes-aesni in /proc/crypto (aes cipher drivers here: aes-fixed-time, aes-generic); the "
            "aesni_intel module is not loaded or not built");
  EXPECT_EQ(ResolveImplementation(all, "aes-ce").error,
            "no AES driver aes-ce in /proc/crypto (aes cipher drivers here: aes-fixed-time, aes-generic)");
}

TEST(CryptoInfo, ImplementationsAreOwnDriversThenTemplatesOverEachCipherDriver) {
  auto all = ParseProcCrypto(kProcCrypto);
  // xts(ecb(aes-fixed-time)) is listed already and composed again from aes-fixed-time: once.
  EXPECT_EQ(KernelImplementations(all, "xts(aes)"),
            (std::vector<std::string>{"xts(ecb(aes-fixed-time))", "xts-aes-aesni", "xts(ecb(aes-generic))",
                                      "xts(ecb(aes-aesni))"}));
  EXPECT_EQ(KernelImplementations(all, "cbc(aes)"),
            (std::vector<std::string>{"cbc(aes-fixed-time)", "cbc(aes-generic)", "cbc(aes-aesni)"}));
  EXPECT_TRUE(KernelImplementations(all, "cbc(serpent)").empty());
  EXPECT_TRUE(KernelImplementations(all, "aes").empty());
  // SIMD ECB drivers (their internal halves left out) under the XTS template.
  auto serpent = ParseProcCrypto(
      "name : serpent\ndriver : serpent-generic\ntype : cipher\n\n"
      "name : ecb(serpent)\ndriver : __ecb-serpent-sse2\ninternal : yes\ntype : skcipher\n\n"
      "name : ecb(serpent)\ndriver : ecb-serpent-sse2\ntype : skcipher\n\n"
      "name : cbc(serpent)\ndriver : cbc-serpent-sse2\ntype : skcipher\n");
  EXPECT_EQ(KernelImplementations(serpent, "xts(serpent)"),
            (std::vector<std::string>{"xts(ecb(serpent-generic))", "xts(ecb-serpent-sse2)"}));
  EXPECT_EQ(KernelImplementations(serpent, "cbc(serpent)"),
            (std::vector<std::string>{"cbc-serpent-sse2", "cbc(serpent-generic)"}));
}

}  // namespace
}  // namespace ptsn::targets
