/* SPDX-License-Identifier: MIT */
/* Running models: the simulator, its step API, observers and statistics. */
#ifndef CDEVS_SIM_H
#define CDEVS_SIM_H

#include <stdint.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdevs_sim cdevs_sim;

typedef enum cdevs_mode {
  /* All imminent models emit, then each runs δint, δext or δconf (default). */
  CDEVS_PARALLEL = 0,
  /* One imminent model at a time, chosen by the select order (PowerDEVS). */
  CDEVS_CLASSIC = 1
} cdevs_mode;

typedef struct cdevs_sim_opts {
  cdevs_mode mode;
  double t0; /* start time, default 0 */
  /* The legitimacy guard: more transitions than this at one simulated instant stop
     the run with CDEVS_ELEGIT. 0 selects the default, 1,000,000. */
  uint64_t max_transitions_per_instant;
} cdevs_sim_opts;

/* Options with every default filled in. */
cdevs_sim_opts cdevs_sim_opts_default(void);

/*
 * Validates and flattens `root` into a simulator and builds every atomic state
 * (init). The root is borrowed and must outlive the simulator; one root may serve
 * several simulators (replications). opts may be NULL. On failure *out is NULL and
 * the reason is in cdevs_model_errmsg(root) when it concerns the model.
 */
cdevs_status cdevs_sim_new(const cdevs_model *root, const cdevs_sim_opts *opts,
                           cdevs_sim **out);
/* Runs every fini and frees the simulator. NULL is accepted. */
void cdevs_sim_free(cdevs_sim *sim);

/* ---- Step API -------------------------------------------------------------------- */

/* Time of the next instant: the earliest internal event or pending input (INFINITY if none). */
double cdevs_sim_next_time(const cdevs_sim *sim);
/* The time of the last executed instant (t0 before the first); after a failure, the
 * time a model's δint had reached by cdevs_ctx_advance when that is later. */
double cdevs_sim_time(const cdevs_sim *sim);
/*
 * Queues an external input at root input port `port` for time t. t must not be
 * earlier than the last instant nor later than the next internal event, and all
 * pending inputs share one time. Message values are retained.
 */
cdevs_status cdevs_sim_inject(cdevs_sim *sim, double t, int port, const cdevs_value *v);
/* Executes the next instant (all its transitions). CDEVS_ESTATE if there is none. */
cdevs_status cdevs_sim_step(cdevs_sim *sim);
/* Executes every instant with time <= t_stop; stops early when all models are passive. */
cdevs_status cdevs_sim_run(cdevs_sim *sim, double t_stop);
/* Asks the running cdevs_sim_run to return after the instant it is in (CDEVS_OK, the
 * time where it stopped: cdevs_sim_time); safe from a signal handler. The request ends
 * with that run. */
void cdevs_sim_request_stop(cdevs_sim *sim);

/* The last run error with its place, or "". */
const char *cdevs_sim_errmsg(const cdevs_sim *sim);

/* ---- Inspection ------------------------------------------------------------------ */

/* The number of atomic model ids: 0..n-1 in depth-first creation order, then those
 * added during the run (cdevs_ctx_add_atomic), removed ones included. */
uint32_t cdevs_sim_atomic_count(const cdevs_sim *sim);
const cdevs_model *cdevs_sim_atomic(const cdevs_sim *sim, uint32_t id);
/* The id of an atomic model of this simulator's root, or UINT32_MAX. */
uint32_t cdevs_sim_atomic_id(const cdevs_sim *sim, const cdevs_model *atomic);
/* The state of an atomic model (read it; change it only between steps). O(n). */
void *cdevs_sim_state(cdevs_sim *sim, const cdevs_model *atomic);
/* The state of atomic id, O(1); NULL for a bad id. */
void *cdevs_sim_state_at(cdevs_sim *sim, uint32_t id);
/* The root the simulator was built from. */
const cdevs_model *cdevs_sim_root(const cdevs_sim *sim);

typedef struct cdevs_stats {
  uint64_t instants;      /* executed instants (steps) */
  uint64_t internals;     /* δint */
  uint64_t externals;     /* δext */
  uint64_t confluents;    /* δconf */
  uint64_t outputs;       /* values emitted by λ */
  uint64_t deliveries;    /* events delivered into bags (one per destination port) */
  uint32_t atomics;
  uint64_t couplings;     /* couplings of the hierarchical model, all levels */
  uint64_t fanout_edges;  /* flattened output→input edges */
} cdevs_stats;

void cdevs_sim_stats(const cdevs_sim *sim, cdevs_stats *st);

/* ---- Observers ------------------------------------------------------------------- */

typedef enum cdevs_transition { CDEVS_INTERNAL = 0, CDEVS_EXTERNAL = 1, CDEVS_CONFLUENT = 2 } cdevs_transition;

/*
 * Hooks called during a run; any may be NULL. `ud` is passed back unchanged.
 *   output       an atomic model emitted v on its output port `port` at t;
 *   transition   an atomic model ran a transition at t (after it ran), with the
 *                size of its bag (0 for δint); tn is its new next-event time;
 *   root_output  a value reached the root's output port `port` (an EOC of the root).
 *   structure    a structure change was applied at the end of the instant at t
 *                (cdevs_ctx_add_atomic and the others): `what` says it, as "add
 *                top.cells.c17 (id 40)", "remove top.cells.c3", "connect top.a.out ->
 *                top.b.in", "disconnect …".
 */
typedef struct cdevs_observer {
  void (*output)(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v);
  void (*transition)(void *ud, double t, uint32_t atomic, cdevs_transition kind,
                     size_t bag, double tn);
  void (*root_output)(void *ud, double t, int port, const cdevs_value *v);
  void (*structure)(void *ud, double t, const char *what);
} cdevs_observer;

#define CDEVS_MAX_OBSERVERS 8

/* Adds an observer (both pointers borrowed); CDEVS_ENOMEM past CDEVS_MAX_OBSERVERS.
   Observers are called in the order they were added. */
cdevs_status cdevs_sim_observe(cdevs_sim *sim, const cdevs_observer *obs, void *ud);
/* Removes the observer added with these same two pointers. */
void cdevs_sim_unobserve(cdevs_sim *sim, const cdevs_observer *obs, void *ud);

#ifdef __cplusplus
}
#endif
#endif
