// Turning a published result file into what this machine will run: one item per qualified
// result (non-empty Identifier, Arguments free of '; ', '&&', '|' — PTS's rule), each either the
// stored profile (newest same-major.minor version, as PTS substitutes), a declared stand-in, or
// unavailable with the reason. Pure: what profiles exist is asked through ProfileCatalog.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results-xml/model/result_file.h"
#include "runner/reproduce/stand_in.h"

namespace ptsn::reproduce {

// What this machine has. The real one reads the profile directories and the installer's state;
// tests pass a fake.
class ProfileCatalog {
 public:
  virtual ~ProfileCatalog() = default;
  // Every identifier "repo/name-x.y.z" of `base` ("pts/fs-mark") that is installed here.
  virtual std::vector<std::string> Installed(const std::string& base) const = 0;
  // Every identifier of `base` whose profile can be had here (local profile trees, caches).
  virtual std::vector<std::string> Available(const std::string& base) const = 0;
  // "" when `identifier` can be installed and run here; otherwise why not, in a few words
  // ("program fs_mark not found and no Debian package", "unsupported platform").
  virtual std::string WhyNotRunnable(const std::string& identifier) const = 0;
  // The Debian packages that must be installed before `identifier` can run (only asked for a
  // runnable one: a profile whose packages cannot be installed is not runnable).
  virtual std::vector<std::string> PackagesToInstall(const std::string& identifier) const {
    return (void)identifier, std::vector<std::string>{};
  }
};

enum class PlanKind { kOriginal, kStandIn, kUnavailable };

struct PlanItem {
  size_t result_index = 0;     // into ResultFile::results as planned
  std::string original_hash;   // the published Result's comparison hash: finds it after results were added
  PlanKind kind = PlanKind::kUnavailable;
  std::string original;        // stored Identifier, "pts/fs-mark-1.0.0"
  std::string profile;         // what runs: "pts/fs-mark-1.0.3" or the stand-in "native/fs-files-1.0.0"
  std::string arguments;       // passed to `profile`
  std::string description;     // option description for `profile`
  std::string stand_in_label;  // "native/fs-files-1.0.0 for pts/fs-mark-1.0" (stand-ins only)
  std::string note;            // the stand-in's Note
  std::string reason;          // unavailable: why; stand-in: why the original cannot run
  std::vector<std::string> packages;  // Debian packages installed before it runs
  // Original only: the stand-in to run instead if installing the original fails (at most one).
  std::vector<PlanItem> alternative;
};

struct NotRerun {
  size_t result_index = 0;
  std::string reason;  // "derived result (monitor)", "arguments contain '|'"
};

struct ReproducePlan {
  std::vector<PlanItem> items;     // file order (PTS keeps it when re-running a result file)
  std::vector<NotRerun> not_rerun; // results that are not tests and so are not re-run
  std::vector<const PlanItem*> Unavailable() const;
};

// One of the file's PreSetEnvironmentVariables ("MONITOR=cpu.usage;X=1" -> {MONITOR, cpu.usage}).
struct EnvVar {
  std::string name, value;
};
std::vector<EnvVar> ParsePresetEnvironment(const std::string& preset);

// The sensors whose monitor results the published file holds ("cpu.usage"), in file order: from
// a whole-run monitor's Arguments (PTS 3.x: "cpu.usage") or a test's monitor Description ("CPU
// Usage Monitor", "CPU Usage (Summary) Monitor"). A reproduction samples them (MONITOR) unless
// the user chose otherwise.
std::vector<std::string> PublishedSensors(const results::ResultFile& file);

// Why `file.results[i]` is not a test to re-run, or nullopt when it is one: a derived result
// (no test profile: monitors), arguments PTS refuses to re-run, or what a stand-in of an earlier
// reproduction produced (every entry marked: it runs again only with the test it stands in
// for). BuildPlan and the search for incomplete runs (consent.h) both ask this.
std::optional<std::string> NotATest(const results::ResultFile& file, size_t i);

ReproducePlan BuildPlan(const results::ResultFile& file, const ProfileCatalog& catalog,
                        const std::vector<StandInRule>& stand_ins);

// `original`'s stand-in alternative as the item to run, `why` the original could not.
PlanItem UseAlternative(const PlanItem& original, const std::string& why);

// The plan as the user sees it before anything runs (and what --dry-run prints).
std::string FormatPlan(const results::ResultFile& file, const ReproducePlan& plan);
// "5. IOzone 3.347 [Record Size: 64Kb - File Size: 8GB - Disk Test: Write Performance]"
std::string ItemHeading(const results::ResultFile& file, const PlanItem& item);

}  // namespace ptsn::reproduce
