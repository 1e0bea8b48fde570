/* SPDX-License-Identifier: MIT */
/* The peer of bench/rt.sh, built by it against libcdevs (the wire format's encoder):
 *   rt_ping echo TO FROM N    N datagrams to 127.0.0.1:TO, one at a time, each waiting
 *                             for its echo on FROM: the round trip's p50/p99/max
 *   rt_ping flood TO N        one valid datagram (seq 1000000), then N garbage,
 *                             replayed and oversized datagrams at full rate: what was
 *                             sent, by the reason the receiver must drop it for
 * Both first wait (up to 30 s) until something holds port TO. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cdevs/udp.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static struct sockaddr_in loopback(int port) {
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

/* Waits until another socket holds the port (binding it fails). */
static int wait_bound(int port) {
  for (double t0 = now(); now() - t0 < 30;) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = loopback(port);
    int r = bind(fd, (struct sockaddr *)&a, sizeof a);
    close(fd);
    if (r < 0 && errno == EADDRINUSE) return 0;
    struct timespec ms = {0, 5000000};
    nanosleep(&ms, NULL);
  }
  fprintf(stderr, "rt_ping: nothing took port %d in 30 s\n", port);
  return -1;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int echo(int to, int from, int n) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  struct sockaddr_in me = loopback(from), dst = loopback(to);
  if (bind(fd, (struct sockaddr *)&me, sizeof me) < 0) {
    perror("rt_ping: bind");
    return 1;
  }
  struct timeval tv = {1, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  if (wait_bound(to)) return 1;
  double *rtt = malloc((size_t)n * sizeof *rtt);
  int got = 0, lost = 0;
  unsigned char buf[256], in[256];
  for (int i = 0; i < n; i++) {
    double v = i;
    size_t len = cdevs_udp_encode(buf, sizeof buf, (uint64_t)i + 1, 0.0, &v, 1, 0);
    double t0 = now();
    sendto(fd, buf, len, 0, (struct sockaddr *)&dst, sizeof dst);
    for (;;) { /* the echo of this one (a late echo of an earlier one is skipped) */
      ssize_t r = recv(fd, in, sizeof in, 0);
      if (r < 0) {
        lost++;
        break;
      }
      double back;
      cdevs_udp_header h;
      if (cdevs_udp_decode(in, (size_t)r, 1, 0, &h, &back) == CDEVS_UDP_OK && back == v) {
        rtt[got++] = now() - t0;
        break;
      }
    }
    struct timespec gap = {0, 1000000}; /* 1 ms between pings */
    nanosleep(&gap, NULL);
  }
  qsort(rtt, (size_t)got, sizeof *rtt, cmp);
  if (!got) {
    printf("echo_received=0 echo_lost=%d\n", lost);
    return 1;
  }
  printf("echo_received=%d echo_lost=%d rtt_p50_us=%.1f rtt_p99_us=%.1f rtt_max_us=%.1f\n", got, lost,
         rtt[got / 2] * 1e6, rtt[(int)ceil(0.99 * got) - 1] * 1e6, rtt[got - 1] * 1e6);
  free(rtt);
  return 0;
}

static int flood(int to, int n) {
  if (wait_bound(to)) return 1;
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  int big = 4 << 20;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  struct sockaddr_in dst = loopback(to);
  static unsigned char d[9000];
  double v[3] = {1, 2, 3}, nanv[3] = {1, NAN, 3};
  long sent[CDEVS_UDP_NVERDICTS] = {0};
  size_t len = cdevs_udp_encode(d, sizeof d, 1000000, 0.0, v, 3, 0);
  if (sendto(fd, d, len, 0, (struct sockaddr *)&dst, sizeof dst) == (ssize_t)len) sent[CDEVS_UDP_OK]++;
  uint64_t x = 88172645463325252ULL;
  double t0 = now();
  for (int i = 0; i < n; i++) {
    int kind = 1 + i % (CDEVS_UDP_NVERDICTS - 1);
    x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift: garbage and lengths */
    switch (kind) {
    case CDEVS_UDP_TRUNCATED: len = 1 + x % 23; memset(d, 0x5a, len); break;
    case CDEVS_UDP_MALFORMED:
      len = 24 + 8 * 3;
      for (size_t k = 0; k < len; k++) d[k] = (unsigned char)(x >> (k % 56));
      d[0] = 'Q';
      break;
    case CDEVS_UDP_BADVERSION:
      len = cdevs_udp_encode(d, sizeof d, x, 0.0, v, 3, 0);
      d[4] = (unsigned char)(2 + x % 200);
      break;
    case CDEVS_UDP_COUNT: len = cdevs_udp_encode(d, sizeof d, x, 0.0, v, 1 + x % 2, 0); break;
    case CDEVS_UDP_OVERSIZED: len = CDEVS_UDP_MAX_BYTES + 1 + x % 700; memset(d, 0, len); break;
    case CDEVS_UDP_NONFINITE: len = cdevs_udp_encode(d, sizeof d, 2000000 + (uint64_t)i, 0.0, nanv, 3, 0); break;
    default: len = cdevs_udp_encode(d, sizeof d, 1 + x % 1000000, 0.0, v, 3, 0); break; /* stale: a replay */
    }
    for (;;) {
      ssize_t w = sendto(fd, d, len, 0, (struct sockaddr *)&dst, sizeof dst);
      if (w == (ssize_t)len) break;
      if (errno != ENOBUFS && errno != EAGAIN && errno != EINTR) {
        perror("rt_ping: sendto");
        return 1;
      }
    }
    sent[kind]++;
  }
  double dt = now() - t0;
  long total = 0;
  printf("flood_valid=%ld", sent[0]);
  for (int k = 1; k < CDEVS_UDP_NVERDICTS; k++) {
    printf(" flood_%s=%ld", cdevs_udp_verdict_name(k), sent[k]);
    total += sent[k];
  }
  printf(" flood_total=%ld flood_rate=%.0f\n", total, (double)total / dt);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && !strcmp(argv[1], "echo")) return echo(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
  if (argc == 4 && !strcmp(argv[1], "flood")) return flood(atoi(argv[2]), atoi(argv[3]));
  fprintf(stderr, "usage: rt_ping echo TO FROM N | rt_ping flood TO N\n");
  return 2;
}
