#include "results-xml/store/merge.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/upsert.h"
#include "results-xml/stats/statistics.h"
#include "runner/common/error.h"

namespace ptsn::results {

ClashPolicy ParseClashPolicy(const std::string& text) {
  if (text == "error") return ClashPolicy::kError;
  if (text == "rename") return ClashPolicy::kRename;
  if (text == "keep") return ClashPolicy::kKeep;
  throw Error("--on-clash must be error, rename or keep, not '" + text + "'");
}

void NormalizeLikePts(ResultFile& file) {
  Generated& g = file.generated;
  for (auto* o : {&g.notes, &g.internal_tags, &g.reference_id, &g.preset_environment_variables})
    if (!*o) *o = "";
  for (System& s : file.systems) {
    if (!s.notes) s.notes = "";
    if (s.json && (s.json->empty() || *s.json == "{}" || *s.json == "[]")) s.json.reset();
    if (s.cost_value_for_comparison &&
        !(PhpIsNumeric(*s.cost_value_for_comparison) && PhpToNumber(*s.cost_value_for_comparison) > 0))
      s.cost_value_for_comparison.reset();
  }
  for (Result& r : file.results)
    for (Entry& e : r.entries)
      if (!e.raw_string || *e.raw_string == e.value) e.raw_string = "";
}

namespace {

bool SameSystem(const System& a, const System& b) {
  return a.identifier == b.identifier && a.hardware == b.hardware && a.software == b.software && a.user == b.user &&
         a.timestamp == b.timestamp && a.test_client_version == b.test_client_version && a.notes == b.notes &&
         a.json == b.json && a.cost_value_for_comparison == b.cost_value_for_comparison;
}

// The entries of one merged Result by identifier: the positions of each identifier's entries, in
// order (one per system and run merged, so a handful).
class EntryIndex {
 public:
  explicit EntryIndex(const std::vector<Entry>& entries) { Rebuild(entries); }
  void Rebuild(const std::vector<Entry>& entries) {
    positions_.clear();
    for (size_t i = 0; i < entries.size(); ++i) Add(entries, i);
  }
  // The position of the last entry with e's identifier, if any.
  std::optional<size_t> Last(const Entry& e) const {
    auto it = positions_.find(e.identifier);
    return it == positions_.end() ? std::nullopt : std::optional<size_t>(it->second.back());
  }
  // Whether an entry with e's identifier and value is there.
  bool HasPair(const std::vector<Entry>& entries, const Entry& e) const {
    auto it = positions_.find(e.identifier);
    if (it == positions_.end()) return false;
    for (size_t i : it->second)
      if (entries[i].value == e.value) return true;
    return false;
  }
  // Entry `i` of `entries` (already there) is now the last of its identifier.
  void Add(const std::vector<Entry>& entries, size_t i) { positions_[entries[i].identifier].push_back(i); }

 private:
  std::unordered_map<std::string, std::vector<size_t>> positions_;
};

}  // namespace

class ResultMerger::Impl {
 public:
  explicit Impl(ClashPolicy policy) : policy_(policy), index_(out_.merged) {}

  void AddAny(const std::string& name, ResultFile& file) {
    if (started_) {
      Add(name, file);
    } else {
      started_ = true;
      Start(file);
    }
  }
  bool started() const { return started_; }

  void Start(ResultFile& first) {
    out_.merged.leading_comment = first.leading_comment;
    out_.merged.generated = std::move(first.generated);
    for (System& s : first.systems) AddSystem(std::move(s), nullptr);
    for (Result& r : first.results) AddResult(r, ComparisonHash(r));
  }

  void Add(const std::string& name, ResultFile& file) {
    Generated& g = out_.merged.generated;
    if (g.title.empty() && !file.generated.title.empty()) g.title = file.generated.title;
    if (g.description.empty() && !file.generated.description.empty()) g.description = file.generated.description;
    std::vector<std::string> hashes;
    for (const Result& r : file.results) hashes.push_back(ComparisonHash(r));
    std::unordered_map<std::string, std::string> renames;
    std::unordered_set<std::string> incoming_ids;
    for (const System& s : file.systems) incoming_ids.insert(s.identifier);
    for (System& s : file.systems) {
      if (!identifiers_.count(s.identifier) || policy_ == ClashPolicy::kKeep) {
        AddSystem(std::move(s), nullptr);
        continue;
      }
      if (IsDuplicateRun(s, file, hashes)) continue;  // the same run merged again: nothing new
      if (policy_ == ClashPolicy::kError)
        throw Error(name + ": system identifier '" + s.identifier +
                    "' is already used by an earlier file (use --on-clash=rename or --on-clash=keep)");
      std::string renamed;
      for (int n = 2;; ++n) {
        renamed = s.identifier + " #" + std::to_string(n);
        if (!identifiers_.count(renamed) && !incoming_ids.count(renamed)) break;
      }
      out_.notices.push_back(name + ": system '" + s.identifier + "' renamed to '" + renamed +
                             "' (the identifier is already used by an earlier file)");
      renames[s.identifier] = renamed;
      AddSystem(std::move(s), &renamed);
    }
    for (size_t i = 0; i < file.results.size(); ++i) {
      Result& r = file.results[i];
      if (!renames.empty())
        for (Entry& e : r.entries)
          if (auto it = renames.find(e.identifier); it != renames.end()) e.identifier = it->second;
      AddResult(r, hashes[i]);
    }
  }

  MergeOutcome Finish() {
    NormalizeLikePts(out_.merged);
    return std::move(out_);
  }

 private:
  void AddSystem(System s, const std::string* new_identifier) {
    if (new_identifier) s.identifier = *new_identifier;
    identifiers_.insert(s.identifier);
    out_.merged.systems.push_back(std::move(s));
  }

  // A System identical in every field to one already merged, all of whose entries are already
  // present (same result, same value): merging it again would only duplicate it. (hashes[i]: result
  // i's.)
  bool IsDuplicateRun(const System& s, const ResultFile& file, const std::vector<std::string>& hashes) {
    bool identical = false;
    for (const System& have : out_.merged.systems) identical = identical || SameSystem(have, s);
    if (!identical) return false;
    for (size_t i = 0; i < file.results.size(); ++i) {
      for (const Entry& e : file.results[i].entries) {
        if (e.identifier != s.identifier) continue;
        std::optional<size_t> have = index_.Find(hashes[i]);
        if (!have || !Index(*have).HasPair(out_.merged.results[*have].entries, e)) return false;
      }
    }
    return true;
  }

  // Takes what it keeps of `r` (the whole of a new one, else its entries), leaving `r` to be reused.
  void AddResult(Result& r, const std::string& hash) {
    std::optional<size_t> at = index_.Find(hash);
    if (!at) {
      index_.Insert(std::move(r), hash);
      return;
    }
    Result& have = out_.merged.results[*at];
    if (r.annotation && !r.annotation->empty()) {
      if (!have.annotation || have.annotation->empty()) have.annotation = r.annotation;
      else if (have.annotation->find(*r.annotation) == std::string::npos) *have.annotation += " \n" + *r.annotation;
    }
    EntryIndex& index = Index(*at);
    for (Entry& e : r.entries) AddEntry(have, index, std::move(e));
  }

  EntryIndex& Index(size_t result_pos) {
    auto it = entry_index_.find(result_pos);
    if (it == entry_index_.end()) it = entry_index_.emplace(result_pos, EntryIndex(out_.merged.results[result_pos].entries)).first;
    return it->second;
  }

  // pts_test_result_buffer::add_buffer_item.
  static void AddEntry(Result& have, EntryIndex& index, Entry e) {
    if (auto last = index.Last(e); last && have.entries[*last].value.empty()) {
      // An incomplete entry is replaced: every entry of that identifier goes, the new one is appended.
      std::erase_if(have.entries, [&](const Entry& x) { return x.identifier == e.identifier; });
      index.Rebuild(have.entries);
    }
    if (index.HasPair(have.entries, e)) return;
    have.entries.push_back(std::move(e));
    index.Add(have.entries, have.entries.size() - 1);
  }

  ClashPolicy policy_;
  bool started_ = false;
  MergeOutcome out_;
  std::unordered_set<std::string> identifiers_;
  ResultIndex index_;  // which results line up: out_.merged.results by comparison hash
  std::unordered_map<size_t, EntryIndex> entry_index_;
};

ResultMerger::ResultMerger(ClashPolicy on_clash) : impl_(std::make_unique<Impl>(on_clash)) {}
ResultMerger::~ResultMerger() = default;
void ResultMerger::Add(MergeInput input) { impl_->AddAny(input.name, input.file); }
MergeOutcome ResultMerger::Finish() {
  if (!impl_->started()) throw Error("merge-results needs at least one result file");
  return impl_->Finish();
}

MergeOutcome MergeResultFiles(std::vector<MergeInput> inputs, ClashPolicy on_clash) {
  ResultMerger m(on_clash);
  for (MergeInput& in : inputs) m.Add(std::move(in));
  return m.Finish();
}

}  // namespace ptsn::results
