// One computation per key at a time: a caller asking for a key that is being computed waits for
// that computation and shares its result (or its exception) instead of repeating it beside it.
// For the server's page and JSON renders: 20 cold views of one large result rendered it 20 times
// at once, each with its own copy of the file (issue 31: 426-762 MB for one 7.9 MiB file).
#pragma once

#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace ptsn::server {

template <typename T>
class SingleFlight {
 public:
  using Value = std::shared_ptr<const T>;

  Value Do(const std::string& key, const std::function<Value()>& compute) {
    std::promise<Value> mine;
    std::shared_future<Value> theirs;
    {
      std::lock_guard lock(mu_);
      auto it = flights_.find(key);
      if (it != flights_.end()) theirs = it->second;
      else flights_.emplace(key, mine.get_future().share());
    }
    if (theirs.valid()) return theirs.get();  // rethrows what the computation threw
    try {
      Value v = compute();
      Land(key);
      mine.set_value(v);
      return v;
    } catch (...) {
      Land(key);
      mine.set_exception(std::current_exception());
      throw;
    }
  }

  size_t in_flight() {
    std::lock_guard lock(mu_);
    return flights_.size();
  }

 private:
  void Land(const std::string& key) {
    std::lock_guard lock(mu_);
    flights_.erase(key);
  }
  std::mutex mu_;
  std::map<std::string, std::shared_future<Value>> flights_;
};

}  // namespace ptsn::server
