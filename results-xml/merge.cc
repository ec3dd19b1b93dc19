#include "results-xml/merge.h"

#include <unordered_map>
#include <unordered_set>

#include "results-xml/comparison_hash.h"
#include "results-xml/statistics.h"
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

// Which results line up: PTS compares the SHA-1 of ComparisonHashInput(); comparing that input
// itself gives the same groups (short of a SHA-1 collision) without hashing every result.
std::string ComparisonKey(const Result& r) { return ComparisonHashInput(r); }

bool SameSystem(const System& a, const System& b) {
  return a.identifier == b.identifier && a.hardware == b.hardware && a.software == b.software && a.user == b.user &&
         a.timestamp == b.timestamp && a.test_client_version == b.test_client_version && a.notes == b.notes &&
         a.json == b.json && a.cost_value_for_comparison == b.cost_value_for_comparison;
}

// The buffer of one merged Result: which identifiers and (identifier, value) pairs it holds.
// Pairs are kept as hashes pointing at an entry (no key strings to allocate); a hash hit is
// confirmed against the entry itself.
struct EntryIndex {
  std::unordered_map<std::string, size_t> last_by_identifier;
  std::unordered_multimap<size_t, size_t> pairs;  // PairHash -> entry position
};

size_t PairHash(const Entry& e) {
  size_t a = std::hash<std::string>{}(e.identifier), b = std::hash<std::string>{}(e.value);
  return a ^ (b + 0x9e3779b97f4a7c15ULL + (a << 6) + (a >> 2));
}

bool HasPair(const Result& r, const EntryIndex& index, const Entry& e, size_t hash) {
  auto [lo, hi] = index.pairs.equal_range(hash);
  for (auto it = lo; it != hi; ++it) {
    const Entry& have = r.entries[it->second];
    if (have.identifier == e.identifier && have.value == e.value) return true;
  }
  return false;
}

}  // namespace

class ResultMerger::Impl {
 public:
  explicit Impl(ClashPolicy policy) : policy_(policy) {}

  void AddAny(MergeInput in) {
    if (started_) {
      Add(std::move(in));
    } else {
      started_ = true;
      Start(std::move(in));
    }
  }
  bool started() const { return started_; }

  void Start(MergeInput first) {
    out_.merged.leading_comment = first.file.leading_comment;
    out_.merged.generated = std::move(first.file.generated);
    for (System& s : first.file.systems) AddSystem(std::move(s), nullptr);
    for (Result& r : first.file.results) {
      std::string key = ComparisonKey(r);
      AddResult(std::move(r), key);
    }
  }

  void Add(MergeInput in) {
    Generated& g = out_.merged.generated;
    if (g.title.empty() && !in.file.generated.title.empty()) g.title = in.file.generated.title;
    if (g.description.empty() && !in.file.generated.description.empty()) g.description = in.file.generated.description;
    std::vector<std::string> keys;
    keys.reserve(in.file.results.size());
    for (const Result& r : in.file.results) keys.push_back(ComparisonKey(r));
    std::unordered_map<std::string, std::string> renames;
    std::unordered_set<std::string> incoming_ids;
    for (const System& s : in.file.systems) incoming_ids.insert(s.identifier);
    for (System& s : in.file.systems) {
      if (!identifiers_.count(s.identifier) || policy_ == ClashPolicy::kKeep) {
        AddSystem(std::move(s), nullptr);
        continue;
      }
      if (IsDuplicateRun(s, in.file, keys)) continue;  // the same run merged again: nothing new
      if (policy_ == ClashPolicy::kError)
        throw Error(in.name + ": system identifier '" + s.identifier +
                    "' is already used by an earlier file (use --on-clash=rename or --on-clash=keep)");
      std::string renamed;
      for (int n = 2;; ++n) {
        renamed = s.identifier + " #" + std::to_string(n);
        if (!identifiers_.count(renamed) && !incoming_ids.count(renamed)) break;
      }
      out_.notices.push_back(in.name + ": system '" + s.identifier + "' renamed to '" + renamed +
                             "' (the identifier is already used by an earlier file)");
      renames[s.identifier] = renamed;
      AddSystem(std::move(s), &renamed);
    }
    for (size_t i = 0; i < in.file.results.size(); ++i) {
      Result& r = in.file.results[i];
      if (!renames.empty())
        for (Entry& e : r.entries)
          if (auto it = renames.find(e.identifier); it != renames.end()) e.identifier = it->second;
      AddResult(std::move(r), keys[i]);
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
  // present (same result, same value): merging it again would only duplicate it.
  bool IsDuplicateRun(const System& s, const ResultFile& file, const std::vector<std::string>& keys) {
    bool identical = false;
    for (const System& have : out_.merged.systems) identical = identical || SameSystem(have, s);
    if (!identical) return false;
    for (size_t i = 0; i < file.results.size(); ++i) {
      for (const Entry& e : file.results[i].entries) {
        if (e.identifier != s.identifier) continue;
        auto it = by_key_.find(keys[i]);
        if (it == by_key_.end() || !HasPair(out_.merged.results[it->second], Index(it->second), e, PairHash(e)))
          return false;
      }
    }
    return true;
  }

  void AddResult(Result r, const std::string& key) {
    auto [it, inserted] = by_key_.try_emplace(key, out_.merged.results.size());
    if (inserted) {
      out_.merged.results.push_back(std::move(r));
      return;
    }
    Result& have = out_.merged.results[it->second];
    if (r.annotation && !r.annotation->empty()) {
      if (!have.annotation || have.annotation->empty()) have.annotation = r.annotation;
      else if (have.annotation->find(*r.annotation) == std::string::npos) *have.annotation += " \n" + *r.annotation;
    }
    EntryIndex& index = Index(it->second);
    for (Entry& e : r.entries) AddEntry(have, index, std::move(e));
  }

  EntryIndex& Index(size_t result_pos) {
    auto [it, inserted] = entry_index_.try_emplace(result_pos);
    if (inserted) Rebuild(out_.merged.results[result_pos], it->second);
    return it->second;
  }

  static void Rebuild(const Result& r, EntryIndex& index) {
    index = {};
    for (size_t i = 0; i < r.entries.size(); ++i) {
      index.last_by_identifier[r.entries[i].identifier] = i;
      index.pairs.emplace(PairHash(r.entries[i]), i);
    }
  }

  // pts_test_result_buffer::add_buffer_item.
  static void AddEntry(Result& have, EntryIndex& index, Entry e) {
    auto last = index.last_by_identifier.find(e.identifier);
    if (last != index.last_by_identifier.end() && have.entries[last->second].value.empty()) {
      // An incomplete entry is replaced: every entry of that identifier goes, the new one is appended.
      std::erase_if(have.entries, [&](const Entry& x) { return x.identifier == e.identifier; });
      Rebuild(have, index);
    }
    size_t hash = PairHash(e);
    if (HasPair(have, index, e, hash)) return;
    index.pairs.emplace(hash, have.entries.size());
    index.last_by_identifier[e.identifier] = have.entries.size();
    have.entries.push_back(std::move(e));
  }

  ClashPolicy policy_;
  bool started_ = false;
  MergeOutcome out_;
  std::unordered_set<std::string> identifiers_;
  std::unordered_map<std::string, size_t> by_key_;  // ComparisonKey -> position in merged.results
  std::unordered_map<size_t, EntryIndex> entry_index_;
};

ResultMerger::ResultMerger(ClashPolicy on_clash) : impl_(std::make_unique<Impl>(on_clash)) {}
ResultMerger::~ResultMerger() = default;
void ResultMerger::Add(MergeInput input) { impl_->AddAny(std::move(input)); }
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
