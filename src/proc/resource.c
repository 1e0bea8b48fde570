/* SPDX-License-Identifier: MIT */
/* Resources: units seized and released, and who gets a released unit — the waiting
 * block of lowest priority value, then the one whose first entity waited longest, then
 * the one that joined first — with the unit set aside for it until it takes it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "proc_impl.h"

int cdevs__res_join(cdevs_proc *p, int r, uint32_t model, int priority, const char *name) {
  proc_resource *res = &p->res[r];
  if (res->npoints == res->cappoints && CDEVS_GROW(&p->alloc, res->points, res->cappoints, res->npoints + 1))
    return -1;
  seize_point *pt = &res->points[res->npoints];
  pt->model = model;
  pt->priority = priority;
  pt->waiting = 0;
  pt->head_since = INFINITY;
  pt->need = 1;
  pt->reserved = 0;
  snprintf(pt->name, sizeof pt->name, "%s", name);
  return (int)res->npoints++;
}

void cdevs__res_waiting(cdevs_proc *p, int r, int pt, uint32_t waiting, double head_since, int need) {
  seize_point *s = &p->res[r].points[pt];
  s->waiting = waiting;
  s->head_since = head_since;
  s->need = need;
}

/* Utilization is busy / capacity now; with no capacity (a scheduled break), 1 while
 * units seized before it are still busy, else 0. */
static void busy_changed(cdevs_proc *p, proc_resource *res, double t) {
  cdevs__proc_level(p, res->st_busy, t, res->busy);
  cdevs__proc_level(p, res->st_util, t,
                    res->cap_now > 0 ? (double)res->busy / res->cap_now : res->busy > 0 ? 1.0 : 0.0);
}

/* The schedule's entries that came into force by t. */
static void sync(cdevs_proc *p, proc_resource *res, double t) {
  if (!res->nsched || t < res->snext) return;
  while (t >= res->snext) {
    res->sk = (res->sk + 1) % res->nsched;
    res->cap_now = res->sched_cap[res->sk];
    double next = res->snext + res->sched_dur[res->sk];
    if (!(next > res->snext)) { /* a duration lost in the time's rounding: it would never end */
      res->stuck = res->snext;
      res->snext = INFINITY;
      break;
    }
    res->snext = next;
  }
  cdevs__proc_level(p, res->st_cap, t, res->cap_now);
  busy_changed(p, res, t);
}

int cdevs__res_take(cdevs_proc *p, int r, int pt, int units, double t) {
  proc_resource *res = &p->res[r];
  sync(p, res, t);
  seize_point *s = &res->points[pt];
  if (s->reserved >= units) { /* counted busy when it was set aside */
    s->reserved -= units;
  } else if (res->cap_now - res->busy >= units) {
    res->busy += units;
    busy_changed(p, res, t);
  } else {
    return 0;
  }
  cdevs__proc_count(p, res->st_seized, t, (uint64_t)units);
  return 1;
}

/* Units free now go to the waiting points, set aside for them (self's not woken). */
static uint32_t allocate(proc_resource *res, int self, uint32_t *wake) {
  uint32_t nwake = 0;
  for (;;) {
    /* the best point still waiting for units beyond those set aside for it */
    int best = -1;
    for (uint32_t i = 0; i < res->npoints; i++) {
      const seize_point *s = &res->points[i];
      if (s->waiting == 0 || s->reserved > 0) continue;
      if (best < 0) {
        best = (int)i;
        continue;
      }
      const seize_point *b = &res->points[best];
      if (s->priority < b->priority || (s->priority == b->priority && s->head_since < b->head_since))
        best = (int)i;
    }
    if (best < 0 || res->cap_now - res->busy < res->points[best].need) break;
    seize_point *s = &res->points[best];
    res->busy += s->need;
    s->reserved += s->need;
    if (best != self) wake[nwake++] = s->model;
  }
  return nwake;
}

uint32_t cdevs__res_release(cdevs_proc *p, int r, int units, double t, int self, uint32_t *wake) {
  proc_resource *res = &p->res[r];
  sync(p, res, t);
  res->busy -= units;
  uint32_t nwake = allocate(res, self, wake);
  busy_changed(p, res, t);
  return nwake;
}

uint32_t cdevs__res_schedule(cdevs_proc *p, int r, double t, uint32_t *wake) {
  proc_resource *res = &p->res[r];
  sync(p, res, t);
  uint32_t nwake = allocate(res, -1, wake);
  if (nwake) busy_changed(p, res, t);
  return nwake;
}

int cdevs_proc_resource_schedule(cdevs_proc *p, int r, const int *cap, const double *dur, int n) {
  if (r < 0 || (uint32_t)r >= p->nres || n < 1 || !cap || !dur) return CDEVS_EINVAL;
  proc_resource *res = &p->res[r];
  int most = 0;
  for (int k = 0; k < n; k++) {
    if (cap[k] < 0 || !(dur[k] > 0) || !isfinite(dur[k])) return CDEVS_EINVAL;
    if (cap[k] > most) most = cap[k];
  }
  if (most < 1 || res->nsched || res->npoints) return CDEVS_EINVAL; /* never any unit; twice; in use */
  res->sched_cap = cdevs__calloc(&p->alloc, (size_t)n, sizeof *res->sched_cap);
  res->sched_dur = cdevs__calloc(&p->alloc, (size_t)n, sizeof *res->sched_dur);
  if (res->sched_cap && res->sched_dur)
    res->st_cap = cdevs__proc_stat_add(p, "Resource", res->name, "Capacity", CDEVS_STAT_TIME, cap[0]);
  if (!res->sched_cap || !res->sched_dur || res->st_cap < 0) {
    cdevs__free(&p->alloc, res->sched_cap, (size_t)n * sizeof *res->sched_cap);
    cdevs__free(&p->alloc, res->sched_dur, (size_t)n * sizeof *res->sched_dur);
    res->sched_cap = NULL, res->sched_dur = NULL, res->st_cap = -1;
    return CDEVS_ENOMEM;
  }
  memcpy(res->sched_cap, cap, (size_t)n * sizeof *cap);
  memcpy(res->sched_dur, dur, (size_t)n * sizeof *dur);
  res->nsched = n;
  res->sk = 0;
  res->snext = p->o.start + dur[0];
  res->capacity = most;
  res->cap_now = cap[0];
  return CDEVS_OK;
}

/* ---- The schedule's model: the capacity changes as events -------------------------- */

typedef struct sched_state {
  cdevs_proc *p;
  int r;
  double now; /* the last transition's time */
  uint32_t *wake;   /* points to wake at the next output */
  uint32_t nwake, capwake;
  cdevs_alloc al;
} sched_state;

enum { IN_WAKE = 1 }; /* the seize points' wake input, as on Process and Queue */

static int sched_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_resource_params *a = arg;
  sched_state *s = state;
  if (!a->proc || !a->name || (s->r = cdevs_proc_find_resource(a->proc, a->name)) < 0) {
    cdevs_ctx_fail(cx, "a resource schedule needs its process elements and a resource (no resource '%s')",
                   a->name ? a->name : "");
    return CDEVS_EINVAL;
  }
  s->p = a->proc;
  s->al = a->proc->alloc;
  const proc_resource *res = &s->p->res[s->r];
  s->now = cdevs_ctx_time(cx);
  if (res->npoints && CDEVS_GROW(&s->al, s->wake, s->capwake, res->npoints)) {
    cdevs_ctx_fail(cx, "out of memory");
    return CDEVS_ENOMEM;
  }
  return CDEVS_OK;
}

static void sched_fini(void *state) {
  sched_state *s = state;
  CDEVS_FREEARR(&s->al, s->wake, s->capwake);
}

static double sched_ta(const void *state) {
  const sched_state *s = state;
  const proc_resource *res = &s->p->res[s->r];
  return s->nwake ? 0 : res->nsched ? cdevs__ta_until(s->now, res->snext) : INFINITY;
}

static void sched_output(cdevs_ctx *cx, const void *state) {
  const sched_state *s = state;
  cdevs_value v = cdevs_int(1);
  for (uint32_t i = 0; i < s->nwake; i++) cdevs_send(cx, s->wake[i], IN_WAKE, &v);
}

static void sched_int(cdevs_ctx *cx, void *state) {
  sched_state *s = state;
  double t = s->now = cdevs_ctx_time(cx);
  if (s->nwake) { /* the wakes went out: on to the next change */
    s->nwake = 0;
    return;
  }
  const proc_resource *res = &s->p->res[s->r];
  /* every point joined in an init, before any transition: the wake list has room */
  if (s->capwake < res->npoints && CDEVS_GROW(&s->al, s->wake, s->capwake, res->npoints)) {
    cdevs_ctx_fail(cx, "out of memory");
    return;
  }
  s->nwake = cdevs__res_schedule(s->p, s->r, t, s->wake);
  if (res->stuck > 0) /* (the capacity would stay as it is: a wrong answer) */
    cdevs_ctx_fail(cx, "the schedule of resource '%s' cannot go on past t=%.17g: its durations are lost in the "
                       "rounding of times this large (give longer durations, or a shorter run)",
                   res->name, res->stuck);
}

const cdevs_atomic_ops cdevs_resource_ops = {
    .type = "Resource",
    .state_size = sizeof(sched_state),
    .arg_size = sizeof(cdevs_resource_params),
    .init = sched_init,
    .ta = sched_ta,
    .output = sched_output,
    .delta_int = sched_int,
    .fini = sched_fini,
};

uint64_t cdevs_proc_deadlock(const cdevs_proc *p, char *buf, size_t size) {
  uint64_t total = 0;
  size_t len = 0;
  if (size) buf[0] = 0;
  for (uint32_t r = 0; r < p->nres; r++) {
    const proc_resource *res = &p->res[r];
    for (uint32_t i = 0; i < res->npoints; i++) {
      const seize_point *s = &res->points[i];
      if (!s->waiting) continue;
      total += s->waiting;
      if (len < size) {
        int w = snprintf(buf + len, size - len,
                         "%s%u entit%s in queue '%s' wait%s for resource '%s' (%d of %d units held) since t=%.10g",
                         len ? "; " : "", s->waiting, s->waiting == 1 ? "y" : "ies", s->name,
                         s->waiting == 1 ? "s" : "", res->name, res->busy, res->cap_now, s->head_since);
        if (w > 0) len += (size_t)w;
      }
    }
  }
  return total;
}

int cdevs__seize_next(cdevs_ctx *cx, cdevs_proc *p, eheap *q, int res, int point, int units, long st_wait, double t,
                      eitem *it) {
  if (!q->n || !cdevs__res_take(p, res, point, units, t)) return 0;
  *it = heap_pop(q);
  cdevs_entity *e = cdevs_msg_data(it->m);
  double w = t - e->since;
  e->time[CDEVS_WAIT] += w;
  cdevs__proc_tally(p, st_wait, t, w);
  if (cdevs__entity_hold(e, res, units)) return 1;
  cdevs_ctx_fail(cx, "entity %llu holds more than %d resources", (unsigned long long)e->serial, CDEVS_ENTITY_MAX_HELD);
  cdevs_msg_release(it->m);
  return -1;
}

void cdevs__queue_changed(cdevs_proc *p, const eheap *q, long st_nq, int res, int point, int units, double t) {
  cdevs__proc_level(p, st_nq, t, q->n);
  cdevs__res_waiting(p, res, point, q->n, q->n ? q->a[0].arrived : INFINITY, units);
}
