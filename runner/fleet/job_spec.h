// What a fleet job runs, as the server stores it and sends it to agents: test profiles or
// suites by name, PRESET_OPTIONS, FORCE_TIMES_TO_RUN. Never a command line: an agent builds the
// run itself from these fields after checking them (CheckJobSpec here, then against the
// profiles it knows). Shared by the server, `pts-native schedule` and `pts-native agent`.
#pragma once

#include <string>
#include <vector>

namespace ptsn::fleet {

struct JobSpec {
  std::vector<std::string> tests;  // "native/cipher", "pts/fio-2.1.0", a suite name
  std::string presets;             // PRESET_OPTIONS: "cipher.cipher=AES-256-XTS;cipher.threads=1"
  int times = 0;                   // FORCE_TIMES_TO_RUN; 0 = the profile's own count
};

// Throws ptsn::Error naming the field: no tests, more than 32, a name that is not
// [A-Za-z0-9._-]+ with at most one '/' (no paths, no "..", no leading '-'), presets that are
// not "test.option=choice" entries or hold control characters, times outside 0..100.
void CheckJobSpec(const JobSpec& spec);

// {"tests": [...], "presets": "...", "times": N}
std::string JobSpecToJson(const JobSpec& spec);
// Parses and checks (CheckJobSpec); throws ptsn::Error with the reason.
JobSpec JobSpecFromJson(const std::string& json);

// A machine name (also an agent's System identifier): 1-64 of [A-Za-z0-9_.-]. Throws ptsn::Error.
void CheckMachineName(const std::string& name);

// "all", "tag:NAME" or "name1,name2": throws ptsn::Error for anything else.
void CheckMachineSelector(const std::string& selector);

}  // namespace ptsn::fleet
