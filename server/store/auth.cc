#include "server/store/auth.h"

#include <openssl/rand.h>

#include <cctype>

#include "runner/openbenchmarking/wire.h"
#include "runner/common/error.h"
#include "server/store/storage.h"

namespace ptsn::server {

void CheckUserName(const std::string& user) {
  bool ok = !user.empty() && user.size() <= 64;
  for (unsigned char c : user) ok = ok && (std::isalnum(c) || c == '_' || c == '.' || c == '-');
  if (!ok) throw Error("token: user name '" + user + "' must be 1-64 characters of A-Z a-z 0-9 _ . -");
}

std::string NewToken() {
  unsigned char raw[20];
  if (RAND_bytes(raw, sizeof raw) != 1) throw Error("token: the system random generator failed");
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token = "ptsn_";
  for (unsigned char b : raw) {
    token += kHex[b >> 4];
    token += kHex[b & 15];
  }
  return token;
}

std::string CreateToken(Storage& storage, const std::string& user) {
  CheckUserName(user);
  std::string token = NewToken();
  storage.AddToken(user, wire::Sha256Hex(token));
  return token;
}

std::optional<std::string> Authenticate(Storage& storage, const std::string& token) {
  if (token.empty() || token.size() > 256) return std::nullopt;
  return storage.UserForToken(wire::Sha256Hex(token));
}

}  // namespace ptsn::server
