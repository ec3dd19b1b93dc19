#include "server/store/group_commit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

namespace ptsn::server {
namespace {

// Records each batch; the first one waits until the test opens it, and fails when told to.
class GatedStorage : public Storage {
 public:
  void InsertBatch(std::vector<InsertRequest*>& batch) override {
    std::unique_lock lock(mu_);
    sizes_.push_back(batch.size());
    entered_ = true;
    cv_.notify_all();
    cv_.wait(lock, [&] { return open_; });
    if (fail_first_ && sizes_.size() == 1) throw StorageError{"disk full"};
    for (InsertRequest* r : batch) r->id = r->make_id(++seq_);
  }
  void WaitEntered() {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return entered_; });
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  std::vector<size_t> sizes() {
    std::lock_guard lock(mu_);
    return sizes_;
  }
  bool fail_first_ = false;

  std::optional<StoredResult> Get(const std::string&) override { return std::nullopt; }
  std::vector<ListedResult> Search(const SearchQuery&) override { return {}; }
  DeleteOutcome Delete(const std::string&, const std::string&) override { return DeleteOutcome::kNotFound; }
  void AddToken(const std::string&, const std::string&) override {}
  std::optional<std::string> UserForToken(const std::string&) override { return std::nullopt; }
  bool Healthy() override { return true; }
  std::string Describe() const override { return "gated"; }
  void Transact(const std::function<void(SqlTx&)>&) override { throw StorageError{"no tables"}; }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool entered_ = false, open_ = false;
  int64_t seq_ = 0;
  std::vector<size_t> sizes_;
};

// The first upload commits alone (nothing else is queued yet); the three that arrive during its
// commit wait and go together in the next batch, committed by the oldest of them.
void RunFourUploads(GatedStorage& storage, std::vector<std::string>& ids, std::vector<std::string>& errors) {
  GroupCommitter committer(storage, 64);
  NewResult r;
  ids.assign(4, "");
  errors.assign(4, "");
  auto upload = [&](int k) {
    try {
      ids[k] = committer.Insert(r, "261130", [](int64_t seq) { return "ID" + std::to_string(seq); });
    } catch (const StorageError& e) {
      errors[k] = e.what();
    }
  };
  std::vector<std::thread> threads;
  threads.emplace_back(upload, 0);
  storage.WaitEntered();
  for (int k = 1; k < 4; ++k) threads.emplace_back(upload, k);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // let them queue
  storage.Open();
  for (auto& t : threads) t.join();
}

TEST(GroupCommitter, UploadsArrivingDuringACommitGoTogetherInTheNext) {
  GatedStorage storage;
  std::vector<std::string> ids, errors;
  RunFourUploads(storage, ids, errors);
  EXPECT_EQ(ids[0], "ID1");
  std::vector<std::string> rest(ids.begin() + 1, ids.end());
  std::sort(rest.begin(), rest.end());
  EXPECT_EQ(rest, (std::vector<std::string>{"ID2", "ID3", "ID4"}));
  for (const auto& e : errors) EXPECT_EQ(e, "");
  auto sizes = storage.sizes();
  ASSERT_FALSE(sizes.empty());
  EXPECT_EQ(sizes[0], 1u);
  size_t total = 0;
  for (size_t s : sizes) total += s;
  EXPECT_EQ(total, 4u);  // normally {1, 3}; a thread slow to queue may make a third batch
}

TEST(GroupCommitter, AFailedBatchFailsEachOfItsUploadsAndTheNextStillCommits) {
  GatedStorage storage;
  storage.fail_first_ = true;
  std::vector<std::string> ids, errors;
  RunFourUploads(storage, ids, errors);
  EXPECT_EQ(ids[0], "");
  EXPECT_EQ(errors[0], "disk full");
  for (int k = 1; k < 4; ++k) {
    EXPECT_EQ(errors[k], "") << k;
    EXPECT_FALSE(ids[k].empty()) << k;
  }
}

}  // namespace
}  // namespace ptsn::server
