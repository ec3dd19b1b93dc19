#include "runner/sysinfo/sysinfo.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "runner/common/strings.h"
#include "runner/sysinfo/pci.h"
#include "runner/sysinfo/phodevi_strings.h"

namespace ptsn::sysinfo {
namespace {

std::string ToUpper(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

std::string ReadTrimmed(const SystemReader& r, const std::string& path) {
  auto v = r.ReadFile(path);
  return v ? Trim(*v) : std::string();
}

// "none [mq-deadline] kyber" -> "mq-deadline"
std::string Bracketed(const std::string& s) {
  auto a = s.find('['), b = s.find(']');
  if (a == std::string::npos || b == std::string::npos || b < a) return Trim(s);
  return s.substr(a + 1, b - a - 1);
}

std::string CollapseSpaces(std::string s) {
  std::string out;
  for (char c : s)
    if (!(c == ' ' && (out.empty() || out.back() == ' '))) out += c;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string FormatGhz(double ghz) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fGHz", ghz);
  return buf;
}

std::string RoundedGB(uint64_t bytes) {
  return std::to_string(static_cast<uint64_t>(std::llround(bytes / 1073741824.0))) + "GB";
}

// Block device holding a partition: vda1 -> vda, nvme0n1p2 -> nvme0n1.
std::string WholeDisk(const SystemReader& r, std::string dev) {
  if (StartsWith(dev, "/dev/")) dev = dev.substr(5);
  if (dev.empty() || r.Exists("/sys/block/" + dev)) return dev;
  std::string d = dev;
  while (!d.empty() && std::isdigit(static_cast<unsigned char>(d.back()))) d.pop_back();
  if (!d.empty() && d.back() == 'p' && r.Exists("/sys/block/" + d.substr(0, d.size() - 1)))
    return d.substr(0, d.size() - 1);
  return r.Exists("/sys/block/" + d) ? d : dev;
}

// The name of a Graphics/Network device as PTS shows it: the vendor's first word and the
// device's name; "" when the database or the vendor is missing.
std::string PciName(const PciIds& ids, const std::string& vendor_hex, const std::string& device_hex) {
  std::string v = ToLower(vendor_hex.substr(vendor_hex.rfind('x') + 1));
  std::string d = ToLower(device_hex.substr(device_hex.rfind('x') + 1));
  const std::string vendor = ids.Vendor(v);
  if (vendor.empty()) return "";
  const std::string device = ids.Device(v, d), first = Split(vendor, ' ')[0];
  return device.empty() ? first : first + " " + device;
}

std::string PciDevicesOf(const SystemReader& r, const std::string& cls_dir, const std::string& name_prefix) {
  std::vector<std::string> names;
  auto ids = PciIds::Load(r);
  if (!ids) return "";
  for (const auto& e : r.ListDir(cls_dir)) {
    if (!name_prefix.empty() && !StartsWith(e, name_prefix)) continue;
    if (e.find('-') != std::string::npos) continue;  // card0-HDMI-A-1 connectors
    std::string base = cls_dir + "/" + e + "/device/";
    std::string vendor = ReadTrimmed(r, base + "vendor"), device = ReadTrimmed(r, base + "device");
    if (vendor.empty() || device.empty()) continue;
    std::string n = PciName(*ids, vendor, device);
    if (!n.empty() && std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  return Join(names, " + ");
}

// pts_strings::is_version(): digits and dots only, with at least one dot.
bool IsVersion(const std::string& s) {
  return s.find('.') != std::string::npos && s.find_first_not_of("0123456789.") == std::string::npos;
}

std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

// "Clang 14.0.6" from `clang --version` ("Debian clang version 14.0.6\nTarget: ..."): the word
// after "clang version" (suffixes such as "-1ubuntu1" kept, as PTS keeps them); its first line
// when it says no version; `clang -dumpversion` when it says nothing.
std::string ClangVersion(const SystemReader& r, const std::string& text) {
  std::string info;
  if (auto at = ToLower(text).find("clang version"); at != std::string::npos) {
    std::string rest = text.substr(at + 14);
    for (char& ch : rest)
      if (ch == '\n') ch = ' ';
    info = "Clang " + rest.substr(0, rest.find(' '));
  } else if (!Trim(text).empty()) {
    info = FirstLine(text);
  }
  if (Trim(info).empty() || ToLower(info).find("not found") != std::string::npos) {
    auto dump = r.RunCommand({"clang", "-dumpversion"});
    info = "Clang " + (dump ? Trim(*dump) : std::string());
  }
  return info;
}

// "LLVM 14.0.6": the last word of the line of `llvm-link -version` that says "version" (without
// llvm-link, `llvm-config --version`).
std::string LlvmVersion(const SystemReader& r) {
  if (auto out = r.RunCommand({"llvm-link", "-version"})) {
    std::string info = Trim(*out);
    auto at = info.find("version");
    if (at == std::string::npos || at == 0) return "";
    info = info.substr(0, info.find('\n', at));
    info = info.substr(info.rfind(' ') + 1);
    std::string plain = info;
    for (auto p = plain.find("svn"); p != std::string::npos; p = plain.find("svn")) plain.erase(p, 3);
    return IsVersion(plain) ? "LLVM " + info : "";
  }
  if (auto out = r.RunCommand({"llvm-config", "--version"})) {
    std::string info = Trim(*out), plain = info;
    for (auto p = plain.find("svn"); p != std::string::npos; p = plain.find("svn")) plain.erase(p, 3);
    return IsVersion(plain) ? "LLVM " + info : "";
  }
  return "";
}

// "CUDA 13.0" from nvcc's "... release 13.0, V13.0.88"; nvcc in PATH or where the CUDA Toolkit
// installs it by default (/usr/local/cuda/bin, often not in PATH).
std::string CudaVersion(const SystemReader& r) {
  auto out = r.RunCommand({"nvcc", "--version"});
  if (!out) out = r.RunCommand({"/usr/local/cuda/bin/nvcc", "--version"});
  if (!out) return "";
  auto at = out->find("release ");
  if (at == std::string::npos) return "";
  std::string v;
  for (char ch : out->substr(at + 8))
    if (ch != ',') v += ch;
  v = v.substr(0, v.find_first_of(" \n"));
  return IsVersion(v) ? "CUDA " + v : "";
}

}  // namespace

std::string CompilerString(const SystemReader& r) {
  // phodevi_system::sw_compiler(), keyed as PTS keys them, in its order.
  std::vector<std::pair<std::string, std::string>> found;
  if (auto gcc = r.RunCommand({"gcc", "-dumpfullversion"}); gcc && !Trim(*gcc).empty())
    found.emplace_back("gcc", "GCC " + Trim(*gcc));
  if (auto clang = r.RunCommand({"clang", "--version"})) found.emplace_back("clang", ClangVersion(r, *clang));
  if (auto llvm = LlvmVersion(r); !llvm.empty()) found.emplace_back("llvmc", llvm);
  if (auto cuda = CudaVersion(r); !cuda.empty()) found.emplace_back("CUDA", cuda);
  // The compiler $CC names goes first.
  for (const auto& [name, value] : r.Environment()) {
    if (name != "CC") continue;
    std::string first = Trim(value).substr(0, Trim(value).find(' '));
    std::string base = first.substr(first.rfind('/') + 1);
    auto it = std::find_if(found.begin(), found.end(), [&](const auto& f) { return f.first == base; });
    if (it != found.end()) std::rotate(found.begin(), it, it + 1);
  }
  std::vector<std::string> out;
  for (const auto& [key, value] : found)
    if (std::find(out.begin(), out.end(), value) == out.end()) out.push_back(value);  // array_unique
  return Join(out, " + ");
}

std::string SecurityFeatures(const SystemReader& r) {
  // phodevi_system::sw_security_features() on Linux: SELinux when enforcing, then each CPU
  // vulnerability file, shortened as PTS shortens it.
  std::vector<std::string> security;
  if (auto se = r.RunCommand({"getenforce"}); se && se->find("Enforcing") != std::string::npos)
    security.push_back("SELinux");
  for (const auto& v : r.ListDir("/sys/devices/system/cpu/vulnerabilities")) {
    std::string state = ReadTrimmed(r, "/sys/devices/system/cpu/vulnerabilities/" + v);
    state = ReplaceAll(state, "Mitigation: ", "Mitigation of ");
    state = ReplaceAll(state, "Speculative Store Bypass", "SSB");
    state = ReplaceAll(state, " + ", " plus ");
    if (!state.empty()) security.push_back(v + ": " + state);
  }
  return Join(security, " + ");
}

CpuInfo ReadCpu(const SystemReader& r) {
  CpuInfo cpu;
  auto text = r.ReadFile("/proc/cpuinfo");
  std::set<std::pair<std::string, std::string>> cores;
  std::set<std::string> sockets;
  std::string physical_id = "0";
  if (text) {
    for (const auto& line : Split(*text, '\n')) {
      auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string key = Trim(line.substr(0, colon)), value = Trim(line.substr(colon + 1));
      if (key == "processor") cpu.logical++;
      else if (key == "model name" && cpu.model.empty()) cpu.model = value;
      else if (key == "physical id") {
        physical_id = value;
        sockets.insert(value);
      } else if (key == "core id") cores.insert({physical_id, value});
      else if (key == "microcode" && cpu.microcode.empty()) cpu.microcode = value;
    }
  }
  cpu.physical = cores.empty() ? cpu.logical : static_cast<int>(cores.size());
  cpu.sockets = sockets.empty() ? 1 : static_cast<int>(sockets.size());
  std::smatch m;
  static const std::regex at_ghz(R"(@\s*([0-9.]+)\s*GHz)");
  if (std::regex_search(cpu.model, m, at_ghz)) cpu.max_ghz = std::stod(m[1]);
  std::string khz = ReadTrimmed(r, "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  if (!khz.empty()) cpu.max_ghz = std::stod(khz) / 1e6;
  // Marketing noise PTS also strips from the model name.
  std::string s = std::regex_replace(cpu.model, std::regex(R"(\((R|TM|r|tm)\))"), "");
  s = std::regex_replace(s, at_ghz, "");
  s = std::regex_replace(s, std::regex(R"(\b(CPU|Processor)\b)"), "");
  cpu.model = CollapseSpaces(Trim(s));
  return cpu;
}

OsRelease ReadOsRelease(const SystemReader& r) {
  OsRelease os;
  auto text = r.ReadFile("/etc/os-release");
  if (!text) text = r.ReadFile("/usr/lib/os-release");
  std::map<std::string, std::string> kv;
  if (text)
    for (const auto& line : Split(*text, '\n')) {
      auto eq = line.find('=');
      if (eq == std::string::npos) continue;
      std::string v = Trim(line.substr(eq + 1));
      if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'')) v = v.substr(1, v.size() - 2);
      kv[Trim(line.substr(0, eq))] = v;
    }
  os.id = kv["ID"];
  os.version_id = kv["VERSION_ID"];
  // PTS shows the distribution's short name and version: "Debian 12", "Ubuntu 22.04".
  std::string name = kv["NAME"];
  for (const char* noise : {" GNU/Linux", " Linux"}) {
    auto p = name.find(noise);
    if (p != std::string::npos && name != "Arch Linux") name.erase(p);
  }
  os.name = Trim(name + " " + os.version_id);
  return os;
}

long MemoryMegabytes(const SystemReader& r) {
  auto text = r.ReadFile("/proc/meminfo");
  if (!text) return 0;
  for (const auto& line : Split(*text, '\n'))
    if (StartsWith(line, "MemTotal:")) return std::stol(Trim(line.substr(9))) / 1024;
  return 0;
}

std::string Architecture(const SystemReader& r) {
  std::string arch = ReadTrimmed(r, "/proc/sys/kernel/arch");
  if (arch.empty()) {
    auto out = r.RunCommand({"uname", "-m"});
    if (out) arch = Trim(*out);
  }
  return arch;
}

namespace {

// Mount points in /proc/self/mountinfo and /proc/mounts escape space, tab, newline and '\' as
// octal ("\040").
std::string UnescapeMountField(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    auto octal = [&](size_t at) { return at < s.size() && s[at] >= '0' && s[at] <= '7'; };
    if (s[i] == '\\' && octal(i + 1) && octal(i + 2) && octal(i + 3)) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 3), nullptr, 8));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Mount options without repeats, in first-seen order.
std::string MergeOptions(const std::string& a, const std::string& b) {
  std::vector<std::string> out;
  for (const auto* list : {&a, &b})
    for (const auto& o : Split(*list, ','))
      if (!o.empty() && std::find(out.begin(), out.end(), o) == out.end()) out.push_back(o);
  return Join(out, ",");
}

}  // namespace

MountInfo MountFor(const SystemReader& r, const std::string& path) {
  // /proc/self/mountinfo: "36 35 98:0 /root /mnt rw,noatime shared:1 - ext4 /dev/sda1 rw,errors=continue"
  // (per-mount options, then the file system's own after " - "); /proc/mounts where it is absent.
  std::vector<MountInfo> mounts;
  if (auto info = r.ReadFile("/proc/self/mountinfo")) {
    for (const auto& line : Split(*info, '\n')) {
      auto f = Split(line, ' ');
      auto dash = std::find(f.begin(), f.end(), "-");
      if (f.size() < 6 || dash == f.end() || f.end() - dash < 4) continue;
      mounts.push_back({UnescapeMountField(dash[2]), UnescapeMountField(f[4]), dash[1], MergeOptions(f[5], dash[3])});
    }
  } else if (auto text = r.ReadFile("/proc/mounts")) {
    for (const auto& line : Split(*text, '\n')) {
      auto f = Split(line, ' ');
      if (f.size() >= 4) mounts.push_back({UnescapeMountField(f[0]), UnescapeMountField(f[1]), f[2], f[3]});
    }
  }
  // The longest mount point covering the path; of equal ones the later, which is mounted over.
  MountInfo best;
  for (const auto& m : mounts) {
    bool covers = path == m.mount_point || m.mount_point == "/" || StartsWith(path, m.mount_point + "/");
    if (covers && m.mount_point.size() >= best.mount_point.size()) best = m;
  }
  return best;
}

Components HardwareComponents(const SystemReader& r) {
  Components c;
  CpuInfo cpu = ReadCpu(r);
  if (!cpu.model.empty()) {
    std::string p = (cpu.sockets > 1 ? std::to_string(cpu.sockets) + " x " : "") + cpu.model;
    if (cpu.max_ghz > 0) p += " @ " + FormatGhz(cpu.max_ghz);
    p += " (" + std::to_string(cpu.physical) + " Cores";
    if (cpu.logical != cpu.physical) p += " / " + std::to_string(cpu.logical) + " Threads";
    c.push_back({"Processor", p + ")"});
  }
  std::string board = CollapseSpaces(ReadTrimmed(r, "/sys/class/dmi/id/board_vendor") + " " +
                                     ReadTrimmed(r, "/sys/class/dmi/id/board_name"));
  if (!board.empty()) {
    std::string bios = ReadTrimmed(r, "/sys/class/dmi/id/bios_version");
    c.push_back({"Motherboard", board + (bios.empty() ? "" : " (" + bios + " BIOS)")});
  }
  std::string lspci = LspciListing(r);
  std::string chipset = ChipsetString(lspci);
  if (!chipset.empty()) c.push_back({"Chipset", chipset});
  long mb = MemoryMegabytes(r);
  if (mb > 0) c.push_back({"Memory", std::to_string(std::lround(mb / 1024.0)) + "GB"});
  // Physical disks with a model name; without any (virtio, containers) PTS reports the size of
  // the root file system.
  std::vector<std::string> disks;
  for (const auto& dev : r.ListDir("/sys/block")) {
    if (StartsWith(dev, "loop") || StartsWith(dev, "ram") || StartsWith(dev, "zram") || StartsWith(dev, "dm-"))
      continue;
    std::string model = CollapseSpaces(ReadTrimmed(r, "/sys/block/" + dev + "/device/model"));
    std::string sectors = ReadTrimmed(r, "/sys/block/" + dev + "/size");
    if (model.empty() || sectors.empty()) continue;
    // Drives are sold in decimal gigabytes and PTS shows them so ("500GB", "2000GB").
    uint64_t gb = static_cast<uint64_t>(std::llround(std::stoull(sectors) * 512 / 1e9));
    disks.push_back(std::to_string(gb) + "GB " + model);
  }
  if (disks.empty()) {
    if (auto fsinfo = r.StatFileSystem("/")) disks.push_back(RoundedGB(fsinfo->total_bytes));
  }
  if (!disks.empty()) c.push_back({"Disk", Join(disks, " + ")});
  std::string gpu = PciDevicesOf(r, "/sys/class/drm", "card");
  if (!gpu.empty()) c.push_back({"Graphics", gpu});
  std::string audio = AudioString(r, lspci);
  if (!audio.empty()) c.push_back({"Audio", audio});
  std::string monitor = MonitorString(r);
  if (!monitor.empty()) c.push_back({"Monitor", monitor});
  std::string net = PciDevicesOf(r, "/sys/class/net", "");
  if (!net.empty()) c.push_back({"Network", net});
  return c;
}

Components SoftwareComponents(const SystemReader& r, const std::string& test_dir) {
  Components c;
  OsRelease os = ReadOsRelease(r);
  if (!os.name.empty()) c.push_back({"OS", os.name});
  std::string kernel = ReadTrimmed(r, "/proc/sys/kernel/osrelease");
  if (!kernel.empty()) {
    std::string arch = Architecture(r);
    c.push_back({"Kernel", kernel + (arch.empty() ? "" : " (" + arch + ")")});
  }
  std::string compilers = CompilerString(r);
  if (!compilers.empty()) c.push_back({"Compiler", compilers});
  MountInfo mount = MountFor(r, test_dir);
  if (!mount.type.empty()) c.push_back({"File-System", mount.type});
  // Containers first (what the benchmark really runs in), then the hypervisor.
  std::string layer;
  if (r.Exists("/.dockerenv")) layer = "docker";
  else if (r.Exists("/run/.containerenv")) layer = "podman";
  else {
    std::string product = ReadTrimmed(r, "/sys/class/dmi/id/product_name");
    std::string vendor = ReadTrimmed(r, "/sys/class/dmi/id/sys_vendor");
    for (const char* hv : {"KVM", "QEMU", "VMware", "VirtualBox", "Xen", "Bochs"})
      if (product.find(hv) != std::string::npos || vendor.find(hv) != std::string::npos) layer = hv;
    if (layer.empty() && vendor == "Microsoft Corporation" && product == "Virtual Machine") layer = "Microsoft Hyper-V";
  }
  if (!layer.empty()) c.push_back({"System Layer", layer});
  return c;
}

std::string JoinComponents(const Components& c) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : c) parts.push_back(k + ": " + v);
  return Join(parts, ", ");
}

std::string SystemNotesJson(const SystemReader& r, const std::string& test_dir, bool include_disk_notes) {
  nlohmann::ordered_json notes = nlohmann::ordered_json::object();
  auto put = [&](const char* key, const std::string& value) {
    if (!value.empty()) notes[key] = value;
  };
  if (include_disk_notes) {
    MountInfo mount = MountFor(r, test_dir);
    std::string disk = WholeDisk(r, mount.device);
    if (!disk.empty()) put("disk-scheduler", ToUpper(Bracketed(ReadTrimmed(r, "/sys/block/" + disk + "/queue/scheduler"))));
    auto opts = Split(mount.options, ',');
    std::sort(opts.begin(), opts.end());
    put("disk-mount-options", Join(opts, ","));
    if (auto fsinfo = r.StatFileSystem(mount.mount_point.empty() ? test_dir : mount.mount_point);
        fsinfo && fsinfo->block_size)
      put("disk-details", "Block Size: " + std::to_string(fsinfo->block_size));
    // Ours: which file system the disk tests measured (PTS shows an unknown key as its words).
    if (!mount.type.empty())
      put("disk-file-system", mount.type + " on " + mount.device + " at " + mount.mount_point);
  }
  std::string driver = ReadTrimmed(r, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_driver");
  std::string governor = ReadTrimmed(r, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  put("cpu-scaling-governor", Trim(driver + " " + governor));
  put("cpu-microcode", ReadCpu(r).microcode);
  std::string thp = ReadTrimmed(r, "/sys/kernel/mm/transparent_hugepage/enabled");
  if (!thp.empty()) put("kernel-extra-details", "Transparent Huge Pages: " + Bracketed(thp));
  put("environment-variables", EnvironmentVariablesNote(r.Environment()));
  put("security", SecurityFeatures(r));
  if (notes.empty()) return "";
  return PhpEscapeSlashes(notes.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

std::string EnvironmentVariablesNote(const std::vector<std::pair<std::string, std::string>>& env) {
  // phodevi_system::sw_environment_variables(): names containing one of these (any case) are
  // the tuning knobs that change results (compiler flags, GL/driver debug switches, perf knobs).
  static const char* kMarkers[] = {"libgl", "__gl", "dri_", "debug", "flags", "perf_", "perftest"};
  std::vector<std::string> out;
  for (const auto& [name, raw] : env) {
    if (name == "__GL_SYNC_TO_VBLANK" || name.find("GJS") != std::string::npos ||
        name.find("DEBUGINFO") != std::string::npos)
      continue;
    std::string lower = ToLower(name);
    bool match = false;
    for (const char* m : kMarkers) match |= lower.find(m) != std::string::npos;
    if (!match) continue;
    std::string value = Trim(raw);
    if (value.find(' ') != std::string::npos) value = "\"" + value + "\"";
    std::string item = name + "=" + value;
    if (std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  }
  return Join(out, " ");
}

std::string EnvironmentVariablesLog(const std::vector<std::pair<std::string, std::string>>& env) {
  std::string out;
  for (const char* wanted : {"PATH", "CFLAGS", "CXXFLAGS", "LD_LIBRARY_PATH", "CC", "CXX", "LIBGL_DRIVERS_PATH"})
    for (const auto& [name, value] : env)
      if (name == wanted && !value.empty()) {
        out += name + "=" + value + "\n";
        break;
      }
  return out;
}

std::string PhpEscapeSlashes(const std::string& json) {
  std::string out;
  for (char ch : json) {
    if (ch == '/') out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace ptsn::sysinfo
