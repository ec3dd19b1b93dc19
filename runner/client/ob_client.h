// Asking OpenBenchmarking-speaking servers (OpenBenchmarking.org, a pts-native-server mirror):
// the configured servers are tried in order until one gives an answer; offline, none is asked
// and no socket is opened (the transport is not even made). The requests and answers themselves
// are runner/openbenchmarking/protocol.h's; this adds where they go and what a failure says.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runner/client/client.h"
#include "runner/openbenchmarking/protocol.h"

namespace ptsn {
class Settings;
}

namespace ptsn::client {

// "https://a, http://b c" -> {"https://a", "http://b", "c"}: commas and blanks separate servers;
// trailing slashes are dropped.
std::vector<std::string> ParseServerList(const std::string& text);

// The servers to ask: --server values when given (each may list several), else server.url.
std::vector<std::string> ServersFrom(const Settings& settings, const std::vector<std::string>& flag_values);

// Why no server gave an answer; the message lists each server with what it said.
class NoServerAnswered : public Error {
 public:
  NoServerAnswered(const std::string& what, const std::string& failures, bool offline, bool any_reached)
      : Error(what + ": " + failures), failures_(failures), offline_(offline), any_reached_(any_reached) {}
  const std::string& failures() const { return failures_; }  // the message without the request's name
  bool offline() const { return offline_; }                  // nothing was asked
  bool any_reached() const { return any_reached_; }          // some server answered (with a refusal)

 private:
  std::string failures_;
  bool offline_, any_reached_;
};

class ObClient {
 public:
  using TransportFactory = std::function<std::unique_ptr<HttpTransport>()>;
  // `make_transport` is called once, on the first request (never when offline); by default the
  // libcurl transport.
  ObClient(std::vector<std::string> servers, bool offline, TransportFactory make_transport = nullptr);

  const std::vector<std::string>& servers() const { return servers_; }
  bool offline() const { return offline_; }

  // Each server in turn until `decode` accepts an answer: a transport failure, an HTTP status
  // other than 200 or a ProtocolError from `decode` moves on to the next. `what` names the
  // request in messages ("pts/fs-mark-1.0.3"). `only` asks just those servers instead of all.
  // A server that could not be reached at all (no name, no connection) is not asked again by this
  // client: its first failure stands for the later requests (a fresh machine without network
  // would otherwise wait on the resolver once per request). Throws NoServerAnswered.
  template <typename T>
  struct Answered {
    T value;
    std::string server;
  };
  template <typename T>
  Answered<T> Ask(const ob::Request& request, const std::string& what,
                  const std::function<T(const std::string& body)>& decode,
                  const std::vector<std::string>* only = nullptr);

  Answered<std::string> RepoIndex(const std::string& repo);              // the index JSON as sent
  Answered<ob::AcquiredTest> AcquireTest(const std::string& qualified);  // sha1-checked
  Answered<ob::ClonedResult> CloneResult(const std::string& id);
  // The system-log zip of a cloned result from `server`, accepted only when its sha1 is `sha1`.
  std::string SystemLogs(const std::string& server, const std::string& id, const std::string& sha1);

 private:
  HttpTransport& Transport();
  std::vector<std::string> servers_;
  bool offline_;
  TransportFactory make_transport_;
  std::unique_ptr<HttpTransport> transport_;
  std::map<std::string, std::string> unreachable_;  // server -> why, from its first failure
};

// ---- template definition ----

std::string RequestUrl(const std::string& server);  // <server>/f/client.php

template <typename T>
ObClient::Answered<T> ObClient::Ask(const ob::Request& request, const std::string& what,
                                    const std::function<T(const std::string& body)>& decode,
                                    const std::vector<std::string>* only) {
  const std::vector<std::string>& servers = only ? *only : servers_;
  if (offline_)
    throw NoServerAnswered(what, "not asking " + (servers.empty() ? std::string("any server") : servers.front()) +
                                     (servers.size() > 1 ? " or the others" : "") + " (offline: --offline / network.offline)",
                           true, false);
  if (servers.empty()) throw NoServerAnswered(what, "no server configured (server.url, --server URL)", false, false);
  std::vector<std::string> failures;
  bool reached = false;
  const std::string body = request.Body();
  for (const auto& server : servers) {
    if (auto it = unreachable_.find(server); it != unreachable_.end()) {
      failures.push_back(it->second);
      continue;
    }
    try {
      HttpResponse r = Transport().Post(RequestUrl(server), body, "");
      reached = true;
      if (r.status != 200) {
        std::string msg = ob::ErrorMessage(r.body);
        failures.push_back(server + ": HTTP " + std::to_string(r.status) + (msg.empty() ? "" : " (" + msg + ")"));
        continue;
      }
      return {decode(r.body), server};
    } catch (const ob::ProtocolError& e) {
      failures.push_back(server + ": " + e.what());
    } catch (const ServerRefusal& e) {
      failures.push_back(server + ": " + e.what());
    } catch (const Error& e) {
      failures.push_back(e.what());  // transport errors already name the URL
      unreachable_.emplace(server, e.what());
    }
  }
  std::string joined;
  for (const auto& f : failures) joined += (joined.empty() ? "" : "; ") + f;
  throw NoServerAnswered(what, joined, false, reached);
}

}  // namespace ptsn::client
