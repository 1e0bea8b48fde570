/* SPDX-License-Identifier: MIT */
/* Transducer: throughput and turnaround time of the jobs a processor solves. */
#include <math.h>
#include <string.h>

#include "cdevs/blocks.h"

enum { T_ARRIVED = 0, T_SOLVED = 1 };

static const cdevs_port_def tr_in[] = {
    {"arrived", CDEVS_INT}, {"solved", CDEVS_INT}, {NULL, CDEVS_ANY}};
static const cdevs_port_def tr_out[] = {{"out", CDEVS_INT}, {NULL, CDEVS_ANY}};

static int tr_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_transducer_params *p = arg;
  cdevs_transducer_state *s = state;
  if (!(p->observation_time > 0.0)) {
    cdevs_ctx_fail(cx, "transducer needs observation_time > 0 (got %g)", p->observation_time);
    return CDEVS_EINVAL;
  }
  s->sigma = p->observation_time;
  s->t0 = s->clock = cdevs_ctx_time(cx);
  s->alloc = cdevs_ctx_alloc(cx);
  return CDEVS_OK;
}

static void tr_fini(void *state) {
  cdevs_transducer_state *s = state;
  if (s->arrival) s->alloc->realloc(s->alloc->ud, s->arrival, s->narrival * sizeof(double), 0);
}

static double tr_ta(const void *state) { return ((const cdevs_transducer_state *)state)->sigma; }

static void tr_output(cdevs_ctx *cx, const void *state) {
  cdevs_emit_int(cx, 0, (int64_t)((const cdevs_transducer_state *)state)->solved);
}

static void tr_int(cdevs_ctx *cx, void *state) {
  cdevs_transducer_state *s = state;
  s->clock = cdevs_ctx_time(cx);
  s->sigma = INFINITY;
  s->closed = 1;
}

/* Makes room for job number j in the arrival table; -1 when out of memory. */
static int reserve(cdevs_transducer_state *s, int64_t j) {
  if (j < 0 || j > (int64_t)(UINT32_MAX / 2)) return -1;
  if ((uint32_t)j < s->narrival) return 0;
  uint32_t cap = s->narrival ? s->narrival : 64;
  while (cap <= (uint32_t)j) cap *= 2;
  double *a = s->alloc->realloc(s->alloc->ud, s->arrival, s->narrival * sizeof(double),
                                cap * sizeof(double));
  if (!a) return -1;
  for (uint32_t i = s->narrival; i < cap; i++) a[i] = NAN;
  s->arrival = a;
  s->narrival = cap;
  return 0;
}

static void tr_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  cdevs_transducer_state *s = state;
  if (s->closed) return;
  double t = cdevs_ctx_time(cx);
  s->clock = t;
  s->sigma -= e;
  /* Arrivals first: a job that arrives and is solved at one instant has turnaround 0. */
  for (size_t k = 0; k < x->n; k++) {
    if (x->events[k].port != T_ARRIVED) continue;
    int64_t j = x->events[k].value->u.integer;
    if (reserve(s, j)) {
      cdevs_ctx_fail(cx, "cannot record job %lld", (long long)j);
      return;
    }
    s->arrival[j] = t;
    s->arrived++;
  }
  for (size_t k = 0; k < x->n; k++) {
    if (x->events[k].port != T_SOLVED) continue;
    int64_t j = x->events[k].value->u.integer;
    if (j < 0 || (uint64_t)j >= s->narrival || isnan(s->arrival[j])) {
      cdevs_ctx_fail(cx, "job %lld solved but never seen arriving", (long long)j);
      return;
    }
    s->solved++;
    s->total_turnaround += t - s->arrival[j];
  }
}

/* Observations that coincide with the end of the window still count. */
static void tr_conf(cdevs_ctx *cx, void *state, const cdevs_bag *x) {
  tr_ext(cx, state, 0.0, x);
  tr_int(cx, state);
}

double cdevs_transducer_throughput(const cdevs_transducer_state *s) {
  double span = s->clock - s->t0;
  return span > 0.0 ? (double)s->solved / span : NAN;
}

double cdevs_transducer_mean_turnaround(const cdevs_transducer_state *s) {
  return s->solved ? s->total_turnaround / (double)s->solved : NAN;
}

const cdevs_atomic_ops cdevs_transducer_ops = {
    .type = "Transducer",
    .state_size = sizeof(cdevs_transducer_state),
    .arg_size = sizeof(cdevs_transducer_params),
    .inputs = tr_in,
    .outputs = tr_out,
    .init = tr_init,
    .ta = tr_ta,
    .output = tr_output,
    .delta_int = tr_int,
    .delta_ext = tr_ext,
    .delta_conf = tr_conf,
    .fini = tr_fini,
};

cdevs_model *cdevs_efp_build(const cdevs_alloc *a, const cdevs_generator_params *g,
                             const cdevs_processor_params *p, const cdevs_transducer_params *t) {
  cdevs_model *root = cdevs_root_new(a, "efp");
  if (!root) return NULL;
  cdevs_port_add(root, CDEVS_OUT, "solved", CDEVS_INT);
  cdevs_model *ef = cdevs_coupled_add(root, "ef");
  cdevs_port_add(ef, CDEVS_IN, "in", CDEVS_INT);
  cdevs_port_add(ef, CDEVS_OUT, "out", CDEVS_INT);
  cdevs_model *genr = cdevs_atomic_add(ef, "genr", &cdevs_generator_ops, g);
  cdevs_model *transd = cdevs_atomic_add(ef, "transd", &cdevs_transducer_ops, t);
  cdevs_model *proc = cdevs_atomic_add(root, "proc", &cdevs_processor_ops, p);
  cdevs_connect(ef, genr, "out", ef, "out");
  cdevs_connect(ef, genr, "out", transd, "arrived");
  cdevs_connect(ef, ef, "in", transd, "solved");
  cdevs_connect(ef, transd, "out", genr, "stop");
  cdevs_connect(root, ef, "out", proc, "in");
  cdevs_connect(root, proc, "out", ef, "in");
  cdevs_connect(root, proc, "out", root, "solved");
  return root;
}
