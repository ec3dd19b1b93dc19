#include "results-xml/export_stream.h"

#include "results-xml/file_bytes.h"
#include "results-xml/parallel_read.h"
#include "runner/common/atomic_file.h"

namespace ptsn::results {

namespace {

// Hands the view's text to the sink whenever a Result leaves more than kFlushBytes pending.
class Flushing : public ResultVisitor {
 public:
  Flushing(StreamingView& view, TextSink& sink) : view_(view), sink_(sink) {}
  void Head(const ResultFile& head) override { view_.Head(head); }
  void OnResult(const Result& result) override {
    view_.OnResult(result);
    std::string& pending = view_.Pending();
    if (pending.size() >= kFlushBytes) {
      sink_.Write(pending);
      pending.clear();
    }
  }

 private:
  static constexpr size_t kFlushBytes = 256 << 10;
  StreamingView& view_;
  TextSink& sink_;
};

class StringSink : public TextSink {
 public:
  void Write(std::string_view text) override { text_ += text; }
  void Take(std::string&& text) override {
    if (text_.empty()) text_ = std::move(text);
    else text_ += text;
  }
  void Restart() override { text_.clear(); }
  std::string text_;
};

}  // namespace

std::string RenderModel(const ResultFile& file, StreamingView& view) {
  view.Head(file);
  for (const Result& r : file.results) view.OnResult(r);
  view.Finish();
  return std::move(view.Pending());
}

void RenderResultFile(const std::string& path, StreamingView& view,
                      const std::function<std::string(const ResultFile&)>& whole, TextSink& sink) {
  const FileBytes xml(path);
  try {
    Flushing flushing(view, sink);
    if (StreamResultFile(xml.view(), path, flushing,
                         {.threads = ReadThreads(), .cut_with_two_threads = view.RendersCheaply()})) {
      view.Finish();
      sink.Take(std::move(view.Pending()));
      return;
    }
  } catch (const NeedsWholeFile&) {
  }
  sink.Restart();
  sink.Take(whole(ParseResultFile(xml.view(), path)));
}

std::string RenderResultFile(const std::string& path, StreamingView& view,
                             const std::function<std::string(const ResultFile&)>& whole) {
  StringSink sink;
  RenderResultFile(path, view, whole, sink);
  return std::move(sink.text_);
}

}  // namespace ptsn::results
