#include "server/store/group_commit.h"

#include <algorithm>

namespace ptsn::server {

std::string GroupCommitter::Insert(const NewResult& result, const std::string& day_key, IdMaker make_id,
                                   Dedupe dedupe) {
  Waiter me;
  me.request.result = &result;
  me.request.day_key = day_key;
  me.request.make_id = std::move(make_id);
  me.request.dedupe = std::move(dedupe);
  std::unique_lock lock(mu_);
  queue_.push_back(&me);
  if (!committing_) {
    committing_ = true;
    me.state = State::kLead;
  }
  me.wake.wait(lock, [&] { return me.state != State::kQueued; });
  if (me.state == State::kLead) {
    // Lead: the queue's oldest (this caller first) up to max_batch_, committed for everyone.
    const size_t n = std::min(queue_.size(), max_batch_);
    std::vector<Waiter*> batch(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    lock.unlock();
    std::vector<InsertRequest*> requests;
    for (Waiter* w : batch) requests.push_back(&w->request);
    std::string failure;
    try {
      storage_.InsertBatch(requests);
    } catch (const StorageError& e) {
      failure = e.what();
    } catch (const std::exception& e) {
      failure = std::string("storage: ") + e.what();
    }
    lock.lock();
    // Notified under the mutex: a waiter cannot return (and go) before its notification is done.
    for (Waiter* w : batch) {
      w->batch_error = failure;
      w->state = State::kDone;
      if (w != &me) w->wake.notify_one();
    }
    if (queue_.empty()) {
      committing_ = false;
    } else {
      queue_.front()->state = State::kLead;
      queue_.front()->wake.notify_one();
    }
  }
  lock.unlock();
  if (!me.batch_error.empty()) throw StorageError{me.batch_error};
  if (!me.request.error.empty()) throw StorageError{me.request.error};
  return me.request.id;
}

}  // namespace ptsn::server
