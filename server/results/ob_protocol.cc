#include "server/results/ob_protocol.h"

#include "runner/openbenchmarking/protocol.h"

namespace ptsn::server {

namespace {

ObAnswer Json(int status, std::string body) { return {status, std::move(body), "application/json"}; }

}  // namespace

std::optional<ObAnswer> AnswerProfileRequest(const std::string& r, const ObField& field, ProfileMirror* mirror) {
  // No GSIDs, relays or change logs here: PTS goes on without them (an empty answer).
  if (r == "request_gsid" || r == "phoromatic_server_relay_check" || r == "repo_changes") return Json(200, ob::EncodeEmpty());
  if (r == "repo_index") {
    const std::string repo = field("repo");
    auto index = mirror ? mirror->Index(repo) : nullptr;
    // Not 200 for an unknown repository: PTS stores any JSON it gets as the index, and keeps its
    // own copy when the request fails.
    if (!index)
      return Json(404, ob::EncodeError("repo", "no index of repository '" + repo.substr(0, 64) +
                                                   "' here (pts-native-server import-profiles DIR loads one)"));
    return Json(200, *index);
  }
  if (r == "acquire_test") {
    const std::string id = field("i");
    auto test = mirror ? mirror->Test(id) : nullptr;
    if (!test)
      return Json(404, ob::EncodeError("test", "no test profile '" + id.substr(0, 100) +
                                                   "' here (pts-native-server import-profiles DIR loads profiles)"));
    return Json(200, ob::EncodeAcquireTest(*test));
  }
  return std::nullopt;
}

}  // namespace ptsn::server
