#include "runner/profile/options.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <forward_list>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "runner/common/strings.h"
#include "runner/profile/php_compat.h"

namespace ptsn::profile {

namespace fs = std::filesystem;

namespace {

bool PhpEmpty(const std::string& s) { return s.empty() || s == "0"; }

bool ContainsI(const std::string& haystack, const std::string& needle) {
  return ToLower(haystack).find(ToLower(needle)) != std::string::npos;
}

// PHP trim_explode(): empty($s) gives no parts.
std::vector<std::string> TrimExplode(const std::string& s, char delimiter) {
  std::vector<std::string> out;
  if (PhpEmpty(s)) return out;
  for (const auto& p : Split(s, delimiter)) out.push_back(php::Trim(p));
  return out;
}

}  // namespace

std::string OptionEntryValue(const TestOption& o, int index) {
  std::string v = index >= 0 && index < static_cast<int>(o.entries.size()) ? o.entries[index].value : "";
  return o.prefix + v + o.postfix;
}

std::string OptionEntryDescription(const TestOption& o, int index) {
  std::string name = index >= 0 && index < static_cast<int>(o.entries.size()) ? o.entries[index].name : "";
  size_t cut = name.find('(');
  if (cut != std::string::npos && cut > 1) {
    size_t close = name.find(')');
    if (close != std::string::npos && close > cut) name = php::Trim(name.substr(0, cut));
  }
  if (o.display_name.empty() || name.empty()) return "";
  return o.display_name + ": " + name;
}

namespace {

// Depth-first over the parts with one growing buffer (PTS's recursive string concatenation).
void AppendCombinations(const std::vector<std::vector<std::string>>& parts, const std::string& delimiter,
                        size_t counter, std::string* current, std::vector<std::string>* out) {
  if (counter >= parts.size()) {
    out->push_back(current->empty() ? std::string() : php::Trim(*current));
    return;
  }
  size_t mark = current->size();
  bool delimit = !PhpEmpty(*current);  // PHP !empty(): "0" takes no delimiter either
  for (const auto& single : parts[counter]) {
    if (delimit) *current += delimiter;
    *current += single;
    AppendCombinations(parts, delimiter, counter + 1, current, out);
    current->resize(mark);
  }
}

}  // namespace

std::vector<std::string> ComputeAllCombinations(const std::vector<std::vector<std::string>>& parts,
                                                const std::string& delimiter) {
  std::vector<std::string> out;
  size_t total = 1;
  for (const auto& p : parts) total *= p.size();
  out.reserve(total);
  std::string current;
  AppendCombinations(parts, delimiter, 0, &current, &out);
  return out;
}

namespace {

// One chosen entry of an option: its argument (prefix . Value . postfix) and description
// ("DisplayName: Name", or nothing) as views into the options, so that building the pieces of a
// profile with thousands of combinations allocates nothing but the combinations themselves.
struct Piece {
  std::string_view arg[3];
  std::string_view desc[3];
};

// OptionEntryValue() and OptionEntryDescription() as a Piece.
Piece EntryPiece(const TestOption& o, int index) {
  bool in_range = index >= 0 && index < static_cast<int>(o.entries.size());
  std::string_view value = in_range ? std::string_view(o.entries[index].value) : std::string_view();
  std::string_view name = in_range ? std::string_view(o.entries[index].name) : std::string_view();
  size_t cut = name.find('(');
  if (cut != std::string_view::npos && cut > 1) {
    size_t close = name.find(')');
    if (close != std::string_view::npos && close > cut) name = php::TrimView(name.substr(0, cut));
  }
  Piece piece{{o.prefix, value, o.postfix}, {}};
  if (!o.display_name.empty() && !name.empty()) piece.desc[0] = o.display_name, piece.desc[1] = ": ", piece.desc[2] = name;
  return piece;
}

// The chosen entries of each option, in option order. `owned` keeps strings the views point to
// when they are not the options' own (PRESET_OPTIONS_VALUES pieces); a list never moves them.
struct Pieces {
  std::vector<std::vector<Piece>> levels;
  std::forward_list<std::string> owned;
};

// A piece's argument and description, each one string in the text of a Flat.
struct FlatPiece {
  std::string_view arg, desc;
};
struct Flat {
  std::string text;  // every piece's argument and description, back to back (never reallocated)
  std::vector<std::vector<FlatPiece>> levels;
};

// Each piece's parts joined once, so a combination appends one string per option, not three.
Flat Flatten(const Pieces& p) {
  size_t bytes = 0;
  for (const auto& level : p.levels)
    for (const Piece& piece : level)
      for (int i = 0; i < 3; ++i) bytes += piece.arg[i].size() + piece.desc[i].size();
  Flat flat;
  flat.text.reserve(bytes);  // the views below stay valid: nothing appended beyond this
  flat.levels.reserve(p.levels.size());
  for (const auto& level : p.levels) {
    auto& out = flat.levels.emplace_back();
    out.reserve(level.size());
    for (const Piece& piece : level) {
      size_t arg_at = flat.text.size();
      for (auto part : piece.arg) flat.text.append(part);
      size_t desc_at = flat.text.size();
      for (auto part : piece.desc) flat.text.append(part);
      out.push_back({std::string_view(flat.text).substr(arg_at, desc_at - arg_at),
                     std::string_view(flat.text).substr(desc_at)});
    }
  }
  return flat;
}

// PTS runs compute_all_combinations twice, over the arguments with " " and over the descriptions
// with " - "; both recursions have the same shape, so one depth-first walk builds a combination's
// two strings together (same delimiter and trim rules as AppendCombinations above).
void AppendRunOptions(const Flat& p, size_t level, std::string* args, std::string* desc, std::vector<RunOption>* out) {
  if (level == p.levels.size()) {
    out->push_back({std::string(php::TrimView(*args)), std::string(php::TrimView(*desc))});
    return;
  }
  size_t args_mark = args->size(), desc_mark = desc->size();
  bool delimit_args = !PhpEmpty(*args), delimit_desc = !PhpEmpty(*desc);
  for (const FlatPiece& piece : p.levels[level]) {
    if (delimit_args) *args += ' ';
    *args += piece.arg;
    if (delimit_desc) *desc += " - ";
    *desc += piece.desc;
    AppendRunOptions(p, level + 1, args, desc, out);
    args->resize(args_mark);
    desc->resize(desc_mark);
  }
}

std::vector<RunOption> Combine(const Pieces& p) {
  size_t total = 1;
  for (const auto& level : p.levels) total *= level.size();
  std::vector<RunOption> out;
  out.reserve(total);
  std::string args, desc;
  AppendRunOptions(Flatten(p), 0, &args, &desc, &out);
  return out;
}

}  // namespace

std::vector<RunOption> BatchOptions(const std::vector<TestOption>& options, const std::string& option_select) {
  std::map<std::string, std::vector<std::string>> selected;
  bool have_select = !PhpEmpty(option_select);
  if (have_select) {
    for (const auto& one : Split(option_select, ',')) {
      auto kv = TrimExplode(one, '=');
      if (kv.size() != 2) continue;
      selected[kv[0]].push_back(kv[1]);
    }
    have_select = !selected.empty();
  }
  Pieces pieces;
  pieces.levels.reserve(options.size());
  for (const auto& o : options) {
    std::vector<Piece>& level = pieces.levels.emplace_back();
    level.reserve(o.entries.size());
    auto sel = have_select ? selected.find(o.identifier) : selected.end();
    for (int i = 0; i < static_cast<int>(o.entries.size()); ++i) {
      if (sel != selected.end()) {
        std::string name = php::Trim(o.entries[i].name);
        bool hit = std::any_of(sel->second.begin(), sel->second.end(), [&](const std::string& v) {
          return php::LooseEquals(php::Value::Str(name), php::Value::Str(v));
        });
        if (!hit) continue;
      }
      level.push_back(EntryPiece(o, i));
    }
  }
  return Combine(pieces);
}

std::vector<RunOption> DefaultOptions(const std::vector<TestOption>& options) {
  Pieces pieces;
  pieces.levels.reserve(options.size());
  for (const auto& o : options) {
    // Both entries of a two-entry option, else the default one.
    int first = o.entries.size() == 2 ? 0 : o.DefaultIndex(), last = o.entries.size() == 2 ? 1 : first;
    std::vector<Piece>& level = pieces.levels.emplace_back();
    for (int i = first; i <= last; ++i) level.push_back(EntryPiece(o, i));
  }
  return Combine(pieces);
}

std::vector<RunOption> PickedOptions(const std::vector<TestOption>& options, const OptionPicks& picks,
                                     OpenOptions open, const std::string& subtitle) {
  Pieces pieces;
  pieces.levels.reserve(options.size());
  // A verbatim value and its "DisplayName: value" description (format_option_*_from_input).
  auto text_piece = [](const TestOption& o, std::string_view value) {
    Piece piece{{o.prefix, value, o.postfix}, {}};
    if (!o.display_name.empty() && !value.empty()) piece.desc[0] = o.display_name, piece.desc[1] = ": ", piece.desc[2] = value;
    return piece;
  };
  for (const auto& o : options) {
    std::vector<Piece>& level = pieces.levels.emplace_back();
    auto pick = picks.find(o.identifier);
    if (pick != picks.end() && !pick->second.values.empty()) {
      for (const auto& v : pick->second.values) level.push_back(text_piece(o, pieces.owned.emplace_front(v)));
    } else if (o.entries.empty()) {
      level.push_back(text_piece(o, std::string_view()));
    } else if (pick != picks.end() && !pick->second.entries.empty()) {
      for (int i : pick->second.entries) level.push_back(EntryPiece(o, i));
    } else if (open == OpenOptions::kEvery) {
      for (int i = 0; i < static_cast<int>(o.entries.size()); ++i) level.push_back(EntryPiece(o, i));
    } else {
      level.push_back(EntryPiece(o, o.DefaultIndex()));
    }
  }
  std::vector<RunOption> out = Combine(pieces);
  if (out.size() == 1 && out[0].arguments.empty() && out[0].description.empty() && !subtitle.empty())
    out[0].description = subtitle;
  return out;
}

std::string PtsTestArguments(const std::string& default_arguments, const std::string& extra_arguments,
                             const std::string& default_post_arguments) {
  std::string middle = !default_arguments.empty() && !PhpEmpty(extra_arguments)
                           ? php::StrReplace(extra_arguments, default_arguments, "")
                           : extra_arguments;
  return php::Trim(default_arguments + " " + middle + " " + default_post_arguments);
}

std::string PtsTestArguments(const TestProfile& profile, const std::string& extra_arguments) {
  return PtsTestArguments(profile.default_arguments, extra_arguments, profile.default_post_arguments);
}

// ---------------------------------------------------------------------------------------------
// Machine-dependent menus.

namespace {

// validate_test_arguments_compatibility: false when an entry Name asks for something absent.
// `lower` is scratch space, reused across entries.
bool EntryCompatible(const std::string& name, const MachineFacts& f, const std::vector<std::string>& deps,
                     std::string* lower) {
  // Lowercased once: PTS's stripos() checks, with a space appended for the "CUDA "/"ROCm " ones.
  // ASCII only, as std::tolower() in the C locale this program runs in (and PHP 8's stripos()).
  lower->assign(name);
  for (char& c : *lower) c = c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  *lower += ' ';
  std::string_view n(lower->data(), lower->size() - 1), spaced(*lower);
  auto has = [](std::string_view hay, std::string_view needle) { return hay.find(needle) != std::string_view::npos; };
  if ((has(n, "direct3d") || has(n, "d3d")) && f.os != "Windows" &&
      std::find(deps.begin(), deps.end(), "wine") == deps.end())
    return false;
  if (name.find("Apple ") != std::string::npos && f.os != "MacOSX") return false;
  if ((has(n, "nvidia ") || has(spaced, "cuda ")) && !ContainsI(f.gpu_model, "NVIDIA")) return false;
  if ((has(n, "radeon ") || has(spaced, "rocm ")) && !ContainsI(f.gpu_model, "AMD") && !ContainsI(f.gpu_model, "Radeon"))
    return false;
  // The machine facts first: on the usual machine most of these need no search at all.
  if (!f.opencl && has(n, "opencl")) return false;
  if (!f.vulkan && has(n, "vulkan")) return false;
  if (f.os != "Windows" && has(n, "windows")) return false;
  if (f.os != "Linux" && has(n, "linux")) return false;
  if (f.os != "MacOSX" && has(n, "macos ")) return false;
  if (f.arch != "x86_64" && has(n, "x86_64")) return false;
  return true;
}

// str_replace('$VIDEO_WIDTH', w) then str_replace('$VIDEO_HEIGHT', h), in one pass: the digits put
// in for the first cannot form or break an occurrence of the second.
std::string Replace2(std::string_view s, std::string_view w, std::string_view h) {
  constexpr std::string_view kWidth = "$VIDEO_WIDTH", kHeight = "$VIDEO_HEIGHT";
  std::string out;
  out.reserve(s.size());
  size_t pos = 0;
  for (size_t hit; (hit = s.find('$', pos)) != std::string_view::npos;) {
    std::string_view at = s.substr(hit);
    bool width = at.substr(0, kWidth.size()) == kWidth, height = !width && at.substr(0, kHeight.size()) == kHeight;
    out.append(s.substr(pos, hit - pos + (width || height ? 0 : 1)));
    if (width) out.append(w);
    if (height) out.append(h);
    pos = hit + (width ? kWidth.size() : height ? kHeight.size() : 1);
  }
  out.append(s.substr(pos));
  return out;
}

}  // namespace

std::vector<std::string> AutoProcessOptions(std::vector<TestOption>* options, const MachineFacts& f,
                                            const std::vector<std::string>& deps) {
  std::vector<std::string> errors;
  std::string lower;
  for (auto& o : *options) {
    std::vector<std::pair<std::string, std::string>> nv;  // name, value of the rebuilt entries
    const std::string& id = o.identifier;
    if (id == "auto-resolution" || id == "auto-resolution-wide") {
      if (o.entries.size() != 1) continue;  // left as it is
      std::vector<std::pair<int, int>> modes;
      if (id == "auto-resolution") {
        if (f.screen_resolution != std::pair<int, int>{-1, -1} && f.screen_resolution.first > 0) modes = f.screen_modes;
        if (modes.empty())
          modes = {{800, 600},   {1024, 768},  {1280, 768},  {1280, 960},  {1280, 1024}, {1366, 768}, {1400, 1050},
                   {1600, 900},  {1680, 1050}, {1600, 1200}, {1920, 1080}, {2560, 1600}, {3840, 2160}};
      } else {
        const std::pair<int, int> stock[] = {{1280, 960},  {1600, 1200}, {1280, 1024}, {1920, 1080}, {2560, 1080},
                                             {2560, 1440}, {2880, 1620}, {3840, 1600}, {4096, 2304}, {6144, 2560}};
        for (const auto& m : stock)
          if (m.first <= f.screen_resolution.first && m.second <= f.screen_resolution.second) modes.push_back(m);
      }
      for (const auto& [w, h] : modes) {
        std::string ws = std::to_string(w), hs = std::to_string(h);
        nv.emplace_back(Replace2(o.entries[0].name, ws, hs), Replace2(o.entries[0].value, ws, hs));
      }
    } else if (id == "auto-disk-mount-points") {
      nv.emplace_back("Default Test Directory", "");
      for (const auto& m : f.disk_mount_points) nv.emplace_back(m, m);
    } else if (id == "auto-disk-partitions") {
      for (const auto& p : f.disk_partitions) nv.emplace_back(p, p);
    } else if (id == "auto-disks") {
      for (const auto& d : f.disks) nv.emplace_back(d, d);
    } else if (id == "auto-removable-media") {
      for (const auto& e : o.entries) nv.emplace_back(e.name, e.value);
      for (const auto& m : f.removable_media) nv.emplace_back(m, m);
    } else if (id == "auto-file-select" || id == "auto-executable" || id == "auto-directory-select") {
      const auto& check = id == "auto-file-select" ? f.is_file : id == "auto-executable" ? f.is_executable : f.is_writable_dir;
      for (const auto& e : o.entries)
        if (check && check(e.value)) nv.emplace_back(e.name, e.value);
    } else if (id == "cpu-threads" || id == "cpu-physical-threads") {
      int n = id == "cpu-threads" ? f.logical_cores : f.physical_cores;
      bool has_n = false;
      for (int i = 1; i <= n; i *= 2) {
        nv.emplace_back(std::to_string(i), std::to_string(i));
        has_n = has_n || i == n;
      }
      if (!has_n) nv.emplace_back(std::to_string(n), std::to_string(n));
    } else if (id == "ram-capacity") {
      for (long long i = 32; i < f.memory_mb; i *= 2) {
        std::string pretty = i >= 1024 ? php::FloatToString(php::Round(static_cast<double>(i) / 1024, 0)) + "GB"
                                       : std::to_string(i) + "MB";
        nv.emplace_back(pretty, std::to_string(i));
      }
    } else {
      // Entries this machine cannot run are dropped; when every entry can run, nothing changes.
      std::vector<bool> keep(o.entries.size());
      bool had_fail = false;
      for (size_t i = 0; i < o.entries.size(); ++i) {
        keep[i] = EntryCompatible(o.entries[i].name, f, deps, &lower);
        had_fail = had_fail || !keep[i];
      }
      if (!had_fail) continue;
      for (size_t i = 0; i < o.entries.size(); ++i)
        if (keep[i]) nv.emplace_back(std::move(o.entries[i].name), std::move(o.entries[i].value));
      if (nv.empty()) errors.push_back("No supported options found for " + id);
    }
    // PTS rebuilds names and values but leaves the messages array untouched, so messages stay
    // attached to positions, not to entries.
    std::vector<OptionEntry> entries;
    entries.reserve(nv.size());
    for (size_t i = 0; i < nv.size(); ++i)
      entries.push_back({std::move(nv[i].first), std::move(nv[i].second),
                         i < o.entries.size() ? std::move(o.entries[i].message) : std::string()});
    o.entries = std::move(entries);
  }
  return errors;
}

MachineFacts DetectMachineFacts() {
  MachineFacts f;
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  f.logical_cores = n > 0 ? static_cast<int>(n) : 1;
  {
    std::ifstream in("/proc/cpuinfo");
    std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
    std::string line, phys = "0";
    while (std::getline(in, line)) {
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string key = Trim(line.substr(0, colon)), value = Trim(line.substr(colon + 1));
      if (key == "physical id") phys = value;
      if (key == "core id") cores.emplace(phys, value);
    }
    f.physical_cores = cores.empty() ? f.logical_cores : static_cast<int>(cores.size());
  }
  {
    std::ifstream in("/proc/meminfo");
    std::string key;
    long long kb = 0;
    while (in >> key >> kb) {
      if (key == "MemTotal:") {
        f.memory_mb = kb / 1024;
        break;
      }
      in.ignore(1 << 20, '\n');
    }
  }
  {
    std::ifstream in("/proc/mounts");
    std::string dev, mnt, type, rest;
    while (in >> dev >> mnt >> type && std::getline(in, rest)) {
      bool block = StartsWith(dev, "/dev/sd") || StartsWith(dev, "/dev/hd") || StartsWith(dev, "/dev/vd") ||
                   StartsWith(dev, "/dev/md") || StartsWith(dev, "/dev/nvme") || StartsWith(dev, "/dev/pmem") ||
                   StartsWith(dev, "/dev/mapper/") || type == "zfs";
      if (!block || mnt == "/boot" || mnt == "/boot/efi") continue;
      if (access(mnt.c_str(), W_OK) != 0) continue;
      if (std::find(f.disk_mount_points.begin(), f.disk_mount_points.end(), mnt) == f.disk_mount_points.end())
        f.disk_mount_points.push_back(mnt);
    }
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/dev", ec)) {
    std::string p = e.path().string(), name = e.path().filename().string();
    bool candidate = StartsWith(name, "sd") || StartsWith(name, "hd") || StartsWith(name, "vd") ||
                     StartsWith(name, "md") || StartsWith(name, "nvme") || StartsWith(name, "pmem");
    if (!candidate) continue;
    bool numeric_end = std::isdigit(static_cast<unsigned char>(name.back()));
    if (numeric_end) f.disk_partitions.push_back(p);
    if (!numeric_end || StartsWith(name, "md")) f.disks.push_back(p);
  }
  std::sort(f.disks.begin(), f.disks.end());
  std::sort(f.disk_partitions.begin(), f.disk_partitions.end());
  f.is_file = [](const std::string& p) {
    std::error_code e2;
    return fs::is_regular_file(p, e2);
  };
  f.is_executable = [](const std::string& p) { return access(p.c_str(), X_OK) == 0; };
  f.is_writable_dir = [](const std::string& p) {
    std::error_code e2;
    return fs::is_directory(p, e2) && access(p.c_str(), W_OK) == 0;
  };
  return f;
}

}  // namespace ptsn::profile
