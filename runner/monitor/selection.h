// MONITOR=... as PTS reads it: a comma list of "all", "all.<type>", "<type>.all",
// "<type>.<sensor>", "<type>.<sensor>.<device>", "<type>.<sensor>.all" (= "all.<type>.<sensor>").
// SelectSensors opens every selected sensor and says, for each, whether it records or why not.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runner/monitor/sensors.h"

namespace ptsn::monitor {

struct SensorRequest {
  std::string text;  // as typed, e.g. "all.cpu"
  bool everything = false;     // "all"
  std::string type;            // "cpu"
  std::string sensor;          // "usage"; "all" = every sensor of the type
  std::string device;          // "" = the sensor's default; "all" = every device
};
// Splits and normalises the list; empty items are skipped. Unknown names are kept (SelectSensors
// reports them).
std::vector<SensorRequest> ParseSelection(std::string_view monitor);

// One sensor instance that records.
struct MonitoredSensor {
  const SensorKind* kind = nullptr;
  std::string device;           // as requested ("" = default)
  std::string readable_device;  // "Summary", "CPU1", "vda"; "" = none
  std::string unit;
  int instance = 0;             // PTS's instance number within its sensor
  std::shared_ptr<SensorReader> reader;

  // PTS's sensor_object_identifier: "cpu.usage", "cpu.usage.2" for the third instance.
  std::string Identifier() const;
  // PTS's sensor_object_name: "CPU Usage (Summary)", "Memory Usage", "Drive Read Speed (vda)".
  std::string Name() const;
};

struct SensorStatus {
  std::string request;   // the MONITOR item it came from
  std::string sensor;    // "cpu.usage" or "cpu.usage.cpu1"
  std::string name;      // display name when it records
  bool recording = false;
  std::string detail;    // why not, or how the default device was chosen
};

struct SensorSelection {
  std::vector<MonitoredSensor> sensors;  // in PTS's order (SensorKinds(), then devices)
  std::vector<SensorStatus> statuses;    // one per selected sensor/device, recording or not
};

// `extra` are "type.sensor" names that must be recorded too (PERFORMANCE_PER_WATT adds
// sys.power, PERFORMANCE_PER_SENSOR its sensors).
SensorSelection SelectSensors(std::string_view monitor, const SensorEnv& env, const std::vector<std::string>& extra = {});

// "   - CPU Usage (Summary) [cpu.usage]: recording, Percent" / "   - cpu.temp: NOT recording: why".
std::string FormatStatus(const SensorStatus& status);

}  // namespace ptsn::monitor
