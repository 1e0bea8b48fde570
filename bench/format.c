/* SPDX-License-Identifier: MIT */
/* Formatter throughput: the result files' numbers (src/io/numfmt.c, Dragonbox's
 * shortest digits) against glibc's snprintf("%.17g") on the same values in the same
 * process, one line: bench name=format values=N cdevs_per_s=.. glibc_per_s=..
 * speedup=.. cdevs_bytes=.. glibc_bytes=.. (all values read back bit-identically). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/numfmt.h"

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t rnd_state = 42;
static uint64_t rnd(void) {
  uint64_t z = (rnd_state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 2000000;
  if (n < 1000) n = 1000;
  double *v = malloc(n * sizeof *v);
  char *buf = malloc(64 * 1024);
  if (!v || !buf) return 1;
  /* What result files hold: times (a growing sum of small steps), states of order
   * one with a few digits of dynamic range, and small values near zero. */
  double t = 0;
  for (size_t i = 0; i < n; i++) {
    double u = (double)(rnd() >> 11) / 9007199254740992.0;
    switch (i % 3) {
    case 0: v[i] = (t += 1e-4 * u); break;
    case 1: v[i] = 20.0 * (u - 0.5); break;
    default: v[i] = 1e-6 * (u - 0.5); break;
    }
  }
  size_t bytes_c = 0, bytes_g = 0, bad = 0;
  double best_c = 1e30, best_g = 1e30;
  for (int rep = 0; rep < 3; rep++) {
    size_t off = 0, total = 0;
    double t0 = now();
    for (size_t i = 0; i < n; i++) {
      if (off > 64 * 1024 - 64) off = 0;
      int k = cdevs__fmt_double(buf + off, v[i]);
      off += (size_t)k, total += (size_t)k;
    }
    double dt = now() - t0;
    if (dt < best_c) best_c = dt;
    bytes_c = total;
    off = 0, total = 0;
    t0 = now();
    for (size_t i = 0; i < n; i++) {
      if (off > 64 * 1024 - 64) off = 0;
      int k = snprintf(buf + off, 64, "%.17g", v[i]);
      off += (size_t)k, total += (size_t)k;
    }
    dt = now() - t0;
    if (dt < best_g) best_g = dt;
    bytes_g = total;
  }
  for (size_t i = 0; i < n; i += 97) { /* a sample read back */
    char s[CDEVS_NUM_MAX + 1];
    s[cdevs__fmt_double(s, v[i])] = '\0';
    if (strtod(s, NULL) != v[i]) bad++;
  }
  printf("bench name=format values=%zu cdevs_per_s=%.4g glibc_per_s=%.4g speedup=%.2f cdevs_bytes=%zu "
         "glibc_bytes=%zu roundtrip_failures=%zu\n",
         n, (double)n / best_c, (double)n / best_g, best_g / best_c, bytes_c, bytes_g, bad);
  free(v), free(buf);
  return bad != 0;
}
