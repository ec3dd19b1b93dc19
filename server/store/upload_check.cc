#include "server/store/upload_check.h"

#include <type_traits>

#include "results-xml/model/result_xml.h"

namespace ptsn::server {

namespace {

// The summary's share of the head (Generated, the systems) and of one Result. `take` copies a
// string or moves it out (see Summarise).
template <typename Take, typename File>
void SummariseHead(ResultSummary& out, File& file, Take take) {
  out.title = take(file.generated.title);
  out.description = take(file.generated.description);
  out.systems.reserve(file.systems.size());
  out.hardware.reserve(file.systems.size());
  for (auto& s : file.systems) {
    out.systems.push_back(take(s.identifier));
    out.hardware.push_back(take(s.hardware));
  }
}
template <typename Take, typename R>
void SummariseResult(ResultSummary& out, R& r, Take take) {
  out.tests.push_back(take(r.identifier));
  out.result_titles.push_back(take(r.title));
}

// File: const ResultFile (its strings are copied) or ResultFile (they are moved out: the check's
// own parse, dropped right after; ~200 strings per 100-result file).
template <typename File>
ResultSummary Summarise(File& file) {
  auto take = [](auto& s) -> std::string {
    if constexpr (std::is_const_v<File>) return s;
    else return std::move(s);
  };
  ResultSummary out;
  SummariseHead(out, file, take);
  out.tests.reserve(file.results.size());
  out.result_titles.reserve(file.results.size());
  for (auto& r : file.results) SummariseResult(out, r, take);
  return out;
}

std::string Copy(const std::string& s) { return s; }

}  // namespace

ResultSummary SummaryOf(const results::ResultFile& file) { return Summarise(file); }
ResultSummary SummaryOf(results::ResultFile&& file) { return Summarise(file); }

namespace {

// The summary, taken as the shared check reads the file (one parse).
class SummarisingVisitor : public results::ResultVisitor {
 public:
  void Head(const results::ResultFile& head) override { SummariseHead(summary_, head, Copy); }
  void OnResult(const results::Result& r) override { SummariseResult(summary_, r, Copy); }
  ResultSummary TakeSummary() { return std::move(summary_); }

 private:
  ResultSummary summary_;
};

}  // namespace

ResultSummary CheckResultFile(std::string_view xml, const UploadLimits& limits) {
  SummarisingVisitor summary;
  if (auto whole = results::CheckUploadedResultFile(xml, limits, &summary)) return SummaryOf(std::move(*whole));
  return summary.TakeSummary();
}

}  // namespace ptsn::server
