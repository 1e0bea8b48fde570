/* SPDX-License-Identifier: MIT */
/* Lateness of real-time instants: a log-linear histogram (exact below 64 ns, then 32
 * buckets per power of two, so a percentile is good to 3%), the exact maximum and mean,
 * and the count of misses. Fixed size: recording allocates nothing. */
#include <string.h>

#include "rt/rt_impl.h"

static uint32_t bucket_of(uint64_t ns) {
  if (ns < 64) return (uint32_t)ns;
  uint32_t e = 63u - (uint32_t)__builtin_clzll(ns); /* 6 .. 63 */
  uint32_t sub = (uint32_t)(ns >> (e - 5)) & 31u;
  return 64u + (e - 6u) * 32u + sub;
}

/* The smallest lateness of bucket b and its width. */
static void bucket_range(uint32_t b, uint64_t *lo, uint64_t *width) {
  if (b < 64) {
    *lo = b, *width = 1;
    return;
  }
  uint32_t e = (b - 64u) / 32u + 6u, sub = (b - 64u) % 32u;
  *width = (uint64_t)1 << (e - 5);
  *lo = ((uint64_t)1 << e) + sub * *width;
}

void cdevs__late_init(cdevs__late *l, int64_t threshold_ns) {
  memset(l, 0, sizeof *l);
  l->threshold = threshold_ns;
}

int cdevs__late_add(cdevs__late *l, int64_t ns) {
  uint64_t v = ns > 0 ? (uint64_t)ns : 0;
  l->n++;
  l->sum += (double)v;
  if (v > l->max) l->max = v;
  l->bucket[bucket_of(v)]++;
  if (ns > l->threshold) {
    l->misses++;
    return 1;
  }
  return 0;
}

/* The q-quantile (0 < q <= 1): the middle of the bucket holding the ceil(q n)-th
 * smallest lateness, clipped to the maximum. 0 with no samples. */
uint64_t cdevs__late_quantile(const cdevs__late *l, double q) {
  if (!l->n) return 0;
  double want = q * (double)l->n;
  uint64_t rank = (uint64_t)want;
  if ((double)rank < want) rank++;
  if (rank < 1) rank = 1;
  uint64_t seen = 0;
  for (uint32_t b = 0; b < CDEVS__LATE_BUCKETS; b++) {
    seen += l->bucket[b];
    if (seen >= rank) {
      uint64_t lo, w;
      bucket_range(b, &lo, &w);
      uint64_t mid = lo + (w - 1) / 2;
      return mid > l->max ? l->max : mid;
    }
  }
  return l->max;
}
