#include "runner/fleet/job_spec.h"

#include <gtest/gtest.h>

#include "runner/common/error.h"

namespace ptsn::fleet {
namespace {

std::string Refusal(const JobSpec& spec) {
  try {
    CheckJobSpec(spec);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(JobSpec, RoundTripsThroughJson) {
  JobSpec s{{"native/cipher", "pts/fio-2.1.0"}, "cipher.threads=1;fio.type=Random Read", 3};
  JobSpec back = JobSpecFromJson(JobSpecToJson(s));
  EXPECT_EQ(back.tests, s.tests);
  EXPECT_EQ(back.presets, s.presets);
  EXPECT_EQ(back.times, 3);
}

TEST(JobSpec, NamesThatCouldBePathsOrOptionsAreRefused) {
  for (const char* bad : {"/etc/passwd", "../x", "a/../b", "-rf", "a/b/c", "x y", "a;b", ".hidden", "a/.b", "a/", ""})
    EXPECT_NE(Refusal({{bad}, "", 0}), "") << bad;
  EXPECT_EQ(Refusal({{"native/cipher"}, "", 0}), "");
  EXPECT_EQ(Refusal({{"default"}, "", 0}), "");
}

TEST(JobSpec, PresetsTimesAndFieldsAreChecked) {
  EXPECT_NE(Refusal({{"a"}, "garbage", 0}).find("not test.option=choice"), std::string::npos);
  EXPECT_NE(Refusal({{"a"}, "a.b=c\n", 0}).find("control"), std::string::npos);
  EXPECT_EQ(Refusal({{"a"}, "a.b=c;;a.d=1,2", 0}), "");
  EXPECT_NE(Refusal({{"a"}, "", 101}).find("times"), std::string::npos);
  EXPECT_NE(Refusal({{}, "", 0}).find("no test"), std::string::npos);
  EXPECT_THROW(JobSpecFromJson(R"({"tests":["a"],"command":"rm -rf /"})"), Error) << "unknown fields are refused";
  EXPECT_THROW(JobSpecFromJson(R"({"tests":"a"})"), Error);
  EXPECT_THROW(JobSpecFromJson("[]"), Error);
}

TEST(JobSpec, MachineSelectors) {
  EXPECT_NO_THROW(CheckMachineSelector("all"));
  EXPECT_NO_THROW(CheckMachineSelector("tag:nightly"));
  EXPECT_NO_THROW(CheckMachineSelector("m1,m2"));
  EXPECT_THROW(CheckMachineSelector("tag:"), Error);
  EXPECT_THROW(CheckMachineSelector("m 1"), Error);
  EXPECT_THROW(CheckMachineName(std::string(65, 'a')), Error);
}

}  // namespace
}  // namespace ptsn::fleet
