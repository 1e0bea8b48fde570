/* SPDX-License-Identifier: MIT */
/* Output statistics: tallies and time-persistent statistics with batch-means
 * half-widths, MSER-5 warm-up detection, and Student's t quantiles. */
#include <math.h>
#include <stdint.h>

#include "cdevs/stats.h"
#include "core/alloc_impl.h"

/* Batch means keep between K and 2K complete batches once the first merge has happened
 * (K = CDEVS_STATS_MIN_BATCHES): the buffer fills at 2K, pairs merge into K batches of
 * twice the size, and filling starts again. */
#define NBATCH (2 * CDEVS_STATS_MIN_BATCHES)

/* The MSER array starts with this many batches of 5 (one small allocation at creation,
 * so that merging pairs always has room even if no growth ever succeeds). */
#define MSER_INITIAL 64u
/* and never grows past this many: 64 KiB, reached after 5 * 4096 observations. A longer
 * run is judged on batches of 10, 20, … observations (MSER-10, MSER-20, …), always
 * between MSER_MAX / 2 and MSER_MAX of them, so the truncation point is placed to
 * within 1/2048 of the run at worst. Keeping more buys no precision worth having, and
 * kept every tally's array (once up to 16 MiB) out of the caches. */
#define MSER_MAX (1u << 12)

/* Observations are folded into the mean and the sum of squared deviations a block of
 * this many at a time (a power of two, so that dividing by it is exact). */
#define BLOCK 8u

/* The one-sided 95% point of the standard normal, for von Neumann's ratio test. */
#define Z_95 1.6448536269514722

typedef struct mser_batch {
  double sum;  /* of the observations minus the tally's reference value */
  double time; /* of the batch's last observation */
} mser_batch;

struct cdevs_tally {
  cdevs_alloc alloc;
  uint64_t n;
  /* The mean of the observations before the current block and the sum of their squared
   * deviations from it. Welford's update would divide by n at every observation; the
   * block's sums below are folded in by Chan, Golub & LeVeque's pairwise update instead,
   * one division per BLOCK observations, with the same robustness to a large offset. */
  double mean, m2;
  /* The current block's Σ(x − centre) and Σ(x − centre)², centre being the mean before
   * the block (the first observation for the first block). Either way the centre lies
   * within the spread of the data seen, so the block's Σ(x − x̄)² = s2 − s1²/k loses
   * few digits to cancellation, and what it loses is small beside the term the fold adds
   * for the block's distance from the mean. */
  double centre, s1, s2;
  double min, max, last;
  /* Observations enter the batch sums minus the first one, so that the sums of a
   * large offset with a small spread keep the spread's digits. */
  double ref;
  double first_time, last_time;
  /* MSER: sums of msize observations each (5, doubled at every merge). */
  mser_batch *mser;
  uint32_t nm, capm;
  uint64_t msize, mfill;
  double msum;
  /* Batch means for the half-width: sums of bsize observations each. The sums come
   * last, so that what every observation updates shares the first cache lines. */
  uint64_t bsize, bfill;
  double bsum;
  int nb;
  double batch[NBATCH];
};

struct cdevs_tpstat {
  cdevs_alloc alloc;
  double span_end; /* t0 + span, or INFINITY when the span is unknown */
  double start, tlast;
  /* The latest time given: times must not go back. A change to the value it already has
   * leaves tlast behind (the interval goes on, and is integrated at the next change). */
  double tseen;
  double v;   /* the current value */
  double ref; /* the value at the start: integrals are of v − ref (see tally.ref) */
  double d;   /* v − ref */
  double area, area2; /* ∫(v − ref) dt and ∫(v − ref)² dt over [start, tlast] */
  double min, max;
  uint64_t changes;
  /* Batches [bstart + k width, bstart + (k + 1) width); width 0 until it is chosen. */
  double width, bstart, bend;
  double bcur; /* ∫(v − ref) dt over the current batch, up to tlast */
  int nb;
  double batch[NBATCH];
};

/* ---- Student's t ------------------------------------------------------------------ */

/* ln Γ(z) − [(z − ½) ln z − z + ½ ln 2π] by Stirling's series, B_2k / (2k (2k − 1)) for
 * k = 1..7; the first omitted term is below 1e-16 for z >= 10. */
static double stirling_tail(double z) {
  double r = 1.0 / z, r2 = r * r;
  return r * (1.0 / 12 +
              r2 * (-1.0 / 360 +
                    r2 * (1.0 / 1260 +
                          r2 * (-1.0 / 1680 +
                                r2 * (1.0 / 1188 + r2 * (-691.0 / 360360 + r2 * (1.0 / 156)))))));
}

/* ln Γ(z + ½) − ln Γ(z). Taking the difference of two lgamma values would lose about
 * ln Γ(z) · 1e-16 in absolute terms, 3e-9 at the degrees of freedom of a long run, so the
 * difference is formed from Stirling's series directly, after moving z up past 10 with
 * Γ(z + 1) = z Γ(z). The library's lgamma also writes the global signgam, which would
 * be a data race between threads summarising at the same time. */
static double lgamma_half_step(double z) {
  double shift = 0.0;
  while (z < 10.0) {
    shift += log1p(0.5 / z);
    z += 1.0;
  }
  return 0.5 * log(z) + (z * log1p(0.5 / z) - 0.5) + stirling_tail(z + 0.5) - stirling_tail(z) -
         shift;
}

/* ln B(a, ½) = ln Γ(a) + ln Γ(½) − ln Γ(a + ½). */
static double lbeta_half(double a) {
  return 0.5 * log(3.14159265358979323846) - lgamma_half_step(a);
}

/* The continued fraction of the regularized incomplete beta function (DLMF 8.17.22),
 * 1 + d1 / (1 + d2 / (1 + …)), by the modified Lentz method. It converges fast for
 * x < (a + 1) / (a + b + 2); the callers use the symmetry I_x(a, b) = 1 − I_{1−x}(b, a)
 * otherwise. The number of terms grows like the square root of a + b. */
static double beta_cf(double a, double b, double x) {
  const double tiny = 1e-300;
  double f = 1.0, c = 1.0, d = 0.0;
  for (int j = 1; j < 100000; j++) {
    double m = (double)(j / 2), num;
    if (j % 2)
      num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1));
    else
      num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m));
    d = 1.0 + num * d;
    if (fabs(d) < tiny) d = tiny;
    d = 1.0 / d;
    c = 1.0 + num / c;
    if (fabs(c) < tiny) c = tiny;
    double delta = c * d;
    f *= delta;
    if (fabs(delta - 1.0) < 4e-16) break;
  }
  return f;
}

typedef struct tail_ctx {
  double df, lnb; /* lnb = ln B(df / 2, ½); df = INFINITY for the normal distribution */
} tail_ctx;

/* P(T > t) for t > 0, with P(0 < T < t) = ½ − P(T > t) in *center and the density at t
 * in *density, each keeping its relative accuracy: the small one of the two
 * probabilities is computed directly and the other from it. With x = df / (df + t²),
 * P(T > t) = ½ I_x(df / 2, ½); x and 1 − x are formed from r = t / √df without a
 * subtraction, and without overflow for huge t. */
static double tail_of(double t, const tail_ctx *c, double *center, double *density) {
  if (isinf(c->df)) {
    *density = exp(-0.5 * t * t) / sqrt(2.0 * 3.14159265358979323846);
    *center = 0.5 * erf(t / sqrt(2.0));
    return 0.5 * erfc(t / sqrt(2.0));
  }
  double r = t / sqrt(c->df), x, y, lnx, lny;
  if (r < 1.0) {
    double l = log1p(r * r);
    x = 1.0 / (1.0 + r * r);
    y = r * r / (1.0 + r * r);
    lnx = -l;
    lny = 2.0 * log(r) - l;
  } else {
    double s = 1.0 / r, l = log1p(s * s);
    x = s * s / (1.0 + s * s);
    y = 1.0 / (1.0 + s * s);
    lnx = 2.0 * log(s) - l;
    lny = -l;
  }
  double a = 0.5 * c->df;
  *density = exp((a + 0.5) * lnx - 0.5 * log(c->df) - c->lnb);
  double front = exp(a * lnx + 0.5 * lny - c->lnb);
  if (x < (a + 1.0) / (a + 2.5)) {
    double upper = 0.5 * front / (a * beta_cf(a, 0.5, x));
    *center = 0.5 - upper;
    return upper;
  }
  *center = front / beta_cf(0.5, a, y);
  return 0.5 - *center;
}

/* The t > 0 with P(T > t) = ½ − center, given the smaller of the two: P(T > t) = q
 * when q < ¼, else P(0 < T < t) = center, which is then the smaller and the one known
 * to full relative accuracy (near the median, t is proportional to it). Newton's
 * method on the logarithm of that probability, safeguarded by a bracket [lo, hi] and
 * bisection when a step leaves it; in logarithms the steps stay long far in the tail,
 * where the tail itself is nearly flat. */
static double t_from_tail(double q, double center, const tail_ctx *c) {
  int central = q >= 0.25;
  double target = central ? center : q, lntarget = log(target);
  double dens, cen, lo = 0.0, hi = 1.0;
  for (;;) {
    double up = tail_of(hi, c, &cen, &dens);
    if (central ? cen >= target : up <= q) break;
    lo = hi;
    hi *= 2.0;
    if (isinf(hi)) return INFINITY;
  }
  double t = lo > 0.0 ? lo : 0.5 * hi;
  for (int it = 0; it < 300; it++) {
    double up = tail_of(t, c, &cen, &dens), val = central ? cen : up;
    if (val == target) return t;
    if ((val > target) != central)
      lo = t;
    else
      hi = t;
    /* d ln P(T > t) / dt = −density / P(T > t); d ln P(0 < T < t) / dt = density / P(…). */
    double slope = central ? dens / val : -dens / val;
    double next = t - (log(val) - lntarget) / slope;
    if (!(next > lo && next < hi)) {
      /* Bisection, in logarithms over a wide bracket: the root may be orders of
       * magnitude from either end. */
      if (lo == 0.0)
        next = 0.0625 * hi;
      else
        next = hi > 4.0 * lo ? sqrt(lo * hi) : 0.5 * (lo + hi);
    }
    if (fabs(next - t) <= 1e-14 * next || next == lo || next == hi) return next;
    t = next;
  }
  return t;
}

/* From this many degrees of freedom on the continued fraction needs thousands of terms
 * near the centre and loses digits on the way (7e-13 at 1e5), while the Cornish–Fisher
 * expansion around the normal quantile z (Abramowitz & Stegun 26.7.5, terms to 1/df⁴)
 * is good to about 1e-14 as long as z² <= df / 100: each term is then about a thousandth
 * of the one before. Beyond that (tails below 1e-23 at 1e4 degrees of freedom) the
 * continued fraction takes over, which converges fast out there and, with 1 − x =
 * t² / (df + t²) above 0.01, does not suffer from x being close to 1. */
#define DF_EXPANSION 1e4

double cdevs_student_t_quantile(double p, double df) {
  if (!(p >= 0.0 && p <= 1.0) || !(df > 0.0)) return NAN;
  if (p == 0.5) return 0.0;
  if (p == 0.0) return -INFINITY;
  if (p == 1.0) return INFINITY;
  /* 1 − p, ½ − p and p − ½ are exact for the p they are used with (Sterbenz). */
  double q = p < 0.5 ? p : 1.0 - p, center = p < 0.5 ? 0.5 - p : p - 0.5, t;
  if (df >= DF_EXPANSION) {
    tail_ctx normal = {INFINITY, 0.0};
    double x = t_from_tail(q, center, &normal), x2 = x * x, v = 1.0 / df;
    if (x2 <= 0.01 * df) {
      double g1 = (x2 + 1.0) * x / 4.0;
      double g2 = ((5.0 * x2 + 16.0) * x2 + 3.0) * x / 96.0;
      double g3 = (((3.0 * x2 + 19.0) * x2 + 17.0) * x2 - 15.0) * x / 384.0;
      double g4 = ((((79.0 * x2 + 776.0) * x2 + 1482.0) * x2 - 1920.0) * x2 - 945.0) * x / 92160.0;
      t = x + v * (g1 + v * (g2 + v * (g3 + v * g4)));
      return p < 0.5 ? -t : t;
    }
  }
  tail_ctx tc = {df, lbeta_half(0.5 * df)};
  t = t_from_tail(q, center, &tc);
  return p < 0.5 ? -t : t;
}

/* ---- Half-widths from batch means ------------------------------------------------- */

/* Fills s->half_width, hw_status and batches from nb batch sums of equal weight; scale
 * turns a sum into a mean.
 *
 * Correlation is judged by von Neumann's ratio in Young's (1941) form, as Fishman's
 * batch-means procedures do: C = 1 − Σ(b_i − b_{i+1})² / (2 Σ(b_i − b̄)²). For
 * independent normal batch means C has mean 0 and variance (nb − 2) / (nb² − 1) at every
 * nb, whereas the plain lag-1 estimate r1 is biased by about −1/nb and its 1/√nb spread
 * holds only asymptotically: at 20 to 40 batches the difference matters. The test is
 * one-sided at 5% because only positive correlation makes the interval too narrow. */
static void batch_half_width(const double *sums, int nb, double scale, cdevs_stat_summary *s) {
  s->batches = nb;
  s->half_width = NAN;
  if (nb < CDEVS_STATS_MIN_BATCHES) {
    s->hw_status = CDEVS_HW_INSUFFICIENT;
    return;
  }
  double mean = 0.0;
  for (int i = 0; i < nb; i++) mean += sums[i] * scale;
  mean /= nb;
  double ss = 0.0, dd = 0.0;
  for (int i = 0; i < nb; i++) {
    double e = sums[i] * scale - mean;
    ss += e * e;
    if (i + 1 < nb) {
      double step = (sums[i + 1] - sums[i]) * scale;
      dd += step * step;
    }
  }
  s->hw_status = CDEVS_HW_OK;
  if (ss == 0.0) {
    /* Identical batch means: nothing varies, and no correlation can be measured. */
    s->half_width = 0.0;
    return;
  }
  double c = 1.0 - dd / (2.0 * ss), n = (double)nb;
  if (c / sqrt((n - 2.0) / (n * n - 1.0)) > Z_95) {
    s->hw_status = CDEVS_HW_CORRELATED;
    return;
  }
  s->half_width = cdevs_student_t_quantile(0.975, n - 1.0) * sqrt(ss / (n - 1.0) / n);
}

static void summary_empty(cdevs_stat_summary *s) {
  s->avg = s->min = s->max = s->final = s->stddev = NAN;
  s->count = 0;
  s->half_width = NAN;
  s->hw_status = CDEVS_HW_INSUFFICIENT;
  s->batches = 0;
}

/* ---- Across replications ---------------------------------------------------------- */

double cdevs_stats_mean_hw(const double *x, size_t n, double *half_width) {
  if (half_width) *half_width = NAN;
  if (n == 0) return NAN;
  double mean = 0.0;
  for (size_t i = 0; i < n; i++) mean += x[i];
  mean /= (double)n;
  if (n >= 2 && half_width) {
    double ss = 0.0;
    for (size_t i = 0; i < n; i++) ss += (x[i] - mean) * (x[i] - mean);
    double dn = (double)n;
    *half_width = cdevs_student_t_quantile(0.975, dn - 1.0) * sqrt(ss / (dn - 1.0) / dn);
  }
  return mean;
}

/* ---- Tallies ---------------------------------------------------------------------- */

cdevs_tally *cdevs_tally_new(const cdevs_alloc *a) {
  if (!a) a = cdevs_alloc_default();
  cdevs_tally *t = cdevs__calloc(a, 1, sizeof *t);
  if (!t) return NULL;
  t->alloc = *a;
  t->mser = cdevs__calloc(a, MSER_INITIAL, sizeof *t->mser);
  if (!t->mser) {
    cdevs__free(a, t, sizeof *t);
    return NULL;
  }
  t->capm = MSER_INITIAL;
  cdevs_tally_reset(t);
  return t;
}

void cdevs_tally_free(cdevs_tally *t) {
  if (!t) return;
  cdevs_alloc a = t->alloc;
  CDEVS_FREEARR(&a, t->mser, t->capm);
  cdevs__free(&a, t, sizeof *t);
}

void cdevs_tally_reset(cdevs_tally *t) {
  t->n = 0;
  t->mean = t->m2 = 0.0;
  t->centre = t->s1 = t->s2 = 0.0;
  t->min = t->max = t->last = NAN;
  t->ref = 0.0;
  t->first_time = NAN;
  t->last_time = -INFINITY;
  t->bsize = 1;
  t->bfill = 0;
  t->bsum = 0.0;
  t->nb = 0;
  /* The MSER array keeps its memory: a reset after the warm-up will refill it. */
  t->nm = 0;
  t->msize = 5;
  t->mfill = 0;
  t->msum = 0.0;
}

/* The buffer of batch sums is full: adjacent pairs become one batch of twice the size. */
static void merge_batches(double *batch, int *nb) {
  for (int i = 0; i < *nb / 2; i++) batch[i] = batch[2 * i] + batch[2 * i + 1];
  *nb /= 2;
}

/* A batch of msize observations is complete. The array doubles up to MSER_MAX batches;
 * at that size, or when the allocator refuses to grow it, adjacent pairs merge and the
 * batches hold twice as many observations from then on: memory stays bounded and the
 * truncation point is found on coarser batches (MSER-10, -20, …) of a long run. */
static void mser_push(cdevs_tally *t) {
  if (t->nm == t->capm &&
      (t->capm >= MSER_MAX || CDEVS_GROW(&t->alloc, t->mser, t->capm, t->capm + 1) != 0)) {
    for (uint32_t i = 0; i < t->nm / 2; i++) {
      t->mser[i].sum = t->mser[2 * i].sum + t->mser[2 * i + 1].sum;
      t->mser[i].time = t->mser[2 * i + 1].time;
    }
    t->nm /= 2;
    t->msize *= 2;
    /* The observations gathered since the last complete batch now count toward one
     * of the new size; they follow the merged batches, so the order is kept. */
    if (t->mfill < t->msize) return;
  }
  t->mser[t->nm].sum = t->msum;
  t->mser[t->nm].time = t->last_time;
  t->nm++;
  t->msum = 0.0;
  t->mfill = 0;
}

/* The k observations of a block, Σ(x − c) = s1 and Σ(x − c)² = s2 about c, joined to
 * the n before them (mean, m2): Chan, Golub & LeVeque (1983), eq. 2.1. */
static void fold(double *mean, double *m2, uint64_t n, double c, double s1, double s2, uint64_t k) {
  double dk = (double)k, bm = s1 / dk, bss = s2 - s1 * bm;
  if (bss < 0.0) bss = 0.0; /* rounding, when every x of the block is the same */
  if (n == 0) {
    *mean = c + bm;
    *m2 = bss;
    return;
  }
  double delta = (c + bm) - *mean, w = dk / ((double)n + dk);
  *mean += delta * w;
  *m2 += bss + delta * delta * (double)n * w;
}

cdevs_status cdevs_tally_add(cdevs_tally *t, double time, double x) {
  if (!isfinite(x) || !isfinite(time) || time < t->last_time) return CDEVS_EINVAL;
  if (t->n == 0) {
    t->ref = t->centre = x;
    t->first_time = time;
    t->min = t->max = x;
  }
  t->n++;
  double y = x - t->centre;
  t->s1 += y;
  t->s2 += y * y;
  if ((t->n & (BLOCK - 1)) == 0) {
    fold(&t->mean, &t->m2, t->n - BLOCK, t->centre, t->s1, t->s2, BLOCK);
    t->centre = t->mean;
    t->s1 = t->s2 = 0.0;
  }
  if (x < t->min) t->min = x;
  if (x > t->max) t->max = x;
  t->last = x;
  t->last_time = time;

  double shifted = x - t->ref;
  t->bsum += shifted;
  if (++t->bfill == t->bsize) {
    t->batch[t->nb++] = t->bsum;
    t->bsum = 0.0;
    t->bfill = 0;
    if (t->nb == NBATCH) {
      merge_batches(t->batch, &t->nb);
      t->bsize *= 2;
    }
  }
  t->msum += shifted;
  if (++t->mfill == t->msize) mser_push(t);
  return CDEVS_OK;
}

void cdevs_tally_summary(const cdevs_tally *t, cdevs_stat_summary *s) {
  if (t->n == 0) {
    summary_empty(s);
    return;
  }
  /* The observations of the incomplete block are folded into a copy. */
  double mean = t->mean, m2 = t->m2;
  uint64_t k = t->n & (BLOCK - 1);
  if (k) fold(&mean, &m2, t->n - k, t->centre, t->s1, t->s2, k);
  s->avg = mean;
  s->min = t->min;
  s->max = t->max;
  s->final = t->last;
  s->stddev = t->n > 1 ? sqrt(m2 / (double)(t->n - 1)) : NAN;
  s->count = t->n;
  batch_half_width(t->batch, t->nb, 1.0 / (double)t->bsize, s);
}

/* White's MSER on the batch sums Z_0 … Z_{m−1} (all of one size, so sums rank the
 * truncation points as means do): for d = 0 … ⌊m/2⌋, the spread of Z_d … Z_{m−1}
 * about their own mean divided by (m − d)², smallest wins, ties to the smaller d. One
 * backward pass of Welford's update gives every suffix's mean and spread in O(m)
 * without the cancellation of suffix sums of squares. */
double cdevs_tally_mser5(const cdevs_tally *t) {
  uint32_t m = t->nm;
  if (m < 10) return NAN;
  double mean = 0.0, ss = 0.0, best = INFINITY;
  uint32_t bestd = 0;
  for (uint32_t i = m; i-- > 0;) {
    double k = (double)(m - i), z = t->mser[i].sum, dev = z - mean;
    mean += dev / k;
    ss += dev * (z - mean);
    if (i <= m / 2 && ss / (k * k) <= best) {
      best = ss / (k * k);
      bestd = i;
    }
  }
  return bestd == 0 ? t->first_time : t->mser[bestd - 1].time;
}

/* ---- Time-persistent statistics --------------------------------------------------- */

/* A batch narrower than 2^-40 of the time where the batches start would have its
 * boundaries rounded by whole fractions of its width, and its mean would be wrong
 * without any sign of it; such widths are widened to that. */
static double batch_width(double start, double w) {
  double least = fabs(start) * 0x1p-40;
  return w < least ? least : w;
}

/* The first batch width: the expected remaining run split into 2K batches, so that a
 * run ending where expected finishes with K to 2K complete batches. With no expectation
 * the width is chosen at the first interval of nonzero length, as if that interval
 * were the whole run (see advance). */
static void tp_restart(cdevs_tpstat *s, double t) {
  s->start = s->tlast = s->tseen = s->bstart = t;
  s->ref = s->v;
  s->d = 0.0;
  s->area = s->area2 = 0.0;
  s->min = s->max = s->v;
  s->changes = 0;
  s->nb = 0;
  s->bcur = 0.0;
  double left = s->span_end - t;
  s->width = isfinite(left) && left > 0.0 ? batch_width(t, left / NBATCH) : 0.0;
  s->bend = s->width > 0.0 ? t + s->width : INFINITY;
}

/* The value s->v held from s->tlast to t: the integrals grow, and the batches it
 * covers are completed (a long interval may complete many, and its contribution is
 * split at their boundaries). Boundaries are recomputed from bstart rather than
 * accumulated, so they do not drift over millions of batches. */
static void advance(cdevs_tpstat *s, double t) {
  double dt = t - s->tlast;
  s->area += s->d * dt;
  s->area2 += s->d * s->d * dt;
  if (s->width == 0.0) {
    s->width = batch_width(s->start, (t - s->start) / NBATCH);
    s->bend = s->start + s->width;
  }
  double pos = s->tlast;
  while (t >= s->bend) {
    s->bcur += s->d * (s->bend - pos);
    pos = s->bend;
    s->batch[s->nb++] = s->bcur;
    s->bcur = 0.0;
    if (s->nb == NBATCH) {
      merge_batches(s->batch, &s->nb);
      s->width *= 2.0;
    }
    s->bend = s->bstart + (double)(s->nb + 1) * s->width;
  }
  s->bcur += s->d * (t - pos);
  s->tlast = t;
}

cdevs_tpstat *cdevs_tpstat_new(const cdevs_alloc *a, double t0, double v0, double span) {
  if (!isfinite(t0) || !isfinite(v0) || !(span >= 0.0)) return NULL;
  if (!a) a = cdevs_alloc_default();
  cdevs_tpstat *s = cdevs__calloc(a, 1, sizeof *s);
  if (!s) return NULL;
  s->alloc = *a;
  s->span_end = span > 0.0 ? t0 + span : INFINITY;
  s->v = v0;
  tp_restart(s, t0);
  return s;
}

void cdevs_tpstat_free(cdevs_tpstat *s) {
  if (!s) return;
  cdevs_alloc a = s->alloc;
  cdevs__free(&a, s, sizeof *s);
}

cdevs_status cdevs_tpstat_set(cdevs_tpstat *s, double t, double v) {
  if (!isfinite(v) || !isfinite(t) || t < s->tseen) return CDEVS_EINVAL;
  s->tseen = t;
  /* The same value again (a resource released and seized at one instant): the interval
     goes on, to be integrated at the next change. Not before the batch width is chosen,
     which the first interval of nonzero length decides. */
  if (v == s->v && s->width > 0.0) return CDEVS_OK;
  if (t > s->tlast) advance(s, t);
  if (v == s->v) return CDEVS_OK;
  s->changes++;
  s->v = v;
  s->d = v - s->ref;
  if (v < s->min) s->min = v;
  if (v > s->max) s->max = v;
  return CDEVS_OK;
}

double cdevs_tpstat_value(const cdevs_tpstat *s) { return s->v; }

cdevs_status cdevs_tpstat_reset(cdevs_tpstat *s, double t) {
  if (!isfinite(t) || t < s->tseen) return CDEVS_EINVAL;
  tp_restart(s, t);
  return CDEVS_OK;
}

void cdevs_tpstat_summary(const cdevs_tpstat *s, double t_end, cdevs_stat_summary *out) {
  /* The statistic stays as it is: the summary advances a copy to t_end (the struct
   * is flat, a few hundred bytes). */
  cdevs_tpstat c = *s;
  out->min = c.min;
  out->max = c.max;
  out->final = c.v;
  out->count = c.changes;
  if (!isfinite(t_end) || t_end < c.tseen || t_end == c.start) {
    out->avg = out->stddev = out->half_width = NAN;
    out->hw_status = CDEVS_HW_INSUFFICIENT;
    out->batches = 0;
    return;
  }
  if (t_end > c.tlast) advance(&c, t_end);
  double span = t_end - c.start, m = c.area / span;
  double var = c.area2 / span - m * m;
  out->avg = c.ref + m;
  out->stddev = var > 0.0 ? sqrt(var) : 0.0;
  batch_half_width(c.batch, c.nb, 1.0 / c.width, out);
}
