/* SPDX-License-Identifier: MIT */
/*
 * Signal sources. Each is a sequence of polynomial segments: λ emits the segment
 * that starts now, δint moves to the next one. Periodic sources count periods and
 * segments explicitly (edge k is delay + k·period + offset), so edge times never
 * drift by accumulated round-off.
 */
#include <math.h>
#include <stdlib.h>

#include "cdevs/continuous.h"
#include "core/alloc_impl.h"
#include "signal.h"

#define CDEVS_2PI 6.283185307179586

enum skind { S_CONST, S_STEP, S_RAMP, S_SINE, S_PULSE, S_TRIANGLE, S_SAW, S_TABLE };

typedef struct src_state {
  int kind;
  double p[8];  /* the block's numeric parameters */
  int order;    /* sine: degree */
  int64_t k;    /* period (periodic sources) or point (table) index */
  int j;        /* segment within the period; -1 before the first */
  double t_seg; /* start of the current segment, the time λ emits at */
  double t0;     /* time of the last transition (ta is measured from it) */
  double origin; /* start time: periodic edges are origin + delay + k·period + offset */
  double *tt, *ty; /* table points (owned) */
  size_t n;
  const cdevs_alloc *alloc;
} src_state;

static const cdevs_port_def no_in[] = {{NULL, CDEVS_ANY}};
static const cdevs_port_def src_out[] = {{"y", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};

static int bad(cdevs_ctx *cx, const char *msg) {
  cdevs_ctx_fail(cx, "%s", msg);
  return CDEVS_EINVAL;
}

static int all_finite(const double *v, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(v[i])) return 0;
  return 1;
}

/* Start of segment (k, j) of a periodic source: p[2] = period, p[3] = duty, p[4] = delay. */
static double periodic_start(const src_state *s, int64_t k, int j) {
  double T = s->p[2], off = 0.0;
  if (s->kind == S_PULSE) off = j == 1 ? s->p[3] * T : 0.0;
  if (s->kind == S_TRIANGLE) off = j == 1 ? 0.5 * T : 0.0;
  return s->origin + s->p[4] + (double)k * T + off;
}

static int periodic_segments(const src_state *s) { return s->kind == S_SAW ? 1 : 2; }

/* The polynomial of the current segment around its start, and its degree. */
static int segment(const src_state *s, double *c) {
  double lo = s->p[0], hi = s->p[1], T = s->p[2];
  c[0] = c[1] = c[2] = c[3] = 0.0;
  switch (s->kind) {
  case S_CONST: c[0] = s->p[0]; return 0;
  case S_STEP: c[0] = s->j < 0 ? s->p[1] : s->p[2]; return 0;
  case S_RAMP: /* p: t_start, t_end, y_start, y_end */
    if (s->j == 0) {
      c[0] = s->p[2] + (s->p[3] - s->p[2]) * (s->t_seg - s->p[0]) / (s->p[1] - s->p[0]);
      c[1] = (s->p[3] - s->p[2]) / (s->p[1] - s->p[0]);
      return 1;
    }
    c[0] = s->j < 0 ? s->p[2] : s->p[3];
    return 0;
  case S_SINE: { /* p: amplitude, freq, phase, offset, dq, segment length */
    double w = CDEVS_2PI * s->p[1], arg = w * s->t_seg + s->p[2], a[4] = {arg, w, 0, 0};
    cdevs_taylor_sin(c, a, s->order);
    for (int i = 0; i <= s->order; i++) c[i] *= s->p[0];
    c[0] += s->p[3];
    return s->order;
  }
  case S_PULSE:
    c[0] = s->j == 0 ? hi : lo;
    return 0;
  case S_TRIANGLE:
    if (s->j < 0) { c[0] = lo; return 0; }
    c[0] = s->j == 0 ? lo : hi;
    c[1] = (s->j == 0 ? 2.0 : -2.0) * (hi - lo) / T;
    return 1;
  case S_SAW:
    if (s->j < 0) { c[0] = lo; return 0; }
    c[0] = lo;
    c[1] = (hi - lo) / T;
    return 1;
  case S_TABLE: {
    size_t i = (size_t)s->k;
    if (s->j < 0) { c[0] = s->ty[0]; return 0; }
    c[0] = s->ty[i];
    if (s->p[0] != 0.0 && i + 1 < s->n) {
      c[1] = (s->ty[i + 1] - s->ty[i]) / (s->tt[i + 1] - s->tt[i]);
      c[0] += c[1] * (s->t_seg - s->tt[i]); /* a start between two points */
      return 1;
    }
    return 0;
  }
  }
  return 0;
}

/* Moves to the next segment; returns its start time (INFINITY when none follows). */
static double next_segment(src_state *s) {
  switch (s->kind) {
  case S_CONST: return INFINITY;
  case S_STEP:
    if (s->j >= 0) return INFINITY;
    s->j = 0;
    return s->p[0] > s->origin ? s->p[0] : s->t_seg;
  case S_RAMP:
    if (s->j == 1) return INFINITY;
    s->j++;
    return s->j == 0 ? s->p[0] : s->p[1];
  case S_SINE: return s->t_seg + s->p[5]; /* segments of the length sine_init worked out */
  case S_PULSE:
  case S_TRIANGLE:
  case S_SAW:
    if (s->j < 0) {
      s->k = 0, s->j = 0;
    } else if (++s->j == periodic_segments(s)) {
      s->j = 0, s->k++;
    }
    return periodic_start(s, s->k, s->j);
  case S_TABLE:
    if (s->j < 0) {
      s->j = 0, s->k = 0;
      return s->tt[0] > s->origin ? s->tt[0] : s->t_seg;
    }
    if ((size_t)s->k + 1 >= s->n) return INFINITY;
    s->k++;
    return s->tt[s->k];
  }
  return INFINITY;
}

static int src_start(cdevs_ctx *cx, src_state *s, int kind) {
  s->kind = kind;
  s->t0 = s->t_seg = s->origin = cdevs_ctx_time(cx);
  s->j = -1;
  if (kind == S_RAMP && s->p[0] <= s->t0) { /* already ramping or done */
    s->j = 0;
    if (s->p[1] <= s->t0) s->j = 1;
  }
  if (kind == S_TABLE) { /* skip the points already in the past */
    s->j = 0, s->k = 0;
    while ((size_t)s->k + 1 < s->n && s->tt[s->k + 1] <= s->t0) s->k++;
    if (s->tt[0] > s->t0) s->j = -1;
  }
  return CDEVS_OK;
}

static int const_init(cdevs_ctx *cx, void *state, const void *arg) {
  src_state *s = state;
  s->p[0] = ((const cdevs_constant_params *)arg)->value;
  if (!isfinite(s->p[0])) return bad(cx, "constant needs a finite value");
  return src_start(cx, s, S_CONST);
}

static int step_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_step_params *p = arg;
  src_state *s = state;
  s->p[0] = p->t_step, s->p[1] = p->before, s->p[2] = p->after;
  if (!all_finite(s->p, 3)) return bad(cx, "step needs finite t_step, before and after");
  src_start(cx, s, S_STEP);
  if (p->t_step <= s->t0) s->j = 0;
  return CDEVS_OK;
}

static int ramp_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_ramp_params *p = arg;
  src_state *s = state;
  s->p[0] = p->t_start, s->p[1] = p->t_end, s->p[2] = p->y_start, s->p[3] = p->y_end;
  if (!all_finite(s->p, 4) || !(p->t_end > p->t_start))
    return bad(cx, "ramp needs finite values and t_end > t_start");
  return src_start(cx, s, S_RAMP);
}

static int sine_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_sine_params *p = arg;
  src_state *s = state;
  s->p[0] = p->amplitude, s->p[1] = p->freq, s->p[2] = p->phase, s->p[3] = p->offset, s->p[4] = p->dq;
  s->order = p->order ? p->order : 2;
  if (!all_finite(s->p, 5) || !(p->dq > 0.0) || p->order < 0 || p->order > 3)
    return bad(cx, "sine needs finite parameters, dq > 0 and order 0..3");
  /* The segment length h: the truncation error of the degree-m series is at most
   * A·ω^(m+1)·h^(m+1)/(m+1)!, so h = ((m+1)!·dq/(A·ω^(m+1)))^(1/(m+1)); a constant,
   * worked out once. */
  double w = fabs(CDEVS_2PI * s->p[1]), A = fabs(s->p[0]);
  int m1 = s->order + 1;
  double fact = m1 == 1 ? 1 : m1 == 2 ? 2 : m1 == 3 ? 6 : 24;
  s->p[5] = A == 0.0 || w == 0.0 ? INFINITY : pow(fact * s->p[4] / (A * pow(w, m1)), 1.0 / m1);
  return src_start(cx, s, S_SINE);
}

static int wave_init(cdevs_ctx *cx, src_state *s, const cdevs_wave_params *p, int kind) {
  s->p[0] = p->low, s->p[1] = p->high, s->p[2] = p->period, s->p[3] = p->duty, s->p[4] = p->delay;
  if (!all_finite(s->p, 5) || !(p->period > 0.0) || !(p->delay >= 0.0))
    return bad(cx, "periodic source needs finite levels, period > 0 and delay >= 0");
  if (kind == S_PULSE && !(p->duty > 0.0 && p->duty < 1.0))
    return bad(cx, "pulse needs 0 < duty < 1");
  src_start(cx, s, kind);
  if (p->delay == 0.0) s->j = 0, s->k = 0;
  return CDEVS_OK;
}

static int pulse_init(cdevs_ctx *cx, void *state, const void *arg) {
  return wave_init(cx, state, arg, S_PULSE);
}
static int triangle_init(cdevs_ctx *cx, void *state, const void *arg) {
  return wave_init(cx, state, arg, S_TRIANGLE);
}
static int saw_init(cdevs_ctx *cx, void *state, const void *arg) {
  return wave_init(cx, state, arg, S_SAW);
}

static int table_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_table_params *p = arg;
  src_state *s = state;
  if (p->n < 1 || !p->t || !p->y) return bad(cx, "table needs at least one point");
  for (size_t i = 0; i < p->n; i++) {
    if (!isfinite(p->t[i]) || !isfinite(p->y[i])) return bad(cx, "table has a non-finite point");
    if (i && !(p->t[i] > p->t[i - 1])) {
      cdevs_ctx_fail(cx, "table times must increase strictly (point %zu: %g after %g)", i, p->t[i],
                     p->t[i - 1]);
      return CDEVS_EINVAL;
    }
  }
  s->alloc = cdevs_ctx_alloc(cx);
  s->n = p->n; /* fini frees by this size, also after a failure below */
  s->tt = cdevs__calloc(s->alloc, p->n, sizeof(double));
  s->ty = cdevs__calloc(s->alloc, p->n, sizeof(double));
  if (!s->tt || !s->ty) return CDEVS_ENOMEM;
  memcpy(s->tt, p->t, p->n * sizeof(double));
  memcpy(s->ty, p->y, p->n * sizeof(double));
  s->p[0] = p->linear ? 1.0 : 0.0;
  return src_start(cx, s, S_TABLE);
}

static void table_fini(void *state) {
  src_state *s = state;
  if (s->alloc) {
    cdevs__free(s->alloc, s->tt, s->n * sizeof(double));
    cdevs__free(s->alloc, s->ty, s->n * sizeof(double));
  }
}

static double src_ta(const void *state) {
  const src_state *s = state;
  return s->t_seg == INFINITY ? INFINITY : s->t_seg - s->t0;
}

static void src_output(cdevs_ctx *cx, const void *state) {
  double c[4];
  int order = segment(state, c);
  cdevs__emit_series(cx, 0, c, order);
}

static void src_int(cdevs_ctx *cx, void *state) {
  src_state *s = state;
  double now = cdevs_ctx_time(cx);
  double next = next_segment(s);
  /* ta is measured from the last transition: keep t0 as that time. */
  s->t_seg = next < now ? now : next;
  s->t0 = now;
}

#define SRC_OPS(sym, tname, params, initfn, finifn)                                          \
  const cdevs_atomic_ops sym = {.type = tname,                                                \
                                .state_size = sizeof(src_state),                              \
                                .arg_size = params,                                           \
                                .inputs = no_in,                                              \
                                .outputs = src_out,                                           \
                                .init = initfn,                                               \
                                .ta = src_ta,                                                 \
                                .output = src_output,                                         \
                                .delta_int = src_int,                                         \
                                .fini = finifn}

SRC_OPS(cdevs_constant_ops, "Constant", sizeof(cdevs_constant_params), const_init, NULL);
SRC_OPS(cdevs_step_ops, "Step", sizeof(cdevs_step_params), step_init, NULL);
SRC_OPS(cdevs_ramp_ops, "Ramp", sizeof(cdevs_ramp_params), ramp_init, NULL);
SRC_OPS(cdevs_sine_ops, "Sine", sizeof(cdevs_sine_params), sine_init, NULL);
SRC_OPS(cdevs_pulse_ops, "Pulse", sizeof(cdevs_wave_params), pulse_init, NULL);
SRC_OPS(cdevs_triangle_ops, "Triangle", sizeof(cdevs_wave_params), triangle_init, NULL);
SRC_OPS(cdevs_saw_ops, "Saw", sizeof(cdevs_wave_params), saw_init, NULL);
SRC_OPS(cdevs_table_ops, "Table", sizeof(cdevs_table_params), table_init, table_fini);
