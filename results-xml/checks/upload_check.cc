#include "results-xml/checks/upload_check.h"

#include "results-xml/checks/validate.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::results {

namespace {

// The check in one streaming pass: each Result is validated as it ends, in one reused object,
// so no model of the whole file is built (~600 strings and ~2 vector growths per 100-result
// file, and freeing them; callgrind: ~0.45M of ~3.6M instructions per check).
class CheckingVisitor : public ResultVisitor {
 public:
  explicit CheckingVisitor(ResultVisitor* also) : also_(also) {}
  void Head(const ResultFile& head) override {
    validator_.Head(head);
    if (also_) also_->Head(head);
  }
  void OnResult(const Result& r) override {
    validator_.OnResult(r);
    if (also_) also_->OnResult(r);
  }
  std::vector<ValidationIssue> Issues() { return validator_.Finish(); }

 private:
  StreamingValidator validator_;
  ResultVisitor* also_;
};

void ThrowFirstError(const std::vector<ValidationIssue>& issues) {
  for (const auto& issue : issues)
    if (issue.error) throw UploadRejected{"composite.xml: " + issue.where + ": " + issue.what};
}

}  // namespace

std::string UploadSizeProblem(size_t bytes, size_t max_bytes) {
  if (bytes <= max_bytes) return "";
  return "composite.xml: over the limit of " + std::to_string(max_bytes) + " bytes";
}

std::optional<ResultFile> CheckUploadedResultFile(std::string_view xml, const UploadLimits& limits, ResultVisitor* also) {
  ReadLimits bounds;
  bounds.max_depth = limits.max_depth;
  bounds.max_nodes = limits.max_nodes;
  bounds.max_value_bytes = limits.max_value_bytes;
  bounds.schema_structure = true;  // what result-file.xsd requires beyond the reader's own rules
  try {
    // A read error (anywhere in the file) is reported ahead of any validation error, as when the
    // whole file was parsed first.
    CheckingVisitor check(also);
    if (StreamResultFile(xml, "composite.xml", check, bounds)) {
      ThrowFirstError(check.Issues());
      return std::nullopt;
    }
    // A <Generated> or <System> after a <Result> (legal, never written by PTS): the whole model.
    ResultFile file = ParseResultFile(xml, "composite.xml", bounds);
    ThrowFirstError(ValidateResultFile(file, {.warnings = false}));
    return file;
  } catch (const Error& e) {
    throw UploadRejected{e.what()};
  }
}

std::string UploadNameProblem(std::string_view local_file_name) {
  if (local_file_name.size() > 256 || !IsValidUtf8(local_file_name)) return "local_file_name: over 256 bytes or not UTF-8";
  return "";
}

}  // namespace ptsn::results
