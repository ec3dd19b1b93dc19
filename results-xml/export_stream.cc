#include "results-xml/export_stream.h"

#include "results-xml/file_bytes.h"
#include "results-xml/parallel_read.h"
#include "runner/common/atomic_file.h"

namespace ptsn::results {

namespace {

constexpr size_t kFlushBytes = 256 << 10;

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
  bool CanFork() const override { return view_.CanFork(); }
  std::unique_ptr<ResultVisitor> Fork() override;
  void Join(ResultVisitor& fork) override;

 protected:
  void Flush() {
    sink_.Write(view_.Pending());
    view_.Pending().clear();
  }

 private:
  StreamingView& view_;
  TextSink& sink_;
};

// A fork (a later stretch of the file rendered on another thread): its text waits in a spool of
// its own until it is joined, and goes to the sink then. Up to 2 MiB of it in memory (a fork's
// share of a text or CSV export entirely), beyond it in a temporary file (a JSON export's larger
// share).
struct ForkedFlushing : Flushing {
  ForkedFlushing(std::unique_ptr<StreamingView> v, std::unique_ptr<SpoolSink> s)
      : Flushing(*v, *s), view(std::move(v)), sink(std::move(s)) {}
  std::unique_ptr<StreamingView> view;
  std::unique_ptr<SpoolSink> sink;
};

std::unique_ptr<ResultVisitor> Flushing::Fork() {
  auto view = view_.ForkView();
  if (!view) return nullptr;
  return std::make_unique<ForkedFlushing>(std::move(view), std::make_unique<SpoolSink>(size_t{2} << 20));
}

void Flushing::Join(ResultVisitor& fork) {
  auto& f = static_cast<ForkedFlushing&>(fork);
  Flush();
  f.Flush();
  f.sink->spool.ReadBack([&](std::string_view text) { sink_.Write(text); });
  view_.JoinView(*f.view);
}

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
                      const std::function<std::string(const ResultFile&)>& whole, TextSink& sink, unsigned threads) {
  const FileBytes xml(path);
  try {
    Flushing flushing(view, sink);
    if (StreamResultFile(xml.view(), path, flushing, {.threads = threads > 0 ? threads : ReadThreads()})) {
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
                             const std::function<std::string(const ResultFile&)>& whole, unsigned threads) {
  StringSink sink;
  RenderResultFile(path, view, whole, sink, threads);
  return std::move(sink.text_);
}

}  // namespace ptsn::results
