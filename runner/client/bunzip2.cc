// bzip2 stream layout, as decoded here (all fields most significant bit first, not byte-aligned
// after the header):
//   stream: "BZh" + level '1'..'9' (block size 100k * level), blocks, end marker
//   block:  48-bit magic 0x314159265359, 32-bit CRC of its output, 1-bit "randomised",
//           24-bit origin pointer, 16+16*k bits of which bytes occur, 3-bit table count (2..6),
//           15-bit selector count, selectors (unary, move-to-front coded), each table's code
//           lengths (5-bit start, then per symbol unary +1/-1 steps), then the Huffman-coded
//           symbols: RUNA/RUNB (a run of the front byte, its length in bijective base 2),
//           move-to-front positions, end of block. Every 50 symbols switch to the next selector's table.
//   end:    48-bit magic 0x177245385090, 32-bit combined CRC (rotate left 1, xor each block's).
// A block's symbols give the last column of the Burrows-Wheeler matrix; undoing the transform
// gives bytes that are still run-length coded (4 equal bytes, then a count 0..255 of more).
#include "runner/client/bunzip2.h"

#include <bzlib.h>

#include <algorithm>
#include <bit>
#include <cstdlib>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

#include <sys/mman.h>

#include "runner/client/wire.h"  // Libbz2Bunzip2, for randomised blocks

namespace ptsn::wire {
namespace {

constexpr int kMaxGroups = 6;         // Huffman tables per block
constexpr int kMaxAlphabet = 258;     // RUNA, RUNB, 255 move-to-front positions, end of block
constexpr int kMaxCodeLength = 20;
constexpr int kGroupSize = 50;        // symbols coded with one table before the next selector
constexpr int kMaxSelectors = 18002;  // libbz2 keeps this many and reads past the rest
constexpr int kFastBits = 10;         // codes up to this long decode with one table lookup

uint32_t LoadBe32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, sizeof v);
  return __builtin_bswap32(v);
}

uint64_t LoadBe64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return __builtin_bswap64(v);
}

// bzip2's CRC-32: polynomial 0x04c11db7, most significant bit first. Eight tables so that eight
// bytes fold in per step (slicing-by-8): t[k][b] is byte b followed by k zero bytes.
struct CrcTables {
  uint32_t t[8][256];
};

constexpr CrcTables MakeCrcTables() {
  CrcTables c{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t r = b << 24;
    for (int k = 0; k < 8; ++k) r = (r & 0x80000000u) ? (r << 1) ^ 0x04c11db7u : r << 1;
    c.t[0][b] = r;
  }
  for (int k = 1; k < 8; ++k)
    for (int b = 0; b < 256; ++b) c.t[k][b] = (c.t[k - 1][b] << 8) ^ c.t[0][c.t[k - 1][b] >> 24];
  return c;
}
constexpr CrcTables kCrc = MakeCrcTables();

uint32_t Crc32(const uint8_t* p, size_t n) {
  const auto& t = kCrc.t;
  uint32_t crc = 0xffffffffu;
  for (; n >= 8; p += 8, n -= 8) {
    const uint32_t x = crc ^ LoadBe32(p);
    crc = t[7][x >> 24] ^ t[6][(x >> 16) & 0xff] ^ t[5][(x >> 8) & 0xff] ^ t[4][x & 0xff] ^ t[3][p[4]] ^ t[2][p[5]] ^
          t[1][p[6]] ^ t[0][p[7]];
  }
  for (; n; --n) crc = (crc << 8) ^ t[0][(crc >> 24) ^ *p++];
  return ~crc;
}

// Bits of the whole input, most significant first, through a 64-bit window. Past the end of
// the input it reads zeros; Overran() tells whether any of those were consumed, which the
// decoder checks before it trusts what it read.
class BitReader {
 public:
  explicit BitReader(std::string_view in) : p_(reinterpret_cast<const uint8_t*>(in.data())), size_(in.size()) {}

  // At least 56 bits in the window afterwards.
  void Refill() {
    if (pos_ + 8 <= size_) {
      window_ |= LoadBe64(p_ + pos_) >> count_;
      pos_ += (63 - count_) >> 3;
      count_ |= 56;
    } else {
      for (; count_ <= 56; count_ += 8, ++pos_) window_ |= uint64_t(pos_ < size_ ? p_[pos_] : 0) << (56 - count_);
    }
  }
  int count() const { return count_; }
  // n in 1..32, with count() >= n.
  uint32_t Peek(int n) const { return static_cast<uint32_t>(window_ >> (64 - n)); }
  void Skip(int n) {
    window_ <<= n;
    count_ -= n;
  }
  uint32_t Get(int n) {
    if (count_ < n) Refill();
    const uint32_t v = Peek(n);
    Skip(n);
    return v;
  }
  bool Overran() const { return pos_ * 8 - static_cast<size_t>(count_) > size_ * 8; }

 private:
  const uint8_t* p_;
  size_t size_;
  size_t pos_ = 0;  // next byte to load; may pass size_ (zeros)
  uint64_t window_ = 0;
  int count_ = 0;  // valid bits at the top of window_
};

// One coding table. Codes are canonical as bzip2 assigns them: the codes of one length are
// consecutive, in symbol order, and each length's first code is twice one past the previous
// length's last. Lengths that do not make a complete prefix code are not refused (libbz2 does
// not refuse them either): a code that does not fit in its length can never be read, and a
// bit string that reaches no code is an error when it is met.
struct HuffmanTable {
  uint16_t fast[1 << kFastBits];  // by the next kFastBits bits: symbol << 5 | length; 0: longer or none
  int32_t limit[kMaxCodeLength + 1];  // last code of each length
  int32_t base[kMaxCodeLength + 1];   // code - base[length] = index in perm
  uint16_t perm[kMaxAlphabet];        // symbols by length, then by value
  int min_len, max_len;
};

void BuildTable(const uint8_t* lengths, int alphabet, HuffmanTable& h) {
  int count[kMaxCodeLength + 1] = {};
  h.min_len = kMaxCodeLength;
  h.max_len = 1;
  for (int i = 0; i < alphabet; ++i) {
    count[lengths[i]]++;
    h.min_len = std::min<int>(h.min_len, lengths[i]);
    h.max_len = std::max<int>(h.max_len, lengths[i]);
  }
  int start[kMaxCodeLength + 1];
  for (int l = 1, sum = 0; l <= kMaxCodeLength; ++l) {
    start[l] = sum;
    sum += count[l];
  }
  for (int i = 0; i < alphabet; ++i) h.perm[start[lengths[i]]++] = static_cast<uint16_t>(i);
  std::memset(h.fast, 0, sizeof h.fast);
  int32_t code = 0, index = 0;
  for (int l = h.min_len; l <= h.max_len; ++l) {
    h.base[l] = code - index;
    const int32_t first = code;
    code += count[l];
    index += count[l];
    h.limit[l] = code - 1;
    code <<= 1;
    if (l > kFastBits) continue;
    const int32_t last = std::min<int32_t>(h.limit[l], (1 << l) - 1);  // codes past that never come
    for (int32_t v = first; v <= last; ++v) {
      const auto entry = static_cast<uint16_t>(h.perm[v - h.base[l]] << 5 | l);
      std::fill_n(h.fast + (v << (kFastBits - l)), 1 << (kFastBits - l), entry);
    }
  }
}

// The next symbol, or -1 if the bits reach no code. Needs kMaxCodeLength bits in the window.
inline int DecodeSymbol(BitReader& br, const HuffmanTable& h, int alphabet) {
  if (const uint16_t e = h.fast[br.Peek(kFastBits)]) {
    br.Skip(e & 31);
    return e >> 5;
  }
  const uint32_t bits = br.Peek(kMaxCodeLength);
  for (int l = h.min_len; l <= h.max_len; ++l) {
    const auto code = static_cast<int32_t>(bits >> (kMaxCodeLength - l));
    if (code <= h.limit[l]) {
      const int32_t index = code - h.base[l];
      if (index < 0 || index >= alphabet) return -1;  // cannot happen (see BuildTable); libbz2 refuses it too
      br.Skip(l);
      return h.perm[index];
    }
  }
  return -1;
}

// The decompressed bytes so far, in a string grown by doubling, never past max_output.
class Output {
 public:
  explicit Output(size_t max_output) : max_(max_output) {}
  size_t size() const { return len_; }
  const uint8_t* data() const { return reinterpret_cast<const uint8_t*>(buf_.data()); }
  // Makes room for about n more bytes up front (a hint: never fails).
  void Expect(size_t n) {
    n = std::min(n, max_ - len_);
    if (len_ + n > buf_.size()) buf_.resize(len_ + n);
  }
  bool Append(const uint8_t* p, size_t n) {
    if (!Grow(n)) return false;
    std::memcpy(&buf_[len_], p, n);
    len_ += n;
    return true;
  }
  bool Fill(uint8_t c, size_t n) {
    if (!Grow(n)) return false;
    std::memset(&buf_[len_], c, n);
    len_ += n;
    return true;
  }
  std::string Take() {
    buf_.resize(len_);
    return std::move(buf_);
  }

 private:
  bool Grow(size_t n) {
    if (n > max_ - len_) return false;
    if (len_ + n > buf_.size()) buf_.resize(std::min(std::max(len_ + n, buf_.size() * 2), max_));
    return true;
  }
  std::string buf_;
  size_t len_ = 0, max_;
};

// Undoes the first run-length stage: after four equal bytes comes a count of 0..255 more.
// false if the output would pass its limit, or if the block ends where a count is due (libbz2
// refuses such a block: it reads the count past the block's end). Runs are found eight bytes
// at a time; the bytes between them are copied in one go.
bool UndoRunLengths(const uint8_t* in, size_t n, Output& out) {
  size_t i = 0, literal = 0;  // i: where a run may start (after a count); in[literal, i) not yet copied
  auto run_at = [&](size_t k) {  // in[k..k+3] are equal, in[k+4] the count
    if (k + 4 >= n || !out.Append(in + literal, k + 4 - literal) || !out.Fill(in[k], in[k + 4])) return false;
    i = literal = k + 5;
    return true;
  };
  static_assert(std::endian::native == std::endian::little);
  constexpr uint64_t kLow7 = 0x7f7f7f7f7f7f7f7full;
  while (i + 8 <= n) {
    uint64_t v;
    std::memcpy(&v, in + i, sizeof v);  // little-endian: byte k of v is in[i + k]
    const uint64_t d = v ^ (v >> 8);    // byte k (k < 7) zero: in[i + k] == in[i + k + 1]
    const uint64_t zero = ~(((d & kLow7) + kLow7) | d | kLow7);  // bit 7 of each zero byte
    const uint64_t run4 = zero & (zero >> 8) & (zero >> 16) & 0x8080808080ull;  // runs starting at 0..4
    if (!run4) {
      i += 5;
      continue;
    }
    if (!run_at(i + (static_cast<size_t>(__builtin_ctzll(run4)) >> 3))) return false;
  }
  for (int run = 0, prev = -1; i < n;) {  // the last few bytes, one at a time
    const int c = in[i++];
    if (c != prev) {
      prev = c;
      run = 1;
    } else if (++run == 4) {
      if (!run_at(i - 4)) return false;
      prev = -1;
    }
  }
  return out.Append(in + literal, n - literal);
}

// The inverse BWT. Rows of the sorted matrix: F is its first column (the sorted bytes), L its
// last (the block). T[j] is the row i where L[i] is the same occurrence of a byte as F[j]; the
// output is F[s_0], F[s_1], ... with s_0 = orig_ptr and s_k+1 = T[s_k].
//
// That walk is a chain of dependent loads, one cache miss per byte, so it is cut into segments
// walked by several lanes at once: segments start at every step-th row and at orig_ptr, and
// each ends where the walk reaches another segment's start (flagged in the entry of the row
// before). Segments are then joined in order from orig_ptr's. If they do not join into one
// cycle of n rows (only a corrupt block), libbz2's plain walk of n steps is used instead.
constexpr int kLanes = 8;
constexpr int kSegments = 64;
constexpr int kEntryShift = 9;               // entry: T[j] << 9 | segment end << 8 | F[j]
constexpr uint32_t kSegmentEnd = 1u << 8;

// block[begin, end): one byte, from a RUNA/RUNB run of kLongRun or more.
struct Run {
  uint32_t begin, end;
};
constexpr uint32_t kLongRun = 8;

struct BwtMemory {
  uint32_t* entries;  // n
  uint8_t* lanes;     // kLanes * n: each lane's bytes, segment after segment
};

// One allocation for both. A big block's walk lands on a new 4 KB page nearly every step and
// the TLB misses cost more than the loads (a 3 MB stream with the earlier two-chain walk: ~97
// -> ~60 ms with huge pages); a small block's entries fit the TLB, and a huge page would be
// cleared on every call.
uint8_t* AllocateBwt(size_t n, BwtMemory& m) {
  constexpr size_t kHuge = 2 << 20;
  const size_t bytes = n * sizeof(uint32_t) + kLanes * n;
  uint8_t* p;
  if (n * sizeof(uint32_t) < kHuge) {
    p = static_cast<uint8_t*>(std::malloc(bytes));
  } else {
    const size_t rounded = (bytes + kHuge - 1) & ~(kHuge - 1);
    p = static_cast<uint8_t*>(std::aligned_alloc(kHuge, rounded));
    // Only the entries: the lanes write their bytes in order.
    if (p) madvise(p, (n * sizeof(uint32_t) + kHuge - 1) & ~(kHuge - 1), MADV_HUGEPAGE);  // a hint
  }
  if (!p) throw std::bad_alloc();
  m.entries = reinterpret_cast<uint32_t*>(p);
  m.lanes = p + n * sizeof(uint32_t);
  return p;
}

struct Free {
  void operator()(uint8_t* p) const { std::free(p); }
};

// block[0..n) (L, with counts[c] of each byte c and its long runs of one byte, in order) into
// out[0..n); out may be block.
void InverseBwt(const uint8_t* block, uint32_t n, uint32_t orig_ptr, const uint32_t* counts,
                const std::vector<Run>& runs, const BwtMemory& m, uint8_t* out) {
  uint32_t starts[kSegments + 1];
  int segments = 0;
  const uint32_t step = (n + kSegments - 1) / kSegments;
  for (uint32_t r = 0; r < n; r += step) {
    if (orig_ptr > (r == 0 ? 0 : starts[segments - 1]) && orig_ptr < r) starts[segments++] = orig_ptr;
    starts[segments++] = r;
  }
  if (orig_ptr > starts[segments - 1]) starts[segments++] = orig_ptr;
  const int origin = static_cast<int>(std::lower_bound(starts, starts + segments, orig_ptr) - starts);

  // Entries (a counting sort of L), noting for each segment start the row whose T it is. In
  // the long runs, next[c]++ would wait on its own store each time.
  uint32_t next[256];
  for (uint32_t c = 0, sum = 0; c < 256; ++c) {
    next[c] = sum;
    sum += counts[c];
  }
  uint32_t* const entries = m.entries;
  uint32_t before_start[kSegments + 1];
  size_t run = 0;
  for (int s = 0; s < segments; ++s) {
    const uint32_t end = s + 1 < segments ? starts[s + 1] : n;
    before_start[s] = next[block[starts[s]]];
    for (uint32_t i = starts[s]; i < end;) {
      while (run < runs.size() && runs[run].end <= i) ++run;
      if (run < runs.size() && runs[run].begin <= i) {  // in a long run: next[c] in a register
        const uint32_t c = block[i], stop = std::min(runs[run].end, end);
        uint32_t j = next[c];
        for (; i < stop; ++i, ++j) entries[j] = i << kEntryShift | c;
        next[c] = j;
      } else {
        const uint32_t stop = run < runs.size() ? std::min(runs[run].begin, end) : end;
        for (; i < stop; ++i) {
          const uint32_t c = block[i];
          entries[next[c]++] = i << kEntryShift | c;
        }
      }
    }
  }
  for (int s = 0; s < segments; ++s) entries[before_start[s]] |= kSegmentEnd;

  struct Segment {
    const uint8_t* bytes;
    uint32_t size;
    int next;
  };
  Segment seg[kSegments + 1];
  uint32_t row[kLanes];
  uint8_t* dst[kLanes];
  int current[kLanes];  // segment, or -1 when the lane is done
  int assigned = 0, active = 0;
  auto take = [&](int l) {
    if (assigned == segments) {
      current[l] = -1;
      return;
    }
    current[l] = assigned;
    row[l] = starts[assigned];
    seg[assigned++].bytes = dst[l];
    ++active;
  };
  auto finish = [&](int l) {  // lane l reached row[l], a segment start
    Segment& s = seg[current[l]];
    s.size = static_cast<uint32_t>(dst[l] - s.bytes);
    s.next = static_cast<int>(std::lower_bound(starts, starts + segments, row[l]) - starts);
    --active;
    take(l);
  };
  for (int l = 0; l < kLanes; ++l) {
    dst[l] = m.lanes + static_cast<size_t>(l) * n;
    take(l);
  }
  // All lanes busy: independent chains, kept in registers (the arrays are scalarised).
  while (active == kLanes) {
    uint32_t r[kLanes], e[kLanes], ends;
    uint8_t* d[kLanes];
#pragma GCC unroll 16
    for (int l = 0; l < kLanes; ++l) r[l] = row[l], d[l] = dst[l];
    do {
      ends = 0;
#pragma GCC unroll 16
      for (int l = 0; l < kLanes; ++l) {
        e[l] = entries[r[l]];
        *d[l]++ = static_cast<uint8_t>(e[l]);
        r[l] = e[l] >> kEntryShift;
        ends |= e[l];
      }
    } while (!(ends & kSegmentEnd));
#pragma GCC unroll 16
    for (int l = 0; l < kLanes; ++l) row[l] = r[l], dst[l] = d[l];
    for (int l = 0; l < kLanes; ++l)
      if (e[l] & kSegmentEnd) finish(l);
  }
  // The last segments, lane by lane in turn.
  while (active > 0) {
    for (int l = 0; l < kLanes; ++l) {
      if (current[l] < 0) continue;
      const uint32_t e = entries[row[l]];
      *dst[l]++ = static_cast<uint8_t>(e);
      row[l] = e >> kEntryShift;
      if (e & kSegmentEnd) finish(l);
    }
  }

  uint32_t size = 0;
  int s = origin;
  for (int joined = 0; joined < segments && seg[s].size <= n - size; ++joined) {
    std::memcpy(out + size, seg[s].bytes, seg[s].size);
    size += seg[s].size;
    s = seg[s].next;
    if (s == origin) break;
  }
  if (s == origin && size == n) return;
  // Not one cycle: libbz2 follows T for n steps from orig_ptr, around the shorter cycle.
  for (uint32_t k = 0, r = orig_ptr; k < n; ++k) {
    const uint32_t e = entries[r];
    out[k] = static_cast<uint8_t>(e);
    r = e >> kEntryShift;
  }
}

// What one call needs besides its output, sized by the stream's level.
struct Workspace {
  HuffmanTable tables[kMaxGroups];
  uint8_t selectors[kMaxSelectors];
};

}  // namespace

std::optional<std::string> Bunzip2(std::string_view stream, size_t max_output) {
  if (stream.size() < 4 || stream.substr(0, 3) != "BZh" || stream[3] < '1' || stream[3] > '9') return std::nullopt;
  const uint32_t block_max = 100000 * static_cast<uint32_t>(stream[3] - '0');
  BitReader br(stream.substr(4));
  Output out(max_output);
  std::unique_ptr<Workspace> ws(new Workspace);
  std::unique_ptr<uint8_t[]> block(new uint8_t[block_max]);  // the BWT's last column, then its inverse
  std::unique_ptr<uint8_t, Free> bwt_mem;  // the inverse BWT's
  std::vector<Run> long_runs;
  BwtMemory bwt{};
  uint32_t bwt_size = 0;
  uint32_t combined_crc = 0;
  for (;;) {
    const uint32_t magic_hi = br.Get(24), magic_lo = br.Get(24);
    if (magic_hi == 0x177245 && magic_lo == 0x385090) {
      const uint32_t crc = br.Get(32);
      if (br.Overran() || crc != combined_crc) return std::nullopt;
      return out.Take();
    }
    if (magic_hi != 0x314159 || magic_lo != 0x265359) return std::nullopt;
    const uint32_t block_crc = br.Get(32);
    if (br.Get(1)) return Libbz2Bunzip2(stream, max_output);  // randomised: see bunzip2.h
    const uint32_t orig_ptr = br.Get(24);

    // Which bytes occur: their move-to-front list starts in byte order.
    uint8_t mtf[256];
    int in_use = 0;
    const uint32_t used16 = br.Get(16);
    for (int i = 0; i < 16; ++i) {
      if (!(used16 & (0x8000u >> i))) continue;
      const uint32_t used = br.Get(16);
      for (int j = 0; j < 16; ++j)
        if (used & (0x8000u >> j)) mtf[in_use++] = static_cast<uint8_t>(i * 16 + j);
    }
    if (in_use == 0) return std::nullopt;
    const int alphabet = in_use + 2, end_of_block = in_use + 1;

    const int groups = static_cast<int>(br.Get(3));
    if (groups < 2 || groups > kMaxGroups) return std::nullopt;
    const int selectors = static_cast<int>(br.Get(15));
    if (selectors < 1) return std::nullopt;
    uint8_t order[kMaxGroups] = {0, 1, 2, 3, 4, 5};
    for (int i = 0; i < selectors; ++i) {
      int j = 0;
      while (br.Get(1))
        if (++j >= groups) return std::nullopt;
      const uint8_t g = order[j];
      std::memmove(order + 1, order, j);
      order[0] = g;
      if (i < kMaxSelectors) ws->selectors[i] = g;
    }

    for (int t = 0; t < groups; ++t) {
      uint8_t lengths[kMaxAlphabet];
      int len = static_cast<int>(br.Get(5));
      for (int i = 0; i < alphabet; ++i) {
        for (;;) {
          if (len < 1 || len > kMaxCodeLength) return std::nullopt;
          if (!br.Get(1)) break;
          len += br.Get(1) ? -1 : 1;
        }
        lengths[i] = static_cast<uint8_t>(len);
      }
      BuildTable(lengths, alphabet, ws->tables[t]);
    }

    // The symbols, undoing move-to-front and RUNA/RUNB runs into the block.
    uint32_t n = 0, counts[256] = {};
    long_runs.clear();
    uint32_t run = 0, run_weight = 1;
    const HuffmanTable* table = nullptr;
    for (int group = 0, left = 0, usable = std::min(selectors, kMaxSelectors);;) {
      if (left == 0) {
        if (group >= usable) return std::nullopt;
        table = &ws->tables[ws->selectors[group++]];
        left = kGroupSize;
      }
      --left;
      if (br.count() < kMaxCodeLength) br.Refill();
      const int sym = DecodeSymbol(br, *table, alphabet);
      if (sym < 0) return std::nullopt;
      if (sym <= 1) {  // RUNA adds the digit's weight, RUNB twice it
        if (run_weight > (1u << 20)) return std::nullopt;  // libbz2's cap; longer than any block anyway
        run += run_weight << sym;
        run_weight <<= 1;
        continue;
      }
      if (run) {
        if (run > block_max - n) return std::nullopt;
        if (run >= kLongRun) long_runs.push_back({n, n + run});
        std::memset(block.get() + n, mtf[0], run);
        counts[mtf[0]] += run;
        n += run;
        run = 0;
        run_weight = 1;
      }
      if (sym == end_of_block) break;
      if (n >= block_max) return std::nullopt;
      const int k = sym - 1;
      const uint8_t c = mtf[k];
      std::memmove(mtf + 1, mtf, k);
      mtf[0] = c;
      block[n++] = c;
      counts[c]++;
    }
    if (br.Overran() || orig_ptr >= n) return std::nullopt;

    if (bwt_size < n) {
      bwt_mem.reset(AllocateBwt(n, bwt));
      bwt_size = n;
    }
    InverseBwt(block.get(), n, orig_ptr, counts, long_runs, bwt, block.get());
    const uint8_t* bytes = block.get();

    const size_t start = out.size();
    out.Expect(n + n / 8);
    if (!UndoRunLengths(bytes, n, out)) return std::nullopt;
    const uint32_t crc = Crc32(out.data() + start, out.size() - start);
    if (crc != block_crc) return std::nullopt;
    combined_crc = (combined_crc << 1 | combined_crc >> 31) ^ crc;
  }
}

}  // namespace ptsn::wire
