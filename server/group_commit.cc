#include "server/group_commit.h"

namespace ptsn::server {

std::string GroupCommitter::Insert(const NewResult& result, const std::string& day_key, IdMaker make_id) {
  Waiter me;
  me.request.result = &result;
  me.request.day_key = day_key;
  me.request.make_id = std::move(make_id);
  std::unique_lock lock(mu_);
  queue_.push_back(&me);
  while (!me.done) {
    if (committing_) {
      cv_.wait(lock);
      continue;
    }
    // Lead: take what is queued (oldest first, up to max_batch_) and commit it for everyone.
    committing_ = true;
    size_t n = std::min(queue_.size(), max_batch_);
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
    for (Waiter* w : batch) {
      w->batch_error = failure;
      w->done = true;
    }
    committing_ = false;
    cv_.notify_all();
  }
  if (!me.batch_error.empty()) throw StorageError{me.batch_error};
  if (!me.request.error.empty()) throw StorageError{me.request.error};
  return me.request.id;
}

}  // namespace ptsn::server
