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
  v->t_touch = -INFINITY;
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

/* x = M⁻¹·b for a 2×2 M; 0 when M is singular or the result is not finite. */
static int solve2(const double M[2][2], const double *b, double *x) {
  double det = M[0][0] * M[1][1] - M[0][1] * M[1][0];
  if (det == 0.0 || !isfinite(det)) return 0;
  x[0] = (M[1][1] * b[0] - M[0][1] * b[1]) / det;
  x[1] = (M[0][0] * b[1] - M[1][0] * b[0]) / det;
  return isfinite(x[0]) && isfinite(x[1]);
}

/* The pair's implicit step over the horizon 1/s (s = 0: infinite), as li2_q0 for one
 * state with the 2×2 block A in place of a; order 1: q with (sI - A)·q = s·x0 + u0,
 * backward Euler (s = 0: the equilibrium A·q + u0 = 0). Order 2, with M = sI - A:
 * q1 = M⁻¹(s(A·q0 + u0) + u1) and x(h) = q(h) give (2s·M + A²)·q0 = 2s·M·x0 - (u1 +
 * A·u0), which is li2_q0's equation multiplied out (A and M commute). */
static int pair_q(const double A[2][2], const double *x0, const double *u0, const double *u1, int order, double s,
                  double q[2][2]) {
  double M[2][2] = {{s - A[0][0], -A[0][1]}, {-A[1][0], s - A[1][1]}}, b[2], q0[2], q1[2] = {0.0, 0.0};
  if (order == 1) {
    b[0] = s * x0[0] + u0[0], b[1] = s * x0[1] + u0[1];
    if (!solve2((const double(*)[2])M, b, q0)) return 0;
  } else {
    double P[2][2], Mx[2] = {M[0][0] * x0[0] + M[0][1] * x0[1], M[1][0] * x0[0] + M[1][1] * x0[1]};
    for (int r = 0; r < 2; r++)
      for (int c = 0; c < 2; c++) P[r][c] = 2.0 * s * M[r][c] + A[r][0] * A[0][c] + A[r][1] * A[1][c];
    for (int r = 0; r < 2; r++) b[r] = 2.0 * s * Mx[r] - (u1[r] + A[r][0] * u0[0] + A[r][1] * u0[1]);
    if (!solve2((const double(*)[2])P, b, q0)) return 0;
    for (int r = 0; r < 2; r++) b[r] = s * (A[r][0] * q0[0] + A[r][1] * q0[1] + u0[r]) + u1[r];
    if (!solve2((const double(*)[2])M, b, q1)) return 0;
  }
  q[0][0] = q0[0], q[0][1] = q1[0], q[1][0] = q0[1], q[1][1] = q1[1];
  return 1;
}

/* A's modes when its eigenvalues are real and distinct: lam, and V (eigenvectors as
 * columns) with its inverse Vi. 0 otherwise (a rotation, or a repeated mode). */
static int modes2(const double A[2][2], double lam[2], double V[2][2], double Vi[2][2]) {
  double a = A[0][0], b = A[0][1], c = A[1][0], d = A[1][1];
  double disc = 0.25 * (a - d) * (a - d) + b * c; /* no cancellation between tr² and det */
  if (!(disc > 0.0) || !isfinite(disc)) return 0;
  double tr = a + d, big = 0.5 * tr + copysign(sqrt(disc), tr);
  if (big == 0.0) return 0;
  lam[0] = big, lam[1] = (a * d - b * c) / big;
  for (int k = 0; k < 2; k++) {
    double e1[2] = {b, lam[k] - a}, e2[2] = {lam[k] - d, c};
    const double *e = fmax(fabs(e1[0]), fabs(e1[1])) >= fmax(fabs(e2[0]), fabs(e2[1])) ? e1 : e2;
    V[0][k] = e[0], V[1][k] = e[1];
  }
  double det = V[0][0] * V[1][1] - V[0][1] * V[1][0];
  if (det == 0.0 || !isfinite(det)) return 0;
  Vi[0][0] = V[1][1] / det, Vi[0][1] = -V[0][1] / det, Vi[1][0] = -V[1][0] / det, Vi[1][1] = V[0][0] / det;
  return 1;
}

/* The pair's order-2 step mode by mode (real modes): each mode is a scalar LIQSS2
 * problem, solved as li2_q0/li2_q1 (order 1 needs no modes: backward Euler mode by
 * mode is backward Euler, pair_q's). A mode stiff for
 * the horizon 1/s (|λ|/s > 10) takes the longest horizon, 1/sT: it is at its steady
 * state long before 1/s, and forcing x onto it within 1/s (x(h) = q(h)) would place q
 * off it by x's displacement over 1/s, which a coupling of 10⁶ turns into a curvature
 * that ends the step at once (TYSON's C2 and CP, paired at every other step). */
static int pair_q_modal(const double lam[2], const double V[2][2], const double Vi[2][2], const double *x0,
                        const double *u0, const double *u1, double s, double q[2][2]) {
  double p0[2], p1[2] = {0.0, 0.0};
  for (int k = 0; k < 2; k++) {
    double y = Vi[k][0] * x0[0] + Vi[k][1] * x0[1], w0 = Vi[k][0] * u0[0] + Vi[k][1] * u0[1];
    double w1 = Vi[k][0] * u1[0] + Vi[k][1] * u1[1], l = lam[k];
    if (l < 0.0 && -l > 10.0 * s) {
      p1[k] = -w1 / l;
      p0[k] = (s * y + w0 - p1[k]) / (s - l);
    } else {
      p0[k] = li2_q0(l, w0, w1, y, s);
      p1[k] = li2_q1(l, w0, w1, s, p0[k]);
    }
  }
  for (int r = 0; r < 2; r++) {
    q[r][0] = V[r][0] * p0[0] + V[r][1] * p0[1];
    q[r][1] = V[r][0] * p1[0] + V[r][1] * p1[1];
  }
  return isfinite(q[0][0]) && isfinite(q[1][0]) && isfinite(q[0][1]) && isfinite(q[1][1]);
}

int cdevs__qvar_pair_place(cdevs__qvar *vi, cdevs__qvar *vj, const cdevs__qss_method *m, double t,
                           const double A[2][2], const double *u0, const double *u1) {
  const int order = m->order;
  advance(vj, t, order);
  double dqj = quantum(vj), x0[2] = {vi->x[0], vj->x[0]}, dq[2] = {vi->dq, dqj}, q[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
  double lam[2], V[2][2], Vi[2][2], qbest[2][2], sbest = 0.0;
  int modal = order > 1 && modes2(A, lam, V, Vi);
  /* The longest horizon first (the rest of the run: near the slow manifold the pair
   * then barely moves); otherwise from the step the pair's QSS would take, shrunk
   * until both q lie within their bands (as h → 0, q → x). */
  double h = vi->t_end - t, sT = h > 0.0 && isfinite(h) ? 1.0 / h : 0.0, s = sT;
  int ok = 0;
  h = INFINITY;
  for (int k = 0; k < 2; k++) {
    const cdevs__qvar *v = k ? vj : vi;
    double c = v->x[order] != 0.0 ? v->x[order] : v->x[1];
    double hk = cdevs__time_to(dq[k], c, v->x[order] != 0.0 ? order : 1);
    if (hk < h) h = hk;
  }
  /* The largest horizon in the bands: the first that fits, then, between it and the
   * last that did not, by bisection of log h (the QSS step of a state on the stiff
   * manifold is the fast mode's, far shorter than the pair's). */
  double h_bad = sT > 0.0 ? 1.0 / sT : INFINITY, h_ok = 0.0;
  for (int it = 0, fit; it < 48; it++) {
    fit = modal ? pair_q_modal(lam, (const double(*)[2])V, (const double(*)[2])Vi, x0, u0, u1, s, q)
                : pair_q(A, x0, u0, u1, order, s, q);
    double worst = 0.0;
    for (int k = 0; fit && k < 2; k++) {
      double r = fabs(q[k][0] - x0[k]) / (2.0 * dq[k] * ON_BOUND);
      if (!(r <= worst)) worst = r; /* NaN too */
    }
    fit = fit && worst < 1.0;
    double hs = s > 0.0 ? 1.0 / s : INFINITY;
    if (fit) {
      memcpy(qbest, q, sizeof qbest);
      sbest = s, ok = 1, h_ok = hs;
      if (it == 0 || !(h_bad < INFINITY) || h_bad < 1.25 * h_ok) break;
      h = sqrt(h_ok * h_bad);
    } else if (ok) {
      h_bad = hs;
      if (h_bad < 1.25 * h_ok) break;
      h = sqrt(h_ok * h_bad);
    } else {
      if (it > 0) {
        h_bad = hs;
        h *= order == 1 ? 0.9 / worst : sqrt(0.9 / worst);
      }
    }
    if (!(h > 0.0) || !isfinite(h)) break;
    s = 1.0 / h;
  }
  if (!ok) return 0;
  memcpy(q, qbest, sizeof q);
  s = sbest;
  vj->dq = dqj;
  for (int k = 0; k < 2; k++) {
    cdevs__qvar *v = k ? vj : vi;
    v->q[0] = q[k][0], v->q[1] = order > 1 ? q[k][1] : 0.0, v->q[2] = v->q[3] = 0.0;
    v->tq = t;
    v->t_touch = s > 0.0 ? t + 1.0 / s : -INFINITY;
    /* Both q moved at once: a secant would mix the two columns; the block's diagonal
     * is the exact a (kept <= 0, as everywhere). */
    v->a = A[k][k] < 0.0 ? A[k][k] : 0.0;
    v->a_pending = 0;
  }
  return 1;
}

int cdevs__qvar_place_q(cdevs__qvar *v, const cdevs__qss_method *m, double t) {
  if (m->order == 2) /* LIQSS2's requantization below then has its order a constant */
    advance(v, t, 2);
  else
    cdevs__qvar_advance(v, m, t);
  v->dq = quantum(v);
  v->t_touch = -INFINITY;
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
  if (v->t_touch > t && t + tau > v->t_touch) tau = v->t_touch - t;
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
