// The cost behind bench_disk.sh's fio --iomem_align: buffered reads of a cached file into a
// page-aligned buffer and into one 16 bytes past a page (where fio's default malloc'd buffer
// sits). On AMD EPYC the kernel's rep-movsb copy to the second runs several times slower.
//   copy_align FILE MIB     (reads the first MIB MiB of FILE, once to cache it, then timed)
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double ReadAll(int fd, char* buf, off_t bytes) {
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (off_t off = 0; off < bytes; off += 1 << 20)
    if (pread(fd, buf, 1 << 20, off) != 1 << 20) return -1;
  clock_gettime(CLOCK_MONOTONIC, &b);
  return (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
}

static int Cmp(const void* x, const void* y) {
  double a = *(const double*)x, b = *(const double*)y;
  return (a > b) - (a < b);
}

int main(int argc, char** argv) {
  if (argc != 3) return fprintf(stderr, "usage: copy_align FILE MIB\n"), 2;
  int fd = open(argv[1], O_RDONLY);
  off_t bytes = (off_t)atoi(argv[2]) << 20;
  char* base;
  if (fd < 0 || posix_memalign((void**)&base, 4096, (1 << 20) + 4096) != 0) return perror(argv[1]), 1;
  if (ReadAll(fd, base, bytes) < 0) return fprintf(stderr, "%s: shorter than %s MiB\n", argv[1], argv[2]), 1;
  enum { kRuns = 5 };
  double t[2][kRuns];
  for (int r = 0; r < kRuns; ++r)  // interleaved, median of each
    for (int k = 0; k < 2; ++k) t[k][r] = ReadAll(fd, base + (k ? 16 : 0), bytes);
  for (int k = 0; k < 2; ++k) qsort(t[k], kRuns, sizeof(double), Cmp);
  printf("page-cache copy floor (pread 1 MiB of a cached file, median of %d): buffer at page+0 %.0f MiB/s, at page+16 %.0f MiB/s\n",
         kRuns, (double)(bytes >> 20) / t[0][kRuns / 2], (double)(bytes >> 20) / t[1][kRuns / 2]);
  return 0;
}
