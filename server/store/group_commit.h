// Group commit: uploads that arrive while a commit is under way wait and are then stored
// together in ONE transaction (Storage::InsertBatch), so N concurrent uploads cost one flush to
// disk and one transaction round trip instead of N. No thread of its own: the first waiting
// caller commits the batch for everyone (leader/follower), so an idle server costs nothing and a
// lone upload is committed at once. Each waiter sleeps on a condition variable of its own: a
// commit wakes the uploads it stored and hands the lead to the oldest one still queued, no one
// else (one shared condition variable would wake every queued thread on every commit).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "server/store/storage.h"

namespace ptsn::server {

class GroupCommitter {
 public:
  explicit GroupCommitter(Storage& storage, size_t max_batch = 64) : storage_(storage), max_batch_(max_batch) {}
  // Returns once the insert is durable (its batch committed): the new ID. Throws StorageError
  // when it was refused or its batch's transaction failed.
  std::string Insert(const NewResult& result, const std::string& day_key, IdMaker make_id, Dedupe dedupe = {});

 private:
  enum class State { kQueued, kLead, kDone };
  struct Waiter {
    InsertRequest request;
    std::string batch_error;         // the whole transaction failed
    State state = State::kQueued;    // kLead: this caller commits the next batch (guarded by mu_)
    std::condition_variable wake;    // state changed
  };
  Storage& storage_;
  const size_t max_batch_;
  std::mutex mu_;
  std::deque<Waiter*> queue_;  // not yet in a batch, oldest first
  bool committing_ = false;    // false only when queue_ is empty and no batch is being stored
};

}  // namespace ptsn::server
