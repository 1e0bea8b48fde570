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

static void busy_changed(cdevs_proc *p, proc_resource *res, double t) {
  cdevs__proc_level(p, res->st_busy, t, res->busy);
  cdevs__proc_level(p, res->st_util, t, (double)res->busy / res->capacity);
}

int cdevs__res_take(cdevs_proc *p, int r, int pt, int units, double t) {
  proc_resource *res = &p->res[r];
  seize_point *s = &res->points[pt];
  if (s->reserved >= units) { /* counted busy when it was set aside */
    s->reserved -= units;
  } else if (res->capacity - res->busy >= units) {
    res->busy += units;
    busy_changed(p, res, t);
  } else {
    return 0;
  }
  cdevs__proc_count(p, res->st_seized, t, (uint64_t)units);
  return 1;
}

uint32_t cdevs__res_release(cdevs_proc *p, int r, int units, double t, int self, uint32_t *wake) {
  proc_resource *res = &p->res[r];
  res->busy -= units;
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
    if (best < 0 || res->capacity - res->busy < res->points[best].need) break;
    seize_point *s = &res->points[best];
    res->busy += s->need;
    s->reserved += s->need;
    if (best != self) wake[nwake++] = s->model;
  }
  busy_changed(p, res, t);
  return nwake;
}

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
                         s->waiting == 1 ? "s" : "", res->name, res->busy, res->capacity, s->head_since);
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
