/* SPDX-License-Identifier: MIT */
/* A DEVS graph as an atomic model: ta is the time left in the phase, λ emits the
 * phase's internal outputs, δint and δext take the transitions, δconf applies the
 * graph's confluence rule. */
#include <math.h>
#include <string.h>

#include "graph_impl.h"

static double *vars_of(gstate *s) { return s->data; }
static double *in_last_of(gstate *s) { return s->data + s->g->nvars; }
static uint8_t *in_n_of(gstate *s) { return (uint8_t *)(s->data + s->g->nvars + s->g->nin); }

static double run(const cdevs_graph *g, gcode c, const gctx *x) { return cdevs__graph_run(g->ins + c.start, c.n, x); }

/* Enters phase p at time t: its lifetime, from the variables as they now are. */
static void enter(cdevs_ctx *cx, gstate *s, int32_t p, double t) {
  const cdevs_graph *g = s->g;
  const gphase *ph = &g->phases[p];
  s->phase = p;
  s->t_entry = t;
  double life = INFINITY;
  if (ph->lifetime.n) {
    gctx x = {.vars = vars_of(s), .t = t, .elapsed = 0.0};
    life = run(g, ph->lifetime, &x);
    if (!(life >= 0.0)) {
      cdevs_ctx_fail(cx, "phase '%s'%s%s: lifetime %g: it must be >= 0", ph->name, ph->where ? " at " : "",
                     ph->where ? ph->where : "", life);
      life = INFINITY;
    }
  }
  s->sigma = life;
  s->t_next = t + life;
}

static int graph_init(cdevs_ctx *cx, void *state, const void *arg) {
  gstate *s = state;
  memcpy(&s->g, arg, sizeof s->g);
  const cdevs_graph *g = s->g;
  for (uint32_t i = 0; i < g->nvars; i++) vars_of(s)[i] = g->vars[i].initial;
  s->fired = -1;
  enter(cx, s, g->initial, cdevs_ctx_time(cx));
  return 0;
}

static double graph_ta(const void *state) { return ((const gstate *)state)->sigma; }

static void graph_output(cdevs_ctx *cx, const void *state) {
  const gstate *s = state;
  const cdevs_graph *g = s->g;
  const gphase *ph = &g->phases[s->phase];
  if (ph->internal < 0) return;
  const gtrans *tr = &g->trans[ph->internal];
  double t = cdevs_ctx_time(cx);
  gctx x = {.vars = s->data, .t = t, .elapsed = t - s->t_entry};
  for (uint32_t i = 0; i < tr->nemits; i++) {
    const gaction *a = &g->acts[tr->act0 + i];
    cdevs_value v = cdevs_real(run(g, a->value, &x));
    v.kind = CDEVS_TAYLOR; /* order 0: a piecewise-constant signal */
    cdevs_emit(cx, (int)a->target, &v);
  }
}

/* Runs transition tr's assignments, in order, and enters its target. */
static void take(cdevs_ctx *cx, gstate *s, int32_t t_index, const gctx *x0, double t) {
  const cdevs_graph *g = s->g;
  const gtrans *tr = &g->trans[t_index];
  gctx x = *x0;
  double *vars = vars_of(s);
  for (uint32_t i = 0; i < tr->nassigns; i++) {
    const gaction *a = &g->acts[tr->act0 + tr->nemits + i];
    vars[a->target] = run(g, a->value, &x);
  }
  s->fired = t_index;
  enter(cx, s, tr->to, t);
}

static void graph_internal(cdevs_ctx *cx, void *state) {
  gstate *s = state;
  const gphase *ph = &s->g->phases[s->phase];
  double t = cdevs_ctx_time(cx);
  s->dropped = 0;
  if (ph->internal < 0) { /* (the check lets no finite lifetime end without one) */
    cdevs_ctx_fail(cx, "phase '%s' ended with no internal transition", ph->name);
    return;
  }
  gctx x = {.vars = vars_of(s), .t = t, .elapsed = t - s->t_entry};
  take(cx, s, ph->internal, &x, t);
}

/* δext at time t: the bag's values per port, then the guards of the phase's
 * external transitions, in declaration order. */
static void external_at(cdevs_ctx *cx, gstate *s, const cdevs_bag *bag, double t) {
  const cdevs_graph *g = s->g;
  double *in_last = in_last_of(s);
  uint8_t *in_n = in_n_of(s);
  memset(in_n, 0, g->nin);
  for (size_t i = 0; i < bag->n; i++) {
    const cdevs_event *ev = &bag->events[i];
    double v = cdevs__graph_value_num(ev->value);
    if (isnan(v) && ev->value->kind != CDEVS_REAL && ev->value->kind != CDEVS_TAYLOR) {
      cdevs_ctx_fail(cx, "input '%s' received a %s value: a graph's inputs take numbers", g->in_defs[ev->port].name,
                     cdevs_kind_name(ev->value->kind));
      return;
    }
    in_last[ev->port] = v;
    if (in_n[ev->port] < 255) in_n[ev->port]++;
  }
  const gphase *ph = &g->phases[s->phase];
  gctx x = {.vars = vars_of(s), .in_last = in_last, .in_n = in_n, .bag = bag, .t = t, .elapsed = t - s->t_entry};
  int32_t chosen = -1;
  for (uint32_t k = 0; k < ph->next; k++) {
    uint32_t ti = g->ext_of[ph->ext0 + k];
    const gtrans *tr = &g->trans[ti];
    /* A guard that reads ports is offered only bags that hold one of them. */
    int offered = tr->nreads == 0;
    for (uint32_t r = 0; r < tr->nreads && !offered; r++) offered = in_n[g->reads[tr->read0 + r]] != 0;
    if (!offered || (tr->guard.n && run(g, tr->guard, &x) == 0.0)) continue;
    if (chosen >= 0) {
      const gtrans *a = &g->trans[chosen];
      cdevs_ctx_fail(cx, "phase '%s': external transitions %s%s%s%s and %s%s%s%s fire on the same input; the next "
                     "phase is undefined (GGADLib aborts too)", ph->name,
                     a->label ? a->label : g->phases[a->to].name, a->where ? " (" : "", a->where ? a->where : "",
                     a->where ? ")" : "", tr->label ? tr->label : g->phases[tr->to].name, tr->where ? " (" : "",
                     tr->where ? tr->where : "", tr->where ? ")" : "");
      return;
    }
    chosen = (int32_t)ti;
  }
  if (chosen < 0) { /* ignored: the phase goes on, its lifetime unchanged */
    s->fired = -1;
    s->sigma = s->t_next - t;
    if (!(s->sigma >= 0.0)) s->sigma = 0.0; /* (t_next - t rounds below 0 only by an ulp) */
    return;
  }
  take(cx, s, chosen, &x, t);
}

static void graph_external(cdevs_ctx *cx, void *state, double e, const cdevs_bag *bag) {
  (void)e; /* the phase's own elapsed time counts from its entry (t_entry), across ignored inputs */
  gstate *s = state;
  s->dropped = 0;
  external_at(cx, s, bag, cdevs_ctx_time(cx));
}

static void graph_confluent(cdevs_ctx *cx, void *state, const cdevs_bag *bag) {
  gstate *s = state;
  graph_internal(cx, s);
  if (s->g->conf == CDEVS_GRAPH_CONF_BOTH) {
    external_at(cx, s, bag, cdevs_ctx_time(cx));
  } else { /* GGADLib: only the internal transition; what arrived is noted, not taken */
    s->dropped = 1;
    double *in_last = in_last_of(s);
    uint8_t *in_n = in_n_of(s);
    memset(in_n, 0, s->g->nin);
    for (size_t i = 0; i < bag->n; i++) {
      in_last[bag->events[i].port] = cdevs__graph_value_num(bag->events[i].value);
      if (in_n[bag->events[i].port] < 255) in_n[bag->events[i].port]++;
    }
  }
}

const cdevs_atomic_ops cdevs__graph_ops_template = {
    .type = "graph",
    .state_size = sizeof(gstate),
    .arg_size = sizeof(const cdevs_graph *),
    .init = graph_init,
    .ta = graph_ta,
    .output = graph_output,
    .delta_int = graph_internal,
    .delta_ext = graph_external,
    .delta_conf = graph_confluent,
};

/* ---- The state, from outside ---------------------------------------------------------- */

int cdevs_graph_state_phase(const void *state) { return ((const gstate *)state)->phase; }
int cdevs_graph_state_fired(const void *state) { return ((const gstate *)state)->fired; }
int cdevs_graph_state_dropped(const void *state) { return ((const gstate *)state)->dropped; }

double cdevs_graph_state_var(const void *state, int var) {
  const gstate *s = state;
  return var >= 0 && (uint32_t)var < s->g->nvars ? s->data[var] : NAN;
}

int cdevs_graph_state_input(const void *state, int port, double *value) {
  const gstate *s = state;
  if (port < 0 || (uint32_t)port >= s->g->nin) return 0;
  const uint8_t *in_n = (const uint8_t *)(s->data + s->g->nvars + s->g->nin);
  if (value) *value = s->data[s->g->nvars + (uint32_t)port];
  return in_n[port];
}
