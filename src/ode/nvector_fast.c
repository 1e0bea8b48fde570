/* SPDX-License-Identifier: MIT */
/*
 * Faster loops for SUNDIALS' serial vectors.
 *
 * Debian 12's SUNDIALS 6.4.1 is built without optimisation (its shared libraries
 * keep every loop counter on the stack: about 20 instructions a vector element), so
 * on a model of a few hundred states CVODE spent a third of the run in its vector
 * operations. A serial N_Vector's operations are a table of function pointers that
 * every clone copies (N_VCloneEmpty), which SUNDIALS documents as the way to supply
 * one's own implementation: cdevs__nv_fast replaces the element loops CVODE runs on
 * every step with the same arithmetic compiled here. The definitions are SUNDIALS'
 * documented ones (z = a·x + b·y, the weighted root mean square, ...); nothing else
 * of the vector changes, and its data stays SUNDIALS' own array.
 */
#include <math.h>

#include <nvector/nvector_serial.h>

#include "ode/ode_impl.h"

#define LEN(v) NV_LENGTH_S(v)
#define DATA(v) NV_DATA_S(v)

static void nv_linearsum(sunrealtype a, N_Vector x, sunrealtype b, N_Vector y, N_Vector z) {
  const sunrealtype *xd = DATA(x), *yd = DATA(y);
  sunrealtype *zd = DATA(z);
  sunindextype n = LEN(x);
  if (a == 1.0 && b == 1.0)
    for (sunindextype i = 0; i < n; i++) zd[i] = xd[i] + yd[i];
  else if (a == 1.0 && b == -1.0)
    for (sunindextype i = 0; i < n; i++) zd[i] = xd[i] - yd[i];
  else if (a == -1.0 && b == 1.0)
    for (sunindextype i = 0; i < n; i++) zd[i] = yd[i] - xd[i];
  else if (a == 1.0)
    for (sunindextype i = 0; i < n; i++) zd[i] = xd[i] + b * yd[i];
  else if (b == 1.0)
    for (sunindextype i = 0; i < n; i++) zd[i] = a * xd[i] + yd[i];
  else
    for (sunindextype i = 0; i < n; i++) zd[i] = a * xd[i] + b * yd[i];
}

static void nv_const(sunrealtype c, N_Vector z) {
  sunrealtype *zd = DATA(z);
  for (sunindextype i = 0, n = LEN(z); i < n; i++) zd[i] = c;
}

static void nv_prod(N_Vector x, N_Vector y, N_Vector z) {
  const sunrealtype *xd = DATA(x), *yd = DATA(y);
  sunrealtype *zd = DATA(z);
  for (sunindextype i = 0, n = LEN(x); i < n; i++) zd[i] = xd[i] * yd[i];
}

static void nv_div(N_Vector x, N_Vector y, N_Vector z) {
  const sunrealtype *xd = DATA(x), *yd = DATA(y);
  sunrealtype *zd = DATA(z);
  for (sunindextype i = 0, n = LEN(x); i < n; i++) zd[i] = xd[i] / yd[i];
}

static void nv_scale(sunrealtype c, N_Vector x, N_Vector z) {
  const sunrealtype *xd = DATA(x);
  sunrealtype *zd = DATA(z);
  sunindextype n = LEN(x);
  if (c == 1.0) {
    if (zd != xd)
      for (sunindextype i = 0; i < n; i++) zd[i] = xd[i];
  } else if (c == -1.0) {
    for (sunindextype i = 0; i < n; i++) zd[i] = -xd[i];
  } else {
    for (sunindextype i = 0; i < n; i++) zd[i] = c * xd[i];
  }
}

static void nv_abs(N_Vector x, N_Vector z) {
  const sunrealtype *xd = DATA(x);
  sunrealtype *zd = DATA(z);
  for (sunindextype i = 0, n = LEN(x); i < n; i++) zd[i] = fabs(xd[i]);
}

static void nv_inv(N_Vector x, N_Vector z) {
  const sunrealtype *xd = DATA(x);
  sunrealtype *zd = DATA(z);
  for (sunindextype i = 0, n = LEN(x); i < n; i++) zd[i] = 1.0 / xd[i];
}

static void nv_addconst(N_Vector x, sunrealtype b, N_Vector z) {
  const sunrealtype *xd = DATA(x);
  sunrealtype *zd = DATA(z);
  for (sunindextype i = 0, n = LEN(x); i < n; i++) zd[i] = xd[i] + b;
}

static sunrealtype nv_maxnorm(N_Vector x) {
  const sunrealtype *xd = DATA(x);
  sunrealtype m = 0.0;
  for (sunindextype i = 0, n = LEN(x); i < n; i++) m = fabs(xd[i]) > m ? fabs(xd[i]) : m;
  return m;
}

static sunrealtype nv_wsqrsumlocal(N_Vector x, N_Vector w) {
  const sunrealtype *xd = DATA(x), *wd = DATA(w);
  sunrealtype s = 0.0;
  for (sunindextype i = 0, n = LEN(x); i < n; i++) {
    sunrealtype p = xd[i] * wd[i];
    s += p * p;
  }
  return s;
}

static sunrealtype nv_wrmsnorm(N_Vector x, N_Vector w) {
  return sqrt(nv_wsqrsumlocal(x, w) / (sunrealtype)LEN(x));
}

/* z = Σ c[k]·x[k] (z may be one of the x). */
static int nv_linearcombination(int nv, sunrealtype *c, N_Vector *x, N_Vector z) {
  if (nv < 1) return -1;
  sunindextype n = LEN(z);
  sunrealtype *zd = DATA(z);
  if (nv == 1) {
    nv_scale(c[0], x[0], z);
    return 0;
  }
  if (nv == 2) {
    nv_linearsum(c[0], x[0], c[1], x[1], z);
    return 0;
  }
  /* z is x[0]: add the others to it scaled; else the first two, then the rest. */
  int from = 1;
  if (x[0] == z) {
    if (c[0] != 1.0)
      for (sunindextype i = 0; i < n; i++) zd[i] *= c[0];
  } else {
    const sunrealtype *a = DATA(x[0]), *b = DATA(x[1]);
    for (sunindextype i = 0; i < n; i++) zd[i] = c[0] * a[i] + c[1] * b[i];
    from = 2;
  }
  for (int k = from; k < nv; k++) {
    if (x[k] == z) return -1; /* (CVODE never passes z but first) */
    const sunrealtype *xd = DATA(x[k]);
    sunrealtype ck = c[k];
    for (sunindextype i = 0; i < n; i++) zd[i] += ck * xd[i];
  }
  return 0;
}

/* z[k] = a[k]·x + y[k] for each k. */
static int nv_scaleaddmulti(int nv, sunrealtype *a, N_Vector x, N_Vector *y, N_Vector *z) {
  if (nv < 1) return -1;
  const sunrealtype *xd = DATA(x);
  sunindextype n = LEN(x);
  for (int k = 0; k < nv; k++) {
    const sunrealtype *yd = DATA(y[k]);
    sunrealtype *zd = DATA(z[k]), ak = a[k];
    for (sunindextype i = 0; i < n; i++) zd[i] = ak * xd[i] + yd[i];
  }
  return 0;
}

void cdevs__nv_fast(N_Vector v) {
  if (!v || !v->ops || N_VGetVectorID(v) != SUNDIALS_NVEC_SERIAL) return;
  N_Vector_Ops o = v->ops;
  o->nvlinearsum = nv_linearsum;
  o->nvconst = nv_const;
  o->nvprod = nv_prod;
  o->nvdiv = nv_div;
  o->nvscale = nv_scale;
  o->nvabs = nv_abs;
  o->nvinv = nv_inv;
  o->nvaddconst = nv_addconst;
  o->nvmaxnorm = nv_maxnorm;
  o->nvwrmsnorm = nv_wrmsnorm;
  o->nvwsqrsumlocal = nv_wsqrsumlocal;
  o->nvlinearcombination = nv_linearcombination;
  o->nvscaleaddmulti = nv_scaleaddmulti;
}
