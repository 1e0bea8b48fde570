/* SPDX-License-Identifier: MIT */
/* Generator: periodic job numbers until told to stop. */
#include <math.h>

#include "cdevs/blocks.h"

static const cdevs_port_def gen_in[] = {{"stop", CDEVS_ANY}, {NULL, CDEVS_ANY}};
static const cdevs_port_def gen_out[] = {{"out", CDEVS_INT}, {NULL, CDEVS_ANY}};

static int gen_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_generator_params *p = arg;
  cdevs_generator_state *s = state;
  if (!(p->period > 0.0) || !isfinite(p->period) || !(p->first >= 0.0)) {
    cdevs_ctx_fail(cx, "generator needs period > 0 and first >= 0 (got period=%g, first=%g)",
                   p->period, p->first);
    return CDEVS_EINVAL;
  }
  s->sigma = p->first;
  s->period = p->period;
  s->next_job = 0;
  return CDEVS_OK;
}

static double gen_ta(const void *state) { return ((const cdevs_generator_state *)state)->sigma; }

static void gen_output(cdevs_ctx *cx, const void *state) {
  cdevs_emit_int(cx, 0, ((const cdevs_generator_state *)state)->next_job);
}

static void gen_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  cdevs_generator_state *s = state;
  s->next_job++;
  s->sigma = s->period;
}

/* Any input stops the generator; a stop that coincides with a job still lets that job
   out, since δconf runs δint (after λ) before δext. */
static void gen_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)cx;
  (void)e;
  (void)x;
  ((cdevs_generator_state *)state)->sigma = INFINITY;
}

const cdevs_atomic_ops cdevs_generator_ops = {
    .type = "Generator",
    .state_size = sizeof(cdevs_generator_state),
    .arg_size = sizeof(cdevs_generator_params),
    .inputs = gen_in,
    .outputs = gen_out,
    .init = gen_init,
    .ta = gen_ta,
    .output = gen_output,
    .delta_int = gen_int,
    .delta_ext = gen_ext,
};
