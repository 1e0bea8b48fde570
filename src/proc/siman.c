/* SPDX-License-Identifier: MIT */
/* SIMAN's blocks, one atomic model each: Queue and Seize (one seize point between
 * them, linked at the start time), Delay, Release, Branch, Count and Tally. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cdevs/siman.h"
#include "proc_impl.h"

#define NO_MODEL UINT32_MAX

/* The input every seize point is woken on (cdevs__res_release's wake list), as on Process. */
enum { IN_ENTITY = 0, IN_WAKE = 1 };

/* ---- the link between a Queue and its Seize ------------------------------------------ */

/* Made by the Queue, sent once on its "out", answered in place by the Seize; both keep
 * a reference. transit holds the serial numbers of the entities the Queue let go with
 * units taken for them, until the Seize receives them: anything else reaching the
 * Seize did not wait in its Queue. */
typedef struct siman_link {
  cdevs_alloc al;
  uint32_t queue, seize; /* atomic ids; seize is NO_MODEL until a Seize answers */
  int res, point, units;
  uint64_t *transit;
  uint32_t ntransit, captransit;
  char queue_name[200];
} siman_link;

static void link_destroy(void *payload) {
  siman_link *l = payload;
  CDEVS_FREEARR(&l->al, l->transit, l->captransit);
}

static const cdevs_msg_type link_type = {"SIMAN queue link", link_destroy};

static siman_link *link_of(const cdevs_value *v) {
  if (v->kind != CDEVS_MSG || cdevs_msg_type_of(v->u.msg) != &link_type) return NULL;
  return cdevs_msg_data(v->u.msg);
}

/* The entity an input carries, or a failed run naming what came instead. */
static cdevs_entity *entity_in(cdevs_ctx *cx, const cdevs_value *v) {
  cdevs_entity *e = cdevs_entity_of(v);
  if (e) return e;
  const siman_link *l = link_of(v);
  if (l)
    cdevs_ctx_fail(cx, "Queue '%s' leads here, but a Queue must lead to a Seize (it holds its entities until the "
                       "Seize after it can take them)",
                   l->queue_name);
  else
    cdevs_ctx_fail(cx, "received a %s that is not an entity", cdevs_kind_name(v->kind));
  return NULL;
}

#define need_proc cdevs__need_proc

/* In init: the resource a block names, or a failed run. */
static int find_resource(cdevs_ctx *cx, cdevs_proc *p, const char *name, int units, const char *what) {
  int r = name ? cdevs_proc_find_resource(p, name) : -1;
  if (r < 0) {
    cdevs_ctx_fail(cx, "%s of no resource '%s'", what, name ? name : "");
    return -1;
  }
  if (units < 1 || units > p->res[r].capacity) {
    cdevs_ctx_fail(cx, "%s of %d units of '%s', which has %d", what, units, name, p->res[r].capacity);
    return -1;
  }
  return r;
}

static const cdevs_port_def entity_in_ports[] = {{"in", CDEVS_MSG}, {NULL, CDEVS_ANY}};
static const cdevs_port_def entity_out_ports[] = {{"out", CDEVS_MSG}, {NULL, CDEVS_ANY}};

/* ---- Queue -------------------------------------------------------------------------------- */

enum { LINK_SEND = 0, LINK_CHECK, LINKED };
enum { OUT_ENTITY = 0, OUT_BALK = 1 };

typedef struct queue_state {
  cdevs_proc *p;
  cdevs_alloc al;
  int rule, rank, phase, balk_out;
  uint64_t capacity, seq;
  cdevs_msg *link; /* its link (one reference) */
  siman_link *lk;
  eheap queue;
  pass out; /* entities let go to the Seize, and balkers */
  long st_nq, st_wait, st_balk;
  char name[200];
} queue_state;

static const cdevs_port_def queue_in[] = {{"in", CDEVS_MSG}, {"_wake", CDEVS_INT}, {NULL, CDEVS_ANY}};
static const cdevs_port_def queue_out[] = {{"out", CDEVS_MSG}, {"balk", CDEVS_MSG}, {NULL, CDEVS_ANY}};

static int queue_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_siman_queue_params *a = arg;
  queue_state *s = state;
  if (need_proc(cx, a->proc, "Queue")) return CDEVS_EINVAL;
  cdevs_proc *p = a->proc;
  s->p = p;
  s->al = p->alloc;
  s->rank = -1;
  s->st_nq = s->st_wait = s->st_balk = -1;
  if (a->name) snprintf(s->name, sizeof s->name, "%s", a->name);
  else cdevs__proc_block_name(cx, p, s->name, sizeof s->name);
  if (a->rule < CDEVS_FIFO || a->rule > CDEVS_HVF) {
    cdevs_ctx_fail(cx, "Queue has no rule %d", a->rule);
    return CDEVS_EINVAL;
  }
  s->rule = a->rule;
  if (a->rule == CDEVS_LVF || a->rule == CDEVS_HVF) {
    if (!a->rank_attr || (s->rank = cdevs_proc_attribute(p, a->rank_attr)) < 0) {
      cdevs_ctx_fail(cx, "Queue ranks its entities by an attribute and needs its name");
      return CDEVS_EINVAL;
    }
  }
  s->capacity = a->capacity;
  if (cdevs__proc_needs_out(cx, OUT_ENTITY, "out")) return CDEVS_EINVAL;
  uint32_t fan = cdevs_ctx_fanout(cx, OUT_ENTITY);
  if (fan != 1) {
    cdevs_ctx_fail(cx, "its output 'out' reaches %u inputs; a Queue leads to one Seize only", fan);
    return CDEVS_EINVAL;
  }
  s->balk_out = cdevs_ctx_fanout(cx, OUT_BALK) > 0;
  uint32_t fails = p->stat_fails;
  s->st_nq = cdevs__proc_stat_add(p, "Queue", s->name, "NQ", CDEVS_STAT_TIME, 0);
  s->st_wait = cdevs__proc_stat_add(p, "Queue", s->name, "WaitTime", CDEVS_STAT_TALLY, 0);
  s->st_balk = cdevs__proc_stat_add(p, "Queue", s->name, "NumberBalked", CDEVS_STAT_COUNT, 0);
  if (p->stat_fails != fails) {
    cdevs_ctx_fail(cx, "out of memory for its statistics");
    return CDEVS_ENOMEM;
  }
  s->link = cdevs_msg_new(&s->al, &link_type, sizeof(siman_link));
  if (!s->link) {
    cdevs_ctx_fail(cx, "out of memory");
    return CDEVS_ENOMEM;
  }
  s->lk = cdevs_msg_data(s->link);
  s->lk->al = s->al;
  s->lk->queue = cdevs_ctx_self(cx);
  s->lk->seize = NO_MODEL;
  s->lk->res = s->lk->point = -1;
  snprintf(s->lk->queue_name, sizeof s->lk->queue_name, "%s", s->name);
  s->phase = LINK_SEND;
  return CDEVS_OK;
}

static void queue_fini(void *state) {
  queue_state *s = state;
  heap_free(&s->al, &s->queue);
  pass_free(&s->al, &s->out);
  cdevs_msg_release(s->link);
}

static double queue_ta(const void *state) {
  const queue_state *s = state;
  return s->phase != LINKED || s->out.n ? 0 : INFINITY;
}

static void queue_output(cdevs_ctx *cx, const void *state) {
  const queue_state *s = state;
  if (s->phase == LINK_SEND) {
    cdevs_value v = cdevs_msgval(s->link);
    cdevs_emit(cx, OUT_ENTITY, &v);
  }
  pass_emit(cx, &s->out);
}

/* What the seize point shows the resource, and NQ, after the queue changed at t. */
static void queue_changed(queue_state *s, double t) {
  cdevs__queue_changed(s->p, &s->queue, s->st_nq, s->lk->res, s->lk->point, s->lk->units, t);
}

/* Lets entities go while units can be had for the first one: taken now, booked on the
 * entity, so that the Seize receives it holding them. */
static void queue_serve(cdevs_ctx *cx, queue_state *s, double t) {
  siman_link *l = s->lk;
  eitem it;
  int got;
  while ((got = cdevs__seize_next(cx, s->p, &s->queue, l->res, l->point, l->units, s->st_wait, t, &it))) {
    if (got < 0) continue; /* (said; the others go on) */
    if (l->ntransit == l->captransit && CDEVS_GROW(&s->al, l->transit, l->captransit, l->ntransit + 1)) {
      cdevs_ctx_fail(cx, "out of memory");
    } else {
      l->transit[l->ntransit++] = ((cdevs_entity *)cdevs_msg_data(it.m))->serial;
      pass_push(cx, &s->al, &s->out, it.m, OUT_ENTITY);
    }
    cdevs_msg_release(it.m);
  }
  queue_changed(s, t);
}

static void queue_int(cdevs_ctx *cx, void *state) {
  queue_state *s = state;
  pass_clear(&s->out);
  if (s->phase == LINK_SEND) {
    s->phase = LINK_CHECK;
  } else if (s->phase == LINK_CHECK) {
    if (s->lk->seize == NO_MODEL) {
      cdevs_ctx_fail(cx, "its output 'out' leads to no Seize: a Queue holds its entities until the Seize after it "
                         "can take them (couple 'out' to a Seize's 'in')");
      return;
    }
    s->phase = LINKED;
    queue_serve(cx, s, cdevs_ctx_time(cx)); /* those that came while it was linking */
  }
}

static void arrive(cdevs_ctx *cx, queue_state *s, cdevs_msg *m, cdevs_entity *e, double t) {
  cdevs_entity_enter(s->p, e, t);
  if (s->capacity && s->queue.n >= s->capacity) {
    cdevs__proc_count(s->p, s->st_balk, t, 1);
    if (s->balk_out) {
      pass_push(cx, &s->al, &s->out, m, OUT_BALK);
    } else {
      (void)cdevs__entity_leave(cx, s->p, e, t, "balks and leaves the system");
    }
    return;
  }
  e->since = t;
  eitem it = {.key = 0, .seq = s->seq++, .arrived = t, .start = t, .m = m};
  switch (s->rule) {
  case CDEVS_FIFO: it.key = 0; break;
  case CDEVS_LIFO: it.key = -(double)it.seq; break;
  case CDEVS_LVF: it.key = cdevs__entity_attr(e, s->rank); break;
  default: it.key = -cdevs__entity_attr(e, s->rank); break;
  }
  if (heap_push(&s->al, &s->queue, &it)) {
    cdevs_ctx_fail(cx, "out of memory for %u entities in the queue", s->queue.n + 1);
    return;
  }
  cdevs_msg_retain(m);
  /* One at a time, as SIMAN moves entities: an arrival that finds units does not wait. */
  if (s->phase == LINKED) queue_serve(cx, s, t);
}

static void queue_ext(cdevs_ctx *cx, void *state, double elapsed, const cdevs_bag *x) {
  (void)elapsed;
  queue_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    if (x->events[i].port == IN_WAKE) continue; /* units were set aside for this point: served below */
    cdevs_entity *e = entity_in(cx, x->events[i].value);
    if (!e) return;
    arrive(cx, s, x->events[i].value->u.msg, e, t);
  }
  /* Every transition records NQ, as Process does: the statistic's integral is then
     summed over the same intervals, and the two give the same bits. */
  if (s->phase == LINKED) queue_serve(cx, s, t);
}

const cdevs_atomic_ops cdevs_siman_queue_ops = {
    .type = "Queue",
    .state_size = sizeof(queue_state),
    .arg_size = sizeof(cdevs_siman_queue_params),
    .inputs = queue_in,
    .outputs = queue_out,
    .init = queue_init,
    .ta = queue_ta,
    .output = queue_output,
    .delta_int = queue_int,
    .delta_ext = queue_ext,
    .fini = queue_fini,
};

/* ---- blocks that pass entities on at once: Seize, Release, Branch, Count, Tally --------- */

/* The state of each begins with a passer (proc_impl.h). */
#define pass_ta cdevs__pass_ta
#define pass_output cdevs__pass_output
#define pass_int cdevs__pass_int

/* ---- Seize -------------------------------------------------------------------------------- */

typedef struct seize_state {
  passer b;
  int res, units, priority;
  cdevs_msg *link; /* its Queue's link (a reference), NULL until it comes */
  char path[200];
} seize_state;

static int seize_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_siman_seize_params *a = arg;
  seize_state *s = state;
  if (need_proc(cx, a->proc, "Seize")) return CDEVS_EINVAL;
  s->b.p = a->proc;
  s->b.al = a->proc->alloc;
  cdevs__proc_block_name(cx, s->b.p, s->path, sizeof s->path);
  if ((s->res = find_resource(cx, s->b.p, a->resource, a->units, "Seize")) < 0) return CDEVS_EINVAL;
  s->units = a->units;
  s->priority = a->priority;
  return cdevs__proc_needs_out(cx, 0, "out") ? CDEVS_EINVAL : CDEVS_OK;
}

static void seize_fini(void *state) {
  seize_state *s = state;
  pass_free(&s->b.al, &s->b.out);
  cdevs_msg_release(s->link);
}

/* The Queue before it: answer its link and join the resource on its behalf. */
static void seize_link(cdevs_ctx *cx, seize_state *s, cdevs_msg *m, siman_link *l) {
  if (s->link) {
    const siman_link *first = cdevs_msg_data(s->link);
    cdevs_ctx_fail(cx, "Queues '%s' and '%s' both lead to this Seize; it takes entities from one Queue",
                   first->queue_name, l->queue_name);
    return;
  }
  int pt = cdevs__res_join(s->b.p, s->res, l->queue, s->priority, l->queue_name);
  if (pt < 0) {
    cdevs_ctx_fail(cx, "out of memory");
    return;
  }
  s->link = cdevs_msg_retain(m);
  l->seize = cdevs_ctx_self(cx);
  l->res = s->res;
  l->point = pt;
  l->units = s->units;
}

static void seize_ext(cdevs_ctx *cx, void *state, double elapsed, const cdevs_bag *x) {
  (void)elapsed;
  seize_state *s = state;
  for (size_t i = 0; i < x->n; i++) {
    const cdevs_value *v = x->events[i].value;
    siman_link *l = link_of(v);
    if (l) {
      seize_link(cx, s, v->u.msg, l);
      continue;
    }
    cdevs_entity *e = entity_in(cx, v);
    if (!e) return;
    /* it must be one its Queue let go holding the units */
    l = s->link ? cdevs_msg_data(s->link) : NULL;
    uint32_t k = 0;
    while (l && k < l->ntransit && l->transit[k] != e->serial) k++;
    if (!l || k == l->ntransit) {
      cdevs_ctx_fail(cx, "entity %llu arrives without waiting in the Queue before this Seize (a Seize takes "
                         "entities from its Queue only: couple a Queue's 'out' to its 'in', and nothing else)",
                     (unsigned long long)e->serial);
      return;
    }
    l->transit[k] = l->transit[--l->ntransit];
    if (pass_push(cx, &s->b.al, &s->b.out, v->u.msg, 0)) return;
  }
}

const cdevs_atomic_ops cdevs_siman_seize_ops = {
    .type = "Seize",
    .state_size = sizeof(seize_state),
    .arg_size = sizeof(cdevs_siman_seize_params),
    .inputs = entity_in_ports,
    .outputs = entity_out_ports,
    .init = seize_init,
    .ta = pass_ta,
    .output = pass_output,
    .delta_int = pass_int,
    .delta_ext = seize_ext,
    .fini = seize_fini,
};

/* ---- Delay -------------------------------------------------------------------------------- */

typedef struct delay_state {
  cdevs_proc *p;
  cdevs_alloc al;
  int allocation;
  cdevs_dist delay;
  cdevs_rng rng;
  eheap busy; /* by leaving time */
  uint64_t seq;
  double now; /* the time of its last transition, from which ta counts */
} delay_state;

static int delay_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_siman_delay_params *a = arg;
  delay_state *s = state;
  if (need_proc(cx, a->proc, "Delay")) return CDEVS_EINVAL;
  s->p = a->proc;
  s->al = a->proc->alloc;
  s->now = cdevs_ctx_time(cx);
  if (a->allocation < 0 || a->allocation >= CDEVS_ALLOC_KINDS) {
    cdevs_ctx_fail(cx, "Delay has no allocation %d", a->allocation);
    return CDEVS_EINVAL;
  }
  s->allocation = a->allocation;
  if (cdevs__proc_dist(cx, &a->delay, "delay")) return CDEVS_EINVAL;
  s->delay = a->delay;
  char path[200], name[240];
  if (a->stream) snprintf(path, sizeof path, "%s", a->stream);
  else cdevs__proc_block_name(cx, s->p, path, sizeof path);
  snprintf(name, sizeof name, "%s.delay", path);
  cdevs_proc_stream(s->p, name, &s->rng);
  return cdevs__proc_needs_out(cx, 0, "out") ? CDEVS_EINVAL : CDEVS_OK;
}

static void delay_fini(void *state) {
  delay_state *s = state;
  heap_free(&s->al, &s->busy);
}

static double delay_ta(const void *state) {
  const delay_state *s = state;
  return s->busy.n ? cdevs__ta_until(s->now, s->busy.a[0].key) : INFINITY;
}

static void delay_output(cdevs_ctx *cx, const void *state) {
  const delay_state *s = state;
  heap_emit_due(cx, &s->busy, 0, cdevs_ctx_time(cx));
}

static void delay_int(cdevs_ctx *cx, void *state) {
  delay_state *s = state;
  double t = cdevs_ctx_time(cx);
  while (s->busy.n && s->busy.a[0].key <= t) {
    eitem it = heap_pop(&s->busy);
    cdevs_entity *e = cdevs_msg_data(it.m);
    e->time[s->allocation] += t - it.start;
    cdevs_msg_release(it.m);
  }
  s->now = t;
}

static void delay_ext(cdevs_ctx *cx, void *state, double elapsed, const cdevs_bag *x) {
  (void)elapsed;
  delay_state *s = state;
  double t = cdevs_ctx_time(cx);
  s->now = t;
  for (size_t i = 0; i < x->n; i++) {
    cdevs_entity *e = entity_in(cx, x->events[i].value);
    if (!e) return;
    cdevs_entity_enter(s->p, e, t);
    double d;
    if (cdevs__proc_draw_time(cx, &s->delay, &s->rng, "delay", &d)) return;
    eitem it = {.key = t + d, .seq = s->seq++, .arrived = t, .start = t, .m = x->events[i].value->u.msg};
    if (heap_push(&s->al, &s->busy, &it)) {
      cdevs_ctx_fail(cx, "out of memory for %u entities in the delay", s->busy.n + 1);
      return;
    }
    cdevs_msg_retain(it.m);
  }
}

const cdevs_atomic_ops cdevs_siman_delay_ops = {
    .type = "Delay",
    .state_size = sizeof(delay_state),
    .arg_size = sizeof(cdevs_siman_delay_params),
    .inputs = entity_in_ports,
    .outputs = entity_out_ports,
    .init = delay_init,
    .ta = delay_ta,
    .output = delay_output,
    .delta_int = delay_int,
    .delta_ext = delay_ext,
    .fini = delay_fini,
};

/* ---- Release ------------------------------------------------------------------------------ */

typedef struct release_state {
  passer b;
  int res, units;
  uint32_t *wake; /* the points its releases set units aside for, woken at the output */
  uint32_t nwake, capwake;
} release_state;

static int release_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_siman_release_params *a = arg;
  release_state *s = state;
  if (need_proc(cx, a->proc, "Release")) return CDEVS_EINVAL;
  s->b.p = a->proc;
  s->b.al = a->proc->alloc;
  if ((s->res = find_resource(cx, s->b.p, a->resource, a->units, "Release")) < 0) return CDEVS_EINVAL;
  s->units = a->units;
  return cdevs__proc_needs_out(cx, 0, "out") ? CDEVS_EINVAL : CDEVS_OK;
}

static void release_fini(void *state) {
  release_state *s = state;
  pass_free(&s->b.al, &s->b.out);
  CDEVS_FREEARR(&s->b.al, s->wake, s->capwake);
}

static double release_ta(const void *state) {
  const release_state *s = state;
  return s->b.out.n || s->nwake ? 0 : INFINITY;
}

static void release_output(cdevs_ctx *cx, const void *state) {
  const release_state *s = state;
  pass_emit(cx, &s->b.out);
  for (uint32_t i = 0; i < s->nwake; i++) {
    cdevs_value v = cdevs_int(s->res);
    cdevs_send(cx, s->wake[i], IN_WAKE, &v);
  }
}

static void release_int(cdevs_ctx *cx, void *state) {
  release_state *s = state;
  pass_int(cx, state);
  s->nwake = 0;
}

static void release_ext(cdevs_ctx *cx, void *state, double elapsed, const cdevs_bag *x) {
  (void)elapsed;
  release_state *s = state;
  double t = cdevs_ctx_time(cx);
  const proc_resource *r = &s->b.p->res[s->res];
  for (size_t i = 0; i < x->n; i++) {
    cdevs_entity *e = entity_in(cx, x->events[i].value);
    if (!e) return;
    cdevs_entity_enter(s->b.p, e, t);
    int held = 0;
    for (int k = 0; k < e->nheld; k++)
      if (e->held[k].resource == s->res) held = e->held[k].units;
    if (held < s->units) {
      cdevs_ctx_fail(cx, "entity %llu releases %d units of '%s' it does not hold (it holds %d)",
                     (unsigned long long)e->serial, s->units, r->name, held);
      return;
    }
    if (s->capwake < s->nwake + r->npoints && CDEVS_GROW(&s->b.al, s->wake, s->capwake, s->nwake + r->npoints)) {
      cdevs_ctx_fail(cx, "out of memory");
      return;
    }
    cdevs__entity_unhold(e, s->res, s->units);
    s->nwake += cdevs__res_release(s->b.p, s->res, s->units, t, -1, s->wake + s->nwake);
    if (pass_push(cx, &s->b.al, &s->b.out, x->events[i].value->u.msg, 0)) return;
  }
}

const cdevs_atomic_ops cdevs_siman_release_ops = {
    .type = "Release",
    .state_size = sizeof(release_state),
    .arg_size = sizeof(cdevs_siman_release_params),
    .inputs = entity_in_ports,
    .outputs = entity_out_ports,
    .init = release_init,
    .ta = release_ta,
    .output = release_output,
    .delta_int = release_int,
    .delta_ext = release_ext,
    .fini = release_fini,
};

/* ---- Branch ------------------------------------------------------------------------------- */

typedef struct branch_state {
  passer b;
  cdevs_rng rng;
  int n_out, nwith, else_out;
  int kind[CDEVS_SIMAN_BRANCH_MAX];
  int with[CDEVS_SIMAN_BRANCH_MAX];    /* the WITH outputs in order */
  double cum[CDEVS_SIMAN_BRANCH_MAX];  /* their cumulative chances */
  int nif, attr[CDEVS_SIMAN_BRANCH_MAX], var[CDEVS_SIMAN_BRANCH_MAX], op[CDEVS_SIMAN_BRANCH_MAX];
  double value[CDEVS_SIMAN_BRANCH_MAX]; /* IF conditions: attribute or variable, op, value */
} branch_state;

static const cdevs_port_def branch_out[] = {
    {"out1", CDEVS_MSG},  {"out2", CDEVS_MSG},  {"out3", CDEVS_MSG},  {"out4", CDEVS_MSG},
    {"out5", CDEVS_MSG},  {"out6", CDEVS_MSG},  {"out7", CDEVS_MSG},  {"out8", CDEVS_MSG},
    {"out9", CDEVS_MSG},  {"out10", CDEVS_MSG}, {"out11", CDEVS_MSG}, {"out12", CDEVS_MSG},
    {"out13", CDEVS_MSG}, {"out14", CDEVS_MSG}, {"out15", CDEVS_MSG}, {"out16", CDEVS_MSG},
    {NULL, CDEVS_ANY}};

static int branch_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_siman_branch_params *a = arg;
  branch_state *s = state;
  if (need_proc(cx, a->proc, "Branch")) return CDEVS_EINVAL;
  s->b.p = a->proc;
  s->b.al = a->proc->alloc;
  s->else_out = -1;
  if (a->n_out < 1 || a->n_out > CDEVS_SIMAN_BRANCH_MAX) {
    cdevs_ctx_fail(cx, "Branch needs 1 to %d outputs (got %d)", CDEVS_SIMAN_BRANCH_MAX, a->n_out);
    return CDEVS_EINVAL;
  }
  s->n_out = a->n_out;
  double sum = 0;
  for (int k = 0; k < a->n_out; k++) {
    s->kind[k] = a->kind[k];
    if (a->kind[k] == CDEVS_SIMAN_WITH) {
      if (!(a->percent[k] >= 0 && a->percent[k] <= 100)) {
        cdevs_ctx_fail(cx, "Branch's chance of out%d must be a percentage from 0 to 100 (got %g)", k + 1,
                       a->percent[k]);
        return CDEVS_EINVAL;
      }
      sum += a->percent[k];
      s->with[s->nwith] = k;
      s->cum[s->nwith++] = sum / 100;
    } else if (a->kind[k] == CDEVS_SIMAN_ELSE) {
      if (s->else_out >= 0) {
        cdevs_ctx_fail(cx, "Branch has two ELSE outputs (out%d and out%d)", s->else_out + 1, k + 1);
        return CDEVS_EINVAL;
      }
      s->else_out = k;
    } else if (a->kind[k] == CDEVS_SIMAN_IF) {
      s->var[k] = a->attr[k] ? cdevs_proc_find_variable(s->b.p, a->attr[k]) : -1;
      if (!a->attr[k] || (s->var[k] < 0 && (s->attr[k] = cdevs_proc_attribute(s->b.p, a->attr[k])) < 0) ||
          a->op[k] < CDEVS_LT || a->op[k] > CDEVS_NE || !isfinite(a->value[k])) {
        cdevs_ctx_fail(cx, "Branch's out%d needs a condition: an attribute or variable, a comparison, a finite value",
                       k + 1);
        return CDEVS_EINVAL;
      }
      s->op[k] = a->op[k];
      s->value[k] = a->value[k];
      s->nif++;
    } else if (a->kind[k] != CDEVS_SIMAN_ALWAYS) {
      cdevs_ctx_fail(cx, "Branch's out%d has no kind %d", k + 1, a->kind[k]);
      return CDEVS_EINVAL;
    }
  }
  if (sum > 100 + 1e-9) {
    cdevs_ctx_fail(cx, "Branch's chances add up to %g%%, more than 100", sum);
    return CDEVS_EINVAL;
  }
  if (s->nwith && s->else_out < 0 && sum < 100 - 1e-9) {
    cdevs_ctx_fail(cx, "Branch's chances add up to %g%% and it has no ELSE output for the rest", sum);
    return CDEVS_EINVAL;
  }
  for (int k = 0; k < a->n_out; k++)
    if (cdevs__proc_needs_out(cx, k, branch_out[k].name)) return CDEVS_EINVAL;
  cdevs__proc_stream(cx, s->b.p, "chance", &s->rng);
  return CDEVS_OK;
}

static void branch_fini(void *state) {
  branch_state *s = state;
  pass_free(&s->b.al, &s->b.out);
}

/* A copy of e made at t, holding nothing, that enters the system where it goes. */
static cdevs_msg *duplicate(cdevs_proc *p, const cdevs_entity *e, double t) {
  cdevs_msg *m = cdevs_entity_new(p, e->type, t);
  if (!m) return NULL;
  cdevs_entity *d = cdevs_msg_data(m);
  d->created = e->created;
  d->since = e->since;
  memcpy(d->time, e->time, sizeof d->time);
  memcpy(d->attr, e->attr, (d->nattr < e->nattr ? d->nattr : e->nattr) * sizeof(double));
  return m;
}

static void branch_ext(cdevs_ctx *cx, void *state, double elapsed, const cdevs_bag *x) {
  (void)elapsed;
  branch_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    cdevs_entity *e = entity_in(cx, x->events[i].value);
    if (!e) return;
    cdevs_entity_enter(s->b.p, e, t);
    int chosen = -1;
    if (s->nwith) {
      double u = cdevs_rng_u01(&s->rng);
      int k = 0;
      while (k < s->nwith && u > s->cum[k]) k++;
      if (k < s->nwith) chosen = s->with[k];
      else chosen = s->else_out >= 0 ? s->else_out : s->with[s->nwith - 1]; /* rounding at 100% */
    }
    int taken[CDEVS_SIMAN_BRANCH_MAX] = {0}, any_if = 0;
    for (int k = 0; k < s->n_out; k++) {
      if (s->kind[k] != CDEVS_SIMAN_IF) continue;
      double v = s->var[k] >= 0 ? s->b.p->vars[s->var[k]].v : cdevs__entity_attr(e, s->attr[k]);
      taken[k] = cdevs__holds(v, s->op[k], s->value[k]);
      if (taken[k] && chosen < 0) chosen = k;
      any_if |= taken[k];
    }
    if (chosen < 0 && !any_if && s->else_out >= 0) chosen = s->else_out;
    for (int k = 0; k < s->n_out; k++) {
      if (s->kind[k] == CDEVS_SIMAN_ALWAYS) taken[k] = 1;
      if (chosen < 0 && taken[k]) chosen = k;
    }
    if (chosen < 0) {
      cdevs_ctx_fail(cx, "entity %llu takes no branch: no IF condition holds (an Else branch would take it)",
                     (unsigned long long)e->serial);
      return;
    }
    for (int k = 0; k < s->n_out; k++) {
      if (k == chosen) {
        if (pass_push(cx, &s->b.al, &s->b.out, x->events[i].value->u.msg, k)) return;
      } else if (taken[k]) {
        cdevs_msg *m = duplicate(s->b.p, e, t);
        if (!m) {
          cdevs_ctx_fail(cx, "out of memory for a duplicate of entity %llu", (unsigned long long)e->serial);
          return;
        }
        int bad = pass_push(cx, &s->b.al, &s->b.out, m, k);
        cdevs_msg_release(m);
        if (bad) return;
      }
    }
  }
}

const cdevs_atomic_ops cdevs_siman_branch_ops = {
    .type = "Branch",
    .state_size = sizeof(branch_state),
    .arg_size = sizeof(cdevs_siman_branch_params),
    .inputs = entity_in_ports,
    .outputs = branch_out,
    .init = branch_init,
    .ta = pass_ta,
    .output = pass_output,
    .delta_int = pass_int,
    .delta_ext = branch_ext,
    .fini = branch_fini,
};

/* ---- Count and Tally ------------------------------------------------------------------------ */

typedef struct record_state {
  passer b;
  int kind, attr;
  uint64_t increment;
  long st;
} record_state;


static int record_begin(cdevs_ctx *cx, record_state *s, cdevs_proc *p, const char *what) {
  if (need_proc(cx, p, what) || cdevs__proc_needs_out(cx, 0, "out")) return -1;
  s->b.p = p;
  s->b.al = p->alloc;
  s->attr = -1;
  return 0;
}

static void record_fini(void *state) {
  record_state *s = state;
  pass_free(&s->b.al, &s->b.out);
}

static int count_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_siman_count_params *a = arg;
  record_state *s = state;
  if (record_begin(cx, s, a->proc, "Count")) return CDEVS_EINVAL;
  s->increment = a->increment ? a->increment : 1;
  return (s->st = cdevs__proc_user_stat(cx, s->b.p, a->name, "Count", CDEVS_STAT_COUNT)) < 0 ? CDEVS_EINVAL : CDEVS_OK;
}

static void count_ext(cdevs_ctx *cx, void *state, double elapsed, const cdevs_bag *x) {
  (void)elapsed;
  record_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    cdevs_entity *e = entity_in(cx, x->events[i].value);
    if (!e) return;
    cdevs_entity_enter(s->b.p, e, t);
    cdevs__proc_count(s->b.p, s->st, t, s->increment);
    if (pass_push(cx, &s->b.al, &s->b.out, x->events[i].value->u.msg, 0)) return;
  }
}

const cdevs_atomic_ops cdevs_siman_count_ops = {
    .type = "Count",
    .state_size = sizeof(record_state),
    .arg_size = sizeof(cdevs_siman_count_params),
    .inputs = entity_in_ports,
    .outputs = entity_out_ports,
    .init = count_init,
    .ta = pass_ta,
    .output = pass_output,
    .delta_int = pass_int,
    .delta_ext = count_ext,
    .fini = record_fini,
};

static int tally_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_siman_tally_params *a = arg;
  record_state *s = state;
  if (record_begin(cx, s, a->proc, "Tally")) return CDEVS_EINVAL;
  if (a->kind < CDEVS_SIMAN_TIME_IN_SYSTEM || a->kind > CDEVS_SIMAN_INTERVAL) {
    cdevs_ctx_fail(cx, "Tally has no kind %d", a->kind);
    return CDEVS_EINVAL;
  }
  s->kind = a->kind;
  if (a->kind != CDEVS_SIMAN_TIME_IN_SYSTEM && (!a->attr || (s->attr = cdevs_proc_attribute(s->b.p, a->attr)) < 0)) {
    cdevs_ctx_fail(cx, "Tally of an attribute needs the attribute's name");
    return CDEVS_EINVAL;
  }
  return (s->st = cdevs__proc_user_stat(cx, s->b.p, a->name, "Value", CDEVS_STAT_TALLY)) < 0 ? CDEVS_EINVAL : CDEVS_OK;
}

static void tally_ext(cdevs_ctx *cx, void *state, double elapsed, const cdevs_bag *x) {
  (void)elapsed;
  record_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    cdevs_entity *e = entity_in(cx, x->events[i].value);
    if (!e) return;
    cdevs_entity_enter(s->b.p, e, t);
    /* an entity made before the attribute existed has it at 0, as Record reads it */
    double a = s->attr >= 0 ? cdevs__entity_attr(e, s->attr) : 0;
    double v = s->kind == CDEVS_SIMAN_TIME_IN_SYSTEM ? t - e->created : s->kind == CDEVS_SIMAN_ATTR ? a : t - a;
    cdevs__proc_tally(s->b.p, s->st, t, v);
    if (pass_push(cx, &s->b.al, &s->b.out, x->events[i].value->u.msg, 0)) return;
  }
}

const cdevs_atomic_ops cdevs_siman_tally_ops = {
    .type = "Tally",
    .state_size = sizeof(record_state),
    .arg_size = sizeof(cdevs_siman_tally_params),
    .inputs = entity_in_ports,
    .outputs = entity_out_ports,
    .init = tally_init,
    .ta = pass_ta,
    .output = pass_output,
    .delta_int = pass_int,
    .delta_ext = tally_ext,
    .fini = record_fini,
};
