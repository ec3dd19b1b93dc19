// What /proc/crypto says about the kernel's cipher implementations: which driver the kernel picks
// for an algorithm (the highest priority whose self-test passed), and how a user's choice of
// implementation ("generic", "aesni", a driver name) becomes a kernel crypto API name that
// dm-crypt's "capi:" cipher form accepts. Pure functions of the file's text.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ptsn::targets {

struct CryptoAlgorithm {
  std::string name;    // "xts(aes)"
  std::string driver;  // "xts-aes-aesni", "xts(ecb(aes-generic))"
  std::string module;  // "aesni_intel", "kernel"
  std::string type;    // "skcipher", "cipher", ...
  int priority = 0;
  bool selftest_passed = true;
  bool internal = false;  // "internal : yes": a building block the kernel never hands to users
};

std::vector<CryptoAlgorithm> ParseProcCrypto(std::string_view text);

// The driver the kernel gives a user of `name` now (highest priority, self-test passed);
// nullptr when /proc/crypto has no instance of it yet (templates are instantiated on first use).
const CryptoAlgorithm* PreferredDriver(const std::vector<CryptoAlgorithm>& all, std::string_view name);

// The driver of `name` whose driver name contains `hint` (the implementation a capi: spec chose),
// else PreferredDriver(); nullptr when there is none.
const CryptoAlgorithm* DriverInUse(const std::vector<CryptoAlgorithm>& all, std::string_view name,
                                   std::string_view hint);

// Every implementation of `algorithm` ("xts(aes)", "cbc(serpent)") a user of the crypto API can
// name by driver: its own drivers ("xts-aes-aesni", "cbc-twofish-3way"), and the mode's template
// over each driver of the block cipher ("cbc(aes-generic)", "xts(ecb(aes-generic))") and, for
// XTS, over each ECB driver ("xts(ecb-serpent-sse2)"). Internal building blocks and drivers whose
// self-test failed are left out; in /proc/crypto's order, each once.
std::vector<std::string> KernelImplementations(const std::vector<CryptoAlgorithm>& all, const std::string& algorithm);

// The drivers of the single-block "aes" cipher ("aes-generic, aes-aesni"), for messages.
std::string AesCipherDrivers(const std::vector<CryptoAlgorithm>& all);

// A chosen implementation of AES-XTS for dm-crypt.
struct Implementation {
  std::string capi_algorithm;  // "xts(ecb(aes-generic))" or "xts-aes-aesni"; "" = the kernel's choice
  std::string driver_hint;     // how its driver shows in /proc/crypto ("aes-generic", "xts-aes-aesni")
  std::string error;           // why it cannot be chosen here ("" = fine)
};

// "" -> the kernel's choice; "generic" -> the portable C cipher under the xts template;
// "aesni" -> xts-aes-aesni (else the aes-aesni cipher under the template); any other word is a
// driver name: an xts(aes) driver is used whole, an aes cipher driver under the xts template.
// A driver /proc/crypto does not list gives an error naming the drivers it does list.
Implementation ResolveImplementation(const std::vector<CryptoAlgorithm>& all, const std::string& impl);

// ---- Choosing the generic AES where a user of the crypto API cannot name a driver (fscrypt,
// eCryptfs): the kernel hands each new user the highest-priority driver of an algorithm, so the
// generic instances are made to exist and every other driver of those algorithms is lowered
// below them for as long as the target needs it.

// The crypto API algorithms a kind's files are encrypted with: fscrypt AES-256-XTS ->
// {"xts(aes)", "cts(cbc(aes))", "aes"}; eCryptfs -> {"cbc(aes)", "ecb(aes)", "aes"} (the single
// block cipher too, so templates instantiated later are built on the generic one).
std::vector<std::string> AesAlgorithmsOf(bool fscrypt);

// The driver name of the generic instance of `algorithm`, as the kernel composes it:
// "xts(aes)" -> "xts(ecb(aes-generic))", "cbc(aes)" -> "cbc(aes-generic)", "aes" -> "aes-generic".
std::string GenericInstanceOf(const std::string& algorithm);

// The drivers to lower so that the generic instance of each of `algorithms` is the kernel's
// choice: every other driver of those names (not internal) whose priority is not below the
// generic one's. Each with the priority to give it (below the generic one's).
struct PriorityChange {
  std::string driver;
  int from = 0, to = 0;
};
std::vector<PriorityChange> LowerForGeneric(const std::vector<CryptoAlgorithm>& all,
                                            const std::vector<std::string>& algorithms);

// "" when the kernel now hands out a driver whose name contains `family` ("aes-generic",
// "aesni") for each of `algorithms`, else which one it does hand out instead.
std::string CheckChosenDrivers(const std::vector<CryptoAlgorithm>& all, const std::vector<std::string>& algorithms,
                               const std::string& family);

}  // namespace ptsn::targets
