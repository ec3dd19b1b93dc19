#include "server/store/upload_check.h"

#include <type_traits>

#include "results-xml/result_xml.h"
#include "results-xml/validate.h"
#include "runner/common/error.h"

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

// The check in one streaming pass: each Result is validated and summarised as it ends, in one
// reused object, so no model of the whole file is built (~600 strings and ~2 vector growths per
// 100-result file, and freeing them; callgrind: ~0.45M of ~3.6M instructions per check).
class CheckingVisitor : public results::ResultVisitor {
 public:
  void Head(const results::ResultFile& head) override {
    validator_.Head(head);
    SummariseHead(summary_, head, Copy);
  }
  void OnResult(const results::Result& r) override {
    validator_.OnResult(r);
    SummariseResult(summary_, r, Copy);
  }
  std::vector<results::ValidationIssue> Issues() { return validator_.Finish(); }
  ResultSummary TakeSummary() { return std::move(summary_); }

 private:
  results::StreamingValidator validator_;
  ResultSummary summary_;
};

void ThrowFirstError(const std::vector<results::ValidationIssue>& issues) {
  for (const auto& issue : issues)
    if (issue.error) throw UploadRejected{"composite.xml: " + issue.where + ": " + issue.what};
}

}  // namespace

ResultSummary CheckResultFile(std::string_view xml, const UploadLimits& limits) {
  results::ReadLimits bounds;
  bounds.max_depth = limits.max_depth;
  bounds.max_nodes = limits.max_nodes;
  bounds.max_value_bytes = limits.max_value_bytes;
  bounds.schema_structure = true;  // what result-file.xsd requires beyond the reader's own rules
  try {
    // A read error (anywhere in the file) is reported ahead of any validation error, as when the
    // whole file was parsed first.
    CheckingVisitor check;
    if (results::StreamResultFile(xml, "composite.xml", check, bounds)) {
      ThrowFirstError(check.Issues());
      return check.TakeSummary();
    }
    // A <Generated> or <System> after a <Result> (legal, never written by PTS): the whole model.
    results::ResultFile file = results::ParseResultFile(xml, "composite.xml", bounds);
    ThrowFirstError(results::ValidateResultFile(file, {.warnings = false}));
    return SummaryOf(std::move(file));
  } catch (const Error& e) {
    throw UploadRejected{e.what()};
  }
}

}  // namespace ptsn::server
