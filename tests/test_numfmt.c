/* SPDX-License-Identifier: MIT */
/* The result files' numbers (src/io/numfmt.c) against glibc: every value written must
 * read back bit-identically through strtod, and be the shortest that does, where
 * printf's correctly rounded %.*e finds the shortest independently. Random bit
 * patterns over the whole range, and the edges: zeros, subnormals, every power of two
 * and of ten with its neighbours, the largest and smallest doubles, integers. */
#include <float.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "io/numfmt.h"

static uint64_t checked, bad_trip, bad_short, bad_digits, bad_layout, longer;

static double from_bits(uint64_t b) {
  double v;
  memcpy(&v, &b, sizeof v);
  return v;
}

static uint64_t bits(double v) {
  uint64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

/* splitmix64: the test's own random bits (no dependence on the library's RNG). */
static uint64_t rnd_state = 0x9e3779b97f4a7c15u;
static uint64_t rnd(void) {
  uint64_t z = (rnd_state += 0x9e3779b97f4a7c15u);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/* The significant digits of a number as printed (no sign, point, leading zeros or
 * exponent), and how many. */
static int sig_digits(const char *s, char *out) {
  int n = 0, lead = 1;
  for (; *s && *s != 'e' && *s != 'E'; s++) {
    if (*s < '0' || *s > '9') continue;
    if (lead && *s == '0') continue;
    lead = 0;
    out[n++] = *s;
  }
  while (n > 0 && out[n - 1] == '0') n--; /* trailing zeros of an integer */
  out[n] = '\0';
  return n;
}

static void check_one(double v, int oracle) {
  char buf[CDEVS_NUM_MAX + 1];
  int len = cdevs__fmt_double(buf, v);
  checked++;
  if (len <= 0 || len > CDEVS_NUM_MAX) {
    if (bad_layout++ < 5) fprintf(stderr, "length %d for %a\n", len, v);
    return;
  }
  buf[len] = '\0';
  /* The layout: -?digits(.digits)?(e[+-]dd+)? and nothing else. */
  const char *p = buf + (buf[0] == '-');
  int ok = *p >= '0' && *p <= '9';
  while (*p >= '0' && *p <= '9') p++;
  if (*p == '.') {
    p++;
    ok = ok && *p >= '0' && *p <= '9';
    while (*p >= '0' && *p <= '9') p++;
  }
  if (*p == 'e') {
    p++;
    ok = ok && (*p == '+' || *p == '-') && p[1] && p[2];
    p++;
    while (*p >= '0' && *p <= '9') p++;
  }
  if (!ok || *p) {
    if (bad_layout++ < 5) fprintf(stderr, "layout '%s' for %a\n", buf, v);
    return;
  }
  double back = strtod(buf, NULL);
  if (bits(back) != bits(v)) {
    if (bad_trip++ < 5) fprintf(stderr, "'%s' reads back as %a, not %a\n", buf, back, v);
    return;
  }
  if (!oracle) return;
  char g[64];
  snprintf(g, sizeof g, "%.17g", v);
  if ((size_t)len > strlen(g)) longer++; /* never longer than what it replaces */
  if (v == 0.0) return;
  /* The fewest digits printf's correctly rounded output needs to read back as v. */
  char ours[32], theirs[32], e[64];
  int n = sig_digits(buf, ours), pmin = 17;
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(e, sizeof e, "%.*e", prec - 1, v);
    if (bits(strtod(e, NULL)) == bits(v)) {
      pmin = prec;
      break;
    }
  }
  if (n > pmin) {
    if (bad_short++ < 5) fprintf(stderr, "'%s' has %d digits; '%s' reads back too\n", buf, n, e);
  } else if (n == pmin && (sig_digits(e, theirs), strcmp(ours, theirs) != 0)) {
    /* As short as the correctly rounded digits: then they are those digits. */
    if (bad_digits++ < 5) fprintf(stderr, "'%s' against '%s'\n", buf, e);
  }
}

int main(void) {
  /* Edges: zeros, the extremes, every power of two and its neighbours (all the
   * binades, the subnormal ones included), every power of ten in range with its
   * neighbours, small integers, and values printf knows the layout of. */
  static const double edge[] = {0.0,    -0.0,       DBL_MAX, -DBL_MAX, DBL_MIN, -DBL_MIN, 4.9406564584124654e-324,
                                DBL_EPSILON, 0.1,   0.2,     0.3,      1.0 / 3, 2.0 / 3,  9007199254740993.0,
                                5e-324, 1e23, 8.41e21, 5.0e-310, 123456789012345678.0, 1e16, 1e17, 1e-4, 1e-5,
                                9.5367431640625e-7, 0.000123, 299792458.0};
  for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) check_one(edge[i], 1);
  for (int e = -1074; e <= 1023; e++) {
    double p = ldexp(1.0, e);
    check_one(p, 1), check_one(-p, 1);
    check_one(nextafter(p, 0.0), 1), check_one(nextafter(p, INFINITY), 1);
  }
  for (int e = -323; e <= 308; e++) {
    char s[16];
    snprintf(s, sizeof s, "1e%d", e);
    double p = strtod(s, NULL);
    check_one(p, 1), check_one(nextafter(p, 0.0), 1), check_one(nextafter(p, INFINITY), 1);
  }
  for (int i = 0; i <= 100000; i++) check_one(i, 1), check_one(-0.5 * i, 0);
  /* Random bit patterns (every exponent equally likely), random integers below 2^53,
   * and values of the size simulations write (uniform in [0, 10)). */
  for (int i = 0; i < 100000; i++) {
    uint64_t b = rnd();
    double v = from_bits(b);
    if (isfinite(v)) check_one(v, 1);
    check_one((double)(rnd() >> 11), 1);
    check_one(10.0 * (double)(rnd() >> 11) / 9007199254740992.0, 1);
  }
  for (int i = 0; i < 2000000; i++) {
    double v = from_bits(rnd());
    if (isfinite(v)) check_one(v, 0);
    check_one(10.0 * (double)(rnd() >> 11) / 9007199254740992.0, 0);
  }
  /* Non-finite values are written as printf writes them. */
  char buf[CDEVS_NUM_MAX + 1];
  buf[cdevs__fmt_double(buf, INFINITY)] = '\0';
  CHECK_STR(buf, "inf");
  buf[cdevs__fmt_double(buf, -INFINITY)] = '\0';
  CHECK_STR(buf, "-inf");
  buf[cdevs__fmt_double(buf, NAN)] = '\0';
  CHECK_STR(buf, "nan");
  buf[cdevs__fmt_double(buf, 1e-5)] = '\0';
  CHECK_STR(buf, "1e-05"); /* %g's layout: exponent below -4 */
  buf[cdevs__fmt_double(buf, 1e-4)] = '\0';
  CHECK_STR(buf, "0.0001");
  buf[cdevs__fmt_double(buf, 1e16)] = '\0';
  CHECK_STR(buf, "10000000000000000");
  buf[cdevs__fmt_double(buf, 1e17)] = '\0';
  CHECK_STR(buf, "1e+17");
  buf[cdevs__fmt_double(buf, -1.5e300)] = '\0';
  CHECK_STR(buf, "-1.5e+300");
  buf[cdevs__fmt_double(buf, 0.1)] = '\0';
  CHECK_STR(buf, "0.1");
  CHECK_EQ_INT(bad_layout, 0);
  CHECK_EQ_INT(bad_trip, 0);
  CHECK_EQ_INT(bad_short, 0);
  CHECK_EQ_INT(bad_digits, 0);
  CHECK_EQ_INT(longer, 0);
  printf("numbers checked: %llu (round trip through strtod; shortness against printf for the first %s)\n",
         (unsigned long long)checked, "edge cases and 300,000 random ones");
  return check_report("test_numfmt");
}
