/* SPDX-License-Identifier: MIT */
/* The QSS integration methods: names and orders. */
#ifndef CDEVS_QSS_H
#define CDEVS_QSS_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * QSS1/2/3: hysteretic quantization of order 1..3 (Kofman 2001, 2002, 2006); the
 * quantized trajectory q follows x's Taylor series and is renewed when |x - q|
 * reaches ΔQ = max(ΔQmin, ΔQrel·|x|).
 * LIQSS1/2/3: linearly implicit QSS (Migoni, Bortolotto, Kofman & Cellier 2013) for
 * stiff systems: q is placed ΔQ ahead of x, or at the point where the next
 * derivative of x vanishes, using an estimate of ∂ẋ/∂x; |x - q| stays below 2·ΔQ.
 * mLIQSS1/2: LIQSS that also sees a stiff pair (Di Pietro, Migoni & Kofman 2019):
 * when a state's new q turns the derivative of a state coupled to it both ways, and
 * that one's next q would turn it back, the two are placed together by one linearly
 * implicit step of their 2×2 block. (In equation systems; an integrator block,
 * alone with its state, integrates as LIQSS1/2.)
 */
typedef enum cdevs_qss_method {
  CDEVS_QSS1 = 1,
  CDEVS_QSS2,
  CDEVS_QSS3,
  CDEVS_LIQSS1,
  CDEVS_LIQSS2,
  CDEVS_LIQSS3,
  CDEVS_MLIQSS1,
  CDEVS_MLIQSS2,
  /* Not QSS: a model's equations integrated by a classical time-stepping solver,
   * SUNDIALS CVODE with BDF (stiff) or Adams-Moulton (libcdevs_ode, cdevs/ode.h).
   * Only a model file's method (cdevs_mo_method_parse); blocks take QSS methods. */
  CDEVS_CVODE_BDF = 16,
  CDEVS_CVODE_AM,
  /* Mixed mode (QSS Solver's LIQSS_BDF): the states of MMO_BDF_Part (or, without
   * it, every state no event touches) integrated by CVODE's BDF, the others by
   * LIQSS2, the two parts two atomic models exchanging their values (cdevs/lang.h). */
  CDEVS_LIQSS_BDF
} cdevs_qss_method;

/* Parses "QSS2", "qss2", "LIQSS3", "mLIQSS2", … (any case); returns 0 and sets *m, or -1. */
int cdevs_qss_method_parse(const char *name, cdevs_qss_method *m);
/* "QSS1", …, "LIQSS3", "mLIQSS1", "mLIQSS2" (and "CVODE_BDF", "CVODE_AM", "LIQSS_BDF"); NULL for an unknown value. */
const char *cdevs_qss_method_name(cdevs_qss_method m);
/* 1 for a method that pairs the states of an equation system (mLIQSS1/2), which an
 * integrator block, alone with its state, cannot do; 0 otherwise. */
int cdevs_qss_method_pairs(cdevs_qss_method m);
/* 1..3, or 0 for an unknown value. */
int cdevs_qss_method_order(cdevs_qss_method m);

#ifdef __cplusplus
}
#endif
#endif
