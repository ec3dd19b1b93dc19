#include "server/fleet/fleet_webhook.h"

#include <httplib.h>

#include <chrono>
#include <iostream>

#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::server {

Webhook::Webhook(std::string url) : url_(std::move(url)) {
  if (url_.empty()) return;
  auto scheme_end = url_.find("://");
  if (scheme_end == std::string::npos || (!StartsWith(url_, "http://") && !StartsWith(url_, "https://")))
    throw Error("--fleet-webhook: '" + url_ + "' is not an http:// or https:// URL");
  auto slash = url_.find('/', scheme_end + 3);
  origin_ = url_.substr(0, slash);
  path_ = slash == std::string::npos ? "/" : url_.substr(slash);
  thread_ = std::thread([this] { Loop(); });
}

Webhook::~Webhook() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Webhook::Post(std::string json_body) {
  if (url_.empty()) return;
  {
    std::lock_guard lock(mu_);
    if (queue_.size() >= 1000) queue_.pop_front();  // a receiver that is gone must not grow us without bound
    queue_.push_back(std::move(json_body));
  }
  cv_.notify_all();
}

bool Webhook::Send(const std::string& body) {
  httplib::Client client(origin_);
  client.set_connection_timeout(5);
  client.set_read_timeout(10);
  auto res = client.Post(path_, body, "application/json");
  return res && res->status >= 200 && res->status < 300;
}

void Webhook::Loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stop_ || !queue_.empty(); });
    if (queue_.empty()) return;
    std::string body = std::move(queue_.front());
    queue_.pop_front();
    const bool stopping = stop_;
    lock.unlock();
    bool sent = false;
    for (int attempt = 0; attempt < (stopping ? 1 : 3) && !sent; ++attempt) {
      if (attempt) std::this_thread::sleep_for(std::chrono::seconds(attempt * 2));
      sent = Send(body);
    }
    if (!sent) std::cerr << "pts-native-server: webhook " << url_ << ": not delivered: " << body.substr(0, 200) << "\n";
    lock.lock();
  }
}

}  // namespace ptsn::server
