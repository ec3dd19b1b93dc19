#include "runner/sysinfo/pci.h"

#include <cstdio>

#include "runner/common/strings.h"
#include "runner/sysinfo/phodevi_strings.h"

namespace ptsn::sysinfo {
namespace {

std::string Hex(const std::string& sysfs_value, size_t digits) {
  std::string v = ToLower(Trim(sysfs_value));
  if (StartsWith(v, "0x")) v = v.substr(2);
  while (v.size() < digits) v = "0" + v;
  return v;
}

// PHP trim()'s character set, which PTS applies to the binary EDID before hex-encoding it.
std::string PhpTrimBytes(const std::string& s) {
  static const std::string kWs(" \t\n\r\v\0", 6);
  size_t a = s.find_first_not_of(kWs);
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(kWs) - a + 1);
}

}  // namespace

PciIds::PciIds(std::string text) : text_("\n" + std::move(text)) {}

std::optional<PciIds> PciIds::Load(const SystemReader& r) {
  for (const char* path : {"/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids", "/usr/share/pci.ids"})
    if (auto text = r.ReadFile(path)) return PciIds(std::move(*text));
  return std::nullopt;
}

std::string PciIds::Vendor(const std::string& v) const { return LineValue(text_.find("\n" + v + "  "), v.size()); }

std::string PciIds::Device(const std::string& v, const std::string& d) const {
  return Child(text_.find("\n" + v + "  "), d);
}

std::string PciIds::ClassName(const std::string& c) const {
  return LineValue(text_.find("\nC " + c + "  "), c.size() + 2);
}

std::string PciIds::SubclassName(const std::string& c, const std::string& s) const {
  return Child(text_.find("\nC " + c + "  "), s);
}

// The name after "<key>  " on the line starting at `nl` (which points at its '\n').
std::string PciIds::LineValue(size_t nl, size_t key_len) const {
  if (nl == std::string::npos) return "";
  size_t start = nl + 1 + key_len + 2, end = text_.find('\n', start);
  return text_.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// A one-tab child line "\t<key>  name" under the parent line at `nl`.
std::string PciIds::Child(size_t nl, const std::string& key) const {
  if (nl == std::string::npos) return "";
  size_t pos = text_.find('\n', nl + 1);
  while (pos != std::string::npos && pos + 1 < text_.size()) {
    size_t next = text_.find('\n', pos + 1);
    std::string line = text_.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
    if (line.empty() || line[0] == '#') {
      pos = next;
      continue;
    }
    if (line[0] != '\t') break;  // the next parent
    if (line.size() > key.size() + 3 && line[1] != '\t' && line.compare(1, key.size(), key) == 0 &&
        line.compare(1 + key.size(), 2, "  ") == 0)
      return line.substr(key.size() + 3);
    pos = next;
  }
  return "";
}

std::string LspciListing(const SystemReader& r) {
  const std::string base = "/sys/bus/pci/devices";
  auto slots = r.ListDir(base);
  if (slots.empty()) return "";
  auto loaded = PciIds::Load(r);
  if (!loaded) return "";
  const PciIds& ids = *loaded;
  bool all_domain_zero = true;
  for (const auto& s : slots) all_domain_zero &= StartsWith(s, "0000:");
  std::string out;
  for (const auto& slot : slots) {
    auto cls = r.ReadFile(base + "/" + slot + "/class");
    auto vendor = r.ReadFile(base + "/" + slot + "/vendor");
    auto device = r.ReadFile(base + "/" + slot + "/device");
    if (!cls || !vendor || !device) continue;
    std::string c = Hex(*cls, 6), v = Hex(*vendor, 4), d = Hex(*device, 4);
    std::string class_name = ids.SubclassName(c.substr(0, 2), c.substr(2, 2));
    if (class_name.empty()) class_name = ids.ClassName(c.substr(0, 2));
    if (class_name.empty()) class_name = "Class " + c.substr(0, 4);
    std::string vendor_name = ids.Vendor(v), device_name = ids.Device(v, d);
    std::string name = vendor_name.empty() ? "Device " + v + ":" + d
                                           : vendor_name + " " + (device_name.empty() ? "Device " + d : device_name);
    std::string line = (all_domain_zero ? slot.substr(5) : slot) + " " + class_name + ": " + name;
    if (auto rev = r.ReadFile(base + "/" + slot + "/revision")) {
      std::string hex = Hex(*rev, 2);
      if (hex != "00") line += " (rev " + hex + ")";
    }
    out += line + "\n";
  }
  return out;
}

std::string ReadPci(const std::string& listing, const std::vector<std::string>& classes, bool clean) {
  for (std::string desc : classes) {
    if (desc.empty() || desc.back() != ':') desc += ':';
    size_t pos = listing.find(desc);
    if (pos == std::string::npos) continue;
    std::string sub = listing.substr(pos + desc.size());
    for (const char* noise : {"[AMD]", "[AMD/ATI]", " Limited"})
      for (size_t p; (p = sub.find(noise)) != std::string::npos;) sub.erase(p, std::string(noise).size());
    size_t eol = sub.find('\n');
    if (eol == std::string::npos) eol = sub.size();
    if (clean) {
      // A "/" joins product names ("v6/7th Gen"): keep the word it is in, cut after it.
      size_t slash = sub.find('/');
      if (slash != std::string::npos && slash > 0 && slash < eol) {
        size_t space = sub.find(' ', slash + 2);
        if (space != std::string::npos && space > 0 && space < eol) eol = space;
      }
      for (char c : {'(', '['}) {
        size_t p = sub.find(c);
        if (p != std::string::npos && p > 0 && p < eol) eol = p;
      }
    }
    std::string name = Trim(sub.substr(0, eol));
    if (name.size() >= 6 && name.size() < 128) return StripString(name);
  }
  return "";
}

std::string ChipsetString(const std::string& listing) {
  std::string info = ReadPci(listing, {"RAM memory", "Host bridge"});
  bool tried_bridge = false;
  std::string bridge;
  if (Split(info, ' ').size() == 1) {
    tried_bridge = true;
    bridge = ReadPci(listing, {"Bridge", "PCI bridge"});
    if (!bridge.empty())
      for (const char* word : {"Ethernet", "PCI", "High", "USB"}) {
        size_t p = bridge.find(word);
        if (p != std::string::npos && p > 0) {
          bridge = Trim(bridge.substr(0, p));
          info = bridge;
          break;
        }
      }
  }
  if (!tried_bridge || !bridge.empty()) {
    std::string south = ReadPci(listing, {"ISA bridge", "SATA controller"}, false), clean;
    auto first_word = [](const std::string& s) {
      size_t sp = s.find(' ');
      return sp == std::string::npos ? std::string() : s.substr(0, sp);
    };
    size_t open = south.find('(');
    size_t close = open != std::string::npos && open > 0 ? south.find(')', open + 1) : std::string::npos;
    if (open != std::string::npos && open > 0 && close != std::string::npos) {
      std::string inside = south.substr(open + 1, close - open - 1);
      if (inside.find("rev") == std::string::npos) clean = Split(inside, ' ')[0];
      else if (size_t ich = south.find("ICH"); ich != std::string::npos && ich > 0) clean = first_word(south.substr(ich));
    } else if (size_t sb = south.find("SB"); sb != std::string::npos) {
      clean = first_word(south.substr(sb));
    }
    if (!clean.empty() && clean != "SB") info += " + " + clean;
  }
  return PropertyValue(info);
}

std::string AudioString(const SystemReader& r, const std::string& listing) {
  std::string audio;
  for (const auto& card : r.ListDir("/sys/class/sound")) {
    if (!StartsWith(card, "card")) continue;
    std::string dir = "/sys/class/sound/" + card;
    for (const auto& codec : r.ListDir(dir)) {
      if (!StartsWith(codec, "hwC0D")) continue;
      auto vendor = r.ReadFile(dir + "/" + codec + "/vendor_name");
      auto chip = r.ReadFile(dir + "/" + codec + "/chip_name");
      if (!vendor || !chip) continue;
      std::string chip_name = Trim(*chip);
      // An HDMI/DP codec is the graphics card's; keep looking for the board's own.
      if (chip_name.find("HDMI") != std::string::npos || chip_name.find("DP") != std::string::npos) continue;
      audio = Trim(*vendor) + " " + chip_name;
      break;
    }
    if (!audio.empty()) break;
  }
  if (audio.empty()) audio = ReadPci(listing, {"Multimedia audio controller"});
  if (audio.empty()) audio = ReadPci(listing, {"Audio device"});
  return audio.empty() ? "" : PropertyValue(audio);
}

std::string EdidMonitorName(const std::string& edid_bytes) {
  std::string bytes = PhpTrimBytes(edid_bytes), hex;
  static const char* kDigits = "0123456789abcdef";
  for (unsigned char b : bytes) {
    hex += kDigits[b >> 4];
    hex += kDigits[b & 15];
  }
  // PTS searches the hex text, so a match may straddle bytes; and a match at offset 0 ends its loop.
  for (size_t x = 0; (x = hex.find("00fc", x)) != std::string::npos && x != 0; ++x) {
    std::string encoded = hex.substr(x + 4, 36), name;
    for (size_t i = 0; i < encoded.size(); i += 2) {
      std::string pair = encoded.substr(i, 2);
      if (pair == "15" || pair == "0a") break;
      name += static_cast<char>(std::strtol(pair.c_str(), nullptr, 16));
    }
    name = PhpTrimBytes(name);
    bool plain = true;
    for (char c : name)
      plain &= std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == ' ' || c == '-';
    if (plain) return name;
  }
  return "";
}

std::string MonitorString(const SystemReader& r) {
  std::vector<std::string> monitors;
  for (const auto& connector : r.ListDir("/sys/class/drm")) {
    auto edid = r.ReadFile("/sys/class/drm/" + connector + "/edid");
    if (!edid || PhpTrimBytes(*edid).empty()) continue;
    monitors.push_back(EdidMonitorName(*edid));
  }
  std::string joined = CleansedItemString(monitors);
  return joined.empty() ? "" : PropertyValue(joined);
}

}  // namespace ptsn::sysinfo
