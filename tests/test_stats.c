/* SPDX-License-Identifier: MIT */
/* Output statistics (src/proc/stats.c) against published t tables, closed forms, hand
 * computations, and the coverage of their confidence intervals over many independent
 * runs of processes whose mean is known. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "cdevs/stats.h"
#include "check.h"

/* ---- Random numbers of the test's own, independent of the library's ------------- */

/* splitmix64 (Steele, Lea & Flood 2014). */
static uint64_t mix_next(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15u);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
  return z ^ (z >> 31);
}

/* Uniform on (0, 1), never 0 (the normal below takes its logarithm). */
static double uniform(uint64_t *s) { return ((double)(mix_next(s) >> 11) + 0.5) * 0x1.0p-53; }

/* A standard normal by Box and Muller (one of the pair is enough here). */
static double normal(uint64_t *s) {
  double u = uniform(s), v = uniform(s);
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* ---- An allocator that counts, and can refuse to grow past a size ---------------- */

typedef struct counting {
  long long live, peak; /* bytes outstanding, and the most there ever were */
  size_t refuse_above;  /* requests for more bytes than this fail; 0 for none */
  long fail_at, calls;  /* the call that fails (1-based), 0 for none */
} counting;

static void *counting_realloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counting *c = ud;
  if (nsize == 0) {
    if (ptr) c->live -= (long long)osize;
    free(ptr);
    return NULL;
  }
  if (++c->calls == c->fail_at || (c->refuse_above && nsize > c->refuse_above)) return NULL;
  void *p = realloc(ptr, nsize);
  if (!p) return NULL;
  c->live += (long long)nsize - (ptr ? (long long)osize : 0);
  if (c->live > c->peak) c->peak = c->live;
  return p;
}

/* ---- Student's t ------------------------------------------------------------------ */

static void test_t_quantiles(void) {
  /* Published table values to nine decimals (the two-sided 95% points are the 0.975
   * quantiles); the ninth is rounded, so the true value is within 5e-10 of each. */
  CHECK_NEAR(cdevs_student_t_quantile(0.975, 1), 12.706204736, 1e-9);
  CHECK_NEAR(cdevs_student_t_quantile(0.975, 2), 4.302652730, 1e-9);
  CHECK_NEAR(cdevs_student_t_quantile(0.975, 9), 2.262157163, 1e-9);
  CHECK_NEAR(cdevs_student_t_quantile(0.975, 19), 2.093024054, 1e-9);
  CHECK_NEAR(cdevs_student_t_quantile(0.975, 29), 2.045229642, 1e-9);
  CHECK_NEAR(cdevs_student_t_quantile(0.975, 120), 1.979930405, 1e-9);
  CHECK_NEAR(cdevs_student_t_quantile(0.95, 10), 1.812461123, 1e-9);
  /* The normal's 0.975 point, 1.959963984540054, is the limit as df grows; at
   * 1e12 degrees of freedom t is above it by z(z² + 1)/(4 df) ≈ 2.4e-12. */
  CHECK_NEAR(cdevs_student_t_quantile(0.975, INFINITY), 1.959963984540054, 1e-12);
  CHECK_NEAR(cdevs_student_t_quantile(0.975, 1e12), 1.959963984540054, 1e-11);
  /* Closed forms: the Cauchy (df = 1) quantile is tan(π (p − ½)) = 1 / tan(π q) in
   * the upper tail q, far into it; df = 2 gives (2p − 1) / √(2 p (1 − p)). */
  CHECK_NEAR(cdevs_student_t_quantile(1e-10, 1) / (-1.0 / tan(3.141592653589793 * 1e-10)), 1.0,
             1e-12);
  CHECK_NEAR(cdevs_student_t_quantile(0.9, 1), tan(3.141592653589793 * 0.4), 1e-12);
  CHECK_NEAR(cdevs_student_t_quantile(0.3, 2), -0.4 / sqrt(2 * 0.3 * 0.7), 1e-13);
  /* Symmetry, and the centre. */
  double dfs[] = {1, 2, 9, 29, 120, 5e4};
  for (size_t i = 0; i < COUNT(dfs); i++)
    CHECK_NEAR(cdevs_student_t_quantile(0.025, dfs[i]), -cdevs_student_t_quantile(0.975, dfs[i]),
               1e-13);
  CHECK(cdevs_student_t_quantile(0.5, 7) == 0.0);
  /* Monotone in df for a fixed upper tail: heavier tails for fewer degrees of freedom. */
  double prev = INFINITY;
  int monotone = 1;
  for (double df = 0.5; df < 1e8; df *= 1.5) {
    double t = cdevs_student_t_quantile(0.975, df);
    if (!(t < prev)) monotone = 0;
    prev = t;
  }
  CHECK(monotone);
  /* Outside the domain. */
  CHECK(isnan(cdevs_student_t_quantile(1.5, 3)));
  CHECK(isnan(cdevs_student_t_quantile(NAN, 3)));
  CHECK(isnan(cdevs_student_t_quantile(0.9, 0)));
  CHECK(isnan(cdevs_student_t_quantile(0.9, -1)));
  CHECK(cdevs_student_t_quantile(1.0, 3) == INFINITY);
  CHECK(cdevs_student_t_quantile(0.0, 3) == -INFINITY);
}

static void test_mean_hw(void) {
  /* 1 … 10: mean 5.5; Σ(i − 5.5)² = 82.5, s = √(82.5 / 9); t_{0.975,9} = 2.262157163. */
  double x[10];
  for (int i = 0; i < 10; i++) x[i] = i + 1;
  double hw = 0.0;
  CHECK_NEAR(cdevs_stats_mean_hw(x, 10, &hw), 5.5, 1e-14);
  CHECK_NEAR(hw, 2.262157163 * sqrt(82.5 / 9.0) / sqrt(10.0), 1e-8);
  CHECK_NEAR(cdevs_stats_mean_hw(x, 10, NULL), 5.5, 1e-14);
  /* One value: a mean but no half-width; none: neither. */
  CHECK_NEAR(cdevs_stats_mean_hw(x + 3, 1, &hw), 4.0, 0);
  CHECK(isnan(hw));
  CHECK(isnan(cdevs_stats_mean_hw(x, 0, &hw)));
  CHECK(isnan(hw));
}

/* ---- Tallies ------------------------------------------------------------------------- */

static void test_tally_known(void) {
  cdevs_tally *t = cdevs_tally_new(NULL);
  CHECK(t != NULL);
  if (!t) return;
  cdevs_stat_summary s;

  /* Empty: nothing is known. */
  cdevs_tally_summary(t, &s);
  CHECK(isnan(s.avg) && isnan(s.min) && isnan(s.max) && isnan(s.final) && isnan(s.stddev));
  CHECK_EQ_INT(s.count, 0);
  CHECK(isnan(s.half_width));
  CHECK_EQ_INT(s.hw_status, CDEVS_HW_INSUFFICIENT);
  CHECK(isnan(cdevs_tally_mser5(t)));

  /* One observation: no spread to speak of. */
  CHECK_EQ_INT(cdevs_tally_add(t, 0.0, 4.25), CDEVS_OK);
  cdevs_tally_summary(t, &s);
  CHECK_NEAR(s.avg, 4.25, 0);
  CHECK(isnan(s.stddev));
  CHECK_EQ_INT(s.count, 1);

  /* 1 … 100 after a reset: mean 50.5, sample variance n (n + 1) / 12 = 841.666… */
  cdevs_tally_reset(t);
  for (int i = 1; i <= 100; i++) CHECK_RUN(cdevs_tally_add(t, i, i));
  cdevs_tally_summary(t, &s);
  CHECK_EQ_INT(s.count, 100);
  CHECK_NEAR(s.avg, 50.5, 1e-12);
  CHECK_NEAR(s.min, 1, 0);
  CHECK_NEAR(s.max, 100, 0);
  CHECK_NEAR(s.final, 100, 0);
  CHECK_NEAR(s.stddev, sqrt(100.0 * 101.0 / 12.0), 1e-12);
  /* The batches: size 1 up to 40 observations, then pairs merge at every 40 complete
   * ones, so from 20·2^k to 40·2^k observations they hold 2^k: at 100, 25 batches of
   * 4. Their means rise in a straight line, the extreme of positive correlation:
   * Young's C = 1 − 24·16 / (2·16·Σ(i − 13)²) = 1 − 24 / 2600, against a null spread of
   * √(23 / 624) ≈ 0.19. */
  CHECK_EQ_INT(s.batches, 25);
  CHECK_EQ_INT(s.hw_status, CDEVS_HW_CORRELATED);
  CHECK(isnan(s.half_width));

  /* A large offset keeps the spread's digits (sums about the mean so far, not about 0). */
  cdevs_tally_reset(t);
  for (int i = 1; i <= 100; i++) CHECK_RUN(cdevs_tally_add(t, i, 1e9 + i));
  cdevs_tally_summary(t, &s);
  CHECK_NEAR(s.avg, 1e9 + 50.5, 1e-6);
  CHECK_NEAR(s.stddev, sqrt(100.0 * 101.0 / 12.0), 1e-6);
  cdevs_tally_free(t);
}

static void test_tally_errors(void) {
  cdevs_tally *t = cdevs_tally_new(NULL);
  if (!t) {
    CHECK(t != NULL);
    return;
  }
  CHECK_EQ_INT(cdevs_tally_add(t, 1.0, NAN), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_tally_add(t, 1.0, INFINITY), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_tally_add(t, 1.0, -INFINITY), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_tally_add(t, NAN, 1.0), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_tally_add(t, INFINITY, 1.0), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_tally_add(t, 2.0, 3.0), CDEVS_OK);
  CHECK_EQ_INT(cdevs_tally_add(t, 2.0, 5.0), CDEVS_OK); /* equal times are fine */
  CHECK_EQ_INT(cdevs_tally_add(t, 1.5, 7.0), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_tally_add(t, 2.5, NAN), CDEVS_EINVAL);
  cdevs_stat_summary s;
  cdevs_tally_summary(t, &s);
  CHECK_EQ_INT(s.count, 2);
  CHECK_NEAR(s.avg, 4.0, 0);
  CHECK_NEAR(s.max, 5.0, 0);
  /* After a reset the past is forgotten, its times too. */
  cdevs_tally_reset(t);
  CHECK_EQ_INT(cdevs_tally_add(t, 1.0, 7.0), CDEVS_OK);
  cdevs_tally_free(t);
  cdevs_tally_free(NULL);
}

/* The batch means of a permutation of 0 … 19 that jumps (x_i = 7i mod 20) are not
 * positively correlated; mean 9.5 and sample variance Σ(k − 9.5)² / 19 = 665 / 19 = 35,
 * so the half-width is t_{0.975,19} √35 / √20 with t_{0.975,19} = 2.093024054. */
static void test_tally_batches(void) {
  const double hw_perm = 2.093024054 * sqrt(35.0 / 20.0);
  cdevs_stat_summary s;
  cdevs_tally *t = cdevs_tally_new(NULL);
  if (!t) {
    CHECK(t != NULL);
    return;
  }
  /* 20 observations are 20 batches of one. */
  for (int i = 0; i < 20; i++) CHECK_RUN(cdevs_tally_add(t, i, (7 * i) % 20));
  cdevs_tally_summary(t, &s);
  CHECK_EQ_INT(s.batches, 20);
  CHECK_EQ_INT(s.hw_status, CDEVS_HW_OK);
  CHECK_NEAR(s.half_width, hw_perm, 1e-8);
  /* 40 observations in pairs y ± 1 merge into the 20 pair means y: the same. */
  cdevs_tally_reset(t);
  for (int i = 0; i < 20; i++) {
    CHECK_RUN(cdevs_tally_add(t, i, (7 * i) % 20 - 1.0));
    CHECK_RUN(cdevs_tally_add(t, i, (7 * i) % 20 + 1.0));
  }
  cdevs_tally_summary(t, &s);
  CHECK_EQ_INT(s.batches, 20);
  CHECK_EQ_INT(s.hw_status, CDEVS_HW_OK);
  CHECK_NEAR(s.half_width, hw_perm, 1e-8);
  /* and a 41st observation is an incomplete batch, left out of the half-width. */
  CHECK_RUN(cdevs_tally_add(t, 20, 1000.0));
  cdevs_tally_summary(t, &s);
  CHECK_EQ_INT(s.batches, 20);
  CHECK_NEAR(s.half_width, hw_perm, 1e-8);

  /* 5 or 19 observations are too few batches. */
  cdevs_tally_reset(t);
  for (int i = 0; i < 19; i++) {
    CHECK_RUN(cdevs_tally_add(t, i, (7 * i) % 20));
    if (i == 4) {
      cdevs_tally_summary(t, &s);
      CHECK_EQ_INT(s.hw_status, CDEVS_HW_INSUFFICIENT);
      CHECK_EQ_INT(s.batches, 5);
      CHECK(isnan(s.half_width));
    }
  }
  cdevs_tally_summary(t, &s);
  CHECK_EQ_INT(s.hw_status, CDEVS_HW_INSUFFICIENT);
  CHECK_EQ_INT(s.batches, 19);

  /* AR(1) with φ = 0.99 over 200 observations: 25 batches of 8 (see test_tally_known),
   * whose means are correlated about as much as the observations 8 apart, 0.99^8 ≈ 0.92
   * at lag 1, far past the 5% point of Young's C, 1.645 √(23 / 624) ≈ 0.32. */
  uint64_t seed = 7;
  cdevs_tally_reset(t);
  double x = 0.0;
  for (int i = 0; i < 200; i++) {
    x = 0.99 * x + normal(&seed);
    CHECK_RUN(cdevs_tally_add(t, i, x));
  }
  cdevs_tally_summary(t, &s);
  CHECK_EQ_INT(s.batches, 25);
  CHECK_EQ_INT(s.hw_status, CDEVS_HW_CORRELATED);
  CHECK(isnan(s.half_width));
  cdevs_tally_free(t);
}

/* Coverage over R = 400 independent runs. If the interval has its nominal 95% coverage,
 * the number of runs covering the true mean is binomial: among about 380 runs given a
 * half-width its standard deviation is √(380 · 0.95 · 0.05) ≈ 4.25 runs (1.1%), so the
 * band 90% … 99% lies 4.5 and 3.6 standard deviations from 95%: a correct method
 * leaves it with probability below 1e-3. The runs flagged correlated are a 5% test on
 * data that are not: 20 expected, standard deviation √(400 · 0.05 · 0.95) ≈ 4.4, and
 * the band 1% … 11% (4 … 44 runs) is 3.7 and 5.5 of them away. The seeds are fixed, so
 * the test does not flicker either way. */
static void coverage(const char *what, double phi, int n, uint64_t seed) {
  const int runs = 400;
  const double mu = 3.0, sigma = 2.0;
  /* The stationary spread of x_i = φ x_{i−1} + σ e_i is σ / √(1 − φ²): the first value
   * drawn from it makes every run stationary from the start, so the mean is mu. */
  double sd0 = sigma / sqrt(1.0 - phi * phi);
  int covered = 0, given = 0, correlated = 0;
  cdevs_tally *t = cdevs_tally_new(NULL);
  if (!t) {
    CHECK(t != NULL);
    return;
  }
  for (int r = 0; r < runs; r++) {
    cdevs_tally_reset(t);
    double x = sd0 * normal(&seed);
    for (int i = 0; i < n; i++) {
      if (i > 0) x = phi * x + sigma * normal(&seed);
      cdevs_tally_add(t, i, mu + x);
    }
    cdevs_stat_summary s;
    cdevs_tally_summary(t, &s);
    if (s.hw_status == CDEVS_HW_CORRELATED) correlated++;
    if (s.hw_status != CDEVS_HW_OK) continue;
    given++;
    if (fabs(s.avg - mu) <= s.half_width) covered++;
  }
  double cov = (double)covered / given;
  if (!(cov >= 0.90 && cov <= 0.99) || correlated < 4 || correlated > 44)
    fprintf(stderr, "%s: coverage %d/%d, correlated %d/%d\n", what, covered, given, correlated,
            runs);
  CHECK(cov >= 0.90 && cov <= 0.99);
  CHECK(correlated >= 4 && correlated <= 44);
  CHECK_EQ_INT(given + correlated, runs);
  cdevs_tally_free(t);
}

static void test_coverage(void) {
  /* Independent normal observations: 2000 of them make 31 batches of 64. */
  coverage("iid", 0.0, 2000, 1);
  /* AR(1) with φ = 0.5: neighbours are correlated, but 20000 observations make
   * 39 batches of 512, whose means are nearly independent (their lag-1 correlation is
   * about φ / ((1 − φ)² · 512) < 0.004). */
  coverage("ar1", 0.5, 20000, 2);
}

/* ---- MSER-5 ------------------------------------------------------------------------ */

/* Observation i of the transient sequence below, at time i / 2. */
static double transient(int i, uint64_t *seed) {
  return normal(seed) + (i < 1000 ? 10.0 * (1.0 - i / 1000.0) : 0.0);
}

static void test_mser(void) {
  cdevs_tally *t = cdevs_tally_new(NULL);
  if (!t) {
    CHECK(t != NULL);
    return;
  }
  /* x_i = i for i = 0 … 99, at 3 + i / 2: 20 batch means 5 apart. Keeping k of them
   * leaves Σ(Z − Z̄)² = 25 (k³ − k) / 12, so MSER ∝ k − 1 / k, smallest at the fewest
   * kept allowed, k = 10: 10 batches are cut, the last observation cut is i = 49. */
  for (int i = 0; i < 100; i++) CHECK_RUN(cdevs_tally_add(t, 3 + i / 2.0, i));
  CHECK_NEAR(cdevs_tally_mser5(t), 3 + 49 / 2.0, 0);

  /* Ten batches of zeros, then ten batches alternately all +1 and all −1: cutting d of
   * the zeros leaves the mean at 0 and Σ(Z − Z̄)² = 10, so MSER = 10 / (20 − d)² grows
   * with d and nothing is cut: the answer is the first observation's time. */
  cdevs_tally_reset(t);
  for (int i = 0; i < 100; i++) {
    double x = i < 50 ? 0.0 : (i / 5) % 2 ? -1.0 : 1.0;
    CHECK_RUN(cdevs_tally_add(t, 3 + i / 2.0, x));
  }
  CHECK_NEAR(cdevs_tally_mser5(t), 3.0, 0);

  /* Fewer than 10 complete batches: no answer. */
  cdevs_tally_reset(t);
  for (int i = 0; i < 49; i++) CHECK_RUN(cdevs_tally_add(t, i, i));
  CHECK(isnan(cdevs_tally_mser5(t)));
  CHECK_RUN(cdevs_tally_add(t, 49, 49));
  CHECK(!isnan(cdevs_tally_mser5(t)));

  /* A transient: the first 1000 of 10000 observations carry a bias falling linearly
   * from 10 to 0, over noise of variance 1 (batch means: 1/5). Cutting one more batch
   * pays while its bias b satisfies b² + 1/5 > 2 N / (m − d), N / (m − d) ≈ 1/5 being
   * the spread per kept batch: b < 0.45, reached at observation 955. The noise moves the
   * point by some batches; the band asks for most of the transient gone (past
   * observation 850) and not much of the stationary part lost (before 1500). */
  uint64_t seed = 11;
  cdevs_tally_reset(t);
  for (int i = 0; i < 10000; i++) CHECK_RUN(cdevs_tally_add(t, i / 2.0, transient(i, &seed)));
  double cut = cdevs_tally_mser5(t);
  CHECK(cut >= 850 / 2.0 && cut <= 1500 / 2.0);
  cdevs_tally_free(t);
}

/* The MSER array within its bounds: an allocator that refuses to grow it makes
 * coarser batches instead of an error, and a long run stops at 2^12 batches. */
static void test_mser_memory(void) {
  counting c = {0};
  cdevs_alloc a = {counting_realloc, &c};
  /* Refuse blocks over 16 KiB, 1024 batches: of the 2000 batches of 10000 observations
   * the 1025th cannot be stored, pairs merge, and 1000 batches of 10 remain. */
  c.refuse_above = 16384;
  uint64_t seed = 11;
  cdevs_tally *t = cdevs_tally_new(&a);
  CHECK(t != NULL);
  if (!t) return;
  for (int i = 0; i < 10000; i++) CHECK_EQ_INT(cdevs_tally_add(t, i / 2.0, transient(i, &seed)), 0);
  double cut = cdevs_tally_mser5(t);
  CHECK(cut >= 850 / 2.0 && cut <= 1500 / 2.0);
  cdevs_stat_summary s;
  cdevs_tally_summary(t, &s);
  CHECK_EQ_INT(s.count, 10000);
  CHECK(c.peak <= 16384 + 1024); /* the array and the tally */
  cdevs_tally_free(t);
  CHECK_EQ_INT(c.live, 0);

  /* 6 · 2^20 observations would be 1.26 million batches of 5 (20 MB): the array stops
   * at 2^12 batches of 16 bytes (64 KiB; the tally itself is under 1 KiB), and the
   * transient, now the first 2^20 observations, is still found. */
  c = (counting){0};
  t = cdevs_tally_new(&a);
  CHECK(t != NULL);
  if (!t) return;
  const int n = 6 << 20, warm = 1 << 20;
  for (int i = 0; i < n; i++) {
    double bias = i < warm ? 10.0 * (1.0 - (double)i / warm) : 0.0;
    cdevs_tally_add(t, i, bias + 2.0 * uniform(&seed) - 1.0);
  }
  CHECK(c.peak > 64 << 10);
  CHECK(c.peak <= (64 << 10) + 1024);
  /* The batches end up holding 5 · 2^9 = 2560 observations: 6 · 2^20 / 2560 = 2457.6,
   * the most batches of a power-of-two multiple of 5 that is at most 2^12. Their noise
   * has variance 1/3 / 2560: the same reasoning as in test_mser puts the cut where the
   * bias is √(1/7680) ≈ 0.011, at 0.999 · 2^20. */
  cut = cdevs_tally_mser5(t);
  CHECK(cut >= 0.85 * warm && cut <= 1.5 * warm);
  cdevs_tally_free(t);
  CHECK_EQ_INT(c.live, 0);

  /* Creation fails cleanly at either allocation. */
  for (long k = 1; k <= 2; k++) {
    c = (counting){0};
    c.fail_at = k;
    CHECK(cdevs_tally_new(&a) == NULL);
    CHECK_EQ_INT(c.live, 0);
  }
  c = (counting){0};
  c.fail_at = 1;
  CHECK(cdevs_tpstat_new(&a, 0, 0, 0) == NULL);
  CHECK_EQ_INT(c.live, 0);
}

/* ---- Time-persistent statistics ----------------------------------------------------- */

static void test_tpstat_hand(void) {
  /* 2 on [0, 1), 5 on [1, 4), 0 on [4, 6), 3 on [6, 10]:
   *   ∫v dt = 2 + 15 + 0 + 12 = 29, time average 2.9;
   *   ∫v² dt = 4 + 75 + 0 + 36 = 115, variance 11.5 − 2.9² = 3.09. */
  cdevs_tpstat *s = cdevs_tpstat_new(NULL, 0.0, 2.0, 0.0);
  CHECK(s != NULL);
  if (!s) return;
  CHECK_RUN(cdevs_tpstat_set(s, 1.0, 5.0));
  CHECK_RUN(cdevs_tpstat_set(s, 4.0, 0.0));
  CHECK_RUN(cdevs_tpstat_set(s, 6.0, 3.0));
  CHECK_RUN(cdevs_tpstat_set(s, 6.0, 3.0)); /* no change, not counted */
  CHECK_NEAR(cdevs_tpstat_value(s), 3.0, 0);
  cdevs_stat_summary o;
  for (int twice = 0; twice < 2; twice++) { /* the summary leaves the statistic as it was */
    cdevs_tpstat_summary(s, 10.0, &o);
    CHECK_NEAR(o.avg, 2.9, 1e-14);
    CHECK_NEAR(o.stddev, sqrt(3.09), 1e-13);
    CHECK_NEAR(o.min, 0.0, 0);
    CHECK_NEAR(o.max, 5.0, 0);
    CHECK_NEAR(o.final, 3.0, 0);
    CHECK_EQ_INT(o.count, 3);
  }
  /* Reset at 8 with the value 3, then 1 from 9: 3 on [8, 9), 1 on [9, 12]:
   *   ∫v dt = 3 + 3 = 6 over 4, average 1.5; ∫v² dt = 9 + 3 = 12, variance 3 − 2.25. */
  CHECK_EQ_INT(cdevs_tpstat_reset(s, 8.0), CDEVS_OK);
  CHECK_RUN(cdevs_tpstat_set(s, 9.0, 1.0));
  cdevs_tpstat_summary(s, 12.0, &o);
  CHECK_NEAR(o.avg, 1.5, 1e-14);
  CHECK_NEAR(o.stddev, sqrt(0.75), 1e-14);
  CHECK_NEAR(o.min, 1.0, 0);
  CHECK_NEAR(o.max, 3.0, 0);
  CHECK_NEAR(o.final, 1.0, 0);
  CHECK_EQ_INT(o.count, 1);
  /* A value held for no time still counts for min and max, not for the average. */
  CHECK_RUN(cdevs_tpstat_set(s, 12.0, -4.0));
  CHECK_RUN(cdevs_tpstat_set(s, 12.0, 1.0));
  cdevs_tpstat_summary(s, 12.0, &o);
  CHECK_NEAR(o.avg, 1.5, 1e-14);
  CHECK_NEAR(o.min, -4.0, 0);
  CHECK_EQ_INT(o.count, 3);
  cdevs_tpstat_free(s);

  /* A large constant offset does not cost the spread its digits: 1e9 + (0, 1) for
   * equal times has standard deviation ½. */
  s = cdevs_tpstat_new(NULL, 0.0, 1e9, 0.0);
  if (!s) return;
  for (int i = 1; i <= 1000; i++) CHECK_RUN(cdevs_tpstat_set(s, i, 1e9 + i % 2));
  cdevs_tpstat_summary(s, 1000.0, &o);
  CHECK_NEAR(o.avg, 1e9 + 0.5, 1e-6);
  CHECK_NEAR(o.stddev, 0.5, 1e-9);
  cdevs_tpstat_free(s);
}

static void test_tpstat_errors(void) {
  CHECK(cdevs_tpstat_new(NULL, NAN, 0, 0) == NULL);
  CHECK(cdevs_tpstat_new(NULL, 0, INFINITY, 0) == NULL);
  CHECK(cdevs_tpstat_new(NULL, 0, 0, -1) == NULL);
  CHECK(cdevs_tpstat_new(NULL, 0, 0, NAN) == NULL);
  cdevs_tpstat *s = cdevs_tpstat_new(NULL, 5.0, 1.0, INFINITY);
  CHECK(s != NULL);
  if (!s) return;
  CHECK_EQ_INT(cdevs_tpstat_set(s, 6.0, NAN), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_tpstat_set(s, 6.0, -INFINITY), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_tpstat_set(s, NAN, 2.0), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_tpstat_set(s, 4.0, 2.0), CDEVS_EINVAL); /* before t0 */
  CHECK_EQ_INT(cdevs_tpstat_set(s, 7.0, 2.0), CDEVS_OK);
  CHECK_EQ_INT(cdevs_tpstat_set(s, 6.5, 3.0), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_tpstat_reset(s, 6.5), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_tpstat_reset(s, INFINITY), CDEVS_EINVAL);
  CHECK_NEAR(cdevs_tpstat_value(s), 2.0, 0);
  cdevs_stat_summary o;
  /* 1 on [5, 7), 2 on [7, 9]: average 1.5; the failures changed nothing. */
  cdevs_tpstat_summary(s, 9.0, &o);
  CHECK_NEAR(o.avg, 1.5, 1e-14);
  CHECK_EQ_INT(o.count, 1);
  /* No average before the last change, at infinity, or over no time at all. */
  cdevs_tpstat_summary(s, 6.0, &o);
  CHECK(isnan(o.avg) && isnan(o.stddev) && isnan(o.half_width));
  cdevs_tpstat_summary(s, INFINITY, &o);
  CHECK(isnan(o.avg));
  CHECK_EQ_INT(cdevs_tpstat_reset(s, 8.0), CDEVS_OK);
  cdevs_tpstat_summary(s, 8.0, &o);
  CHECK(isnan(o.avg));
  CHECK_NEAR(o.final, 2.0, 0);
  cdevs_tpstat_free(s);
  cdevs_tpstat_free(NULL);
}

/* Batches of simulated time. With span 100 they start 100 / 40 = 2.5 long; the 40th
 * completes at 100 and pairs merge into 20 of 5. The value x_j = 7j mod 20 is set at
 * 5j + 1 (j = 0 … 19) after 0 from t0 = 0, so each change falls inside a batch of 5 and
 * across one of 2.5: batch j of [5j, 5j + 5) holds x_{j−1} for 1 and x_j for 4, mean
 * (x_{j−1} + 4 x_j) / 5 with x_{−1} = 0. */
static void test_tpstat_batches(void) {
  double m[20], mean = 0.0;
  for (int j = 0; j < 20; j++) {
    double prev = j ? (7 * (j - 1)) % 20 : 0.0;
    m[j] = (prev + 4.0 * ((7 * j) % 20)) / 5.0;
    mean += m[j] / 20.0;
  }
  double ss = 0.0, dd = 0.0;
  for (int j = 0; j < 20; j++) {
    ss += (m[j] - mean) * (m[j] - mean);
    if (j < 19) dd += (m[j + 1] - m[j]) * (m[j + 1] - m[j]);
  }
  /* Young's C must be below its one-sided 5% point for the half-width to be given. */
  CHECK(1.0 - dd / (2.0 * ss) < 1.6448536 * sqrt(18.0 / 399.0));
  double hw = 2.093024054 * sqrt(ss / 19.0 / 20.0);

  cdevs_tpstat *s = cdevs_tpstat_new(NULL, 0.0, 0.0, 100.0);
  CHECK(s != NULL);
  if (!s) return;
  cdevs_stat_summary o;
  double area = 0.0; /* ∫v dt up to 100, by intervals */
  for (int j = 0; j < 20; j++) {
    CHECK_RUN(cdevs_tpstat_set(s, 5.0 * j + 1.0, (7 * j) % 20));
    area += ((7 * j) % 20) * (j < 19 ? 5.0 : 4.0);
    if (j == 10) {
      /* At 51, 20 batches of 2.5 are complete. */
      cdevs_tpstat_summary(s, 51.0, &o);
      CHECK_EQ_INT(o.batches, 20);
    }
  }
  cdevs_tpstat_summary(s, 99.9, &o);
  CHECK_EQ_INT(o.batches, 39);
  cdevs_tpstat_summary(s, 100.0, &o);
  CHECK_EQ_INT(o.batches, 20);
  CHECK_EQ_INT(o.hw_status, CDEVS_HW_OK);
  CHECK_NEAR(o.half_width, hw, 1e-8);
  CHECK_NEAR(o.avg, area / 100.0, 1e-12);
  /* Past the expected span the batches stay 5 long: 30 of them at 150. */
  cdevs_tpstat_summary(s, 150.0, &o);
  CHECK_EQ_INT(o.batches, 30);
  cdevs_tpstat_free(s);

  /* Unknown span: the first interval, [0, 1), makes batches of 1/40. They double at
   * every 40, so from 20 w to 40 w of time they are w = 2^k / 40 long: at 100,
   * w = 128 / 40 = 3.2 and 31 batches are complete. */
  s = cdevs_tpstat_new(NULL, 0.0, 0.0, INFINITY);
  if (!s) return;
  for (int j = 0; j < 20; j++) CHECK_RUN(cdevs_tpstat_set(s, 5.0 * j + 1.0, (7 * j) % 20));
  cdevs_tpstat_summary(s, 100.0, &o);
  CHECK_EQ_INT(o.batches, 31);
  CHECK_NEAR(o.avg, area / 100.0, 1e-12);
  /* A constant signal: identical batch means, a half-width of 0. */
  CHECK_EQ_INT(cdevs_tpstat_reset(s, 100.0), CDEVS_OK);
  cdevs_tpstat_summary(s, 200.0, &o);
  CHECK_EQ_INT(o.hw_status, CDEVS_HW_OK);
  CHECK_NEAR(o.half_width, 0.0, 0);
  CHECK_NEAR(o.avg, 13.0, 0); /* x_19 = 133 mod 20 */
  cdevs_tpstat_free(s);
}

/* A queue-like signal with a known time average: a value drawn uniformly from
 * {0, …, 9} held for an exponential time. The time average converges to 4.5; over
 * 400 runs of 20000 holding times each, the half-width covers 4.5 as often as the
 * binomial band of coverage() allows. */
static void test_tpstat_coverage(void) {
  uint64_t seed = 3;
  int covered = 0, given = 0;
  for (int r = 0; r < 400; r++) {
    double t = 0.0;
    cdevs_tpstat *s = cdevs_tpstat_new(NULL, 0.0, floor(10.0 * uniform(&seed)), 20000.0);
    if (!s) break;
    for (int i = 0; i < 20000; i++) {
      t += -log(uniform(&seed));
      cdevs_tpstat_set(s, t, floor(10.0 * uniform(&seed)));
    }
    cdevs_stat_summary o;
    cdevs_tpstat_summary(s, t, &o);
    cdevs_tpstat_free(s);
    if (o.hw_status != CDEVS_HW_OK) continue;
    given++;
    if (fabs(o.avg - 4.5) <= o.half_width) covered++;
  }
  double cov = (double)covered / given;
  if (!(cov >= 0.90 && cov <= 0.99)) fprintf(stderr, "tpstat coverage %d/%d\n", covered, given);
  CHECK(cov >= 0.90 && cov <= 0.99);
  CHECK(given >= 356); /* at most 44 flagged, as in coverage() */
}

int main(void) {
  test_t_quantiles();
  test_mean_hw();
  test_tally_known();
  test_tally_errors();
  test_tally_batches();
  test_coverage();
  test_mser();
  test_mser_memory();
  test_tpstat_hand();
  test_tpstat_errors();
  test_tpstat_batches();
  test_tpstat_coverage();
  return check_report("test_stats");
}
