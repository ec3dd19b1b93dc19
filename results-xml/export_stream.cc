#include "results-xml/export_stream.h"

#include <utility>

#include "runner/common/atomic_file.h"

namespace ptsn::results {

namespace {

constexpr size_t kFlushBytes = 64 << 10;

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
  const std::string xml = ReadFile(path);
  try {
    Flushing flushing(view, sink);
    if (StreamResultFile(xml, path, flushing)) {
      view.Finish();
      sink.Take(std::move(view.Pending()));
      return;
    }
  } catch (const NeedsWholeFile&) {
  }
  sink.Restart();
  sink.Take(whole(ParseResultFile(xml, path)));
}

std::string RenderResultFile(const std::string& path, StreamingView& view,
                             const std::function<std::string(const ResultFile&)>& whole) {
  StringSink sink;
  RenderResultFile(path, view, whole, sink);
  return std::move(sink.text_);
}

}  // namespace ptsn::results
