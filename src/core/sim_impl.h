/* SPDX-License-Identifier: MIT */
/* The flattened simulator: flat arrays indexed by atomic id, fan-out as index arrays. */
#ifndef CDEVS_SIM_IMPL_H
#define CDEVS_SIM_IMPL_H

#include <signal.h>

#include "cdevs/sim.h"
#include "heap.h"
#include "model_impl.h"

/* A flattened coupling destination; model ROOT_OUT means the root's output port. */
typedef struct dest {
  uint32_t model;
  uint32_t port;
} dest;

#define ROOT_OUT UINT32_MAX

/* One value emitted during λ (or injected), with the global output port it left by. */
typedef struct out_ev {
  uint32_t src;   /* atomic id (UINT32_MAX for an injected input) */
  uint32_t port;  /* local output port (root input port when injected) */
  const dest *d0; /* fan-out destinations [d0, d1) */
  const dest *d1;
  dest to;        /* a direct send's one destination (cdevs_send), else to.model is UINT32_MAX */
  cdevs_value v;
} out_ev;

/* A link of a receiver's bag: events are chained per receiver in arrival order. */
typedef struct bag_link {
  uint32_t next;
  uint32_t port;
  uint32_t ev; /* index into the output buffer */
} bag_link;

enum { MARK_IMMINENT = 1, MARK_TOUCHED = 2 };

enum { PHASE_IDLE = 0, PHASE_OUTPUT, PHASE_TRANSITION, PHASE_INIT, PHASE_DEAD };

struct cdevs_ctx {
  cdevs_sim *sim;
  uint32_t model;
  int phase;
  double t;
  double horizon; /* cdevs_ctx_horizon's, set for each δint */
};

struct cdevs_sim {
  const cdevs_model *root;
  cdevs_alloc alloc;
  cdevs_sim_opts opts;
  cdevs_ctx cx;
  double until; /* the running cdevs_sim_run's end; -INFINITY outside one */
  volatile sig_atomic_t stop; /* cdevs_sim_request_stop's: end the run after this instant */

  /* per atomic, indexed by id */
  uint32_t n;
  const cdevs_model **model;
  const cdevs_atomic_ops **ops;
  void **state;
  double *tl, *tn;
  uint32_t *out_base; /* first global output port of each atomic; out_base[n] = total */
  uint8_t *mark;
  uint32_t *bag_head, *bag_tail;
  heap heap;
  /* Parallel DEVS: the models whose next event is at the time of the instant that
   * scheduled them (ta = 0, the bulk of a zero-delay model's events), kept in a list
   * beside the heap instead of in it (heap.pos HEAP_NOW): the next instant takes
   * them all at once, in id order, merged with the heap's at that time. */
  uint32_t *now, nnow;
  double now_t;

  /* flattened fan-out: destinations of global output port g are fo[fo_start[g] .. fo_start[g+1]) */
  uint32_t *fo_start;
  dest *fo;
  uint8_t *out_kind; /* kind of each global output port */
  uint32_t n_root_in;
  uint32_t *in_start; /* the same for the root's input ports */
  dest *in_fo;

  unsigned char *arena; /* all atomic states, one block */
  size_t arena_size;

  /* per-instant scratch, grown geometrically, never shrunk */
  out_ev *outs;
  uint32_t nouts, capouts;
  bag_link *links;
  uint32_t nlinks, caplinks;
  uint32_t *imm, nimm;
  uint32_t *touched, ntouched;
  cdevs_event *evs;
  uint32_t capevs;

  /* pending injected inputs, all at time inj_t */
  out_ev *inj;
  uint32_t ninj, capinj;
  double inj_t;

  double t_last;        /* time of the last executed instant */
  uint64_t at_t_count;  /* transitions executed at time t_last */
  uint64_t max_at_t;

  /* Structure changes (structure.c): the per-atomic arrays hold cap ids (n until a
   * model is added); the requests of the instant; dead[id] once a model is removed
   * (NULL before). */
  uint32_t cap;
  uint32_t n_static;    /* ids below it have their state in the arena; above, their own block */
  uint32_t nout_routed; /* the output ports fo_start and out_kind were built for */
  /* Routes changed during the run, over the flattened ones: per global output port
   * (xcap of them, NULL: unchanged) and per root input, with the ports' kinds. */
  dest **xfo, **xin;
  uint32_t *xn, *xinn;
  uint8_t *xkind;
  uint32_t xcap;
  dest xnone; /* (the list of a port that reaches nothing) */
  bool drivers_declared; /* some model declares how many drivers an input takes */
  uint32_t *dirty;       /* the instant's changes: the sources to route again */
  uint32_t ndirty, capdirty;
  struct change *chg;
  uint32_t nchg, capchg;
  uint8_t *dead;

  cdevs_stats st;
  const cdevs_observer *obs[CDEVS_MAX_OBSERVERS];
  void *obs_ud[CDEVS_MAX_OBSERVERS];
  uint32_t nobs;
  bool failed; /* a callback called cdevs_ctx_fail or emission failed */
  cdevs_status status;
  char errmsg[512];
};

void cdevs__sim_error(cdevs_sim *s, cdevs_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* flatten.c: fills model/ops/out_base/fan-out arrays of a zeroed sim. */
cdevs_status cdevs__flatten(cdevs_sim *s);
/* flatten.c: the routes of the given ports again, from the tree as it is now, into
 * the overlay (xfo, xin): global output ports g, root inputs as nout + p; dead models'
 * ports route nowhere; pending injected inputs follow. 0, or a status with the
 * simulator's error set. */
cdevs_status cdevs__reroute(cdevs_sim *s, const uint32_t *ports, uint32_t nports);
/* structure.c: notes source g to be routed again at the end of the instant's changes:
 * a global output port, or CDEVS_DIRTY_ROOT_IN | p for the root's input p. -1 out of
 * memory. */
#define CDEVS_DIRTY_ROOT_IN 0x80000000u
int cdevs__dirty(cdevs_sim *s, uint32_t g);
/* flatten.c: notes (cdevs__dirty) the sources whose
 * routes pass through end (src, port) of coupled model m: a child's output port, or
 * m's own input port when src is -1. -1 out of memory. */
int cdevs__upstream(cdevs_sim *s, const cdevs_model *m, int32_t src, int32_t port);
/* flatten.c: frees the overlay of routes changed during the run. */
void cdevs__overlay_free(cdevs_sim *s);

/* The destinations of global output port g, and its kind. */
static inline void cdevs__routes(const cdevs_sim *s, uint32_t g, const dest **d0, const dest **d1) {
  if (__builtin_expect(s->xfo != NULL, 0) && g < s->xcap && s->xfo[g]) {
    *d0 = s->xfo[g], *d1 = s->xfo[g] + s->xn[g];
  } else {
    *d0 = s->fo + s->fo_start[g], *d1 = s->fo + s->fo_start[g + 1];
  }
}
static inline uint8_t cdevs__out_kind(const cdevs_sim *s, uint32_t g) {
  return __builtin_expect(s->xfo != NULL, 0) && g < s->xcap && s->xfo[g] ? s->xkind[g] : s->out_kind[g];
}
/* The destinations of root input port p. */
static inline void cdevs__root_routes(const cdevs_sim *s, uint32_t p, const dest **d0, const dest **d1) {
  if (s->xin && s->xin[p]) {
    *d0 = s->xin[p], *d1 = s->xin[p] + s->xinn[p];
  } else {
    *d0 = s->in_fo + s->in_start[p], *d1 = s->in_fo + s->in_start[p + 1];
  }
}
/* structure.c: the instant's structure changes, applied at its end (t); frees them.
 * 0, or the status of the error that stopped it (set). */
cdevs_status cdevs__apply_changes(cdevs_sim *s, double t);
/* structure.c: frees the requests not applied, and what structure changes allocated
 * (the states of models added during the run). */
void cdevs__changes_free(cdevs_sim *s);
/* sim.c: the time advance of model i after a transition or init at t; -1 after
 * setting the error. */
int cdevs__schedule(cdevs_sim *s, uint32_t i, double t);
#define CDEVS_STATE_ALIGN 16u

/* qsort's comparison of uint32_t (structure.c). */
int cdevs__cmp_u32(const void *pa, const void *pb);

/* The next event time of any model: the heap's, or the batch's. */
static inline double cdevs__next_t(const cdevs_sim *s) {
  double t = heap_min_time(&s->heap);
  return s->nnow && s->now_t < t ? s->now_t : t;
}

/* Model i's next event at tn (INFINITY: none): into the batch when tn is the time of
 * the instant running (Parallel DEVS), else into the heap. */
static inline void cdevs__sched_set(cdevs_sim *s, uint32_t i, double tn) {
  uint32_t *pos = s->heap.pos;
  if (pos[i] == HEAP_NOW) {
    if (tn == s->now_t) return;
    for (uint32_t k = 0; k < s->nnow; k++) /* (rare: a structure change) */
      if (s->now[k] == i) {
        s->now[k] = s->now[--s->nnow];
        break;
      }
    pos[i] = HEAP_NONE;
  }
  if (tn == s->cx.t && s->opts.mode == CDEVS_PARALLEL && (s->nnow == 0 || s->now_t == tn)) {
    if (pos[i] != HEAP_NONE) heap_remove_at(&s->heap, pos[i]);
    s->now_t = tn;
    s->now[s->nnow++] = i;
    pos[i] = HEAP_NOW;
    return;
  }
  heap_set(&s->heap, i, tn);
}

#endif
