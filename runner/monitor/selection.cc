#include "runner/monitor/selection.h"

#include <algorithm>

#include "runner/common/strings.h"

namespace ptsn::monitor {

std::vector<SensorRequest> ParseSelection(std::string_view monitor) {
  std::vector<SensorRequest> out;
  for (const std::string& raw : Split(monitor, ',')) {
    std::string item = Trim(raw);
    if (item.empty()) continue;
    std::vector<std::string> parts;
    for (const auto& p : Split(item, '.')) parts.push_back(Trim(p));
    SensorRequest r;
    r.text = item;
    if (parts[0] == "all") {
      // PTS moves a leading "all" to the end: all.cpu -> cpu.all, all.cpu.usage -> cpu.usage.all.
      parts.erase(parts.begin());
      if (parts.empty()) {
        r.everything = true;
        out.push_back(r);
        continue;
      }
      parts.push_back("all");
    }
    r.type = parts[0];
    r.sensor = parts.size() > 1 ? parts[1] : "";
    if (parts.size() > 2) {
      // Device names may contain dots? Block and CPU names do not; keep the rest verbatim.
      std::vector<std::string> rest(parts.begin() + 2, parts.end());
      r.device = Join(rest, ".");
    }
    out.push_back(r);
  }
  return out;
}

std::string MonitoredSensor::Identifier() const {
  std::string id = std::string(kind->type) + "." + std::string(kind->sensor);
  return instance != 0 ? id + "." + std::to_string(instance) : id;
}

std::string MonitoredSensor::Name() const {
  std::string name = SensorDisplayName(*kind);
  return readable_device.empty() ? name : name + " (" + readable_device + ")";
}

namespace {

std::string KindId(const SensorKind& k) { return std::string(k.type) + "." + std::string(k.sensor); }

std::string KnownSensors() {
  std::vector<std::string> names;
  for (const auto& k : SensorKinds()) names.push_back(KindId(k));
  return Join(names, ", ");
}

bool Matches(const SensorRequest& r, const SensorKind& k) {
  if (r.everything) return k.in_all;
  if (r.type != k.type) return false;
  return r.sensor == "all" || r.sensor == k.sensor;
}

}  // namespace

SensorSelection SelectSensors(std::string_view monitor, const SensorEnv& env, const std::vector<std::string>& extra) {
  std::vector<SensorRequest> requests = ParseSelection(monitor);
  for (const auto& e : extra)
    for (auto& r : ParseSelection(e)) requests.push_back(r);

  SensorSelection out;
  for (const auto& r : requests) {
    bool known = r.everything;
    for (const auto& k : SensorKinds()) known = known || Matches(r, k);
    if (!known) {
      std::string why = r.sensor.empty() ? "expected <type>.<sensor>" : "unknown sensor";
      out.statuses.push_back({r.text, r.text, "", false, why + " (known: all, " + KnownSensors() + ")"});
    }
  }

  for (const auto& kind : SensorKinds()) {
    // (request, device) pairs for this sensor, in request order, without repeats.
    std::vector<std::pair<std::string, std::string>> wanted;
    auto want = [&](const std::string& request, const std::string& device) {
      for (const auto& w : wanted)
        if (w.second == device) return;
      wanted.emplace_back(request, device);
    };
    for (const auto& r : requests) {
      if (!Matches(r, kind)) continue;
      bool all_devices = r.everything || r.sensor == "all" || r.device == "all";
      if (all_devices && kind.has_devices) {
        for (const auto& d : SupportedDevices(kind, env)) want(r.text, d);
      } else if (!all_devices && !r.device.empty() && !kind.has_devices) {
        out.statuses.push_back({r.text, KindId(kind) + "." + r.device, "", false, "this sensor takes no device"});
      } else {
        want(r.text, all_devices ? "" : r.device);
      }
    }
    int instance = 0;
    for (const auto& [request, device] : wanted) {
      std::string sensor_id = KindId(kind) + (device.empty() ? "" : "." + device);
      OpenedSensor opened = OpenSensor(kind, device, env);
      if (!opened.reader) {
        out.statuses.push_back({request, sensor_id, "", false, opened.error});
        continue;
      }
      // "cpu.usage" and "cpu.usage.summary" are the same sensor.
      bool duplicate = std::any_of(out.sensors.begin(), out.sensors.end(), [&](const MonitoredSensor& m) {
        return m.kind == &kind && m.readable_device == opened.readable_device;
      });
      if (duplicate) continue;
      MonitoredSensor m;
      m.kind = &kind;
      m.device = device;
      m.readable_device = opened.readable_device;
      m.unit = opened.unit;
      m.instance = instance++;
      m.reader = std::move(opened.reader);
      out.statuses.push_back({request, sensor_id, m.Name(), true, opened.note});
      out.sensors.push_back(std::move(m));
    }
  }
  return out;
}

std::string FormatStatus(const SensorStatus& s) {
  if (s.recording)
    return "   - " + s.name + " [" + s.sensor + "]: recording" + (s.detail.empty() ? "" : " (" + s.detail + ")");
  return "   - " + s.sensor + ": NOT recording: " + s.detail;
}

}  // namespace ptsn::monitor
