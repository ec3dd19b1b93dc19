#include "runner/targets/target_spec.h"

#include <algorithm>
#include <cstdlib>
#include <set>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/targets/encryption_options.h"

namespace ptsn::targets {

const char* KindName(Kind kind) {
  switch (kind) {
    case Kind::kPlain: return "plain";
    case Kind::kFscrypt: return "fscrypt";
    case Kind::kDmCrypt: return "dm-crypt";
    case Kind::kEcryptfs: return "ecryptfs";
  }
  return "?";
}

namespace {

[[noreturn]] void Fail(const std::string& text, const std::string& why) {
  throw Error("--targets " + text + ": " + why);
}

bool IsFileSystem(const std::string& s) { return s == "ext4" || s == "xfs" || s == "btrfs" || s == "reiserfs"; }

// "AES-256-XTS" for the default dm-crypt cipher and key size, else the cipher and bits as given.
std::string DmCipherLabel(const TargetSpec& s) {
  if (s.dm_format == "loopaes") return "AES-" + std::to_string(s.key_bits ? s.key_bits : 256);
  int bits = s.key_bits ? s.key_bits : 512;
  std::string cipher = s.cipher.empty() ? "aes-xts-plain64" : s.cipher;
  if (cipher == "aes-xts-plain64" && (bits == 512 || bits == 256))
    return bits == 512 ? "AES-256-XTS" : "AES-128-XTS";
  return cipher + " " + std::to_string(bits) + "-bit";
}

}  // namespace

std::string DefaultIdentifier(const TargetSpec& s) {
  std::string id = KindName(s.kind);
  if (s.kind == Kind::kFscrypt) id += s.fscrypt_mode == "adiantum" ? " Adiantum" : " AES-256-XTS";
  if (s.kind == Kind::kDmCrypt)
    id += std::string(s.dm_format == "plain" ? " plain " : s.dm_format == "loopaes" ? " loop-AES " : " LUKS2 ") + DmCipherLabel(s);
  for (const auto& option : s.dm_flags) id += std::string(" ") + FindDmFlag(option)->label;
  if (s.sector_size) id += " sector " + std::to_string(s.sector_size);
  if (s.inlinecrypt) id += " inlinecrypt";
  if (s.kind == Kind::kEcryptfs) id += " AES-" + std::to_string(s.ecryptfs_key_bytes * 8);
  if (!s.impl.empty()) id += " " + (s.impl == "generic" ? std::string("aes-generic") : s.impl);
  if (!s.raid_level.empty()) id += " RAID" + s.raid_level + "x" + std::to_string(s.raid_members);
  return id + " " + s.fs + (s.scheduler.empty() ? "" : " " + s.scheduler) +
         (s.nfs_version.empty() ? "" : " over NFSv" + s.nfs_version);
}

std::string TargetSpec::Identifier() const { return name.empty() ? DefaultIdentifier(*this) : name; }

TargetSpec ParseTargetSpec(const std::string& text) {
  TargetSpec s;
  s.text = text;
  std::string rest = Trim(text);
  if (rest.empty()) Fail("''", "empty target (expected plain, fscrypt, dm-crypt or ecryptfs)");
  // NAME=spec: a '=' before any ':' names the target.
  size_t eq = rest.find('='), colon = rest.find(':');
  if (eq != std::string::npos && (colon == std::string::npos || eq < colon)) {
    s.name = Trim(rest.substr(0, eq));
    rest = Trim(rest.substr(eq + 1));
    if (s.name.empty()) Fail(text, "empty name before '='");
  }
  colon = rest.find(':');
  std::string kind = ToLower(rest.substr(0, colon));
  if (kind == "plain") s.kind = Kind::kPlain;
  else if (kind == "fscrypt") s.kind = Kind::kFscrypt;
  else if (kind == "dm-crypt" || kind == "dmcrypt") s.kind = Kind::kDmCrypt;
  else if (kind == "ecryptfs") s.kind = Kind::kEcryptfs;
  else Fail(text, "unknown target kind '" + kind + "' (expected plain, fscrypt, dm-crypt or ecryptfs)");
  rest = colon == std::string::npos ? "" : rest.substr(colon + 1);

  while (!rest.empty()) {
    std::string option;
    if (StartsWith(rest, "cipher=")) {  // the rest of the spec: capi: names contain ':'
      option = rest;
      rest.clear();
    } else {
      colon = rest.find(':');
      option = rest.substr(0, colon);
      rest = colon == std::string::npos ? "" : rest.substr(colon + 1);
    }
    size_t at = option.find('=');
    std::string key = ToLower(Trim(option.substr(0, at)));
    std::string value = at == std::string::npos ? "" : Trim(option.substr(at + 1));
    if (at != std::string::npos && value.empty()) Fail(text, "option " + key + "= has no value");
    if (at == std::string::npos) {  // a bare word: whichever option it is a value of
      value = key;
      if (IsFileSystem(key)) key = "fs";
      else if (key == "aes-256-xts" || key == "adiantum") key = "mode";
      else if (key == "luks2" || key == "plain" || key == "loopaes") key = "format";
      else if (key == "nfs") value = "4.2";
      else if (FindDmFlag(key) || key == "inlinecrypt") value = "";
      else Fail(text, "unknown option '" + value + "'");
    }
    value = key == "cipher" || key == "impl" ? value : ToLower(value);
    if (key == "fs") {
      if (!IsFileSystem(value)) Fail(text, "file system '" + value + "' (expected ext4, xfs, btrfs or reiserfs)");
      s.fs = value;
    } else if (key == "raid") {
      if (value != "0" && value != "1" && value != "5" && value != "10")
        Fail(text, "RAID level '" + value + "' (expected 0, 1, 5 or 10)");
      s.raid_level = value;
    } else if (key == "members" || key == "chunk") {
      char* end = nullptr;
      long n = std::strtol(value.c_str(), &end, 10);
      if (*end || n < 1 || n > (key == "members" ? 16 : 65536))
        Fail(text, key + "=" + value + (key == "members" ? " (expected 2 to 16 devices)" : " (expected KiB: 64, 512...)"));
      (key == "members" ? s.raid_members : s.raid_chunk_kib) = static_cast<int>(n);
    } else if (key == "sched" || key == "scheduler") {
      if (value != "none" && value != "mq-deadline" && value != "bfq" && value != "kyber")
        Fail(text, "I/O scheduler '" + value + "' (expected none, mq-deadline, bfq or kyber)");
      s.scheduler = value;
    } else if (key == "nfs") {
      if (value != "4.2" && value != "4.1" && value != "4.0" && value != "4")
        Fail(text, "NFS version '" + value + "' (expected 4.2, 4.1 or 4.0: NFSv3 would need rpcbind)");
      s.nfs_version = value == "4" ? "4.0" : value;
    } else if (key == "mode") {
      if (s.kind != Kind::kFscrypt) Fail(text, "mode " + value + " is an fscrypt option");
      if (value != "aes-256-xts" && value != "adiantum")
        Fail(text, "fscrypt mode '" + value + "' (expected aes-256-xts or adiantum)");
      s.fscrypt_mode = value;
    } else if (key == "format") {
      if (s.kind != Kind::kDmCrypt) Fail(text, "format " + value + " is a dm-crypt option");
      if (value != "luks2" && value != "plain" && value != "loopaes")
        Fail(text, "dm-crypt format '" + value + "' (expected luks2, plain or loopaes)");
      s.dm_format = value;
    } else if (key == "key-size") {
      if (s.kind != Kind::kDmCrypt) Fail(text, "key-size is a dm-crypt option");
      char* end = nullptr;
      long bits = std::strtol(value.c_str(), &end, 10);
      if (*end || bits < 128 || bits > 1024 || bits % 8) Fail(text, "key-size " + value + " (expected bits: 256, 512...)");
      s.key_bits = static_cast<int>(bits);
    } else if (FindDmFlag(key)) {
      if (s.kind != Kind::kDmCrypt) Fail(text, key + " is a dm-crypt option");
      if (!value.empty()) Fail(text, key + " takes no value");
      s.dm_flags.push_back(key);
    } else if (key == "sector-size") {
      if (s.kind != Kind::kDmCrypt) Fail(text, "sector-size is a dm-crypt option");
      if (value != "512" && value != "1024" && value != "2048" && value != "4096")
        Fail(text, "sector-size " + value + " (expected 512, 1024, 2048 or 4096 bytes)");
      s.sector_size = std::atoi(value.c_str());
    } else if (key == "inlinecrypt") {
      if (s.kind != Kind::kFscrypt) Fail(text, "inlinecrypt is an fscrypt option (a mount option of its ext4)");
      if (!value.empty()) Fail(text, "inlinecrypt takes no value");
      s.inlinecrypt = true;
    } else if (key == "key-bytes") {
      if (s.kind != Kind::kEcryptfs) Fail(text, "key-bytes is an ecryptfs option (dm-crypt: key-size=BITS)");
      if (value != "16" && value != "24" && value != "32") Fail(text, "key-bytes " + value + " (expected 16, 24 or 32)");
      s.ecryptfs_key_bytes = std::atoi(value.c_str());
    } else if (key == "cipher") {
      if (s.kind != Kind::kDmCrypt) Fail(text, "cipher= is a dm-crypt option (fscrypt: aes-256-xts or adiantum)");
      s.cipher = value;
    } else if (key == "impl") {
      if (s.kind == Kind::kPlain) Fail(text, "impl= needs an encrypting target (plain has no cipher)");
      if (s.kind != Kind::kDmCrypt && value != "generic" && value != "aesni")
        Fail(text, std::string(KindName(s.kind)) + " cannot name a cipher driver (the kernel picks by priority): " +
                       "impl= takes generic or aesni here");
      s.impl = value;
    } else {
      Fail(text, "unknown option '" + key + "'");
    }
  }
  if (s.kind == Kind::kFscrypt && s.fs != "ext4")
    Fail(text, "fscrypt targets are ext4 here (" + s.fs + " has no fscrypt support we set up)");
  if (s.kind == Kind::kFscrypt && s.fscrypt_mode == "adiantum" && !s.impl.empty())
    Fail(text, "impl= chooses an AES driver; Adiantum is not AES-XTS");
  if (s.kind == Kind::kDmCrypt && !s.cipher.empty() && !s.impl.empty())
    Fail(text, "give either cipher= (which may name the implementation with capi:) or impl=, not both");
  if (s.kind == Kind::kDmCrypt && s.dm_format == "loopaes") {
    if (!s.cipher.empty() || !s.impl.empty())
      Fail(text, "a loop-AES volume is AES in CBC with its own IVs (aes:64-cbc-lmk): no cipher= or impl=");
    if (s.key_bits && s.key_bits != 128 && s.key_bits != 192 && s.key_bits != 256)
      Fail(text, "loop-AES keys are 128, 192 or 256 bits, not " + std::to_string(s.key_bits));
    if (!s.dm_flags.empty() || s.sector_size)
      Fail(text, "the performance flags and sector-size= are offered for LUKS2 and plain mode, not loop-AES");
  }
  // One order whatever the spec's, so the identifier names the same set-up the same way.
  std::vector<std::string> flags;
  for (const auto& f : DmFlags())
    if (std::find(s.dm_flags.begin(), s.dm_flags.end(), f.option) != s.dm_flags.end()) flags.push_back(f.option);
  s.dm_flags = flags;
  if (s.raid_level.empty() && (s.raid_members || s.raid_chunk_kib)) Fail(text, "members= and chunk= go with raid=");
  if (!s.raid_level.empty()) {
    const int least = s.raid_level == "5" ? 3 : s.raid_level == "10" ? 4 : 2;
    if (!s.raid_members) s.raid_members = least;
    if (s.raid_members < least) Fail(text, "raid=" + s.raid_level + " needs " + std::to_string(least) + " members at least");
    if (s.raid_level == "1" && s.raid_chunk_kib) Fail(text, "raid=1 has no chunk");
  }
  if (!s.nfs_version.empty() && (s.kind == Kind::kEcryptfs || s.kind == Kind::kFscrypt))
    Fail(text, std::string("nfs: ") + KindName(s.kind) + " is not exported here (" +
                   (s.kind == Kind::kEcryptfs ? "the kernel's NFS server cannot export eCryptfs"
                                              : "an fscrypt directory over NFS is not supported by pts-native yet") +
                   "); plain and dm-crypt targets are");
  if (s.name.find(',') != std::string::npos) Fail(text, "a name may not contain ','");
  return s;
}

std::vector<TargetSpec> ParseTargetList(const std::string& list) {
  std::vector<TargetSpec> out;
  std::set<std::string> seen;
  for (const auto& part : Split(list, ',')) {
    if (Trim(part).empty()) continue;
    TargetSpec s = ParseTargetSpec(part);
    if (!seen.insert(s.Identifier()).second)
      throw Error("--targets " + list + ": two targets are both '" + s.Identifier() +
                  "' (give one a name: NAME=" + Trim(part) + ")");
    out.push_back(std::move(s));
  }
  if (out.empty()) throw Error("--targets: empty list (expected e.g. plain,fscrypt)");
  return out;
}

std::string DmCryptCipher(const TargetSpec& spec, const std::string& capi_algorithm) {
  if (!spec.cipher.empty()) return spec.cipher;
  if (capi_algorithm.empty()) return "aes-xts-plain64";
  return "capi:" + capi_algorithm + "-plain64";
}

}  // namespace ptsn::targets
