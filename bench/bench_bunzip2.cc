// Bunzip2 against libbz2 (Libbz2Bunzip2: the server's former streaming loop) on the upload the
// server benchmark sends and on bigger inputs: thread CPU per decode, the two interleaved round
// by round (alternating which goes first) so that machine noise hits both, medians.
//   bench_bunzip2 [ROUNDS] [NAME-FILTER]
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "runner/client/bunzip2.h"
#include "runner/openbenchmarking/wire.h"
#include "server/testing/sample_result.h"

namespace {

double CpuMicros() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::string Text(std::mt19937& rng, size_t n) {
  static const char* kWords[] = {"the", "result", "of", "a", "benchmark", "run", "on", "disk", "encryption", "with",
                                 "AES", "XTS", "mode", "and", "Phoronix", "Test", "Suite", "seconds", "MB/s", "is"};
  std::string s;
  while (s.size() < n) {
    s += kWords[rng() % std::size(kWords)];
    s += (rng() % 12 == 0) ? ".\n" : " ";
    if (rng() % 9 == 0) s += std::to_string(rng() % 100000);
  }
  s.resize(n);
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  namespace wire = ptsn::wire;
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 200;
  std::mt19937 rng(42);
  struct Input {
    std::string name, data;
    int level;
  };
  std::vector<Input> inputs;
  inputs.push_back({"bench sample XML (100 results)", ptsn::server::testing::SampleCompositeXml("Bench Upload 0", 100, 2, 0), 8});
  {
    std::ifstream f("/work/shared/reference/seed-results/ubuntu-1304-disk-encryption.xml");
    std::stringstream ss;
    ss << f.rdbuf();
    if (!ss.str().empty()) inputs.push_back({"seed XML (disk encryption)", ss.str(), 8});
  }
  inputs.push_back({"random text 1 MB", Text(rng, 1 << 20), 9});
  std::string multi;
  while (multi.size() < (3u << 20)) multi += ptsn::server::testing::SampleCompositeXml("M", 50, 2, int(multi.size())) + Text(rng, 200000);
  multi.resize(3u << 20);
  inputs.push_back({"multi-block 3 MB (XML + text)", multi, 9});

  std::printf("%-32s %9s %9s %12s %12s %7s %9s\n", "input", "bytes", "bz2", "libbz2 us", "Bunzip2 us", "ratio", "rnd ratio");
  for (const auto& in : inputs) {
    if (argc > 2 && in.name.find(argv[2]) == std::string::npos) continue;
    const std::string z = wire::Bzip2Compress(in.data, in.level);
    if (wire::Bunzip2(z, 64 << 20) != in.data || wire::Libbz2Bunzip2(z, 64 << 20) != in.data) {
      std::printf("%s: WRONG OUTPUT\n", in.name.c_str());
      return 1;
    }
    const int n = in.data.size() > (512 << 10) ? std::max(rounds / 10, 11) : rounds;
    std::vector<double> a, b, ratio;
    for (int r = 0; r < n; ++r) {
      double ta = 0, tb = 0;
      for (int k = 0; k < 2; ++k) {
        const bool libbz2 = (k == 0) == (r % 2 == 0);
        const double t0 = CpuMicros();
        auto out = libbz2 ? wire::Libbz2Bunzip2(z, 64 << 20) : wire::Bunzip2(z, 64 << 20);
        const double t = CpuMicros() - t0;
        if (!out) return 1;
        (libbz2 ? ta : tb) = t;
      }
      a.push_back(ta);
      b.push_back(tb);
      ratio.push_back(ta / tb);
    }
    std::printf("%-32s %9zu %9zu %12.1f %12.1f %6.2fx %8.2fx\n", in.name.c_str(), in.data.size(), z.size(), Median(a),
                Median(b), Median(a) / Median(b), Median(ratio));
  }
}
