#include "runner/monitor/sensors.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "runner/monitor/proc_parse.h"

namespace ptsn::monitor {

const char* MonitorModeName(MonitorMode mode) { return mode == MonitorMode::kPts ? "pts" : "native"; }

const std::vector<SensorKind>& SensorKinds() {
  // type, sensor, unit, decimals, windowed, PTS window, in "all", devices
  // In PTS's order (sensor classes grouped by type, alphabetically), which is the order of the
  // monitor results after each test.
  static const std::vector<SensorKind> kinds = {
      {"cgroup", "cpu-usage", "Percent", 2, true, 0.5, false, false},
      {"cpu", "freq", "Megahertz", 2, false, 0, true, true},
      {"cpu", "power", "Watts", 2, true, 1.0, true, false},
      {"cpu", "temp", "Celsius", 2, false, 0, true, false},
      {"cpu", "usage", "Percent", 2, true, 0.5, true, true},
      {"hdd", "read-speed", "MB/s", 2, true, 1.0, true, true},
      {"hdd", "write-speed", "MB/s", 2, true, 1.0, true, true},
      {"memory", "usage", "Megabytes", 0, false, 0, true, false},
      {"swap", "usage", "Megabytes", 0, false, 0, true, false},
      {"sys", "iowait", "Percent", 2, true, 1.0, true, false},
      {"sys", "power", "Watts", 2, false, 0, true, false},
      {"sys", "temp", "Celsius", 2, false, 0, true, false},
  };
  return kinds;
}

const SensorKind* FindSensorKind(std::string_view type, std::string_view sensor) {
  for (const auto& k : SensorKinds())
    if (k.type == type && k.sensor == sensor) return &k;
  return nullptr;
}

namespace {

// PHP ucwords: upper-case the first letter of each space-separated word.
std::string UcWords(std::string s) {
  bool start = true;
  for (char& c : s) {
    if (start && std::isalpha(static_cast<unsigned char>(c))) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    start = c == ' ';
  }
  return s;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

std::string SensorDisplayName(const SensorKind& kind) {
  std::string type = kind.type.size() < 4 ? Upper(std::string(kind.type)) : UcWords(std::string(kind.type));
  if (type == "SYS") type = "System";
  if (type == "HDD") type = "Drive";
  std::string sensor;
  if (kind.sensor == "temp") sensor = "Temperature";
  else if (kind.sensor == "freq") sensor = "Frequency";
  else if (kind.sensor == "memory") sensor = "Memory Usage";
  else if (kind.sensor == "power") sensor = "Power Consumption";
  else {
    sensor = std::string(kind.sensor);
    std::replace(sensor.begin(), sensor.end(), '-', ' ');
    sensor = UcWords(sensor);
  }
  return type + " " + sensor;
}

namespace {

constexpr double kUserHzMicros = 10000;  // /proc/stat ticks are USER_HZ = 100 on every Linux ABI

uint64_t SumColumns(const CpuTimes& t, int count) {
  uint64_t sum = 0;
  for (int i = 0; i < count; ++i) sum += t.v[i];
  return sum;
}

// A windowed reader's bookkeeping: the previous reading and whether there is one.
template <typename Counters>
struct Window {
  Counters previous{};
  double previous_time = 0;
  bool primed = false;
};

// Successive readings of one /proc/stat line and the rules that make two of them comparable.
class CpuStatWindow {
 public:
  CpuStatWindow(const SysRoot& root, int cpu) : stat_(root, "/proc/stat"), cpu_(cpu) {}

  void Prime() {
    CpuTimes ignored;
    Next(&ignored);
  }

  // Reads the line; true with the per-column growth since the previous reading when that
  // reading exists and is comparable. The next window starts here either way.
  bool Next(CpuTimes* delta) {
    CpuTimes current;
    auto text = stat_.Read();
    if (!text || !ParseProcStatCpu(*text, cpu_, &current)) {
      primed_ = false;  // an offline CPU has no line: start afresh when it returns
      return false;
    }
    // The summary line sums the online CPUs only: when one goes offline or comes back, the
    // line jumps by that CPU's whole history.
    int online = cpu_ < 0 ? CountProcStatCpus(*text) : 0;
    bool comparable = primed_ && online == online_;
    CpuTimes previous = previous_;
    previous_ = current;
    online_ = online;
    primed_ = true;
    if (!comparable) return false;
    // Single columns (iowait) can step back a little: clamp those to 0.
    for (int i = 0; i < kCpuColumns; ++i) delta->v[i] = current.v[i] >= previous.v[i] ? current.v[i] - previous.v[i] : 0;
    delta->columns = current.columns;
    return true;
  }

 private:
  PolledFile stat_;
  int cpu_;
  CpuTimes previous_;
  int online_ = 0;
  bool primed_ = false;
};

class CpuUsageReader : public SensorReader {
 public:
  CpuUsageReader(const SysRoot& root, int cpu, MonitorMode mode) : window_(root, cpu), mode_(mode) {}
  void Prime(double) override { window_.Prime(); }
  bool Read(double, double* value) override {
    CpuTimes d;
    if (!window_.Next(&d)) return false;
    double percent;
    if (mode_ == MonitorMode::kPts) {
      // PTS sums user..guest (guest is already inside user, so it is counted twice).
      uint64_t total = SumColumns(d, kGuestNice);
      percent = total == 0 ? 0 : 100.0 - static_cast<double>(d.v[kIdle]) * 100.0 / static_cast<double>(total);
    } else {
      uint64_t total = SumColumns(d, kGuest);  // user..steal
      if (total == 0) return false;
      percent = 100.0 * static_cast<double>(total - d.v[kIdle] - d.v[kIowait]) / static_cast<double>(total);
    }
    if (percent < 0 || percent > 100) return false;  // PTS drops these (-1)
    *value = percent;
    return true;
  }

 private:
  CpuStatWindow window_;
  MonitorMode mode_;
};

class IowaitReader : public SensorReader {
 public:
  IowaitReader(const SysRoot& root, MonitorMode mode) : window_(root, -1), mode_(mode) {}
  void Prime(double) override { window_.Prime(); }
  bool Read(double, double* value) override {
    CpuTimes d;
    if (!window_.Next(&d)) return false;
    // PTS divides by user..softirq; native by user..steal (all the time the CPUs accounted).
    uint64_t total = SumColumns(d, mode_ == MonitorMode::kPts ? kSteal : kGuest);
    if (total == 0) return false;
    *value = 100.0 * static_cast<double>(d.v[kIowait]) / static_cast<double>(total);
    return *value <= 100;
  }

 private:
  CpuStatWindow window_;
  MonitorMode mode_;
};

class CpuFreqReader : public SensorReader {
 public:
  CpuFreqReader(const SysRoot& root, int cpu)
      : scaling_(root, "/sys/devices/system/cpu/cpu" + std::to_string(cpu) + "/cpufreq/scaling_cur_freq"), cpu_(cpu) {
    if (!scaling_.is_open()) cpuinfo_ = PolledFile(root, "/proc/cpuinfo");
  }
  bool usable() { return Current().has_value(); }
  bool Read(double, double* value) override {
    auto v = Current();
    if (!v) return false;
    *value = *v;
    return true;
  }

 private:
  std::optional<double> Current() {
    if (scaling_.is_open()) {
      auto text = scaling_.Read();  // fails (or is empty) while the CPU is offline
      auto khz = text ? ParseNumber(*text) : std::nullopt;
      if (!khz || *khz <= 0) return std::nullopt;
      return static_cast<double>(static_cast<long long>(*khz)) / 1000.0;
    }
    auto text = cpuinfo_.Read();
    auto mhz = text ? CpuinfoMhz(*text, cpu_) : std::nullopt;
    if (!mhz || *mhz <= 0) return std::nullopt;
    return static_cast<double>(static_cast<long long>(*mhz));  // PTS: intval()
  }
  PolledFile scaling_;
  PolledFile cpuinfo_;
  int cpu_;
};

class MeminfoReader : public SensorReader {
 public:
  MeminfoReader(const SysRoot& root, bool swap) : meminfo_(root, "/proc/meminfo"), swap_(swap) {}
  bool Read(double, double* value) override {
    auto text = meminfo_.Read();
    if (!text) return false;
    int64_t used_kb;
    if (swap_) {
      auto total = MeminfoKb(*text, "SwapTotal"), free = MeminfoKb(*text, "SwapFree");
      if (!total || !free) return false;
      used_kb = static_cast<int64_t>(*total) - static_cast<int64_t>(*free);
    } else {
      // PTS: MemTotal - MemFree - Buffers - Cached - Slab
      auto total = MeminfoKb(*text, "MemTotal"), free = MeminfoKb(*text, "MemFree");
      auto buffers = MeminfoKb(*text, "Buffers"), cached = MeminfoKb(*text, "Cached"), slab = MeminfoKb(*text, "Slab");
      if (!total || !free || !buffers || !cached || !slab) return false;
      used_kb = static_cast<int64_t>(*total) - static_cast<int64_t>(*free + *buffers + *cached + *slab);
    }
    *value = static_cast<double>(used_kb) / 1024.0;
    return true;
  }

 private:
  PolledFile meminfo_;
  bool swap_;
};

class DiskSpeedReader : public SensorReader {
 public:
  DiskSpeedReader(const SysRoot& root, std::string device, bool write)
      : diskstats_(root, "/proc/diskstats"), device_(std::move(device)), write_(write) {}
  void Prime(double now) override {
    DiskCounters c;
    window_.primed = Sectors(&c);
    window_.previous = Pick(c);
    window_.previous_time = now;
  }
  bool Read(double now, double* value) override {
    DiskCounters c;
    if (!Sectors(&c)) return window_.primed = false;
    auto previous = window_;
    window_ = {Pick(c), now, true};
    double seconds = now - previous.previous_time;
    if (!previous.primed || seconds <= 0) return false;
    uint64_t sectors = CounterDelta(previous.previous, Pick(c));
    *value = static_cast<double>(sectors) * 512.0 / 1048576.0 / seconds;
    return true;
  }

 private:
  bool Sectors(DiskCounters* c) {
    auto text = diskstats_.Read();
    return text && ParseDiskstats(*text, device_, c);
  }
  uint64_t Pick(const DiskCounters& c) const { return write_ ? c.sectors_written : c.sectors_read; }
  PolledFile diskstats_;
  std::string device_;
  bool write_;
  Window<uint64_t> window_;
};

// A sysfs attribute scaled by a factor: temperatures (millidegrees, PTS divides values over
// 1000 by 1000) and power (microwatts).
class AttributeReader : public SensorReader {
 public:
  enum class Scale { kTemperature, kMicroToMilli, kMicroToUnit };
  AttributeReader(const SysRoot& root, const std::string& path, Scale scale) : file_(root, path), scale_(scale) {}
  bool Read(double, double* value) override {
    auto text = file_.Read();
    auto v = text ? ParseNumber(*text) : std::nullopt;
    if (!v || *v <= 0) return false;
    switch (scale_) {
      case Scale::kTemperature: *value = *v > 1000 ? *v / 1000 : *v; break;
      case Scale::kMicroToMilli: *value = *v / 1000; break;
      case Scale::kMicroToUnit: *value = *v / 1000000; break;
    }
    return true;
  }

 private:
  PolledFile file_;
  Scale scale_;
};

class RaplReader : public SensorReader {
 public:
  struct Domain {
    PolledFile energy;
    uint64_t max_range = 0;
    uint64_t previous = 0;
  };
  explicit RaplReader(std::vector<Domain> domains) : domains_(std::move(domains)) {}
  void Prime(double now) override {
    primed_ = true;
    for (auto& d : domains_) primed_ = ReadEnergy(d, &d.previous) && primed_;
    previous_time_ = now;
  }
  bool Read(double now, double* value) override {
    double joules = 0;
    bool ok = true;
    for (auto& d : domains_) {
      uint64_t e;
      if (!ReadEnergy(d, &e)) {
        ok = false;
        continue;
      }
      joules += static_cast<double>(CounterDelta(d.previous, e, d.max_range + 1)) / 1e6;
      d.previous = e;
    }
    double seconds = now - previous_time_;
    bool had_window = primed_;
    primed_ = ok;
    previous_time_ = now;
    if (!had_window || !ok || seconds <= 0) return false;
    *value = joules / seconds;
    return true;
  }

 private:
  static bool ReadEnergy(Domain& d, uint64_t* out) {
    auto text = d.energy.Read();
    auto v = text ? ParseNumber(*text) : std::nullopt;
    if (!v || *v < 0) return false;
    *out = static_cast<uint64_t>(*v);
    return true;
  }
  std::vector<Domain> domains_;
  double previous_time_ = 0;
  bool primed_ = false;
};

class CgroupCpuReader : public SensorReader {
 public:
  CgroupCpuReader(const SysRoot& root, const std::string& cpu_stat) : cgroup_(root, cpu_stat), window_(root, -1) {}
  bool usable() { return Usage().has_value(); }
  void Prime(double) override {
    window_.Prime();
    auto u = Usage();
    primed_ = u.has_value();
    usage_ = u.value_or(0);
  }
  bool Read(double, double* value) override {
    auto usage = Usage();
    CpuTimes d;
    bool cpus_ok = window_.Next(&d);
    bool had_window = primed_;
    primed_ = usage.has_value();
    uint64_t d_usage = usage ? CounterDelta(usage_, *usage) : 0;
    usage_ = usage.value_or(0);
    if (!had_window || !usage || !cpus_ok) return false;
    // As PTS: the cgroup's CPU time over the time of all CPUs (both in microseconds here).
    uint64_t jiffies = SumColumns(d, kGuest);
    *value = jiffies == 0 ? 0 : 100.0 * static_cast<double>(d_usage) / (static_cast<double>(jiffies) * kUserHzMicros);
    return *value >= 0 && *value <= 100;
  }

 private:
  std::optional<uint64_t> Usage() {
    auto text = cgroup_.Read();
    return text ? KeyedValue(*text, "usage_usec") : std::nullopt;
  }
  PolledFile cgroup_;
  CpuStatWindow window_;
  uint64_t usage_ = 0;
  bool primed_ = false;
};

// ---- device discovery and defaults ----

bool PositiveNumber(const SysRoot& root, const std::string& path) {
  auto text = root.ReadTrimmed(path);
  auto v = text ? ParseNumber(*text) : std::nullopt;
  return v && *v > 0;
}

std::string Trimmed(const SysRoot& root, const std::string& path) { return root.ReadTrimmed(path).value_or(""); }

// PTS: glob /sys/block/{[shvm]d*,nvme*,mmcblk*} (brace groups in that order, each sorted) with a
// non-empty stat file.
std::vector<std::string> BlockDevices(const SysRoot& root) {
  std::vector<std::string> out;
  auto names = root.List("/sys/block");
  for (auto group : {std::initializer_list<std::string_view>{"sd", "hd", "vd", "md"}, {"nvme"}, {"mmcblk"}})
    for (const auto& name : names) {
      bool in_group = false;
      for (auto prefix : group) in_group = in_group || name.compare(0, prefix.size(), prefix) == 0;
      if (in_group && !Trimmed(root, "/sys/block/" + name + "/stat").empty()) out.push_back(name);
    }
  return out;
}

// The /proc/diskstats name of the block device holding `dir`: its mount's major:minor (a
// partition is monitored as itself), else the /dev/ source of the mount (btrfs reports 0:N).
std::optional<std::string> DeviceOfDirectory(const SysRoot& root, const std::string& dir, std::string* why_not) {
  auto mountinfo = root.ReadFile("/proc/self/mountinfo");
  auto diskstats = root.ReadFile("/proc/diskstats");
  if (!mountinfo || !diskstats) {
    *why_not = "cannot read /proc/self/mountinfo or /proc/diskstats";
    return std::nullopt;
  }
  std::error_code ec;
  std::string absolute = std::filesystem::weakly_canonical(std::filesystem::absolute(dir, ec), ec).string();
  if (absolute.empty()) absolute = dir;
  auto mount = MountOfPath(*mountinfo, absolute);
  if (!mount) {
    *why_not = "no mount holds " + absolute;
    return std::nullopt;
  }
  if (auto name = DiskstatsName(*diskstats, mount->major, mount->minor)) return name;
  if (mount->source.rfind("/dev/", 0) == 0) {
    std::string base = mount->source.substr(mount->source.rfind('/') + 1);
    DiskCounters c;
    if (ParseDiskstats(*diskstats, base, &c)) return base;
  }
  *why_not = absolute + " is on " + mount->fs_type + " (" + mount->source + "), not on a block device";
  return std::nullopt;
}

OpenedSensor Fail(std::string error) {
  OpenedSensor s;
  s.error = std::move(error);
  return s;
}

int CpuNumber(const std::string& device) {
  if (device.size() < 4 || device.compare(0, 3, "cpu") != 0) return -1;
  for (size_t i = 3; i < device.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(device[i]))) return -1;
  return std::stoi(device.substr(3));
}

OpenedSensor OpenCpuUsage(const std::string& device, const SensorEnv& env) {
  OpenedSensor s;
  std::string d = device.empty() ? "summary" : device;
  int cpu = d == "summary" ? -1 : CpuNumber(d);
  if (cpu < 0 && d != "summary") return Fail("unknown device '" + d + "'");
  auto stat = env.root.ReadFile("/proc/stat");
  CpuTimes t;
  if (!stat || !ParseProcStatCpu(*stat, cpu, &t))
    return Fail(stat ? "no " + (cpu < 0 ? std::string("cpu") : d) + " line in /proc/stat" : "cannot read /proc/stat");
  s.reader = std::make_unique<CpuUsageReader>(env.root, cpu, env.mode);
  s.readable_device = cpu < 0 ? "Summary" : Upper(d);
  return s;
}

OpenedSensor OpenCpuFreq(const std::string& device, const SensorEnv& env) {
  std::string d = device.empty() ? "cpu0" : device;
  int cpu = CpuNumber(d);
  if (cpu < 0) return Fail("unknown device '" + d + "'");
  auto reader = std::make_unique<CpuFreqReader>(env.root, cpu);
  if (!reader->usable())
    return Fail("no frequency for " + d + " (no cpufreq scaling_cur_freq and no 'cpu MHz' in /proc/cpuinfo)");
  OpenedSensor s;
  s.reader = std::move(reader);
  s.readable_device = Upper(d);
  return s;
}

// PTS's search order for the CPU temperature.
std::optional<std::string> FindCpuTemperature(const SysRoot& root) {
  auto hwmons = root.List("/sys/class/hwmon");
  auto first_input = [&](const std::string& hwmon) -> std::optional<std::string> {
    for (const auto& f : root.List("/sys/class/hwmon/" + hwmon)) {
      std::string path = "/sys/class/hwmon/" + hwmon + "/" + f;
      if (f.rfind("temp", 0) == 0 && f.size() > 6 && f.compare(f.size() - 6, 6, "_input") == 0 && PositiveNumber(root, path))
        return path;
    }
    return std::nullopt;
  };
  for (std::string_view name : {"coretemp", "k10temp", "", "cpu_thermal", "soc_thermal"}) {
    for (const auto& h : hwmons) {
      std::string dir = "/sys/class/hwmon/" + h;
      bool match = name.empty() ? Trimmed(root, dir + "/temp1_label") == "SoC Temperature" : Trimmed(root, dir + "/name") == name;
      if (match)
        if (auto p = first_input(h)) return p;
    }
  }
  for (std::string_view type : {"cpu_thermal", "CPU-therm"})
    for (const auto& z : root.List("/sys/class/thermal")) {
      std::string dir = "/sys/class/thermal/" + z;
      if (z.rfind("thermal_zone", 0) == 0 && Trimmed(root, dir + "/type") == type && PositiveNumber(root, dir + "/temp"))
        return dir + "/temp";
    }
  return std::nullopt;
}

// PTS: hwmon*/device/temp{3,2,1}_input of a chip that is not a CPU/GPU/NVMe sensor, else
// thermal_zone0.
std::optional<std::string> FindSystemTemperature(const SysRoot& root) {
  auto hwmons = root.List("/sys/class/hwmon");
  for (std::string_view input : {"temp3_input", "temp2_input", "temp1_input"})
    for (const auto& h : hwmons) {
      std::string dir = "/sys/class/hwmon/" + h + "/device/";
      if (!root.Exists(dir + "name")) continue;
      std::string name = Trimmed(root, dir + "name");
      if (name == "coretemp" || name == "radeon" || name == "nouveau" || name == "nvme" || name == "amdgpu") continue;
      if (PositiveNumber(root, dir + std::string(input))) return dir + std::string(input);
    }
  if (PositiveNumber(root, "/sys/class/thermal/thermal_zone0/temp")) return "/sys/class/thermal/thermal_zone0/temp";
  return std::nullopt;
}

OpenedSensor OpenSystemPower(const SensorEnv& env) {
  OpenedSensor s;
  const SysRoot& root = env.root;
  // A discharging battery reports power_now in microwatts; PTS records it in milliwatts.
  for (const auto& ps : root.List("/sys/class/power_supply")) {
    std::string dir = "/sys/class/power_supply/" + ps;
    if (Trimmed(root, dir + "/status") == "Discharging" && PositiveNumber(root, dir + "/power_now")) {
      s.reader = std::make_unique<AttributeReader>(root, dir + "/power_now", AttributeReader::Scale::kMicroToMilli);
      s.unit = "Milliwatts";
      s.note = "battery " + ps;
      return s;
    }
  }
  // hwmon power meters report microwatts: ACPI power_meter (power*_average), PSUs and others
  // (power*_input).
  for (std::string_view suffix : {"_average", "_input"})
    for (const auto& h : root.List("/sys/class/hwmon"))
      for (std::string dir : {"/sys/class/hwmon/" + h + "/device", "/sys/class/hwmon/" + h})
        for (const auto& f : root.List(dir)) {
          if (f.rfind("power", 0) != 0 || f.size() <= suffix.size() || f.compare(f.size() - suffix.size(), suffix.size(), suffix) != 0)
            continue;
          if (!PositiveNumber(root, dir + "/" + f)) continue;
          s.reader = std::make_unique<AttributeReader>(root, dir + "/" + f, AttributeReader::Scale::kMicroToUnit);
          s.unit = "Watts";
          s.note = dir + "/" + f;
          return s;
        }
  return Fail("no power sensor (no discharging battery in /sys/class/power_supply, no hwmon power*_input or power*_average)");
}

OpenedSensor OpenRapl(const SensorEnv& env) {
  std::vector<RaplReader::Domain> domains;
  std::string names;
  for (const auto& zone : env.root.List("/sys/class/powercap")) {
    // Top-level package domains only ("intel-rapl:0", not "intel-rapl:0:1"); psys covers the
    // whole platform and would count the packages twice.
    if (zone.rfind("intel-rapl:", 0) != 0 || zone.find(':') != zone.rfind(':')) continue;
    std::string dir = "/sys/class/powercap/" + zone;
    std::string name = Trimmed(env.root, dir + "/name");
    if (name.rfind("psys", 0) == 0) continue;
    RaplReader::Domain d{PolledFile(env.root, dir + "/energy_uj")};
    if (!d.energy.is_open() || !d.energy.Read()) continue;  // energy_uj is root-only on recent kernels
    auto max = env.root.ReadTrimmed(dir + "/max_energy_range_uj");
    d.max_range = max ? static_cast<uint64_t>(ParseNumber(*max).value_or(0)) : 0;
    domains.push_back(std::move(d));
    names += (names.empty() ? "" : ", ") + zone;
  }
  if (domains.empty()) return Fail("no readable RAPL energy_uj under /sys/class/powercap");
  OpenedSensor s;
  s.reader = std::make_unique<RaplReader>(std::move(domains));
  s.note = "RAPL " + names;
  return s;
}

OpenedSensor OpenCgroup(const SensorEnv& env) {
  auto mountinfo = env.root.ReadFile("/proc/self/mountinfo");
  auto mount = mountinfo ? Cgroup2MountPoint(*mountinfo) : std::nullopt;
  if (!mount) return Fail("no cgroup2 file system mounted");
  std::string path = env.cgroup;
  if (path.empty()) {
    auto self = env.root.ReadFile("/proc/self/cgroup");
    auto p = self ? Cgroup2Path(*self) : std::nullopt;
    if (!p) return Fail("this process has no cgroup v2 path in /proc/self/cgroup");
    path = *p;
  }
  std::string cpu_stat = *mount + (path == "/" ? "" : path) + "/cpu.stat";
  auto reader = std::make_unique<CgroupCpuReader>(env.root, cpu_stat);
  if (!reader->usable()) return Fail("cannot read usage_usec from " + cpu_stat);
  OpenedSensor s;
  s.reader = std::move(reader);
  s.readable_device = "Summary";
  s.note = "cgroup " + path;
  return s;
}

OpenedSensor OpenDiskSpeed(const SensorKind& kind, const std::string& device, const SensorEnv& env) {
  OpenedSensor s;
  std::string d = device;
  if (d.empty()) {
    std::string why_not;
    if (auto dev = DeviceOfDirectory(env.root, env.test_dir.empty() ? "/" : env.test_dir, &why_not)) {
      d = *dev;
      s.note = "device of " + (env.test_dir.empty() ? std::string("/") : env.test_dir);
    } else {
      auto disks = BlockDevices(env.root);
      if (disks.empty()) return Fail(why_not + "; and no disk in /sys/block");
      d = disks.front();  // PTS's default: the first disk
      s.note = why_not + "; using the first disk";
    }
  }
  auto diskstats = env.root.ReadFile("/proc/diskstats");
  DiskCounters c;
  if (!diskstats || !ParseDiskstats(*diskstats, d, &c)) return Fail("no device '" + d + "' in /proc/diskstats");
  s.reader = std::make_unique<DiskSpeedReader>(env.root, d, kind.sensor == "write-speed");
  s.readable_device = d;
  return s;
}

OpenedSensor OpenMeminfo(bool swap, const SensorEnv& env) {
  auto reader = std::make_unique<MeminfoReader>(env.root, swap);
  double v;
  if (!reader->Read(0, &v)) return Fail(swap ? "no SwapTotal/SwapFree in /proc/meminfo" : "incomplete /proc/meminfo");
  if (swap && !MeminfoKb(env.root.ReadFile("/proc/meminfo").value_or(""), "SwapTotal").value_or(0))
    return Fail("no swap configured (SwapTotal is 0)");
  OpenedSensor s;
  s.reader = std::move(reader);
  return s;
}

}  // namespace

std::vector<std::string> SupportedDevices(const SensorKind& kind, const SensorEnv& env) {
  std::vector<std::string> devices;
  if (kind.type == "cpu" && (kind.sensor == "usage" || kind.sensor == "freq")) {
    for (int cpu : ProcStatCpus(env.root.ReadFile("/proc/stat").value_or(""))) devices.push_back("cpu" + std::to_string(cpu));
    if (kind.sensor == "usage") devices.push_back("summary");
  } else if (kind.type == "hdd") {
    devices = BlockDevices(env.root);
  }
  return devices;
}

OpenedSensor OpenSensor(const SensorKind& kind, const std::string& device, const SensorEnv& env) {
  if (!device.empty() && !kind.has_devices) return Fail("takes no device");
  OpenedSensor s;
  std::string id = std::string(kind.type) + "." + std::string(kind.sensor);
  if (id == "cpu.usage") s = OpenCpuUsage(device, env);
  else if (id == "cpu.freq") s = OpenCpuFreq(device, env);
  else if (id == "memory.usage") s = OpenMeminfo(false, env);
  else if (id == "swap.usage") s = OpenMeminfo(true, env);
  else if (id == "sys.iowait") {
    auto stat = env.root.ReadFile("/proc/stat");
    CpuTimes t;
    if (!stat || !ParseProcStatCpu(*stat, -1, &t) || t.columns < 5) s = Fail("no iowait column in /proc/stat");
    else s.reader = std::make_unique<IowaitReader>(env.root, env.mode);
  } else if (kind.type == "hdd") s = OpenDiskSpeed(kind, device, env);
  else if (id == "cpu.temp" || id == "sys.temp") {
    auto path = id == "cpu.temp" ? FindCpuTemperature(env.root) : FindSystemTemperature(env.root);
    if (!path) s = Fail(id == "cpu.temp" ? "no CPU temperature in /sys/class/hwmon (coretemp, k10temp, ...) or /sys/class/thermal"
                                         : "no board temperature in /sys/class/hwmon/*/device or /sys/class/thermal/thermal_zone0");
    else {
      s.reader = std::make_unique<AttributeReader>(env.root, *path, AttributeReader::Scale::kTemperature);
      s.note = *path;
    }
  } else if (id == "sys.power") s = OpenSystemPower(env);
  else if (id == "cpu.power") s = OpenRapl(env);
  else if (id == "cgroup.cpu-usage") s = OpenCgroup(env);
  else s = Fail("not implemented");
  if (s.reader && s.unit.empty()) s.unit = std::string(kind.unit);
  return s;
}

}  // namespace ptsn::monitor
