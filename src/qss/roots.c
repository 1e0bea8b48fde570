/* SPDX-License-Identifier: MIT */
/* Real roots of polynomials up to degree 3, in closed form with cancellation-free
 * formulas and a Newton polish, for QSS next-event and zero-crossing times. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "qss_impl.h"

/* The real cube root: the exponent divided by three on the bit pattern (within 3.2
 * per cent), then two Halley steps (cubic convergence: at most 2.1e-5, then 6.7e-15
 * relative, measured over 10⁷ arguments in [2⁻¹⁰⁰, 2¹⁰⁰]). A third step, to 7e-16,
 * cost a division more than a QSS3 step length needs; a cubic's root is polished
 * against the polynomial afterwards anyway. glibc's cbrt, exact to the last bit, went
 * through frexp and ldexp and was a fifth of a QSS3 step. */
double cdevs__cbrt(double x) {
  double ax = fabs(x);
  if (!(ax >= DBL_MIN) || !(ax <= DBL_MAX)) return cbrt(x); /* 0, subnormal, inf, NaN */
  uint64_t b;
  memcpy(&b, &ax, sizeof b);
  b = b / 3 + UINT64_C(0x2a9f7893782da1ce);
  double y;
  memcpy(&y, &b, sizeof y);
  for (int i = 0; i < 2; i++) {
    double y3 = y * y * y;
    y *= (y3 + 2.0 * ax) / (2.0 * y3 + ax);
  }
  return copysign(y, x);
}

static double peval(const double *c, int deg, double x) {
  double v = c[deg];
  for (int k = deg - 1; k >= 0; k--) v = v * x + c[k];
  return v;
}

static double pderiv(const double *c, int deg, double x) {
  double v = deg * c[deg];
  for (int k = deg - 1; k >= 1; k--) v = v * x + k * c[k];
  return v;
}

/* Up to three Newton steps, kept only while they reduce |p|: closed forms lose digits
 * when the leading coefficient is small against the others, or near double roots. A
 * step that moved x by less than 1e-9 of itself ends it: convergence is quadratic, so
 * the next would move it by about 1e-18, and trying it (an evaluation, a derivative
 * and a division) was most of what polishing cost. */
static double polish(const double *c, int deg, double x) {
  double fx = peval(c, deg, x);
  for (int it = 0; it < 3 && fx != 0.0; it++) {
    double d = pderiv(c, deg, x);
    if (d == 0.0 || !isfinite(d)) break;
    double dx = fx / d, nx = x - dx;
    double fn = peval(c, deg, nx);
    if (!(fabs(fn) < fabs(fx))) break;
    x = nx;
    fx = fn;
    if (fabs(dx) <= 1e-9 * fabs(x)) break;
  }
  return x;
}

static int quadratic(double a, double b, double c, double *r) {
  /* a·x² + b·x + c with a != 0: the root of larger magnitude from the formula whose
   * terms add, the other from the product c/a (no cancellation either way). */
  double disc = b * b - 4.0 * a * c;
  if (disc < 0.0) return 0;
  double s = sqrt(disc);
  double q = -0.5 * (b + (b < 0.0 ? -s : s));
  if (q == 0.0) { /* b = 0 and c = 0 */
    r[0] = 0.0;
    return 1;
  }
  double r1 = q / a, r2 = c / q;
  r[0] = r1 < r2 ? r1 : r2;
  r[1] = r1 < r2 ? r2 : r1;
  return disc == 0.0 ? 1 : 2;
}

/*
 * One real root from the closed form (Cardano, or the trigonometric form when there
 * are three), polished, then deflated to a quadratic solved as above. Deciding
 * between one and three real roots from R² < Q³ is itself subject to round-off when
 * the leading coefficient is small (the cubic is nearly a quadratic with a huge
 * third root): deflating never depends on that decision, so the small roots, the
 * ones QSS needs, survive.
 */
static int cubic(const double *c, double *r, int polish_all) {
  /* Divisions are what a QSS3 step waits on (a dozen cycles each, in a chain): by a
   * constant or one value repeatedly they are products with the reciprocal, whose
   * last-bit differences the polish removes. */
  double inv = 1.0 / c[3];
  double A = c[2] * inv, B = c[1] * inv, C = c[0] * inv, A3 = A * (1.0 / 3.0);
  double Q = (A * A - 3.0 * B) * (1.0 / 9.0);
  double R = (2.0 * A * A * A - 9.0 * A * B + 27.0 * C) * (1.0 / 54.0);
  double Q3 = Q * Q * Q, r1;
  if (!isfinite(Q3) || !isfinite(R * R)) {
    /* The leading coefficient is so small that the normalised terms overflow: the
     * third root is beyond the double range, the others are the quadratic's,
     * polished against the cubic. */
    int n = 0;
    if (c[2] != 0.0) {
      n = quadratic(c[2], c[1], c[0], r);
    } else if (c[1] != 0.0) {
      r[0] = -c[0] / c[1];
      n = 1;
    }
    for (int i = 0; i < n; i++) r[i] = polish(c, 3, r[i]);
    return n;
  }
  if (R * R < Q3) {
    /* Three real roots -A/3 + sq·cos((θ + 2πk)/3): take the one of largest magnitude
     * (stable to deflate). That is the smallest (k = 0, the largest cosine) or the
     * largest (k = 1, cos(φ + 2π/3) = -cos φ/2 - (√3/2)·sin φ), never the middle one: one
     * cosine, not three. */
    double th = acos(R / sqrt(Q3)), sq = -2.0 * sqrt(Q);
    double co = cos(th * (1.0 / 3.0)), sn = sqrt(fmax(0.0, 1.0 - co * co));
    double lo = sq * co - A3, hi = sq * (-0.5 * co - 0.8660254037844386 * sn) - A3;
    r1 = fabs(hi) > fabs(lo) ? hi : lo;
  } else {
    double S = -copysign(cdevs__cbrt(fabs(R) + sqrt(R * R - Q3)), R);
    double T = S != 0.0 ? Q / S : 0.0;
    r1 = S + T - A3;
  }
  r1 = polish(c, 3, r1);
  /* p(τ) = (τ - r1)(b2·τ² + b1·τ + b0): backward deflation for a large root, forward
   * for a small one, each the stable direction. */
  double b0, b1, b2;
  if (fabs(r1) > 1.0) {
    double ir = 1.0 / r1;
    b0 = -c[0] * ir;
    b1 = (b0 - c[1]) * ir;
    b2 = (b1 - c[2]) * ir;
  } else {
    b2 = c[3];
    b1 = c[2] + r1 * b2;
    b0 = c[1] + r1 * b1;
  }
  int n = 0;
  r[n++] = r1;
  double q[2];
  int nq = b2 != 0.0 ? quadratic(b2, b1, b0, q) : (b1 != 0.0 ? (q[0] = -b0 / b1, 1) : 0);
  for (int i = 0; i < nq; i++) r[n++] = polish_all ? polish(c, 3, q[i]) : q[i];
  if (!polish_all) return n; /* r1 first, the rest unpolished and unsorted */
  for (int i = 1; i < n; i++) /* ascending */
    for (int j = i; j > 0 && r[j - 1] > r[j]; j--) {
      double t = r[j];
      r[j] = r[j - 1];
      r[j - 1] = t;
    }
  return n;
}

int cdevs__poly_real_roots(const double *c, int deg, double *r) {
  while (deg > 0 && c[deg] == 0.0) deg--;
  switch (deg) {
  case 1:
    r[0] = -c[0] / c[1];
    return 1;
  case 2:
    /* The cancellation-free formula is accurate to a few ulps; no polish needed
     * (this is the hot path of QSS2/LIQSS2). */
    return quadratic(c[2], c[1], c[0], r);
  case 3:
    return cubic(c, r, 1);
  default:
    return 0;
  }
}

double cdevs__poly_min_pos_root(const double *c, int deg) {
  double r[3], best = INFINITY;
  while (deg > 0 && c[deg] == 0.0) deg--;
  if (deg == 3) {
    /* Only a root that can be the answer is polished: one clearly negative, or
     * clearly beyond the best so far, stays so (the closed form is good to far
     * better than the slack), which saves most of the Newton steps of a QSS3 step. */
    int n = cubic(c, r, 0);
    if (r[0] > 0.0) best = r[0];
    for (int i = 1; i < n; i++) {
      double slack = 1e-6 * (fabs(r[i]) + fabs(r[0]));
      if (r[i] > -slack && r[i] < best + slack) {
        double x = polish(c, 3, r[i]);
        if (x > 0.0 && x < best) best = x;
      }
    }
    return best;
  }
  if (deg == 2) {
    /* The roots q/a and c/q of the cancellation-free formula: which are positive, and
     * which of two is smaller (q² against |a·c|), is read from signs and products, so
     * only the answer costs a division (the hot path of QSS2/LIQSS2). */
    double a = c[2], b = c[1], c0 = c[0];
    double disc = b * b - 4.0 * a * c0;
    if (!(disc >= 0.0)) return INFINITY; /* NaN too, as the other degrees */
    double sq = sqrt(disc), q = -0.5 * (b + (b < 0.0 ? -sq : sq));
    if (q == 0.0) return INFINITY; /* b = c = 0: the double root 0 */
    int p1 = (q > 0.0) == (a > 0.0), p2 = c0 != 0.0 && (c0 > 0.0) == (q > 0.0);
    if (p1 && p2) return q * q < fabs(a * c0) ? q / a : c0 / q;
    return p1 ? q / a : p2 ? c0 / q : INFINITY;
  }
  int n = cdevs__poly_real_roots(c, deg, r);
  for (int i = 0; i < n; i++)
    if (r[i] > 0.0 && r[i] < best) best = r[i];
  return best;
}

/*
 * QSS3's band exit without the closed form, where that can be certified. Nearly
 * always the cubic term only bends the answer a little: the exit of d's quadratic
 * part (QSS2's, a square root) is within a per cent or so, and two steps of
 * Halley's iteration (cubic convergence) on the side it leaves by finish it. The
 * result is taken only if it is provably the first exit: the polynomial changes
 * sign across x·(1 ± 1e-12), and d stays inside the band before x (d is monotone
 * on [0, x], or its values at its turning points are inside). Otherwise NAN, and
 * the closed form decides. On 3·10⁶ band exits logged from the air-conditioner
 * model this took 54 ns where the closed form took 154 (its acos, cos and polish),
 * answered 98% of them, and was within 4.6e-15 of the root (the closed form:
 * 1.3e-14), both measured against a quadruple-precision Newton iteration; on 556k
 * from the LC line, where the cubic term bends more (three steps), 76 ns.
 */
static double band_exit3_halley(const double *d, double bound) {
  double side, c0, x = cdevs__quad_exit(d, bound, &side, &c0);
  if (!(x < INFINITY)) return NAN;
  double c[4] = {c0, d[1], d[2], d[3]};
  int done = 0;
  for (int it = 0; it < 6 && !done; it++) {
    double f = peval(c, 3, x), fp = pderiv(c, 3, x), fpp = 6.0 * c[3] * x + 2.0 * c[2];
    double dx = 2.0 * f * fp / (2.0 * fp * fp - f * fpp);
    x -= dx;
    if (!(x > 0.0)) return NAN; /* also NaN: a zero denominator */
    /* The error after a step is about the cube of the one before it (dx). */
    done = fabs(dx) <= 1e-6 * x;
  }
  /* Halley's step also vanishes at a turning point that falls short of the bound
   * (f' = 0 with f != 0): only a sign change certifies a root. */
  if (!done || !(side * peval(c, 3, x * (1.0 - 1e-12)) < 0.0 && side * peval(c, 3, x * (1.0 + 1e-12)) >= 0.0))
    return NAN;
  /* d' = d1 + 2·d2·τ + 3·d3·τ² keeps one sign on [0, x] if it has it at both ends
   * and, when its vertex -d2/(3·d3) lies between, there too. */
  double p0 = d[1], px = pderiv(d, 3, x);
  int mono = (p0 > 0.0 && px > 0.0) || (p0 < 0.0 && px < 0.0);
  double v = -d[2] / (3.0 * d[3]);
  if (mono && v > 0.0 && v < x) {
    double pv = d[1] + v * d[2]; /* d'(v) = d1 - d2²/(3·d3) */
    mono = p0 > 0.0 ? pv > 0.0 : pv < 0.0;
  }
  if (!mono) {
    double dp[3] = {d[1], 2.0 * d[2], 3.0 * d[3]}, r[2];
    int n = cdevs__poly_real_roots(dp, 2, r);
    for (int k = 0; k < n; k++)
      if (r[k] > 0.0 && r[k] < x && !(fabs(peval(d, 3, r[k])) < bound)) return NAN;
  }
  return x;
}

/*
 * The first τ > 0 with |d(τ)| = bound, for |d(0)| < bound: the exit from the band a
 * QSS variable's x - q must stay in. d leaves towards the side its first nonzero
 * derivative points to, s; only if it turns back before reaching s·bound (a critical
 * point of d inside) can it reach -s·bound first. So one root solve, and the other
 * only when d turns back far enough: half the work of solving both sides.
 */
double cdevs__cubic_band_exit(const double *d, double bound) {
  if (d[3] == 0.0) return cdevs__poly_band_exit(d, 2, bound);
  double x = band_exit3_halley(d, bound);
  if (x == x) return x;
  int s = 0;
  for (int k = 1; k <= 3 && !s; k++) s = (d[k] > 0.0) - (d[k] < 0.0);
  if (!s) return INFINITY;
  double c[4] = {d[0] - s * bound, d[1], d[2], d[3]};
  double t1 = cdevs__poly_min_pos_root(c, 3);
  int other = 0;
  if (isinf(t1)) {
    other = 1; /* never reaches s·bound: the other side, if any */
  } else {
    /* Critical points of d in (0, t1): d turns at the first and back at the second,
     * where it is furthest towards -s. */
    double dp[3] = {d[1], 2.0 * d[2], 3.0 * d[3]}, r[2];
    int n = cdevs__poly_real_roots(dp, 2, r), k = 0;
    while (k < n && !(r[k] > 0.0)) k++;
    if (k + 1 < n && r[k + 1] < t1) {
      double v = peval(d, 3, r[k + 1]);
      if (s * v <= -bound) other = 1;
    }
  }
  if (other) {
    c[0] = d[0] + s * bound;
    double t2 = cdevs__poly_min_pos_root(c, 3);
    if (t2 < t1) t1 = t2;
  }
  return t1;
}
