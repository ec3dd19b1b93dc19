// PRESET_OPTIONS / PRESET_OPTIONS_VALUES ("test.option=choice;test2.option=choice"), checked:
// a malformed entry, an option the profile lacks or a choice no entry answers to is an Error
// naming the variable, the profile, the option and what it accepts, so a mistake stops a run
// before anything runs instead of silently running the default (PTS's behaviour).
//
// A PRESET_OPTIONS choice is a comma-separated list; each item is matched against the option's
// entries by Name first, then by the Name as descriptions show it (cut before "(...)"), then by
// Value (each exactly, then ignoring case), and only then as a 0-based index, and as an index
// only when no entry's Name or Value is a number ("threads=2" picks the entry named 2, never
// the third). "Test All Options" picks every entry. A PRESET_OPTIONS_VALUES choice is passed to
// the program verbatim (prefix + value + postfix), as PTS does. docs/presets.md says where this
// differs from PTS 10.8.6 and why.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/profile/options.h"
#include "runner/profile/test_profile.h"

namespace ptsn::profile {

struct Preset {
  std::string variable;   // "PRESET_OPTIONS" or "PRESET_OPTIONS_VALUES", for messages
  std::string text;       // the entry as given: "cipher.threads=2"
  std::string test;       // base name ("cipher") or identifier without version ("native/cipher")
  std::string option;     // the option's Identifier
  std::string choice;     // trimmed
  bool verbatim = false;  // PRESET_OPTIONS_VALUES
};

// The entries of one variable's value; empty entries (";;") are skipped. Throws Error
// "<variable>: 'garbage' is not test.option=choice" for anything else that is not that form.
std::vector<Preset> ParsePresets(const std::string& value, const std::string& variable, bool verbatim);
// Both variables, PRESET_OPTIONS first.
std::vector<Preset> ParsePresets(const std::string& preset_options, const std::string& preset_options_values);

// Whether the preset's test part names `p` (its base name or identifier without version).
bool PresetNames(const Preset& preset, const TestProfile& p);

// The entries `choice` selects (the rules above), ascending; nullopt, with the first item that
// matched nothing in `unmatched`, when an item selects nothing.
std::optional<std::vector<int>> SelectEntries(const TestOption& o, const std::string& choice,
                                              std::string* unmatched = nullptr);

// "AES-256-XTS (512-bit key), AES-128-XTS (256-bit key), ... (or their values aes-256-xts, ...)".
std::string AcceptedChoices(const TestOption& o);

// The picks the presets naming `p` make. Throws Error for an option `p` lacks or a choice that
// selects nothing, e.g. "PRESET_OPTIONS: native/cipher option threads has no entry '3' (accepts: 1, 2, 4)".
OptionPicks PicksFromPresets(const TestProfile& p, const std::vector<Preset>& presets);

// The PRESET_OPTIONS text that selects entry `index` of option `o` of `profile`, e.g.
// "fs-mark.test=1000 Files, 1MB Size": the Name when SelectEntries reads it back as that entry
// alone, else the Value, else the index; "name.option=VALUE" for a free-text option.
std::string PresetSyntax(const TestProfile& profile, const TestOption& o, int index);

}  // namespace ptsn::profile
