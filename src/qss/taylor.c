/* SPDX-License-Identifier: MIT */
/* Truncated Taylor series arithmetic (order <= 3): the recurrences of automatic
 * differentiation, one per operation, shared by the static blocks and (later) the
 * equation evaluator. */
#include "cdevs/taylor.h"

#include "series.h"

#include <math.h>
#include <string.h>

#define N (3 + 1)

static void finish(double *r, const double *t, int order) {
  for (int k = 0; k < N; k++) r[k] = k <= order ? t[k] : 0.0;
}

void cdevs_taylor_const(double *r, double v, int order) {
  (void)order;
  cdevs__series_const(r, v);
}

void cdevs_taylor_add(double *r, const double *a, const double *b, int order) {
  cdevs__series_add(r, a, b, order);
}

void cdevs_taylor_sub(double *r, const double *a, const double *b, int order) {
  cdevs__series_sub(r, a, b, order);
}

void cdevs_taylor_scale(double *r, const double *a, double s, int order) {
  double t[N] = {0};
  for (int k = 0; k <= order; k++) t[k] = s * a[k];
  finish(r, t, order);
}

void cdevs_taylor_wsum(double *r, const double *const *a, const double *w, int n, int order) {
  double t[N] = {0};
  for (int i = 0; i < n; i++)
    for (int k = 0; k <= order; k++) t[k] += w[i] * a[i][k];
  finish(r, t, order);
}

void cdevs_taylor_mul(double *r, const double *a, const double *b, int order) {
  cdevs__series_mul(r, a, b, order);
}

int cdevs_taylor_div(double *r, const double *a, const double *b, int order) {
  if (b[0] == 0.0) return CDEVS_EDOMAIN;
  double t[N] = {0};
  for (int k = 0; k <= order; k++) {
    double s = a[k];
    for (int j = 1; j <= k; j++) s -= b[j] * t[k - j];
    t[k] = s / b[0];
  }
  finish(r, t, order);
  return CDEVS_OK;
}

int cdevs_taylor_inv(double *r, const double *a, int order) {
  const double one[N] = {1.0, 0.0, 0.0, 0.0};
  return cdevs_taylor_div(r, one, a, order);
}

void cdevs_taylor_exp(double *r, const double *a, int order) {
  double t[N] = {0};
  t[0] = exp(a[0]);
  for (int k = 1; k <= order; k++) {
    double s = 0.0;
    for (int j = 1; j <= k; j++) s += j * a[j] * t[k - j];
    t[k] = s / k;
  }
  finish(r, t, order);
}

int cdevs_taylor_log(double *r, const double *a, int order) {
  if (!(a[0] > 0.0)) return CDEVS_EDOMAIN;
  double t[N] = {0};
  t[0] = log(a[0]);
  for (int k = 1; k <= order; k++) {
    double s = 0.0;
    for (int j = 1; j < k; j++) s += j * t[j] * a[k - j];
    t[k] = (a[k] - s / k) / a[0];
  }
  finish(r, t, order);
  return CDEVS_OK;
}

/* sin and cos are computed together: each one's recurrence needs the other. */
static void sincos_series(double *s, double *c, const double *a, int order) {
  s[0] = sin(a[0]);
  c[0] = cos(a[0]);
  for (int k = 1; k <= order; k++) {
    double ss = 0.0, cc = 0.0;
    for (int j = 1; j <= k; j++) {
      ss += j * a[j] * c[k - j];
      cc -= j * a[j] * s[k - j];
    }
    s[k] = ss / k;
    c[k] = cc / k;
  }
}

void cdevs_taylor_sin(double *r, const double *a, int order) {
  double s[N] = {0}, c[N] = {0};
  sincos_series(s, c, a, order);
  finish(r, s, order);
}

void cdevs_taylor_cos(double *r, const double *a, int order) {
  double s[N] = {0}, c[N] = {0};
  sincos_series(s, c, a, order);
  finish(r, c, order);
}

int cdevs_taylor_tan(double *r, const double *a, int order) {
  double s[N] = {0}, c[N] = {0};
  sincos_series(s, c, a, order);
  return cdevs_taylor_div(r, s, c, order);
}

void cdevs_taylor_tanh(double *r, const double *a, int order) {
  /* tanh' = (1 - tanh²)·a': build t and w = 1 - t² together. */
  double t[N] = {0}, w[N] = {0};
  t[0] = tanh(a[0]);
  w[0] = 1.0 - t[0] * t[0];
  for (int k = 1; k <= order; k++) {
    double s = 0.0;
    for (int j = 1; j <= k; j++) s += j * a[j] * w[k - j];
    t[k] = s / k;
    double sq = 0.0;
    for (int j = 0; j <= k; j++) sq += t[j] * t[k - j];
    w[k] = -sq;
  }
  finish(r, t, order);
}

void cdevs_taylor_atan(double *r, const double *a, int order) {
  /* atan' = a' / (1 + a²); 1 + a² >= 1, so the division cannot fail. */
  double d[N] = {0}, t[N] = {0};
  cdevs_taylor_mul(d, a, a, order);
  d[0] += 1.0;
  (void)cdevs_taylor_inv(d, d, order);
  t[0] = atan(a[0]);
  for (int k = 1; k <= order; k++) {
    double s = 0.0;
    for (int j = 1; j <= k; j++) s += j * a[j] * d[k - j];
    t[k] = s / k;
  }
  finish(r, t, order);
}

int cdevs_taylor_sqrt(double *r, const double *a, int order) {
  if (a[0] < 0.0 || isnan(a[0])) return CDEVS_EDOMAIN;
  if (a[0] == 0.0) {
    /* sqrt is not differentiable at 0: only a constant zero series is defined. */
    if (!cdevs__series_is_const(a, order)) return CDEVS_EDOMAIN;
    cdevs_taylor_const(r, 0.0, order);
    return CDEVS_OK;
  }
  double t[N] = {0};
  t[0] = sqrt(a[0]);
  for (int k = 1; k <= order; k++) {
    double s = a[k];
    for (int j = 1; j < k; j++) s -= t[j] * t[k - j];
    t[k] = s / (2.0 * t[0]);
  }
  finish(r, t, order);
  return CDEVS_OK;
}

int cdevs_taylor_pow(double *r, const double *a, double p, int order) {
  if (isnan(p)) return CDEVS_EDOMAIN;
  if (p == floor(p) && fabs(p) <= 1024.0) {
    /* Integer powers by squaring work for any sign of a[0]. */
    double base[N], acc[N] = {1.0, 0.0, 0.0, 0.0};
    finish(base, a, order);
    unsigned long e = (unsigned long)fabs(p);
    while (e) {
      if (e & 1u) cdevs_taylor_mul(acc, acc, base, order);
      e >>= 1;
      if (e) cdevs_taylor_mul(base, base, base, order);
    }
    if (p < 0.0) return cdevs_taylor_inv(r, acc, order);
    finish(r, acc, order);
    return CDEVS_OK;
  }
  /* Real powers need a > 0; integer powers too large to square (|p| > 1024) take the
   * same recurrence, which holds for any a ≠ 0 when p is an integer. */
  int integer = p == floor(p);
  if ((!integer && a[0] < 0.0) || isnan(a[0])) return CDEVS_EDOMAIN;
  if (a[0] == 0.0) {
    /* a = a1·τ + …: a^p starts at τ^p, beyond order 3 when p > 3. */
    if (p < 0.0 || (!cdevs__series_is_const(a, order) && !(integer && p > 3.0))) return CDEVS_EDOMAIN;
    cdevs_taylor_const(r, 0.0, order);
    return CDEVS_OK;
  }
  double t[N] = {0};
  t[0] = pow(a[0], p);
  for (int k = 1; k <= order; k++) {
    double s = 0.0;
    for (int j = 1; j <= k; j++) s += (p * j - (k - j)) * a[j] * t[k - j];
    t[k] = s / (k * a[0]);
  }
  finish(r, t, order);
  return CDEVS_OK;
}

void cdevs_taylor_abs(double *r, const double *a, int order) {
  double sign = 1.0;
  for (int k = 0; k <= order; k++)
    if (a[k] != 0.0) {
      sign = a[k] < 0.0 ? -1.0 : 1.0;
      break;
    }
  cdevs_taylor_scale(r, a, sign, order);
}

int cdevs_taylor_fn(double *r, const double *a, cdevs_fn fn, int order) {
  switch (fn) {
  case CDEVS_FN_SIN: cdevs_taylor_sin(r, a, order); return CDEVS_OK;
  case CDEVS_FN_COS: cdevs_taylor_cos(r, a, order); return CDEVS_OK;
  case CDEVS_FN_TAN: return cdevs_taylor_tan(r, a, order);
  case CDEVS_FN_EXP: cdevs_taylor_exp(r, a, order); return CDEVS_OK;
  case CDEVS_FN_LOG: return cdevs_taylor_log(r, a, order);
  case CDEVS_FN_SQRT: return cdevs_taylor_sqrt(r, a, order);
  case CDEVS_FN_TANH: cdevs_taylor_tanh(r, a, order); return CDEVS_OK;
  case CDEVS_FN_ATAN: cdevs_taylor_atan(r, a, order); return CDEVS_OK;
  case CDEVS_FN_ABS: cdevs_taylor_abs(r, a, order); return CDEVS_OK;
  }
  return CDEVS_EINVAL;
}

static const char *const fn_names[] = {NULL,   "sin",  "cos",  "tan",  "exp",
                                       "log",  "sqrt", "tanh", "atan", "abs"};

const char *cdevs_fn_name(cdevs_fn fn) {
  return fn >= CDEVS_FN_SIN && fn <= CDEVS_FN_ABS ? fn_names[fn] : NULL;
}

cdevs_fn cdevs_fn_parse(const char *name) {
  for (int i = CDEVS_FN_SIN; name && i <= CDEVS_FN_ABS; i++)
    if (strcmp(fn_names[i], name) == 0) return (cdevs_fn)i;
  return (cdevs_fn)0;
}

double cdevs_taylor_eval(const double *c, int order, double tau) {
  double v = c[order];
  for (int k = order - 1; k >= 0; k--) v = v * tau + c[k];
  return v;
}

void cdevs_taylor_shift(double *c, int order, double s) { cdevs__series_shift(c, order, s); }
