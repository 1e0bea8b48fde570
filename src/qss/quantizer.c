/* SPDX-License-Identifier: MIT */
/*
 * One quantized variable under QSS1/2/3 and LIQSS1/2/3, written once over a plain
 * struct so that an integrator block and a compiled ODE system share it.
 *
 * QSSm: at an internal event q takes x's first m Taylor coefficients and the next
 * event is when |x - q| = ΔQ; with q following x that is (ΔQ/|x_m|)^(1/m) later.
 * After a derivative change the next event is the smallest positive root of
 * x(τ) - q(τ) = ±ΔQ.
 *
 * LIQSSm: around the variable's own influence, ẋ ≈ a·q + u(τ). At an internal event q
 * is placed so that x moves towards it: q0 = x ± ΔQ with q's higher coefficients
 * consistent with ẋ = a·q + u, the sign chosen so that the m-th coefficient of x
 * points at q; when that coefficient changes sign inside [x - ΔQ, x + ΔQ], q0 is the
 * point where it vanishes (the stiff equilibrium, so x stops generating events).
 * The next event is when x reaches q, or drifts 2·ΔQ away from it.
 */
#include <math.h>
#include <string.h>

#include "cdevs/taylor.h"
#include "qss_impl.h"

/* |x - q| within this fraction of the bound counts as on it: round-off in the
 * polynomial shift must not turn an event into a step of 1e-18. */
#define ON_BOUND (1.0 - 1e-9)

/* t + τ for a step τ > 0 that may be below the resolution of t (late in a long
 * run): the next representable time, so that time always moves on. */
static double later(double t, double tau) {
  double tn = t + tau;
  return tau > 0.0 && tn == t ? nextafter(t, INFINITY) : tn;
}

/* The hot paths below are written over an order that is a constant in each of
 * their three instances (ORDERED): the loops over coefficients unroll and the
 * shifts take their straight-line form. A run of advection (LIQSS2) spent a fifth
 * of its instructions in loop control and calls the constant removes. */
#define ORDERED static inline __attribute__((always_inline))

/* The next time from tau, capped at the derivative refresh (see xr). */
ORDERED double with_refresh(cdevs__qvar *v, double t, double tau, const int order) {
  v->refresh = 0;
  /* The root is only taken when the refresh may come first: |xr|·s^k <= dq, with s
   * how long after t_der the step would end, says it does not, without the root (a
   * nonlinear derivative's refresh seldom wins; the root was 3% of the instructions
   * of a LIQSS2 advection run). */
  if (v->xr == 0.0) return later(t, tau);
  double s = tau + (t - v->t_der), sk = s;
  for (int k = 0; k < order; k++) sk *= s;
  if (!(s > 0.0 && fabs(v->xr) * sk <= v->dq)) {
    double tr = v->t_der + cdevs__time_to(v->dq, v->xr, order + 1) - t;
    if (tr < tau) {
      tau = tr > 0.0 ? tr : 0.0;
      v->refresh = 1;
    }
  }
  return later(t, tau);
}

static double quantum(const cdevs__qvar *v) {
  double d = v->dqrel * fabs(v->x[0]);
  return d > v->dqmin ? d : v->dqmin;
}

void cdevs__qvar_init(cdevs__qvar *v, const cdevs__qss_method *m, double x0, double dqrel,
                      double dqmin, double t0) {
  (void)m;
  memset(v, 0, sizeof *v);
  v->x[0] = v->q[0] = x0;
  v->tx = v->tq = v->tn = t0;
  v->dqrel = dqrel;
  v->dqmin = dqmin;
  v->dq = quantum(v);
  v->t_end = INFINITY;
}

ORDERED void advance(cdevs__qvar *v, double t, const int order) {
  if (t != v->tx) {
    cdevs__series_shift(v->x, order, t - v->tx);
    v->tx = t;
  }
}

void cdevs__qvar_advance(cdevs__qvar *v, const cdevs__qss_method *m, double t) {
  advance(v, t, m->order);
}

double cdevs__qvar_x(const cdevs__qvar *v, const cdevs__qss_method *m, double t) {
  return cdevs_taylor_eval(v->x, m->order, t - v->tx);
}

/* The m-th coefficient x would have if q0 were chosen, under ẋ = a·q + u; q's
 * higher coefficients follow the same model and are written to qk. */
static double li_xm(double a, const double *u, int m, double q0, double *qk) {
  qk[0] = q0;
  for (int k = 1; k < m; k++) qk[k] = (a * qk[k - 1] + u[k - 1]) / k;
  return (a * qk[m - 1] + u[m - 1]) / m;
}

static void li_requantize(cdevs__qvar *v, const cdevs__qss_method *m, double t) {
  int order = m->order;
  double qold[4], u[4] = {0};
  cdevs__qvar_q(v, m, t, qold);
  /* u(τ) = ẋ(τ) - a·q_old(τ): everything but the variable's own influence. */
  for (int k = 0; k < order; k++) u[k] = (k + 1) * v->x[k + 1] - v->a * qold[k];
  v->q_before = qold[0];
  v->dx_before = v->x[1];
  v->a_pending = !v->a_exact; /* the next derivative measures the secant */

  double x0 = v->x[0], dq = v->dq;
  double qu[4] = {0}, ql[4] = {0}, q[4] = {0};
  double xu = li_xm(v->a, u, order, x0 + dq, qu);
  double xl = li_xm(v->a, u, order, x0 - dq, ql);
  /* x_m is affine in q0: its root q̂ is where x stops moving at order m. Taking q̂
   * whenever it lies within 1.5·ΔQ of x (|x - q| may reach 2·ΔQ) saves the extra
   * step a fast state needs after drifting off the slow manifold. */
  double qhat = xu == xl ? NAN : (x0 - dq) + 2.0 * dq * (-xl) / (xu - xl);
  if (xu == 0.0 && xl == 0.0) qhat = x0;
  if (!isnan(qhat) && fabs(qhat - x0) <= 1.5 * dq) {
    (void)li_xm(v->a, u, order, qhat, q);
  } else if (xu > 0.0) {
    memcpy(q, qu, sizeof q); /* x rises towards q */
  } else {
    memcpy(q, ql, sizeof q); /* x falls towards q */
  }
  memcpy(v->q, q, sizeof q);
  v->tq = t;
}

/* LIQSS2's implicit step over a horizon h = 1/s (s = 0: an infinite horizon). q is
 * the line that x, driven by ẋ = a·q + u0 + u1·τ, meets at τ = h with the same slope:
 * q1 = ẋ(h), x(h) = q(h). Eliminating q1 leaves q0 linear; written in s the h³ terms
 * cancel exactly, so no horizon loses precision, and s = 0 gives the steady state of
 * the linearised equation, -(a·u0 + u1)/a². */
static double li2_q0(double a, double u0, double u1, double x0, double s) {
  double d = s * (s - a);
  return (x0 * d - 0.5 * (a * u0 + u1)) / (d + 0.5 * a * a);
}
/* Its slope, once the horizon is settled (the search needs only q0). */
static double li2_q1(double a, double u0, double u1, double s, double q0) {
  return (s * (a * q0 + u0) + u1) / (s - a);
}

/* LIQSS2 (Migoni, Bortolotto, Kofman and Cellier, 2013, with the horizon refinement
 * of QSS Solver's implementation). In a stiff direction (a < 0) q is the implicit
 * step to the end of the run when that lands within 2·ΔQ of x (near equilibrium it
 * does, and x then barely moves); otherwise the horizon shrinks from the QSS2 step
 * until it does. In a non-stiff direction q starts ΔQ behind x with the slope x will
 * have half a parabola later, so x touches q and leaves the 2·ΔQ band on the other
 * side: about 2.4 QSS2 steps per requantization. */
static void li2_requantize(cdevs__qvar *v, double t) {
  double qold[4];
  cdevs__qvar_q_deg(v, 1, t, qold); /* q is a line */
  double a = v->a, x0 = v->x[0], dq = v->dq;
  double u0 = v->x[1] - a * qold[0], u1 = 2.0 * v->x[2] - a * qold[1];
  v->q_before = qold[0];
  v->dx_before = v->x[1];
  v->a_pending = !v->a_exact; /* the next derivative measures the secant */
  double q0, q1;
  if (a < 0.0) {
    double h = v->t_end - t, s = h > 0.0 ? 1.0 / h : 0.0;
    q0 = li2_q0(a, u0, u1, x0, s);
    if (!(fabs(q0 - x0) <= 2.0 * dq)) {
      double ddx = 2.0 * v->x[2];
      if (ddx == 0.0) ddx = a * (a * x0 + u0) + u1;
      h = ddx != 0.0 ? sqrt(2.0 * dq / fabs(ddx)) : -1.0 / a;
      q0 = li2_q0(a, u0, u1, x0, s = 1.0 / h);
      for (int it = 0; it < 64 && !(fabs(q0 - x0) <= 2.0 * dq); it++) {
        h *= sqrt(dq / fabs(q0 - x0));
        q0 = li2_q0(a, u0, u1, x0, s = 1.0 / h);
      }
    }
    q1 = li2_q1(a, u0, u1, s, q0);
  } else {
    /* Without curvature x follows the line q = x0 + u0·τ exactly: no offset, which
     * would only show the rest of the model a value x does not have. */
    q0 = u1 > 0.0 ? x0 - dq : u1 < 0.0 ? x0 + dq : x0;
    q1 = u1 != 0.0 ? u0 + sqrt(2.0 * dq / fabs(u1)) * u1 : u0;
  }
  if (!(fabs(q0 - x0) <= 2.0 * dq) || !isfinite(q1)) q0 = x0, q1 = v->x[1];
  v->q[0] = q0, v->q[1] = q1, v->q[2] = v->q[3] = 0.0;
  v->tq = t;
}

int cdevs__qvar_place_q(cdevs__qvar *v, const cdevs__qss_method *m, double t) {
  if (m->order == 2) /* LIQSS2's requantization below then has its order a constant */
    advance(v, t, 2);
  else
    cdevs__qvar_advance(v, m, t);
  v->dq = quantum(v);
  if (m->linear_implicit && !v->restart) {
    if (m->order == 2)
      li2_requantize(v, t);
    else
      li_requantize(v, m, t);
    return 1;
  }
  /* QSS, and LIQSS right after a reset: q = x. A reset expresses a physical
   * constraint (a diode's current held at 0) that a q offset by ±ΔQ would violate;
   * the estimate of ∂ẋ/∂q is kept, but the jump must not be measured as one. */
  v->restart = 0;
  v->a_pending = 0;
  for (int k = 0; k < 4; k++) v->q[k] = k < m->order ? v->x[k] : 0.0;
  v->tq = t;
  return 0;
}

void cdevs__qvar_requantize(cdevs__qvar *v, const cdevs__qss_method *m, double t) {
  if (cdevs__qvar_place_q(v, m, t))
    cdevs__qvar_next_time(v, m, t); /* LIQSS: q was placed apart from x */
  else
    v->tn = with_refresh(v, t, cdevs__time_to(v->dq, v->x[m->order], m->order), m->order); /* q = x */
}

ORDERED void next_time(cdevs__qvar *v, const cdevs__qss_method *m, double t, const int order) {
  double q[4], d[4];
  cdevs__qvar_q_deg(v, order - 1, t, q);
  for (int k = 0; k <= order; k++) d[k] = v->x[k] - (k < order ? q[k] : 0.0);
  double bound = m->linear_implicit ? 2.0 * v->dq : v->dq;
  /* After a reset, the requantization is due now whatever the derivative does in
   * between (x may have been set within the band of the old q). */
  if (v->restart || fabs(d[0]) >= bound * ON_BOUND) {
    v->tn = t;
    v->refresh = 0; /* a requantization, even where a refresh was due */
    return;
  }
  double tau = cdevs__poly_band_exit(d, order, bound), r;
  if (m->linear_implicit && order == 2) {
    /* LIQSS2 right after its own requantization: once x has turned towards q's
     * slope and come back to its starting distance, q is stale (twice the time at
     * which x's slope equals q's), unless the excursion on the way, d1²/(4|x2|),
     * is below a millionth of the quantum: once x is on a slow manifold both are
     * round-off, and their ratio ended steps that moved q by 1e-14 and spoiled the
     * secant a (the stiff block diagram: 98 steps, 66 now; stiff.mo 65). Before q
     * crosses zero, a new q (and a smaller relative quantum) is taken ahead of the
     * crossing. */
    if (t == v->tq && v->a < 0.0 && v->x[2] != 0.0 && d[1] * d[1] >= 1e-6 * v->dq * fabs(v->x[2]) &&
        (r = fabs(-d[1] / v->x[2])) < tau && r > 0.0)
      tau = r;
    if (q[0] * q[1] < 0.0 && fabs(q[0]) > 10.0 * v->dq) {
      r = -q[0] / q[1] - 2.0 * fabs(v->dq / q[1]);
      if (r > 0.0 && r < tau) tau = r;
    }
  } else if (m->linear_implicit && d[0] != 0.0) {
    /* x reaching q is an event, as in the published LIQSS and in QSS Solver: q
     * was placed where x heads, and past it the derivative it was chosen for is
     * stale. (Taking it only right after a requantization saved a third of the
     * steps on stiff.mo, but a q made stale by a mode change then lasted until x
     * left its band: Cuk's converter under LIQSS1 ended 5.1 quanta off.) */
    if ((r = cdevs__poly_min_pos_root(d, order)) < tau) tau = r;
  }
  v->tn = with_refresh(v, t, tau, order);
}

void cdevs__qvar_next_time(cdevs__qvar *v, const cdevs__qss_method *m, double t) {
  switch (m->order) {
  case 1: next_time(v, m, t, 1); break;
  case 2: next_time(v, m, t, 2); break;
  default: next_time(v, m, t, 3); break;
  }
}

ORDERED void set_derivative(cdevs__qvar *v, const cdevs__qss_method *m, double t, const double *d, int dorder,
                            const int order) {
  advance(v, t, order);
  for (int k = 0; k < order; k++) v->x[k + 1] = k <= dorder ? cdevs__div_small(d[k], k + 1) : 0.0;
  if (m->linear_implicit && v->a_pending) {
    v->a_pending = 0;
    double dqv = v->q[0] - v->q_before;
    if (t == v->tq && dqv != 0.0) {
      double a = (v->x[1] - v->dx_before) / dqv;
      v->a = a < 0.0 && isfinite(a) ? a : 0.0;
    }
  }
  next_time(v, m, t, order);
}

void cdevs__qvar_set_derivative(cdevs__qvar *v, const cdevs__qss_method *m, double t, const double *d, int dorder) {
  switch (m->order) {
  case 1: set_derivative(v, m, t, d, dorder, 1); break;
  case 2: set_derivative(v, m, t, d, dorder, 2); break;
  default: set_derivative(v, m, t, d, dorder, 3); break;
  }
}

void cdevs__qvar_reset(cdevs__qvar *v, const cdevs__qss_method *m, double t, double x0) {
  cdevs__qvar_advance(v, m, t);
  v->x[0] = x0;
  /* What the rest of the instant reads is the new value at once, not the q from
   * before the jump (a model that reinits the state a when reads, then switches a
   * mode, found its when crossed again); the requantization at t gives q its slope. */
  v->q[0] = x0, v->q[1] = v->q[2] = v->q[3] = 0.0, v->tq = t;
  v->a_pending = 0;
  v->restart = 1; /* until the requantization at t (see next_time) */
  v->refresh = 0; /* its event is a requantization, even if a refresh was due */
  v->tn = t;
}

void cdevs__qvar_next_q(const cdevs__qvar *v, const cdevs__qss_method *m, double t, double *out) {
  if (m->linear_implicit && !v->restart) {
    cdevs__qvar w = *v; /* LIQSS places q by a computation: run it on a copy */
    (void)cdevs__qvar_place_q(&w, m, t);
    memcpy(out, w.q, sizeof w.q);
    return;
  }
  /* QSS (and a restart): q is x's first coefficients at t, no quantum or step needed. */
  double x[4];
  memcpy(x, v->x, sizeof x);
  cdevs_taylor_shift(x, m->order, t - v->tx);
  for (int k = 0; k < 4; k++) out[k] = k < m->order ? x[k] : 0.0;
}
