/* SPDX-License-Identifier: MIT */
/* The process layer: MRG32k3a and its streams against the published recurrence and
 * jump matrices, and every variate by its moments and a goodness-of-fit test whose
 * critical values are derived here. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/cdevs.h"
#include "check.h"
#include "test_util.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#define M_SQRT2 1.41421356237309504880

#define M1 4294967087LL
#define M2 4294944443LL

/* ---- MRG32k3a ------------------------------------------------------------------ */

/* The recurrence as L'Ecuyer (1999) writes it, on a growing history x[n]. */
typedef struct ref_mrg {
  int64_t x1[3], x2[3]; /* x[n−3], x[n−2], x[n−1] */
} ref_mrg;

static double ref_next(ref_mrg *r) {
  int64_t x1 = ((1403580 * r->x1[1] - 810728 * r->x1[0]) % M1 + M1) % M1;
  int64_t x2 = ((527612 * r->x2[2] - 1370589 * r->x2[0]) % M2 + M2) % M2;
  memmove(r->x1, r->x1 + 1, 2 * sizeof(int64_t));
  memmove(r->x2, r->x2 + 1, 2 * sizeof(int64_t));
  r->x1[2] = x1, r->x2[2] = x2;
  int64_t z = ((x1 - x2) % M1 + M1) % M1;
  return z > 0 ? (double)z / (double)(M1 + 1) : (double)M1 / (double)(M1 + 1);
}

/* The jump matrices L'Ecuyer, Simard, Chen & Kelton (2002) publish: A1^(2^76),
 * A2^(2^76), A1^(2^127), A2^(2^127). */
static const uint64_t A1P76[3][3] = {{82758667u, 1871391091u, 4127413238u},
                                     {3672831523u, 69195019u, 1871391091u},
                                     {3672091415u, 3528743235u, 69195019u}};
static const uint64_t A2P76[3][3] = {{1511326704u, 3759209742u, 1610795712u},
                                     {4292754251u, 1511326704u, 3889917532u},
                                     {3859662829u, 4292754251u, 3708466080u}};
static const uint64_t A1P127[3][3] = {{2427906178u, 3580155704u, 949770784u},
                                      {226153695u, 1230515664u, 3580155704u},
                                      {1988835001u, 986791581u, 1230515664u}};
static const uint64_t A2P127[3][3] = {{1464411153u, 277697599u, 1610723613u},
                                      {32183930u, 1464411153u, 1022607788u},
                                      {2824425944u, 32183930u, 2093834863u}};

/* v ← A·v modulo m, with 128-bit products (another way than the library's). */
__extension__ typedef unsigned __int128 u128;

static void ref_matvec(const uint64_t a[3][3], int64_t v[3], int64_t m) {
  int64_t r[3];
  for (int i = 0; i < 3; i++) {
    u128 s = 0;
    for (int k = 0; k < 3; k++) s += (u128)a[i][k] * (uint64_t)v[k];
    r[i] = (int64_t)(s % (u128)m);
  }
  memcpy(v, r, sizeof r);
}

static void jump_ref(int64_t v[6], const uint64_t a1[3][3], const uint64_t a2[3][3]) {
  ref_matvec(a1, v, M1);
  ref_matvec(a2, v + 3, M2);
}

static int same_state(const int64_t *a, const int64_t *b) { return !memcmp(a, b, 6 * sizeof(int64_t)); }

static void test_mrg32k3a(void) {
  uint32_t seed[6];
  cdevs_rng_package_seed(0, seed);
  for (int i = 0; i < 6; i++) CHECK_EQ_INT(seed[i], 12345);

  /* Stream 0 of the default seed is the plain recurrence from 12345s. */
  cdevs_rng g;
  cdevs_rng_stream(&g, seed, 0);
  ref_mrg r = {{12345, 12345, 12345}, {12345, 12345, 12345}};
  /* the states exactly, the outputs to the rounding of the scaling by 1/(m1 + 1) */
  int same = 1;
  for (int n = 0; n < 100000; n++) {
    double u = cdevs_rng_u01(&g), v = ref_next(&r);
    same &= fabs(u - v) <= 2.3e-16 * v && g.s[2] == r.x1[2] && g.s[5] == r.x2[2];
  }
  CHECK(same);
  /* The first output L'Ecuyer's generator is known by: 0.1270111220 */
  cdevs_rng_stream(&g, seed, 0);
  CHECK_NEAR(cdevs_rng_u01(&g), 0.1270111220, 5e-11);

  /* advance(n) is n steps. */
  cdevs_rng h;
  cdevs_rng_stream(&g, seed, 0);
  cdevs_rng_stream(&h, seed, 0);
  for (int n = 0; n < 12345; n++) (void)cdevs_rng_u01(&g);
  cdevs_rng_advance(&h, 12345);
  CHECK(same_state(g.s, h.s));

  /* Streams and substreams through the published matrices. */
  int64_t v[6];
  for (int i = 0; i < 6; i++) v[i] = 12345;
  for (uint64_t k = 1; k <= 3; k++) {
    jump_ref(v, A1P127, A2P127);
    cdevs_rng_stream(&g, seed, k);
    CHECK(same_state(g.s, v));
    CHECK(same_state(g.stream, v));
  }
  /* stream 3, substreams 1 and 2 */
  int64_t w[6];
  memcpy(w, v, sizeof w);
  jump_ref(w, A1P76, A2P76);
  cdevs_rng_next_substream(&g);
  CHECK(same_state(g.s, w));
  jump_ref(w, A1P76, A2P76);
  cdevs_rng_stream(&h, seed, 3);
  cdevs_rng_substream(&h, 2);
  CHECK(same_state(h.s, w));
  /* a large stream index by repeated published jumps: 2^10 + 1 = 1025 jumps */
  for (int i = 0; i < 6; i++) v[i] = 12345;
  for (int k = 0; k < 1025; k++) jump_ref(v, A1P127, A2P127);
  cdevs_rng_stream(&g, seed, 1025);
  CHECK(same_state(g.s, v));

  /* Common random numbers: a reset substream repeats itself; antithetic gives 1 − u. */
  cdevs_rng_stream(&g, seed, 7);
  cdevs_rng_substream(&g, 5);
  double first[5];
  for (int i = 0; i < 5; i++) first[i] = cdevs_rng_u01(&g);
  cdevs_rng_reset_substream(&g);
  g.antithetic = 1;
  for (int i = 0; i < 5; i++) CHECK(cdevs_rng_u01(&g) == 1.0 - first[i]);

  /* Outputs stay inside (0, 1). */
  double lo = 1, hi = 0;
  cdevs_rng_stream(&g, seed, 11);
  for (int i = 0; i < 1000000; i++) {
    double u = cdevs_rng_u01(&g);
    lo = u < lo ? u : lo, hi = u > hi ? u : hi;
  }
  CHECK(lo > 0 && hi < 1);

  /* Seeds: the bounds of L'Ecuyer's seeds. */
  uint32_t bad1[6] = {0, 0, 0, 1, 1, 1}, bad2[6] = {1, 1, (uint32_t)M1, 1, 1, 1}, bad3[6] = {1, 1, 1, 0, 0, 0};
  uint32_t good[6] = {(uint32_t)(M1 - 1), 0, 0, 0, 0, (uint32_t)(M2 - 1)};
  CHECK(cdevs_rng_check_seed(bad1) != CDEVS_OK);
  CHECK(cdevs_rng_check_seed(bad2) != CDEVS_OK);
  CHECK(cdevs_rng_check_seed(bad3) != CDEVS_OK);
  CHECK(cdevs_rng_check_seed(good) == CDEVS_OK);
  for (uint64_t n = 1; n < 2000; n++) {
    cdevs_rng_package_seed(n * 7919, seed);
    if (cdevs_rng_check_seed(seed) != CDEVS_OK) {
      CHECK(!"a package seed out of range");
      break;
    }
  }
  uint32_t s1[6], s2[6];
  cdevs_rng_package_seed(1, s1);
  cdevs_rng_package_seed(2, s2);
  CHECK(memcmp(s1, s2, sizeof s1) != 0);

  /* Named streams: the same name, the same stream; another name, another. */
  cdevs_rng_package_seed(0, seed);
  cdevs_rng_named(&g, seed, "line.arrive");
  cdevs_rng_named(&h, seed, "line.arrive");
  CHECK(same_state(g.s, h.s));
  cdevs_rng_named(&h, seed, "line.arrivf");
  CHECK(!same_state(g.s, h.s));
  CHECK(cdevs_rng_name_hash("m1") != cdevs_rng_name_hash("m2"));
}

/* ---- Variates --------------------------------------------------------------------- */

#define NSAMPLES 200000

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef double (*cdf_fn)(const double *p, double x);

/* Kolmogorov–Smirnov: the largest distance between the empirical and the true CDF,
 * against the asymptotic critical value at α = 0.001, sqrt(−ln(α/2)/2)/sqrt(n)
 * (Kolmogorov's limit; n = 200000 is far into it). */
static double ks_distance(double *x, int n, cdf_fn cdf, const double *p) {
  qsort(x, (size_t)n, sizeof *x, cmp_double);
  double d = 0;
  for (int i = 0; i < n; i++) {
    double f = cdf(p, x[i]);
    double a = fabs(f - (double)i / n), b = fabs((double)(i + 1) / n - f);
    d = fmax(d, fmax(a, b));
  }
  return d;
}

static double ks_critical(int n) { return sqrt(-log(0.001 / 2) / 2) / sqrt((double)n); }

static double phi(double z) { return 0.5 * erfc(-z / M_SQRT2); }

static double cdf_uniform(const double *p, double x) { return x <= p[0] ? 0 : x >= p[1] ? 1 : (x - p[0]) / (p[1] - p[0]); }
static double cdf_expo(const double *p, double x) { return x <= 0 ? 0 : 1 - exp(-x / p[0]); }
static double cdf_normal(const double *p, double x) { return phi((x - p[0]) / p[1]); }
static double cdf_logn(const double *p, double x) {
  double s2 = log(1 + p[1] * p[1] / (p[0] * p[0])), mu = log(p[0]) - s2 / 2;
  return x <= 0 ? 0 : phi((log(x) - mu) / sqrt(s2));
}
static double cdf_tria(const double *p, double x) {
  double a = p[0], c = p[1], b = p[2];
  if (x <= a) return 0;
  if (x >= b) return 1;
  return x <= c ? (x - a) * (x - a) / ((b - a) * (c - a)) : 1 - (b - x) * (b - x) / ((b - a) * (b - c));
}
static double cdf_erlang(const double *p, double x) {
  if (x <= 0) return 0;
  double y = x / p[0], term = 1, s = 0;
  for (int n = 0; n < (int)p[1]; n++) {
    if (n > 0) term *= y / n;
    s += term;
  }
  return 1 - exp(-y) * s;
}
/* The regularised lower incomplete gamma by its series Σ x^n / (a (a+1) … (a+n)). */
static double inc_gamma(double a, double x) {
  if (x <= 0) return 0;
  double term = 1 / a, s = term;
  for (int n = 1; n < 100000 && term > s * 1e-17; n++) {
    term *= x / (a + n);
    s += term;
  }
  return s * exp(-x + a * log(x) - lgamma(a));
}
static double cdf_gamma(const double *p, double x) { return inc_gamma(p[1], x / p[0]); }
static double cdf_beta23(const double *p, double x) {
  (void)p;
  /* I_x(2, 3) = Σ_{j=2..4} C(4, j) x^j (1−x)^(4−j) */
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  return 6 * x * x * (1 - x) * (1 - x) + 4 * x * x * x * (1 - x) + x * x * x * x;
}
static double cdf_arcsine(const double *p, double x) {
  (void)p;
  return x <= 0 ? 0 : x >= 1 ? 1 : 2 / M_PI * asin(sqrt(x));
}
static double cdf_weibull(const double *p, double x) { return x <= 0 ? 0 : 1 - exp(-pow(x / p[0], p[1])); }
static double cdf_cont(const double *p, double x) {
  /* CONT(0, 1, 0.25, 2, 1, 4): linear pieces 1..2 (mass 0.25) and 2..4 (0.75) */
  (void)p;
  if (x <= 1) return 0;
  if (x >= 4) return 1;
  return x <= 2 ? 0.25 * (x - 1) : 0.25 + 0.75 * (x - 2) / 2;
}

typedef struct ks_case {
  int kind;
  int n;
  double p[6];
  cdf_fn cdf;
} ks_case;

/* Moments: the sample mean within 5 standard errors of the mean, and the sample
 * variance within 5 standard errors of the variance (its standard error from the
 * sample's fourth central moment). */
static void check_moments(const cdevs_dist *d, const double *x, int n) {
  double mu = cdevs_dist_mean(d), var = cdevs_dist_variance(d);
  double m = 0, s2 = 0, m4 = 0;
  for (int i = 0; i < n; i++) m += x[i];
  m /= n;
  for (int i = 0; i < n; i++) {
    double e = x[i] - m;
    s2 += e * e, m4 += e * e * e * e;
  }
  s2 /= n - 1, m4 /= n;
  char name[128];
  cdevs_dist_format(d, name, sizeof name);
  int ok_mean = fabs(m - mu) <= 5 * sqrt(var / n) + 1e-12;
  int ok_var = fabs(s2 - var) <= 5 * sqrt(fmax(m4 - s2 * s2, 0) / n) + 1e-12;
  if (!ok_mean || !ok_var)
    fprintf(stderr, "%s: mean %.6g (expected %.6g), variance %.6g (expected %.6g)\n", name, m, mu, s2, var);
  CHECK(ok_mean);
  CHECK(ok_var);
}

static void test_continuous_variates(void) {
  static const ks_case cases[] = {
      {CDEVS_DIST_UNIFORM, 2, {-1, 3}, cdf_uniform},
      {CDEVS_DIST_EXPONENTIAL, 1, {1.25}, cdf_expo},
      {CDEVS_DIST_NORMAL, 2, {10, 2}, cdf_normal},
      {CDEVS_DIST_LOGNORMAL, 2, {2, 1.5}, cdf_logn},
      {CDEVS_DIST_TRIANGULAR, 3, {1, 2, 4}, cdf_tria},
      {CDEVS_DIST_TRIANGULAR, 3, {0, 0, 1}, cdf_tria},
      {CDEVS_DIST_ERLANG, 2, {0.5, 3}, cdf_erlang},
      {CDEVS_DIST_GAMMA, 2, {2, 2.5}, cdf_gamma},
      {CDEVS_DIST_GAMMA, 2, {1, 0.5}, cdf_gamma},
      {CDEVS_DIST_BETA, 2, {2, 3}, cdf_beta23},
      {CDEVS_DIST_BETA, 2, {0.5, 0.5}, cdf_arcsine},
      {CDEVS_DIST_WEIBULL, 2, {2, 1.5}, cdf_weibull},
      {CDEVS_DIST_CONTINUOUS, 6, {0, 1, 0.25, 2, 1, 4}, cdf_cont},
  };
  static double x[NSAMPLES];
  uint32_t seed[6];
  cdevs_rng_package_seed(0, seed);
  for (size_t c = 0; c < COUNT(cases); c++) {
    cdevs_dist d;
    char why[160];
    if (cdevs_dist_make(&d, cases[c].kind, cases[c].p, cases[c].n, why, sizeof why) != CDEVS_OK) {
      fprintf(stderr, "case %zu: %s\n", c, why);
      CHECK(!"a valid distribution refused");
      continue;
    }
    cdevs_rng g;
    cdevs_rng_stream(&g, seed, 100 + c);
    for (int i = 0; i < NSAMPLES; i++) x[i] = cdevs_dist_sample(&d, &g);
    check_moments(&d, x, NSAMPLES);
    double dist = ks_distance(x, NSAMPLES, cases[c].cdf, cases[c].p);
    if (!(dist < ks_critical(NSAMPLES))) {
      char name[128];
      cdevs_dist_format(&d, name, sizeof name);
      fprintf(stderr, "%s: KS distance %.5f >= %.5f\n", name, dist, ks_critical(NSAMPLES));
    }
    CHECK(dist < ks_critical(NSAMPLES));
  }
}

/* Chi-square goodness of fit over bins with expected probabilities q (each expected
 * count ≥ 5), against the 0.999 quantile of χ² with k − 1 degrees of freedom by
 * Wilson & Hilferty's cube-root approximation (z = 3.0902, the normal 0.999 quantile). */
static int chi2_ok(const long *count, const double *q, int k, long n, const char *what) {
  double x2 = 0;
  for (int i = 0; i < k; i++) {
    double e = q[i] * (double)n;
    double o = (double)count[i];
    x2 += (o - e) * (o - e) / e;
  }
  double df = k - 1, z = 3.0902;
  double crit = df * pow(1 - 2 / (9 * df) + z * sqrt(2 / (9 * df)), 3);
  if (!(x2 < crit)) fprintf(stderr, "%s: chi-square %.2f >= %.2f (%d bins)\n", what, x2, crit, k);
  return x2 < crit;
}

static double pois_pmf(double lambda, int k) { return exp(k * log(lambda) - lambda - lgamma(k + 1.0)); }

static void test_discrete_variates(void) {
  static double x[NSAMPLES];
  uint32_t seed[6];
  cdevs_rng_package_seed(0, seed);
  cdevs_rng g;
  cdevs_dist d;

  /* Poisson(3.7) on 0..10 and 11+, and Poisson(800) (the sum of two pieces) on bins of
   * width 10 from 740 to 860 with the tails pooled. */
  double lambdas[] = {3.7, 800};
  for (int c = 0; c < 2; c++) {
    double lambda = lambdas[c];
    CHECK(cdevs_dist_make(&d, CDEVS_DIST_POISSON, &lambda, 1, NULL, 0) == CDEVS_OK);
    cdevs_rng_stream(&g, seed, 200 + (uint64_t)c);
    for (int i = 0; i < NSAMPLES; i++) x[i] = cdevs_dist_sample(&d, &g);
    check_moments(&d, x, NSAMPLES);
    long count[16] = {0};
    double q[16] = {0};
    int k = c == 0 ? 12 : 14, integral = 1;
    for (int i = 0; i < NSAMPLES; i++) {
      int b = c == 0 ? (x[i] >= 11 ? 11 : (int)x[i]) : (x[i] < 740 ? 0 : x[i] >= 860 ? 13 : 1 + (int)((x[i] - 740) / 10));
      count[b]++;
      integral &= x[i] == floor(x[i]);
    }
    CHECK(integral);
    for (int v = 0; v < 2000; v++) {
      int b = c == 0 ? (v >= 11 ? 11 : v) : (v < 740 ? 0 : v >= 860 ? 13 : 1 + (v - 740) / 10);
      q[b] += pois_pmf(lambda, v);
    }
    CHECK(chi2_ok(count, q, k, NSAMPLES, c == 0 ? "Poisson(3.7)" : "Poisson(800)"));
  }

  /* Bernoulli(0.3) and DISC(0.2, 5, 0.7, -1, 1, 8) */
  double pb = 0.3;
  CHECK(cdevs_dist_make(&d, CDEVS_DIST_BERNOULLI, &pb, 1, NULL, 0) == CDEVS_OK);
  cdevs_rng_stream(&g, seed, 210);
  long ones[2] = {0};
  for (int i = 0; i < NSAMPLES; i++) ones[cdevs_dist_sample(&d, &g) == 1.0]++;
  double qb[2] = {0.7, 0.3};
  CHECK(chi2_ok(ones, qb, 2, NSAMPLES, "Bernoulli(0.3)"));
  double pd[] = {0.2, 5, 0.7, -1, 1, 8};
  CHECK(cdevs_dist_make(&d, CDEVS_DIST_DISCRETE, pd, 6, NULL, 0) == CDEVS_OK);
  CHECK_NEAR(cdevs_dist_mean(&d), 0.2 * 5 - 0.5 + 0.3 * 8, 1e-12);
  cdevs_rng_stream(&g, seed, 211);
  long cd[3] = {0};
  int others = 0;
  for (int i = 0; i < NSAMPLES; i++) {
    double v = cdevs_dist_sample(&d, &g);
    if (v == 5) cd[0]++;
    else if (v == -1) cd[1]++;
    else if (v == 8) cd[2]++;
    else others++;
  }
  double qd[3] = {0.2, 0.5, 0.3};
  CHECK_EQ_INT(others, 0);
  CHECK(chi2_ok(cd, qd, 3, NSAMPLES, "Discrete"));

  /* CONT with a mass at its first value: CONT(0.4, 3, 1, 5) gives 3 with probability
   * 0.4, else uniform on (3, 5]. */
  double pc[] = {0.4, 3, 1, 5};
  CHECK(cdevs_dist_make(&d, CDEVS_DIST_CONTINUOUS, pc, 4, NULL, 0) == CDEVS_OK);
  cdevs_rng_stream(&g, seed, 212);
  long cc[3] = {0};
  for (int i = 0; i < NSAMPLES; i++) {
    double v = cdevs_dist_sample(&d, &g);
    cc[v == 3 ? 0 : v < 4 ? 1 : 2]++;
  }
  double qc[3] = {0.4, 0.3, 0.3};
  CHECK(chi2_ok(cc, qc, 3, NSAMPLES, "Continuous with a mass"));
  CHECK_NEAR(cdevs_dist_mean(&d), 0.4 * 3 + 0.6 * 4, 1e-12);

  /* Constant */
  double pk = 2.5;
  CHECK(cdevs_dist_make(&d, CDEVS_DIST_CONSTANT, &pk, 1, NULL, 0) == CDEVS_OK);
  CHECK(cdevs_dist_sample(&d, &g) == 2.5);
}

static void test_normal_quantile(void) {
  /* Published values (tables of the normal distribution, and scipy as an independent
   * implementation): */
  CHECK_NEAR(cdevs_normal_quantile(0.975), 1.959963984540054, 2e-15);
  CHECK_NEAR(cdevs_normal_quantile(0.999), 3.090232306167813, 4e-15);
  CHECK_NEAR(cdevs_normal_quantile(1e-10), -6.361340902404056, 1e-13);
  CHECK_NEAR(cdevs_normal_quantile(0.3), -0.5244005127080409, 2e-15);
  CHECK_NEAR(cdevs_normal_quantile(0.5), 0.0, 1e-16);
  /* and Φ(Φ⁻¹(u)) = u across (0, 1), Φ from the C library's erfc */
  double worst = 0;
  for (int i = 1; i < 100000; i++) {
    double u = i / 100000.0, lower = u < 0.5 ? u : 1 - u;
    double z = cdevs_normal_quantile(u), back = u < 0.5 ? phi(z) : phi(-z);
    worst = worst_of(worst, fabs(back - lower) / lower);
  }
  CHECK(worst < 1e-13);
}

static void test_antithetic(void) {
  /* An antithetic exponential is the same quantile of 1 − u: x + x' = −m(ln u + ln(1 − u)). */
  uint32_t seed[6];
  cdevs_rng_package_seed(0, seed);
  cdevs_rng g, h;
  cdevs_rng_stream(&g, seed, 300);
  cdevs_rng_stream(&h, seed, 300);
  h.antithetic = 1;
  cdevs_dist d;
  double mean = 2;
  CHECK(cdevs_dist_make(&d, CDEVS_DIST_EXPONENTIAL, &mean, 1, NULL, 0) == CDEVS_OK);
  double cov = 0;
  for (int i = 0; i < 10000; i++) {
    double a = cdevs_dist_sample(&d, &g), b = cdevs_dist_sample(&d, &h);
    cov += (a - mean) * (b - mean);
  }
  /* For the exponential, corr(F⁻¹(U), F⁻¹(1 − U)) = 1 − π²/6 ≈ −0.645. */
  CHECK_NEAR(cov / 10000 / (mean * mean), 1 - M_PI * M_PI / 6, 0.05);
}

static void test_dist_errors(void) {
  cdevs_dist d;
  char why[200];
  struct {
    int kind, n;
    double p[6];
    const char *says;
  } bad[] = {
      {CDEVS_DIST_EXPONENTIAL, 1, {-1}, "mean > 0"},
      {CDEVS_DIST_EXPONENTIAL, 2, {1, 2}, "takes 1 parameter"},
      {CDEVS_DIST_UNIFORM, 2, {3, 1}, "min < max"},
      {CDEVS_DIST_TRIANGULAR, 3, {1, 5, 4}, "mode"},
      {CDEVS_DIST_NORMAL, 2, {0, -1}, "sd >= 0"},
      {CDEVS_DIST_ERLANG, 2, {1, 2.5}, "integer k"},
      {CDEVS_DIST_GAMMA, 2, {1, 0}, "alpha > 0"},
      {CDEVS_DIST_BERNOULLI, 1, {1.5}, "0 <= p <= 1"},
      {CDEVS_DIST_DISCRETE, 4, {0.3, 1, 0.9, 2}, "last cumulative probability to be 1"},
      {CDEVS_DIST_DISCRETE, 4, {0.6, 1, 0.5, 2}, "increasing"},
      {CDEVS_DIST_DISCRETE, 3, {0.6, 1, 1}, "pairs"},
      {CDEVS_DIST_CONTINUOUS, 4, {0.5, 3, 1, 2}, "increasing values"},
      {CDEVS_DIST_POISSON, 1, {NAN}, "finite"},
      {CDEVS_DIST_WEIBULL, 2, {INFINITY, 1}, "finite"},
  };
  for (size_t i = 0; i < COUNT(bad); i++) {
    why[0] = 0;
    cdevs_status st = cdevs_dist_make(&d, bad[i].kind, bad[i].p, bad[i].n, why, sizeof why);
    CHECK(st == CDEVS_EINVAL);
    if (!strstr(why, bad[i].says)) fprintf(stderr, "case %zu: '%s' lacks '%s'\n", i, why, bad[i].says);
    CHECK(strstr(why, bad[i].says) != NULL);
  }
  CHECK_EQ_INT(cdevs_dist_kind_parse("EXPO"), CDEVS_DIST_EXPONENTIAL);
  CHECK_EQ_INT(cdevs_dist_kind_parse("Triangular"), CDEVS_DIST_TRIANGULAR);
  CHECK_EQ_INT(cdevs_dist_kind_parse("Expo"), -1);
  double p[] = {1, 2, 4};
  CHECK(cdevs_dist_make(&d, CDEVS_DIST_TRIANGULAR, p, 3, NULL, 0) == CDEVS_OK);
  char buf[64];
  CHECK_EQ_INT(cdevs_dist_format(&d, buf, sizeof buf), strlen("Triangular(1, 2, 4)"));
  CHECK(!strcmp(buf, "Triangular(1, 2, 4)"));
  char small[8];
  CHECK_EQ_INT(cdevs_dist_format(&d, small, sizeof small), strlen("Triangular(1, 2, 4)"));
  CHECK(!strcmp(small, "Triangu"));
}

/* ---- Queues against queueing theory ----------------------------------------------------- */

static cdevs_dist expo(double mean) {
  cdevs_dist d;
  if (cdevs_dist_make(&d, CDEVS_DIST_EXPONENTIAL, &mean, 1, NULL, 0) != CDEVS_OK) abort();
  return d;
}

/* What one replication of an M/M/c queue measured. */
typedef struct mmc_result {
  double L, Lq, W, Wq, busy, lambda_hat, in, out, wip;
  int ok;
} mmc_result;

static double stat_avg(cdevs_proc *p, const char *owner, const char *name, double t_end) {
  long i = cdevs_proc_stat_find(p, owner, name);
  if (i < 0) {
    fprintf(stderr, "no statistic %s.%s\n", owner, name);
    return NAN;
  }
  cdevs_stat_info in;
  cdevs_proc_stat(p, (size_t)i, t_end, &in);
  return in.s.avg;
}

/* λ arrivals per time unit, c servers of rate μ, from 0 to t_end with a warm-up. */
static mmc_result run_mmc(double lambda, double mu, int c, double t_end, double warmup, uint64_t rep) {
  mmc_result r;
  memset(&r, 0, sizeof r);
  cdevs_proc_opts o = cdevs_proc_opts_default();
  o.replication = rep;
  o.warmup = warmup;
  o.span = t_end - warmup;
  cdevs_proc *p = cdevs_proc_new(NULL, &o);
  cdevs_model *root = cdevs_root_new(NULL, "mmc");
  if (!p || cdevs_proc_resource(p, "server", c) < 0) abort();
  cdevs_create_params cp = {p, "Customer", expo(1 / lambda), 1, 0, 0};
  cdevs_process_params pp = {p, CDEVS_SEIZE_DELAY_RELEASE, "server", 1, 0, expo(1 / mu), CDEVS_VA, CDEVS_FIFO, NULL, 0};
  cdevs_dispose_params dp = {p};
  proc_line(root, &cp, &pp, &dp);
  cdevs_sim *sim = NULL;
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim)) && CHECK_RUN(cdevs_sim_run(sim, t_end))) {
    r.L = stat_avg(p, "Customer", "WIP", t_end);
    r.Lq = stat_avg(p, "serve.Queue", "NQ", t_end);
    r.W = stat_avg(p, "Customer", "TotalTime", t_end);
    r.Wq = stat_avg(p, "serve.Queue", "WaitTime", t_end);
    r.busy = stat_avg(p, "server", "NumberBusy", t_end);
    r.out = stat_avg(p, "System", "NumberOut", t_end);
    r.in = stat_avg(p, "System", "NumberIn", t_end);
    r.lambda_hat = r.out / (t_end - warmup);
    r.wip = (double)cdevs_proc_wip(p);
    r.ok = 1;
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
  return r;
}

/* M/M/1 with λ = 0.8, μ = 1: L = ρ/(1 − ρ) = 4, Lq = ρ²/(1 − ρ) = 3.2, W = 1/(μ − λ) = 5,
 * Wq = ρ/(μ − λ) = 4. Each inside the 95% half-width of 30 replications (Student t,
 * 29 degrees of freedom), and Little's law L = λ̂W on every replication, λ̂ the
 * measured throughput (exact up to the customers present at the ends of the run). */
static void test_mm1(void) {
  enum { REPS = 30 };
  double L[REPS], Lq[REPS], W[REPS], Wq[REPS];
  double little = 0;
  for (int r = 0; r < REPS; r++) {
    mmc_result m = run_mmc(0.8, 1.0, 1, 22000, 2000, (uint64_t)r);
    if (!m.ok) return;
    L[r] = m.L, Lq[r] = m.Lq, W[r] = m.W, Wq[r] = m.Wq;
    little = worst_of(little, fabs(m.L - m.lambda_hat * m.W) / m.L);
    /* the server is busy a fraction ρ of the time, and Lq = L − busy (time averages) */
    CHECK_NEAR(m.Lq, m.L - m.busy, 1e-9 * m.L);
  }
  struct {
    const char *name;
    double *x, theory;
  } rows[] = {{"L", L, 4}, {"Lq", Lq, 3.2}, {"W", W, 5}, {"Wq", Wq, 4}};
  for (size_t k = 0; k < COUNT(rows); k++) {
    double hw, mean = cdevs_stats_mean_hw(rows[k].x, REPS, &hw);
    printf("M/M/1 %-2s theory %-4g measured %.4f ± %.4f (30 replications)\n", rows[k].name, rows[k].theory, mean, hw);
    CHECK(fabs(mean - rows[k].theory) <= hw);
  }
  printf("M/M/1 Little's law: worst |L − λ̂W|/L over 30 replications %.2e\n", little);
  CHECK(little < 0.01);
}

/* M/M/3 with λ = 2, μ = 1 (a = 2 busy servers on average): Erlang's C formula gives
 * P(wait) = (a³/3!·3/(3 − a)) / (1 + a + a²/2 + a³/3!·3/(3 − a)) = 4/9, so
 * Wq = P(wait)/(3μ − λ) = 4/9 and Lq = λWq = 8/9. */
static void test_mm3(void) {
  enum { REPS = 20 };
  double Wq[REPS], Lq[REPS], busy[REPS];
  for (int r = 0; r < REPS; r++) {
    mmc_result m = run_mmc(2.0, 1.0, 3, 11000, 1000, (uint64_t)r);
    if (!m.ok) return;
    Wq[r] = m.Wq, Lq[r] = m.Lq, busy[r] = m.busy;
  }
  double hw, mean = cdevs_stats_mean_hw(Wq, REPS, &hw);
  printf("M/M/3 Wq theory %.4f measured %.4f ± %.4f\n", 4.0 / 9, mean, hw);
  CHECK(fabs(mean - 4.0 / 9) <= hw);
  mean = cdevs_stats_mean_hw(Lq, REPS, &hw);
  printf("M/M/3 Lq theory %.4f measured %.4f ± %.4f\n", 8.0 / 9, mean, hw);
  CHECK(fabs(mean - 8.0 / 9) <= hw);
  mean = cdevs_stats_mean_hw(busy, REPS, &hw);
  printf("M/M/3 busy servers theory 2 measured %.4f ± %.4f\n", mean, hw);
  CHECK(fabs(mean - 2) <= hw);
}

/* Two classes of customers, each Poisson(0.4), seize one exponential server (μ = 1)
 * from two Process blocks sharing it. With equal priorities the unit goes to the
 * customer waiting longest, so the server sees one FIFO M/M/1 queue with λ = 0.8 and
 * both classes wait Wq = 4. With class 1 first (non-preemptive priority), Cobham's
 * formula with W0 = Σ λᵢE[Sᵢ²]/2 = 0.8·2/2 = 0.8 gives Wq1 = W0/(1 − ρ1) = 4/3 and
 * Wq2 = W0/((1 − ρ1)(1 − ρ1 − ρ2)) = 20/3. */
static void shared_server(int priority2, double *wq1, double *wq2, double *busy, uint64_t rep) {
  cdevs_proc_opts o = cdevs_proc_opts_default();
  o.replication = rep;
  o.warmup = 2000;
  o.span = 20000;
  cdevs_proc *p = cdevs_proc_new(NULL, &o);
  cdevs_model *root = cdevs_root_new(NULL, "shared");
  if (!p || cdevs_proc_resource(p, "server", 1) < 0) abort();
  cdevs_create_params c1 = {p, "One", expo(2.5), 1, 0, 0}, c2 = {p, "Two", expo(2.5), 1, 0, 0};
  cdevs_process_params p1 = {p, CDEVS_SEIZE_DELAY_RELEASE, "server", 1, 0, expo(1), CDEVS_VA, CDEVS_FIFO, NULL, 0};
  cdevs_process_params p2 = p1;
  p2.priority = priority2;
  cdevs_dispose_params dp = {p};
  cdevs_model *a1 = cdevs_atomic_add(root, "a1", &cdevs_create_ops, &c1);
  cdevs_model *a2 = cdevs_atomic_add(root, "a2", &cdevs_create_ops, &c2);
  /* the second class's blocks one level down: a release reaches them without a coupling */
  cdevs_model *line = cdevs_coupled_add(root, "line");
  cdevs_model *s1 = cdevs_atomic_add(root, "s1", &cdevs_process_ops, &p1);
  cdevs_model *s2 = cdevs_atomic_add(line, "s2", &cdevs_process_ops, &p2);
  cdevs_model *out = cdevs_atomic_add(root, "out", &cdevs_dispose_ops, &dp);
  cdevs_port_add(line, CDEVS_IN, "in", CDEVS_MSG);
  cdevs_port_add(line, CDEVS_OUT, "out", CDEVS_MSG);
  cdevs_connect(root, a1, "out", s1, "in");
  cdevs_connect(root, a2, "out", line, "in");
  cdevs_connect(line, line, "in", s2, "in");
  cdevs_connect(line, s2, "out", line, "out");
  cdevs_connect(root, s1, "out", out, "in");
  cdevs_connect(root, line, "out", out, "in");
  cdevs_sim *sim = NULL;
  *wq1 = *wq2 = *busy = NAN;
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim)) && CHECK_RUN(cdevs_sim_run(sim, 22000))) {
    *wq1 = stat_avg(p, "s1.Queue", "WaitTime", 22000);
    *wq2 = stat_avg(p, "line.s2.Queue", "WaitTime", 22000);
    *busy = stat_avg(p, "server", "NumberBusy", 22000);
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
}

static void test_shared_resource(void) {
  enum { REPS = 30 };
  for (int prio = 0; prio <= 1; prio++) {
    double w1[REPS], w2[REPS], busy[REPS];
    for (int r = 0; r < REPS; r++) shared_server(prio, &w1[r], &w2[r], &busy[r], (uint64_t)r);
    double t1 = prio ? 4.0 / 3 : 4, t2 = prio ? 20.0 / 3 : 4, h1, h2, hb;
    double m1 = cdevs_stats_mean_hw(w1, REPS, &h1), m2 = cdevs_stats_mean_hw(w2, REPS, &h2);
    double mb = cdevs_stats_mean_hw(busy, REPS, &hb);
    printf("shared server, %s: Wq1 theory %.4f measured %.4f ± %.4f, Wq2 theory %.4f measured %.4f ± %.4f, "
           "busy %.4f ± %.4f (0.8)\n",
           prio ? "class 1 first" : "equal priorities", t1, m1, h1, t2, m2, h2, mb, hb);
    CHECK(fabs(m1 - t1) <= h1);
    CHECK(fabs(m2 - t2) <= h2);
    CHECK(fabs(mb - 0.8) <= hb);
  }
}

/* Bad input: a resource never released (a deadlock, named at the end), a capacity of
 * 0, a negative delay drawn at run time, an entity disposed holding a resource. */
static cdevs_status run_line(cdevs_process_params pp, int connect_out, double stop, cdevs_proc *p, char *err,
                             size_t n) {
  cdevs_model *root = cdevs_root_new(NULL, "bad");
  cdevs_create_params cp = {p, NULL, expo(1), 1, 0, 5};
  cdevs_dispose_params dp = {p};
  cdevs_model *c = cdevs_atomic_add(root, "arrive", &cdevs_create_ops, &cp);
  cdevs_model *q = cdevs_atomic_add(root, "drill", &cdevs_process_ops, &pp);
  cdevs_model *d = cdevs_atomic_add(root, "leave", &cdevs_dispose_ops, &dp);
  cdevs_connect(root, c, "out", q, "in");
  if (connect_out == 1) cdevs_connect(root, q, "out", d, "in");
  if (connect_out == 2) { /* a second Seize-Delay of the same resource, then the Dispose */
    cdevs_process_params hp = pp;
    hp.action = CDEVS_SEIZE_DELAY;
    cdevs_model *h = cdevs_atomic_add(root, "hold", &cdevs_process_ops, &hp);
    cdevs_connect(root, q, "out", h, "in");
    cdevs_connect(root, h, "out", d, "in");
  }
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, NULL, &sim);
  if (st == CDEVS_OK) st = cdevs_sim_run(sim, stop);
  snprintf(err, n, "%s", sim ? cdevs_sim_errmsg(sim) : cdevs_model_errmsg(root));
  if (st == CDEVS_OK && cdevs_sim_next_time(sim) != INFINITY) snprintf(err, n, "still running");
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return st;
}

static void test_proc_errors(void) {
  char err[512], why[512];
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  CHECK(cdevs_proc_resource(p, "none", 0) < 0);
  CHECK_CONTAINS(cdevs_proc_errmsg(p), "capacity >= 1 (got 0)");
  /* A refused declaration leaves the later ones alone (each failed as if out of memory). */
  CHECK(cdevs_proc_resource(p, "drill", 1) >= 0);
  CHECK(cdevs_proc_entity_type(p, "Piece") >= 0);
  cdevs_proc_free(p);

  /* A Process whose output leads nowhere: its entities would vanish uncounted. */
  p = cdevs_proc_new(NULL, NULL);
  cdevs_proc_resource(p, "drill", 1);
  cdevs_process_params pp = {p, CDEVS_SEIZE_DELAY, "drill", 1, 0, expo(0.5), CDEVS_VA, CDEVS_FIFO, NULL, 0};
  CHECK_EQ_INT(run_line(pp, 0, INFINITY, p, err, sizeof err), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "'bad.drill': its output 'out' is connected to nothing");
  cdevs_proc_free(p);

  /* Seize-Delay, then a second Seize-Delay of the one drill: the first entity holds it
     and waits for another unit, the four others wait for it, for ever. */
  p = cdevs_proc_new(NULL, NULL);
  cdevs_proc_resource(p, "drill", 1);
  pp.proc = p;
  CHECK_EQ_INT(run_line(pp, 2, INFINITY, p, err, sizeof err), CDEVS_OK);
  CHECK_EQ_INT(cdevs_proc_deadlock(p, why, sizeof why), 5);
  CHECK_CONTAINS(why, "4 entities in queue 'drill.Queue' wait for resource 'drill' (1 of 1 units held) since t=");
  CHECK_CONTAINS(why, "1 entity in queue 'hold.Queue' waits for resource 'drill'");
  cdevs_proc_free(p);

  /* ... and with a Dispose after it, the disposal is the error. */
  p = cdevs_proc_new(NULL, NULL);
  cdevs_proc_resource(p, "drill", 1);
  pp.proc = p;
  CHECK_EQ_INT(run_line(pp, 1, INFINITY, p, err, sizeof err), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "entity 1 is disposed while it holds 1 units of 'drill'");
  cdevs_proc_free(p);

  /* A normal delay around 0.1 with sd 1 draws a negative time soon. */
  p = cdevs_proc_new(NULL, NULL);
  cdevs_proc_resource(p, "drill", 1);
  double np[] = {0.1, 1};
  pp.proc = p;
  pp.action = CDEVS_SEIZE_DELAY_RELEASE;
  CHECK(cdevs_dist_make(&pp.delay, CDEVS_DIST_NORMAL, np, 2, NULL, 0) == CDEVS_OK);
  CHECK_EQ_INT(run_line(pp, 1, INFINITY, p, err, sizeof err), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "bad.drill");
  CHECK_CONTAINS(err, "the delay Normal(0.1, 1) drew -");
  CHECK_EQ_INT(cdevs_proc_deadlock(p, why, sizeof why), cdevs_proc_deadlock(p, NULL, 0));
  cdevs_proc_free(p);

  /* A resource that does not exist, and more units than it has. */
  p = cdevs_proc_new(NULL, NULL);
  cdevs_proc_resource(p, "drill", 2);
  pp.proc = p;
  pp.delay = expo(1);
  pp.resource = "dril";
  CHECK(run_line(pp, 1, 1, p, err, sizeof err) != CDEVS_OK);
  CHECK_CONTAINS(err, "no resource 'dril'");
  pp.resource = "drill";
  pp.units = 3;
  CHECK(run_line(pp, 1, 1, p, err, sizeof err) != CDEVS_OK);
  CHECK_CONTAINS(err, "seizes 3 units of 'drill', which has 2");
  /* a distribution filled in by hand is checked as cdevs_dist_make checks one */
  pp.units = 1;
  pp.delay = (cdevs_dist){.kind = CDEVS_DIST_EXPONENTIAL, .p = {-2}};
  CHECK(run_line(pp, 1, 1, p, err, sizeof err) != CDEVS_OK);
  CHECK_CONTAINS(err, "delay: Exponential needs mean > 0 (got -2)");
  pp.delay = (cdevs_dist){.kind = 99};
  CHECK(run_line(pp, 1, 1, p, err, sizeof err) != CDEVS_OK);
  CHECK_CONTAINS(err, "delay: no such distribution (kind 99");
  cdevs_proc_free(p);
}

/* A warm-up after the last change still clears: ten customers come and go before
 * t = 1000, so over [1000, 2000] nothing came in, nothing left, and on average no
 * customer was in the system; over the whole run all ten did. */
static void test_warmup_after_everything(void) {
  for (int warm = 0; warm <= 1; warm++) {
    cdevs_proc_opts o = cdevs_proc_opts_default();
    o.warmup = warm ? 1000 : 0;
    cdevs_proc *p = cdevs_proc_new(NULL, &o);
    cdevs_proc_resource(p, "server", 1);
    cdevs_model *root = cdevs_root_new(NULL, "w");
    cdevs_create_params cp = {p, "C", expo(1), 1, 0, 10};
    cdevs_process_params pp = {p, CDEVS_SEIZE_DELAY_RELEASE, "server", 1, 0, expo(0.5), CDEVS_VA, CDEVS_FIFO, NULL, 0};
    cdevs_dispose_params dp = {p};
    proc_line(root, &cp, &pp, &dp);
    cdevs_sim *sim = NULL;
    if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim)) && CHECK_RUN(cdevs_sim_run(sim, 2000))) {
      CHECK(cdevs_sim_time(sim) < 1000);
      CHECK_EQ_INT(stat_avg(p, "System", "NumberOut", 2000), warm ? 0 : 10);
      CHECK_EQ_INT(stat_avg(p, "C", "NumberIn", 2000), warm ? 0 : 10);
      double wip = stat_avg(p, "C", "WIP", 2000);
      if (warm) CHECK(wip == 0);
      else CHECK(wip > 0);
    }
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    cdevs_proc_free(p);
  }
}

/* Declaring an entity type or a resource when an allocation fails: every allocation
 * in turn is made to fail; each call fails with a status and leaves nothing behind once
 * the process elements are freed (the copied name once leaked, when a statistic of the
 * new type or resource could not be made). */
static void test_declare_out_of_memory(void) {
  int all_failed_cleanly = 1, reached_end = 0;
  for (long n = 1; n < 200 && !reached_end; n++) {
    counting c = {0, 0, 0, 0, 0};
    cdevs_alloc a = {counting_realloc, &c};
    cdevs_proc *p = cdevs_proc_new(&a, NULL);
    if (!p) abort();
    c.fail_at = c.calls + n;
    int t = cdevs_proc_entity_type(p, "Part");
    int r = t >= 0 ? cdevs_proc_resource(p, "drill", 2) : -1;
    reached_end = !c.failed;
    if (c.failed && t >= 0 && r >= 0) all_failed_cleanly = 0; /* a failure must be said */
    cdevs_proc_free(p);
    if (c.blocks != 0 || c.live != 0) {
      all_failed_cleanly = 0;
      fprintf(stderr, "failing allocation %ld: %ld blocks (%lld bytes) left\n", n, c.blocks, c.live);
    }
  }
  CHECK(reached_end);
  CHECK(all_failed_cleanly);
}

/* Create -> Assign size = 7 -> Decide by condition size > 5 -> Record of size -> Dispose,
 * the Create declared first (its init runs before the blocks that declare "size"):
 * every entity carries size 7, goes by out1, and is tallied at 7. (The Create once made
 * its first entities in its init, with no room for "size": the Assign failed at t = 0,
 * and the Decide read past the entity.) The statistics are asked for at t = INFINITY,
 * the end of a run that ran out of events: with no warm-up that once counted as
 * reaching the warm-up time, and cleared them all. */
static void test_attributes_declared_after_create(void) {
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  cdevs_model *root = cdevs_root_new(NULL, "attrs");
  cdevs_dist seven;
  double v = 7;
  if (!p || cdevs_dist_make(&seven, CDEVS_DIST_CONSTANT, &v, 1, NULL, 0)) abort();
  cdevs_create_params cp = {p, "Part", expo(1), 1, 0, 50};
  cdevs_assign_params ap = {p, "size", seven, NULL, NULL, 0};
  cdevs_decide_params dp = {.proc = p, .n_out = 2, .by_condition = 1, .attr = {"size"}, .op = {CDEVS_GT}, .value = {5}};
  cdevs_record_params rp = {p, CDEVS_RECORD_ATTR, "size", "sizes"};
  cdevs_dispose_params xp = {p};
  cdevs_model *c = cdevs_atomic_add(root, "arrive", &cdevs_create_ops, &cp);
  cdevs_model *a = cdevs_atomic_add(root, "assign", &cdevs_assign_ops, &ap);
  cdevs_model *d = cdevs_atomic_add(root, "decide", &cdevs_decide_ops, &dp);
  cdevs_model *r = cdevs_atomic_add(root, "record", &cdevs_record_ops, &rp);
  cdevs_model *big = cdevs_atomic_add(root, "big", &cdevs_dispose_ops, &xp);
  cdevs_model *small = cdevs_atomic_add(root, "small", &cdevs_dispose_ops, &xp);
  cdevs_connect(root, c, "out", a, "in");
  cdevs_connect(root, a, "out", d, "in");
  cdevs_connect(root, d, "out1", r, "in");
  cdevs_connect(root, r, "out", big, "in");
  cdevs_connect(root, d, "out2", small, "in");
  cdevs_sim *sim = NULL;
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim)) && CHECK_RUN(cdevs_sim_run(sim, INFINITY))) {
    CHECK_EQ_INT(stat_avg(p, "System", "NumberOut", INFINITY), 50);
    CHECK_EQ_INT(stat_avg(p, "sizes", "Count", INFINITY), 50); /* all by out1 */
    CHECK(stat_avg(p, "sizes", "Value", INFINITY) == 7);
  } else {
    fprintf(stderr, "%s\n", sim ? cdevs_sim_errmsg(sim) : cdevs_model_errmsg(root));
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
}

/* A Process whose queue is full turns arrivals away; one that still holds units of
 * another resource cannot leave the system with them (they would stay busy for ever,
 * and the utilization and a deadlock would be wrong): entities hold a unit of "a"
 * from the first Process; at the second (queue capacity 1) the first is served, the
 * second waits, the third balks holding its unit at t = 10 + 2 * 0.25. */
static void test_balk_holding(void) {
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  cdevs_model *root = cdevs_root_new(NULL, "balk");
  double q = 0.25, ten = 10, hundred = 100;
  cdevs_dist quarter, d10, d100;
  if (!p || cdevs_proc_resource(p, "a", 5) < 0 || cdevs_proc_resource(p, "b", 1) < 0 ||
      cdevs_dist_make(&quarter, CDEVS_DIST_CONSTANT, &q, 1, NULL, 0) ||
      cdevs_dist_make(&d10, CDEVS_DIST_CONSTANT, &ten, 1, NULL, 0) ||
      cdevs_dist_make(&d100, CDEVS_DIST_CONSTANT, &hundred, 1, NULL, 0))
    abort();
  cdevs_create_params cp = {p, "Part", quarter, 1, 0, 5};
  cdevs_process_params pa = {p, CDEVS_SEIZE_DELAY, "a", 1, 0, d10, CDEVS_VA, CDEVS_FIFO, NULL, 0};
  cdevs_process_params pb = {p, CDEVS_SEIZE_DELAY_RELEASE, "b", 1, 0, d100, CDEVS_VA, CDEVS_FIFO, NULL, 1};
  cdevs_dispose_params dp = {p};
  cdevs_model *c = cdevs_atomic_add(root, "arrive", &cdevs_create_ops, &cp);
  cdevs_model *ma = cdevs_atomic_add(root, "first", &cdevs_process_ops, &pa);
  cdevs_model *mb = cdevs_atomic_add(root, "second", &cdevs_process_ops, &pb);
  cdevs_model *d = cdevs_atomic_add(root, "leave", &cdevs_dispose_ops, &dp);
  cdevs_connect(root, c, "out", ma, "in");
  cdevs_connect(root, ma, "out", mb, "in");
  cdevs_connect(root, mb, "out", d, "in");
  cdevs_sim *sim = NULL;
  CHECK_RUN(cdevs_sim_new(root, NULL, &sim));
  CHECK_EQ_INT(cdevs_sim_run(sim, 1000), CDEVS_EMODEL);
  CHECK_CONTAINS(cdevs_sim_errmsg(sim), "t=10.5: model 'balk.second': entity 3 balks and leaves the system while it "
                                        "holds 1 units of 'a'");
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
}

/* Two Records naming one statistic share it, as SIMAN's Count and Tally blocks do: ten
 * entities through both count 20 in the one "seen.Count" (each Record made its own,
 * and the report had two lines of that name, the second unreachable by name). */
static void test_records_share(void) {
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  cdevs_model *root = cdevs_root_new(NULL, "rec");
  if (!p) abort();
  cdevs_create_params cp = {p, "Part", expo(1), 1, 0, 10};
  cdevs_record_params rp = {p, CDEVS_RECORD_COUNT, NULL, "seen"};
  cdevs_dispose_params dp = {p};
  cdevs_model *c = cdevs_atomic_add(root, "arrive", &cdevs_create_ops, &cp);
  cdevs_model *r1 = cdevs_atomic_add(root, "r1", &cdevs_record_ops, &rp);
  cdevs_model *r2 = cdevs_atomic_add(root, "r2", &cdevs_record_ops, &rp);
  cdevs_model *d = cdevs_atomic_add(root, "leave", &cdevs_dispose_ops, &dp);
  cdevs_connect(root, c, "out", r1, "in");
  cdevs_connect(root, r1, "out", r2, "in");
  cdevs_connect(root, r2, "out", d, "in");
  cdevs_sim *sim = NULL;
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim)) && CHECK_RUN(cdevs_sim_run(sim, INFINITY))) {
    CHECK_EQ_INT(stat_avg(p, "seen", "Count", INFINITY), 20);
    int same = 0;
    for (size_t i = 0; i < cdevs_proc_stat_count(p); i++) {
      cdevs_stat_info in;
      cdevs_proc_stat(p, i, INFINITY, &in);
      same += !strcmp(in.owner, "seen") && !strcmp(in.name, "Count");
    }
    CHECK_EQ_INT(same, 1);
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
}

/* API misuse of the data modules: each refused with a status, nothing half made. */
static void test_data_module_misuse(void) {
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  if (!p) abort();
  int r = cdevs_proc_resource(p, "clerk", 1);
  int caps[3] = {1, 0, 2}, zeros[2] = {0, 0}, neg[1] = {-1};
  double durs[3] = {8, 8, 8}, bad_dur[2] = {8, 0};
  CHECK_EQ_INT(cdevs_proc_resource_schedule(p, r + 1, caps, durs, 3), CDEVS_EINVAL); /* no such resource */
  CHECK_EQ_INT(cdevs_proc_resource_schedule(p, r, caps, durs, 0), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_proc_resource_schedule(p, r, zeros, durs, 2), CDEVS_EINVAL);  /* never a unit */
  CHECK_EQ_INT(cdevs_proc_resource_schedule(p, r, caps, bad_dur, 2), CDEVS_EINVAL); /* a zero duration */
  CHECK_EQ_INT(cdevs_proc_resource_schedule(p, r, neg, durs, 1), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_proc_resource_schedule(p, r, caps, durs, 3), CDEVS_OK);
  CHECK_EQ_INT(cdevs_proc_resource_schedule(p, r, caps, durs, 3), CDEVS_EINVAL); /* twice */
  CHECK_EQ_INT(cdevs_proc_variable(p, "stock", 5), 0);
  CHECK_EQ_INT(cdevs_proc_variable(p, "stock", 1) < 0, 1);
  CHECK_EQ_INT(cdevs_proc_variable(p, "level", NAN) < 0, 1);
  CHECK_EQ_INT(cdevs_proc_attribute(p, "size") >= 0, 1);
  CHECK_EQ_INT(cdevs_proc_variable(p, "size", 0) < 0, 1);  /* an attribute's name */
  CHECK_EQ_INT(cdevs_proc_attribute(p, "stock") < 0, 1);   /* a variable's name */
  CHECK_CONTAINS(cdevs_proc_errmsg(p), "defined twice");
  CHECK_EQ_INT(cdevs_proc_find_variable(p, "stock"), 0);
  CHECK(cdevs_proc_variable_value(p, 0) == 5);
  CHECK(isnan(cdevs_proc_variable_value(p, 7)));
  cdevs_proc_free(p);
}

/* What leaves a Batch: a batch of its members in order of arrival, itself not counted
 * in the system; entities still waiting and a batch still held at the end are freed
 * with the simulator (a counting allocator). */
typedef struct batch_seen {
  uint32_t batch;
  int batches, members, in_order, groups;
} batch_seen;

static void batch_output(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  (void)t, (void)port;
  batch_seen *w = ud;
  const cdevs_entity *e = cdevs_entity_of(v);
  if (atomic != w->batch || !e) return;
  w->batches++;
  w->groups += e->group;
  size_t n = cdevs_entity_members(e);
  w->members += (int)n;
  for (size_t i = 0; i < n; i++) {
    cdevs_value mv = cdevs_msgval(cdevs_entity_member(e, i));
    const cdevs_entity *m = cdevs_entity_of(&mv);
    /* member i of batch b arrived at 3b + i (an arrival every 1 from 0) */
    if (!m || m->created != 3.0 * (w->batches - 1) + (double)i) w->in_order = 0;
  }
  if (cdevs_entity_member(e, n)) w->in_order = 0;
}

static void test_batch_members(void) {
  counting c = {0};
  cdevs_alloc a = {counting_realloc, &c};
  cdevs_proc *p = cdevs_proc_new(&a, NULL);
  if (!p || cdevs_proc_resource(p, "oven", 1) < 0) abort();
  cdevs_dist one;
  double v = 1, d5 = 5;
  if (cdevs_dist_make(&one, CDEVS_DIST_CONSTANT, &v, 1, NULL, 0)) abort();
  cdevs_create_params cp = {p, "Part", one, 1, 0, 8}; /* 8 parts: two batches, two left waiting */
  cdevs_batch_params bp = {p, 3, CDEVS_BATCH_TEMPORARY, NULL, CDEVS_SAVE_LAST, "Tray"};
  cdevs_process_params pp = {.proc = p, .action = CDEVS_SEIZE_DELAY_RELEASE, .resource = "oven", .units = 1};
  if (cdevs_dist_make(&pp.delay, CDEVS_DIST_CONSTANT, &d5, 1, NULL, 0)) abort();
  cdevs_separate_params sp = {p, 0, 1, 0};
  cdevs_dispose_params dp = {p};
  cdevs_model *root = cdevs_root_new(&a, "trays");
  cdevs_model *cm = cdevs_atomic_add(root, "arrive", &cdevs_create_ops, &cp);
  cdevs_model *bm = cdevs_atomic_add(root, "tray", &cdevs_batch_ops, &bp);
  cdevs_model *pm = cdevs_atomic_add(root, "bake", &cdevs_process_ops, &pp);
  cdevs_model *sm = cdevs_atomic_add(root, "split", &cdevs_separate_ops, &sp);
  cdevs_model *dm = cdevs_atomic_add(root, "leave", &cdevs_dispose_ops, &dp);
  cdevs_connect(root, cm, "out", bm, "in");
  cdevs_connect(root, bm, "out", pm, "in");
  cdevs_connect(root, pm, "out", sm, "in");
  cdevs_connect(root, sm, "out", dm, "in");
  cdevs_sim *sim = NULL;
  batch_seen w = {0, 0, 0, 1, 0};
  /* Run to t = 8: the first tray (parts at 0, 1, 2) baked on [2, 7] and split; the
     second (3, 4, 5) in the oven since 5; parts 6 and 7 wait for a third. */
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim))) {
    w.batch = cdevs_sim_atomic_id(sim, bm);
    cdevs_observer obs = {batch_output, NULL, NULL, NULL};
    cdevs_sim_observe(sim, &obs, &w);
    if (CHECK_RUN(cdevs_sim_run(sim, 8))) {
      CHECK_EQ_INT(w.batches, 2);
      CHECK_EQ_INT(w.groups, 2);
      CHECK_EQ_INT(w.members, 6);
      CHECK_EQ_INT(w.in_order, 1);
      CHECK_EQ_INT(stat_avg(p, "System", "NumberIn", 8), 8); /* the trays are not counted */
      CHECK_EQ_INT(stat_avg(p, "System", "NumberOut", 8), 3);
      CHECK_EQ_INT(cdevs_proc_wip(p), 5);
      CHECK_NEAR(stat_avg(p, "Part", "VATime", 8), 5, 1e-12); /* the tray's baking, to each part */
      CHECK_NEAR(stat_avg(p, "Part", "WaitTime", 8), 1, 1e-12); /* 2, 1, 0 for their tray */
    }
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
  CHECK_EQ_INT(c.blocks, 0);
  CHECK_EQ_INT(c.live, 0);
}

int main(void) {
  test_mrg32k3a();
  test_normal_quantile();
  test_continuous_variates();
  test_discrete_variates();
  test_antithetic();
  test_dist_errors();
  test_mm1();
  test_mm3();
  test_shared_resource();
  test_proc_errors();
  test_warmup_after_everything();
  test_declare_out_of_memory();
  test_attributes_declared_after_create();
  test_balk_holding();
  test_records_share();
  test_data_module_misuse();
  test_batch_members();
  return check_report("test_proc");
}
