// One storage suite, run against SQLite and PostgreSQL. PostgreSQL needs a server: PTSN_TEST_PG
// is a libpq keyword connection string (contrib/start-test-services.sh starts one and
// contrib/test.sh passes it). Without it the PostgreSQL cases skip, unless PTSN_REQUIRE names
// pg (CI, and contrib/test.sh once it has started one), where they fail instead.
#include "server/store/group_commit.h"
#include "server/store/storage.h"

#include <gtest/gtest.h>

#include <map>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <pqxx/pqxx>
#include <random>
#include <set>
#include <thread>

#include "runner/openbenchmarking/wire.h"
#include "server/store/result_id.h"
#include "server/store/storage_sql.h"
#include "server/testing/pg_schema.h"
#include "server/testing/storage_backends.h"
#include "server/testing/sample_result.h"
#include "server/store/upload_check.h"

namespace ptsn::server {
namespace {

using testing::UniqueTestName;
using SqliteBackend = testing::SqliteTestBackend;
using PostgresBackend = testing::PostgresTestBackend;  // a schema per test: ctest -j runs do not meet

template <typename Backend>
class StorageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PTSN_REQUIRE_BACKEND(Backend);
    backend_ = std::make_unique<Backend>();
    storage_ = backend_->Open();
  }

  NewResult Make(const std::string& title, const std::string& owner = "alice", bool unlisted = false, int salt = 0) {
    NewResult r;
    r.owner = owner;
    r.unlisted = unlisted;
    r.xml = testing::SampleCompositeXml(title, 3, 2, salt);
    r.xml_sha1 = "sha";
    r.summary = CheckResultFile(r.xml);
    r.uploaded_at = 1318064400 + salt;
    return r;
  }
  std::string Insert(const NewResult& r) {
    std::time_t when = r.uploaded_at;
    return storage_->Insert(r, DayKey(when), [&](int64_t seq) { return FormatResultId(when, seq, r.owner, r.summary.title); });
  }

  std::unique_ptr<Backend> backend_;
  std::unique_ptr<Storage> storage_;
};

using Backends = ::testing::Types<SqliteBackend, PostgresBackend>;
TYPED_TEST_SUITE(StorageTest, Backends, testing::TestBackendNames);

TYPED_TEST(StorageTest, StoresAndReturnsByteForByte) {
  auto r = this->Make("Quote ' and \" and ; -- and ünïcödé");
  r.system_logs_zip = std::string("PK\x03\x04\0\x01\xff binary", 14);
  std::string id = this->Insert(r);
  EXPECT_TRUE(IsResultIdCompliant(id)) << id;
  auto got = this->storage_->Get(id);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->xml, r.xml);
  EXPECT_EQ(got->owner, "alice");
  EXPECT_EQ(got->title, r.summary.title);
  ASSERT_TRUE(got->system_logs_zip);
  EXPECT_EQ(*got->system_logs_zip, *r.system_logs_zip);
  EXPECT_EQ(got->uploaded_at, r.uploaded_at);

  auto plain = this->Make("No logs");
  auto got2 = this->storage_->Get(this->Insert(plain));
  ASSERT_TRUE(got2);
  EXPECT_FALSE(got2->system_logs_zip);
  EXPECT_FALSE(this->storage_->Get("1110083-AL-NOSUCHID001"));
  EXPECT_FALSE(this->storage_->Get("' OR '1'='1"));
}

TYPED_TEST(StorageTest, IdsAreUniqueUnderConcurrentInsertsFromSeveralConnections) {
  // Two storage objects on one database stand for two server processes.
  auto second = this->backend_->Open();
  std::vector<std::thread> threads;
  std::mutex mu;
  std::set<std::string> ids;
  std::atomic<int> errors{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      Storage& s = t % 2 ? *second : *this->storage_;
      for (int i = 0; i < 15; ++i) {
        try {
          auto r = this->Make("Same Title");
          std::time_t when = r.uploaded_at;
          std::string id = s.Insert(r, DayKey(when), [&](int64_t seq) { return FormatResultId(when, seq, "al", "Same Title"); });
          std::lock_guard lock(mu);
          ids.insert(id);
        } catch (const StorageError& e) {
          ++errors;
          ADD_FAILURE() << e.what();
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(ids.size(), 120u);
  for (const auto& id : ids) EXPECT_TRUE(IsResultIdCompliant(id)) << id;
}

TYPED_TEST(StorageTest, ABatchStoresEachInsertOrRefusesItAloneInOneCommit) {
  auto a = this->Make("Batch A", "alice", false, 1), b = this->Make("Batch B", "alice", false, 2),
       c = this->Make("Batch C", "alice", false, 3);
  std::string taken = this->Insert(this->Make("Already There"));
  std::time_t when = a.uploaded_at;
  auto id_of = [&](const NewResult& r) {
    return [&, when](int64_t seq) { return FormatResultId(when, seq, r.owner, r.summary.title); };
  };
  InsertRequest ra{&a, DayKey(when), id_of(a), "", ""};
  // b's ID collides with a stored one: only b is refused.
  InsertRequest rb{&b, DayKey(when), [&](int64_t) { return taken; }, "", ""};
  InsertRequest rc{&c, DayKey(when), id_of(c), "", ""};
  std::vector<InsertRequest*> batch{&ra, &rb, &rc};
  this->storage_->InsertBatch(batch);
  EXPECT_TRUE(ra.error.empty()) << ra.error;
  EXPECT_FALSE(rb.error.empty());
  EXPECT_TRUE(rb.id.empty());
  EXPECT_TRUE(rc.error.empty()) << rc.error << " / b: " << rb.error;
  ASSERT_TRUE(this->storage_->Get(ra.id));
  EXPECT_EQ(this->storage_->Get(ra.id)->xml, a.xml);
  ASSERT_TRUE(this->storage_->Get(rc.id));
  EXPECT_EQ(this->storage_->Get(rc.id)->xml, c.xml);
  EXPECT_EQ(this->storage_->Get(taken)->title, "Already There");
}

// A batch stores every field as one insert at a time does (PostgreSQL sends a batch as ONE
// multi-row INSERT): logs on some uploads and not others, deflated and plain XML, unlisted,
// quotes and non-ASCII text; fetched and listed the same both ways.
TYPED_TEST(StorageTest, ABatchStoresEveryFieldAsSingleInsertsDo) {
  auto make_set = [&](const std::string& tag) {
    std::vector<NewResult> v;
    v.push_back(this->Make(tag + " logs 'q' ünï", "alice", false, 21));
    v.back().system_logs_zip = std::string("PK\x03\x04\0\x01\xff zip", 11);  // 11 bytes, a NUL among them
    v.back().local_file_name = "local-ß";
    v.push_back(this->Make(tag + " deflated", "bob", true, 22));
    v.back().xml_deflated = wire::RawDeflate(v.back().xml);
    v.push_back(this->Make(tag + " plain", "carol", false, 23));
    v.back().xml_sha1 = "other sha";
    return v;
  };
  auto batch_files = make_set("Batched"), single_files = make_set("Single");
  std::vector<InsertRequest> requests;
  for (auto& f : batch_files) {
    const std::time_t when = f.uploaded_at;
    requests.push_back({&f, DayKey(when), [&f, when](int64_t seq) { return FormatResultId(when, seq, f.owner, f.summary.title); }, "", ""});
  }
  std::vector<InsertRequest*> batch;
  for (auto& r : requests) batch.push_back(&r);
  this->storage_->InsertBatch(batch);
  for (size_t k = 0; k < batch_files.size(); ++k) {
    ASSERT_TRUE(requests[k].error.empty()) << requests[k].error;
    auto got = this->storage_->Get(requests[k].id);
    auto want = this->storage_->Get(this->Insert(single_files[k]));
    ASSERT_TRUE(got && want);
    EXPECT_EQ(got->xml, batch_files[k].xml);
    EXPECT_EQ(want->xml, single_files[k].xml);
    EXPECT_EQ(got->owner, want->owner);
    EXPECT_EQ(got->unlisted, want->unlisted);
    EXPECT_EQ(got->xml_sha1, want->xml_sha1);
    EXPECT_EQ(got->system_logs_zip, want->system_logs_zip);
    EXPECT_EQ(got->uploaded_at, want->uploaded_at);
    EXPECT_EQ(got->title.substr(got->title.find(' ')), want->title.substr(want->title.find(' ')));
  }
  auto listed = [&](const std::string& tag) {
    SearchQuery q;
    q.text = tag;
    std::vector<std::string> out;
    for (const auto& l : this->storage_->Search(q))
      out.push_back(l.owner + "|" + l.title.substr(l.title.find(' ')) + "|" + std::to_string(l.uploaded_at) + "|" +
                    std::to_string(l.system_count) + "|" + std::to_string(l.result_count) + "|" + l.systems + "|" + l.tests);
    return out;
  };
  EXPECT_EQ(listed("Batched").size(), 2u);  // the unlisted one is not listed
  EXPECT_EQ(listed("Batched"), listed("Single"));
}

// A batch takes its day's numbers in upload order, and the counter goes on after it.
TYPED_TEST(StorageTest, ABatchTakesConsecutiveNumbersInOrder) {
  std::vector<NewResult> files;
  for (int i = 0; i < 3; ++i) files.push_back(this->Make("Numbered " + std::to_string(i), "alice", false, 10 + i));
  const std::time_t when = files[0].uploaded_at;
  std::vector<int64_t> numbers(files.size(), 0);
  std::vector<InsertRequest> requests;
  for (size_t k = 0; k < files.size(); ++k)
    requests.push_back({&files[k], DayKey(when),
                        [&, k](int64_t seq) {
                          numbers[k] = seq;
                          return FormatResultId(when, seq, "alice", "Numbered " + std::to_string(k));
                        },
                        "", ""});
  std::vector<InsertRequest*> batch;
  for (auto& r : requests) batch.push_back(&r);
  this->storage_->InsertBatch(batch);
  EXPECT_EQ(numbers, (std::vector<int64_t>{1, 2, 3}));
  for (size_t k = 0; k < files.size(); ++k) {
    ASSERT_TRUE(requests[k].error.empty()) << requests[k].error;
    auto got = this->storage_->Get(requests[k].id);
    ASSERT_TRUE(got);
    EXPECT_EQ(got->xml, files[k].xml);
  }
  int64_t after = 0;
  auto next = this->Make("Numbered after");
  this->storage_->Insert(next, DayKey(when), [&](int64_t seq) {
    after = seq;
    return FormatResultId(when, seq, "alice", "Numbered after");
  });
  EXPECT_EQ(after, 4);
}

TYPED_TEST(StorageTest, GroupCommitStoresEveryConcurrentUploadOnce) {
  GroupCommitter committer(*this->storage_, 8);
  std::vector<std::thread> threads;
  std::mutex mu;
  std::map<std::string, std::string> stored;  // id → xml
  for (int t = 0; t < 12; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        auto r = this->Make("Grouped", "bob", false, t * 10 + i);
        std::time_t when = r.uploaded_at;
        try {
          std::string id = committer.Insert(r, DayKey(when), [&](int64_t seq) { return FormatResultId(when, seq, "bob", "Grouped"); });
          std::lock_guard lock(mu);
          EXPECT_TRUE(stored.emplace(id, r.xml).second) << "ID handed out twice: " << id;
        } catch (const StorageError& e) {
          ADD_FAILURE() << e.what();
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(stored.size(), 60u);
  for (const auto& [id, xml] : stored) {
    auto got = this->storage_->Get(id);
    ASSERT_TRUE(got) << id;
    EXPECT_EQ(got->xml, xml);
  }
}

TYPED_TEST(StorageTest, SearchFindsByTitleTestAndSystemAndHidesUnlisted) {
  std::string a = this->Insert(this->Make("Disk Encryption Benchmarks", "alice", false, 1));
  std::string b = this->Insert(this->Make("CPU Governor 50%_off", "bob", false, 2));
  std::string hidden = this->Insert(this->Make("Disk Secret Run", "alice", true, 3));
  auto ids = [&](SearchQuery q) {
    std::set<std::string> out;
    for (const auto& l : this->storage_->Search(q)) out.insert(l.id);
    return out;
  };
  EXPECT_EQ(ids({}), (std::set<std::string>{a, b}));
  EXPECT_EQ(ids({.text = "disk"}), std::set<std::string>{a});
  EXPECT_EQ(ids({.text = "50%_"}), std::set<std::string>{b});
  EXPECT_EQ(ids({.text = "%"}), std::set<std::string>{b});  // a literal '%', not a wildcard
  EXPECT_EQ(ids({.text = "'; DROP TABLE results; --"}), std::set<std::string>{});
  EXPECT_EQ(ids({.test = "pts/fio-2.1.2"}), (std::set<std::string>{a, b}));
  EXPECT_EQ(ids({.test = "pts/nothing"}), std::set<std::string>{});
  EXPECT_EQ(ids({.system = "system 2"}), (std::set<std::string>{a, b}));
  EXPECT_EQ(ids({.system = "EPYC"}), (std::set<std::string>{a, b}));
  EXPECT_EQ(ids({.text = "secret"}), std::set<std::string>{});
  EXPECT_TRUE(this->storage_->Get(hidden));  // unlisted is reachable by ID
  auto newest = this->storage_->Search({.limit = 1});
  ASSERT_EQ(newest.size(), 1u);
  EXPECT_EQ(newest[0].id, b);
  EXPECT_EQ(newest[0].system_count, 2);
  EXPECT_EQ(newest[0].result_count, 3);
  EXPECT_EQ(newest[0].systems, "System 1, System 2");
  EXPECT_EQ(this->storage_->Search({.limit = 1, .offset = 1})[0].id, a);
}

TYPED_TEST(StorageTest, OnlyTheOwnerDeletes) {
  std::string id = this->Insert(this->Make("Mine", "alice"));
  EXPECT_EQ(this->storage_->Delete(id, "bob"), DeleteOutcome::kForbidden);
  EXPECT_TRUE(this->storage_->Get(id));
  EXPECT_EQ(this->storage_->Delete(id, "alice"), DeleteOutcome::kDeleted);
  EXPECT_FALSE(this->storage_->Get(id));
  EXPECT_EQ(this->storage_->Delete(id, "alice"), DeleteOutcome::kNotFound);
}

TYPED_TEST(StorageTest, TokensMapHashesToUsers) {
  this->storage_->AddToken("alice", "hash-a");
  this->storage_->AddToken("bob", "hash-b");
  EXPECT_EQ(this->storage_->UserForToken("hash-a"), "alice");
  EXPECT_EQ(this->storage_->UserForToken("hash-b"), "bob");
  EXPECT_FALSE(this->storage_->UserForToken("hash-c"));
  EXPECT_FALSE(this->storage_->UserForToken("' OR 1=1 --"));
  EXPECT_THROW(this->storage_->AddToken("mallory", "hash-a"), StorageError);  // hashes are unique
  EXPECT_TRUE(this->storage_->Healthy());
}

// An upload that came as composite_xml_gz is stored as its DEFLATE bytes and served inflated.
TYPED_TEST(StorageTest, DeflatedUploadsAreStoredSmallAndServedByteForByte) {
  auto r = this->Make("Deflated");
  r.xml_deflated = wire::RawDeflate(r.xml);
  auto got = this->storage_->Get(this->Insert(r));
  ASSERT_TRUE(got);
  EXPECT_EQ(got->xml, r.xml);
  // What the column holds, both ways; a damaged deflated value is an error, never served.
  std::string scratch;
  std::string stored(sql::StoredXml(r, scratch));
  EXPECT_LT(stored.size(), r.xml.size());
  EXPECT_EQ(stored[0], '\0');
  EXPECT_EQ(sql::XmlFromStored(stored), r.xml);
  r.xml_deflated.reset();
  EXPECT_EQ(sql::StoredXml(r, scratch), r.xml);
  EXPECT_EQ(sql::XmlFromStored(r.xml), r.xml);
  EXPECT_THROW(sql::XmlFromStored(stored.substr(0, stored.size() - 5)), StorageError);
}

TYPED_TEST(StorageTest, ReopeningKeepsEverything) {
  std::string id = this->Insert(this->Make("Persist"));
  this->storage_.reset();
  auto again = this->backend_->Open();
  auto got = again->Get(id);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->title, "Persist");
  // The counter continues: the next ID differs.
  auto r = this->Make("Persist");
  std::time_t when = r.uploaded_at;
  EXPECT_NE(again->Insert(r, DayKey(when), [&](int64_t seq) { return FormatResultId(when, seq, "alice", "Persist"); }), id);
}

}  // namespace
}  // namespace ptsn::server

namespace ptsn::server {
namespace {

// SQLite's checkpoints (WAL copied into the database file) run on the store's own thread, not in
// the committing one; its automatic checkpoint is off. Under back-to-back batches the WAL must
// still be reset now and then, or it would grow with every upload: ~16,000 frames of 4 KiB are
// written here (66 MB); the WAL stays under twice the reset length (8,000 frames, 33 MB) plus a
// batch however far the checkpoint thread falls behind, and everything stays readable.
TEST(SqliteCheckpoints, TheWalIsResetUnderBackToBackBatches) {
  SqliteBackend backend;
  auto storage = backend.Open();
  const std::string wal = backend.dir + "/results.db-wal";
  std::vector<NewResult> files;
  for (int i = 0; i < 10; ++i) {
    NewResult r;
    r.owner = "alice";
    r.xml = testing::SampleCompositeXml("Checkpoint " + std::to_string(i), 100, 2, i);  // ~78 KB, stored plain
    r.xml_sha1 = "sha";
    r.summary = CheckResultFile(r.xml);
    r.uploaded_at = 1318064400;
    files.push_back(std::move(r));
  }
  uintmax_t largest_wal = 0;
  std::vector<std::string> ids;
  for (int batch = 0; batch < 80; ++batch) {
    std::vector<InsertRequest> requests(files.size());
    std::vector<InsertRequest*> pointers;
    for (size_t k = 0; k < files.size(); ++k) {
      requests[k] = {&files[k], DayKey(files[k].uploaded_at),
                     [&](int64_t seq) { return FormatResultId(1318064400, seq, "alice", "Checkpoint"); }, "", ""};
      pointers.push_back(&requests[k]);
    }
    storage->InsertBatch(pointers);
    for (const auto& r : requests) {
      ASSERT_TRUE(r.error.empty()) << r.error;
      ids.push_back(r.id);
    }
    largest_wal = std::max(largest_wal, std::filesystem::file_size(wal));
  }
  EXPECT_LT(largest_wal, uintmax_t{40} << 20) << "the WAL was never reset";
  for (size_t i = 0; i < ids.size(); i += 37) {
    auto got = storage->Get(ids[i]);
    ASSERT_TRUE(got) << ids[i];
    EXPECT_EQ(got->xml, files[i % files.size()].xml);
  }
  storage.reset();
  auto again = backend.Open();
  ASSERT_TRUE(again->Get(ids.back()));
  EXPECT_EQ(again->Get(ids.back())->xml, files.back().xml);
}

}  // namespace
}  // namespace ptsn::server

namespace ptsn::server {
namespace {

// Search through the index finds exactly what a case-insensitive substring scan of the same
// columns finds, for terms of every length (under three characters there is no trigram), with
// the index's own syntax characters, quotes and non-ASCII text; a deleted row leaves the index.
TYPED_TEST(StorageTest, SearchFindsWhatASubstringScanFinds) {
  const std::vector<std::string> titles = {
      "Disk Encryption \"AES\" Run", "NEAR the CPU: AND OR NOT", "Größe * prefix^ {cols} (x)", "a1", "ab",
      "zz top", "Kernel Build 6.1 - Ryzen 7950X", "kernel-build on EPYC", "100%_off", "O'Brien's ZFS"};
  std::vector<std::pair<std::string, std::string>> stored;  // id, title
  for (size_t i = 0; i < titles.size(); ++i) {
    auto r = this->Make(titles[i], "alice", false, static_cast<int>(i));
    r.summary.description = "";
    stored.emplace_back(this->Insert(r), titles[i]);
  }
  auto lower = [](std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
  };
  const std::vector<std::string> terms = {"a", "ab", "AES", "\"aes\"", "near", "and or", "cpu:", "*", "größe", "{cols}",
                                          "(x)", "build", "kernel build", "6.1 -", "%_", "o'brien", "zfs", "nothing here",
                                          "^", "x)"};
  for (const auto& term : terms) {
    std::set<std::string> expected, found;
    for (const auto& [id, title] : stored)
      if (lower(title).find(lower(term)) != std::string::npos) expected.insert(id);
    for (const auto& l : this->storage_->Search({.text = term, .limit = 500})) found.insert(l.id);
    EXPECT_EQ(found, expected) << "term '" << term << "'";
  }
  ASSERT_EQ(this->storage_->Delete(stored[0].first, "alice"), DeleteOutcome::kDeleted);
  EXPECT_TRUE(this->storage_->Search({.text = "encryption"}).empty());
}

// The same file from the same uploader within the window: the first row's ID, nothing stored
// twice (also two copies in one batch); another uploader, or a later time, stores a new row.
TYPED_TEST(StorageTest, ARepeatedUploadIsAnsweredWithTheFirstId) {
  auto r = this->Make("Once Only");
  r.xml_sha1 = "same-file";
  auto id_of = [&](const NewResult& x) {
    std::time_t when = x.uploaded_at;
    return [&x, when](int64_t seq) { return FormatResultId(when, seq, x.owner, x.summary.title); };
  };
  const Dedupe alice{"token-a", r.uploaded_at - 100};
  std::string first = this->storage_->Insert(r, DayKey(r.uploaded_at), id_of(r), alice);
  EXPECT_EQ(this->storage_->Insert(r, DayKey(r.uploaded_at), id_of(r), alice), first);
  std::string other = this->storage_->Insert(r, DayKey(r.uploaded_at), id_of(r), Dedupe{"token-b", r.uploaded_at - 100});
  EXPECT_NE(other, first);
  std::string later = this->storage_->Insert(r, DayKey(r.uploaded_at), id_of(r), Dedupe{"token-a", r.uploaded_at + 1});
  EXPECT_NE(later, first);
  auto twin = this->Make("Twin");
  twin.xml_sha1 = "twin-file";
  std::vector<InsertRequest> reqs(3);
  std::vector<InsertRequest*> batch;
  for (auto& req : reqs) {
    req = {&twin, DayKey(twin.uploaded_at), id_of(twin), "", "", Dedupe{"token-t", 0}};
    batch.push_back(&req);
  }
  reqs[2].dedupe.key = "token-u";
  this->storage_->InsertBatch(batch);
  EXPECT_EQ(reqs[0].id, reqs[1].id);
  EXPECT_FALSE(reqs[0].id.empty());
  EXPECT_NE(reqs[2].id, reqs[0].id);
  EXPECT_EQ(this->storage_->Search({.text = "Twin", .limit = 500}).size(), 2u);
  EXPECT_EQ(this->storage_->Search({.text = "Once Only", .limit = 500}).size(), 3u);
}

}  // namespace
}  // namespace ptsn::server


namespace ptsn::server {
namespace {
// Searches read each trigram index's pending list row by row; a small list bounds that read
// after a burst of uploads (bench_search: 17-24 ms at 100,000 results with the 4 MB default,
// 0.2-3.3 ms with 256 kB).
TEST(PostgresSearchIndexes, KeepTheirPendingListsSmall) {
  PTSN_REQUIRE_BACKEND(PostgresBackend);
  PostgresBackend backend;
  auto storage = backend.Open();
  pqxx::connection c(backend.schema.conninfo);
  pqxx::work w(c);
  auto rows = w.exec(
      "SELECT c.relname, array_to_string(c.reloptions, ',') FROM pg_class c JOIN pg_namespace n ON n.oid = "
      "c.relnamespace WHERE n.nspname = current_schema() AND c.relname LIKE 'results!_%!_trgm' ESCAPE '!' "
      "ORDER BY 1");
  ASSERT_EQ(rows.size(), 5u) << "pg_trgm missing? the five search indexes were not created";
  for (const auto& row : rows)
    EXPECT_EQ(row[1].as<std::string>(""), "gin_pending_list_limit=256") << row[0].as<std::string>();
}

}  // namespace
}  // namespace ptsn::server
