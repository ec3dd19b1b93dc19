#include "runner/common/terminal.h"

#include <gtest/gtest.h>

#include "runner/common/error.h"

namespace ptsn {
namespace {

TEST(TerminalWidth, PtsRuleVariableThenTerminalOfAtLeast40Then80) {
  EXPECT_EQ(ChooseTerminalWidth(std::nullopt, 0), 80);  // off a terminal: 80, not the library's 79
  EXPECT_EQ(ChooseTerminalWidth(std::nullopt, 132), 132);
  EXPECT_EQ(ChooseTerminalWidth(std::nullopt, 39), 80);  // stty size below 40 columns is not trusted
  EXPECT_EQ(ChooseTerminalWidth(std::string(""), 100), 100);
  EXPECT_EQ(ChooseTerminalWidth(std::string("120"), 100), 120);
  EXPECT_THROW(ChooseTerminalWidth(std::string("wide"), 100), Error);
  EXPECT_THROW(ChooseTerminalWidth(std::string("5"), 100), Error);
  try {
    ChooseTerminalWidth(std::string("12x"), 0);
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "TERMINAL_WIDTH: '12x' is not a width (20..10000)");
    EXPECT_EQ(e.exit_code(), 2);
  }
}

}  // namespace
}  // namespace ptsn
