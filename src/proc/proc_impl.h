/* SPDX-License-Identifier: MIT */
/* The inside of a process model's shared elements: names, resources with the blocks
 * waiting for them, and the statistics registry with its warm-up. */
#ifndef CDEVS_PROC_IMPL_H
#define CDEVS_PROC_IMPL_H

#include <math.h>

#include "cdevs/proc.h"
#include "core/alloc_impl.h"

/* A block waiting for a resource (a seize point): what the resource needs to choose
 * the next entity to serve when units are released. */
typedef struct seize_point {
  uint32_t model;    /* the block's atomic id, woken by cdevs_send */
  int priority;
  uint32_t waiting;  /* entities in its queue without units */
  double head_since; /* when its first entity began to wait */
  int need;          /* units its first entity needs */
  int reserved;      /* units allocated to it, not yet taken */
  char name[96];     /* its queue's name, for the deadlock report */
} seize_point;

typedef struct proc_resource {
  char *name;
  int capacity;  /* the most units it ever has (what a block may seize at once) */
  int cap_now;   /* the units it has now (its schedule's entry; capacity without one) */
  int busy;      /* may exceed cap_now after a scheduled decrease, until released */
  int *sched_cap; /* a capacity schedule: cap_now = sched_cap[k] for sched_dur[k], repeated */
  double *sched_dur;
  int nsched, sk;  /* entries; the one in force */
  double snext;    /* when the next entry comes into force */
  double stuck;    /* > 0: the time at which a duration was lost in rounding (an error) */
  long st_cap; /* the scheduled capacity's statistic (−1 without a schedule) */
  seize_point *points;
  uint32_t npoints, cappoints;
  long st_busy, st_util, st_seized; /* statistics */
} proc_resource;

/* A variable (Arena's Variable data module): a number blocks set and test. */
typedef struct proc_var {
  char *name;
  double v;
  long st; /* its time-persistent statistic */
} proc_var;

typedef struct proc_stat {
  char *category, *owner, *name;
  int kind; /* cdevs_stat_kind */
  uint64_t count;
  cdevs_tally *tally;
  cdevs_tpstat *tp;
} proc_stat;

struct cdevs_proc {
  cdevs_alloc alloc;
  cdevs_proc_opts o;
  double warm_t; /* statistics are cleared when the time first reaches it */
  int warmed;
  char **types, **attrs;
  uint32_t ntypes, captypes, nattrs, capattrs;
  proc_resource *res;
  uint32_t nres, capres;
  proc_stat *stats;
  uint32_t nstats, capstats;
  proc_var *vars;
  uint32_t nvars, capvars;
  long *type_stats; /* per type: the first of its TYPE_STATS statistics */
  long sys_in, sys_out;
  uint64_t serial, wip;
  char err[256];      /* the first error (cdevs_proc_errmsg) */
  uint32_t stat_fails; /* statistics that could not be made (a block checks its own) */
};

/* The statistics of an entity type, in this order from type_stats[type]. */
enum { TS_IN = 0, TS_OUT, TS_VA, TS_NVA, TS_WAIT, TS_TRAN, TS_OTHER, TS_TOTAL, TS_WIP, TYPE_STATS };

/* Registers a statistic; its index, or −1 for want of memory (p->stat_fails counts them;
 * p->err keeps the first error). For CDEVS_STAT_TIME
 * the value starts at v0 at the start time. */
long cdevs__proc_stat_add(cdevs_proc *p, const char *category, const char *owner, const char *name, int kind,
                          double v0);
/* Statistic updates at time t (each first clears everything if t reached the warm-up). */
void cdevs__proc_count(cdevs_proc *p, long st, double t, uint64_t n);
void cdevs__proc_tally(cdevs_proc *p, long st, double t, double x);
void cdevs__proc_level(cdevs_proc *p, long st, double t, double v);
double cdevs__proc_level_of(const cdevs_proc *p, long st);

/* Whether x op v holds (op: cdevs_decide_op). */
int cdevs__holds(double x, int op, double v);
/* Variable i takes value v at t (its statistic follows). */
void cdevs__proc_var_set(cdevs_proc *p, int i, double t, double v);

/* A block joins the blocks waiting for resource r; the point's index or −1. */
int cdevs__res_join(cdevs_proc *p, int r, uint32_t model, int priority, const char *name);
/* What point pt now waits for (after its queue changed). */
void cdevs__res_waiting(cdevs_proc *p, int r, int pt, uint32_t waiting, double head_since, int need);
/* Takes `units` for point pt's first entity at t, from its reservation or the free
 * units; 1 if taken. */
int cdevs__res_take(cdevs_proc *p, int r, int pt, int units, double t);
/* Resource r's schedule brought up to t (a function of time, so every block seizing at
 * the instant of a change sees the new capacity, whatever the order of their
 * transitions); units it freed are allocated as by cdevs__res_release, the points
 * served written to wake: their number. */
uint32_t cdevs__res_schedule(cdevs_proc *p, int r, double t, uint32_t *wake);
/* Releases units at t and allocates them to waiting points by priority, then waiting
 * time. The points served other than `self` (which may be −1) are written to wake
 * (room for the resource's point count); their number is returned. */
uint32_t cdevs__res_release(cdevs_proc *p, int r, int units, double t, int self, uint32_t *wake);
/* Whether a held-resource list has room and a release matches: entity bookkeeping. */
int cdevs__entity_hold(cdevs_entity *e, int r, int units);
int cdevs__entity_unhold(cdevs_entity *e, int r, int units);

/* The block's name for statistics and random streams: its path below the root
 * ("line.drill"), or the root's name for a root that is the block itself. */
/* An entity leaves the system at t (disposed; a balker): 0, or -1 after failing the
 * model when it still holds units of a resource (they would never be released). how
 * says what it does ("is disposed"). */
int cdevs__entity_leave(cdevs_ctx *cx, cdevs_proc *p, cdevs_entity *e, double t, const char *how);
/* The user statistic "<name>.<what>" of a kind (category "User"), which every block
 * naming it shares (name NULL: the block's own path): its index, or −1 after failing
 * the model (out of memory, or a statistic of that name that is not the user's). */
long cdevs__proc_user_stat(cdevs_ctx *cx, cdevs_proc *p, const char *name, const char *what, int kind);
/* A block's output that carries entities must reach some input: 0, or -1 after failing
 * the model with a message naming the port. */
int cdevs__proc_needs_out(cdevs_ctx *cx, int port, const char *name);
void cdevs__proc_block_name(cdevs_ctx *cx, const cdevs_proc *p, char *buf, size_t size);
/* The random stream of the calling block's source `role` ("<block>.delay"). */
void cdevs__proc_stream(cdevs_ctx *cx, const cdevs_proc *p, const char *role, cdevs_rng *g);
/* In init: 0 if d is a valid distribution, else fails the run with "what: why". */
int cdevs__proc_dist(cdevs_ctx *cx, const cdevs_dist *d, const char *what);
/* A time drawn from d (a delay, an interarrival time) into *out; a negative or
 * non-finite draw fails the run with the distribution and the value, and gives −1. */
int cdevs__proc_draw_time(cdevs_ctx *cx, const cdevs_dist *d, cdevs_rng *g, const char *what, double *out);

/* The time advance from now until `when`, rounded up so that now + ta >= when (the
 * kernel adds them; the block then finds what is due at exactly `when`). */
static inline double cdevs__ta_until(double now, double when) {
  if (when == INFINITY) return INFINITY;
  double ta = when - now;
  if (ta < 0) ta = 0;
  while (now + ta < when) ta = nextafter(ta, INFINITY);
  return ta;
}


/* Attribute k of an entity. One made before the attribute was declared (by C code that
 * makes entities before the blocks' inits ran; a Create makes its first ones after
 * them) has no room for it: it reads 0, the value of every attribute at creation. */
static inline double cdevs__entity_attr(const cdevs_entity *e, int k) {
  return k >= 0 && (uint32_t)k < e->nattr ? e->attr[k] : 0.0;
}

/* Temporary batches (batch.c): messages of this type carry their members after the
 * attributes. cdevs__group_dispose disposes each member at t (the batch's times added
 * to its own); the batch itself is not counted. */
extern const cdevs_msg_type cdevs__group_type;
void cdevs__group_dispose(cdevs_proc *p, cdevs_entity *e, double t);
/* The first member of batch e (recursively) that holds units of a resource, or NULL. */
const cdevs_entity *cdevs__group_holder(const cdevs_entity *e);

/* ---- Entity stores shared by the blocks (equeue.c) ---------------------------------- */

/* A heap of entities by key, then by arrival order (seq), so ties keep FIFO order. */
typedef struct eitem {
  double key;
  uint64_t seq;
  double arrived; /* at the block */
  double start;   /* of its wait or its delay */
  cdevs_msg *m;
} eitem;
typedef struct eheap {
  eitem *a;
  uint32_t n, cap;
} eheap;
#define heap_push cdevs__heap_push
#define heap_pop cdevs__heap_pop
#define heap_free cdevs__heap_free
#define heap_emit_due cdevs__heap_emit_due
int heap_push(const cdevs_alloc *al, eheap *h, const eitem *it); /* -1: out of memory */
eitem heap_pop(eheap *h);
void heap_free(const cdevs_alloc *al, eheap *h); /* releases the entities left */
/* Emits on port every entity whose key is <= t (a delay's leavers), in heap order: they
 * leave in one bag, whose order the receivers do not depend on. */
void heap_emit_due(cdevs_ctx *cx, const eheap *h, int port, double t);

/* Entities passed on at the next output of the same instant, each by its port. */
typedef struct pending {
  cdevs_msg *m;
  int port;
} pending;
typedef struct pass {
  pending *a;
  uint32_t n, cap;
} pass;
#define pass_push cdevs__pass_push
#define pass_emit cdevs__pass_emit
#define pass_clear cdevs__pass_clear
#define pass_free cdevs__pass_free
int pass_push(cdevs_ctx *cx, const cdevs_alloc *al, pass *q, cdevs_msg *m, int port); /* retains m */
void pass_emit(cdevs_ctx *cx, const pass *q);
void pass_clear(pass *q);
void pass_free(const cdevs_alloc *al, pass *q);

/* The first member of the state of every block that passes entities on at the instant
 * it gets them (flow.c, batch.c, siman.c), so that one ta, output and δint serve all. */
typedef struct passer {
  cdevs_proc *p;
  cdevs_alloc al;
  pass out;
} passer;
double cdevs__pass_ta(const void *state);
void cdevs__pass_output(cdevs_ctx *cx, const void *state);
void cdevs__pass_int(cdevs_ctx *cx, void *state);
/* In init: 0, or -1 after failing the model when the block has no process elements. */
int cdevs__need_proc(cdevs_ctx *cx, const cdevs_proc *p, const char *what);
/* The entity of a bag's event i, or NULL after failing the model. */
cdevs_entity *cdevs__entity_at(cdevs_ctx *cx, const cdevs_bag *x, size_t i);

/* A queue's seize point (resource.c): the next entity, if units of res can be had for
 * it at t: taken off q into *it (its wait booked and tallied in st_wait, the units held):
 * 1; 0 if none can go; -1 after failing the model (it released). */
int cdevs__seize_next(cdevs_ctx *cx, cdevs_proc *p, eheap *q, int res, int point, int units, long st_wait, double t,
                      eitem *it);
/* After a queue changed at t: its NQ, and what its seize point waits for. */
void cdevs__queue_changed(cdevs_proc *p, const eheap *q, long st_nq, int res, int point, int units, double t);

#endif
