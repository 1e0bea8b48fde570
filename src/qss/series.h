/* SPDX-License-Identifier: MIT */
/*
 * The series operations of the QSS hot path, inline: the public cdevs_taylor_* of
 * taylor.c, the quantizer and the bytecode evaluator all use these one definitions.
 * Series have 4 coefficients; those above `order` are set to 0. r may alias a or b.
 */
#ifndef CDEVS_QSS_SERIES_H
#define CDEVS_QSS_SERIES_H

static inline void cdevs__series_const(double *r, double v) {
  r[0] = v;
  r[1] = r[2] = r[3] = 0.0;
}

/* No coefficient above the constant one up to order: a constant series. */
static inline int cdevs__series_is_const(const double *a, int order) {
  for (int k = 1; k <= order; k++)
    if (a[k] != 0.0) return 0;
  return 1;
}

static inline void cdevs__series_add(double *r, const double *a, const double *b, int order) {
  for (int k = 0; k < 4; k++) r[k] = k <= order ? a[k] + b[k] : 0.0;
}

static inline void cdevs__series_sub(double *r, const double *a, const double *b, int order) {
  for (int k = 0; k < 4; k++) r[k] = k <= order ? a[k] - b[k] : 0.0;
}

/* The Cauchy product, written out, terms in ascending order of a's index. */
static inline void cdevs__series_mul(double *r, const double *a, const double *b, int order) {
  double c1 = 0.0, c2 = 0.0, c3 = 0.0;
  if (order >= 1) c1 = a[0] * b[1] + a[1] * b[0];
  if (order >= 2) c2 = a[0] * b[2] + a[1] * b[1] + a[2] * b[0];
  if (order >= 3) c3 = a[0] * b[3] + a[1] * b[2] + a[2] * b[1] + a[3] * b[0];
  r[0] = a[0] * b[0];
  r[1] = c1, r[2] = c2, r[3] = c3;
}

/* Re-centres the polynomial c (degree order <= 3) from τ = 0 to τ = s:
 * c_k += Σ_{j>k} C(j,k)·c_j·s^(j-k), written out. */
static inline void cdevs__series_shift(double *c, int order, double s) {
  if (s == 0.0) return;
  switch (order) {
  case 3: {
    double s3 = s * c[3];
    c[0] += s * (c[1] + s * (c[2] + s3));
    c[1] += s * (2.0 * c[2] + 3.0 * s3);
    c[2] += 3.0 * s3;
    return;
  }
  case 2:
    c[0] += s * (c[1] + s * c[2]);
    c[1] += 2.0 * s * c[2];
    return;
  case 1: c[0] += s * c[1]; return;
  default: return;
  }
}

#endif
