// A PTS-shaped composite.xml of any size, for server tests, the load test and the benchmark.
// Layout follows PTS 10.8.6's writer (see ../shared/reference/pts-output/result-a/composite.xml).
#pragma once

#include <string>

namespace ptsn::server::testing {

inline std::string SampleCompositeXml(const std::string& title, int results = 3, int systems = 1, int salt = 0) {
  std::string x = "<?xml version=\"1.0\"?>\n<!--Phoronix Test Suite v10.8.6-->\n<PhoronixTestSuite>\n  <Generated>\n";
  x += "    <Title>" + title + "</Title>\n    <LastModified>2026-11-30 07:40:08</LastModified>\n";
  x += "    <TestClient>Phoronix Test Suite v10.8.6</TestClient>\n    <Description>Sample " + std::to_string(salt) +
       "</Description>\n  </Generated>\n";
  for (int s = 0; s < systems; ++s) {
    std::string id = "System " + std::to_string(s + 1);
    x += "  <System>\n    <Identifier>" + id + "</Identifier>\n";
    x += "    <Hardware>Processor: AMD EPYC (2 Cores), Memory: 24GB, Disk: 252GB</Hardware>\n";
    x += "    <Software>OS: Debian 12, Kernel: 6.1.0 (x86_64), File-System: ext4</Software>\n";
    x += "    <User>phoronix</User>\n    <TimeStamp>2026-11-30 07:38:31</TimeStamp>\n";
    x += "    <TestClientVersion>10.8.6</TestClientVersion>\n    <Notes></Notes>\n  </System>\n";
  }
  for (int r = 0; r < results; ++r) {
    x += "  <Result>\n    <Identifier>pts/fio-2.1." + std::to_string(r % 10) + "</Identifier>\n";
    x += "    <Title>Flexible IO Tester</Title>\n    <AppVersion>3.33</AppVersion>\n";
    x += "    <Arguments>--bs=" + std::to_string(4 << (r % 8)) + "k</Arguments>\n";
    x += "    <Description>Block Size: " + std::to_string(4 << (r % 8)) + "KB - Test " + std::to_string(r) +
         "</Description>\n";
    x += "    <Scale>MB/s</Scale>\n    <Proportion>HIB</Proportion>\n    <DisplayFormat>BAR_GRAPH</DisplayFormat>\n";
    x += "    <Data>\n";
    for (int s = 0; s < systems; ++s) {
      int base = 100 + (r * 7 + s * 13 + salt) % 50;
      x += "      <Entry>\n        <Identifier>System " + std::to_string(s + 1) + "</Identifier>\n";
      x += "        <Value>" + std::to_string(base) + ".13</Value>\n";
      x += "        <RawString>" + std::to_string(base + 1) + ".1:" + std::to_string(base - 2) + ".99:" +
           std::to_string(base + 1) + ".29</RawString>\n";
      x += "        <JSON>{\"test-run-times\":\"10.66:8.05:7.92\"}</JSON>\n      </Entry>\n";
    }
    x += "    </Data>\n  </Result>\n";
  }
  return x + "</PhoronixTestSuite>\n";
}

}  // namespace ptsn::server::testing
