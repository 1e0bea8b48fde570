/* SPDX-License-Identifier: MIT */
/*
 * Classical integration inside DEVS (libcdevs_ode, built when SUNDIALS CVODE is
 * found; Debian libsundials-dev, BSD-3-Clause). A model file's equations with
 * MMO_Solver = CVODE_BDF or CVODE_AM (or cdevs run --method CVODE_BDF) run as one
 * atomic model that integrates them with CVODE, BDF for stiff systems or
 * Adams-Moulton, at the run's relative and absolute tolerances:
 *   - its when clauses and the relations of its equations are CVODE's root functions,
 *     so every crossing is an event at the time CVODE locates it;
 *   - each output is sent at every CVODE step as a Taylor series (value, slope,
 *     curvature) of CVODE's interpolating polynomial at the step's start, valid over
 *     the step: a QSS block reading it sees the solver's own dense output;
 *   - an input event (a library block's output read by the equations) restarts the
 *     solver at its time, from the state interpolated there;
 *   - a CVODE failure stops the run with CVODE's message, the model's name and the
 *     time; the results are kept.
 * Library blocks of the same model stay QSS (QSS3 unless they name their method):
 * that is the mixed QSS/classical model of Beltrame and Cellier.
 * Link with -lcdevs_ode -lcdevs -lsundials_cvode -lsundials_nvecserial
 * -lsundials_sunmatrixdense -lsundials_sunlinsoldense.
 */
#ifndef CDEVS_ODE_H
#define CDEVS_ODE_H

#include "cdevs/lang.h"

#ifdef __cplusplus
extern "C" {
#endif

/* For cdevs_mo_set_ode. */
extern const cdevs_mo_ode cdevs_ode_cvode;

#ifdef __cplusplus
}
#endif
#endif
