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

/* The stiff system's exact solution at t. */
void ref_stiff(double t, double *x1, double *x2);

#endif
