/* SPDX-License-Identifier: MIT */
/* A block's memory of one input signal: the last event's polynomial and its time. */
#ifndef CDEVS_BLOCKS_SIGNAL_H
#define CDEVS_BLOCKS_SIGNAL_H

#include <string.h>

#include "cdevs/taylor.h"
#include "cdevs/value.h"

typedef struct cdevs__sig {
  double c[4];
  double t;
  int order;
} cdevs__sig;

/* Takes a TAYLOR value (or a REAL or INT one, as a constant) received at time t. */
static inline void cdevs__sig_set(cdevs__sig *s, const cdevs_value *v, double t) {
  if (v->kind == CDEVS_TAYLOR) {
    memcpy(s->c, v->u.taylor, sizeof s->c);
    s->order = v->order;
  } else {
    s->c[0] = v->kind == CDEVS_INT ? (double)v->u.integer : v->u.real;
    s->c[1] = s->c[2] = s->c[3] = 0.0;
    s->order = 0;
  }
  s->t = t;
}

/* The signal's series around t. */
static inline void cdevs__sig_at(const cdevs__sig *s, double t, double *out) {
  memcpy(out, s->c, sizeof s->c);
  cdevs_taylor_shift(out, s->order, t - s->t);
}

static inline double cdevs__sig_eval(const cdevs__sig *s, double t) {
  return cdevs_taylor_eval(s->c, s->order, t - s->t);
}

static inline void cdevs__emit_series(cdevs_ctx *cx, int port, const double *c, int order) {
  cdevs_value v = cdevs_taylor(order, c);
  cdevs_emit(cx, port, &v);
}

#endif
