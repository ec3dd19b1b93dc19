// A whole-buffer bzip2 decoder for the server's composite_xml_bz uploads: the stream is in
// memory, so it reads bits from one buffer instead of running libbz2's resumable state machine,
// decodes Huffman codes through lookup tables and walks the inverse BWT as many short segments
// by several independent load chains at once (bunzip2.cc says how), ~2.4x libbz2's speed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ptsn::wire {

// The first bzip2 stream in `stream`, decompressed. nullopt if it is not a complete, valid
// stream (bad magic or tables, a block or stream CRC that does not match, cut short) or if it
// decompresses to more than max_output bytes. Bytes after the stream's end marker are ignored.
// Accepts exactly the streams libbz2 1.0.8 accepts, with the same output (obsolete "randomised"
// blocks are handed to wire::Libbz2Bunzip2 whole: not worth a second inverse-BWT path).
std::optional<std::string> Bunzip2(std::string_view stream, size_t max_output);

}  // namespace ptsn::wire
