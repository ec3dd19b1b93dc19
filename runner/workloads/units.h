// Sizes and durations as users type them on the command line ("4k", "1m", "256m", "1g", "3s").
#pragma once

#include <cstdint>
#include <string>

namespace ptsn::workloads {

// "4096", "4k", "4K", "4KiB", "1m", "256M", "2g": binary multiples (k = 1024), as fio and dd read
// them. Throws ptsn::Error naming `option` and the text when it is not a size or is zero.
uint64_t ParseSize(const std::string& text, const std::string& option);

// A positive integer option ("--threads 2"); throws ptsn::Error naming the option otherwise.
long ParseCount(const std::string& text, const std::string& option);

// "1.5", "3s", "500ms" -> seconds; throws ptsn::Error naming the option otherwise.
double ParseSeconds(const std::string& text, const std::string& option);

// 4096 -> "4 KiB", 1048576 -> "1 MiB", 1000 -> "1000 B": for messages.
std::string FormatSize(uint64_t bytes);

constexpr double kMiB = 1024.0 * 1024.0;

}  // namespace ptsn::workloads
