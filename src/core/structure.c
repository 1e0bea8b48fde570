/* SPDX-License-Identifier: MIT */
/*
 * Structure changes during a run (cdevs/model.h: cdevs_ctx_add_atomic and the others).
 *
 * A transition's request is checked where it can be at once and queued; at the end of
 * the instant the queue is sorted by (requesting model, order of its requests) and
 * applied to the tree (model.c's run-time node functions) and to the simulator: new
 * atomic models get the next ids, their states and their first time advance; removed
 * ones their fini, their ids dead. Each change notes the sources whose routes may
 * pass through what it changed (the couplings' chains followed backwards,
 * cdevs__upstream), and only those are routed again (cdevs__reroute), into an overlay
 * over the flattened routes: the cost is that of the change, not of the tree. A
 * simulator whose tree never changes pays for none of this: one test of the queue's
 * length per instant.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_impl.h"
#include "sim_impl.h"

typedef enum change_kind { CH_ADD, CH_REMOVE, CH_CONNECT, CH_DISCONNECT } change_kind;

typedef struct change {
  uint32_t by, seq; /* the requesting model's id and the order of the request */
  change_kind kind;
  cdevs_model *m;      /* CH_ADD: the new (detached) model; CH_REMOVE: the one to remove */
  cdevs_model *parent; /* CH_CONNECT, CH_DISCONNECT */
  cdevs_model *from, *to;
  int fp, tp;
} change;

/* The run fails at t with a message naming the requesting model. */
static void fail_at(cdevs_sim *s, uint32_t by, cdevs_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void fail_at(cdevs_sim *s, uint32_t by, cdevs_status st, const char *fmt, ...) {
  char msg[400], path[256] = "?";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (by < s->n) cdevs_model_path(s->model[by], path, sizeof path);
  cdevs__sim_error(s, st, "t=%.17g: model '%s' changing the structure: %s", s->cx.t, path, msg);
}

/* The request can be made now: in a transition, of a tree this simulator has alone. */
static cdevs_sim *requester(cdevs_ctx *cx, const char *what) {
  cdevs_sim *s = cx->sim;
  if (s->failed) return NULL;
  if (cx->phase != PHASE_TRANSITION) {
    fail_at(s, cx->model, CDEVS_ESTATE, "%s outside a transition (δint, δext, δconf)", what);
    return NULL;
  }
  uint32_t sims = (uint32_t)atomic_load(&s->root->ri->nsims);
  if (sims != 1) {
    fail_at(s, cx->model, CDEVS_ESTATE, "%s: the model tree is shared by %u simulators (each needs its own)", what,
            sims);
    return NULL;
  }
  return s;
}

/* m belongs to this simulator's tree. */
static int ours(const cdevs_sim *s, const cdevs_model *m) { return m && m->ri == s->root->ri; }

static change *push(cdevs_sim *s, change_kind kind) {
  if (CDEVS_GROW(&s->alloc, s->chg, s->capchg, s->nchg + 1)) {
    fail_at(s, s->cx.model, CDEVS_ENOMEM, "out of memory for the request");
    return NULL;
  }
  change *c = &s->chg[s->nchg];
  memset(c, 0, sizeof *c);
  c->by = s->cx.model;
  c->seq = s->nchg++;
  c->kind = kind;
  return c;
}

cdevs_model *cdevs_ctx_add_atomic(cdevs_ctx *cx, cdevs_model *parent, const char *name, const cdevs_atomic_ops *ops,
                                  const void *arg) {
  cdevs_sim *s = requester(cx, "adding a model");
  if (!s) return NULL;
  if (!ours(s, parent) || parent->atomic) {
    fail_at(s, cx->model, CDEVS_EINVAL, "adding '%s': the parent is not a coupled model of this simulator's tree",
            name ? name : "(null)");
    return NULL;
  }
  if (!ops || !ops->ta || (ops->arg_size && !arg)) {
    fail_at(s, cx->model, CDEVS_EINVAL, "adding '%s': %s", name ? name : "(null)",
            !ops || !ops->ta ? "an ops table with ta is needed" : "its type needs an argument");
    return NULL;
  }
  if (s->n + s->nchg >= UINT32_MAX - 1) {
    fail_at(s, cx->model, CDEVS_ENOMEM, "adding '%s': atomic ids are 32-bit", name ? name : "(null)");
    return NULL;
  }
  char msg[300];
  cdevs_model *m = cdevs__node_new(parent, name, ops, arg, msg, sizeof msg);
  if (!m) {
    fail_at(s, cx->model, CDEVS_ENAME, "%s", msg);
    return NULL;
  }
  change *c = push(s, CH_ADD);
  if (!c) return NULL;
  c->m = m;
  return m;
}

void cdevs_ctx_remove(cdevs_ctx *cx, cdevs_model *m) {
  cdevs_sim *s = requester(cx, "removing a model");
  if (!s) return;
  if (!ours(s, m) || !m->parent) {
    fail_at(s, cx->model, CDEVS_EINVAL, "removing '%s': %s", m ? m->name : "(null)",
            !ours(s, m) ? "it is not a model of this simulator's tree" : "the root cannot be removed");
    return;
  }
  change *c = push(s, CH_REMOVE);
  if (c) c->m = m;
}

static void couple(cdevs_ctx *cx, change_kind kind, cdevs_model *parent, cdevs_model *from, const char *fp,
                   cdevs_model *to, const char *tp) {
  const char *what = kind == CH_CONNECT ? "connecting" : "disconnecting";
  cdevs_sim *s = requester(cx, what);
  if (!s) return;
  if (!ours(s, parent) || parent->atomic || !ours(s, from) || !ours(s, to) || !fp || !tp) {
    fail_at(s, cx->model, CDEVS_EINVAL, "%s: %s", what,
            !fp || !tp ? "a NULL port name" : "a coupling joins models of this simulator's tree in a coupled model");
    return;
  }
  cdevs_dir fd = from == parent ? CDEVS_IN : CDEVS_OUT, td = to == parent ? CDEVS_OUT : CDEVS_IN;
  int fpi = cdevs_port_find(from, fd, fp), tpi = cdevs_port_find(to, td, tp);
  if (fpi < 0 || tpi < 0) {
    int bad_from = fpi < 0;
    fail_at(s, cx->model, CDEVS_ENAME, "%s '%s.%s' -> '%s.%s': '%s' has no %s port '%s'", what, from->name, fp,
            to->name, tp, bad_from ? from->name : to->name, (bad_from ? fd : td) == CDEVS_IN ? "input" : "output",
            bad_from ? fp : tp);
    return;
  }
  change *c = push(s, kind);
  if (!c) return;
  c->parent = parent, c->from = from, c->to = to, c->fp = fpi, c->tp = tpi;
}

void cdevs_ctx_connect(cdevs_ctx *cx, cdevs_model *parent, cdevs_model *from, const char *from_port, cdevs_model *to,
                       const char *to_port) {
  couple(cx, CH_CONNECT, parent, from, from_port, to, to_port);
}

void cdevs_ctx_disconnect(cdevs_ctx *cx, cdevs_model *parent, cdevs_model *from, const char *from_port,
                          cdevs_model *to, const char *to_port) {
  couple(cx, CH_DISCONNECT, parent, from, from_port, to, to_port);
}

/* ---- applying them ------------------------------------------------------------------ */

static int cmp_change(const void *pa, const void *pb) {
  const change *a = pa, *b = pb;
  if (a->by != b->by) return a->by < b->by ? -1 : 1;
  return a->seq < b->seq ? -1 : (a->seq > b->seq);
}

/* Per-atomic arrays with room for need ids; -1 out of memory, every array as it was:
 * the new ones are all made before any old one goes. */
static int grow_atomics(cdevs_sim *s, uint32_t need) {
  if (need <= s->cap) return 0;
  uint64_t cap = s->cap ? s->cap : 8;
  while (cap < need) cap *= 2;
  if (cap > UINT32_MAX - 1) return -1;
  const cdevs_alloc *a = &s->alloc;
  size_t o = s->cap, c = (size_t)cap;
  /* each array: its address, element size and length (out_base has one more) */
  struct {
    void **p;
    size_t sz, extra;
    void *n;
  } arr[] = {
      {(void **)&s->model, sizeof *s->model, 0, NULL},   {(void **)&s->ops, sizeof *s->ops, 0, NULL},
      {(void **)&s->state, sizeof *s->state, 0, NULL},   {(void **)&s->tl, sizeof *s->tl, 0, NULL},
      {(void **)&s->tn, sizeof *s->tn, 0, NULL},         {(void **)&s->out_base, sizeof *s->out_base, 1, NULL},
      {(void **)&s->mark, sizeof *s->mark, 0, NULL},     {(void **)&s->bag_head, sizeof *s->bag_head, 0, NULL},
      {(void **)&s->bag_tail, sizeof *s->bag_tail, 0, NULL}, {(void **)&s->heap.e, sizeof *s->heap.e, 0, NULL},
      {(void **)&s->heap.pos, sizeof *s->heap.pos, 0, NULL}, {(void **)&s->imm, sizeof *s->imm, 0, NULL},
      {(void **)&s->touched, sizeof *s->touched, 0, NULL},   {(void **)&s->now, sizeof *s->now, 0, NULL},
      {(void **)&s->dead, 1, 0, NULL},
  };
  size_t narr = sizeof arr / sizeof arr[0];
  for (size_t k = 0; k < narr; k++) {
    if (!*arr[k].p && arr[k].p == (void **)&s->dead) continue; /* (dead is made at the first removal) */
    arr[k].n = cdevs__calloc(a, c + arr[k].extra, arr[k].sz);
    if (!arr[k].n) {
      for (size_t j = 0; j < k; j++) cdevs__free(a, arr[j].n, (c + arr[j].extra) * arr[j].sz);
      return -1;
    }
  }
  for (size_t k = 0; k < narr; k++) {
    if (!arr[k].n) continue;
    if (*arr[k].p) memcpy(arr[k].n, *arr[k].p, (o + arr[k].extra) * arr[k].sz);
    cdevs__free(a, *arr[k].p, (o + arr[k].extra) * arr[k].sz);
    *arr[k].p = arr[k].n;
  }
  for (size_t i = o; i < c; i++) s->heap.pos[i] = HEAP_NONE;
  s->cap = (uint32_t)cap;
  return 0;
}

static size_t state_bytes(const cdevs_atomic_ops *ops) {
  size_t sz = ops->state_size ? ops->state_size : 1;
  return (sz + CDEVS_STATE_ALIGN - 1) / CDEVS_STATE_ALIGN * CDEVS_STATE_ALIGN;
}

/* Model id's state is in the arena (the models of the tree at cdevs_sim_new). */
static int in_arena(const cdevs_sim *s, uint32_t id) { return id < s->n_static; }

/* Tells the observers. */
static void observed(cdevs_sim *s, double t, const char *what) {
  for (uint32_t b = 0; b < s->nobs; b++)
    if (s->obs[b]->structure) s->obs[b]->structure(s->obs_ud[b], t, what);
}

/* The new atomic model m: its id, state, init and first time advance at t. */
static int start_atomic(cdevs_sim *s, const change *c, double t) {
  cdevs_model *m = c->m;
  if (grow_atomics(s, s->n + 1)) {
    fail_at(s, c->by, CDEVS_ENOMEM, "out of memory adding '%s'", m->name);
    return -1;
  }
  const cdevs_atomic_ops *ops = m->ops;
  uint32_t id = s->n;
  if (s->out_base[id] >= CDEVS_DIRTY_ROOT_IN - m->nports[CDEVS_OUT]) {
    fail_at(s, c->by, CDEVS_ENOMEM, "adding '%s': more than 2^31 output ports", m->name);
    return -1;
  }
  void *state = cdevs__calloc(&s->alloc, 1, state_bytes(ops));
  if (!state) {
    fail_at(s, c->by, CDEVS_ENOMEM, "out of memory for the state of '%s'", m->name);
    return -1;
  }
  s->model[id] = m;
  m->id = id;
  s->ops[id] = ops;
  s->out_base[id + 1] = s->out_base[id] + m->nports[CDEVS_OUT];
  s->n++;
  s->st.atomics = s->n;
  int phase = s->cx.phase;
  uint32_t who = s->cx.model;
  s->cx.phase = PHASE_INIT, s->cx.model = id;
  int r = ops->init ? ops->init(&s->cx, state, m->arg) : 0;
  s->cx.phase = phase, s->cx.model = who;
  if (r < 0 || s->failed) {
    if (ops->fini) ops->fini(state);
    cdevs__free(&s->alloc, state, state_bytes(ops));
    if (!s->failed) fail_at(s, c->by, (cdevs_status)r, "initialising '%s': %s", m->name, cdevs_strerror(r));
    s->state[id] = NULL;
    return -1;
  }
  s->state[id] = state;
  return cdevs__schedule(s, id, t);
}

int cdevs__cmp_u32(const void *pa, const void *pb) {
  uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
  return a < b ? -1 : (a > b);
}

/* Doubles a list that starts in a buffer on the stack (few), elements of size sz;
 * -1 out of memory, the list as it was. */
static int grow_list(cdevs_sim *s, void **list, void *few, uint32_t *cap, size_t sz) {
  void *more = cdevs__calloc(&s->alloc, (size_t)*cap * 2, sz);
  if (!more) return -1;
  memcpy(more, *list, *cap * sz);
  if (*list != few) cdevs__free(&s->alloc, *list, *cap * sz);
  *list = more, *cap *= 2;
  return 0;
}

/* Atomic model id, dead from now: fini, state freed. */
static void stop_atomic(cdevs_sim *s, uint32_t i) {
  s->dead[i] = 1;
  cdevs__sched_set(s, i, INFINITY);
  s->tn[i] = INFINITY;
  void *st = s->state[i];
  if (st) {
    if (s->ops[i]->fini) s->ops[i]->fini(st);
    if (!in_arena(s, i)) cdevs__free(&s->alloc, st, state_bytes(s->ops[i]));
    s->state[i] = NULL;
  }
}

/* The atomic models inside m (or m itself), dead from now; -1 out of memory. A walk
 * of m's subtree, in the order of its ids' creation, so the finis run in id order
 * for a subtree built before the run. */
static int stop_atomics(cdevs_sim *s, cdevs_model *m) {
  if (!s->dead) {
    s->dead = cdevs__calloc(&s->alloc, s->cap, 1);
    if (!s->dead) return -1;
  }
  if (m->atomic) {
    stop_atomic(s, m->id);
    return 0;
  }
  uint32_t ids_few[64], *ids = ids_few, nids = 0, capids = 64;
  cdevs_model *stack_few[64], **stack = stack_few;
  uint32_t n = 0, cap = 64;
  int r = 0;
  stack[n++] = m;
  while (n && !r) {
    cdevs_model *x = stack[--n];
    for (uint32_t i = x->cp->nchildren; i-- > 0 && !r;) {
      cdevs_model *c = x->cp->children[i];
      if (!c) continue;
      if (c->atomic) {
        if (nids == capids) r = grow_list(s, (void **)&ids, ids_few, &capids, sizeof *ids);
        if (!r) ids[nids++] = c->id;
      } else {
        if (n == cap) r = grow_list(s, (void **)&stack, stack_few, &cap, sizeof *stack);
        if (!r) stack[n++] = c;
      }
    }
  }
  if (!r) {
    if (nids) qsort(ids, nids, sizeof *ids, cdevs__cmp_u32);
    for (uint32_t k = 0; k < nids; k++) stop_atomic(s, ids[k]);
  }
  if (ids != ids_few) cdevs__free(&s->alloc, ids, capids * sizeof *ids);
  if (stack != stack_few) cdevs__free(&s->alloc, stack, cap * sizeof *stack);
  return r;
}

/* The dotted path of m into buf (a detached model's too: its parent's path and its name). */
static const char *path_of(const cdevs_model *m, char *buf, size_t n) {
  cdevs_model_path(m, buf, n);
  return buf;
}

/* m and every model above it are in the tree. */
static int in_tree(const cdevs_model *m) {
  for (const cdevs_model *x = m; x; x = x->parent)
    if (!cdevs__node_attached(x)) return 0;
  return 1;
}

int cdevs__dirty(cdevs_sim *s, uint32_t g) {
  if (CDEVS_GROW(&s->alloc, s->dirty, s->capdirty, s->ndirty + 1)) return -1;
  s->dirty[s->ndirty++] = g;
  return 0;
}

static int oom(cdevs_sim *s, const change *c) {
  fail_at(s, c->by, CDEVS_ENOMEM, "out of memory routing the change");
  return -1;
}

static int apply(cdevs_sim *s, const change *c, double t) {
  char msg[400], what[600], p1[256], p2[256];
  switch (c->kind) {
  case CH_ADD: {
    cdevs_model *m = c->m;
    if (!in_tree(m->parent)) {
      fail_at(s, c->by, CDEVS_EINVAL, "adding '%s': its parent '%s' is not in the tree", m->name, m->parent->name);
      return -1;
    }
    cdevs_status st = cdevs__node_attach(m, msg, sizeof msg);
    if (st) {
      fail_at(s, c->by, st, "adding: %s", msg);
      return -1;
    }
    if (start_atomic(s, c, t)) return -1;
    for (uint32_t g = s->out_base[m->id]; g < s->out_base[m->id + 1]; g++) /* (routed nowhere yet, or by a connect) */
      if (cdevs__dirty(s, g)) return oom(s, c);
    snprintf(what, sizeof what, "add %s (id %u)", path_of(m, p1, sizeof p1), s->n - 1);
    break;
  }
  case CH_REMOVE: {
    cdevs_model *m = c->m;
    if (!in_tree(m)) {
      fail_at(s, c->by, CDEVS_EINVAL, "removing '%s': it is not in the tree (removed already, or never added)",
              path_of(m, p1, sizeof p1));
      return -1;
    }
    snprintf(what, sizeof what, "remove %s", path_of(m, p1, sizeof p1));
    /* the sources feeding it, found before its couplings go (its own die with it) */
    coupled_part *pp = m->parent->cp;
    if (cdevs__cix_build(&s->alloc, pp)) return oom(s, c);
    for (uint32_t p = 0; p < m->nports[CDEVS_IN]; p++)
      for (uint32_t i = cdevs__cix_to(pp, m->index, (int32_t)p); i != CDEVS_CIX_NONE; i = cdevs__cix_to_next(pp, i))
        if (cdevs__upstream(s, m->parent, pp->couplings[i].src, pp->couplings[i].src_port)) return oom(s, c);
    if (stop_atomics(s, m)) {
      fail_at(s, c->by, CDEVS_ENOMEM, "out of memory removing '%s'", m->name);
      return -1;
    }
    cdevs__node_detach(m);
    cdevs__node_release(m);
    break;
  }
  case CH_CONNECT:
  case CH_DISCONNECT: {
    const cdevs_model *ends[3] = {c->parent, c->from, c->to};
    for (int k = 0; k < 3; k++)
      if (!in_tree(ends[k])) {
        fail_at(s, c->by, CDEVS_EINVAL, "%s: '%s' is not in the tree", c->kind == CH_CONNECT ? "connecting" :
                "disconnecting", path_of(ends[k], p1, sizeof p1));
        return -1;
      }
    cdevs_status st = c->kind == CH_CONNECT
                          ? cdevs__coupling_add(c->parent, c->from, c->fp, c->to, c->tp, msg, sizeof msg)
                          : cdevs__coupling_remove(c->parent, c->from, c->fp, c->to, c->tp, msg, sizeof msg);
    if (st) {
      fail_at(s, c->by, st, "%s", msg);
      return -1;
    }
    /* the sources reaching the coupling's start: what is upstream of it is the same
     * before and after the coupling itself comes or goes */
    if (cdevs__upstream(s, c->parent, c->from == c->parent ? -1 : c->from->index, c->fp)) return oom(s, c);
    cdevs_dir fd = c->from == c->parent ? CDEVS_IN : CDEVS_OUT, td = c->to == c->parent ? CDEVS_OUT : CDEVS_IN;
    snprintf(what, sizeof what, "%s %s.%s -> %s.%s", c->kind == CH_CONNECT ? "connect" : "disconnect",
             path_of(c->from, p1, sizeof p1), c->from->ports[fd][c->fp].name, path_of(c->to, p2, sizeof p2),
             c->to->ports[td][c->tp].name);
    break;
  }
  }
  observed(s, t, what);
  return 0;
}

/* A model that a removal of this instant takes away asks for nothing else in it,
 * whatever the order: its other requests are an error (the first one met). Except
 * that a model may replace itself: what it asked for before asking for its own
 * removal stands (a model switching its class adds its successor, then goes). */
static int doomed_requests(cdevs_sim *s) {
  for (uint32_t k = 0; k < s->nchg; k++) {
    const change *r = &s->chg[k];
    if (r->kind != CH_REMOVE) continue;
    for (uint32_t j = 0; j < s->nchg; j++) {
      const change *c = &s->chg[j];
      if (c->kind == CH_REMOVE || c->by >= s->n) continue;
      if (c->by == r->by && c->seq < r->seq && s->model[c->by] == r->m) continue; /* before its own removal */
      const cdevs_model *x = s->model[c->by];
      while (x && x != r->m) x = x->parent;
      if (!x) continue;
      char p[256];
      fail_at(s, c->by, CDEVS_ESTATE, "it asked to %s in the instant '%s' removed it",
              c->kind == CH_ADD ? "add a model" : c->kind == CH_CONNECT ? "connect" : "disconnect",
              path_of(s->model[r->by], p, sizeof p));
      return -1;
    }
  }
  return 0;
}

cdevs_status cdevs__apply_changes(cdevs_sim *s, double t) {
  qsort(s->chg, s->nchg, sizeof *s->chg, cmp_change);
  s->cx.phase = PHASE_TRANSITION; /* (inits of new models see the instant's time) */
  s->cx.t = t;
  int bad = doomed_requests(s);
  for (uint32_t k = 0; k < s->nchg && !bad; k++) bad = apply(s, &s->chg[k], t);
  /* Requests not applied: their detached models stay in the tree's arena, unused. */
  s->nchg = 0;
  s->cx.phase = PHASE_IDLE;
  s->cx.model = UINT32_MAX;
  if (bad || s->failed) {
    s->ndirty = 0;
    return s->status ? s->status : CDEVS_EMODEL;
  }
  /* Each source once, in port order (a port's routes do not depend on the order);
   * the root's inputs numbered after every output port there is now. */
  if (s->ndirty) qsort(s->dirty, s->ndirty, sizeof *s->dirty, cdevs__cmp_u32);
  uint32_t w = 0, nout = s->out_base[s->n];
  for (uint32_t k = 0; k < s->ndirty; k++) {
    uint32_t g = s->dirty[k] & CDEVS_DIRTY_ROOT_IN ? nout + (s->dirty[k] & ~CDEVS_DIRTY_ROOT_IN) : s->dirty[k];
    if (!w || s->dirty[w - 1] != g) s->dirty[w++] = g;
  }
  s->ndirty = 0;
  return cdevs__reroute(s, s->dirty, w);
}

void cdevs__changes_free(cdevs_sim *s) {
  const cdevs_alloc *a = &s->alloc;
  CDEVS_FREEARR(a, s->chg, s->capchg);
  s->nchg = 0;
  /* The states of models added during the run (not in the arena); dead ones are gone. */
  if (s->state)
    for (uint32_t i = 0; i < s->n; i++)
      if (s->state[i] && !in_arena(s, i)) {
        if (s->ops[i]->fini) s->ops[i]->fini(s->state[i]);
        cdevs__free(a, s->state[i], state_bytes(s->ops[i]));
        s->state[i] = NULL;
      }
  if (s->dead) cdevs__free(a, s->dead, s->cap);
  s->dead = NULL;
  cdevs__overlay_free(s);
}
