#include "results-xml/parallel_read.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <set>
#include <stdexcept>
#include <thread>

#include "results-xml/export_test_fixture.h"
#include "results-xml/ordered_parallel.h"
#include "results-xml/result_xml.h"
#include "results-xml/test_support.h"
#include "runner/common/atomic_file.h"
#include "runner/common/error.h"

namespace ptsn::results {
namespace {

// ---- ForEachInOrder ------------------------------------------------------------------------

std::vector<size_t> RunInOrder(size_t count, unsigned threads, size_t window) {
  std::vector<size_t> seen;
  std::atomic<size_t> in_flight{0}, most{0};
  ForEachInOrder<size_t>(
      count, threads, window,
      [&](size_t i) {
        size_t now = ++in_flight;
        for (size_t m = most; now > m && !most.compare_exchange_weak(m, now);) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds((i * 7919) % 500));  // finish out of order
        return i * 10;
      },
      [&](size_t i, size_t& v) {
        EXPECT_EQ(v, i * 10);
        --in_flight;
        seen.push_back(i);
      });
  EXPECT_LE(most.load(), std::max<size_t>(window, threads) + 1) << "more values held than the window allows";
  return seen;
}

TEST(ForEachInOrder, ConsumesEveryItemInIndexOrderWhateverTheThreadCount) {
  for (unsigned threads : {1u, 2u, 4u, 9u}) {
    std::vector<size_t> seen = RunInOrder(37, threads, 3);
    ASSERT_EQ(seen.size(), 37u) << threads;
    for (size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i) << threads;
  }
  EXPECT_TRUE(RunInOrder(0, 4, 2).empty());
}

TEST(ForEachInOrder, OneThreadIsThePlainLoopOnTheCallingThread) {
  std::vector<std::string> log;
  const auto caller = std::this_thread::get_id();
  ForEachInOrder<int>(
      3, 1, 8,
      [&](size_t i) {
        EXPECT_EQ(std::this_thread::get_id(), caller);
        log.push_back("p" + std::to_string(i));
        return 0;
      },
      [&](size_t i, int&) { log.push_back("c" + std::to_string(i)); });
  EXPECT_EQ(log, (std::vector<std::string>{"p0", "c0", "p1", "c1", "p2", "c2"}));
}

// The error the sequential loop would have given: the earliest failing item in order, whether
// produce or consume failed, however the threads finished.
std::string FirstError(unsigned threads, size_t produce_fails, size_t consume_fails) {
  std::vector<size_t> consumed;
  try {
    ForEachInOrder<size_t>(
        20, threads, 4,
        [&](size_t i) -> size_t {
          if (i >= produce_fails) {
            std::this_thread::sleep_for(std::chrono::microseconds(i == produce_fails ? 2000 : 0));
            throw std::runtime_error("produce " + std::to_string(i));
          }
          return i;
        },
        [&](size_t i, size_t&) {
          if (i == consume_fails) throw std::runtime_error("consume " + std::to_string(i));
          consumed.push_back(i);
        });
  } catch (const std::runtime_error& e) {
    for (size_t i = 0; i < consumed.size(); ++i) EXPECT_EQ(consumed[i], i);
    return e.what() + std::string(" after ") + std::to_string(consumed.size());
  }
  return "no error";
}

TEST(ForEachInOrder, ReportsTheErrorOfTheEarliestItemLikeTheSequentialLoop) {
  for (unsigned threads : {1u, 2u, 3u}) {
    EXPECT_EQ(FirstError(threads, 7, 99), "produce 7 after 7") << threads;
    EXPECT_EQ(FirstError(threads, 7, 5), "consume 5 after 5") << threads;
    EXPECT_EQ(FirstError(threads, 5, 5), "produce 5 after 5") << threads;
    EXPECT_EQ(FirstError(threads, 0, 99), "produce 0 after 0") << threads;
    EXPECT_EQ(FirstError(threads, 99, 99), "no error") << threads;
  }
}

// ---- ReadResultFilesInOrder ----------------------------------------------------------------

TEST(ReadResultFilesInOrder, SameModelsInInputOrderAsReadResultFile) {
  PTSN_REQUIRE_REFERENCE();
  std::vector<std::string> paths = test::ReferenceResultFiles();
  ASSERT_GT(paths.size(), 3u);
  for (unsigned threads : {1u, 2u, 4u}) {
    size_t next = 0;
    ReadResultFilesInOrder(paths, threads, [&](size_t i, ResultFile& f) {
      ASSERT_EQ(i, next++);
      SerializeOptions keep;
      keep.keep_as_read = true;
      EXPECT_EQ(SerializeResultFile(f, keep), SerializeResultFile(ReadResultFile(paths[i]), keep)) << paths[i];
    });
    EXPECT_EQ(next, paths.size());
  }
}

TEST(ReadResultFilesInOrder, TheFirstBadFileInInputOrderIsTheError) {
  const std::string dir = (std::filesystem::temp_directory_path() / "ptsn-parallel-read-test").string();
  std::filesystem::create_directories(dir);
  const std::string good = "<?xml version=\"1.0\"?>\n<PhoronixTestSuite><Generated><Title>t</Title>"
                           "<LastModified/><TestClient/><Description/></Generated></PhoronixTestSuite>\n";
  std::vector<std::string> paths;
  for (int i = 0; i < 8; ++i) {
    paths.push_back(dir + "/f" + std::to_string(i) + ".xml");
    WriteFileAtomically(paths.back(), good);
  }
  WriteFileAtomically(paths[3], good.substr(0, good.size() / 2));   // truncated
  WriteFileAtomically(paths[6], "<PhoronixTestSuite><Bogus/></PhoronixTestSuite>");  // unknown element
  paths[7] = dir + "/missing.xml";
  std::string sequential;
  try {
    ReadResultFile(paths[3]);
  } catch (const Error& e) {
    sequential = e.what();
  }
  ASSERT_FALSE(sequential.empty());
  for (unsigned threads : {1u, 2u, 8u}) {
    size_t consumed = 0;
    try {
      ReadResultFilesInOrder(paths, threads, [&](size_t, ResultFile&) { ++consumed; });
      ADD_FAILURE() << "no error with " << threads << " threads";
    } catch (const Error& e) {
      EXPECT_EQ(std::string(e.what()), sequential) << threads;
      EXPECT_EQ(consumed, 3u) << threads;
    }
  }
  std::filesystem::remove_all(dir);
}

// ---- StreamResultFile with the parse on its own thread(s) -----------------------------------

// One Result as text (the Result object is reused, so it is copied out).
std::string ResultText(const Result& r) {
  ResultFile one;
  one.results.push_back(r);
  return "R " + std::to_string(r.entries.size()) + "\n" + SerializeResultFile(one, {.keep_as_read = true});
}

// What a fork of CallLog is given; throws at its own fork_throw_at-th Result when set. Records
// the threads that fed it; a fork fed on a thread other than `caller` can be made to dawdle.
struct ForkLog : ResultVisitor {
  void Head(const ResultFile&) override { ADD_FAILURE() << "a fork was given Head"; }
  void OnResult(const Result& r) override {
    if (fed_by.insert(std::this_thread::get_id()).second && std::this_thread::get_id() != caller)
      std::this_thread::sleep_for(dawdle);
    results.push_back(ResultText(r));
    if (results.size() == throw_at) throw std::runtime_error("fork stops");
  }
  std::vector<std::string> results;
  size_t throw_at = 0;
  std::thread::id caller;
  std::chrono::milliseconds dawdle{0};
  std::set<std::thread::id> fed_by;
};

// Every call a visitor is given, as text. Forks (when forkable) log apart and are joined back in,
// Result by Result, so the log and the throw at the throw_at-th Result are the single-threaded ones.
struct CallLog : ResultVisitor {
  void Head(const ResultFile& head) override {
    ResultFile h = head;
    h.results.clear();
    log += "H\n" + SerializeResultFile(h, {.keep_as_read = true});
  }
  void OnResult(const Result& r) override { Log(ResultText(r)); }
  void Log(const std::string& text) {
    log += text;
    if (++results == throw_at) throw std::runtime_error("visitor stops at " + std::to_string(results));
  }
  bool CanFork() const override { return forkable; }
  std::unique_ptr<ResultVisitor> Fork() override {
    auto fork = std::make_unique<ForkLog>();
    fork->throw_at = fork_throw_at;
    fork->caller = caller;
    fork->dawdle = dawdle;
    return fork;
  }
  // Adopting takes nothing from the fork here (its thread may still be running); the order of
  // the calls is kept apart from the log.
  bool Adopt(ResultVisitor&) override {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order += 'A';
    return adopting;
  }
  void Join(ResultVisitor& fork) override {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order += 'J';
    ++joins;
    const auto& f = static_cast<ForkLog&>(fork);
    EXPECT_EQ(f.fed_by.size(), 1u) << "a stretch is read by one thread";
    if (f.fed_by.count(caller)) ++joins_fed_by_caller;
    for (const std::string& text : f.results) Log(text);
  }
  std::string log, order;
  size_t results = 0, throw_at = 0, fork_throw_at = 0, joins = 0, joins_fed_by_caller = 0;
  bool forkable = true, adopting = false;
  std::chrono::milliseconds dawdle{0};
  const std::thread::id caller = std::this_thread::get_id();
};

// The calls and the outcome ("true", "false", the error) of one streaming read; share > 0: where
// the first cut goes (else stretches of equal size). `joins`: how many forks were joined.
// `per_thread`: stretches per thread, whatever their size.
std::string StreamOutcome(std::string_view xml, unsigned threads, size_t throw_at = 0, double share = 0,
                          size_t fork_throw_at = 0, size_t* joins = nullptr, bool adopting = false,
                          unsigned per_thread = 1) {
  CallLog visitor;
  visitor.throw_at = throw_at;
  visitor.fork_throw_at = fork_throw_at;
  visitor.adopting = adopting;
  std::string outcome;
  const StreamOptions options{.threads = threads,
                              .min_parallel_bytes = 0,
                              .stretches_per_thread = per_thread,
                              .min_stretch_bytes = 0,
                              .first_share = share};
  try {
    outcome = StreamResultFile(xml, "in.xml", visitor, options) ? "true" : "false";
  } catch (const std::exception& e) {
    outcome = std::string("error: ") + e.what();
  }
  if (joins) *joins = visitor.joins;
  return outcome + "\n" + visitor.log;
}

// A file of `count` results, each different.
std::string ManyResults(size_t count) {
  ResultFile f = test::SmallResultFile();
  const std::vector<Result> base = f.results;
  f.results.clear();
  for (size_t i = 0; i < count; ++i) {
    Result r = base[i % base.size()];
    r.arguments += " #" + std::to_string(i);
    if (i % 3 == 0) r.annotation = "note " + std::to_string(i);
    if (i % 5 == 0) r.entries.resize(1);
    for (Entry& e : r.entries) e.value = std::to_string(i * 1.5);
    f.results.push_back(r);
  }
  return SerializeResultFile(f, {.keep_as_read = true});
}

TEST(StreamOnTwoThreads, ReferenceFilesGiveTheSingleThreadedCalls) {
  PTSN_REQUIRE_REFERENCE();
  for (const std::string& path : test::ReferenceResultFiles()) {
    const std::string xml = ReadFile(path);
    const std::string sequential = StreamOutcome(xml, 1);
    EXPECT_EQ(sequential.substr(0, 5), "true\n") << path;
    EXPECT_EQ(StreamOutcome(xml, 2), sequential) << path;
    for (double share : {0.2, 0.6}) EXPECT_EQ(StreamOutcome(xml, 2, 0, share), sequential) << path << " " << share;
  }
}

TEST(StreamOnTwoThreads, LargeFileGivesTheSingleThreadedCalls) {
  const std::string xml = ManyResults(500);
  const std::string sequential = StreamOutcome(xml, 1);
  ASSERT_EQ(sequential.substr(0, 5), "true\n");
  for (unsigned threads : {2u, 3u, 4u, 7u})
    for (unsigned per_thread : {1u, 4u}) {
      size_t joins = 0;
      EXPECT_EQ(StreamOutcome(xml, threads, 0, 0, 0, &joins, false, per_thread), sequential) << threads;
      EXPECT_EQ(joins, threads * per_thread - 1) << "every stretch read and joined";
    }
  for (double share : {0.01, 0.3, 0.6, 0.99}) EXPECT_EQ(StreamOutcome(xml, 2, 0, share), sequential) << share;
  // The default threshold leaves small files on one thread; this one is above it.
  ASSERT_GT(xml.size(), StreamOptions{}.min_parallel_bytes);
  CallLog visitor;
  EXPECT_TRUE(StreamResultFile(xml, "in.xml", visitor, {.threads = 2}));
  EXPECT_EQ("true\n" + visitor.log, sequential);
  EXPECT_EQ(visitor.joins + 1, std::clamp<size_t>(xml.size() / StreamOptions{}.min_stretch_bytes, 2, 8))
      << "stretches of at least min_stretch_bytes, up to 4 per thread";
  // A visitor that cannot fork is read on one thread.
  CallLog single;
  single.forkable = false;
  EXPECT_TRUE(StreamResultFile(xml, "in.xml", single, {.threads = 4, .min_parallel_bytes = 0}));
  EXPECT_EQ("true\n" + single.log, sequential);
  EXPECT_EQ(single.joins, 0u);
}

TEST(StreamOnTwoThreads, AForkThatThrowsHasItsStretchReadAgainByTheVisitor) {
  const std::string xml = ManyResults(300);
  const std::string sequential = StreamOutcome(xml, 1);
  for (unsigned threads : {2u, 4u})
    for (unsigned per_thread : {1u, 3u})
      for (size_t at : {1, 20}) {
        size_t joins = 99;
        EXPECT_EQ(StreamOutcome(xml, threads, 0, 0, at, &joins, false, per_thread), sequential) << threads << " " << at;
        EXPECT_EQ(joins, 0u) << "the first fork failed, so nothing was joined";
      }
  // The visitor's own exception in a stretch a fork had read comes out as on one thread.
  for (size_t at : {160, 299}) EXPECT_EQ(StreamOutcome(xml, 2, at), StreamOutcome(xml, 1, at)) << at;
}

TEST(StreamOnTwoThreads, EachForkIsOfferedForAdoptionJustBeforeItsJoin) {
  const std::string xml = ManyResults(500);
  const std::string sequential = StreamOutcome(xml, 1);
  for (bool adopting : {false, true})
    for (unsigned threads : {2u, 3u, 5u})
      for (unsigned per_thread : {1u, 4u}) {
        CallLog visitor;
        visitor.adopting = adopting;
        EXPECT_TRUE(StreamResultFile(xml, "in.xml", visitor,
                                     {.threads = threads,
                                      .min_parallel_bytes = 0,
                                      .stretches_per_thread = per_thread,
                                      .min_stretch_bytes = 0}));
        EXPECT_EQ("true\n" + visitor.log, sequential) << threads;
        std::string order;
        for (unsigned i = 1; i < threads * per_thread; ++i) order += "AJ";
        EXPECT_EQ(visitor.order, order) << threads;
      }
}

// The threads share the stretches out as they go: while a worker is held up in one, the calling
// thread reads the others (a slower core gets less of the file), and the calls are still the
// single-threaded read's.
TEST(StreamOnTwoThreads, TheCallingThreadReadsStretchesWhileAWorkerIsHeldUp) {
  const std::string xml = ManyResults(400);
  const std::string sequential = StreamOutcome(xml, 1);
  for (bool adopting : {false, true}) {
    CallLog visitor;
    visitor.adopting = adopting;
    visitor.dawdle = std::chrono::milliseconds(40);  // a worker's first Result of each stretch
    EXPECT_TRUE(StreamResultFile(xml, "in.xml", visitor,
                                 {.threads = 2, .min_parallel_bytes = 0, .stretches_per_thread = 4, .min_stretch_bytes = 0}));
    EXPECT_EQ("true\n" + visitor.log, sequential);
    EXPECT_EQ(visitor.joins, 7u);
    EXPECT_GE(visitor.joins_fed_by_caller, 3u) << "the worker dawdled 40 ms in each stretch it took";
  }
}

// Once a fork is adopted, what it rendered is out of the reader's hands: a stretch of it that
// does not end cleanly is no longer read again but ends the read with false (the whole-file
// read, which the caller then makes, meets the error itself).
TEST(StreamOnTwoThreads, AnAdoptedForkThatFailsEndsTheReadWithFalse) {
  const std::string xml = ManyResults(300);
  const std::string sequential = StreamOutcome(xml, 1);
  size_t joins = 99;
  const std::string adopted = StreamOutcome(xml, 2, 0, 0.5, /*fork_throw_at=*/20, &joins, /*adopting=*/true);
  EXPECT_EQ(joins, 0u);
  ASSERT_EQ(adopted.substr(0, 6), "false\n");
  // The calling thread's own stretch was given as on one thread, and nothing after it.
  EXPECT_EQ(sequential.substr(5).substr(0, adopted.size() - 6), adopted.substr(6));
  EXPECT_LT(adopted.size(), sequential.size());
  // The same failing fork, not adopted: its stretch is read again and the outcome is one thread's.
  EXPECT_EQ(StreamOutcome(xml, 2, 0, 0.5, 20, nullptr, false), sequential);

  // A parse error in an adopted stretch: false; in the calling thread's stretch: the error.
  const std::string truncated = xml.substr(0, xml.size() * 3 / 4);
  EXPECT_EQ(StreamOutcome(truncated, 2, 0, 0.5, 0, nullptr, true).substr(0, 6), "false\n");
  std::string early = xml;
  early.replace(early.find("</Entry>", early.size() / 8), 8, "</Entyr>");
  ASSERT_EQ(StreamOutcome(early, 1).substr(0, 7), "error: ");
  EXPECT_EQ(StreamOutcome(early, 2, 0, 0.5, 0, nullptr, true), StreamOutcome(early, 1));
}

TEST(StreamOnTwoThreads, BrokenFilesGiveTheSameCallsAndTheSameError) {
  const std::string xml = ManyResults(120);
  std::vector<std::string> broken;
  for (size_t k = 1; k < 24; ++k) broken.push_back(xml.substr(0, xml.size() * k / 24));  // truncated
  std::string bad = xml;
  bad.replace(bad.find("<Value>", bad.size() / 2), 7, "<Valeu>");  // unknown element mid-file
  broken.push_back(bad);
  bad = xml;
  bad.replace(bad.find("</Entry>", bad.size() / 3), 8, "</Entyr>");  // mismatched end tag
  broken.push_back(bad);
  bad = xml;
  bad.insert(bad.find("<Result>", bad.size() / 2), "<!-- a comment --><![CDATA[ x ]]><?pi x?>");
  broken.push_back(bad);  // legal, and read the same way
  bad = xml;
  bad.insert(bad.find("<Value>", bad.size() * 3 / 4) + 7, "&bogus;");  // entity reference
  broken.push_back(bad);
  bad = xml;
  bad[bad.size() / 2] = '\xff';  // not UTF-8: refused before the parse
  broken.push_back(bad);
  // A <Result> nested in an <Entry> (an unknown element) just after where the cut is aimed: the
  // cut lands there, and the two parts are not well-formed.
  bad = xml;
  const size_t nested = bad.find("<Value>", bad.size() * 7 / 10);
  bad.insert(nested, "<Result></Result>");
  const double at_nested = static_cast<double>(nested) / static_cast<double>(bad.size());
  ASSERT_EQ(ResultSplitPoints(bad, 2, at_nested), std::vector<size_t>{nested});
  broken.push_back(bad);
  for (size_t i = 0; i < broken.size(); ++i) {
    const std::string sequential = StreamOutcome(broken[i], 1);
    EXPECT_EQ(StreamOutcome(broken[i], 2), sequential) << "case " << i;
    for (double share : {0.3, 0.69, 0.9, at_nested})
      EXPECT_EQ(StreamOutcome(broken[i], 2, 0, share), sequential) << "case " << i << " " << share;
  }
  // (An unknown element is read past, as PTS reads past it: the nested <Result> is no error.)
  EXPECT_NE(StreamOutcome(broken.back(), 1).substr(0, 7), "error: ");
}

TEST(StreamOnTwoThreads, AVisitorExceptionStopsTheParseAndComesOutUnchanged) {
  const std::string xml = ManyResults(200);
  for (size_t at : {1, 7, 33, 150, 200}) {
    const std::string sequential = StreamOutcome(xml, 1, at);
    ASSERT_NE(sequential.find("error: visitor stops at " + std::to_string(at)), std::string::npos) << sequential.substr(0, 80);
    EXPECT_EQ(StreamOutcome(xml, 2, at), sequential) << at;
    EXPECT_EQ(StreamOutcome(xml, 2, at, 0.5), sequential) << at;
  }
  // A parse error after the Result the visitor stops at: the visitor's exception, as on one thread.
  const std::string truncated = xml.substr(0, xml.size() * 3 / 4);
  EXPECT_EQ(StreamOutcome(truncated, 2, 10), StreamOutcome(truncated, 1, 10));
  EXPECT_EQ(StreamOutcome(truncated, 2, 10, 0.5), StreamOutcome(truncated, 1, 10));
}

TEST(StreamOnTwoThreads, FileOutOfPtsOrderStopsWithFalseAfterTheSameCalls) {
  std::string xml = ManyResults(80);
  const size_t s2 = xml.find("  <System>", xml.find("</System>"));
  const size_t s2_end = xml.find("</System>\n", s2) + 10;
  const std::string system = xml.substr(s2, s2_end - s2);
  xml.erase(s2, s2_end - s2);
  xml.insert(xml.find("</Result>\n", xml.size() / 2) + 10, system);  // a System after 40 Results
  const std::string sequential = StreamOutcome(xml, 1);
  ASSERT_EQ(sequential.substr(0, 6), "false\n");
  EXPECT_EQ(StreamOutcome(xml, 2), sequential);
  for (double share : {0.2, 0.8}) EXPECT_EQ(StreamOutcome(xml, 2, 0, share), sequential) << share;  // before and after the cut
}

}  // namespace
}  // namespace ptsn::results

namespace ptsn::results {
namespace {

TEST(ResultSplitPoints, CutsOnlyAtResultTagsOfAFileWithNothingButElementsAfterTheRoot) {
  const std::string xml = ManyResults(50);
  const std::vector<size_t> cuts = ResultSplitPoints(xml, 3, 0.5);
  ASSERT_EQ(cuts.size(), 2u);
  EXPECT_GE(cuts[0], xml.size() / 2);
  EXPECT_GE(cuts[1], xml.size() * 3 / 4);
  for (size_t c : cuts) EXPECT_EQ(xml.compare(c, 9, "<Result>\n"), 0);
  EXPECT_TRUE(ResultSplitPoints(xml, 1, 0.5).empty());
  EXPECT_TRUE(ResultSplitPoints(xml, 2, 1.0).empty());  // no <Result> after the aim
  // Anything that could hold a literal "<Result>" that is not a tag: no cut at all.
  for (const char* markup : {"<!-- <Result> -->", "<![CDATA[<Result>]]>", "<?pi <Result>?>"}) {
    std::string odd = xml;
    odd.insert(odd.find("</PhoronixTestSuite>"), markup);
    EXPECT_TRUE(ResultSplitPoints(odd, 2, 0.5).empty()) << markup;
  }
  std::string attributes = xml;  // the root tag must be exactly "<PhoronixTestSuite>"
  attributes.replace(attributes.find("<PhoronixTestSuite>"), 19, "<PhoronixTestSuite xmlns=\"x\">");
  EXPECT_TRUE(ResultSplitPoints(attributes, 2, 0.5).empty());
  // The leading comment PTS writes before the root is fine.
  const std::string as_pts_writes = SerializeResultFile(ParseResultFile(xml, "in.xml"));
  ASSERT_LT(as_pts_writes.find("<!--"), as_pts_writes.find("<PhoronixTestSuite>"));
  EXPECT_EQ(ResultSplitPoints(as_pts_writes, 2, 0.5).size(), 1u);
}

}  // namespace
}  // namespace ptsn::results
