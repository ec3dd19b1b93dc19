#include "runner/reproduce/append.h"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "results-xml/model/comparison_hash.h"
#include "results-xml/model/upsert.h"
#include "results-xml/views/export_common.h"
#include "runner/common/error.h"
#include "runner/common/strings.h"

namespace ptsn::reproduce {

namespace {

using Json = nlohmann::ordered_json;

Json ParseEntryJson(const std::optional<std::string>& text) {
  if (!text || Trim(*text).empty()) return Json::object();
  Json j = Json::parse(*text, nullptr, /*allow_exceptions=*/false);
  return j.is_object() ? j : Json::object();
}

// PHP json_encode: non-ASCII as \uXXXX and '/' as '\/' ('/' only occurs inside JSON strings).
std::string PtsJson(const Json& j) {
  std::string s = j.dump(-1, ' ', /*ensure_ascii=*/true);
  std::string out;
  for (char c : s) {
    if (c == '/') out += '\\';
    out += c;
  }
  return out;
}

void MarkEntry(results::Entry& e, const std::string& label, const std::string& scale_note,
               const std::string& for_hash = "") {
  Json j = ParseEntryJson(e.json);
  j[kStandInJsonKey] = label;
  if (!scale_note.empty()) j[results::kStandInScaleKey] = scale_note;
  if (!for_hash.empty()) j[kStandInForJsonKey] = for_hash;
  e.json = PtsJson(j);
}

// Both directions known and different (HIB vs LIB).
bool OppositeDirections(const std::string& a, const std::string& b) {
  return !Trim(a).empty() && !Trim(b).empty() && Trim(a) != Trim(b);
}

// A stand-in that measured in another unit or direction keeps Results of its own (own unit, own
// chart), marked and pointing at the original by hash, placed right after the original and its
// monitor children so every view shows them together — but never on the original's axis.
void KeepApart(results::ResultFile& file, const PlanItem& item, std::vector<size_t> stand_in_results,
               const std::string& identifier) {
  const size_t original = OriginalIndex(file, item);
  const std::string original_hash = results::ComparisonHash(file.results[original]);
  std::vector<size_t> taken = stand_in_results;
  for (size_t c : stand_in_results) {
    const std::string h = results::ComparisonHash(file.results[c]);
    for (size_t j = 0; j < file.results.size(); ++j)
      if (file.results[j].parent == h && std::find(taken.begin(), taken.end(), j) == taken.end()) taken.push_back(j);
  }
  std::sort(taken.begin(), taken.end());
  std::vector<results::Result> moved;
  for (size_t k : taken) {
    results::Result r = file.results[k];
    for (auto& e : r.entries)
      if (e.identifier == identifier) MarkEntry(e, item.stand_in_label, "", original_hash);
    moved.push_back(std::move(r));
  }
  for (auto it = taken.rbegin(); it != taken.rend(); ++it) file.results.erase(file.results.begin() + static_cast<std::ptrdiff_t>(*it));
  size_t at = OriginalIndex(file, item) + 1;
  while (at < file.results.size() && file.results[at].parent == original_hash) ++at;
  file.results.insert(file.results.begin() + static_cast<std::ptrdiff_t>(at), moved.begin(), moved.end());
}

// Replaces a trailing `from` in `s` by `to` (monitor children append the test's arguments).
std::string ReplaceSuffix(const std::string& s, const std::string& from, const std::string& to) {
  if (from.empty()) return to.empty() ? s : (EndsWith(s, " ") ? s + to : s + " " + to);
  if (!EndsWith(s, from)) return s;
  return s.substr(0, s.size() - from.size()) + to;
}

}  // namespace

size_t OriginalIndex(const results::ResultFile& file, const PlanItem& item) {
  if (!item.original_hash.empty()) {
    for (size_t i = 0; i < file.results.size(); ++i)
      if (results::ComparisonHash(file.results[i]) == item.original_hash) return i;
    return kNoResult;
  }
  return item.result_index < file.results.size() ? item.result_index : kNoResult;
}

bool HasValueFor(const results::ResultFile& file, size_t original, const std::string& identifier) {
  auto has_value = [&](const results::Entry& e) { return e.identifier == identifier && !e.value.empty(); };
  const auto& entries = file.results.at(original).entries;
  if (std::any_of(entries.begin(), entries.end(), has_value)) return true;
  const std::string hash = results::ComparisonHash(file.results[original]);
  return std::any_of(file.results.begin(), file.results.end(), [&](const results::Result& r) {
    return !r.parent && std::any_of(r.entries.begin(), r.entries.end(), [&](const results::Entry& e) {
      return has_value(e) && StandInForOf(e) == hash;
    });
  });
}

std::optional<std::string> StandInForOf(const results::Entry& entry) {
  return results::EntryJsonString(entry, kStandInForJsonKey);
}

bool LinesUp(const results::Result& stand_in, const results::Result& original) {
  return SameUnit(stand_in.scale, original.scale) && !OppositeDirections(stand_in.proportion, original.proportion);
}

std::optional<std::string> StandInOf(const results::Entry& entry) { return results::StandInMark(entry); }
std::optional<std::string> StandInScaleOf(const results::Entry& entry) {
  return results::EntryJsonString(entry, results::kStandInScaleKey);
}

void PutEntry(results::Result& result, results::Entry entry, const std::optional<std::string>& stand_in_label) {
  if (stand_in_label) MarkEntry(entry, *stand_in_label, "");
  for (auto& e : result.entries) {
    if (e.identifier == entry.identifier) {
      e = std::move(entry);
      return;
    }
  }
  result.entries.push_back(std::move(entry));
}

std::vector<results::Result> RelabelAsOriginal(const std::vector<results::Result>& produced,
                                               const results::Result& original, const std::string& label) {
  std::vector<results::Result> out;
  if (produced.empty()) return out;
  const results::Result& test = produced.front();
  std::string produced_hash = results::ComparisonHash(test);
  std::string original_hash = results::ComparisonHash(original);

  results::Result t = test;
  std::string scale_note = test.scale != original.scale ? test.scale : "";  // kept even for MiB/s vs MB/s
  t.identifier = original.identifier;
  t.title = original.title;
  t.app_version = original.app_version;
  t.arguments = original.arguments;
  t.description = original.description;
  t.scale = original.scale;
  t.proportion = original.proportion;
  for (auto& e : t.entries) MarkEntry(e, label, scale_note);
  out.push_back(std::move(t));

  for (size_t i = 1; i < produced.size(); ++i) {
    results::Result c = produced[i];
    if (c.parent && *c.parent == produced_hash) {
      c.parent = original_hash;
      c.title = original.title;
      c.app_version = original.app_version;
      c.arguments = ReplaceSuffix(c.arguments, Trim(test.arguments), Trim(original.arguments));
    }
    for (auto& e : c.entries) MarkEntry(e, label, "");
    out.push_back(std::move(c));
  }
  return out;
}

std::vector<std::string> FoldRunResults(results::ResultFile& file, const PlanItem& item,
                                        const std::vector<results::Result>& produced, const std::string& identifier) {
  std::vector<std::string> hashes;
  if (item.kind == PlanKind::kUnavailable) return hashes;
  const size_t original = OriginalIndex(file, item);
  if (original == kNoResult)
    throw Error("reproduce: plan item refers to result " + std::to_string(item.result_index + 1) +
                ", which the file does not hold (" + std::to_string(file.results.size()) + " results)");
  if (item.kind == PlanKind::kStandIn && !produced.empty() && !LinesUp(produced.front(), file.results[original])) {
    const size_t first = file.results.size();
    for (auto r : produced) {
      std::erase_if(r.entries, [&](const results::Entry& e) { return e.identifier != identifier; });
      if (!r.entries.empty()) file.results.push_back(std::move(r));
    }
    if (file.results.size() == first) return hashes;
    hashes.push_back(results::ComparisonHash(file.results[first]));
    KeepApart(file, item, {first}, identifier);
    return hashes;
  }
  std::vector<results::Result> filed =
      item.kind == PlanKind::kStandIn ? RelabelAsOriginal(produced, file.results[original], item.stand_in_label)
                                      : produced;
  results::ResultIndex index(file);
  for (auto& r : filed) {
    // Only this run's entries travel; whatever else the runner's result held stays out.
    std::erase_if(r.entries, [&](const results::Entry& e) { return e.identifier != identifier; });
    if (!r.entries.empty()) hashes.push_back(index.HashAt(index.Upsert(std::move(r))));
  }
  return hashes;
}

size_t FoldStandIns(results::ResultFile& file, const ReproducePlan& plan, const std::string& identifier) {
  size_t moved = 0;
  auto unfiled = [&](const results::Result& r) {
    return std::any_of(r.entries.begin(), r.entries.end(), [&](const results::Entry& e) {
      return e.identifier == identifier && !StandInOf(e);
    });
  };
  for (const auto& item : plan.items) {
    if (item.kind != PlanKind::kStandIn) continue;
    const size_t original = OriginalIndex(file, item);
    if (original == kNoResult) continue;
    // A stand-in may report several results (MiB/s, IOPS, latency); the one in the original's
    // unit lines up, the others stay under the stand-in's own name, marked.
    std::vector<size_t> candidates;
    for (size_t i = 0; i < file.results.size(); ++i) {
      const results::Result& r = file.results[i];
      if (r.identifier == item.profile && Trim(r.arguments) == Trim(item.arguments) && unfiled(r))
        candidates.push_back(i);
    }
    if (candidates.empty()) continue;
    const std::string want = file.results[original].scale;
    size_t chosen = candidates.front();
    for (size_t c : candidates)
      if (file.results[c].scale == want) { chosen = c; break; }
    if (file.results[chosen].scale != want)
      for (size_t c : candidates)
        if (SameUnit(file.results[c].scale, want)) { chosen = c; break; }
    if (!LinesUp(file.results[chosen], file.results[original])) {
      KeepApart(file, item, candidates, identifier);
      ++moved;
      continue;
    }

    for (size_t c : candidates)
      for (auto& e : file.results[c].entries)
        if (e.identifier == identifier && c != chosen) MarkEntry(e, item.stand_in_label, "");

    std::string h = results::ComparisonHash(file.results[chosen]);
    std::vector<size_t> taken = {chosen};
    for (size_t j = 0; j < file.results.size(); ++j)
      if (j != chosen && file.results[j].parent == h) taken.push_back(j);
    std::vector<results::Result> produced;
    for (size_t k : taken) produced.push_back(file.results[k]);
    // Take this system's entries out of the stand-in's own elements first, then file them.
    for (size_t k : taken)
      std::erase_if(file.results[k].entries, [&](const results::Entry& e) { return e.identifier == identifier; });
    FoldRunResults(file, item, produced, identifier);
    ++moved;
  }
  std::erase_if(file.results, [](const results::Result& r) { return r.entries.empty(); });
  return moved;
}

namespace {
void AddNote(results::System& system, const std::string& note) {
  std::string notes = system.notes.value_or("");
  if (notes.find(note) != std::string::npos) return;
  system.notes = notes.empty() ? note : notes + " " + note;
}
constexpr const char* kReproductionNote = "Reproduction of ";
}  // namespace

size_t FoldIntoOlderMonitorNames(results::ResultFile& file, const std::string& identifier) {
  static const std::string kMonitor = " Monitor";
  size_t moved = 0;
  for (size_t i = 0; i < file.results.size();) {
    const results::Result& r = file.results[i];
    // Ours only (another of our systems, a target, may have entries there too: each moves its own).
    const bool ours = std::any_of(r.entries.begin(), r.entries.end(), [&](const auto& e) { return e.identifier == identifier; });
    std::string name = EndsWith(r.description, kMonitor) ? r.description.substr(0, r.description.size() - kMonitor.size()) : "";
    size_t qualifier = name.rfind(" (");
    if (!r.identifier.empty() || !r.parent || !ours || qualifier == std::string::npos || name.back() != ')' ||
        !StartsWith(r.arguments, name)) {
      ++i;
      continue;
    }
    const std::string older = name.substr(0, qualifier);
    const std::string older_arguments = older + r.arguments.substr(name.size());
    auto target = std::find_if(file.results.begin(), file.results.end(), [&](const results::Result& q) {
      return q.identifier.empty() && q.parent == r.parent && q.scale == r.scale && q.description == older + kMonitor &&
             q.arguments == older_arguments &&
             std::none_of(q.entries.begin(), q.entries.end(), [&](const auto& e) { return e.identifier == identifier; });
    });
    if (target == file.results.end()) {
      ++i;
      continue;
    }
    std::vector<results::Entry>& entries = file.results[i].entries;
    for (auto e = entries.begin(); e != entries.end();) {
      if (e->identifier != identifier) {
        ++e;
        continue;
      }
      target->entries.push_back(*e);
      e = entries.erase(e);
    }
    if (entries.empty()) file.results.erase(file.results.begin() + static_cast<std::ptrdiff_t>(i));
    else ++i;
    ++moved;
  }
  return moved;
}

void NoteReproduction(results::System& system, const std::string& reproduced_name, const ReproducePlan& plan) {
  AddNote(system, kReproductionNote + reproduced_name + " by pts-native.");
  std::vector<std::string> labels;
  for (const auto& it : plan.items)
    if (it.kind == PlanKind::kStandIn) labels.push_back(it.stand_in_label);
  if (!labels.empty()) AddNote(system, "Stand-ins (not the original programs): " + Join(labels, "; ") + ".");
}

bool IsReproductionSystem(const results::System& system) {
  return system.notes && system.notes->find(kReproductionNote) != std::string::npos &&
         system.notes->find(" by pts-native.") != std::string::npos;
}

}  // namespace ptsn::reproduce
