/* SPDX-License-Identifier: MIT */
/* Shortest round-trip numbers in printf's %g layout (the digits: shortest.cc). */
#include "io/numfmt.h"

#include <math.h>
#include <string.h>

static const char pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* d's decimal digits written backwards, ending just before end. */
static inline void digits_before(char *end, uint64_t d) {
  while (d >= 100) {
    unsigned k = (unsigned)(d % 100) * 2;
    d /= 100;
    *--end = pairs[k + 1];
    *--end = pairs[k];
  }
  if (d >= 10) {
    unsigned k = (unsigned)d * 2;
    *--end = pairs[k + 1];
    *--end = pairs[k];
  } else {
    *--end = (char)('0' + d);
  }
}

/* How many decimal digits d (> 0) has. */
static inline int digit_count(uint64_t d) {
  static const uint64_t pow10[20] = {1u,          10u,          100u,          1000u,          10000u,
                                     100000u,     1000000u,     10000000u,     100000000u,     1000000000u,
                                     10000000000u, 100000000000u, 1000000000000u, 10000000000000u,
                                     100000000000000u, 1000000000000000u, 10000000000000000u,
                                     100000000000000000u, 1000000000000000000u, 10000000000000000000u};
  int t = ((64 - __builtin_clzll(d)) * 1233) >> 12; /* log10 from log2, at most one too small */
  return t + (t < 20 && d >= pow10[t]);
}

int cdevs__fmt_double(char *buf, double v) {
  char *p = buf;
  if (signbit(v)) *p++ = '-';
  if (!isfinite(v)) {
    memcpy(p, isnan(v) ? "nan" : "inf", 3);
    return (int)(p - buf) + 3;
  }
  if (v == 0.0) {
    *p++ = '0';
    return (int)(p - buf);
  }
  uint64_t d;
  int e = cdevs__shortest(v, &d);
  int n = digit_count(d);
  int x = e + n - 1; /* v = d.ddd × 10^x */
  if (x >= -4 && x < 17) {
    if (e >= 0) { /* an integer: the digits, then e zeros */
      digits_before(p + n, d);
      p += n;
      for (int i = 0; i < e; i++) *p++ = '0';
    } else if (x >= 0) { /* the point after x + 1 digits */
      digits_before(p + n + 1, d);
      for (int i = 0; i <= x; i++) p[i] = p[i + 1];
      p[x + 1] = '.';
      p += n + 1;
    } else { /* 0.000ddd */
      *p++ = '0';
      *p++ = '.';
      for (int i = 0; i < -x - 1; i++) *p++ = '0';
      digits_before(p + n, d);
      p += n;
    }
  } else {
    digits_before(p + n + 1, d);
    p[0] = p[1];
    if (n > 1) {
      p[1] = '.';
      p += n + 1;
    } else {
      p += 1;
    }
    *p++ = 'e';
    *p++ = x < 0 ? '-' : '+';
    unsigned a = (unsigned)(x < 0 ? -x : x);
    if (a >= 100) {
      *p++ = (char)('0' + a / 100);
      a %= 100;
    }
    *p++ = pairs[2 * a];
    *p++ = pairs[2 * a + 1];
  }
  return (int)(p - buf);
}
