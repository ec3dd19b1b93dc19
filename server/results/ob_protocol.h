// The OpenBenchmarking requests of PTS 10.8.6 that concern test profiles and the client itself
// rather than stored results: request_gsid, phoromatic_server_relay_check, repo_index,
// acquire_test and repo_changes (app.cc answers the result requests). Together with GET /PTS
// (app.cc) they are what the real client asks before and while it fetches profiles, clones or
// uploads (../shared/reference/pts-output/ob-client-requests/).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "server/results/profile_mirror.h"

namespace ptsn::server {

struct ObAnswer {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
};

using ObField = std::function<std::string(const std::string& name)>;  // "" when absent

// The answer to request `r`, or nullopt when `r` is not one of the above. `mirror` may be null
// (no profiles imported): repo_index and acquire_test then answer 404 with an error naming the
// import command.
std::optional<ObAnswer> AnswerProfileRequest(const std::string& r, const ObField& field, ProfileMirror* mirror);

}  // namespace ptsn::server
