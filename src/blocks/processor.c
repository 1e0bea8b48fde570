/* SPDX-License-Identifier: MIT */
/* Processor: serves one job at a time for a fixed time; drops what arrives meanwhile. */
#include <math.h>

#include "cdevs/blocks.h"

static const cdevs_port_def proc_in[] = {{"in", CDEVS_INT}, {NULL, CDEVS_ANY}};
static const cdevs_port_def proc_out[] = {{"out", CDEVS_INT}, {NULL, CDEVS_ANY}};

static int proc_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_processor_params *p = arg;
  cdevs_processor_state *s = state;
  if (!(p->processing_time >= 0.0) || !isfinite(p->processing_time)) {
    cdevs_ctx_fail(cx, "processor needs processing_time >= 0 (got %g)", p->processing_time);
    return CDEVS_EINVAL;
  }
  s->sigma = INFINITY;
  s->processing_time = p->processing_time;
  return CDEVS_OK;
}

static double proc_ta(const void *state) { return ((const cdevs_processor_state *)state)->sigma; }

static void proc_output(cdevs_ctx *cx, const void *state) {
  const cdevs_processor_state *s = state;
  if (s->busy) cdevs_emit_int(cx, 0, s->job);
}

static void proc_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  cdevs_processor_state *s = state;
  if (s->busy) s->done++;
  s->busy = 0;
  s->sigma = INFINITY;
}

static void proc_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)cx;
  cdevs_processor_state *s = state;
  size_t first = 0;
  if (!s->busy && x->n > 0) {
    s->busy = 1;
    s->job = x->events[0].value->u.integer;
    s->received++;
    s->sigma = s->processing_time;
    first = 1;
  } else {
    s->sigma -= e;
  }
  s->bailed += x->n - first;
}

const cdevs_atomic_ops cdevs_processor_ops = {
    .type = "Processor",
    .state_size = sizeof(cdevs_processor_state),
    .arg_size = sizeof(cdevs_processor_params),
    .inputs = proc_in,
    .outputs = proc_out,
    .init = proc_init,
    .ta = proc_ta,
    .output = proc_output,
    .delta_int = proc_int,
    .delta_ext = proc_ext,
};
