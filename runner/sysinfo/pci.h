// PCI and display probes behind the Chipset, Audio and Monitor parts of the Hardware string.
// PTS reads `lspci` output; we rebuild the same default listing from /sys/bus/pci/devices and
// the pci.ids database (what lspci itself reads), so no process is started and fixture trees
// work. Without pci.ids there are no names, as PTS has none without lspci.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner/sysinfo/system_reader.h"

namespace ptsn::sysinfo {

// The pci.ids database (the first of its usual places): "vvvv  Vendor", "\tdddd  Device",
// "C cc  Class", "\tss  Subclass"; ids in lower-case hex; "" for an id it does not name.
class PciIds {
 public:
  static std::optional<PciIds> Load(const SystemReader& r);
  explicit PciIds(std::string text);
  std::string Vendor(const std::string& vendor) const;
  std::string Device(const std::string& vendor, const std::string& device) const;
  std::string ClassName(const std::string& cls) const;
  std::string SubclassName(const std::string& cls, const std::string& subclass) const;

 private:
  std::string LineValue(size_t nl, size_t key_len) const;
  std::string Child(size_t nl, const std::string& key) const;
  std::string text_;
};

// `lspci` default output: "00:1f.3 Audio device: Intel Corporation 200 Series PCH HD Audio (rev 00)"
// one line per device, sorted by slot. "" when there are no devices or no pci.ids.
std::string LspciListing(const SystemReader& r);

// phodevi_linux_parser::read_pci(): the first device whose class is one of `classes` (in order of
// the list), vendor boilerplate stripped; with `clean` the name is cut at '(' / '[' / the word
// after a '/'. "" when none matches or the name is shorter than 6 characters.
std::string ReadPci(const std::string& listing, const std::vector<std::string>& classes, bool clean = true);

// phodevi_chipset: the host bridge ("Intel 440FX 82441FX PMC"), plus the southbridge in
// parentheses of the ISA bridge / SATA controller name ("Intel Xeon E3-1200 v6/7th + B250").
std::string ChipsetString(const std::string& listing);

// phodevi_audio: the HDA codec of card 0 (/sys/class/sound/card*/hwC0D*/vendor_name + chip_name,
// skipping HDMI/DP codecs), else the PCI audio controller.
std::string AudioString(const SystemReader& r, const std::string& listing);

// phodevi_monitor: the monitor names (EDID descriptor 0xFC) of /sys/class/drm/*/edid,
// repeats counted ("2 x DELL U2415").
std::string MonitorString(const SystemReader& r);

// The name in one EDID blob as PTS decodes it (its hex-string search, quirks included); "" if none.
std::string EdidMonitorName(const std::string& edid_bytes);

}  // namespace ptsn::sysinfo
