/* SPDX-License-Identifier: MIT */
/* Arena's Batch and Separate: entities grouped into one representative and split again
 * (or duplicated). A temporary batch is a message of its own type that carries its
 * members after its attributes; it is not counted in the system, its members are. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "proc_impl.h"

/* ---- Temporary batches ------------------------------------------------------------- */

typedef struct group_tail {
  uint64_t n;
  cdevs_msg *m[];
} group_tail;

/* The members follow the attributes (the payload is 8-aligned up to there). */
static group_tail *tail_of(const cdevs_entity *e) {
  return (group_tail *)(void *)((char *)(uintptr_t)e + sizeof *e + e->nattr * sizeof(double));
}

static void group_destroy(void *payload) {
  group_tail *g = tail_of(payload);
  for (uint64_t i = 0; i < g->n; i++) cdevs_msg_release(g->m[i]);
}

const cdevs_msg_type cdevs__group_type = {"Batch", group_destroy};

size_t cdevs_entity_members(const cdevs_entity *e) { return e && e->group ? (size_t)tail_of(e)->n : 0; }

cdevs_msg *cdevs_entity_member(const cdevs_entity *e, size_t i) {
  return i < cdevs_entity_members(e) ? tail_of(e)->m[i] : NULL;
}

/* A member leaving its batch spent the batch's time with it. */
static void add_times(cdevs_entity *member, const cdevs_entity *g) {
  for (int k = 0; k < CDEVS_ALLOC_KINDS; k++) member->time[k] += g->time[k];
}

void cdevs__group_dispose(cdevs_proc *p, cdevs_entity *e, double t) {
  const group_tail *g = tail_of(e);
  for (uint64_t i = 0; i < g->n; i++) {
    cdevs_entity *m = cdevs_msg_data(g->m[i]);
    add_times(m, e);
    cdevs_entity_dispose(p, m, t);
  }
}

const cdevs_entity *cdevs__group_holder(const cdevs_entity *e) {
  if (!e->group) return NULL;
  const group_tail *g = tail_of(e);
  for (uint64_t i = 0; i < g->n; i++) {
    const cdevs_entity *m = cdevs_msg_data(g->m[i]);
    const cdevs_entity *h = m->nheld ? m : cdevs__group_holder(m);
    if (h) return h;
  }
  return NULL;
}

static const cdevs_port_def entity_in[] = {{"in", CDEVS_MSG}, {NULL, CDEVS_ANY}};

/* ---- Batch --------------------------------------------------------------------------- */

/* The entities waiting for one value of the batching attribute, in order of arrival. */
typedef struct bucket {
  double key;
  cdevs_msg **m;
  uint32_t n, cap;
} bucket;

typedef struct batch_state {
  passer b;
  int size, kind, attr, save, type;
  bucket *bk;
  uint32_t nb, capb;
  uint64_t waiting;
  long st_nq, st_wait;
} batch_state;

static const cdevs_port_def batch_out[] = {{"out", CDEVS_MSG}, {NULL, CDEVS_ANY}};

static int batch_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_batch_params *a = arg;
  batch_state *s = state;
  if (!a->proc) {
    cdevs_ctx_fail(cx, "Batch needs its process elements (proc)");
    return CDEVS_EINVAL;
  }
  if (cdevs__proc_needs_out(cx, 0, "out")) return CDEVS_EINVAL;
  cdevs_proc *p = s->b.p = a->proc;
  s->b.al = p->alloc;
  if (a->size < 1 || a->kind < CDEVS_BATCH_TEMPORARY || a->kind > CDEVS_BATCH_PERMANENT || a->save < CDEVS_SAVE_LAST ||
      a->save > CDEVS_SAVE_PRODUCT) {
    cdevs_ctx_fail(cx, "Batch needs a size >= 1 (got %d), a kind and a save rule", a->size);
    return CDEVS_EINVAL;
  }
  s->size = a->size, s->kind = a->kind, s->save = a->save;
  s->attr = s->type = -1;
  if ((a->attr && (s->attr = cdevs_proc_attribute(p, a->attr)) < 0) ||
      (a->entity_type && (s->type = cdevs_proc_entity_type(p, a->entity_type)) < 0)) {
    cdevs_ctx_fail(cx, "%s", p->err);
    return CDEVS_EINVAL;
  }
  char path[200], qname[240];
  cdevs__proc_block_name(cx, p, path, sizeof path);
  snprintf(qname, sizeof qname, "%s.Queue", path);
  uint32_t fails = p->stat_fails;
  s->st_nq = cdevs__proc_stat_add(p, "Queue", qname, "NQ", CDEVS_STAT_TIME, 0);
  s->st_wait = cdevs__proc_stat_add(p, "Queue", qname, "WaitTime", CDEVS_STAT_TALLY, 0);
  if (p->stat_fails != fails) {
    cdevs_ctx_fail(cx, "out of memory for its statistics");
    return CDEVS_ENOMEM;
  }
  return CDEVS_OK;
}

static void batch_fini(void *state) {
  batch_state *s = state;
  for (uint32_t i = 0; i < s->nb; i++) {
    for (uint32_t k = 0; k < s->bk[i].n; k++) cdevs_msg_release(s->bk[i].m[k]);
    CDEVS_FREEARR(&s->b.al, s->bk[i].m, s->bk[i].cap);
  }
  CDEVS_FREEARR(&s->b.al, s->bk, s->capb);
  pass_free(&s->b.al, &s->b.out);
}


/* The representative's attribute k from the members' values, by the save rule. */
static double saved(const batch_state *s, const bucket *b, int k) {
  double v = s->save == CDEVS_SAVE_SUM ? 0 : s->save == CDEVS_SAVE_PRODUCT ? 1 : NAN;
  for (uint32_t i = 0; i < b->n; i++) {
    double x = cdevs__entity_attr(cdevs_msg_data(b->m[i]), k);
    if (s->save == CDEVS_SAVE_SUM) v += x;
    else if (s->save == CDEVS_SAVE_PRODUCT) v *= x;
    else if (s->save == CDEVS_SAVE_LAST || i == 0) v = x;
  }
  return v;
}

/* Bucket b is full at t: its entities leave as one. 0, or -1 after failing the model. */
static int form(cdevs_ctx *cx, batch_state *s, bucket *b, double t) {
  cdevs_proc *p = s->b.p;
  for (uint32_t i = 0; i < b->n; i++) {
    cdevs_entity *e = cdevs_msg_data(b->m[i]);
    double w = t - e->since;
    e->time[CDEVS_WAIT] += w;
    cdevs__proc_tally(p, s->st_wait, t, w);
  }
  int type = s->type >= 0 ? s->type : ((cdevs_entity *)cdevs_msg_data(b->m[0]))->type;
  uint32_t nattr = p->nattrs;
  cdevs_msg *rep;
  if (s->kind == CDEVS_BATCH_PERMANENT) {
    rep = cdevs_entity_new(p, type, t);
  } else {
    rep = cdevs_msg_new(&p->alloc, &cdevs__group_type,
                        sizeof(cdevs_entity) + nattr * sizeof(double) + sizeof(group_tail) + b->n * sizeof(cdevs_msg *));
    if (rep) {
      cdevs_entity *g = cdevs_msg_data(rep);
      g->serial = ++p->serial;
      g->type = type;
      g->nattr = nattr;
      g->created = g->since = t;
      g->entered = 1; /* never counted: its members are */
      g->group = 1;
    }
  }
  if (!rep) {
    cdevs_ctx_fail(cx, "out of memory for a batch");
    return -1;
  }
  cdevs_entity *r = cdevs_msg_data(rep);
  for (uint32_t k = 0; k < r->nattr; k++) r->attr[k] = saved(s, b, (int)k);
  int rc = 0;
  if (s->kind == CDEVS_BATCH_PERMANENT) {
    for (uint32_t i = 0; i < b->n; i++) {
      if (!rc) rc = cdevs__entity_leave(cx, p, cdevs_msg_data(b->m[i]), t, "is batched permanently");
      cdevs_msg_release(b->m[i]);
    }
  } else { /* the members' references pass to the batch */
    group_tail *g = tail_of(r);
    g->n = b->n;
    memcpy(g->m, b->m, b->n * sizeof *b->m);
  }
  s->waiting -= b->n;
  b->n = 0;
  if (!rc) rc = pass_push(cx, &s->b.al, &s->b.out, rep, 0);
  cdevs_msg_release(rep);
  return rc;
}

static void batch_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  batch_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    cdevs_entity *en = cdevs__entity_at(cx, x, i);
    if (!en) return;
    cdevs_entity_enter(s->b.p, en, t);
    en->since = t;
    double key = s->attr >= 0 ? cdevs__entity_attr(en, s->attr) : 0;
    uint32_t k = 0;
    while (k < s->nb && !(s->bk[k].key == key)) k++;
    if (k == s->nb) {
      if (s->nb == s->capb && CDEVS_GROW(&s->b.al, s->bk, s->capb, s->nb + 1)) goto oom;
      memset(&s->bk[k], 0, sizeof s->bk[k]);
      s->bk[k].key = key;
      s->nb++;
    }
    bucket *b = &s->bk[k];
    if (b->n == b->cap && CDEVS_GROW(&s->b.al, b->m, b->cap, b->n + 1)) goto oom;
    b->m[b->n++] = cdevs_msg_retain(x->events[i].value->u.msg);
    s->waiting++;
    if (b->n == (uint32_t)s->size) {
      if (form(cx, s, b, t)) return;
      if (s->attr >= 0) { /* a value seen once need not keep its bucket */
        CDEVS_FREEARR(&s->b.al, b->m, b->cap);
        s->bk[k] = s->bk[--s->nb];
      }
    }
  }
  cdevs__proc_level(s->b.p, s->st_nq, t, (double)s->waiting);
  return;
oom:
  cdevs_ctx_fail(cx, "out of memory");
}

const cdevs_atomic_ops cdevs_batch_ops = {
    .type = "Batch",
    .state_size = sizeof(batch_state),
    .arg_size = sizeof(cdevs_batch_params),
    .inputs = entity_in,
    .outputs = batch_out,
    .init = batch_init,
    .ta = cdevs__pass_ta,
    .output = cdevs__pass_output,
    .delta_int = cdevs__pass_int,
    .delta_ext = batch_ext,
    .fini = batch_fini,
};

/* ---- Separate ------------------------------------------------------------------------ */

typedef struct separate_state {
  passer b;
  int duplicate, duplicates, take;
} separate_state;

enum { OUT_MAIN = 0, OUT_DUP = 1 };
static const cdevs_port_def separate_out[] = {{"out", CDEVS_MSG}, {"dup", CDEVS_MSG}, {NULL, CDEVS_ANY}};

static int separate_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_separate_params *a = arg;
  separate_state *s = state;
  if (!a->proc) {
    cdevs_ctx_fail(cx, "Separate needs its process elements (proc)");
    return CDEVS_EINVAL;
  }
  if (cdevs__proc_needs_out(cx, OUT_MAIN, "out") || (a->duplicate && cdevs__proc_needs_out(cx, OUT_DUP, "dup")))
    return CDEVS_EINVAL;
  if (a->duplicate && a->duplicates < 1) {
    cdevs_ctx_fail(cx, "Separate makes duplicates >= 1 (got %d)", a->duplicates);
    return CDEVS_EINVAL;
  }
  s->b.p = a->proc;
  s->b.al = a->proc->alloc;
  s->duplicate = a->duplicate != 0, s->duplicates = a->duplicates, s->take = a->take_attributes != 0;
  return CDEVS_OK;
}

static void separate_fini(void *state) {
  separate_state *s = state;
  pass_free(&s->b.al, &s->b.out);
}


static void copy_attrs(cdevs_entity *to, const cdevs_entity *from) {
  for (uint32_t k = 0; k < to->nattr; k++) to->attr[k] = cdevs__entity_attr(from, (int)k);
}

static void separate_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  separate_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    cdevs_entity *en = cdevs__entity_at(cx, x, i);
    if (!en) return;
    cdevs_msg *m = x->events[i].value->u.msg;
    cdevs_entity_enter(s->b.p, en, t);
    if (s->duplicate) {
      if (en->group) {
        cdevs_ctx_fail(cx, "batch %llu cannot be duplicated (split it with a Separate first)",
                       (unsigned long long)en->serial);
        return;
      }
      if (pass_push(cx, &s->b.al, &s->b.out, m, OUT_MAIN)) return;
      for (int d = 0; d < s->duplicates; d++) {
        cdevs_msg *dm = cdevs_entity_new(s->b.p, en->type, t);
        if (!dm) {
          cdevs_ctx_fail(cx, "out of memory for duplicates");
          return;
        }
        copy_attrs(cdevs_msg_data(dm), en);
        int rc = pass_push(cx, &s->b.al, &s->b.out, dm, OUT_DUP);
        cdevs_msg_release(dm);
        if (rc) return;
      }
      continue;
    }
    if (!en->group) { /* no batch: it passes through */
      if (pass_push(cx, &s->b.al, &s->b.out, m, OUT_MAIN)) return;
      continue;
    }
    if (en->nheld) {
      cdevs_ctx_fail(cx, "batch %llu is split while it holds %d units of '%s' (release them before the Separate)",
                     (unsigned long long)en->serial, en->held[0].units, s->b.p->res[en->held[0].resource].name);
      return;
    }
    const group_tail *g = tail_of(en);
    for (uint64_t k = 0; k < g->n; k++) {
      cdevs_entity *me = cdevs_msg_data(g->m[k]);
      add_times(me, en);
      if (s->take) copy_attrs(me, en);
      if (pass_push(cx, &s->b.al, &s->b.out, g->m[k], OUT_MAIN)) return;
    }
    memset(en->time, 0, sizeof en->time); /* handed to the members: not twice if it is kept */
  }
}

const cdevs_atomic_ops cdevs_separate_ops = {
    .type = "Separate",
    .state_size = sizeof(separate_state),
    .arg_size = sizeof(cdevs_separate_params),
    .inputs = entity_in,
    .outputs = separate_out,
    .init = separate_init,
    .ta = cdevs__pass_ta,
    .output = cdevs__pass_output,
    .delta_int = cdevs__pass_int,
    .delta_ext = separate_ext,
    .fini = separate_fini,
};
