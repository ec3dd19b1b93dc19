#include "runner/sysinfo/pci.h"

#include <gtest/gtest.h>

namespace ptsn::sysinfo {
namespace {

std::unique_ptr<SystemReader> Fixture(const std::string& name) {
  return MakeRootedReader(std::string(PTSN_SOURCE_DIR) + "/runner/sysinfo/testdata/" + name);
}

// `lspci` on a QEMU/KVM guest (i440FX machine type).
const char* kQemuLspci =
    "00:00.0 Host bridge: Intel Corporation 440FX - 82441FX PMC [Natoma] (rev 02)\n"
    "00:01.0 ISA bridge: Intel Corporation 82371SB PIIX3 ISA [Natoma/Triton II]\n"
    "00:01.1 IDE interface: Intel Corporation 82371SB PIIX3 IDE [Natoma/Triton II]\n"
    "00:02.0 VGA compatible controller: Device 1234:1111 (rev 02)\n"
    "00:03.0 Ethernet controller: Red Hat, Inc. Virtio network device\n";

TEST(Chipset, QemuGuestAsOpenBenchmarkingShowsIt) {
  EXPECT_EQ(ReadPci(kQemuLspci, {"RAM memory", "Host bridge"}), "Intel 440FX 82441FX PMC");
  // The PIIX3 name has "SB" only as "82371SB": no southbridge is appended.
  EXPECT_EQ(ChipsetString(kQemuLspci), "Intel 440FX 82441FX PMC");
}

TEST(Chipset, NoListingNoChipset) {
  EXPECT_EQ(ChipsetString(""), "");
  EXPECT_EQ(ReadPci("", {"Host bridge"}), "");
}

TEST(Chipset, OneWordHostBridgeFallsBackToTheBridge) {
  std::string lspci =
      "00:00.0 Host bridge: Advanced Micro Devices, Inc. [AMD] Starship/Matisse Root Complex\n"
      "00:01.0 Bridge: NVIDIA Corporation MCP61 Ethernet (rev a2)\n";
  // The host bridge name cleans to two words here, so it stands.
  EXPECT_EQ(ReadPci(lspci, {"RAM memory", "Host bridge"}), "AMD Starship/Matisse");
  // A one-word host bridge: the bridge's name up to "USB"/"PCI"/... replaces it.
  std::string one_word = "00:00.0 Host bridge: Foobar\n00:01.0 Bridge: NVIDIA Corporation nForce USB Bridge\n";
  EXPECT_EQ(ChipsetString(one_word), "NVIDIA nForce");
}

TEST(Lspci, RebuiltFromSysfsAndPciIds) {
  auto r = Fixture("intel-desktop");
  std::string listing = LspciListing(*r);
  EXPECT_NE(listing.find("00:00.0 Host bridge: Intel Corporation Xeon E3-1200 v6/7th Gen Core Processor Host "
                         "Bridge/DRAM Registers (rev 05)\n"),
            std::string::npos)
      << listing;
  EXPECT_NE(listing.find("00:1f.3 Audio device: Intel Corporation 200 Series PCH HD Audio\n"), std::string::npos);
  EXPECT_NE(listing.find("03:00.0 Ethernet controller: Realtek Semiconductor Co., Ltd. RTL8111/8168/8411 PCI "
                         "Express Gigabit Ethernet Controller (rev 15)\n"),
            std::string::npos);
  EXPECT_EQ(ChipsetString(listing), "Intel Xeon E3-1200 v6/7th + B250");
  EXPECT_EQ(ReadPci(listing, {"Audio device"}), "Intel 200 PCH HD Audio");
}

TEST(Lspci, WithoutPciIdsThereAreNoNames) {
  EXPECT_EQ(LspciListing(*Fixture("debian12-kvm-docker")), "");
}

TEST(Audio, BoardCodecBeforeHdmiCodecAndPciFallback) {
  auto r = Fixture("intel-desktop");
  EXPECT_EQ(AudioString(*r, LspciListing(*r)), "Realtek ALC887-VD");
  // No codec directory: the PCI audio device.
  auto none = MakeRootedReader("/nonexistent-ptsn-root");
  EXPECT_EQ(AudioString(*none, "00:1f.3 Audio device: Intel Corporation 200 Series PCH HD Audio\n"),
            "Intel 200 PCH HD Audio");
  EXPECT_EQ(AudioString(*none, "00:05.0 Multimedia audio controller: Intel Corporation 82801AA AC'97 Audio "
                               "Controller (rev 01)\n"),
            "Intel 82801AA AC 97 Audio");  // PTS turns the quote into a space
}

TEST(Monitor, EdidNamesWithRepeatsCounted) {
  auto r = Fixture("intel-desktop");
  EXPECT_EQ(MonitorString(*r), "2 x DELL U2415");
  EXPECT_EQ(MonitorString(*Fixture("debian12-kvm-docker")), "");
}

TEST(Monitor, EdidDescriptorParsing) {
  std::string edid(128, '\0');
  std::string header = "\x00\xff\xff\xff\xff\xff\xff\x00";
  edid.replace(0, 8, header.data(), 8);
  std::string serial = std::string("\x00\x00\x00\xff\x00", 5) + "SN/12345\n    ";
  std::string name = std::string("\x00\x00\x00\xfc\x00", 5) + "LG ULTRAGEAR\n";
  edid.replace(72, serial.size(), serial);
  edid.replace(90, name.size(), name);
  EXPECT_EQ(EdidMonitorName(edid), "LG ULTRAGEAR");
  EXPECT_EQ(EdidMonitorName(std::string(128, '\0')), "");
}

}  // namespace
}  // namespace ptsn::sysinfo
