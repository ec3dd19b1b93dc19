// Posts regression/improvement notices to a webhook URL (--fleet-webhook): one JSON body per
// flagged result, sent from a thread of its own so that storing a result never waits on the
// receiver; a refused or unreachable post is tried three times, then dropped with a line on
// stderr (the flag itself stays in the history and the JSON API).
#pragma once

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace ptsn::server {

class Webhook {
 public:
  // `url`: http://host[:port]/path or https://...; "" = off.
  explicit Webhook(std::string url);
  ~Webhook();  // sends what is queued (one try each), then stops
  void Post(std::string json_body);
  bool enabled() const { return !url_.empty(); }

 private:
  void Loop();
  bool Send(const std::string& body);
  std::string url_, origin_, path_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ptsn::server
