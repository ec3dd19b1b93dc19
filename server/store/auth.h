// Upload tokens: random, shown once, stored only as their SHA-256.
#pragma once

#include <optional>
#include <string>

namespace ptsn::server {

class Storage;

// Creates a token for `user`, stores its hash and returns the token text ("ptsn_" + 40 hex).
std::string CreateToken(Storage& storage, const std::string& user);

// A new random token text ("ptsn_" + 40 hex), not stored anywhere yet.
std::string NewToken();

// The user of `token`, or nullopt for an unknown/empty token.
std::optional<std::string> Authenticate(Storage& storage, const std::string& token);

// A user name is 1..64 characters of [A-Za-z0-9_.-]; throws ptsn::Error otherwise.
void CheckUserName(const std::string& user);

}  // namespace ptsn::server
