// Talking to a results server (ours or anything that speaks OpenBenchmarking's client.php):
// upload a result file, clone one by ID, list/search. HTTP sits behind a small interface so
// tests can fake it; CurlTransport is the real one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runner/openbenchmarking/wire.h"
#include "runner/common/error.h"

namespace ptsn::client {

struct HttpResponse {
  long status = 0;
  std::string body;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Throws ptsn::Error for transport failures (connection refused, timeout); any HTTP status
  // is returned, not thrown.
  virtual HttpResponse Post(const std::string& url, const std::string& form_body, const std::string& bearer_token) = 0;
  virtual HttpResponse Get(const std::string& url) = 0;
  // A GET with "Authorization: Bearer <token>" (a server's private reads). Transports that do
  // not model authorization (the tests' scripted ones) answer it as a plain Get.
  virtual HttpResponse GetAuthorized(const std::string& url, const std::string& bearer_token) {
    (void)bearer_token;
    return Get(url);
  }
};

std::unique_ptr<HttpTransport> CurlTransport(long timeout_seconds = 60);

// True for answers a later retry may turn into a success (5xx, 429).
bool IsRetryableStatus(long status);
// True for a 4xx about what was sent (400 invalid, 413 too large, ...), which sending it again
// cannot change; not for those about who sent it or where (401, 403, 404, 407) or when (408, 429).
bool RefusesTheUpload(long status);

// A failure the server answered: "upload: server answered HTTP 401: unknown token". Transport
// failures (refused, timeout) are plain ptsn::Error.
class ServerRefusal : public Error {
 public:
  ServerRefusal(const std::string& message, long status) : Error(message), status_(status) {}
  long status() const { return status_; }
  bool retryable() const { return IsRetryableStatus(status_); }
  bool refuses_the_upload() const { return RefusesTheUpload(status_); }

 private:
  long status_;
};

// What to do about a 401 from our server: how to send a user's token (`token_sent` false) or
// that the one sent is no user's (unknown, revoked or an agent's), and how the server's
// operator makes one. "" for any other status.
std::string TokenAdvice(long status, bool token_sent);

struct UploadOutcome {
  std::string id;
  std::string url;
};

// The request `UploadResult` sends: POST <server>/f/client.php with this form body.
std::string UploadUrl(const std::string& server_url);

// Throws ServerRefusal on a refusal. `form_body` is EncodeForm(EncodeUpload(...)).
UploadOutcome UploadResult(HttpTransport& http, const std::string& server_url, const std::string& token,
                           const std::string& form_body);

struct ListedResult {
  std::string id, title, systems, tests, url;
  long long uploaded_at = 0;
};
std::vector<ListedResult> ListResults(HttpTransport& http, const std::string& server_url, const std::string& text,
                                      const std::string& test, const std::string& system);

}  // namespace ptsn::client
