/* SPDX-License-Identifier: MIT */
/* The shared QSS machinery: one quantized variable, its methods, polynomial roots. */
#ifndef CDEVS_QSS_IMPL_H
#define CDEVS_QSS_IMPL_H

#include <math.h>

#include "cdevs/qss.h"
#include "series.h"

/* c/n for n = 1..4, where n is a runtime order: by 1, 2 and 4 a product by the
 * exact reciprocal (the same bits, without the division's latency), by 3 a division. */
static inline double cdevs__div_small(double c, int n) {
  return n == 3 ? c / 3.0 : c * (n == 1 ? 1.0 : n == 2 ? 0.5 : 0.25);
}

/*
 * One quantized state variable. An integrator block holds one; a compiled ODE system
 * holds an array of them. x is the state polynomial around tx (degree = order), q the
 * quantized polynomial around tq (degree = order - 1).
 */
typedef struct cdevs__qvar {
  double x[4];
  double q[4];
  double tx, tq;
  double tn; /* next requantization time */
  double dq; /* quantum in force since tq */
  double dqrel, dqmin;
  /* LIQSS: a estimates ∂ẋ/∂q (kept <= 0); q_before and dx_before are q and ẋ at tq
   * just before the last requantization, so that the derivative coming back at tq
   * measures a. */
  double a, q_before, dx_before;
  int a_pending;
  int a_exact; /* a comes from the Jacobian (its owner sets it): no secant is measured */
  int restart; /* reset, not yet requantized: tn stays at the reset, and q then
                * follows x exactly, as in QSS (also under LIQSS) */
  double t_end; /* LIQSS2: where the run ends, its implicit step's longest horizon
                 * (INFINITY, the default: the linearised equation's steady state) */
  /* The derivative's next Taylor coefficient, which x's polynomial leaves out, as
   * x's coefficient xr = ẋ^(m)/(m+1)! (0: unknown or none), from the evaluation at
   * t_der. Between updates ẋ is extrapolated by its first m coefficients; when the
   * derivative reads a state through a nonlinear function, the part left out grows
   * as xr·τ^(m+1), and nothing else re-evaluates it while that state's q runs
   * unchanged (an exact ramp feeding a square). The next time is capped at where it
   * reaches one quantum, flagged by refresh: the owner then re-evaluates the
   * derivative, without a new q. Set by equation systems; blocks leave it 0. */
  double xr, t_der;
  int refresh;
  /* mLIQSS: where x meets the q its pair step placed (-INFINITY: none). The step
   * closed x's displacement from the stiff manifold over that horizon; past it x's
   * parabola turns back, and q is renewed there, from x on the manifold. */
  double t_touch;
} cdevs__qvar;

typedef struct cdevs__qss_method {
  cdevs_qss_method id;
  const char *name;
  int order;           /* m: x has m + 1 coefficients, q has m */
  int linear_implicit; /* LIQSS: q is chosen ahead of x, up to 2·ΔQ away */
  int pairs;           /* mLIQSS: stiff pairs are placed together (equation systems) */
} cdevs__qss_method;

const cdevs__qss_method *cdevs__qss_method_get(cdevs_qss_method id);

/* Starts the variable at x0 at time t0: q = x0, derivative 0, next time now. */
void cdevs__qvar_init(cdevs__qvar *v, const cdevs__qss_method *m, double x0, double dqrel,
                      double dqmin, double t0);
/* Moves x's polynomial origin to t. */
void cdevs__qvar_advance(cdevs__qvar *v, const cdevs__qss_method *m, double t);
/* The internal event: new quantum, new q, next time. */
void cdevs__qvar_requantize(cdevs__qvar *v, const cdevs__qss_method *m, double t);
/* Its first half: new quantum and new q, tn left alone (for a caller that sets the
 * derivative next, which computes tn anyway). Returns 1 when LIQSS placed q apart
 * from x, 0 when q = x. */
int cdevs__qvar_place_q(cdevs__qvar *v, const cdevs__qss_method *m, double t);
/* mLIQSS: vi, just requantized at t, and vj placed together by one linearly implicit
 * step of the pair ẋ = A·q + u0 + u1·τ (rows and columns i, j; u: the rest of their
 * derivatives), over the longest horizon that keeps both q within 2·ΔQ of x. Sets
 * both q and a (vj: advanced to t, with its quantum; its next time is the caller's)
 * and returns 1; 0 changes nothing. */
int cdevs__qvar_pair_place(cdevs__qvar *vi, cdevs__qvar *vj, const cdevs__qss_method *m, double t,
                           const double A[2][2], const double *u0, const double *u1);
/* The q a requantization at t would set, without changing v (what λ announces). */
void cdevs__qvar_next_q(const cdevs__qvar *v, const cdevs__qss_method *m, double t, double *out);
/* The derivative changed at t to the series d (degree dorder, around t): new next time. */
void cdevs__qvar_set_derivative(cdevs__qvar *v, const cdevs__qss_method *m, double t,
                                const double *d, int dorder);
/* The state jumps to x0 at t (a reset); q is x0 from now, and takes its slope at the
 * requantization due at once (next time = t). */
void cdevs__qvar_reset(cdevs__qvar *v, const cdevs__qss_method *m, double t, double x0);
/* Recomputes the next time from x, q and the quantum (after x's coefficients changed). */
void cdevs__qvar_next_time(cdevs__qvar *v, const cdevs__qss_method *m, double t);
/* x(t), and q's series around t (inline: it is the bytecode's state load). */
double cdevs__qvar_x(const cdevs__qvar *v, const cdevs__qss_method *m, double t);
static inline void cdevs__qvar_q_deg(const cdevs__qvar *v, int deg, double t, double *out) {
  for (int k = 0; k < 4; k++) out[k] = v->q[k];
  cdevs__series_shift(out, deg, t - v->tq); /* deg = order - 1: a constant unrolls it */
}
static inline void cdevs__qvar_q(const cdevs__qvar *v, const cdevs__qss_method *m, double t, double *out) {
  cdevs__qvar_q_deg(v, m->order - 1, t, out);
}

/* The smallest root > 0 of c[0] + c[1]τ + … + c[deg]τ^deg (deg <= 3), or INFINITY. */
double cdevs__poly_min_pos_root(const double *c, int deg);
/* The real roots of the polynomial (deg <= 3), ascending; returns their count. */
int cdevs__poly_real_roots(const double *c, int deg, double *roots);
/* The band exit of d0 + d1·τ + d2·τ² (d2 may be 0): towards s, the sign of the first
 * nonzero of d1, d2, where d - s·bound has one positive root if d2 goes the same way
 * and two or none if it turns back; with none, the other side (one positive root).
 * Both from the cancellation-free formula, one square root and one division (the
 * hot path of QSS2 and LIQSS2). Sets side (±1; 0 and no exit if d1 = d2 = 0) and,
 * with an exit, c0out = d0 - side·bound. */
static inline double cdevs__quad_exit(const double *d, double bound, double *side, double *c0out) {
  double s = d[1] > 0.0 ? 1.0 : d[1] < 0.0 ? -1.0 : d[2] > 0.0 ? 1.0 : d[2] < 0.0 ? -1.0 : 0.0;
  double c0 = d[0] - s * bound, x;
  *side = s;
  if (s == 0.0) return INFINITY;
  if (d[2] == 0.0) {
    x = -c0 / d[1];
  } else {
    double disc = d[1] * d[1] - 4.0 * d[2] * c0;
    if (disc < 0.0) {
      *side = -s, c0 = d[0] + s * bound;
      disc = d[1] * d[1] - 4.0 * d[2] * c0;
    }
    double q = -0.5 * (d[1] + s * sqrt(disc)); /* sign -s: no cancellation */
    x = *side == s ? c0 / q : q / d[2];
  }
  *c0out = c0;
  return x > 0.0 ? x : INFINITY; /* NaN too */
}
/* The same for d of degree up to 3, in roots.c. */
double cdevs__cubic_band_exit(const double *d, double bound);
/* The first τ > 0 with |d(τ)| = bound (deg <= 3, |d(0)| < bound), or INFINITY. Up to
 * degree 2 inline, so that QSS2's and LIQSS2's every step costs no call; degree 3 is
 * one call, its quadratic case included (QSS3's code stays small). */
static inline double cdevs__poly_band_exit(const double *d, int deg, double bound) {
  if (deg == 3) return cdevs__cubic_band_exit(d, bound);
  double e[3] = {d[0], deg > 0 ? d[1] : 0.0, deg > 1 ? d[2] : 0.0}, side, c0;
  return cdevs__quad_exit(e, bound, &side, &c0);
}
/* A fast real cube root (about 30 ulps: 6.7e-15 relative). */
double cdevs__cbrt(double x);
/* The τ > 0 with |c|·τ^k = dq (k = 1..4): how long a term c·τ^k takes to reach dq. */
static inline double cdevs__time_to(double dq, double c, int k) {
  if (c == 0.0) return INFINITY;
  double r = dq / fabs(c);
  switch (k) {
  case 1: return r;
  case 2: return sqrt(r);
  case 3: return cdevs__cbrt(r);
  default: return sqrt(sqrt(r));
  }
}

/* A series sent to degree k - 1 (a function beyond the q it reads: an algebraic output
 * or a crossing function of an equation system, a nonlinear block's output) whose next
 * coefficient c[k] is known: how long it may be extrapolated, until the terms it
 * leaves out reach dq. They are c_k·τ^k and the next, c_{k+1}, estimated from the
 * change of c_k since the last evaluation (hist: c_k and its time, updated here).
 * Without a last evaluation, no longer than the highest nonzero term below k takes to
 * reach dq: c_k alone may nearly vanish by chance (cos(t) has an inflection at 0, and
 * its c_3 = sin(t)/6 at t = 1e-9 gave 181 s for 0.2). INFINITY for dq <= 0; 0 (at
 * once) for NaN. The caller schedules it at least one ulp after t. */
static inline double cdevs__refresh_tau(double dq, const double *c, int k, double *hist, double t) {
  if (!(dq > 0.0)) return INFINITY;
  double tau = cdevs__time_to(dq, c[k], k), r;
  int history = hist[1] < t;
  if (history && (r = cdevs__time_to(dq, (c[k] - hist[0]) / ((k + 1) * (t - hist[1])), k + 1)) < tau) tau = r;
  hist[0] = c[k], hist[1] = t;
  for (int j = k - 1; j >= 1 && !history; j--)
    if (c[j] != 0.0) {
      if ((r = cdevs__time_to(dq, c[j], j)) < tau) tau = r;
      break;
    }
  return tau >= 0.0 ? tau : 0.0;
}


#endif
