#include "results-xml/parallel_read.h"

#include <libxml/parser.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <thread>

#include "results-xml/ordered_parallel.h"
#include "results-xml/result_xml.h"
#include "runner/common/settings.h"

namespace ptsn::results {

unsigned ReadThreads() {
  long n = GlobalSettings().GetInt("results.read_threads");
  if (n <= 0) n = std::thread::hardware_concurrency();
  return static_cast<unsigned>(std::clamp<long>(n, 1, 64));
}

void ReadResultFilesInOrder(const std::vector<std::string>& paths, unsigned threads,
                            const std::function<void(size_t, ResultFile&)>& consume) {
  xmlInitParser();  // once, before any thread parses (libxml2 2.9 wants it on one thread first)
  // Each model, once consumed, is read into again (ReadResultFile's `into`): after the first few
  // files the reads reuse its strings instead of allocating and freeing their own.
  std::mutex mutex;
  std::vector<ResultFile> consumed;
  auto produce = [&](size_t i) {
    ResultFile model;
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!consumed.empty()) {
        model = std::move(consumed.back());
        consumed.pop_back();
      }
    }
    ReadResultFile(paths[i], model);
    return model;
  };
  auto consume_and_recycle = [&](size_t i, ResultFile& model) {
    consume(i, model);
    std::lock_guard<std::mutex> lock(mutex);
    consumed.push_back(std::move(model));
  };
  // Two files per thread in flight keeps every thread busy while the caller merges.
  ForEachInOrder<ResultFile>(paths.size(), threads, 2 * size_t{threads}, produce, consume_and_recycle);
}

namespace {

// True when `c` at `p` is preceded by '<' ("<!" or "<?") anywhere in [from, end).
bool HasMarkupStartingWith(const char* from, const char* end, char c) {
  for (const char* p = from; (p = static_cast<const char*>(std::memchr(p, c, end - p))); ++p)
    if (p > from && p[-1] == '<') return true;
  return false;
}

}  // namespace

std::vector<size_t> ResultSplitPoints(std::string_view xml, size_t parts, double first_share) {
  constexpr std::string_view kRoot = "<PhoronixTestSuite>", kResult = "<Result>";
  if (parts < 2) return {};
  // The root's start tag: the first '<' that opens neither "<?" nor "<!" (prolog).
  size_t root = 0;
  for (;;) {
    root = xml.find('<', root);
    if (root == std::string_view::npos || root + 1 >= xml.size()) return {};
    if (xml[root + 1] != '?' && xml[root + 1] != '!') break;
    ++root;
  }
  if (xml.substr(root, kRoot.size()) != kRoot) return {};
  const size_t body = root + kRoot.size();
  const char* const end = xml.data() + xml.size();
  if (HasMarkupStartingWith(xml.data() + body - 1, end, '!') || HasMarkupStartingWith(xml.data() + body - 1, end, '?'))
    return {};

  std::vector<size_t> cuts;
  const double rest = (1.0 - first_share) / static_cast<double>(parts - 1);
  size_t from = body;
  for (size_t k = 0; k + 1 < parts; ++k) {
    const double share = first_share + rest * static_cast<double>(k);
    const size_t target = std::max(from, static_cast<size_t>(share * static_cast<double>(xml.size())));
    const size_t at = xml.find(kResult, target);
    if (at == std::string_view::npos) break;
    cuts.push_back(at);
    from = at + kResult.size();
  }
  return cuts;
}

}  // namespace ptsn::results
