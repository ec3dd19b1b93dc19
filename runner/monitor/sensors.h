// The sensors PTS 10.8.6 knows on Linux (objects/phodevi/sensors/*.php), read through SysRoot.
// Each sensor is a small SensorReader: instant ones (memory.usage, cpu.freq, temperatures)
// return the current value; windowed ones (cpu.usage, sys.iowait, hdd.*-speed, cgroup.cpu-usage,
// cpu.power) return the rate between two readings, so the sampler decides the window: PTS's
// fixed window (0.5 s or 1 s) in PTS mode, the whole interval since the previous sample in
// native mode.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runner/monitor/sys_root.h"

namespace ptsn::monitor {

// kPts: PTS's definitions (cpu.usage counts iowait as busy, sums the guest column, samples a
// 0.5 s window then sleeps the interval). kNative: iowait counts as idle, guest is not counted
// twice, and the windows tile the run with no gaps.
enum class MonitorMode { kPts, kNative };
const char* MonitorModeName(MonitorMode mode);  // "pts" | "native"

struct SensorKind {
  std::string_view type;    // "cpu"
  std::string_view sensor;  // "usage"
  std::string_view unit;    // PTS's unit ("Percent"); sys.power decides per source
  int decimals;             // as PTS formats a sample (number_format)
  bool windowed;            // a rate between two readings
  double pts_window;        // seconds between PTS's two readings (0 when instant)
  bool in_all;              // selected by MONITOR=all (PTS leaves cgroup.* out)
  bool has_devices;         // accepts <type>.<sensor>.<device>
};
const std::vector<SensorKind>& SensorKinds();
const SensorKind* FindSensorKind(std::string_view type, std::string_view sensor);
// PTS's display name (phodevi::sensor_name): "CPU Usage", "System Temperature", "Drive Read Speed".
std::string SensorDisplayName(const SensorKind& kind);

class SensorReader {
 public:
  virtual ~SensorReader() = default;
  // Takes the first reading of a window (windowed sensors only).
  virtual void Prime(double now_seconds) { (void)now_seconds; }
  // Instant sensors: the current value. Windowed: the rate since the previous Prime/Read,
  // which becomes the start of the next window. False when there is no value this time (first
  // reading, file unreadable, CPU offline, counters went backwards).
  virtual bool Read(double now_seconds, double* value) = 0;
};

struct SensorEnv {
  SysRoot root;
  MonitorMode mode = MonitorMode::kPts;
  std::string test_dir;  // hdd.*-speed without a device: the disk holding this directory
  std::string cgroup;    // cgroup.cpu-usage: a cgroup v2 path; "" = this process's cgroup
};

struct OpenedSensor {
  std::unique_ptr<SensorReader> reader;  // null when the sensor cannot record
  std::string readable_device;  // "Summary", "CPU1", "vda"; "" when the sensor has no device
  std::string unit;
  std::string note;   // how a default was chosen, e.g. "device of /x: vda"
  std::string error;  // why it cannot record (when reader is null)
};

// The devices <type>.<sensor>.<device> accepts (and <type>.<sensor>.all selects), in PTS's
// order; empty for sensors without devices.
std::vector<std::string> SupportedDevices(const SensorKind& kind, const SensorEnv& env);
// Opens a sensor on `device` ("" = its default: cpu.usage summary, cpu.freq cpu0, hdd.* the
// disk of env.test_dir). Setup-time only: this may allocate and scan directories.
OpenedSensor OpenSensor(const SensorKind& kind, const std::string& device, const SensorEnv& env);

}  // namespace ptsn::monitor
