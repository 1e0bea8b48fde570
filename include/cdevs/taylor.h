/* SPDX-License-Identifier: MIT */
/*
 * Arithmetic on truncated Taylor series of order <= 3, the values QSS events carry.
 * A series is c[0] + c[1]·τ + c[2]·τ² + c[3]·τ³ (c[k] is the k-th derivative / k!).
 */
#ifndef CDEVS_TAYLOR_H
#define CDEVS_TAYLOR_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Every function writes coefficients 0..order of r (and zeroes order+1..3), reads
 * 0..order of its operands, and allows r to alias an operand. Functions that can
 * leave their domain (division by a series with c[0] = 0, log or sqrt of a
 * non-positive value, …) return CDEVS_EDOMAIN and leave r unspecified; the rest
 * cannot fail.
 */
void cdevs_taylor_const(double *r, double v, int order);
void cdevs_taylor_add(double *r, const double *a, const double *b, int order);
void cdevs_taylor_sub(double *r, const double *a, const double *b, int order);
void cdevs_taylor_scale(double *r, const double *a, double k, int order);
/* r = Σ w[i]·a[i] over n series. */
void cdevs_taylor_wsum(double *r, const double *const *a, const double *w, int n, int order);
void cdevs_taylor_mul(double *r, const double *a, const double *b, int order);
int cdevs_taylor_div(double *r, const double *a, const double *b, int order);
int cdevs_taylor_inv(double *r, const double *a, int order);
void cdevs_taylor_exp(double *r, const double *a, int order);
int cdevs_taylor_log(double *r, const double *a, int order);
void cdevs_taylor_sin(double *r, const double *a, int order);
void cdevs_taylor_cos(double *r, const double *a, int order);
int cdevs_taylor_tan(double *r, const double *a, int order);
void cdevs_taylor_tanh(double *r, const double *a, int order);
void cdevs_taylor_atan(double *r, const double *a, int order);
int cdevs_taylor_sqrt(double *r, const double *a, int order);
/* a^p for a real constant p: integer p allows any a (a ≠ 0 when p < 0); otherwise a > 0. */
int cdevs_taylor_pow(double *r, const double *a, double p, int order);
/* |a|; the sign comes from the first non-zero coefficient, so |τ| at 0 becomes τ. */
void cdevs_taylor_abs(double *r, const double *a, int order);

/* The elementary functions by name, for blocks and compiled equations. */
typedef enum cdevs_fn {
  CDEVS_FN_SIN = 1,
  CDEVS_FN_COS,
  CDEVS_FN_TAN,
  CDEVS_FN_EXP,
  CDEVS_FN_LOG,
  CDEVS_FN_SQRT,
  CDEVS_FN_TANH,
  CDEVS_FN_ATAN,
  CDEVS_FN_ABS
} cdevs_fn;
/* r = fn(a); CDEVS_EDOMAIN as the function's own call, CDEVS_EINVAL for an unknown fn. */
int cdevs_taylor_fn(double *r, const double *a, cdevs_fn fn, int order);
/* "sin", "cos", …; NULL for an unknown value. And the reverse: 0 if unknown. */
const char *cdevs_fn_name(cdevs_fn fn);
cdevs_fn cdevs_fn_parse(const char *name);

/* Evaluates the series at τ (Horner). */
double cdevs_taylor_eval(const double *c, int order, double tau);
/* Re-centres the series in place at τ = s: c(τ) becomes c(τ + s). */
void cdevs_taylor_shift(double *c, int order, double s);

#ifdef __cplusplus
}
#endif
#endif
