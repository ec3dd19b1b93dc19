// `pts-native run <ID>` end to end: resolve the result (saved, else cloned), plan it, ask what
// must be asked, install what the plan needs, run it through the runner's TestRunner (its loop,
// its saving after every test), fold stand-ins under the published results, print the
// side-by-side comparison, and upload when asked. Everything here is glue over the modules:
// resolve.h, plan.h, consent.h, append.h, compare.h, run::TestRunner, client::, taken as named
// steps in session.cc; those that decide or print without running anything are in session_steps.h.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "runner/targets/device_safety.h"

namespace ptsn::reproduce {

struct SessionOptions {
  std::string name;                   // result ID or saved result name
  std::vector<std::string> servers;   // --server (repeatable); empty = setting server.url
  std::string token;                  // --token, else setting server.token (upload only)
  bool dry_run = false;
  bool skip_unavailable = false;
  bool upload = false;
  bool non_interactive = false;
  bool offline = false;               // --offline (or setting network.offline): caches only
  bool no_monitor = false;            // --no-monitor: no sensors, not even those the published result recorded
  bool yes = false;                   // --yes: install missing Debian packages without asking
  int width = 79;                     // TERMINAL_WIDTH for the bars
  // Storage targets (docs/targets.md): "auto" = the published systems mapped to targets
  // (target_map.h); else a --targets list; "" = offered when the published systems are set-ups
  // this machine can build (session_steps.h OfferTargets), unless `no_targets` (--no-targets).
  std::string targets;
  bool no_targets = false;
  // --target-size; nullopt: sized for the tests that run on them (target_size.h).
  std::optional<uint64_t> target_size;
  bool targets_sequential = false;
  targets::DeviceFlags device;
  // finish-run: the system of the saved result whose missing tests are run (it is continued, not
  // reproduced: no identifier is asked and no "Reproduction of" note is added). "" = reproduce.
  std::string resume_identifier;
};

// Returns the exit code: 0 when every planned test produced a result, 1 when some failed (they
// are in the file with their error) or did not install (left out, named in the output), 130
// when interrupted. Throws ptsn::Error for anything that
// stops it before running (unknown ID, unavailable tests without consent, no identifier...).
int RunSession(const SessionOptions& options, std::ostream& out);

}  // namespace ptsn::reproduce
