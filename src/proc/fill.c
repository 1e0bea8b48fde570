/* SPDX-License-Identifier: MIT */
/* Fill: entities drawing a quantity from a continuous tank (Arena's level and rate
 * variables; ARENALib's hybrid beverage plant). The tank is any continuous model whose
 * level reaches the block as a QSS signal; the block tells it how fast it empties. An
 * entity waits (first come, first served) until the level holds its quantity, found as
 * the root of the level's polynomial, then draws it at a constant rate. */
#include <math.h>
#include <string.h>

#include "proc_impl.h"
#include "qss/qss_impl.h"

typedef struct fitem {
  cdevs_msg *m;
  double arrived, qty;
} fitem;

typedef struct fill_state {
  cdevs_proc *p;
  cdevs_alloc al;
  cdevs_dist quantity;
  double rate;
  int allocation;
  cdevs_rng rng;
  fitem *q; /* a ring: q[head .. head + n) */
  uint32_t head, n, cap;
  int filling;    /* q[head] is drawing its quantity */
  double start;   /* of the fill */
  double tn;      /* the next event: the fill's end, or the time the level reaches the head's quantity */
  double level[CDEVS_TAYLOR_MAX + 1], level_t; /* the level's polynomial, from level_t */
  int level_deg, have_level;
  double rate_told; /* the rate the tank was last told */
  double now;       /* the time of the last transition */
  long st_in, st_out, st_nq, st_wait, st_qty;
  char path[200];
} fill_state;

enum { IN_ENTITY = 0, IN_LEVEL = 1 };
enum { OUT_ENTITY = 0, OUT_RATE = 1 };

static const cdevs_port_def fill_in[] = {{"in", CDEVS_MSG}, {"level", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
static const cdevs_port_def fill_out[] = {{"out", CDEVS_MSG}, {"rate", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};

static fitem *at(fill_state *s, uint32_t i) { return &s->q[(s->head + i) % s->cap]; }
static const fitem *cat(const fill_state *s, uint32_t i) { return &s->q[(s->head + i) % s->cap]; }

static double level_at(const fill_state *s, double t) {
  double dt = t - s->level_t, v = 0;
  for (int k = s->level_deg; k >= 0; k--) v = v * dt + s->level[k];
  return v;
}

/* The level holds q at t (to rounding: a crossing found as a root evaluates within an
 * ulp or so of q). */
static int holds(const fill_state *s, double t, double q) {
  return s->have_level && level_at(s, t) >= q - 1e-12 * (fabs(q) > 1 ? fabs(q) : 1);
}

/* The next event once nothing is filling: now if the head's quantity is there, else
 * the time the level reaches it (INFINITY if it never does, or nobody waits). */
static double next_start(const fill_state *s, double t) {
  if (!s->n || !s->have_level) return INFINITY;
  double q = cat(s, 0)->qty;
  if (holds(s, t, q)) return t;
  double c[CDEVS_TAYLOR_MAX + 1];
  memcpy(c, s->level, sizeof c);
  c[0] -= q;
  double tau = cdevs__poly_min_pos_root(c, s->level_deg);
  double tc = s->level_t + tau;
  return tc > t ? tc : INFINITY; /* (a root behind t: the level falls away from q) */
}

static int fill_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_fill_params *a = arg;
  fill_state *s = state;
  if (!a->proc) {
    cdevs_ctx_fail(cx, "Fill needs its process elements (proc)");
    return CDEVS_EINVAL;
  }
  if (cdevs__proc_needs_out(cx, OUT_ENTITY, "out") || cdevs__proc_dist(cx, &a->quantity, "quantity"))
    return CDEVS_EINVAL;
  if (!(a->rate > 0) || isinf(a->rate) || a->allocation < 0 || a->allocation >= CDEVS_ALLOC_KINDS) {
    cdevs_ctx_fail(cx, "Fill needs a finite rate > 0 (got %g) and an allocation in range", a->rate);
    return CDEVS_EINVAL;
  }
  s->p = a->proc;
  s->al = a->proc->alloc;
  s->quantity = a->quantity;
  s->rate = a->rate;
  s->allocation = a->allocation;
  s->tn = INFINITY;
  cdevs__proc_block_name(cx, s->p, s->path, sizeof s->path);
  cdevs__proc_stream(cx, s->p, "quantity", &s->rng);
  char qname[220];
  snprintf(qname, sizeof qname, "%s.Queue", s->path);
  uint32_t fails = s->p->stat_fails;
  s->st_in = cdevs__proc_stat_add(s->p, "Process", s->path, "NumberIn", CDEVS_STAT_COUNT, 0);
  s->st_out = cdevs__proc_stat_add(s->p, "Process", s->path, "NumberOut", CDEVS_STAT_COUNT, 0);
  s->st_qty = cdevs__proc_stat_add(s->p, "Process", s->path, "Quantity", CDEVS_STAT_TALLY, 0);
  s->st_nq = cdevs__proc_stat_add(s->p, "Queue", qname, "NQ", CDEVS_STAT_TIME, 0);
  s->st_wait = cdevs__proc_stat_add(s->p, "Queue", qname, "WaitTime", CDEVS_STAT_TALLY, 0);
  if (s->p->stat_fails != fails) {
    cdevs_ctx_fail(cx, "out of memory for its statistics");
    return CDEVS_ENOMEM;
  }
  return CDEVS_OK;
}

static void fill_fini(void *state) {
  fill_state *s = state;
  for (uint32_t i = 0; i < s->n; i++) cdevs_msg_release(at(s, i)->m);
  CDEVS_FREEARR(&s->al, s->q, s->cap);
}

/* The rate the tank empties at: the block's while an entity fills. */
static double rate_now(const fill_state *s) { return s->filling ? s->rate : 0.0; }

static double fill_ta(const void *state) {
  const fill_state *s = state;
  if (s->rate_told != rate_now(s)) return 0; /* a fill began: the tank must know at once */
  return cdevs__ta_until(s->now, s->tn);
}

static void fill_output(cdevs_ctx *cx, const void *state) {
  const fill_state *s = state;
  double t = cdevs_ctx_time(cx);
  int ends = s->filling && s->tn <= t;
  if (ends) {
    cdevs_value v = cdevs_msgval(cat(s, 0)->m);
    cdevs_emit(cx, OUT_ENTITY, &v);
  }
  /* The rate after the internal transition (fill_int decides the same way): when a
     fill ends, the next one starts at once if the level holds its quantity; a waiting
     head starts when the level reaches its quantity. */
  double r = rate_now(s);
  if (ends) r = s->n > 1 && holds(s, t, cat(s, 1)->qty) ? s->rate : 0.0;
  else if (!s->filling && s->n && s->tn <= t) r = s->rate;
  if (r != s->rate_told) {
    cdevs_value v = {.kind = CDEVS_TAYLOR, .order = 0};
    v.u.taylor[0] = r;
    cdevs_emit(cx, OUT_RATE, &v);
  }
}

static void queue_level(fill_state *s, double t) { cdevs__proc_level(s->p, s->st_nq, t, s->n - (uint32_t)s->filling); }

/* Starts the head's fill at t. */
static void begin(fill_state *s, double t) {
  fitem *h = at(s, 0);
  cdevs_entity *e = cdevs_msg_data(h->m);
  double w = t - h->arrived;
  e->time[CDEVS_WAIT] += w;
  cdevs__proc_tally(s->p, s->st_wait, t, w);
  s->filling = 1;
  s->start = t;
  s->tn = t + h->qty / s->rate;
  queue_level(s, t);
}

/* After a change at t: start the head if it can, else wait for the level. */
static void settle(fill_state *s, double t) {
  if (s->filling) return;
  double ts = next_start(s, t);
  if (ts <= t) begin(s, t);
  else s->tn = ts;
}

static void fill_int(cdevs_ctx *cx, void *state) {
  fill_state *s = state;
  double t = cdevs_ctx_time(cx);
  if (s->filling && s->tn <= t) { /* the head is full: it left by the output */
    fitem *h = at(s, 0);
    cdevs_entity *e = cdevs_msg_data(h->m);
    e->time[s->allocation] += t - s->start;
    cdevs__proc_tally(s->p, s->st_qty, t, h->qty);
    cdevs__proc_count(s->p, s->st_out, t, 1);
    cdevs_msg_release(h->m);
    s->head = (s->head + 1) % s->cap;
    s->n--;
    s->filling = 0;
    queue_level(s, t);
    settle(s, t);
  } else if (!s->filling && s->n && s->tn <= t) { /* the level reached the head's quantity */
    begin(s, t);
  }
  s->rate_told = rate_now(s); /* what the output said */
  s->now = t;
}

static void fill_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  fill_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    const cdevs_value *v = x->events[i].value;
    if (x->events[i].port == IN_LEVEL) {
      memset(s->level, 0, sizeof s->level);
      for (int k = 0; k <= v->order && k <= CDEVS_TAYLOR_MAX; k++) s->level[k] = v->u.taylor[k];
      s->level_deg = v->order;
      s->level_t = t;
      s->have_level = 1;
      continue;
    }
    cdevs_entity *en = cdevs_entity_of(v);
    if (!en) {
      cdevs_ctx_fail(cx, "received a %s that is not an entity", cdevs_kind_name(v->kind));
      return;
    }
    double qty;
    if (cdevs__proc_draw_time(cx, &s->quantity, &s->rng, "quantity", &qty)) return;
    if (s->n == s->cap) { /* grow the ring, unrolled */
      uint32_t ncap = s->cap ? 2 * s->cap : 16;
      fitem *nq = cdevs__calloc(&s->al, ncap, sizeof *nq);
      if (!nq) {
        cdevs_ctx_fail(cx, "out of memory for %u entities waiting", s->n + 1);
        return;
      }
      for (uint32_t k = 0; k < s->n; k++) nq[k] = *at(s, k);
      CDEVS_FREEARR(&s->al, s->q, s->cap);
      s->q = nq, s->cap = ncap, s->head = 0;
    }
    cdevs_entity_enter(s->p, en, t);
    cdevs__proc_count(s->p, s->st_in, t, 1);
    *at(s, s->n++) = (fitem){cdevs_msg_retain(v->u.msg), t, qty};
    queue_level(s, t);
  }
  settle(s, t);
  s->now = t;
}

static void fill_conf(cdevs_ctx *cx, void *state, const cdevs_bag *x) {
  fill_int(cx, state);
  fill_ext(cx, state, 0, x);
}

const cdevs_atomic_ops cdevs_fill_ops = {
    .type = "Fill",
    .state_size = sizeof(fill_state),
    .arg_size = sizeof(cdevs_fill_params),
    .inputs = fill_in,
    .outputs = fill_out,
    .init = fill_init,
    .ta = fill_ta,
    .output = fill_output,
    .delta_int = fill_int,
    .delta_ext = fill_ext,
    .delta_conf = fill_conf,
    .fini = fill_fini,
};
