// `pts/NAME` on demand for the commands that name profiles (info, install, benchmark,
// batch-run): a profile that is not on disk is fetched from the servers with its parents
// (runner/client/profile_source.h) into the profile cache, and the repository is rescanned.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runner/client/profile_source.h"
#include "runner/common/args.h"
#include "runner/profile/profile_repository.h"

namespace ptsn::cli {

// --server (repeatable, each may list several) and --offline, with the settings behind them.
struct NetworkChoice {
  std::vector<std::string> servers;  // in order; server.url when no --server was given
  bool offline = false;              // --offline or network.offline
  static NetworkChoice From(const Args& args);
};

// The client and profile source a command uses, made when first needed (so commands that find
// everything on disk make none and open no socket).
class ProfileFetcher {
 public:
  ProfileFetcher(profile::ProfileRepository& repo, NetworkChoice network);
  ~ProfileFetcher();
  // When `name` is not a directory, a profile or a suite on disk and has the repo/name form:
  // fetches it (resolving a versionless name to the index's newest version) and rescans the
  // repository; returns true. Throws ptsn::Error naming what is missing and why (offline: which
  // profiles the cache lacks). False when there was nothing to fetch.
  bool EnsureProfile(const std::string& name);
  client::ProfileSource& Source();

 private:
  profile::ProfileRepository& repo_;
  NetworkChoice network_;
  std::unique_ptr<client::ObClient> client_;
  std::unique_ptr<client::ProfileSource> source_;
};

}  // namespace ptsn::cli
