/* SPDX-License-Identifier: MIT */
/* The simulator: creation from a flattened model, the run loop, the step API. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_impl.h"
#include "sim_impl.h"

#define STATE_ALIGN CDEVS_STATE_ALIGN

/* ---- errors ------------------------------------------------------------------------ */

void cdevs__sim_error(cdevs_sim *s, cdevs_status st, const char *fmt, ...) {
  s->failed = true;
  if (s->status != CDEVS_OK) return;
  s->status = st;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->errmsg, sizeof s->errmsg, fmt, ap);
  va_end(ap);
}

const char *cdevs_sim_errmsg(const cdevs_sim *s) { return s ? s->errmsg : "no simulator"; }

static const char *path_of(const cdevs_sim *s, uint32_t id, char *buf, size_t size) {
  cdevs_model_path(s->model[id], buf, size);
  return buf;
}

/* ---- callbacks' context ---------------------------------------------------------------- */

double cdevs_ctx_time(const cdevs_ctx *cx) { return cx->t; }
double cdevs_ctx_horizon(const cdevs_ctx *cx) { return cx->horizon; }
void cdevs_ctx_advance(cdevs_ctx *cx, double t) {
  if (cx->phase != PHASE_TRANSITION || !(t >= cx->t && t <= cx->horizon)) {
    char path[256];
    cdevs__sim_error(cx->sim, CDEVS_ESTATE, "t=%.17g: model '%s': cdevs_ctx_advance(%.17g) outside δint or beyond its horizon %.17g",
                     cx->t, path_of(cx->sim, cx->model, path, sizeof path), t, cx->horizon);
    return;
  }
  cx->t = t;
}
const cdevs_model *cdevs_ctx_model(const cdevs_ctx *cx) {
  return cx->model < cx->sim->n ? cx->sim->model[cx->model] : NULL;
}
const cdevs_alloc *cdevs_ctx_alloc(const cdevs_ctx *cx) { return &cx->sim->alloc; }

void cdevs_ctx_fail(cdevs_ctx *cx, const char *fmt, ...) {
  cdevs_sim *s = cx->sim;
  char msg[384], path[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cdevs__sim_error(s, CDEVS_EMODEL, "t=%.17g: model '%s': %s", cx->t,
                   path_of(s, cx->model, path, sizeof path), msg);
}

/* A new entry of the instant's outputs (its value retained), or NULL after an error. */
static inline out_ev *push_out(cdevs_sim *s, double t, uint32_t m, uint32_t port, const cdevs_value *v) {
  if (s->nouts == s->capouts && CDEVS_GROW(&s->alloc, s->outs, s->capouts, s->nouts + 1)) {
    cdevs__sim_error(s, CDEVS_ENOMEM, "t=%.17g: out of memory for outputs", t);
    return NULL;
  }
  out_ev *o = &s->outs[s->nouts++];
  o->src = m;
  o->port = port;
  o->v = *v;
  if (v->kind == CDEVS_MSG || v->kind == CDEVS_ARRAY) cdevs_msg_retain(v->u.msg);
  return o;
}

void cdevs_emit(cdevs_ctx *cx, int port, const cdevs_value *v) {
  cdevs_sim *s = cx->sim;
  uint32_t m = cx->model;
  char path[256];
  if (cx->phase != PHASE_OUTPUT) {
    cdevs__sim_error(s, CDEVS_ESTATE, "t=%.17g: model '%s': cdevs_emit outside the output function",
                     cx->t, path_of(s, m, path, sizeof path));
    return;
  }
  uint32_t nports = s->out_base[m + 1] - s->out_base[m];
  if (port < 0 || (uint32_t)port >= nports) {
    cdevs__sim_error(s, CDEVS_EINVAL, "t=%.17g: model '%s': emit on output port %d of %u",
                     cx->t, path_of(s, m, path, sizeof path), port, nports);
    return;
  }
  uint32_t g = s->out_base[m] + (uint32_t)port;
  uint8_t k = cdevs__out_kind(s, g);
  if (k != CDEVS_ANY && k != v->kind) {
    cdevs__sim_error(s, CDEVS_EKIND, "t=%.17g: model '%s': %s value on %s output port '%s'",
                     cx->t, path_of(s, m, path, sizeof path), cdevs_kind_name(v->kind),
                     cdevs_kind_name(k), s->model[m]->ports[CDEVS_OUT][port].name);
    return;
  }
  const dest *d0, *d1;
  cdevs__routes(s, g, &d0, &d1);
  if (d0 == d1 && !s->nobs) { /* coupled to nothing and nobody watching: count it only */
    s->st.outputs++;
    return;
  }
  out_ev *o = push_out(s, cx->t, m, (uint32_t)port, v);
  if (!o) return;
  o->d0 = d0;
  o->d1 = d1;
  o->to.model = UINT32_MAX;
}

uint32_t cdevs_ctx_self(const cdevs_ctx *cx) { return cx->model; }

uint32_t cdevs_ctx_fanout(const cdevs_ctx *cx, int port) {
  const cdevs_sim *s = cx->sim;
  uint32_t m = cx->model;
  if (m >= s->n || port < 0 || (uint32_t)port >= s->out_base[m + 1] - s->out_base[m]) return 0;
  uint32_t g = s->out_base[m] + (uint32_t)port;
  const dest *d0, *d1;
  cdevs__routes(s, g, &d0, &d1);
  return (uint32_t)(d1 - d0);
}

void cdevs_send(cdevs_ctx *cx, uint32_t to, int port, const cdevs_value *v) {
  cdevs_sim *s = cx->sim;
  uint32_t m = cx->model;
  char path[256];
  if (cx->phase != PHASE_OUTPUT) {
    cdevs__sim_error(s, CDEVS_ESTATE, "t=%.17g: model '%s': cdevs_send outside the output function",
                     cx->t, path_of(s, m, path, sizeof path));
    return;
  }
  if (to >= s->n) {
    cdevs__sim_error(s, CDEVS_EINVAL, "t=%.17g: model '%s': cdevs_send to model %u of %u",
                     cx->t, path_of(s, m, path, sizeof path), to, s->n);
    return;
  }
  const cdevs_model *target = s->model[to];
  if (port < 0 || (uint32_t)port >= target->nports[CDEVS_IN]) {
    char other[256];
    cdevs__sim_error(s, CDEVS_EINVAL, "t=%.17g: model '%s': cdevs_send to input port %d of '%s', which has %u",
                     cx->t, path_of(s, m, path, sizeof path), port, path_of(s, to, other, sizeof other),
                     target->nports[CDEVS_IN]);
    return;
  }
  cdevs_kind k = target->ports[CDEVS_IN][port].kind;
  if (k != CDEVS_ANY && k != v->kind) {
    char other[256];
    cdevs__sim_error(s, CDEVS_EKIND, "t=%.17g: model '%s': %s value sent to %s input port '%s' of '%s'",
                     cx->t, path_of(s, m, path, sizeof path), cdevs_kind_name(v->kind), cdevs_kind_name(k),
                     target->ports[CDEVS_IN][port].name, path_of(s, to, other, sizeof other));
    return;
  }
  out_ev *o = push_out(s, cx->t, m, UINT32_MAX, v); /* left by no output port */
  if (!o) return;
  o->d0 = o->d1 = NULL;
  o->to.model = to;
  o->to.port = (uint32_t)port;
}

void cdevs_emit_real(cdevs_ctx *cx, int port, double x) {
  cdevs_value v = cdevs_real(x);
  cdevs_emit(cx, port, &v);
}

void cdevs_emit_int(cdevs_ctx *cx, int port, int64_t i) {
  cdevs_value v = cdevs_int(i);
  cdevs_emit(cx, port, &v);
}

/* ---- creation ---------------------------------------------------------------------------- */

cdevs_sim_opts cdevs_sim_opts_default(void) {
  cdevs_sim_opts o;
  memset(&o, 0, sizeof o);
  o.mode = CDEVS_PARALLEL;
  o.t0 = 0.0;
  o.max_transitions_per_instant = 1000000;
  return o;
}

static void release_values(out_ev *e, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (e[i].v.kind == CDEVS_MSG || e[i].v.kind == CDEVS_ARRAY) cdevs_msg_release(e[i].v.u.msg);
}

void cdevs_sim_free(cdevs_sim *s) {
  if (!s) return;
  const cdevs_alloc *a = &s->alloc;
  uint32_t n = s->cap; /* (the arrays' size: the tree's atomics, and those added during the run) */
  cdevs__changes_free(s); /* (first: the states of models added during the run, fini and all) */
  if (s->state)
    for (uint32_t i = 0; i < s->n; i++)
      if (s->state[i] && s->ops[i]->fini) s->ops[i]->fini(s->state[i]);
  release_values(s->outs, s->nouts);
  release_values(s->inj, s->ninj);
  uint32_t nout = s->nout_routed;
  cdevs__free(a, s->model, n * sizeof *s->model);
  cdevs__free(a, s->ops, n * sizeof *s->ops);
  cdevs__free(a, s->state, n * sizeof *s->state);
  cdevs__free(a, s->tl, n * sizeof *s->tl);
  cdevs__free(a, s->tn, n * sizeof *s->tn);
  cdevs__free(a, s->out_base, ((size_t)n + 1) * sizeof *s->out_base);
  cdevs__free(a, s->mark, n * sizeof *s->mark);
  cdevs__free(a, s->bag_head, n * sizeof *s->bag_head);
  cdevs__free(a, s->bag_tail, n * sizeof *s->bag_tail);
  cdevs__free(a, s->heap.e, n * sizeof *s->heap.e);
  cdevs__free(a, s->heap.pos, n * sizeof *s->heap.pos);
  cdevs__free(a, s->imm, n * sizeof *s->imm);
  cdevs__free(a, s->touched, n * sizeof *s->touched);
  cdevs__free(a, s->now, n * sizeof *s->now);
  if (s->fo_start) cdevs__free(a, s->fo, s->fo_start[nout] * sizeof *s->fo);
  cdevs__free(a, s->fo_start, ((size_t)nout + 1) * sizeof *s->fo_start);
  cdevs__free(a, s->out_kind, nout * sizeof *s->out_kind);
  if (s->in_start) cdevs__free(a, s->in_fo, s->in_start[s->n_root_in] * sizeof *s->in_fo);
  cdevs__free(a, s->in_start, ((size_t)s->n_root_in + 1) * sizeof *s->in_start);
  cdevs__free(a, s->arena, s->arena_size);
  CDEVS_FREEARR(a, s->outs, s->capouts);
  CDEVS_FREEARR(a, s->links, s->caplinks);
  CDEVS_FREEARR(a, s->evs, s->capevs);
  CDEVS_FREEARR(a, s->inj, s->capinj);
  atomic_fetch_sub(&s->root->ri->nsims, 1);
  cdevs_alloc copy = *a;
  cdevs__free(&copy, s, sizeof *s);
}

/* Records the time advance of model i after a transition (or init) at time t. */
static inline int schedule(cdevs_sim *s, uint32_t i, double t);
int cdevs__schedule(cdevs_sim *s, uint32_t i, double t) { return schedule(s, i, t); }
static inline int schedule(cdevs_sim *s, uint32_t i, double t) {
  double ta = s->ops[i]->ta(s->state[i]);
  s->tl[i] = t;
  if (!(ta >= 0.0)) { /* negative or NaN */
    char path[256];
    cdevs__sim_error(s, CDEVS_ETIME, "t=%.17g: model '%s': time advance %g is %s", t,
                     path_of(s, i, path, sizeof path), ta, isnan(ta) ? "NaN" : "negative");
    return -1;
  }
  double tn = t + ta;
  s->tn[i] = tn;
  cdevs__sched_set(s, i, tn);
  return 0;
}

cdevs_status cdevs_sim_new(const cdevs_model *root, const cdevs_sim_opts *opts, cdevs_sim **out) {
  if (!out) return CDEVS_EINVAL;
  *out = NULL;
  if (!root || root->parent) return CDEVS_EINVAL;
  if (root->ri->status != CDEVS_OK) return root->ri->status;
  cdevs_sim_opts o = opts ? *opts : cdevs_sim_opts_default();
  if ((o.mode != CDEVS_PARALLEL && o.mode != CDEVS_CLASSIC) || !isfinite(o.t0)) {
    cdevs__model_note((cdevs_model *)(uintptr_t)root, "invalid simulator options (mode %d, t0 %g)", (int)o.mode, o.t0);
    return CDEVS_EINVAL;
  }
  if (o.max_transitions_per_instant == 0) o.max_transitions_per_instant = 1000000;
  const cdevs_alloc *a = &root->ri->alloc;
  cdevs_sim *s = cdevs__calloc(a, 1, sizeof *s);
  if (!s) {
    cdevs__model_note((cdevs_model *)(uintptr_t)root, "out of memory building the simulator of %u atomic models",
                       root->ri->n_atomic);
    return CDEVS_ENOMEM;
  }
  s->root = root;
  atomic_fetch_add(&root->ri->nsims, 1); /* frozen until cdevs_sim_free */
  s->alloc = *a;
  a = &s->alloc;
  s->opts = o;
  s->cx.sim = s;
  s->cx.model = UINT32_MAX;
  s->cx.t = o.t0;
  s->cx.horizon = o.t0;
  s->until = -INFINITY;
  s->t_last = o.t0;
  s->max_at_t = o.max_transitions_per_instant;
  s->inj_t = INFINITY;

  cdevs_status st = cdevs__flatten(s);
  if (st) goto fail;
  uint32_t n = s->n;
  st = CDEVS_ENOMEM;
  s->state = cdevs__calloc(a, n, sizeof *s->state);
  s->tl = cdevs__calloc(a, n, sizeof *s->tl);
  s->tn = cdevs__calloc(a, n, sizeof *s->tn);
  s->mark = cdevs__calloc(a, n, sizeof *s->mark);
  s->bag_head = cdevs__calloc(a, n, sizeof *s->bag_head);
  s->bag_tail = cdevs__calloc(a, n, sizeof *s->bag_tail);
  s->heap.e = cdevs__calloc(a, n, sizeof *s->heap.e);
  s->heap.pos = cdevs__calloc(a, n, sizeof *s->heap.pos);
  s->imm = cdevs__calloc(a, n, sizeof *s->imm);
  s->touched = cdevs__calloc(a, n, sizeof *s->touched);
  s->now = cdevs__calloc(a, n, sizeof *s->now);
  if (!s->state || !s->tl || !s->tn || !s->mark || !s->bag_head || !s->bag_tail || !s->heap.e ||
      !s->heap.pos || !s->imm || !s->touched || !s->now)
    goto fail;
  for (uint32_t i = 0; i < n; i++) s->heap.pos[i] = HEAP_NONE;

  /* All states in one block, each aligned for any scalar the state may hold. */
  size_t total = 0;
  for (uint32_t i = 0; i < n; i++) {
    size_t sz = s->ops[i]->state_size;
    sz = (sz + STATE_ALIGN - 1) / STATE_ALIGN * STATE_ALIGN;
    if (total > SIZE_MAX - sz) goto fail;
    total += sz;
  }
  s->arena_size = total ? total : 1;
  s->arena = cdevs__calloc(a, 1, s->arena_size);
  if (!s->arena) goto fail;

  /* init every state in id order, then compute the first time advances. A model
     without init keeps a zeroed state. fini runs only for states whose init ran. */
  size_t off = 0;
  s->cx.phase = PHASE_INIT;
  for (uint32_t i = 0; i < n; i++) {
    const cdevs_atomic_ops *ops = s->ops[i];
    void *state = s->arena + off;
    off += (ops->state_size + STATE_ALIGN - 1) / STATE_ALIGN * STATE_ALIGN;
    s->cx.model = i;
    if (ops->init) {
      int r = ops->init(&s->cx, state, s->model[i]->arg);
      if (r < 0 || s->failed) {
        if (ops->fini) ops->fini(state);
        char path[256];
        cdevs_status why = s->failed ? s->status : (cdevs_status)r;
        cdevs__model_note((cdevs_model *)(uintptr_t)root, "initialising '%s': %s",
                           path_of(s, i, path, sizeof path),
                           s->failed ? s->errmsg : cdevs_strerror(r));
        st = why;
        goto fail;
      }
    }
    s->state[i] = state;
  }
  for (uint32_t i = 0; i < n; i++) {
    s->cx.model = i;
    if (schedule(s, i, o.t0)) {
      cdevs__model_note((cdevs_model *)(uintptr_t)root, "%s", s->errmsg);
      st = s->status;
      goto fail;
    }
  }
  s->cx.phase = PHASE_IDLE;
  s->cx.model = UINT32_MAX;
  s->st.atomics = n;
  *out = s;
  return CDEVS_OK;

fail:
  if (st == CDEVS_ENOMEM)
    cdevs__model_note((cdevs_model *)(uintptr_t)root, "out of memory building the simulator of %u atomic models",
                       root->ri->n_atomic);
  cdevs_sim_free(s);
  return st;
}

/* ---- the run loop ------------------------------------------------------------------------ */

double cdevs_sim_next_time(const cdevs_sim *s) {
  double t = cdevs__next_t(s);
  return s->ninj && s->inj_t < t ? s->inj_t : t;
}

double cdevs_sim_time(const cdevs_sim *s) { return s->t_last; }

/* Appends one event to the bag of model m, marking m as touched on its first event. */
static inline int deliver(cdevs_sim *s, uint32_t m, uint32_t port, uint32_t ev) {
  if (s->nlinks == s->caplinks && CDEVS_GROW(&s->alloc, s->links, s->caplinks, s->nlinks + 1))
    return -1;
  uint32_t k = s->nlinks++;
  s->links[k].next = UINT32_MAX;
  s->links[k].port = port;
  s->links[k].ev = ev;
  if (!(s->mark[m] & MARK_TOUCHED)) {
    s->mark[m] |= MARK_TOUCHED;
    s->touched[s->ntouched++] = m;
    s->bag_head[m] = k;
  } else {
    s->links[s->bag_tail[m]].next = k;
  }
  s->bag_tail[m] = k;
  return 0;
}

/* Gathers the bag of m into the contiguous event array handed to δext/δconf. */
static inline int gather(cdevs_sim *s, uint32_t m, cdevs_bag *bag) {
  uint32_t n = 0;
  for (uint32_t k = s->bag_head[m]; k != UINT32_MAX; k = s->links[k].next) {
    if (n == s->capevs && CDEVS_GROW(&s->alloc, s->evs, s->capevs, n + 1)) return -1;
    s->evs[n].port = (int)s->links[k].port;
    s->evs[n].value = &s->outs[s->links[k].ev].v;
    n++;
  }
  bag->events = s->evs;
  bag->n = n;
  return 0;
}

static void notify(cdevs_sim *s, double t, uint32_t m, cdevs_transition kind, size_t n) {
  for (uint32_t b = 0; b < s->nobs; b++)
    if (s->obs[b]->transition) s->obs[b]->transition(s->obs_ud[b], t, m, kind, n, s->tn[m]);
}

static void name_models(cdevs_sim *s, char *buf, size_t size) {
  size_t used = 0;
  uint32_t listed = 0, total = s->nimm + s->ntouched;
  buf[0] = '\0';
  for (uint32_t k = 0; k < total && listed < 6; k++) {
    uint32_t m = k < s->nimm ? s->imm[k] : s->touched[k - s->nimm];
    if (k >= s->nimm && (s->mark[m] & MARK_IMMINENT)) continue;
    char path[200];
    int w = snprintf(buf + used, size - used, "%s'%s'", listed ? ", " : "",
                     path_of(s, m, path, sizeof path));
    if (w < 0 || (size_t)w >= size - used) return;
    used += (size_t)w;
    listed++;
  }
  if (total > listed) snprintf(buf + used, size - used, " and %u more", total - listed);
}

/*
 * One instant: the transitions of every model with an event at time t.
 *  1. t is the earliest of the next internal event and the pending injected inputs.
 *  2. Imminent models (tn == t) leave the heap in (t, id) order: all of them under
 *     Parallel DEVS, only the first (the select order) under Classic DEVS.
 *  3. λ: each imminent model emits into the output buffer.
 *  4. Routing: each output, and each injected input, goes along its precomputed
 *     fan-out into the bags of its receivers; values reaching the root's outputs go
 *     to the observer.
 *  5. δ: imminent models run δconf when their bag is not empty, else δint; models
 *     that only received run δext with the elapsed time.
 *  6. Each model that transitioned gets tn = t + ta and its heap slot moves.
 *  7. The outputs are released and the legitimacy guard counts this instant.
 * `traced` is a compile-time constant at both call sites, so the observer calls
 * vanish from the untraced loop.
 */
static inline cdevs_status instant(cdevs_sim *s, const bool traced) {
  /* 1 */
  double t = cdevs__next_t(s);
  bool inputs = s->ninj && s->inj_t <= t;
  double reached = -INFINITY; /* where a lone δint's cdevs_ctx_advance took the time */
  if (inputs) t = s->inj_t;
  if (t == INFINITY) return CDEVS_ESTATE;
  s->cx.t = t;

  /* 2 */
  uint32_t nimm = 0;
  if (s->opts.mode == CDEVS_PARALLEL) {
    /* Every model due at t: the batch (sorted by id when it is not already) merged
     * with the heap's (which come out of it in id order): the order pops alone of
     * one heap would give. */
    uint32_t *now = s->now, nn = s->nnow && s->now_t == t ? s->nnow : 0, a = 0, k = 1;
    while (k < nn && now[k - 1] < now[k]) k++;
    if (k < nn) qsort(now, nn, sizeof *now, cdevs__cmp_u32);
    for (;;) {
      int from_heap = heap_min_time(&s->heap) == t;
      if (a == nn && !from_heap) break;
      uint32_t i;
      if (a < nn && !(from_heap && s->heap.e[0].id < now[a]))
        s->heap.pos[i = now[a++]] = HEAP_NONE;
      else
        i = heap_pop(&s->heap);
      s->imm[nimm++] = i;
      s->mark[i] = MARK_IMMINENT;
    }
    if (nn) s->nnow = 0;
  } else if (!inputs || heap_min_time(&s->heap) == t) { /* Classic DEVS: the one selected */
    uint32_t i = heap_pop(&s->heap);
    s->imm[nimm++] = i;
    s->mark[i] = MARK_IMMINENT;
  }
  s->nimm = nimm;

  /* 3 */
  s->cx.phase = PHASE_OUTPUT;
  for (uint32_t k = 0; k < nimm; k++) {
    uint32_t i = s->imm[k];
    if (s->ops[i]->output) {
      s->cx.model = i;
      s->ops[i]->output(&s->cx, s->state[i]);
    }
  }
  s->cx.phase = PHASE_TRANSITION;
  if (s->failed) goto fail;

  /* 4 */
  uint32_t nemitted = s->nouts;
  if (inputs) { /* injected inputs join the output buffer so bags can point at them */
    if (s->nouts + s->ninj > s->capouts &&
        CDEVS_GROW(&s->alloc, s->outs, s->capouts, s->nouts + s->ninj))
      goto oom;
    memcpy(s->outs + s->nouts, s->inj, s->ninj * sizeof *s->inj);
    s->nouts += s->ninj;
    s->ninj = 0;
    s->inj_t = INFINITY;
  }
  for (uint32_t e = 0; e < s->nouts; e++) {
    const out_ev *o = &s->outs[e];
    if (o->to.model != UINT32_MAX) { /* a direct send (cdevs_send): one receiver, no output port */
      if (deliver(s, o->to.model, o->to.port, e)) goto oom;
      continue;
    }
    if (traced && e < nemitted)
      for (uint32_t b = 0; b < s->nobs; b++)
        if (s->obs[b]->output) s->obs[b]->output(s->obs_ud[b], t, o->src, (int)o->port, &o->v);
    for (const dest *d = o->d0; d < o->d1; d++) {
      if (d->model == ROOT_OUT) {
        if (traced)
          for (uint32_t b = 0; b < s->nobs; b++)
            if (s->obs[b]->root_output)
              s->obs[b]->root_output(s->obs_ud[b], t, (int)d->port, &o->v);
        continue;
      }
      if (deliver(s, d->model, d->port, e)) goto oom;
    }
  }
  s->st.outputs += nemitted;
  s->st.deliveries += s->nlinks;

  /* 5 */
  cdevs_bag bag = {NULL, 0};
  uint32_t nexternal = 0;
  /* A lone internal transition (no model has inputs at this instant), unwatched, may
   * take the model's own events up to the next anything else (cdevs_ctx_horizon).
   * Inputs injected for later wait in inj_t. */
  s->cx.horizon = t;
  if (nimm == 1 && s->ntouched == 0 && s->until > t) { /* alone: no model has inputs now */
    int watched = 0;
    for (uint32_t b = 0; b < s->nobs; b++) watched |= s->obs[b]->transition != NULL;
    if (!watched) {
      double h = cdevs__next_t(s);
      if (s->ninj && s->inj_t < h) h = s->inj_t;
      s->cx.horizon = h < s->until ? h : s->until;
    }
  }
  for (uint32_t k = 0; k < nimm; k++) {
    uint32_t i = s->imm[k];
    const cdevs_atomic_ops *ops = s->ops[i];
    void *state = s->state[i];
    s->cx.model = i;
    if (s->mark[i] & MARK_TOUCHED) {
      if (gather(s, i, &bag)) goto oom;
      if (ops->delta_conf) {
        ops->delta_conf(&s->cx, state, &bag);
      } else {
        if (ops->delta_int) ops->delta_int(&s->cx, state);
        if (ops->delta_ext) ops->delta_ext(&s->cx, state, 0.0, &bag);
      }
      s->st.confluents++;
    } else {
      if (ops->delta_int) ops->delta_int(&s->cx, state);
      if (s->cx.t > t) reached = s->cx.t, s->cx.t = t; /* back from where cdevs_ctx_advance took it */
      bag.n = 0;
      s->st.internals++;
    }
    if (schedule(s, i, t)) goto fail;
    if (traced) notify(s, t, i, bag.n ? CDEVS_CONFLUENT : CDEVS_INTERNAL, bag.n);
  }
  for (uint32_t k = 0; k < s->ntouched; k++) {
    uint32_t j = s->touched[k];
    if (s->mark[j] & MARK_IMMINENT) continue;
    const cdevs_atomic_ops *ops = s->ops[j];
    s->cx.model = j;
    if (gather(s, j, &bag)) goto oom;
    if (ops->delta_ext) ops->delta_ext(&s->cx, s->state[j], t - s->tl[j], &bag);
    s->st.externals++;
    nexternal++;
    s->mark[j] = 0;
    if (schedule(s, j, t)) goto fail; /* 6 */
    if (traced) notify(s, t, j, CDEVS_EXTERNAL, bag.n);
  }
  if (s->failed) goto fail;

  /* 7 (marks of external-only receivers were cleared as they ran) */
  uint64_t count = nimm + nexternal;
  for (uint32_t k = 0; k < nimm; k++) s->mark[s->imm[k]] = 0;
  release_values(s->outs, s->nouts);
  s->nouts = 0;
  s->nlinks = 0;
  if (t == s->t_last) {
    s->at_t_count += count;
  } else {
    s->t_last = t;
    s->at_t_count = count;
  }
  s->ntouched = 0;
  s->st.instants++;
  s->cx.phase = PHASE_IDLE;
  if (s->nchg && cdevs__apply_changes(s, t)) { /* the structure changes asked for in this instant */
    s->cx.phase = PHASE_DEAD;
    return s->status;
  }
  if (s->at_t_count > s->max_at_t) {
    char names[400];
    name_models(s, names, sizeof names);
    cdevs__sim_error(s, CDEVS_ELEGIT,
                     "t=%.17g: more than %llu transitions at one instant (an illegitimate "
                     "model, or raise the limit); the last step involved %s",
                     t, (unsigned long long)s->max_at_t, names);
    s->cx.phase = PHASE_DEAD;
    return s->status;
  }
  return CDEVS_OK;

oom:
  cdevs__sim_error(s, CDEVS_ENOMEM, "t=%.17g: out of memory while routing events", t);
fail:
  /* The instant cannot be completed consistently: the simulator stops here, keeping
     every state as the last transitions left it so results can still be read (up to
     where a model's δint had advanced: nothing it sends changed before then). */
  if (reached > s->t_last) s->t_last = reached;
  s->cx.phase = PHASE_DEAD; /* (cx.t is t: only the lone δint above moves it, and it is put back) */
  return s->status;
}

cdevs_status cdevs_sim_step(cdevs_sim *s) {
  if (!s) return CDEVS_EINVAL;
  if (s->cx.phase == PHASE_DEAD) return s->status ? s->status : CDEVS_ESTATE;
  if (s->nobs) return instant(s, true);
  return instant(s, false);
}

cdevs_status cdevs_sim_run(cdevs_sim *s, double t_stop) {
  if (!s) return CDEVS_EINVAL;
  if (isnan(t_stop)) return CDEVS_ETIME;
  if (s->cx.phase == PHASE_DEAD) return s->status ? s->status : CDEVS_ESTATE;
  cdevs_status st = CDEVS_OK;
  double t;
  s->until = t_stop;
  if (s->nobs) {
    while (!st && !s->stop && (t = cdevs_sim_next_time(s)) <= t_stop && t < INFINITY) st = instant(s, true);
  } else {
    while (!st && !s->stop && (t = cdevs_sim_next_time(s)) <= t_stop && t < INFINITY) st = instant(s, false);
  }
  s->until = -INFINITY;
  s->stop = 0;
  return st;
}

void cdevs_sim_request_stop(cdevs_sim *s) {
  if (s) s->stop = 1;
}

int cdevs_ctx_stopping(const cdevs_ctx *cx) { return cx->sim->stop != 0; }

cdevs_status cdevs_sim_inject(cdevs_sim *s, double t, int port, const cdevs_value *v) {
  if (!s || !v) return CDEVS_EINVAL;
  if (s->cx.phase == PHASE_DEAD) return s->status ? s->status : CDEVS_ESTATE;
  if (s->cx.phase != PHASE_IDLE) {
    cdevs__sim_error(s, CDEVS_ESTATE, "cdevs_sim_inject called from inside a model");
    return CDEVS_ESTATE;
  }
  if (port < 0 || (uint32_t)port >= s->n_root_in) return CDEVS_EINVAL;
  if (isnan(t) || t < s->t_last || t > cdevs__next_t(s) || (s->ninj && t != s->inj_t))
    return CDEVS_ETIME;
  uint8_t k = (uint8_t)s->root->ports[CDEVS_IN][port].kind;
  if (k != CDEVS_ANY && k != v->kind) return CDEVS_EKIND;
  if (CDEVS_GROW(&s->alloc, s->inj, s->capinj, s->ninj + 1)) return CDEVS_ENOMEM;
  out_ev *o = &s->inj[s->ninj++];
  o->src = UINT32_MAX;
  o->port = (uint32_t)port;
  cdevs__root_routes(s, (uint32_t)port, &o->d0, &o->d1);
  o->to.model = UINT32_MAX;
  o->v = *v;
  if (v->kind == CDEVS_MSG || v->kind == CDEVS_ARRAY) cdevs_msg_retain(v->u.msg);
  s->inj_t = t;
  return CDEVS_OK;
}

/* ---- inspection ----------------------------------------------------------------------------- */

uint32_t cdevs_sim_atomic_count(const cdevs_sim *s) { return s ? s->n : 0; }

const cdevs_model *cdevs_sim_atomic(const cdevs_sim *s, uint32_t id) {
  return s && id < s->n && !(s->dead && s->dead[id]) ? s->model[id] : NULL;
}

uint32_t cdevs_sim_atomic_id(const cdevs_sim *s, const cdevs_model *m) {
  if (!s || !m || !m->atomic || m->ri != s->root->ri) return UINT32_MAX;
  for (uint32_t i = 0; i < s->n; i++) /* O(n): inspection, not the hot path */
    if (s->model[i] == m && !(s->dead && s->dead[i])) return i;
  return UINT32_MAX;
}

void *cdevs_sim_state(cdevs_sim *s, const cdevs_model *m) {
  uint32_t id = cdevs_sim_atomic_id(s, m);
  return id == UINT32_MAX ? NULL : s->state[id];
}

void *cdevs_sim_state_at(cdevs_sim *s, uint32_t id) {
  return s && id < s->n ? s->state[id] : NULL; /* (NULL for a removed model: its state is gone) */
}

const cdevs_model *cdevs_sim_root(const cdevs_sim *s) { return s ? s->root : NULL; }

void cdevs_sim_stats(const cdevs_sim *s, cdevs_stats *st) {
  if (s && st) *st = s->st;
}

cdevs_status cdevs_sim_observe(cdevs_sim *s, const cdevs_observer *obs, void *ud) {
  if (!s || !obs) return CDEVS_EINVAL;
  if (s->nobs == CDEVS_MAX_OBSERVERS) return CDEVS_ENOMEM;
  s->obs[s->nobs] = obs;
  s->obs_ud[s->nobs] = ud;
  s->nobs++;
  return CDEVS_OK;
}

void cdevs_sim_unobserve(cdevs_sim *s, const cdevs_observer *obs, void *ud) {
  if (!s) return;
  for (uint32_t i = 0; i < s->nobs; i++) {
    if (s->obs[i] != obs || s->obs_ud[i] != ud) continue;
    for (uint32_t j = i + 1; j < s->nobs; j++) {
      s->obs[j - 1] = s->obs[j];
      s->obs_ud[j - 1] = s->obs_ud[j];
    }
    s->nobs--;
    return;
  }
}
