#include "results-xml/merge.h"

#include <optional>
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

bool SameSystem(const System& a, const System& b) {
  return a.identifier == b.identifier && a.hardware == b.hardware && a.software == b.software && a.user == b.user &&
         a.timestamp == b.timestamp && a.test_client_version == b.test_client_version && a.notes == b.notes &&
         a.json == b.json && a.cost_value_for_comparison == b.cost_value_for_comparison;
}

// The hashes an entry is found by: its identifier's, and its (identifier, value) pair's.
struct EntryHashes {
  size_t identifier, pair;
  explicit EntryHashes(const Entry& e) : identifier(std::hash<std::string_view>{}(e.identifier)) {
    const size_t value = std::hash<std::string_view>{}(e.value);
    pair = identifier ^ (value + 0x9e3779b97f4a7c15ULL + (identifier << 6) + (identifier >> 2));
  }
};

// The buffer of one merged Result: which identifiers (and the last entry of each) and which
// (identifier, value) pairs it holds. Two open-addressing tables of entry positions with their
// hashes, so no key is copied and no node allocated per entry; a hash hit is confirmed against
// the entry itself.
class EntryIndex {
 public:
  explicit EntryIndex(const std::vector<Entry>& entries) { Rebuild(entries); }

  void Rebuild(const std::vector<Entry>& entries) {
    identifiers_.assign(Capacity(entries.size()), Slot{});
    pairs_.assign(identifiers_.size(), Slot{});
    pairs_held_ = 0;
    for (size_t i = 0; i < entries.size(); ++i) Add(entries, i, EntryHashes(entries[i]));
  }
  // The position of the last entry with e's identifier, if any.
  std::optional<size_t> Last(const std::vector<Entry>& entries, const Entry& e, const EntryHashes& h) const {
    const Slot* slot = Find(identifiers_, h.identifier, [&](size_t i) { return entries[i].identifier == e.identifier; });
    if (!slot) return std::nullopt;
    return slot->position - 1;
  }
  bool HasPair(const std::vector<Entry>& entries, const Entry& e, const EntryHashes& h) const {
    return Find(pairs_, h.pair, [&](size_t i) { return entries[i].identifier == e.identifier && entries[i].value == e.value; });
  }
  // Entry `i` of `entries` (already there) is now the last of its identifier, and its pair is known.
  void Add(const std::vector<Entry>& entries, size_t i, const EntryHashes& h) {
    if (2 * (pairs_held_ + 1) > pairs_.size()) Grow();  // (never fewer pairs than identifiers)
    const Entry& e = entries[i];
    Slot& last = Place(identifiers_, h.identifier, [&](size_t j) { return entries[j].identifier == e.identifier; });
    last = {h.identifier, i + 1};
    Slot& pair = Place(pairs_, h.pair, [&](size_t j) { return entries[j].identifier == e.identifier && entries[j].value == e.value; });
    if (pair.position == 0) pair = {h.pair, i + 1}, ++pairs_held_;
  }

 private:
  struct Slot {
    size_t hash = 0;
    size_t position = 0;  // entry position + 1; 0: empty
  };
  static size_t Capacity(size_t entries) {
    size_t c = 16;
    while (c < 2 * entries) c *= 2;
    return c;
  }
  // The slot holding an entry that `same` accepts, else the empty slot where it would go (a
  // const table gives a const slot).
  template <typename Table, typename Same>
  static auto Place(Table& table, size_t hash, const Same& same) -> decltype(table[0]) {
    const size_t mask = table.size() - 1;
    for (size_t at = hash & mask;; at = (at + 1) & mask) {
      auto& slot = table[at];
      if (slot.position == 0 || (slot.hash == hash && same(slot.position - 1))) return slot;
    }
  }
  template <typename Same>
  static const Slot* Find(const std::vector<Slot>& table, size_t hash, const Same& same) {
    const Slot& slot = Place(table, hash, same);
    return slot.position ? &slot : nullptr;
  }
  // Twice the room: every slot moved to where its hash puts it in the larger table.
  void Grow() {
    for (std::vector<Slot>* table : {&identifiers_, &pairs_}) {
      std::vector<Slot> old(table->size() * 2);
      old.swap(*table);
      const size_t mask = table->size() - 1;
      for (const Slot& slot : old) {
        if (slot.position == 0) continue;
        size_t at = slot.hash & mask;
        while ((*table)[at].position != 0) at = (at + 1) & mask;
        (*table)[at] = slot;
      }
    }
  }

  std::vector<Slot> identifiers_, pairs_;  // always of one size, at most half full
  size_t pairs_held_ = 0;  // (identifiers: never more than pairs)
};

bool HasPair(const Result& r, const EntryIndex& index, const Entry& e) { return index.HasPair(r.entries, e, EntryHashes(e)); }

}  // namespace

class ResultMerger::Impl {
 public:
  explicit Impl(ClashPolicy policy) : policy_(policy) {}

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
    for (Result& r : first.results) AddResult(r, ComparisonHashInput(r, key_));
  }

  void Add(const std::string& name, ResultFile& file) {
    Generated& g = out_.merged.generated;
    if (g.title.empty() && !file.generated.title.empty()) g.title = file.generated.title;
    if (g.description.empty() && !file.generated.description.empty()) g.description = file.generated.description;
    // The keys, in strings kept from file to file (with their capacity).
    if (keys_.size() < file.results.size()) keys_.resize(file.results.size());
    for (size_t i = 0; i < file.results.size(); ++i) ComparisonHashInput(file.results[i], keys_[i]);
    std::unordered_map<std::string, std::string> renames;
    std::unordered_set<std::string> incoming_ids;
    for (const System& s : file.systems) incoming_ids.insert(s.identifier);
    for (System& s : file.systems) {
      if (!identifiers_.count(s.identifier) || policy_ == ClashPolicy::kKeep) {
        AddSystem(std::move(s), nullptr);
        continue;
      }
      if (IsDuplicateRun(s, file, keys_)) continue;  // the same run merged again: nothing new
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
      AddResult(r, keys_[i]);
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
  // present (same result, same value): merging it again would only duplicate it. (keys[i]: result
  // i's; there may be more keys than results.)
  bool IsDuplicateRun(const System& s, const ResultFile& file, const std::vector<std::string>& keys) {
    bool identical = false;
    for (const System& have : out_.merged.systems) identical = identical || SameSystem(have, s);
    if (!identical) return false;
    for (size_t i = 0; i < file.results.size(); ++i) {
      for (const Entry& e : file.results[i].entries) {
        if (e.identifier != s.identifier) continue;
        auto it = by_key_.find(keys[i]);
        if (it == by_key_.end() || !HasPair(out_.merged.results[it->second], Index(it->second), e))
          return false;
      }
    }
    return true;
  }

  // Takes what it keeps of `r` (the whole of a new one, else its entries), leaving `r` to be reused.
  void AddResult(Result& r, const std::string& key) {
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
    auto it = entry_index_.find(result_pos);
    if (it == entry_index_.end()) it = entry_index_.emplace(result_pos, EntryIndex(out_.merged.results[result_pos].entries)).first;
    return it->second;
  }

  // pts_test_result_buffer::add_buffer_item.
  static void AddEntry(Result& have, EntryIndex& index, Entry e) {
    EntryHashes h(e);
    if (auto last = index.Last(have.entries, e, h); last && have.entries[*last].value.empty()) {
      // An incomplete entry is replaced: every entry of that identifier goes, the new one is appended.
      std::erase_if(have.entries, [&](const Entry& x) { return x.identifier == e.identifier; });
      index.Rebuild(have.entries);
    }
    if (index.HasPair(have.entries, e, h)) return;
    have.entries.push_back(std::move(e));
    index.Add(have.entries, have.entries.size() - 1, h);
  }

  ClashPolicy policy_;
  bool started_ = false;
  MergeOutcome out_;
  std::unordered_set<std::string> identifiers_;
  // Which results line up: PTS compares the SHA-1 of ComparisonHashInput(); comparing that input
  // itself gives the same groups (short of a SHA-1 collision) without hashing every result.
  std::unordered_map<std::string, size_t> by_key_;  // ComparisonHashInput -> position in merged.results
  std::unordered_map<size_t, EntryIndex> entry_index_;
  std::string key_;                // (Start's key of the moment)
  std::vector<std::string> keys_;  // (Add's keys of the moment)
};

ResultMerger::ResultMerger(ClashPolicy on_clash) : impl_(std::make_unique<Impl>(on_clash)) {}
ResultMerger::~ResultMerger() = default;
void ResultMerger::Add(MergeInput input) { impl_->AddAny(input.name, input.file); }
void ResultMerger::Add(const std::string& name, ResultFile& file) { impl_->AddAny(name, file); }
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
