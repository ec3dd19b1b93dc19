#include "results-xml/views/export_stream.h"

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

}  // namespace

std::string RenderModel(const ResultFile& file, StreamingView& view) {
  view.Head(file);
  for (const Result& r : file.results) view.OnResult(r);
  view.Finish();
  return std::move(view.Pending());
}

void RenderResultFile(const std::string& path, StreamingView& view,
                      const std::function<std::string(const ResultFile&)>& whole, TextSink& sink) {
  // Read, not mapped: a mapped file that another program (PTS saves in place) cuts short while
  // we read it would kill us with SIGBUS instead of giving an error. Mapping saved ~2 ms here.
  const std::string xml = ReadFile(path);
  try {
    Flushing flushing(view, sink);
    if (StreamResultFile(xml, path, flushing)) {
      view.Finish();
      sink.Write(view.Pending());
      return;
    }
  } catch (const NeedsWholeFile&) {
  }
  sink.Restart();
  sink.Write(whole(ParseResultFile(xml, path)));
}

}  // namespace ptsn::results
