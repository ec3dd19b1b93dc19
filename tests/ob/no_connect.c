/* LD_PRELOAD shim for the --offline tests: every attempt to open an IPv4/IPv6 socket or to
 * connect() one is written to $PTSN_CONNECT_LOG and fails with EACCES, so a test can show that a
 * command opened no network socket (an empty log), and, run without --offline, that the shim does
 * catch what libcurl does (a log with lines in it). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static void note(const char* what, int domain) {
  const char* path = getenv("PTSN_CONNECT_LOG");
  if (!path) return;
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[96];
  int n = snprintf(line, sizeof line, "%s domain=%d pid=%d\n", what, domain, (int)getpid());
  if (n > 0) (void)!write(fd, line, (size_t)n);
  close(fd);
}

int socket(int domain, int type, int protocol) {
  if (domain == AF_INET || domain == AF_INET6) {
    note("socket", domain);
    errno = EACCES;
    return -1;
  }
  return (int)syscall(SYS_socket, domain, type, protocol);
}

int connect(int fd, const struct sockaddr* addr, socklen_t len) {
  if (addr && (addr->sa_family == AF_INET || addr->sa_family == AF_INET6)) {
    note("connect", addr->sa_family);
    errno = EACCES;
    return -1;
  }
  return (int)syscall(SYS_connect, fd, addr, len);
}
