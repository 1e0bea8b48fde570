/* SPDX-License-Identifier: MIT */
/* The QSS integrator block (and its reset variant) over the shared quantizer. */
#include <math.h>

#include "cdevs/continuous.h"
#include "qss/qss_impl.h"
#include "signal.h"

typedef struct integ_state {
  cdevs__qvar v;
  const cdevs__qss_method *m;
  uint64_t steps;
  int started; /* the start-up output at t0 is done (it is not a requantization) */
} integ_state;

static const cdevs_port_def integ_in[] = {{"u", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
static const cdevs_port_def rinteg_in[] = {
    {"u", CDEVS_TAYLOR}, {"reset", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
static const cdevs_port_def integ_out[] = {{"y", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
/* u is one signal and required; a reset integrator may be left without reset. */
static const unsigned char integ_in_drivers[] = {CDEVS_DRIVERS_ONE};
static const unsigned char rinteg_in_drivers[] = {CDEVS_DRIVERS_ONE, CDEVS_DRIVERS_OPTIONAL};

static int integ_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_integrator_params *p = arg;
  integ_state *s = state;
  cdevs_qss_method id = p->method ? p->method : CDEVS_QSS3;
  s->m = cdevs__qss_method_get(id);
  if (!s->m) {
    cdevs_ctx_fail(cx, "integrator: unknown QSS method %d", (int)p->method);
    return CDEVS_EINVAL;
  }
  if (!isfinite(p->x0) || !(p->dqrel >= 0.0) || !isfinite(p->dqrel) || !(p->dqmin > 0.0) ||
      !isfinite(p->dqmin)) {
    cdevs_ctx_fail(cx, "integrator needs a finite x0, dqrel >= 0 and dqmin > 0 (got x0=%g dqrel=%g dqmin=%g)",
                   p->x0, p->dqrel, p->dqmin);
    return CDEVS_EINVAL;
  }
  cdevs__qvar_init(&s->v, s->m, p->x0, p->dqrel, p->dqmin, cdevs_ctx_time(cx));
  return CDEVS_OK;
}

static double integ_ta(const void *state) {
  const integ_state *s = state;
  return s->v.tn - s->v.tx; /* every transition moves x's origin (tx) to its time */
}

static void integ_output(cdevs_ctx *cx, const void *state) {
  const integ_state *s = state;
  /* λ sees the state before δint: announce the q that δint will set. */
  double q[4];
  cdevs__qvar_next_q(&s->v, s->m, cdevs_ctx_time(cx), q);
  cdevs__emit_series(cx, 0, q, s->m->order - 1);
}

static void integ_int(cdevs_ctx *cx, void *state) {
  integ_state *s = state;
  cdevs__qvar_requantize(&s->v, s->m, cdevs_ctx_time(cx));
  if (s->started) s->steps++;
  s->started = 1;
}

static void integ_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  integ_state *s = state;
  double t = cdevs_ctx_time(cx);
  const cdevs_value *du = NULL, *reset = NULL;
  for (size_t i = 0; i < x->n; i++) {
    if (x->events[i].port == 0)
      du = x->events[i].value; /* several in one bag: the last one wins */
    else
      reset = x->events[i].value;
  }
  if (du) {
    cdevs__sig d;
    cdevs__sig_set(&d, du, t);
    cdevs__qvar_set_derivative(&s->v, s->m, t, d.c, d.order);
  }
  if (reset) {
    cdevs__sig r;
    cdevs__sig_set(&r, reset, t);
    if (!isfinite(r.c[0])) {
      cdevs_ctx_fail(cx, "integrator reset to a non-finite value");
      return;
    }
    cdevs__qvar_reset(&s->v, s->m, t, r.c[0]);
  }
}

double cdevs_integrator_x(const void *state, double t) {
  const integ_state *s = state;
  return cdevs__qvar_x(&s->v, s->m, t);
}

uint64_t cdevs_integrator_steps(const void *state) { return ((const integ_state *)state)->steps; }

/* The reset integrator differs only in its input ports. */
#define INTEGRATOR_OPS(sym, tname, in)                                                       \
  const cdevs_atomic_ops sym = {.type = tname,                                                \
                                .state_size = sizeof(integ_state),                            \
                                .arg_size = sizeof(cdevs_integrator_params),                  \
                                .inputs = in,                                                 \
                                .in_drivers = in##_drivers,                                   \
                                .outputs = integ_out,                                         \
                                .init = integ_init,                                           \
                                .ta = integ_ta,                                               \
                                .output = integ_output,                                       \
                                .delta_int = integ_int,                                       \
                                .delta_ext = integ_ext}

INTEGRATOR_OPS(cdevs_integrator_ops, "Integrator", integ_in);
INTEGRATOR_OPS(cdevs_reset_integrator_ops, "ResetIntegrator", rinteg_in);
