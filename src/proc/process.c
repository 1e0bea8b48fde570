/* SPDX-License-Identifier: MIT */
/* Arena's Process: SIMAN's Queue, Seize, Delay and Release in one atomic model, so an
 * entity costs one external and one internal transition, however many wait. */
#include <math.h>
#include <string.h>

#include "proc_impl.h"

typedef struct process_state {
  cdevs_proc *p;
  cdevs_alloc al;
  int action, res, point, units, allocation, rule, rank;
  uint64_t capacity;
  cdevs_dist delay;
  cdevs_rng rng;
  eheap queue, busy;
  uint32_t *wake; /* blocks to wake at the next output (units set aside for them) */
  uint32_t nwake, capwake;
  uint64_t seq;
  double now;
  long st_in, st_out, st_va, st_nva, st_total, st_nq, st_wait, st_balk;
  char path[200];
} process_state;

enum { IN_ENTITY = 0, IN_WAKE = 1 };

static const cdevs_port_def proc_in[] = {{"in", CDEVS_MSG}, {"_wake", CDEVS_INT}, {NULL, CDEVS_ANY}};
static const cdevs_port_def proc_out[] = {{"out", CDEVS_MSG}, {NULL, CDEVS_ANY}};

static int seizes(int action) { return action == CDEVS_SEIZE_DELAY || action == CDEVS_SEIZE_DELAY_RELEASE; }
static int releases(int action) { return action == CDEVS_SEIZE_DELAY_RELEASE || action == CDEVS_DELAY_RELEASE; }

static int process_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_process_params *a = arg;
  process_state *s = state;
  cdevs_proc *p = a->proc;
  if (!p) {
    cdevs_ctx_fail(cx, "Process needs its process elements (proc)");
    return CDEVS_EINVAL;
  }
  if (cdevs__proc_needs_out(cx, 0, "out")) return CDEVS_EINVAL;
  s->p = p;
  s->al = p->alloc;
  cdevs__proc_block_name(cx, p, s->path, sizeof s->path);
  s->action = a->action, s->units = a->units, s->allocation = a->allocation;
  s->rule = a->rule, s->capacity = a->capacity, s->delay = a->delay;
  s->now = cdevs_ctx_time(cx);
  s->res = s->point = s->rank = -1;
  s->st_nq = s->st_wait = s->st_balk = -1; /* a Process that seizes nothing has no queue */
  if (a->action < CDEVS_DELAY || a->action > CDEVS_DELAY_RELEASE) {
    cdevs_ctx_fail(cx, "Process has no action %d", a->action);
    return CDEVS_EINVAL;
  }
  if (a->allocation < 0 || a->allocation >= CDEVS_ALLOC_KINDS || a->rule < CDEVS_FIFO || a->rule > CDEVS_HVF) {
    cdevs_ctx_fail(cx, "Process has an allocation or queue rule out of range");
    return CDEVS_EINVAL;
  }
  if (cdevs__proc_dist(cx, &a->delay, "delay")) return CDEVS_EINVAL;
  if (a->action != CDEVS_DELAY) {
    if (!a->resource || (s->res = cdevs_proc_find_resource(p, a->resource)) < 0) {
      cdevs_ctx_fail(cx, "Process needs a resource for its action (no resource '%s')",
                     a->resource ? a->resource : "");
      return CDEVS_EINVAL;
    }
    if (a->units < 1 || a->units > p->res[s->res].capacity) {
      cdevs_ctx_fail(cx, "Process seizes %d units of '%s', which has %d", a->units, a->resource,
                     p->res[s->res].capacity);
      return CDEVS_EINVAL;
    }
  }
  char qname[240];
  snprintf(qname, sizeof qname, "%s.Queue", s->path);
  if (seizes(a->action) && (s->point = cdevs__res_join(p, s->res, cdevs_ctx_self(cx), a->priority, qname)) < 0) goto oom;
  if (a->rule == CDEVS_LVF || a->rule == CDEVS_HVF) {
    if (!a->rank_attr || (s->rank = cdevs_proc_attribute(p, a->rank_attr)) < 0) {
      cdevs_ctx_fail(cx, "Process ranks its queue by an attribute and needs its name");
      return CDEVS_EINVAL;
    }
  }
  cdevs__proc_stream(cx, p, "delay", &s->rng);
  uint32_t fails = p->stat_fails;
  s->st_in = cdevs__proc_stat_add(p, "Process", s->path, "NumberIn", CDEVS_STAT_COUNT, 0);
  s->st_out = cdevs__proc_stat_add(p, "Process", s->path, "NumberOut", CDEVS_STAT_COUNT, 0);
  s->st_va = cdevs__proc_stat_add(p, "Process", s->path, "VATime", CDEVS_STAT_TALLY, 0);
  s->st_nva = cdevs__proc_stat_add(p, "Process", s->path, "NVATime", CDEVS_STAT_TALLY, 0);
  s->st_total = cdevs__proc_stat_add(p, "Process", s->path, "TotalTime", CDEVS_STAT_TALLY, 0);
  if (seizes(a->action)) {
    s->st_nq = cdevs__proc_stat_add(p, "Queue", qname, "NQ", CDEVS_STAT_TIME, 0);
    s->st_wait = cdevs__proc_stat_add(p, "Queue", qname, "WaitTime", CDEVS_STAT_TALLY, 0);
    s->st_balk = cdevs__proc_stat_add(p, "Queue", qname, "NumberBalked", CDEVS_STAT_COUNT, 0);
  }
  if (p->stat_fails != fails) {
    cdevs_ctx_fail(cx, "out of memory for its statistics");
    return CDEVS_ENOMEM;
  }
  return CDEVS_OK;
oom:
  cdevs_ctx_fail(cx, "out of memory");
  return CDEVS_ENOMEM;
}

static void process_fini(void *state) {
  process_state *s = state;
  heap_free(&s->al, &s->queue);
  heap_free(&s->al, &s->busy);
  CDEVS_FREEARR(&s->al, s->wake, s->capwake);
}

static double process_ta(const void *state) {
  const process_state *s = state;
  if (s->nwake) return 0;
  return s->busy.n ? cdevs__ta_until(s->now, s->busy.a[0].key) : INFINITY;
}

static void process_output(cdevs_ctx *cx, const void *state) {
  const process_state *s = state;
  double t = cdevs_ctx_time(cx);
  /* Entities due at the same time leave in one bag; their order within it is the
     heap's, which the receivers do not depend on (a bag is a set). */
  heap_emit_due(cx, &s->busy, 0, t);
  for (uint32_t i = 0; i < s->nwake; i++) {
    cdevs_value v = cdevs_int(s->res);
    cdevs_send(cx, s->wake[i], IN_WAKE, &v);
  }
}

/* Starts the delay of an entity at t. */
static int start_delay(cdevs_ctx *cx, process_state *s, eitem *it, double t) {
  double d;
  if (cdevs__proc_draw_time(cx, &s->delay, &s->rng, "delay", &d)) return -1;
  it->key = t + d;
  it->start = t;
  if (heap_push(&s->al, &s->busy, it)) {
    cdevs_ctx_fail(cx, "out of memory for %u entities in the delay", s->busy.n + 1);
    return -1;
  }
  return 0;
}

static void queue_changed(process_state *s, double t) {
  cdevs__queue_changed(s->p, &s->queue, s->st_nq, s->res, s->point, s->units, t);
}

/* Moves waiting entities into the delay while units can be had. */
static void serve(cdevs_ctx *cx, process_state *s, double t) {
  eitem it;
  int got;
  while ((got = cdevs__seize_next(cx, s->p, &s->queue, s->res, s->point, s->units, s->st_wait, t, &it)) > 0)
    if (start_delay(cx, s, &it, t)) {
      cdevs_msg_release(it.m);
      return;
    }
  if (got == 0) queue_changed(s, t);
}

static void arrive(cdevs_ctx *cx, process_state *s, cdevs_msg *m, double t) {
  cdevs_entity *e = cdevs_msg_data(m);
  cdevs_entity_enter(s->p, e, t);
  cdevs__proc_count(s->p, s->st_in, t, 1);
  eitem it = {0, s->seq++, t, t, cdevs_msg_retain(m)};
  if (s->action == CDEVS_DELAY_RELEASE) {
    int held = 0;
    for (int i = 0; i < e->nheld; i++) held |= e->held[i].resource == s->res && e->held[i].units >= s->units;
    if (!held) {
      cdevs_ctx_fail(cx, "entity %llu arrives to release %d units of '%s' it does not hold",
                     (unsigned long long)e->serial, s->units, s->p->res[s->res].name);
      cdevs_msg_release(m);
      return;
    }
  }
  if (!seizes(s->action)) {
    if (start_delay(cx, s, &it, t)) cdevs_msg_release(m);
    return;
  }
  if (s->capacity && s->queue.n >= s->capacity) { /* balks: it leaves the system here */
    cdevs__proc_count(s->p, s->st_balk, t, 1);
    (void)cdevs__entity_leave(cx, s->p, e, t, "balks and leaves the system");
    cdevs_msg_release(m);
    return;
  }
  e->since = t;
  switch (s->rule) {
  case CDEVS_FIFO: it.key = 0; break;
  case CDEVS_LIFO: it.key = -(double)it.seq; break;
  case CDEVS_LVF: it.key = cdevs__entity_attr(e, s->rank); break;
  default: it.key = -cdevs__entity_attr(e, s->rank); break;
  }
  if (heap_push(&s->al, &s->queue, &it)) {
    cdevs_ctx_fail(cx, "out of memory for %u entities in the queue", s->queue.n + 1);
    cdevs_msg_release(m);
  }
}

static void process_int(cdevs_ctx *cx, void *state) {
  process_state *s = state;
  double t = cdevs_ctx_time(cx);
  s->nwake = 0; /* they were woken by the output */
  while (s->busy.n && s->busy.a[0].key <= t) {
    eitem it = heap_pop(&s->busy);
    cdevs_entity *e = cdevs_msg_data(it.m);
    double d = t - it.start;
    e->time[s->allocation] += d;
    if (s->allocation == CDEVS_VA) cdevs__proc_tally(s->p, s->st_va, t, d);
    if (s->allocation == CDEVS_NVA) cdevs__proc_tally(s->p, s->st_nva, t, d);
    cdevs__proc_tally(s->p, s->st_total, t, t - it.arrived);
    cdevs__proc_count(s->p, s->st_out, t, 1);
    if (releases(s->action)) {
      if (!cdevs__entity_unhold(e, s->res, s->units)) {
        cdevs_ctx_fail(cx, "entity %llu releases %d units of '%s' it does not hold", (unsigned long long)e->serial,
                       s->units, s->p->res[s->res].name);
      } else {
        proc_resource *r = &s->p->res[s->res];
        if (s->capwake < s->nwake + r->npoints &&
            CDEVS_GROW(&s->al, s->wake, s->capwake, s->nwake + r->npoints)) {
          cdevs_ctx_fail(cx, "out of memory");
        } else {
          s->nwake += cdevs__res_release(s->p, s->res, s->units, t, s->point, s->wake + s->nwake);
        }
      }
    }
    cdevs_msg_release(it.m);
  }
  if (seizes(s->action)) serve(cx, s, t);
  s->now = t;
}

static void process_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  process_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    if (x->events[i].port != IN_ENTITY) continue; /* a wake: units were set aside for us */
    cdevs_entity *en = cdevs_entity_of(x->events[i].value);
    if (!en) {
      cdevs_ctx_fail(cx, "received a %s that is not an entity", cdevs_kind_name(x->events[i].value->kind));
      return;
    }
    arrive(cx, s, x->events[i].value->u.msg, t);
  }
  if (seizes(s->action)) serve(cx, s, t);
  s->now = t;
}

static void process_conf(cdevs_ctx *cx, void *state, const cdevs_bag *x) {
  process_int(cx, state);
  process_ext(cx, state, 0, x);
}

const cdevs_atomic_ops cdevs_process_ops = {
    .type = "Process",
    .state_size = sizeof(process_state),
    .arg_size = sizeof(cdevs_process_params),
    .inputs = proc_in,
    .outputs = proc_out,
    .init = process_init,
    .ta = process_ta,
    .output = process_output,
    .delta_int = process_int,
    .delta_ext = process_ext,
    .delta_conf = process_conf,
    .fini = process_fini,
};
