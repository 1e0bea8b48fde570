/* SPDX-License-Identifier: MIT */
/* A DEVS graph's tables, its running state, and the expression evaluator they share. */
#ifndef CDEVS_GRAPH_IMPL_H
#define CDEVS_GRAPH_IMPL_H

#include <stdint.h>

#include "cdevs/graph.h"

/* A code inside the graph: instructions [start, start + n) of g->ins. */
typedef struct gcode {
  uint32_t start, n;
} gcode;

typedef struct gphase {
  char *name, *label, *where;
  gcode lifetime;  /* n == 0: INFINITY */
  int initial;
  int32_t internal; /* its internal transition, or -1 */
  uint32_t ext0, next; /* its external transitions: g->ext_of[ext0 .. ext0 + next) (after the check) */
} gphase;

typedef struct gaction {
  uint32_t target; /* an output port (emits) or a variable (assignments) */
  gcode value;
} gaction;

typedef struct gtrans {
  int external;
  int32_t from, to;
  gcode guard;   /* n == 0: every input */
  uint32_t act0, nemits, nassigns; /* g->acts[act0 ..): the emits, then the assignments */
  char *label, *where;
  /* The input ports its guard reads: g->reads[read0 .. read0 + nreads). */
  uint32_t read0, nreads;
} gtrans;

typedef struct gvar {
  char *name;
  cdevs_graph_type type;
  double initial;
} gvar;

struct cdevs_graph {
  /* The atomic model type: first, so that cdevs_graph_of finds the graph from it. */
  cdevs_atomic_ops ops;
  cdevs_alloc alloc;
  char *name;
  cdevs_status status; /* the first building error */
  char errmsg[256];
  int frozen, checked_ok;
  cdevs_graph_confluence conf;
  cdevs_port_def *in_defs, *out_defs; /* NULL-terminated, for ops */
  uint32_t nin, capin, nout, capout;
  gvar *vars;
  uint32_t nvars, capvars;
  gphase *phases;
  uint32_t nphases, capphases;
  gtrans *trans;
  uint32_t ntrans, captrans;
  gaction *acts;
  uint32_t nacts, capacts;
  cdevs_graph_ins *ins;
  uint32_t nins, capins;
  uint32_t *ext_of;  /* per phase, its external transitions in declaration order */
  uint32_t *reads;   /* the ports each guard reads */
  uint32_t nreads;
  int32_t initial;
  size_t state_size;
};

/* What an expression reads besides the variables. in_n == NULL: no inputs (λ, δint,
 * lifetimes): CDEVS_GOP_IN pushes NaN and CDEVS_GOP_EVENT false. */
typedef struct gctx {
  const double *vars;
  const double *in_last; /* per input port: the value of its last event in the bag */
  const uint8_t *in_n;   /* per input port: how many events the bag holds on it */
  const cdevs_bag *bag;   /* (its values all numbers: δext checked them) */
  double t, elapsed;
} gctx;

double cdevs__graph_run(const cdevs_graph_ins *ins, uint32_t n, const gctx *x);
/* An event's number (real, integer, Taylor at the event); NaN for another kind. */
double cdevs__graph_value_num(const cdevs_value *v);
/* The stack depth code needs, or -1 (a message in msg) if it is malformed: it
 * underflows, leaves other than one value, needs more than CDEVS_GRAPH_MAX_STACK, or
 * names a variable, port or function out of range. */
int cdevs__graph_code_check(const cdevs_graph_ins *ins, uint32_t n, uint32_t nvars, uint32_t nin, char *msg,
                            size_t size);
/* Whether a code is one constant (its value in *v). */
int cdevs__graph_code_const(const cdevs_graph *g, gcode c, double *v);

/* The running state (the kernel allocates g->state_size bytes, zeroed). */
typedef struct gstate {
  const cdevs_graph *g;
  int32_t phase;
  int32_t fired;   /* the last transition taken, -1: the last input was ignored */
  int32_t dropped; /* the last confluent transition dropped its inputs */
  double sigma;    /* the time advance from the last transition */
  double t_entry;  /* when the phase was entered */
  double t_next;   /* when its lifetime ends */
  double data[];   /* vars[nvars], in_last[nin], then in_n[nin] bytes */
} gstate;

/* The model ops' callbacks (atomic.c), for the table cdevs_graph_check fills. */
extern const cdevs_atomic_ops cdevs__graph_ops_template;

#endif
