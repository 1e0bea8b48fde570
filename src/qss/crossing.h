/* SPDX-License-Identifier: MIT */
/* Exact level crossings of a polynomial signal: hybrid blocks and zero-crossing functions. */
#ifndef CDEVS_QSS_CROSSING_H
#define CDEVS_QSS_CROSSING_H

#include <math.h>

#include "cdevs/taylor.h"
#include "qss_impl.h"

/* The side of 0 the series is on at τ = 0+: the sign of its value, or of its first
 * non-zero derivative when the value is 0. 0 for the zero series. */
static inline int cdevs__side(const double *c, int order) {
  for (int k = 0; k <= order; k++)
    if (c[k] != 0.0) return c[k] > 0.0 ? 1 : -1;
  return 0;
}

/*
 * The first τ > 0 at which the series (minus level) leaves side `from` (+1 or -1) for
 * the other; INFINITY if it never does. A root where the series only touches zero,
 * or where it crosses the other way (the crossing just handled, found again at
 * τ ≈ 0 by round-off), is skipped: the direction is read from the derivatives at
 * the root, not from the sign of a value next to zero.
 */
static inline double cdevs__next_cross(const double *c0, int order, double level, int from) {
  double c[4] = {c0[0] - level, c0[1], c0[2], c0[3]}, r[3];
  for (int k = order + 1; k < 4; k++) c[k] = 0.0;
  int n = cdevs__poly_real_roots(c, order, r);
  for (int i = 0; i < n; i++) {
    if (!(r[i] > 0.0)) continue;
    double d[4] = {c[0], c[1], c[2], c[3]};
    cdevs_taylor_shift(d, order, r[i]);
    d[0] = 0.0; /* the root itself: only the derivatives say where it goes */
    int to = cdevs__side(d, order);
    if (to != 0 && to != from) return r[i];
  }
  return INFINITY;
}

#endif
