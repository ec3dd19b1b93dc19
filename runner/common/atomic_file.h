// Writing files so that a reader never sees half of one: write a temporary file beside the
// target, fsync it, rename it into place. A failure leaves the previous file untouched.
#pragma once

#include <string>
#include <string_view>

namespace ptsn {

// Replaces `path` with `content` atomically. Throws ptsn::Error naming the path on failure
// (read-only directory, full disk, ...); the temporary file is removed in that case.
void WriteFileAtomically(const std::string& path, std::string_view content);

// Reads a whole file. Throws ptsn::Error naming the path when it cannot be read.
std::string ReadFile(const std::string& path);

// mkdir -p; throws ptsn::Error naming the directory on failure.
void MakeDirectories(const std::string& path);

}  // namespace ptsn
