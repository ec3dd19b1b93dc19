#include "runner/client/ob_client.h"

#include <algorithm>

#include "runner/common/settings.h"
#include "runner/common/strings.h"
#include "runner/openbenchmarking/wire.h"

namespace ptsn::client {

std::vector<std::string> ParseServerList(const std::string& text) {
  std::vector<std::string> out;
  std::string current;
  auto flush = [&] {
    while (!current.empty() && current.back() == '/') current.pop_back();
    if (!current.empty() && std::find(out.begin(), out.end(), current) == out.end()) out.push_back(current);
    current.clear();
  };
  for (char c : text) {
    if (c == ',' || c == ' ' || c == '\t' || c == '\n') flush();
    else current += c;
  }
  flush();
  return out;
}

std::vector<std::string> ServersFrom(const Settings& settings, const std::vector<std::string>& flag_values) {
  std::vector<std::string> out;
  for (const auto& v : flag_values)
    for (auto& s : ParseServerList(v))
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(std::move(s));
  return out.empty() ? ParseServerList(settings.Get("server.url")) : out;
}

std::string RequestUrl(const std::string& server) {
  std::string s = server;
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s + ob::kClientPath;
}

ObClient::ObClient(std::vector<std::string> servers, bool offline, TransportFactory make_transport)
    : servers_(std::move(servers)), offline_(offline), make_transport_(std::move(make_transport)) {}

HttpTransport& ObClient::Transport() {
  if (!transport_) transport_ = make_transport_ ? make_transport_() : CurlTransport(60);
  return *transport_;
}

ObClient::Answered<std::string> ObClient::RepoIndex(const std::string& repo) {
  return Ask<std::string>(ob::RepoIndex(repo), "index of " + repo, [](const std::string& body) {
    ob::DecodeRepoIndex(body);  // only a well-formed index is kept
    return body;
  });
}

ObClient::Answered<ob::AcquiredTest> ObClient::AcquireTest(const std::string& qualified) {
  return Ask<ob::AcquiredTest>(ob::AcquireTest(qualified), qualified,
                               [&](const std::string& body) { return ob::DecodeAcquireTest(body, qualified); });
}

ObClient::Answered<ob::ClonedResult> ObClient::CloneResult(const std::string& id) {
  return Ask<ob::ClonedResult>(ob::CloneOpenBenchmarkingResult(id), "result " + id,
                               [&](const std::string& body) { return ob::DecodeClonedResult(body, id); });
}

std::string ObClient::SystemLogs(const std::string& server, const std::string& id, const std::string& sha1) {
  const std::vector<std::string> only{server};
  auto check = [&](const std::string& body) {
    if (wire::Sha1Hex(body) != sha1)
      throw ob::ProtocolError("the system-log zip's sha1 is not the " + sha1.substr(0, 40) + " the result named (not used)");
    return body;
  };
  return Ask<std::string>(ob::CloneOpenBenchmarkingSystemLogs(id), "system logs of " + id, check, &only).value;
}

}  // namespace ptsn::client
