#include "server/group_commit.h"

namespace ptsn::server {

std::string GroupCommitter::Insert(const NewResult& result, const std::string& day_key, IdMaker make_id,
                                   Dedupe dedupe) {
  Waiter me;
  me.request.result = &result;
  me.request.day_key = day_key;
  me.request.make_id = std::move(make_id);
  me.request.dedupe = std::move(dedupe);
  {
    std::lock_guard lock(mu_);
    queue_.push_back(&me);
    if (!committing_) {
      committing_ = true;
      me.state.Init(kLead);
    }
  }
  if (me.state.WaitWhile(kQueued) == kLead) {
    // Lead: the queue's oldest (this caller first) up to max_batch_, committed for everyone.
    std::vector<Waiter*> batch;
    {
      std::lock_guard lock(mu_);
      size_t n = std::min(queue_.size(), max_batch_);
      batch.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
      queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    }
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
    Waiter* next = nullptr;
    {
      std::lock_guard lock(mu_);
      if (queue_.empty()) committing_ = false;
      else next = queue_.front();
    }
    // A waiter may be gone as soon as its state is set.
    for (Waiter* w : batch) {
      if (w == &me) continue;
      w->batch_error = failure;
      w->state.Set(kDone);
    }
    me.batch_error = failure;
    if (next) next->state.Set(kLead);
  }
  if (!me.batch_error.empty()) throw StorageError{me.batch_error};
  if (!me.request.error.empty()) throw StorageError{me.request.error};
  return me.request.id;
}

}  // namespace ptsn::server
