/* SPDX-License-Identifier: MIT */
/* Sinks: a recorder (every event, or dense output on a fixed step) and a counter. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cdevs/continuous.h"
#include "core/alloc_impl.h"
#include "signal.h"

typedef struct rec_state {
  int n;
  double step, t_stop, t0;
  cdevs__sig u[CDEVS_STATIC_MAX_INPUTS];
  double *rows; /* (1 + n) doubles per row */
  size_t nrows;
  uint32_t cap; /* rows allocated (cdevs__grow: overflow-checked doubling) */
  uint64_t k; /* next sample index */
  double sigma;
  const cdevs_alloc *alloc;
} rec_state;

static const cdevs_port_def rec_in[] = {{"u0", CDEVS_TAYLOR}, {"u1", CDEVS_TAYLOR}, {"u2", CDEVS_TAYLOR},
                                        {"u3", CDEVS_TAYLOR}, {"u4", CDEVS_TAYLOR}, {"u5", CDEVS_TAYLOR},
                                        {"u6", CDEVS_TAYLOR}, {"u7", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
static const cdevs_port_def cnt_in[] = {{"u", CDEVS_ANY}, {NULL, CDEVS_ANY}};
static const cdevs_port_def no_out[] = {{NULL, CDEVS_ANY}};
/* A recorder's channels are signals: at most one driver each (unused ones have none). */
static const unsigned char rec_in_drivers[] = {CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL};

static int rec_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_recorder_params *p = arg;
  rec_state *s = state;
  if (p->n < 1 || p->n > CDEVS_STATIC_MAX_INPUTS || !(p->step >= 0.0) || !isfinite(p->step) ||
      (p->step > 0.0 && !(p->t_stop >= cdevs_ctx_time(cx)))) {
    cdevs_ctx_fail(cx, "recorder needs 1..%d inputs, step >= 0 and, with a step, t_stop >= t0",
                   CDEVS_STATIC_MAX_INPUTS);
    return CDEVS_EINVAL;
  }
  s->n = p->n;
  s->step = p->step;
  s->t_stop = p->t_stop;
  s->t0 = cdevs_ctx_time(cx);
  s->alloc = cdevs_ctx_alloc(cx);
  s->sigma = p->step > 0.0 ? 0.0 : INFINITY;
  return CDEVS_OK;
}

static void rec_fini(void *state) {
  rec_state *s = state;
  cdevs__free(s->alloc, s->rows, (size_t)s->cap * (1 + (size_t)s->n) * sizeof(double));
}

static void record(cdevs_ctx *cx, rec_state *s, double t) {
  size_t w = 1 + (size_t)s->n;
  if (s->nrows >= UINT32_MAX || (s->nrows == s->cap && /* the call only when full */
                                 cdevs__grow(s->alloc, (void **)&s->rows, &s->cap, (uint32_t)s->nrows + 1,
                                             w * sizeof(double)))) {
    cdevs_ctx_fail(cx, "recorder: out of memory after %zu rows", s->nrows);
    return;
  }
  double *row = s->rows + s->nrows++ * w;
  row[0] = t;
  for (int i = 0; i < s->n; i++) row[1 + i] = cdevs__sig_eval(&s->u[i], t);
}

static double rec_ta(const void *state) { return ((const rec_state *)state)->sigma; }

static void rec_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  rec_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) cdevs__sig_set(&s->u[x->events[i].port], x->events[i].value, t);
  /* Several events at one instant (a zero-time cascade): the row for that instant
   * holds the values after the last of them. */
  size_t w = 1 + (size_t)s->n;
  int same = s->nrows && s->rows[(s->nrows - 1) * w] == t;
  if (s->step > 0.0) {
    s->sigma -= e;
    if (same) s->nrows--, record(cx, s, t);
  } else {
    if (same) s->nrows--;
    record(cx, s, t);
  }
}

static void rec_int(cdevs_ctx *cx, void *state) {
  rec_state *s = state;
  double t = cdevs_ctx_time(cx);
  record(cx, s, t);
  s->k++;
  double next = s->t0 + (double)s->k * s->step;
  /* t0 + k·step may land a hair past t_stop by round-off: that sample is still due. */
  s->sigma = next <= s->t_stop + 1e-9 * s->step ? next - t : INFINITY;
}

static void rec_conf(cdevs_ctx *cx, void *state, const cdevs_bag *x) {
  /* Inputs at a sampling instant count for that sample: δext first, then δint. */
  rec_ext(cx, state, 0.0, x);
  rec_int(cx, state);
}

size_t cdevs_recorder_rows(const void *state) { return ((const rec_state *)state)->nrows; }

double cdevs_recorder_row(const void *state, size_t i, double *v) {
  const rec_state *s = state;
  const double *row = s->rows + i * (1 + (size_t)s->n);
  for (int k = 0; k < s->n; k++) v[k] = row[1 + k];
  return row[0];
}

cdevs_status cdevs_recorder_write(const void *state, FILE *f, const char *const *names) {
  const rec_state *s = state;
  fputs("time", f);
  for (int i = 0; i < s->n; i++) {
    if (names && names[i])
      fprintf(f, ",%s", names[i]);
    else
      fprintf(f, ",u%d", i);
  }
  fputc('\n', f);
  size_t w = 1 + (size_t)s->n;
  for (size_t r = 0; r < s->nrows; r++) {
    const double *row = s->rows + r * w;
    for (size_t k = 0; k < w; k++) fprintf(f, k ? ",%.17g" : "%.17g", row[k]);
    fputc('\n', f);
  }
  return ferror(f) ? CDEVS_EIO : CDEVS_OK;
}

const cdevs_atomic_ops cdevs_recorder_ops = {
    .type = "Recorder",
    .state_size = sizeof(rec_state),
    .arg_size = sizeof(cdevs_recorder_params),
    .inputs = rec_in,
    .in_drivers = rec_in_drivers,
    .outputs = no_out,
    .init = rec_init,
    .ta = rec_ta,
    .delta_int = rec_int,
    .delta_ext = rec_ext,
    .delta_conf = rec_conf,
    .fini = rec_fini,
};

typedef struct cnt_state {
  uint64_t count;
} cnt_state;

static double cnt_ta(const void *state) {
  (void)state;
  return INFINITY;
}

static void cnt_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)cx, (void)e;
  ((cnt_state *)state)->count += x->n;
}

uint64_t cdevs_counter_count(const void *state) { return ((const cnt_state *)state)->count; }

const cdevs_atomic_ops cdevs_counter_ops = {
    .type = "Counter",
    .state_size = sizeof(cnt_state),
    .inputs = cnt_in,
    .outputs = no_out,
    .ta = cnt_ta,
    .delta_ext = cnt_ext,
};
