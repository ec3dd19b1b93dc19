#include "results-xml/export_stream.h"

#include <mutex>
#include <utility>

#include "results-xml/file_bytes.h"
#include "results-xml/parallel_read.h"
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
  bool CanFork() const override { return view_.CanFork(); }
  std::unique_ptr<ResultVisitor> Fork() override;
  bool Adopt(ResultVisitor& fork) override;
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

// A fork's destination: until the fork is adopted, a spool of its own (up to kForkSpoolMemory in
// memory, beyond it in a temporary file); from then on, straight through to the sink of the view
// it was forked from. The fork writes on its thread, the adopting thread drains the spool on its
// own: the lock only guards the switch.
class ForkSink : public TextSink {
 public:
  static constexpr size_t kForkSpoolMemory = size_t{1} << 20;
  void Write(std::string_view text) override {
    std::lock_guard lock(mutex_);
    if (direct_) direct_->Write(text);
    else spool_->Write(text);
  }
  void Restart() override {
    std::lock_guard lock(mutex_);
    spool_->Clear();
  }
  // Copies what the fork wrote so far to `to` (without holding up the fork: it goes on into a
  // fresh spool meanwhile), until nothing is waiting, then lets the fork write to `to` itself.
  void DrainInto(TextSink& to) {
    for (;;) {
      std::unique_ptr<OutputSpool> taken;
      {
        std::lock_guard lock(mutex_);
        if (spool_->size() == 0) {
          direct_ = &to;
          return;
        }
        taken = std::exchange(spool_, std::make_unique<OutputSpool>(kForkSpoolMemory));
      }
      taken->ReadBack([&](std::string_view text) { to.Write(text); });
    }
  }

 private:
  std::mutex mutex_;
  std::unique_ptr<OutputSpool> spool_ = std::make_unique<OutputSpool>(kForkSpoolMemory);
  TextSink* direct_ = nullptr;
};

// A fork of an export: a later stretch of the file, rendered by whichever thread reads it.
struct ForkedFlushing : Flushing {
  ForkedFlushing(std::unique_ptr<StreamingView> v, std::unique_ptr<ForkSink> s)
      : Flushing(*v, *s), view(std::move(v)), sink(std::move(s)) {}
  std::unique_ptr<StreamingView> view;
  std::unique_ptr<ForkSink> sink;
};

std::unique_ptr<ResultVisitor> Flushing::Fork() {
  auto view = view_.ForkView();
  if (!view) return nullptr;
  return std::make_unique<ForkedFlushing>(std::move(view), std::make_unique<ForkSink>());
}

// Everything before the fork's text is out (this view's, the forks' joined before): what the fork
// has made so far follows it, and the fork's thread writes the rest itself while this one waits.
bool Flushing::Adopt(ResultVisitor& fork) {
  auto& f = static_cast<ForkedFlushing&>(fork);
  Flush();
  f.sink->DrainInto(sink_);
  return true;
}

void Flushing::Join(ResultVisitor& fork) {
  auto& f = static_cast<ForkedFlushing&>(fork);
  Adopt(fork);  // nothing left to do if it was adopted
  f.Flush();
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
