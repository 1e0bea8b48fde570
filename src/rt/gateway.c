/* SPDX-License-Identifier: MIT */
/* The gateway: the one model the executive injects into (at the root's "_rt" input
 * port). Each injected message says which input port of which atomic model its value
 * is for; the gateway passes it on at the same simulated time with cdevs_send, so an
 * external input can reach any port of any model without a coupling to it. */
#include <math.h>
#include <string.h>

#include "rt/rt_impl.h"

static void delivery_destroy(void *payload) {
  cdevs__delivery *d = payload;
  if (d->v.kind == CDEVS_MSG || d->v.kind == CDEVS_ARRAY) cdevs_msg_release(d->v.u.msg);
}

const cdevs_msg_type cdevs__delivery_type = {"rt.delivery", delivery_destroy};

/* The executive injects one input per instant; two can meet in one bag when the next
 * is injected at the instant the gateway passes the last one on. */
#define GW_MAX 8

typedef struct gw_state {
  cdevs_msg *pending[GW_MAX];
  int n;
} gw_state;

static const cdevs_port_def gw_in[] = {{"in", CDEVS_MSG}, {NULL, CDEVS_ANY}};
static const cdevs_port_def gw_out[] = {{NULL, CDEVS_ANY}};

static double gw_ta(const void *state) { return ((const gw_state *)state)->n ? 0.0 : INFINITY; }

static void gw_output(cdevs_ctx *cx, const void *state) {
  const gw_state *s = state;
  for (int i = 0; i < s->n; i++) {
    const cdevs__delivery *d = cdevs_msg_data(s->pending[i]);
    cdevs_send(cx, d->atomic, d->port, &d->v);
  }
}

static void gw_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  gw_state *s = state;
  for (int i = 0; i < s->n; i++) cdevs_msg_release(s->pending[i]);
  s->n = 0;
}

static void gw_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  gw_state *s = state;
  for (size_t k = 0; k < x->n; k++) {
    cdevs_msg *m = x->events[k].value->u.msg;
    if (cdevs_msg_type_of(m) != &cdevs__delivery_type) {
      cdevs_ctx_fail(cx, "the real-time gateway takes only the executive's inputs");
      return;
    }
    if (s->n == GW_MAX) {
      cdevs_ctx_fail(cx, "more than %d external inputs at one instant", GW_MAX);
      return;
    }
    s->pending[s->n++] = cdevs_msg_retain(m);
  }
}

static void gw_fini(void *state) { gw_int(NULL, state); }

const cdevs_atomic_ops cdevs__gateway_ops = {
    .type = "rt.gateway",
    .state_size = sizeof(gw_state),
    .inputs = gw_in,
    .outputs = gw_out,
    .ta = gw_ta,
    .output = gw_output,
    .delta_int = gw_int,
    .delta_ext = gw_ext,
    .fini = gw_fini,
};
