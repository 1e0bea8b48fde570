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

/* The stiff system's exact solution at t. */
void ref_stiff(double t, double *x1, double *x2);

#endif
