// Rendering a view of a result file one Result at a time. PTS writes Generated and the systems
// before the first Result, so text, CSV and JSON can be produced while the file is parsed, with
// the memory of one Result instead of the whole model. Each view has one implementation of
// this interface; its whole-model function (ResultFileToText...) feeds the same view from a
// ResultFile, so there is one rendering code path either way.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "results-xml/model/result_file.h"
#include "results-xml/model/result_xml.h"
#include "runner/common/output_spool.h"

namespace ptsn::results {

class StreamingView : public ResultVisitor {
 public:
  // Text rendered and not yet taken. Between Results the caller may move it out and clear it,
  // so a large export goes to its destination as it is made.
  virtual std::string& Pending() = 0;
  // Renders the tail into Pending(); called once, after the last OnResult.
  virtual void Finish() = 0;
};

// Where rendered text goes: written in pieces; Restart() drops everything written so far.
class TextSink {
 public:
  virtual ~TextSink() = default;
  virtual void Write(std::string_view text) = 0;
  virtual void Restart() = 0;
};

// Text kept whole until it is taken: in memory up to `memory_limit`, beyond it in an unlinked
// temporary file (OutputSpool).
struct SpoolSink : TextSink {
  explicit SpoolSink(size_t memory_limit = size_t{1} << 20) : spool(memory_limit) {}
  void Write(std::string_view text) override { spool.Write(text); }
  void Restart() override { spool.Clear(); }
  OutputSpool spool;
};

// Thrown by a view's OnResult when it cannot go on one Result at a time (a JSON export meeting
// a second Result with the same comparison hash, which PTS's keyed output folds into the first).
struct NeedsWholeFile {};

// Feeds a whole model through `view` and returns its text.
std::string RenderModel(const ResultFile& file, StreamingView& view);

// Renders the result file at `path` through `view` into `sink` while parsing it, passing the text
// on every ~64 KB. When the file is out of PTS's element order or the view throws NeedsWholeFile,
// restarts the sink and writes `whole(model)` of the parsed file instead. Errors are
// ReadResultFile's (the sink may then hold part of the text: it must not be made visible).
void RenderResultFile(const std::string& path, StreamingView& view,
                      const std::function<std::string(const ResultFile&)>& whole, TextSink& sink);

}  // namespace ptsn::results
