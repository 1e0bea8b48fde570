/* SPDX-License-Identifier: MIT */
/* Reference solutions for the QSS benchmarks: SUNDIALS CVODE for the flyback
 * converter, the closed form for the stiff system. */
#ifndef CDEVS_CLI_REFERENCE_H
#define CDEVS_CLI_REFERENCE_H

#include <stddef.h>

#include "cdevs/continuous.h"

/*
 * Integrates the flyback converter's three modes with CVODE (BDF, dense Newton) at
 * relative tolerance rtol, restarting at every switch edge and at every diode
 * turn-off (a CVODE root of iL), and writes iL and vC at the n increasing times tg.
 * *steps receives CVODE's step count. Returns 0, or -1 with a message in err.
 */
int ref_flyback(const cdevs_flyback_params *p, double rtol, const double *tg, size_t n,
                double *il, double *vc, long *steps, char *err, size_t errsize);

/*
 * A general ODE ẋ = f(t, x) of n states by CVODE (BDF, dense Newton) at rtol and
 * atol, from x0 at t0, written at the nt increasing times tg (>= t0): row k of out
 * (n values) is x(tg[k]). For tests that need a reference where there is no closed
 * form, from right-hand sides written in C, apart from the model language. Returns 0,
 * or -1 with a message in err.
 */
typedef void (*ref_rhs)(double t, const double *x, double *dx, void *ud);
int ref_ode(ref_rhs f, void *ud, size_t n, const double *x0, double t0, double rtol, double atol, const double *tg,
            size_t nt, double *out, char *err, size_t errsize);

/*
 * A system that switches between classes of different state spaces (tests of models
 * that change their class, or their equations, written in C apart from the model
 * language): class c has n[c] states (at most REF_MAX_STATES), ẋ = rhs(c, x), and
 * leaves when root(c, x) crosses 0 in direction dir[c] (+1 rising, -1 falling);
 * map(c, x, y) gives the next class's states y and returns that class; ud is passed
 * to each. From class c0 at x0, t = 0, to t_end by CVODE (Adams, or BDF with bdf,
 * at rtol, atol, its root finding), started again at each switch: the switch times
 * into ev (at most max_ev; *nev of them), and when ev_x is not NULL the states just
 * before each (REF_MAX_STATES a switch); the last class and its states into *c_end,
 * x_end. Returns 0, or -1 with a message in err.
 */
#define REF_MAX_STATES 8
#define REF_MAX_CLASSES 4
typedef struct ref_switched_sys {
  int n[REF_MAX_CLASSES], dir[REF_MAX_CLASSES];
  void (*rhs)(int c, const double *x, double *dx, void *ud);
  double (*root)(int c, const double *x, void *ud);
  int (*map)(int c, const double *x, double *y, void *ud);
  void *ud;
  int bdf;
} ref_switched_sys;
int ref_switched(const ref_switched_sys *sys, int c0, const double *x0, double t_end, double rtol, double atol,
                 double *ev, double *ev_x, int max_ev, int *nev, int *c_end, double *x_end, char *err,
                 size_t errsize);

/* The stiff system's exact solution at t. */
void ref_stiff(double t, double *x1, double *x2);

#endif
