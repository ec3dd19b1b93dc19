#include "runner/profile/presets.h"

#include <algorithm>

#include "runner/common/error.h"
#include "runner/common/strings.h"
#include "runner/profile/php_compat.h"

namespace ptsn::profile {

namespace {

bool AllDigits(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return c >= '0' && c <= '9'; });
}

// The Name as descriptions show it: cut before a "(...)" part (OptionEntryDescription).
std::string ShortName(const std::string& name) {
  size_t cut = name.find('(');
  if (cut != std::string::npos && cut > 1 && name.find(')') != std::string::npos && name.find(')') > cut)
    return php::Trim(name.substr(0, cut));
  return name;
}

// The entry one item names; -1 when none does. Each rule is tried on every entry before the next.
int MatchItem(const TestOption& o, const std::string& item) {
  int count = static_cast<int>(o.entries.size());
  using Key = std::string (*)(const OptionEntry&);
  const Key keys[] = {[](const OptionEntry& e) { return php::Trim(e.name); },
                      [](const OptionEntry& e) { return ShortName(php::Trim(e.name)); },
                      [](const OptionEntry& e) { return php::Trim(e.value); }};
  for (bool fold : {false, true})
    for (Key key : keys)
      for (int i = 0; i < count; ++i) {
        std::string k = key(o.entries[i]);
        if (!k.empty() && (fold ? ToLower(k) == ToLower(item) : k == item)) return i;
      }
  // An index only where it cannot be mistaken for a Name or Value.
  bool numeric_entries = std::any_of(o.entries.begin(), o.entries.end(), [](const OptionEntry& e) {
    return php::IsNumericString(e.name) || php::IsNumericString(e.value);
  });
  if (!numeric_entries && AllDigits(item) && item.size() < 9 && std::stoi(item) < count) return std::stoi(item);
  return -1;
}

}  // namespace

std::vector<Preset> ParsePresets(const std::string& value, const std::string& variable, bool verbatim) {
  std::vector<Preset> out;
  for (const auto& raw : Split(value, ';')) {
    std::string text = Trim(raw);
    if (text.empty()) continue;
    auto bad = [&](const std::string& why) {
      return Error(variable + ": '" + text + "' is not test.option=choice (" + why + ")");
    };
    size_t eq = text.find('=');
    if (eq == std::string::npos) throw bad("no '='");
    std::string key = Trim(text.substr(0, eq)), choice = Trim(text.substr(eq + 1));
    size_t dot = key.rfind('.');
    if (dot == std::string::npos) throw bad("no '.' between the test and the option");
    Preset p{variable, text, Trim(key.substr(0, dot)), Trim(key.substr(dot + 1)), choice, verbatim};
    if (p.test.empty()) throw bad("no test name");
    if (p.option.empty()) throw bad("no option name");
    if (p.choice.empty()) throw bad("no choice after '='");
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<Preset> ParsePresets(const std::string& preset_options, const std::string& preset_options_values) {
  std::vector<Preset> out = ParsePresets(preset_options, "PRESET_OPTIONS", false);
  for (auto& p : ParsePresets(preset_options_values, "PRESET_OPTIONS_VALUES", true)) out.push_back(std::move(p));
  return out;
}

bool PresetNames(const Preset& preset, const TestProfile& p) {
  return preset.test == p.BaseName() || preset.test == p.IdentifierWithoutVersion() || preset.test == p.identifier;
}

std::optional<std::vector<int>> SelectEntries(const TestOption& o, const std::string& choice, std::string* unmatched) {
  std::vector<int> keys;
  std::string whole = php::Trim(choice);
  if (whole == "Test All Options") {
    for (int i = 0; i < static_cast<int>(o.entries.size()); ++i) keys.push_back(i);
    return keys;
  }
  // The whole choice first: Names may hold commas ("1000 Files, 1MB Size").
  if (int i = MatchItem(o, whole); i >= 0) return std::vector<int>{i};
  for (const auto& raw : Split(whole, ',')) {
    std::string item = php::Trim(raw);
    if (item.empty()) continue;
    int i = MatchItem(o, item);
    if (i < 0) {
      if (unmatched) *unmatched = item;
      return std::nullopt;
    }
    keys.push_back(i);
  }
  if (keys.empty()) {
    if (unmatched) *unmatched = whole;
    return std::nullopt;
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

std::string AcceptedChoices(const TestOption& o) {
  std::vector<std::string> names, values;
  bool values_differ = false;
  for (const auto& e : o.entries) {
    names.push_back(e.name);
    values.push_back(e.value.empty() ? "\"\"" : e.value);
    values_differ = values_differ || e.value != e.name;
  }
  return Join(names, ", ") + (values_differ ? " (or their values " + Join(values, ", ") + ")" : "");
}

OptionPicks PicksFromPresets(const TestProfile& p, const std::vector<Preset>& presets) {
  OptionPicks picks;
  for (const auto& preset : presets) {
    if (!PresetNames(preset, p)) continue;
    auto o = std::find_if(p.options.begin(), p.options.end(),
                          [&](const TestOption& each) { return each.identifier == preset.option; });
    std::string where = preset.variable + ": " + p.IdentifierWithoutVersion();
    if (o == p.options.end()) {
      std::vector<std::string> ids;
      for (const auto& each : p.options) ids.push_back(each.identifier);
      throw Error(where + " has no option '" + preset.option + "' (" +
                  (ids.empty() ? "it has no options" : "its options: " + Join(ids, ", ")) + ")");
    }
    OptionPick& pick = picks[o->identifier];
    pick = {};
    if (preset.verbatim || o->entries.empty()) {
      // Verbatim values; for PRESET_OPTIONS_VALUES a list, as PTS splits it.
      pick.values = preset.verbatim ? Split(preset.choice, ',') : std::vector<std::string>{preset.choice};
      continue;
    }
    std::string unmatched;
    auto entries = SelectEntries(*o, preset.choice, &unmatched);
    if (!entries)
      throw Error(where + " option " + o->identifier + " has no entry '" + unmatched + "' (accepts: " +
                  AcceptedChoices(*o) + ")");
    pick.entries = std::move(*entries);
  }
  return picks;
}

std::string PresetSyntax(const TestProfile& profile, const TestOption& o, int index) {
  std::string key = profile.BaseName() + "." + o.identifier + "=";
  if (index < 0 || index >= static_cast<int>(o.entries.size())) return key + "VALUE";
  // A candidate works when it reads back as this entry alone and survives the ';' split.
  auto works = [&](const std::string& text) {
    if (text.empty() || text.find(';') != std::string::npos || php::Trim(text) != text) return false;
    auto back = SelectEntries(o, text);
    return back && *back == std::vector<int>{index};
  };
  for (const std::string& candidate : {o.entries[index].name, o.entries[index].value})
    if (works(candidate)) return key + candidate;
  return key + std::to_string(index);
}

}  // namespace ptsn::profile
