/* SPDX-License-Identifier: MIT */
/* DEVS graphs (GGADLib): atomic models drawn as phases with lifetimes, internal
 * transitions that emit outputs, and external transitions guarded by their inputs. */
#ifndef CDEVS_GRAPH_H
#define CDEVS_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "alloc.h"
#include "model.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A DEVS graph GGAD = <X, S, Y, δint, δext, λ, ta> with S = phases × variables
 * (Urquia et al., after Wainer 2009):
 *
 *   - the model stays in a phase for its lifetime (an expression of the variables,
 *     evaluated on entering the phase; INFINITY: it waits for input);
 *   - when the lifetime ends, the phase's internal transition (at most one) emits its
 *     outputs p!v, computed from the variables before the transition (λ precedes
 *     δint), then runs its assignments and enters its target phase;
 *   - an input bag is offered to the external transitions of the current phase; the
 *     one whose guard holds runs its assignments and enters its target. If none
 *     holds, the input is ignored: phase, variables and the time left are unchanged.
 *     If two hold, the next phase is undefined: the run stops with an error naming
 *     both (GGADLib logs an error and aborts);
 *   - confluence (the lifetime ends as inputs arrive): GGADLib's rule runs only the
 *     internal transition and drops the inputs (CDEVS_GRAPH_CONF_INTERNAL, the
 *     default); CDEVS_GRAPH_CONF_BOTH runs the internal transition, then offers the
 *     inputs to the new phase with elapsed time 0 (the kernel's default δconf).
 *
 * A guard that reads input ports (CDEVS_GOP_IN, CDEVS_GOP_EVENT) is offered only the
 * bags that hold an event on one of them; a guard that reads none (or no guard) is
 * offered every bag. Assignments run in order, each seeing the ones before.
 *
 * Ports carry numbers: inputs take real, integer and Taylor events (the value at the
 * event) and report any other kind as a run error; outputs send piecewise-constant
 * signals (Taylor values of order 0), which every signal block and the equations read.
 */
typedef struct cdevs_graph cdevs_graph;

/* ---- Expressions ------------------------------------------------------------------
 *
 * Postfix code over doubles (false = 0, true = 1): each instruction pops its operands
 * and pushes its result; a code leaves exactly one value. At most
 * CDEVS_GRAPH_MAX_STACK values are on the stack at once.
 */
#define CDEVS_GRAPH_MAX_STACK 64

typedef enum cdevs_graph_op {
  CDEVS_GOP_CONST = 0, /* push k */
  CDEVS_GOP_VAR,       /* push variable arg */
  CDEVS_GOP_IN,        /* push the value of the last event on input port arg in the bag (NaN: none) */
  CDEVS_GOP_EVENT,     /* pop v; push whether the bag holds an event on input port arg of value v (p?v) */
  CDEVS_GOP_TIME,      /* push the simulated time */
  CDEVS_GOP_ELAPSED,   /* push the time since the current phase was entered */
  CDEVS_GOP_ADD, CDEVS_GOP_SUB, CDEVS_GOP_MUL, CDEVS_GOP_DIV, CDEVS_GOP_POW, /* a op b */
  CDEVS_GOP_NEG,
  CDEVS_GOP_LT, CDEVS_GOP_LE, CDEVS_GOP_GT, CDEVS_GOP_GE, CDEVS_GOP_EQ, CDEVS_GOP_NE,
  CDEVS_GOP_AND, CDEVS_GOP_OR, CDEVS_GOP_NOT,
  CDEVS_GOP_SELECT,    /* pop c, a, b (pushed in that order); push c ? a : b */
  CDEVS_GOP_FN1,       /* pop x; push f(x), f = cdevs_graph_fn1 arg */
  CDEVS_GOP_FN2,       /* pop a, b; push f(a, b), f = cdevs_graph_fn2 arg */
  CDEVS_GOP_COUNT_
} cdevs_graph_op;

/* The functions of CDEVS_GOP_FN1 (one argument) and CDEVS_GOP_FN2 (two). */
typedef enum cdevs_graph_fn1 {
  CDEVS_GFN_SIN = 0, CDEVS_GFN_COS, CDEVS_GFN_TAN, CDEVS_GFN_ASIN, CDEVS_GFN_ACOS, CDEVS_GFN_ATAN,
  CDEVS_GFN_SINH, CDEVS_GFN_COSH, CDEVS_GFN_TANH, CDEVS_GFN_EXP, CDEVS_GFN_LOG, CDEVS_GFN_LOG10,
  CDEVS_GFN_SQRT, CDEVS_GFN_ABS, CDEVS_GFN_SIGN, CDEVS_GFN_FLOOR, CDEVS_GFN_CEIL,
  CDEVS_GFN1_COUNT_
} cdevs_graph_fn1;
typedef enum cdevs_graph_fn2 {
  CDEVS_GFN_MIN = 0, CDEVS_GFN_MAX, CDEVS_GFN_MOD, CDEVS_GFN_REM, CDEVS_GFN_ATAN2, CDEVS_GFN_DIV,
  CDEVS_GFN2_COUNT_
} cdevs_graph_fn2;

typedef struct cdevs_graph_ins {
  uint8_t op;   /* cdevs_graph_op */
  uint32_t arg; /* variable, port or function */
  double k;     /* CDEVS_GOP_CONST */
} cdevs_graph_ins;

/* A code: n instructions (copied when given to the graph). */
typedef struct cdevs_graph_code {
  const cdevs_graph_ins *ins;
  uint32_t n;
} cdevs_graph_code;

/* ---- Building ---------------------------------------------------------------------
 *
 * Building is sticky, as for models: the first error is kept with its message
 * (cdevs_graph_errmsg), later calls do nothing, and cdevs_graph_check reports it.
 * Functions that declare something return its index (>= 0) or a negative status.
 * Names and texts are copied.
 */

/* A new empty graph; a may be NULL (the C library allocator); it is copied. NULL when
 * out of memory. */
cdevs_graph *cdevs_graph_new(const cdevs_alloc *a, const char *name);
/* Frees the graph. Free the simulators and models using it first. NULL is accepted. */
void cdevs_graph_free(cdevs_graph *g);

int cdevs_graph_add_input(cdevs_graph *g, const char *name);
int cdevs_graph_add_output(cdevs_graph *g, const char *name);

typedef enum cdevs_graph_type { CDEVS_GRAPH_REAL = 0, CDEVS_GRAPH_INTEGER, CDEVS_GRAPH_BOOLEAN } cdevs_graph_type;
/* The ports so far, ended by an entry with a NULL name (valid until the next port). */
const cdevs_port_def *cdevs_graph_ports(const cdevs_graph *g, cdevs_dir dir);

/* A state variable and its value when the run starts. */
int cdevs_graph_add_var(cdevs_graph *g, const char *name, cdevs_graph_type type, double initial);

typedef struct cdevs_graph_phase_def {
  const char *name;
  const cdevs_graph_code *lifetime; /* NULL: INFINITY, a passive phase */
  int initial;                      /* the phase the run starts in (exactly one) */
  const char *label;                /* the lifetime as drawn ("2.5", "d"); NULL: its value */
  const char *where;                /* where it is defined ("ctl.mo:4:3"), for messages; may be NULL */
} cdevs_graph_phase_def;
int cdevs_graph_add_phase(cdevs_graph *g, const cdevs_graph_phase_def *def);

typedef struct cdevs_graph_emit {
  int port; /* an output */
  cdevs_graph_code value;
} cdevs_graph_emit;

typedef struct cdevs_graph_assign {
  int var;
  cdevs_graph_code value;
} cdevs_graph_assign;

typedef struct cdevs_graph_transition_def {
  int from, to;                     /* phases */
  const cdevs_graph_code *guard;    /* external only; NULL: every input */
  const cdevs_graph_emit *emits;    /* internal only: the outputs p!v, in order */
  size_t nemits;
  const cdevs_graph_assign *assigns;
  size_t nassigns;
  const char *label;                /* as drawn beside the arc ("pI?1", "pO!2"); may be NULL */
  const char *where;                /* where it is defined, for messages; may be NULL */
} cdevs_graph_transition_def;
int cdevs_graph_add_internal(cdevs_graph *g, const cdevs_graph_transition_def *def);
int cdevs_graph_add_external(cdevs_graph *g, const cdevs_graph_transition_def *def);

typedef enum cdevs_graph_confluence {
  CDEVS_GRAPH_CONF_INTERNAL = 0, /* GGADLib: only δint; the inputs are dropped */
  CDEVS_GRAPH_CONF_BOTH = 1      /* δint, then δext with e = 0 (the kernel's default) */
} cdevs_graph_confluence;
void cdevs_graph_set_confluence(cdevs_graph *g, cdevs_graph_confluence c);

/* What cdevs_graph_check reports, about a phase or a transition (index; -1: the graph
 * as a whole). `other`: a second element the message names (the first of two initial
 * phases, the transition an ambiguous one clashes with), or -1. */
typedef enum cdevs_graph_elem { CDEVS_GRAPH_WHOLE = 0, CDEVS_GRAPH_PHASE, CDEVS_GRAPH_TRANSITION } cdevs_graph_elem;
typedef void (*cdevs_graph_report_fn)(void *ud, int is_error, cdevs_graph_elem what, int index, int other,
                                      const char *msg);

/*
 * Checks the graph and freezes it (nothing can be added after). Errors: a building
 * error; a name declared twice (ports and variables share a name space; phases have
 * their own); no initial phase or two; two internal transitions from one phase; a phase
 * with a finite (or variable) lifetime and no internal transition; a constant negative
 * lifetime; a cycle of internal transitions through phases of constant lifetime 0
 * (illegitimate: time would not advance); two external transitions from one phase
 * that fire on the same inputs whatever the variables (the same guard, or one with no
 * guard); a malformed code (stack, indices). Warnings: a phase no transition reaches
 * from the initial one; a passive phase with no external transition (the graph stops
 * there); an internal transition from a passive phase (it never fires).
 * Each is passed to report (may be NULL). Returns CDEVS_OK, or the building error, or
 * CDEVS_EINVAL when an error was reported (the first is in cdevs_graph_errmsg).
 */
cdevs_status cdevs_graph_check(cdevs_graph *g, cdevs_graph_report_fn report, void *ud);
/* The first error, or "". */
const char *cdevs_graph_errmsg(const cdevs_graph *g);

/* ---- Models ------------------------------------------------------------------------ */

/* The atomic model type of this graph: its ports are the graph's. Its argument is a
 * pointer to the graph (arg_size = sizeof(cdevs_graph *)). Checks the graph first
 * (cdevs_graph_check, without a report): NULL if it fails. */
const cdevs_atomic_ops *cdevs_graph_ops(cdevs_graph *g);
/* An atomic model of the graph inside parent (cdevs_atomic_add). The graph is
 * borrowed: it must outlive every simulator built with it. A graph that fails its
 * check is recorded as a building error of parent's tree. */
cdevs_model *cdevs_graph_atomic_add(cdevs_model *parent, const char *name, cdevs_graph *g);
/* The graph of an atomic model of a graph, else NULL. */
const cdevs_graph *cdevs_graph_of(const cdevs_model *atomic);

/* ---- Inspection -------------------------------------------------------------------- */

const char *cdevs_graph_name(const cdevs_graph *g);
int cdevs_graph_phase_count(const cdevs_graph *g);
const char *cdevs_graph_phase_name(const cdevs_graph *g, int phase); /* NULL for a bad index */
/* The phase's internal transition once the graph is checked, or -1. */
int cdevs_graph_phase_internal(const cdevs_graph *g, int phase);
int cdevs_graph_transition_count(const cdevs_graph *g);
typedef struct cdevs_graph_transition_info {
  int external, from, to;
  const char *label, *where; /* "" when not given */
} cdevs_graph_transition_info;
int cdevs_graph_transition_get(const cdevs_graph *g, int transition, cdevs_graph_transition_info *info);
int cdevs_graph_input_count(const cdevs_graph *g);
const char *cdevs_graph_input_name(const cdevs_graph *g, int port);
int cdevs_graph_var_count(const cdevs_graph *g);
const char *cdevs_graph_var_name(const cdevs_graph *g, int var);
cdevs_graph_confluence cdevs_graph_get_confluence(const cdevs_graph *g);

/* A running graph's state (cdevs_sim_state): its phase; the transition it took last
 * (-1: the last input matched none and was ignored); whether its last confluent
 * transition dropped its inputs (GGADLib's rule); a variable's value; and what its
 * last bag held on an input port: the number of events (0: none) and the last value. */
int cdevs_graph_state_phase(const void *state);
int cdevs_graph_state_fired(const void *state);
int cdevs_graph_state_dropped(const void *state);
double cdevs_graph_state_var(const void *state, int var);
int cdevs_graph_state_input(const void *state, int port, double *value);

/* Evaluates a code with the variables vars (and no inputs, at time t): for tests and
 * tools. NaN for a malformed code. */
double cdevs_graph_eval(const cdevs_graph_code *code, const double *vars, uint32_t nvars, double t);

/* ---- Untimed abstraction ------------------------------------------------------------
 *
 * The graph as a finite automaton over its phases (Vangheluwe's FSA view of a model,
 * "at this level: verification of properties possible"): every transition is taken as
 * possible whatever the variables, inputs and times, except two kinds that can fire in
 * no run: an external transition whose guard is the constant false, and an internal
 * transition from a phase of constant lifetime inf. This over-approximates the runs:
 * a phase the abstraction does not reach from the initial phase is entered in no run,
 * and a phase from which the abstraction has no path to a phase P reaches P in no run;
 * the converse of either does not hold (a guard may never hold, an input never come).
 * The graph must have passed cdevs_graph_check.
 */

/* Whether the abstraction keeps transition t (1), drops it (0), or -1 for a bad index. */
int cdevs_graph_transition_possible(const cdevs_graph *g, int t);

/* Breadth-first search of the abstraction from phase `from` (backward = 0) or towards
 * it (backward = 1). via (cdevs_graph_phase_count entries) receives per phase the one
 * before it on a shortest path from `from` (forward) or the one after it on a shortest
 * path to `from` (backward); `from` itself for `from`; -1 for a phase not connected.
 * Ties go to the transition declared first. Returns how many phases are connected
 * (`from` included), or CDEVS_EINVAL (an unchecked graph, a bad phase) or CDEVS_ENOMEM. */
int cdevs_graph_reachable(const cdevs_graph *g, int from, int backward, int *via);

/* The initial phase of a checked graph, or -1. */
int cdevs_graph_initial(const cdevs_graph *g);

/* Writes the graph in Graphviz DOT, drawn as the seed's figures are: each phase a
 * circle with its name and lifetime, the initial one a double circle; internal
 * transitions dotted, labelled with their outputs; external ones solid, labelled with
 * their guards; assignments after a '/'. 0, or -1 on a write error. */
int cdevs_graph_write_dot(const cdevs_graph *g, FILE *out);
/* The same as a cluster (subgraph "cluster_Name", its node ids "Name.Phase"), to put
 * several graphs in one drawing: write the digraph's opening and closing around them. */
int cdevs_graph_write_dot_cluster(const cdevs_graph *g, FILE *out);

#ifdef __cplusplus
}
#endif
#endif
