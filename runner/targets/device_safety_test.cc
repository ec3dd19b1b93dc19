#include "runner/targets/device_safety.h"

#include <gtest/gtest.h>

#include "runner/common/error.h"
#include "runner/targets/fake_system.h"

namespace ptsn::targets {
namespace {

std::string Refusal(testing::FakeSystem& sys, const DeviceFlags& flags, const AskToType& ask) {
  try {
    ConfirmedDevice(sys, flags, ask);
  } catch (const Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(DeviceSafety, NoDeviceNamedMeansLoopFiles) {
  testing::FakeSystem sys;
  EXPECT_EQ(ConfirmedDevice(sys, {}, nullptr), "");
  EXPECT_TRUE(sys.log.empty());
}

TEST(DeviceSafety, BatchNeedsTheExplicitFlag) {
  testing::FakeSystem sys;
  EXPECT_EQ(Refusal(sys, {"/dev/sdz", std::nullopt}, nullptr),
            "--device /dev/sdz: refusing to write to a device without a typed confirmation; this run cannot ask, so "
            "confirm with --destroy-data-on /dev/sdz");
  EXPECT_EQ(ConfirmedDevice(sys, {std::nullopt, "/dev/sdz"}, nullptr), "/dev/sdz");
  EXPECT_EQ(ConfirmedDevice(sys, {"/dev/sdz", "/dev/sdz"}, nullptr), "/dev/sdz");
  EXPECT_EQ(Refusal(sys, {"/dev/sdz", "/dev/sdy"}, nullptr),
            "--device /dev/sdz and --destroy-data-on /dev/sdy name different devices: refusing to touch either");
}

TEST(DeviceSafety, InteractiveNeedsTheDeviceTypedBack) {
  testing::FakeSystem sys;
  std::string asked;
  auto typing = [&](std::string answer) {
    return [&asked, answer](const std::string& q) -> std::optional<std::string> {
      asked = q;
      return answer;
    };
  };
  EXPECT_EQ(ConfirmedDevice(sys, {"/dev/sdz", std::nullopt}, typing("/dev/sdz\n")), "/dev/sdz");
  EXPECT_EQ(asked, "All data on /dev/sdz (4096 MiB) will be destroyed by the targets. Type /dev/sdz to go on: ");
  EXPECT_EQ(Refusal(sys, {"/dev/sdz", std::nullopt}, typing("y")),
            "--device /dev/sdz: not confirmed (typed 'y'); nothing was touched");
}

TEST(DeviceSafety, ABusyDeviceIsRefusedEvenWithTheFlag) {
  testing::FakeSystem sys;
  sys.busy_reason = "mounted";
  EXPECT_EQ(Refusal(sys, {std::nullopt, "/dev/sdz"}, nullptr),
            "--device /dev/sdz: in use (mounted); refusing to destroy its data");
}

}  // namespace
}  // namespace ptsn::targets
