/* SPDX-License-Identifier: MIT */
/* A minimal test harness: assertions print both operands; main prints "N passed, N failed". */
#ifndef CDEVS_TEST_CHECK_H
#define CDEVS_TEST_CHECK_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int check_passed, check_failed;

/* The number of elements of an array (a loop over a list of methods covers them all). */
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* The larger of a running worst w and a new error e, where NaN wins (fmax drops a NaN
 * argument, and a result that is not a number passed a "worst <= bound" check). */
static inline double worst_of(double w, double e) { return e <= w || isnan(w) ? w : e; }

#define CHECK(cond)                                                        \
  do {                                                                     \
    if (cond) {                                                            \
      check_passed++;                                                      \
    } else {                                                               \
      check_failed++;                                                      \
      fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #cond);     \
    }                                                                      \
  } while (0)

/* A simulation call inside a loop: passes through whether it succeeded, and on
 * failure counts it with its place (the loop then breaks). */
static inline int check_run_(int rc, const char *file, int line, const char *what) {
  if (rc == 0) return 1;
  check_failed++;
  fprintf(stderr, "%s:%d: FAIL: %s returned %d\n", file, line, what, rc);
  return 0;
}
#define CHECK_RUN(call) check_run_((int)(call), __FILE__, __LINE__, #call)

#define CHECK_EQ_INT(a, b)                                                                  \
  do {                                                                                      \
    long long check_a_ = (long long)(a), check_b_ = (long long)(b);                         \
    if (check_a_ == check_b_) {                                                             \
      check_passed++;                                                                       \
    } else {                                                                                \
      check_failed++;                                                                       \
      fprintf(stderr, "%s:%d: FAIL: %s == %s: %lld != %lld\n", __FILE__, __LINE__, #a, #b, \
              check_a_, check_b_);                                                          \
    }                                                                                       \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                                  \
  do {                                                                                         \
    double check_a_ = (double)(a), check_b_ = (double)(b);                                     \
    if (fabs(check_a_ - check_b_) <= (tol)) {                                                  \
      check_passed++;                                                                          \
    } else {                                                                                   \
      check_failed++;                                                                          \
      fprintf(stderr, "%s:%d: FAIL: %s ~ %s: %.17g != %.17g (tol %g)\n", __FILE__, __LINE__, \
              #a, #b, check_a_, check_b_, (double)(tol));                                      \
    }                                                                                          \
  } while (0)

#define CHECK_STR(a, b)                                                                          \
  do {                                                                                           \
    const char *check_a_ = (a), *check_b_ = (b);                                                 \
    if (check_a_ && check_b_ && strcmp(check_a_, check_b_) == 0) {                               \
      check_passed++;                                                                            \
    } else {                                                                                     \
      check_failed++;                                                                            \
      fprintf(stderr, "%s:%d: FAIL: %s == %s:\n  \"%s\"\n  \"%s\"\n", __FILE__, __LINE__, #a, \
              #b, check_a_ ? check_a_ : "(null)", check_b_ ? check_b_ : "(null)");               \
    }                                                                                            \
  } while (0)

#define CHECK_CONTAINS(hay, needle)                                                          \
  do {                                                                                       \
    const char *check_h_ = (hay), *check_n_ = (needle);                                      \
    if (check_h_ && strstr(check_h_, check_n_)) {                                            \
      check_passed++;                                                                        \
    } else {                                                                                 \
      check_failed++;                                                                        \
      fprintf(stderr, "%s:%d: FAIL: \"%s\" does not contain \"%s\"\n", __FILE__, __LINE__, \
              check_h_ ? check_h_ : "(null)", check_n_);                                     \
    }                                                                                        \
  } while (0)

static int check_report(const char *suite) {
  printf("%s: %d passed, %d failed\n", suite, check_passed, check_failed);
  return check_failed ? 1 : 0;
}

#endif
