/* SPDX-License-Identifier: MIT */
/* Reference solutions: the flyback converter by CVODE, the stiff system in closed form. */
#include "reference.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#ifdef CDEVS_NO_CVODE
/* Built without SUNDIALS (not found at configure time): the stiff system's closed form
 * stays, the flyback reference says why it is missing. */
int ref_flyback(const cdevs_flyback_params *p, double rtol, const double *tg, size_t n,
                double *il, double *vc, long *steps, char *err, size_t errsize) {
  (void)p, (void)rtol, (void)tg, (void)n, (void)il, (void)vc, (void)steps;
  snprintf(err, errsize, "built without SUNDIALS CVODE (Debian libsundials-dev): no flyback reference");
  return -1;
}
int ref_ode(ref_rhs f, void *ud, size_t n, const double *x0, double t0, double rtol, double atol, const double *tg,
            size_t nt, double *out, char *err, size_t errsize) {
  (void)f, (void)ud, (void)n, (void)x0, (void)t0, (void)rtol, (void)atol, (void)tg, (void)nt, (void)out;
  snprintf(err, errsize, "built without SUNDIALS CVODE (Debian libsundials-dev): no ODE reference");
  return -1;
}
int ref_switched(const ref_switched_sys *sys, int c0, const double *x0, double t_end, double rtol, double atol,
                 double *ev, double *ev_x, int max_ev, int *nev, int *c_end, double *x_end, char *err,
                 size_t errsize) {
  (void)sys, (void)c0, (void)x0, (void)t_end, (void)rtol, (void)atol, (void)ev, (void)ev_x, (void)max_ev, (void)nev;
  (void)c_end;
  (void)x_end;
  snprintf(err, errsize, "built without SUNDIALS CVODE (Debian libsundials-dev): no switching reference");
  return -1;
}
#else
#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_dense.h>

enum { MODE_ON = 1, MODE_DIODE, MODE_OFF };

/* Everything a CVODE run holds, any of it NULL. */
static void cv_free(SUNLinearSolver LS, SUNMatrix A, N_Vector y, void *mem, SUNContext ctx) {
  SUNLinSolFree(LS);
  SUNMatDestroy(A);
  N_VDestroy(y);
  CVodeFree(&mem);
  SUNContext_Free(&ctx);
}

typedef struct fb {
  const cdevs_flyback_params *p;
  int mode;
} fb;

/* The causalised equations of examples/flyback/README.md, one set per mode. */
static int rhs(sunrealtype t, N_Vector y, N_Vector yd, void *ud) {
  (void)t;
  const fb *f = ud;
  const cdevs_flyback_params *p = f->p;
  double i = NV_Ith_S(y, 0), v = NV_Ith_S(y, 1);
  double di = 0.0, dv = -v / (p->r * p->c);
  if (f->mode == MODE_ON) di = p->vin / p->lm;
  if (f->mode == MODE_DIODE) {
    di = -v / (p->n * p->lm);
    dv += i / (p->n * p->c);
  }
  NV_Ith_S(yd, 0) = di;
  NV_Ith_S(yd, 1) = dv;
  return 0;
}

static int root_il(sunrealtype t, N_Vector y, sunrealtype *g, void *ud) {
  (void)t, (void)ud;
  g[0] = NV_Ith_S(y, 0);
  return 0;
}

int ref_flyback(const cdevs_flyback_params *p, double rtol, const double *tg, size_t n,
                double *il, double *vc, long *steps, char *err, size_t errsize) {
  SUNContext ctx = NULL;
  void *mem = NULL;
  N_Vector y = NULL;
  SUNMatrix A = NULL;
  SUNLinearSolver LS = NULL;
  int rc = -1;
  fb f = {p, MODE_ON};
  *steps = 0;
  if (SUNContext_Create(NULL, &ctx)) {
    snprintf(err, errsize, "CVODE: cannot create a context");
    return -1;
  }
  y = N_VNew_Serial(2, ctx);
  mem = CVodeCreate(CV_BDF, ctx);
  A = SUNDenseMatrix(2, 2, ctx);
  if (!y || !mem || !A) goto out;
  LS = SUNLinSol_Dense(y, A, ctx);
  NV_Ith_S(y, 0) = 0.0;
  NV_Ith_S(y, 1) = 0.0;
  /* Absolute tolerances scaled to the signals (about 1 A and 10 V). */
  if (!LS || CVodeInit(mem, rhs, 0.0, y) || CVodeSStolerances(mem, rtol, rtol * 1e-2) ||
      CVodeSetUserData(mem, &f) || CVodeSetLinearSolver(mem, LS, A) ||
      CVodeRootInit(mem, 1, root_il) || CVodeSetMaxNumSteps(mem, 1000000))
    goto out;
  double T = 1.0 / p->freq, t = 0.0, t_end = tg[n - 1];
  size_t k = 0;
  long total = 0;
  for (long per = 0; t < t_end && k < n; per++) {
    double edges[2] = {(double)per * T + p->duty * T, (double)(per + 1) * T};
    for (int e = 0; e < 2 && k < n; e++) {
      f.mode = e == 0 ? MODE_ON : (NV_Ith_S(y, 0) > 0.0 ? MODE_DIODE : MODE_OFF);
      if (f.mode == MODE_OFF) NV_Ith_S(y, 0) = 0.0;
      CVodeReInit(mem, t, y);
      CVodeSetStopTime(mem, edges[e]);
      /* The root of iL only matters while the diode conducts. */
      CVodeRootInit(mem, f.mode == MODE_DIODE ? 1 : 0, root_il);
      /* CVODE refuses an output time within round-off of the start: such grid points
       * and segments take the current state (the error is far below rtol). */
      const double eps = 1e-12 * T;
      while (t < edges[e] - eps) {
        while (k < n && tg[k] <= t + eps) { /* grid points at the current time */
          il[k] = NV_Ith_S(y, 0);
          vc[k] = NV_Ith_S(y, 1);
          k++;
        }
        double tout = k < n && tg[k] < edges[e] - eps ? tg[k] : edges[e];
        double tret;
        int flag = CVode(mem, tout, y, &tret, CV_NORMAL);
        if (flag < 0) {
          snprintf(err, errsize, "CVODE failed at t=%g (flag %d)", tret, flag);
          goto out;
        }
        long ns = 0;
        CVodeGetNumSteps(mem, &ns);
        t = tret;
        if (flag == CV_ROOT_RETURN) { /* the diode turns off: iL = 0 until the next edge */
          total += ns;
          f.mode = MODE_OFF;
          NV_Ith_S(y, 0) = 0.0;
          CVodeReInit(mem, t, y);
          CVodeSetStopTime(mem, edges[e]);
          CVodeRootInit(mem, 0, root_il);
          continue;
        }
        while (k < n && tg[k] <= t) {
          il[k] = NV_Ith_S(y, 0);
          vc[k] = NV_Ith_S(y, 1);
          k++;
        }
        if (flag == CV_TSTOP_RETURN || t >= edges[e] - eps) {
          total += ns;
          break;
        }
      }
    }
  }
  *steps = total;
  rc = 0;
out:
  if (rc && !err[0]) snprintf(err, errsize, "CVODE: setup failed");
  cv_free(LS, A, y, mem, ctx);
  return rc;
}

typedef struct ode_ud {
  ref_rhs f;
  void *ud;
  size_t n;
} ode_ud;

static int ode_rhs(sunrealtype t, N_Vector y, N_Vector yd, void *ud) {
  const ode_ud *o = ud;
  o->f(t, N_VGetArrayPointer(y), N_VGetArrayPointer(yd), o->ud);
  for (size_t i = 0; i < o->n; i++)
    if (!isfinite(NV_Ith_S(yd, i))) return 1; /* recoverable: CVODE tries a smaller step */
  return 0;
}

int ref_ode(ref_rhs f, void *ud, size_t n, const double *x0, double t0, double rtol, double atol, const double *tg,
            size_t nt, double *out, char *err, size_t errsize) {
  SUNContext ctx = NULL;
  void *mem = NULL;
  N_Vector y = NULL;
  SUNMatrix A = NULL;
  SUNLinearSolver LS = NULL;
  ode_ud o = {f, ud, n};
  int rc = -1;
  err[0] = 0;
  if (SUNContext_Create(NULL, &ctx)) {
    snprintf(err, errsize, "CVODE: cannot create a context");
    return -1;
  }
  y = N_VNew_Serial((sunindextype)n, ctx);
  mem = CVodeCreate(CV_BDF, ctx);
  A = SUNDenseMatrix((sunindextype)n, (sunindextype)n, ctx);
  if (!y || !mem || !A) goto out;
  LS = SUNLinSol_Dense(y, A, ctx);
  for (size_t i = 0; i < n; i++) NV_Ith_S(y, i) = x0[i];
  if (!LS || CVodeInit(mem, ode_rhs, t0, y) || CVodeSStolerances(mem, rtol, atol) || CVodeSetUserData(mem, &o) ||
      CVodeSetLinearSolver(mem, LS, A) || CVodeSetMaxNumSteps(mem, 10000000))
    goto out;
  double t = t0;
  for (size_t k = 0; k < nt; k++) {
    if (tg[k] > t) {
      int flag = CVode(mem, tg[k], y, &t, CV_NORMAL);
      if (flag < 0) {
        snprintf(err, errsize, "CVODE failed at t=%g (flag %d)", t, flag);
        goto out;
      }
    }
    for (size_t i = 0; i < n; i++) out[k * n + i] = NV_Ith_S(y, i);
  }
  rc = 0;
out:
  if (rc && !err[0]) snprintf(err, errsize, "CVODE: setup failed");
  cv_free(LS, A, y, mem, ctx);
  return rc;
}

/* ---- A system switching between classes ---------------------------------------------- */

typedef struct sw_ud {
  const ref_switched_sys *sys;
  int c;
} sw_ud;

static int sw_rhs(sunrealtype t, N_Vector y, N_Vector yd, void *ud) {
  (void)t;
  const sw_ud *u = ud;
  u->sys->rhs(u->c, NV_DATA_S(y), NV_DATA_S(yd), u->sys->ud);
  return 0;
}

static int sw_root(sunrealtype t, N_Vector y, sunrealtype *g, void *ud) {
  (void)t;
  const sw_ud *u = ud;
  g[0] = u->sys->root(u->c, NV_DATA_S(y), u->sys->ud);
  return 0;
}

int ref_switched(const ref_switched_sys *sys, int c0, const double *x0, double t_end, double rtol, double atol,
                 double *ev, double *ev_x, int max_ev, int *nev, int *c_end, double *x_end, char *err,
                 size_t errsize) {
  SUNContext ctx = NULL;
  err[0] = 0;
  *nev = 0;
  if (SUNContext_Create(NULL, &ctx)) {
    snprintf(err, errsize, "CVODE: cannot create a context");
    return -1;
  }
  sw_ud u = {sys, c0};
  double x[REF_MAX_STATES], t = 0.0;
  memcpy(x, x0, (size_t)sys->n[c0] * sizeof *x);
  int rc = -1;
  while (t < t_end) { /* a CVODE run per stretch in one class, in its own state space */
    int n = sys->n[u.c], dir = sys->dir[u.c];
    N_Vector y = N_VNew_Serial(n, ctx);
    void *mem = CVodeCreate(sys->bdf ? CV_BDF : CV_ADAMS, ctx);
    SUNMatrix A = SUNDenseMatrix(n, n, ctx);
    SUNLinearSolver LS = y && A ? SUNLinSol_Dense(y, A, ctx) : NULL;
    int ok = y && mem && A && LS;
    if (ok) {
      memcpy(NV_DATA_S(y), x, (size_t)n * sizeof *x);
      ok = !CVodeInit(mem, sw_rhs, t, y) && !CVodeSStolerances(mem, rtol, atol) && !CVodeSetUserData(mem, &u) &&
           !CVodeSetLinearSolver(mem, LS, A) && !CVodeRootInit(mem, 1, sw_root) &&
           !CVodeSetMaxNumSteps(mem, 10000000) && !CVodeSetStopTime(mem, t_end) && !CVodeSetRootDirection(mem, &dir);
    }
    int flag = ok ? CVode(mem, t_end, y, &t, CV_NORMAL) : -1;
    if (flag >= 0) memcpy(x, NV_DATA_S(y), (size_t)n * sizeof *x);
    cv_free(LS, A, y, mem, NULL);
    if (flag < 0) {
      snprintf(err, errsize, "CVODE failed at t=%g (flag %d)", t, flag);
      goto out;
    }
    if (flag != CV_ROOT_RETURN) break;
    if (*nev == max_ev) {
      snprintf(err, errsize, "more than %d switches", max_ev);
      goto out;
    }
    if (ev_x) memcpy(ev_x + (size_t)*nev * REF_MAX_STATES, x, (size_t)n * sizeof *x);
    ev[(*nev)++] = t;
    double nx[REF_MAX_STATES];
    u.c = sys->map(u.c, x, nx, sys->ud);
    memcpy(x, nx, (size_t)sys->n[u.c] * sizeof *x);
  }
  *c_end = u.c;
  memcpy(x_end, x, (size_t)sys->n[u.c] * sizeof *x);
  rc = 0;
out:
  SUNContext_Free(&ctx);
  return rc;
}
#endif

void ref_stiff(double t, double *x1, double *x2) {
  /* x' = A(x - xe), A = [[0, 0.01], [-100, -100]], xe = (20.2, 0): eigenvalues
   * λ = -50 ± sqrt(2499), eigenvectors (1, 100·λ). */
  double s = sqrt(2499.0), l1 = -50.0 + s, l2 = -50.0 - s;
  double d1 = 0.0 - 20.2, d2 = 20.0; /* x(0) - xe */
  double c2 = (d2 - 100.0 * l1 * d1) / (100.0 * (l2 - l1)), c1 = d1 - c2;
  double e1 = exp(l1 * t), e2 = exp(l2 * t);
  *x1 = 20.2 + c1 * e1 + c2 * e2;
  *x2 = 100.0 * (l1 * c1 * e1 + l2 * c2 * e2);
}
