#include "server/http/http.h"

#include <strings.h>
#include <unistd.h>

#include "runner/common/strings.h"

namespace ptsn::server::http {

bool CaseLess::operator()(const std::string& a, const std::string& b) const {
  return strcasecmp(a.c_str(), b.c_str()) < 0;
}

std::string Request::Header(const std::string& name) const {
  auto it = headers.find(name);
  return it == headers.end() ? "" : it->second;
}

std::string Request::Param(const std::string& name) const {
  auto it = params.find(name);
  return it == params.end() ? "" : it->second;
}

std::string BearerToken(const Request& req) {
  const std::string auth = Trim(req.Header("Authorization"));
  if (auth.size() > 7 && strncasecmp(auth.c_str(), "bearer", 6) == 0 && (auth[6] == ' ' || auth[6] == '\t'))
    return Trim(auth.substr(7));
  return "";
}

void Response::SetHeader(const std::string& name, const std::string& value) {
  headers.erase(name);
  headers.emplace(name, value);
}

void Response::SetContent(std::string content, const std::string& content_type) {
  body = std::move(content);
  shared_owner.reset();
  shared_body = {};
  SetHeader("Content-Type", content_type);
}

void Response::SetSharedContent(std::shared_ptr<const void> owner, std::string_view bytes,
                                  const std::string& content_type) {
  body.clear();
  shared_owner = std::move(owner);
  shared_body = bytes;
  SetHeader("Content-Type", content_type);
}

void Response::SetFileContent(int fd, size_t size, const std::string& content_type) {
  body.clear();
  shared_owner.reset();
  shared_body = {};
  file = std::shared_ptr<const int>(new int(fd), [](const int* f) {
    ::close(*f);
    delete f;
  });
  file_size = size;
  SetHeader("Content-Type", content_type);
}

bool TakesBody(const std::string& method) { return method == "POST" || method == "PUT" || method == "PATCH"; }

Router& Router::Add(std::string method, const std::string& pattern, Handler h, Admit admit) {
  routes_.push_back({std::move(method), std::regex(pattern), pattern, std::move(h), std::move(admit)});
  return *this;
}

Router::Match Router::Find(const std::string& method, const std::string& path) const {
  Match m;
  const std::string& wanted = method == "HEAD" ? std::string("GET") : method;
  std::smatch groups;
  for (const auto& r : routes_) {
    if (!std::regex_match(path, groups, r.pattern)) continue;
    if (r.method != wanted) {
      m.path_known = true;
      continue;
    }
    m.route = &r;
    for (const auto& g : groups) m.groups.push_back(g.str());
    return m;
  }
  return m;
}

}  // namespace ptsn::server::http
