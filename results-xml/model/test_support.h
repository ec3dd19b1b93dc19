// Helpers shared by the results-xml unit tests: the shared reference tree and its result files.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "runner/common/atomic_file.h"
#include "runner/common/shared_dir.h"

namespace ptsn::results::test {

inline std::string SharedDir() { return ::ptsn::SharedDir(); }
inline std::string ReferenceDir() { return SharedDir() + "/reference"; }
inline bool HaveReference() { return std::filesystem::is_directory(ReferenceDir() + "/pts-output"); }

// Every result file under shared/reference (test-profile XMLs share the root element, so a
// result file is recognised by its <Generated> element).
inline std::vector<std::string> ReferenceResultFiles() {
  std::vector<std::string> out;
  if (!HaveReference()) return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(ReferenceDir())) {
    if (!e.is_regular_file() || e.path().extension() != ".xml") continue;
    std::string text = ReadFile(e.path().string());
    if (text.find("<PhoronixTestSuite>") != std::string::npos && text.find("<Generated>") != std::string::npos)
      out.push_back(e.path().string());
  }
  return out;
}

}  // namespace ptsn::results::test

#define PTSN_REQUIRE_REFERENCE()                                                              \
  if (!::ptsn::results::test::HaveReference())                                                \
  GTEST_SKIP() << "shared reference tree not found at " << ::ptsn::results::test::ReferenceDir()
