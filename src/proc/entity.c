/* SPDX-License-Identifier: MIT */
/* Entities: messages with a serial number, a type, attributes, a creation time and
 * the times Arena accumulates, counted in and out of the system. */
#include <math.h>
#include <string.h>

#include "proc_impl.h"

static const cdevs_msg_type entity_type = {"Entity", NULL};

cdevs_entity *cdevs_entity_of(const cdevs_value *v) {
  if (!v || v->kind != CDEVS_MSG) return NULL;
  const cdevs_msg_type *ty = cdevs_msg_type_of(v->u.msg);
  if (ty != &entity_type && ty != &cdevs__group_type) return NULL;
  return cdevs_msg_data(v->u.msg);
}

cdevs_msg *cdevs_entity_new(cdevs_proc *p, int type, double t) {
  uint32_t n = p->nattrs;
  cdevs_msg *m = cdevs_msg_new(&p->alloc, &entity_type, sizeof(cdevs_entity) + n * sizeof(double));
  if (!m) return NULL;
  cdevs_entity *e = cdevs_msg_data(m);
  e->serial = ++p->serial;
  e->type = type;
  e->nattr = n;
  e->created = e->since = t;
  return m;
}

void cdevs_entity_enter(cdevs_proc *p, cdevs_entity *e, double t) {
  if (e->entered) return;
  e->entered = 1;
  long ts = p->type_stats[e->type];
  cdevs__proc_count(p, p->sys_in, t, 1);
  cdevs__proc_count(p, ts + TS_IN, t, 1);
  p->wip++;
  cdevs__proc_level(p, ts + TS_WIP, t, cdevs__proc_level_of(p, ts + TS_WIP) + 1);
}

void cdevs_entity_dispose(cdevs_proc *p, cdevs_entity *e, double t) {
  if (e->group) { /* a temporary batch: its members leave, it was never counted */
    cdevs__group_dispose(p, e, t);
    return;
  }
  cdevs_entity_enter(p, e, t);
  long ts = p->type_stats[e->type];
  cdevs__proc_count(p, p->sys_out, t, 1);
  cdevs__proc_count(p, ts + TS_OUT, t, 1);
  /* Times are recorded for entities created after the warm-up only, as Arena does:
     one created before it carries time from the cleared period. */
  if (!(p->warm_t < INFINITY) || e->created >= p->warm_t) {
    for (int k = 0; k < CDEVS_ALLOC_KINDS; k++) {
      static const int slot[CDEVS_ALLOC_KINDS] = {TS_VA, TS_NVA, TS_WAIT, TS_TRAN, TS_OTHER};
      cdevs__proc_tally(p, ts + slot[k], t, e->time[k]);
    }
    cdevs__proc_tally(p, ts + TS_TOTAL, t, t - e->created);
  }
  p->wip--;
  cdevs__proc_level(p, ts + TS_WIP, t, cdevs__proc_level_of(p, ts + TS_WIP) - 1);
}

int cdevs__entity_hold(cdevs_entity *e, int r, int units) {
  for (int i = 0; i < e->nheld; i++)
    if (e->held[i].resource == r) {
      e->held[i].units += units;
      return 1;
    }
  if (e->nheld == CDEVS_ENTITY_MAX_HELD) return 0;
  e->held[e->nheld].resource = r;
  e->held[e->nheld].units = units;
  e->nheld++;
  return 1;
}

int cdevs__entity_unhold(cdevs_entity *e, int r, int units) {
  for (int i = 0; i < e->nheld; i++)
    if (e->held[i].resource == r) {
      if (e->held[i].units < units) return 0;
      if ((e->held[i].units -= units) == 0) e->held[i] = e->held[--e->nheld];
      return 1;
    }
  return 0;
}
