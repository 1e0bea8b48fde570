/* SPDX-License-Identifier: MIT */
/* Building models: atomic models from an operations table, coupled models, couplings. */
#ifndef CDEVS_MODEL_H
#define CDEVS_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "status.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdevs_model cdevs_model;
typedef struct cdevs_ctx cdevs_ctx;

/* One event of an input bag: the receiving input port and the value. */
typedef struct cdevs_event {
  int port;
  const cdevs_value *value;
} cdevs_event;

/*
 * The bag of inputs a model receives at one instant, in a deterministic order
 * (order of emission, then of coupling). The values are borrowed for the call;
 * retain a message to keep it.
 */
typedef struct cdevs_bag {
  const cdevs_event *events;
  size_t n;
} cdevs_bag;

/* How many couplings may drive an input port, checked by cdevs_sim_new over the
 * flattened model (outputs of atomic models and input ports of the root count). */
typedef enum cdevs_drivers {
  CDEVS_DRIVERS_ANY = 0, /* any number: the port takes a bag of events (DEVS) */
  CDEVS_DRIVERS_ONE,     /* exactly one: a single continuous signal, no default */
  CDEVS_DRIVERS_OPTIONAL /* at most one: a single signal, or its default if unconnected */
} cdevs_drivers;

/* A port declaration; port lists end with an entry whose name is NULL. */
typedef struct cdevs_port_def {
  const char *name;
  cdevs_kind kind;
} cdevs_port_def;

/*
 * What an atomic model type is. Define one `static const` table per type.
 * The engine allocates state_size bytes (zeroed) per instance, and keeps arg_size
 * bytes copied from the `arg` given to cdevs_atomic_add until init is called.
 *
 *   init        builds the initial state from arg; may be NULL (state stays zeroed)
 *               and may fail with cdevs_ctx_fail or by returning a negative status.
 *   ta          the time advance: >= 0, INFINITY for passive. Required.
 *   output      λ: emits outputs with cdevs_emit* from a const state. May be NULL.
 *   delta_int   δint. May be NULL (no change of state).
 *   delta_ext   δext, with the elapsed time e since the last transition and the bag.
 *               May be NULL (inputs ignored).
 *   delta_conf  δconf for Parallel DEVS; NULL means δint, then δext with e = 0.
 *   fini        releases what the state owns. May be NULL.
 *   in_drivers  how many drivers each input takes (below). May be NULL.
 *
 * All callbacks receive the engine context for the current time, emission and errors.
 */
typedef struct cdevs_atomic_ops {
  const char *type;
  size_t state_size;
  size_t arg_size;
  const cdevs_port_def *inputs;
  const cdevs_port_def *outputs;
  int (*init)(cdevs_ctx *cx, void *state, const void *arg);
  double (*ta)(const void *state);
  void (*output)(cdevs_ctx *cx, const void *state);
  void (*delta_int)(cdevs_ctx *cx, void *state);
  void (*delta_ext)(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x);
  void (*delta_conf)(cdevs_ctx *cx, void *state, const cdevs_bag *x);
  void (*fini)(void *state);
  /* NULL, or one cdevs_drivers per entry of `inputs` (ports added with cdevs_port_add
     take any number): a single-signal input with two drivers would silently keep the
     last value, one with none would silently read 0; cdevs_sim_new refuses both. */
  const unsigned char *in_drivers;
} cdevs_atomic_ops;

typedef enum cdevs_dir { CDEVS_IN = 0, CDEVS_OUT = 1 } cdevs_dir;

/*
 * Building is "sticky": the first error (duplicate name, unknown port, kind mismatch,
 * out of memory...) is recorded in the root with the place it happened, every later
 * call on that tree does nothing, and cdevs_model_status / cdevs_sim_new report it.
 * So a builder can make all its calls and check once. Functions that return a model
 * return NULL on failure and accept NULL parents (they then do nothing).
 * While a simulator built from a tree lives (cdevs_sim_new .. cdevs_sim_free), the tree
 * is frozen: adding a model, a port or a coupling, or changing a priority, is refused
 * with CDEVS_ESTATE, recorded like any other building error.
 */

/* A new root coupled model. a may be NULL (the C library allocator); it is copied. */
cdevs_model *cdevs_root_new(const cdevs_alloc *a, const char *name);
/* Frees a root and everything in it. NULL is accepted. Free its simulators first:
 * while one lives (or for a model that is not a root) nothing is freed and the tree
 * gets the error CDEVS_ESTATE (CDEVS_EINVAL). */
void cdevs_model_free(cdevs_model *root);

/* A coupled model inside parent. */
cdevs_model *cdevs_coupled_add(cdevs_model *parent, const char *name);
/* An atomic model inside parent; arg (ops->arg_size bytes) is copied. */
cdevs_model *cdevs_atomic_add(cdevs_model *parent, const char *name,
                              const cdevs_atomic_ops *ops, const void *arg);

/* Adds a port; returns its index (>= 0) or a negative status. */
int cdevs_port_add(cdevs_model *m, cdevs_dir dir, const char *name, cdevs_kind kind);
/* The index of a port by name, or CDEVS_ENAME (nothing is recorded). */
int cdevs_port_find(const cdevs_model *m, cdevs_dir dir, const char *name);
int cdevs_port_count(const cdevs_model *m, cdevs_dir dir);
const char *cdevs_port_name(const cdevs_model *m, cdevs_dir dir, int port);
cdevs_kind cdevs_port_kind(const cdevs_model *m, cdevs_dir dir, int port);

/*
 * Couples from.from_port to to.to_port inside `parent`. from and to are children of
 * parent or parent itself: parent→child is an external input coupling (EIC, from an
 * input port of parent), child→child an internal coupling (IC), child→parent an
 * external output coupling (EOC, to an output port of parent). One port may feed many
 * and be fed by many. A child may not feed itself, nor parent feed parent.
 */
cdevs_status cdevs_connect(cdevs_model *parent, cdevs_model *from, const char *from_port,
                           cdevs_model *to, const char *to_port);
cdevs_status cdevs_connect_i(cdevs_model *parent, cdevs_model *from, int from_port,
                             cdevs_model *to, int to_port);

/*
 * The Classic DEVS select order: among simultaneous imminent models the engine picks
 * the one whose path of (priority, creation order) from the root is lexicographically
 * smallest. Lower priority values go first; the default is 0.
 */
void cdevs_model_set_priority(cdevs_model *m, int priority);

/* Records a building error on m's tree (for builders that validate their own
   parameters); the first error wins, as for every other building call. */
void cdevs_model_fail(cdevs_model *m, cdevs_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

cdevs_status cdevs_model_status(const cdevs_model *m);
/* The first building error with its place, or "" if none. */
const char *cdevs_model_errmsg(const cdevs_model *m);

const char *cdevs_model_name(const cdevs_model *m);
cdevs_model *cdevs_model_parent(const cdevs_model *m);
int cdevs_model_is_atomic(const cdevs_model *m);
/* The ops table of an atomic model, NULL for a coupled one. */
const cdevs_atomic_ops *cdevs_model_ops(const cdevs_model *m);
/* The child called name, or NULL. */
cdevs_model *cdevs_model_child(const cdevs_model *m, const char *name);
/* Writes the dotted path from the root ("top.gen"); returns the length it needs. */
size_t cdevs_model_path(const cdevs_model *m, char *buf, size_t size);

/* Sizes of a whole tree (pass the root): models and couplings by kind. */
typedef struct cdevs_model_counts {
  uint64_t atomics, coupled;
  uint64_t eic, ic, eoc; /* external input, internal, external output couplings */
} cdevs_model_counts;
void cdevs_model_counts_get(const cdevs_model *root, cdevs_model_counts *c);

/* ---- Inside callbacks ------------------------------------------------------------ */

/* The current simulated time. */
double cdevs_ctx_time(const cdevs_ctx *cx);
/* In δint: the time before which nothing outside this model can happen: no other
 * model's event, no input, not the end of the current cdevs_sim_run, and nobody
 * watching transitions. A model whose next events until then would emit nothing may
 * take them within this transition (an equation system stepping its quiet states);
 * ta then counts from the current time as always. Equal to the current time where
 * that is not allowed: several models imminent, inputs in the bag, cdevs_sim_step, an
 * observer of transitions. */
double cdevs_ctx_horizon(const cdevs_ctx *cx);
/* A stop was requested (cdevs_sim_request_stop): a model taking its own events up to
 * the horizon stops taking them and returns, its state consistent at its last one. */
int cdevs_ctx_stopping(const cdevs_ctx *cx);
/* In δint, for a model taking its own events before cdevs_ctx_horizon: it has
 * reached t (current time <= t <= horizon). cdevs_ctx_time and the time of an error it
 * reports (cdevs_ctx_fail) are then t, and if the run fails, cdevs_sim_time; its ta
 * still counts from the transition's time. Misuse is an error of the simulation. */
void cdevs_ctx_advance(cdevs_ctx *cx, double t);
/* The model being called. */
const cdevs_model *cdevs_ctx_model(const cdevs_ctx *cx);
/* The allocator of the simulation, for messages a model creates. */
const cdevs_alloc *cdevs_ctx_alloc(const cdevs_ctx *cx);

/* Sends a value through an output port (λ only). A message value is retained. */
void cdevs_emit(cdevs_ctx *cx, int port, const cdevs_value *v);
void cdevs_emit_real(cdevs_ctx *cx, int port, double x);
void cdevs_emit_int(cdevs_ctx *cx, int port, int64_t i);

/* How many input ports (of atomic models, or the root's outputs) output port `port`
 * of the model being called reaches through the couplings; from init on. A block
 * whose outputs carry entities refuses to start with one that reaches none: what it
 * sent there would vanish. 0 also for a port that does not exist. */
uint32_t cdevs_ctx_fanout(const cdevs_ctx *cx, int port);
/* The id of the model being called (0 .. atomics − 1, stable for the simulator's life):
 * what another model needs to reach it with cdevs_send. */
uint32_t cdevs_ctx_self(const cdevs_ctx *cx);
/* Sends a value to input port `port` of the atomic model with id `to` of the same
 * simulator, without a coupling (DEVSLib's "send to any mailbox"; λ only). Like every
 * output of the instant, it is in the receiver's bag before any transition runs. A
 * message value is retained. Observers of outputs (traces) do not see it: it leaves by
 * no output port. */
void cdevs_send(cdevs_ctx *cx, uint32_t to, int port, const cdevs_value *v);

/* ---- Structure changes, from a transition (δint, δext, δconf) ----------------------
 * A model may change the tree it runs in: add atomic models, remove models (with
 * all they hold), add and remove couplings. Each request is checked where it can be
 * at once (a bad one fails the run, as cdevs_ctx_fail does) and queued; the queue is
 * applied after every transition of the instant, sorted by the requesting model's id
 * and then the order of its requests, so the result does not depend on the order the
 * transitions ran in. Then a new atomic model gets the next id (ids are never
 * reused), its init, and its first time advance from the instant; a removed one its
 * fini, its id staying dead (cdevs_sim_atomic gives NULL); and the routes of the
 * outputs follow the couplings. Observers' `structure` hook sees each change applied.
 * A model may replace itself: what it asks for before asking for its own removal
 * stands. A request by a model removed in the same instant otherwise (by another
 * model, or after its own removal), a removal of a model not
 * in the tree, a coupling that exists already or does not exist, ports of different
 * kinds: errors of the run, which stops at the instant with every state kept.
 * The tree must be this simulator's alone (no other one built from it). Models added
 * this way come after the older ones among simultaneous events (larger ids);
 * cdevs_model_set_priority does not apply to them. */
/* A new atomic model `name` in coupled model `parent` (of this simulator's tree, or
 * added in this instant): its handle at once, for couplings in the same instant; arg
 * is copied. NULL after failing the run. */
cdevs_model *cdevs_ctx_add_atomic(cdevs_ctx *cx, cdevs_model *parent, const char *name, const cdevs_atomic_ops *ops,
                                  const void *arg);
/* Removes m (an atomic or coupled model, not the root) and everything in it, with
 * every coupling that touches it. */
void cdevs_ctx_remove(cdevs_ctx *cx, cdevs_model *m);
/* Adds or removes the coupling from.from_port -> to.to_port of coupled model parent
 * (as cdevs_connect: parent's own ports for the external couplings). */
void cdevs_ctx_connect(cdevs_ctx *cx, cdevs_model *parent, cdevs_model *from, const char *from_port, cdevs_model *to,
                       const char *to_port);
void cdevs_ctx_disconnect(cdevs_ctx *cx, cdevs_model *parent, cdevs_model *from, const char *from_port,
                          cdevs_model *to, const char *to_port);

/* Stops the run after this call with CDEVS_EMODEL and a message naming the model. */
void cdevs_ctx_fail(cdevs_ctx *cx, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
