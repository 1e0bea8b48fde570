/* SPDX-License-Identifier: MIT */
/* Random variates with Arena's parameters: inversion where the inverse is known (so
 * antithetic and common random numbers work as expected), rejection for the gamma. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/random.h"

static const struct {
  const char *name, *arena;
  int arity;
} kinds[CDEVS_DIST_KINDS] = {
    [CDEVS_DIST_CONSTANT] = {"Constant", "CONS", 1},
    [CDEVS_DIST_UNIFORM] = {"Uniform", "UNIF", 2},
    [CDEVS_DIST_EXPONENTIAL] = {"Exponential", "EXPO", 1},
    [CDEVS_DIST_NORMAL] = {"Normal", "NORM", 2},
    [CDEVS_DIST_LOGNORMAL] = {"Lognormal", "LOGN", 2},
    [CDEVS_DIST_TRIANGULAR] = {"Triangular", "TRIA", 3},
    [CDEVS_DIST_ERLANG] = {"Erlang", "ERLA", 2},
    [CDEVS_DIST_GAMMA] = {"Gamma", "GAMM", 2},
    [CDEVS_DIST_BETA] = {"Beta", "BETA", 2},
    [CDEVS_DIST_WEIBULL] = {"Weibull", "WEIB", 2},
    [CDEVS_DIST_POISSON] = {"Poisson", "POIS", 1},
    [CDEVS_DIST_BERNOULLI] = {"Bernoulli", "BERN", 1},
    [CDEVS_DIST_DISCRETE] = {"Discrete", "DISC", -1},
    [CDEVS_DIST_CONTINUOUS] = {"Continuous", "CONT", -1},
};

/* The largest Erlang k and Poisson mean: the cost of a variate grows with them. */
#define ERLANG_MAX_K 1e6
#define POISSON_MAX_MEAN 1e9
/* exp(−mean) stays a normal double up to 708; the search runs on pieces of at most
 * this mean (a Poisson(λ) is the sum of n independent Poisson(λ/n)). */
#define POISSON_PIECE 500.0

const char *cdevs_dist_kind_name(int kind) {
  return kind >= 0 && kind < CDEVS_DIST_KINDS ? kinds[kind].name : "?";
}

int cdevs_dist_kind_parse(const char *name) {
  for (int k = 0; k < CDEVS_DIST_KINDS; k++)
    if (!strcmp(name, kinds[k].name) || !strcmp(name, kinds[k].arena)) return k;
  return -1;
}

int cdevs_dist_arity(int kind) { return kind >= 0 && kind < CDEVS_DIST_KINDS ? kinds[kind].arity : 0; }

static cdevs_status bad(char *why, size_t size, const char *fmt, const char *name, double x) {
  if (why && size) snprintf(why, size, fmt, name, x);
  return CDEVS_EINVAL;
}

static cdevs_status check_pairs(const cdevs_dist *d, char *why, size_t size) {
  const char *name = kinds[d->kind].name;
  double prev_c = 0, prev_v = -INFINITY;
  for (int i = 0; i < d->npairs; i++) {
    double c = d->p[2 * i], v = d->p[2 * i + 1];
    if (!isfinite(v)) return bad(why, size, "%s needs finite values (got %g)", name, v);
    if (!(c >= prev_c) || c > 1.0 + 1e-9 || (i > 0 && c == prev_c && d->kind == CDEVS_DIST_DISCRETE))
      return bad(why, size, "%s needs cumulative probabilities increasing in [0, 1] (got %g)", name, c);
    if (d->kind == CDEVS_DIST_CONTINUOUS && v < prev_v)
      return bad(why, size, "%s needs increasing values (got %g after a larger one)", name, v);
    prev_c = c, prev_v = v;
  }
  if (fabs(prev_c - 1.0) > 1e-9)
    return bad(why, size, "%s needs its last cumulative probability to be 1 (got %.17g)", name, prev_c);
  return CDEVS_OK;
}

/* The number of parameters d holds. */
static int nparams(const cdevs_dist *d) { return kinds[d->kind].arity < 0 ? 2 * d->npairs : kinds[d->kind].arity; }

cdevs_status cdevs_dist_check(const cdevs_dist *d, char *why, size_t size) {
  cdevs_dist copy;
  if (d->kind < 0 || d->kind >= CDEVS_DIST_KINDS || d->npairs < 0 || d->npairs > CDEVS_DIST_MAX_PAIRS) {
    if (why && size) snprintf(why, size, "no such distribution (kind %d, %d pairs)", d->kind, d->npairs);
    return CDEVS_EINVAL;
  }
  return cdevs_dist_make(&copy, d->kind, d->p, nparams(d), why, size);
}

cdevs_status cdevs_dist_make(cdevs_dist *d, int kind, const double *p, int n, char *why, size_t size) {
  memset(d, 0, sizeof *d);
  if (kind < 0 || kind >= CDEVS_DIST_KINDS) {
    if (why && size) snprintf(why, size, "no such distribution (kind %d)", kind);
    return CDEVS_EINVAL;
  }
  const char *name = kinds[kind].name;
  int arity = kinds[kind].arity;
  if (arity < 0) {
    if (n < 2 || n % 2 || n > 2 * CDEVS_DIST_MAX_PAIRS) {
      if (why && size)
        snprintf(why, size, "%s needs pairs of cumulative probability and value (1 to %d pairs, got %d numbers)",
                 name, CDEVS_DIST_MAX_PAIRS, n);
      return CDEVS_EINVAL;
    }
  } else if (n != arity) {
    if (why && size) snprintf(why, size, "%s takes %d parameter%s (got %d)", name, arity, arity == 1 ? "" : "s", n);
    return CDEVS_EINVAL;
  }
  for (int i = 0; i < n; i++)
    if (!isfinite(p[i])) return bad(why, size, "%s needs finite parameters (got %g)", name, p[i]);
  d->kind = kind;
  d->npairs = arity < 0 ? n / 2 : 0;
  memcpy(d->p, p, (size_t)n * sizeof *p);
  const double a = p[0], b = n > 1 ? p[1] : 0, c = n > 2 ? p[2] : 0;
  switch (kind) {
  case CDEVS_DIST_CONSTANT: return CDEVS_OK;
  case CDEVS_DIST_UNIFORM:
    return a < b ? CDEVS_OK : bad(why, size, "%s needs min < max (got max %g)", name, b);
  case CDEVS_DIST_EXPONENTIAL:
  case CDEVS_DIST_POISSON:
    if (!(a > 0)) return bad(why, size, "%s needs mean > 0 (got %g)", name, a);
    if (kind == CDEVS_DIST_POISSON && a > POISSON_MAX_MEAN)
      return bad(why, size, "%s needs mean <= 1e9 (got %g)", name, a);
    return CDEVS_OK;
  case CDEVS_DIST_NORMAL:
    return b >= 0 ? CDEVS_OK : bad(why, size, "%s needs sd >= 0 (got %g)", name, b);
  case CDEVS_DIST_LOGNORMAL:
    if (!(a > 0)) return bad(why, size, "%s needs mean > 0 (got %g)", name, a);
    return b > 0 ? CDEVS_OK : bad(why, size, "%s needs sd > 0 (got %g)", name, b);
  case CDEVS_DIST_TRIANGULAR:
    if (!(a < c)) return bad(why, size, "%s needs min < max (got max %g)", name, c);
    return a <= b && b <= c ? CDEVS_OK : bad(why, size, "%s needs min <= mode <= max (got mode %g)", name, b);
  case CDEVS_DIST_ERLANG:
    if (!(a > 0)) return bad(why, size, "%s needs phase_mean > 0 (got %g)", name, a);
    if (!(b >= 1 && b <= ERLANG_MAX_K && b == floor(b)))
      return bad(why, size, "%s needs an integer k from 1 to 1e6 (got %g)", name, b);
    return CDEVS_OK;
  case CDEVS_DIST_GAMMA:
  case CDEVS_DIST_BETA:
  case CDEVS_DIST_WEIBULL:
    if (!(a > 0)) return bad(why, size, "%s needs beta > 0 (got %g)", name, a);
    return b > 0 ? CDEVS_OK : bad(why, size, "%s needs alpha > 0 (got %g)", name, b);
  case CDEVS_DIST_BERNOULLI:
    return a >= 0 && a <= 1 ? CDEVS_OK : bad(why, size, "%s needs 0 <= p <= 1 (got %g)", name, a);
  default: return check_pairs(d, why, size);
  }
}

double cdevs_normal_quantile(double u) {
  if (!(u > 0 && u < 1)) return u == 0 ? -INFINITY : u == 1 ? INFINITY : NAN;
  double p = u < 0.5 ? u : 1.0 - u;
  /* Start from Abramowitz & Stegun 26.2.23 (error below 4.5e-4), then two Halley steps
   * on Φ(z) = p with Φ from erfc: the error is cubed by each, to full precision. */
  double t = sqrt(-2.0 * log(p));
  double z = -(t - (2.515517 + t * (0.802853 + t * 0.010328)) /
                       (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))));
  for (int i = 0; i < 2; i++) {
    double e = 0.5 * erfc(-z * 0.70710678118654752440) - p; /* 1/√2 */
    double v = e * 2.50662827463100050242 * exp(0.5 * z * z); /* √(2π) */
    z -= v / (1.0 + 0.5 * z * v);
  }
  return u < 0.5 ? z : -z;
}

/* Marsaglia & Tsang (ACM TOMS 26(3), 2000): a gamma of shape alpha and scale 1. */
static double gamma_unit(double alpha, cdevs_rng *g) {
  if (alpha < 1.0) {
    /* G(α) = G(α + 1)·U^(1/α) */
    double u = cdevs_rng_u01(g);
    return gamma_unit(alpha + 1.0, g) * pow(u, 1.0 / alpha);
  }
  double d = alpha - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
  for (;;) {
    double z = cdevs_normal_quantile(cdevs_rng_u01(g)), v = 1.0 + c * z;
    if (v <= 0) continue;
    v = v * v * v;
    double u = cdevs_rng_u01(g);
    if (log(u) < 0.5 * z * z + d - d * v + d * log(v)) return d * v;
  }
}

static double poisson_search(double mean, double u) {
  double p = exp(-mean), f = p, x = 0;
  /* Rounding may leave f a little below 1 at the far tail: stop where the terms vanish. */
  while (u > f && p > 0) {
    x += 1;
    p *= mean / x;
    f += p;
  }
  return x;
}

double cdevs_dist_sample(const cdevs_dist *d, cdevs_rng *g) {
  const double *p = d->p;
  switch (d->kind) {
  case CDEVS_DIST_CONSTANT: return p[0];
  case CDEVS_DIST_UNIFORM: return p[0] + (p[1] - p[0]) * cdevs_rng_u01(g);
  case CDEVS_DIST_EXPONENTIAL: return -p[0] * log1p(-cdevs_rng_u01(g));
  case CDEVS_DIST_NORMAL: return p[0] + p[1] * cdevs_normal_quantile(cdevs_rng_u01(g));
  case CDEVS_DIST_LOGNORMAL: {
    double s2 = log1p(p[1] * p[1] / (p[0] * p[0])), mu = log(p[0]) - 0.5 * s2;
    return exp(mu + sqrt(s2) * cdevs_normal_quantile(cdevs_rng_u01(g)));
  }
  case CDEVS_DIST_TRIANGULAR: {
    double lo = p[0], mode = p[1], hi = p[2], u = cdevs_rng_u01(g);
    double w = hi - lo, c = (mode - lo) / w;
    return u < c ? lo + sqrt(u * w * (mode - lo)) : hi - sqrt((1.0 - u) * w * (hi - mode));
  }
  case CDEVS_DIST_ERLANG: {
    double s = 0;
    for (double k = 0; k < p[1]; k++) s += log(cdevs_rng_u01(g));
    return -p[0] * s;
  }
  case CDEVS_DIST_GAMMA: return p[0] * gamma_unit(p[1], g);
  case CDEVS_DIST_BETA: {
    double x = gamma_unit(p[0], g), y = gamma_unit(p[1], g);
    return x / (x + y);
  }
  case CDEVS_DIST_WEIBULL: return p[0] * pow(-log1p(-cdevs_rng_u01(g)), 1.0 / p[1]);
  case CDEVS_DIST_POISSON: {
    double n = ceil(p[0] / POISSON_PIECE), x = 0;
    for (double i = 0; i < n; i++) x += poisson_search(p[0] / n, cdevs_rng_u01(g));
    return x;
  }
  case CDEVS_DIST_BERNOULLI: return cdevs_rng_u01(g) <= p[0] ? 1.0 : 0.0;
  case CDEVS_DIST_DISCRETE: {
    double u = cdevs_rng_u01(g);
    int i = 0;
    while (i < d->npairs - 1 && u > p[2 * i]) i++;
    return p[2 * i + 1];
  }
  case CDEVS_DIST_CONTINUOUS: {
    double u = cdevs_rng_u01(g);
    if (u <= p[0]) return p[1];
    int i = 1;
    while (i < d->npairs - 1 && u > p[2 * i]) i++;
    double c0 = p[2 * i - 2], v0 = p[2 * i - 1], c1 = p[2 * i], v1 = p[2 * i + 1];
    return c1 > c0 ? v0 + (u - c0) / (c1 - c0) * (v1 - v0) : v1;
  }
  default: return NAN;
  }
}

/* The first two raw moments of a piecewise table. */
static void pair_moments(const cdevs_dist *d, double *m1, double *m2) {
  const double *p = d->p;
  double s1 = 0, s2 = 0, c_prev = 0;
  for (int i = 0; i < d->npairs; i++) {
    double c = p[2 * i], v = p[2 * i + 1], w = c - c_prev;
    if (d->kind == CDEVS_DIST_CONTINUOUS && i > 0) {
      /* uniform between the previous value and this one */
      double a = p[2 * i - 1];
      s1 += w * 0.5 * (a + v);
      s2 += w * (a * a + a * v + v * v) / 3.0;
    } else {
      s1 += w * v;
      s2 += w * v * v;
    }
    c_prev = c;
  }
  *m1 = s1, *m2 = s2;
}

double cdevs_dist_mean(const cdevs_dist *d) {
  const double *p = d->p;
  switch (d->kind) {
  case CDEVS_DIST_CONSTANT: return p[0];
  case CDEVS_DIST_UNIFORM: return 0.5 * (p[0] + p[1]);
  case CDEVS_DIST_EXPONENTIAL:
  case CDEVS_DIST_NORMAL:
  case CDEVS_DIST_LOGNORMAL:
  case CDEVS_DIST_POISSON:
  case CDEVS_DIST_BERNOULLI: return p[0];
  case CDEVS_DIST_TRIANGULAR: return (p[0] + p[1] + p[2]) / 3.0;
  case CDEVS_DIST_ERLANG:
  case CDEVS_DIST_GAMMA: return p[0] * p[1];
  case CDEVS_DIST_BETA: return p[0] / (p[0] + p[1]);
  case CDEVS_DIST_WEIBULL: return p[0] * tgamma(1.0 + 1.0 / p[1]);
  case CDEVS_DIST_DISCRETE:
  case CDEVS_DIST_CONTINUOUS: {
    double m1, m2;
    pair_moments(d, &m1, &m2);
    return m1;
  }
  default: return NAN;
  }
}

double cdevs_dist_variance(const cdevs_dist *d) {
  const double *p = d->p;
  switch (d->kind) {
  case CDEVS_DIST_CONSTANT: return 0;
  case CDEVS_DIST_UNIFORM: return (p[1] - p[0]) * (p[1] - p[0]) / 12.0;
  case CDEVS_DIST_EXPONENTIAL: return p[0] * p[0];
  case CDEVS_DIST_NORMAL:
  case CDEVS_DIST_LOGNORMAL: return p[1] * p[1];
  case CDEVS_DIST_POISSON: return p[0];
  case CDEVS_DIST_BERNOULLI: return p[0] * (1.0 - p[0]);
  case CDEVS_DIST_TRIANGULAR: {
    double a = p[0], b = p[1], c = p[2];
    return (a * a + b * b + c * c - a * b - a * c - b * c) / 18.0;
  }
  case CDEVS_DIST_ERLANG:
  case CDEVS_DIST_GAMMA: return p[0] * p[0] * p[1];
  case CDEVS_DIST_BETA: {
    double a = p[0], b = p[1];
    return a * b / ((a + b) * (a + b) * (a + b + 1.0));
  }
  case CDEVS_DIST_WEIBULL: {
    double g1 = tgamma(1.0 + 1.0 / p[1]), g2 = tgamma(1.0 + 2.0 / p[1]);
    return p[0] * p[0] * (g2 - g1 * g1);
  }
  case CDEVS_DIST_DISCRETE:
  case CDEVS_DIST_CONTINUOUS: {
    double m1, m2;
    pair_moments(d, &m1, &m2);
    return m2 - m1 * m1;
  }
  default: return NAN;
  }
}

/* The shortest of %.15g, %.16g and %.17g that reads back as x. */
static int shortest(char *buf, size_t size, double x) {
  for (int prec = 15;; prec++) {
    int w = snprintf(buf, size, "%.*g", prec, x);
    if (prec == 17 || strtod(buf, NULL) == x) return w;
  }
}

/* Appends str to buf (size bytes, kept terminated) at *len, which counts what is needed. */
static void append(char *buf, size_t size, size_t *len, const char *str) {
  size_t n = strlen(str);
  if (*len + 1 < size) {
    size_t room = size - 1 - *len, k = n < room ? n : room;
    memcpy(buf + *len, str, k);
    buf[*len + k] = 0;
  }
  *len += n;
}

size_t cdevs_dist_format(const cdevs_dist *d, char *buf, size_t size) {
  int kind = d->kind >= 0 && d->kind < CDEVS_DIST_KINDS ? d->kind : 0;
  int n = kind == d->kind && d->npairs >= 0 && d->npairs <= CDEVS_DIST_MAX_PAIRS ? nparams(d) : 0;
  char tmp[48];
  size_t len = 0;
  if (size) buf[0] = 0;
  append(buf, size, &len, kinds[kind].name);
  append(buf, size, &len, "(");
  for (int i = 0; i < n; i++) {
    shortest(tmp, sizeof tmp, d->p[i]);
    append(buf, size, &len, tmp);
    append(buf, size, &len, i + 1 < n ? ", " : ")");
  }
  return len;
}
