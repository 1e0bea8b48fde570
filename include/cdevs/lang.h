/* SPDX-License-Identifier: MIT */
/* The model language: a Modelica-flavoured superset of QSS Solver's μ-Modelica. */
#ifndef CDEVS_LANG_H
#define CDEVS_LANG_H

#include <stdint.h>
#include <stdio.h>

#include "graph.h"
#include "model.h"
#include "sim.h"
#include "qss.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Parses and checks a model file. Diagnostics go to diag (NULL: none) as
 * "file:line:col: error: message", the source line and a caret; several errors are
 * reported when the parser can recover. Returns the number of errors (0: the model
 * is well formed), or -1 when the file cannot be read (also reported).
 */
int cdevs_lang_check_file(const char *path, FILE *diag);
/* The same for text in memory; name is used in the diagnostics. */
int cdevs_lang_check_text(const char *name, const char *text, size_t len, FILE *diag);

/* ---- Equation models ------------------------------------------------------------- */

/* A model file compiled into an equation system, ready to be added to a simulation. */
typedef struct cdevs_mo cdevs_mo;

/*
 * Loads, checks and compiles a model file (states, algebraic variables, when clauses,
 * the initial algorithm, the experiment annotation). Diagnostics as for
 * cdevs_lang_check_file. Returns the number of errors (*out set only when 0), or -1
 * when the file cannot be read.
 */
int cdevs_mo_load(const char *path, FILE *diag, cdevs_mo **out);
/* The same for text in memory; name is used in the diagnostics. */
int cdevs_mo_load_text(const char *name, const char *text, size_t len, FILE *diag, cdevs_mo **out);
void cdevs_mo_free(cdevs_mo *mo);

/* The experiment annotation, with defaults for what it leaves out (0 to 1, QSS3,
 * Tolerance 1e-3, AbsTolerance 1e-6). */
typedef struct cdevs_mo_experiment {
  double start, stop, tol, abstol;
  cdevs_qss_method method;
} cdevs_mo_experiment;
void cdevs_mo_experiment_get(const cdevs_mo *mo, cdevs_mo_experiment *e);

/* The variables written as results: MMO_Output's, or every state (at most 64) when the
 * model names none. cdevs_mo_select_outputs replaces them by a comma-separated list of
 * names such as "x[1],y,v[2]"; it returns 0, or -1 with a message on diag. */
size_t cdevs_mo_output_count(const cdevs_mo *mo);
const char *cdevs_mo_output_name(const cdevs_mo *mo, size_t i);
int cdevs_mo_select_outputs(cdevs_mo *mo, const char *list, FILE *diag);
size_t cdevs_mo_state_count(const cdevs_mo *mo);

/* The time the run will end at, when it is not the experiment's StopTime (INFINITY
 * for an open-ended run). LIQSS2 takes the rest of the run as the longest horizon of
 * its implicit step, as QSS Solver does. Call before cdevs_mo_add. */
void cdevs_mo_set_stop(cdevs_mo *mo, double stop);

/* How LIQSS takes a = ∂ẋ_j/∂x_j, the diagonal of the Jacobian its implicit step
 * needs: CDEVS_JAC_EXACT (the default) by automatic differentiation, with each
 * evaluation of the derivative; CDEVS_JAC_SECANT from how the derivative moved at the
 * last requantization, as QSS Solver does (exact initially and after a mode change).
 * They trade differently: on QSS Solver's advection the secant takes 17% more steps
 * and puts the front slightly nearer a tight reference; on its inverter chain the
 * exact a takes twice the steps and is 170 times nearer one. Call before
 * cdevs_mo_add; no effect on QSS. */
typedef enum cdevs_mo_jacobian { CDEVS_JAC_EXACT = 0, CDEVS_JAC_SECANT = 1 } cdevs_mo_jacobian;
void cdevs_mo_set_jacobian(cdevs_mo *mo, cdevs_mo_jacobian j);
/* What a run does when a crossing's events accumulate (Zeno behaviour: ever shorter
 * intervals, until they are too short to resolve at the model's tolerance, as a ball
 * bouncing with restitution < 1): stop with an error naming the condition and the
 * estimated accumulation time (the default), or count it (cdevs_mo_stats) and go on,
 * accepting what the method does past it. Applies to later cdevs_mo_add calls. */
typedef enum cdevs_mo_zeno { CDEVS_ZENO_STOP = 0, CDEVS_ZENO_CONTINUE = 1 } cdevs_mo_zeno;
void cdevs_mo_set_zeno(cdevs_mo *mo, cdevs_mo_zeno z);

/* A classical (time-stepping) integrator for a model's equations, for the methods
 * that are not QSS (CDEVS_CVODE_BDF, CDEVS_CVODE_AM): the atomic model that takes
 * the equation system's place, and its counters. libcdevs_ode provides one
 * (cdevs/ode.h: cdevs_ode_cvode); libcdevs itself does not link a solver. */
typedef struct cdevs_mo_stats cdevs_mo_stats;
typedef struct cdevs_mo_ode {
  const cdevs_atomic_ops *ops; /* its argument is the model's equation system (internal) */
  void (*stats)(const void *state, cdevs_mo_stats *st);
} cdevs_mo_ode;
/* The integrator the model's classical methods use (NULL: none; cdevs_mo_add then
 * refuses them with a message). Call before cdevs_mo_add. */
void cdevs_mo_set_ode(cdevs_mo *mo, const cdevs_mo_ode *ode);
/* A model's method by name: a QSS method, or CVODE_BDF / CVODE_AM. 0, or -1. */
int cdevs_mo_method_parse(const char *name, cdevs_qss_method *m);

/*
 * Adds the model to parent, integrated by method with ΔQrel = tol and ΔQmin = abstol
 * (a classical method: relative and absolute tolerances, cdevs_mo_set_ode):
 * one atomic model named name for a pure equation model, or a coupled model holding
 * the components (library blocks, named as in the file), their connections and an
 * atomic "equations" when there are equations too. The equation system's output
 * ports are its variables among the outputs; each emits a Taylor value when the
 * variable changes (cdevs_mo_output_source says where each output is). mo must
 * outlive every simulator built from it.
 */
cdevs_model *cdevs_mo_add(cdevs_model *parent, const char *name, cdevs_mo *mo,
                          cdevs_qss_method method, double tol, double abstol);

/* Where output i comes from once the model is added: an atomic model and its output
 * port (the equation system's, or a component's). 0, or -1. */
int cdevs_mo_output_source(const cdevs_mo *mo, size_t i, const cdevs_model **atomic, int *port);

/* The library blocks a model file can instantiate, one line each: name, input and
 * output ports, parameters (the modifiers a declaration takes). */
void cdevs_mo_list_blocks(FILE *out);

/* Counters of a running model, from its state (cdevs_sim_state); under a classical
 * method, steps are the solver's steps. */
struct cdevs_mo_stats {
  uint64_t steps;     /* requantizations */
  uint64_t crossings; /* zero crossings handled */
  uint64_t reinits;
  uint64_t refreshes; /* derivatives re-evaluated, and algebraic outputs sent again, because
                         their extrapolation ran out */
  uint64_t zeno;      /* accumulations of events found and run through (CDEVS_ZENO_CONTINUE) */
  double zeno_t;      /* where the first was estimated to accumulate */
  uint64_t paired;    /* mLIQSS: requantizations taken with another state's (counted in steps) */
  uint64_t syncs;     /* LIQSS_BDF: synchronizations of the classical part */
  uint64_t bdf_steps; /* LIQSS_BDF: CVODE's steps in the classical part (counted in steps too) */
  uint64_t bdf_states; /* LIQSS_BDF: the states in the classical part */
  uint64_t switches;  /* changes of class (switch to) */
};
void cdevs_mo_stats_get(const void *state, cdevs_mo_stats *st);
/* The same summed over the whole model in sim (the equation system and the
 * integrators of its block diagram). */
void cdevs_mo_stats_sim(const cdevs_mo *mo, cdevs_sim *sim, cdevs_mo_stats *st);


/* ---- DEVS graphs --------------------------------------------------------------------
 *
 * `graph Name … end Name;` defines a DEVS graph class (cdevs/graph.h; the syntax is in
 * README.md, "DEVS graphs"); `Name g(p = 2);` instantiates it as a component. The
 * model's graph instances: how many, and each one's graph (owned by mo) and name. */
size_t cdevs_mo_graph_count(const cdevs_mo *mo);
const cdevs_graph *cdevs_mo_graph(const cdevs_mo *mo, size_t i, const char **name);

/* ---- Blocks of other layers -------------------------------------------------------- */

/*
 * The layers below the language (process blocks, real-time ports) add their blocks to
 * what a model file may instantiate as `cdevs.Name x(param = value, ...)`: a library of
 * block descriptions, registered once before models are loaded. A block's parameters
 * are fields of its params struct, named, with a kind:
 */
typedef enum cdevs_lang_kind {
  CDEVS_LP_REAL = 1, /* double: a constant expression */
  CDEVS_LP_INT,      /* int: a constant integer expression */
  CDEVS_LP_METHOD,   /* cdevs_qss_method: QSS1 .. LIQSS3 */
  CDEVS_LP_FN,       /* cdevs_fn: sin, cos, ... */
  CDEVS_LP_REALS,    /* double[8]: {v1, ...} */
  CDEVS_LP_NAME,     /* const char *: "text" or a bare name (kept by the model) */
  CDEVS_LP_REF,      /* const char *: the name of another component, of block type `ref` */
  CDEVS_LP_TERM      /* anything: the value as written, turned into the field by `convert` */
} cdevs_lang_kind;

/* A modifier's value as written, for CDEVS_LP_TERM: names of the model's parameters
 * and constants and constant expressions are already numbers. The names in it are
 * kept by the model: a converter may store them. */
typedef enum cdevs_term_kind {
  CDEVS_TERM_NUM = 1, /* num */
  CDEVS_TERM_NAME,    /* name: a bare name that is no constant */
  CDEVS_TERM_STRING,  /* name: "text" */
  CDEVS_TERM_CALL,    /* name(kid[0], ...) */
  CDEVS_TERM_ARRAY,   /* {kid[0], ...} */
  CDEVS_TERM_REL      /* name op num: a relation of a bare name and a constant */
} cdevs_term_kind;
typedef struct cdevs_lang_term {
  int kind;         /* cdevs_term_kind */
  const char *name;
  double num;
  const char *op;   /* CDEVS_TERM_REL: "<", "<=", ">", ">=", "==", "<>" */
  int n;            /* CDEVS_TERM_CALL, CDEVS_TERM_ARRAY */
  const struct cdevs_lang_term *kid;
} cdevs_lang_term;

typedef struct cdevs_lang_param {
  const char *name;
  size_t offset; /* of the field in the block's params struct */
  int kind;      /* cdevs_lang_kind */
  /* CDEVS_LP_REF: the block type the named component must be ("Resource"). */
  const char *ref;
  /* CDEVS_LP_TERM: 0, or -1 with what is wrong in msg (reported at the value). */
  int (*convert)(const cdevs_lang_term *t, void *field, char *msg, size_t size);
  const char *help; /* for cdevs list-blocks */
} cdevs_lang_param;

typedef struct cdevs_lang_block {
  const char *name;
  /* The atomic model of each instance; NULL for a data module (a resource: something
   * the blocks share, declared in the context, no model). */
  const cdevs_atomic_ops *ops;
  size_t arg_size;                 /* of its params struct */
  const cdevs_lang_param *params;  /* ends with a NULL name */
  /* It computes its outputs from its inputs at once (a loop through it and the
   * equations has no delay in it). */
  int through;
  /* How many of its first output ports the instance uses (NULL: all); each of those
   * that carries entities (CDEVS_MSG) must be connected. */
  int (*used_outputs)(const void *arg);
  /* The parameters before the modifiers (NULL: all zero). */
  void (*defaults)(void *arg);
  /* The parameters together, once they are set: 0, or -1 with a message (reported at
   * the declaration). NULL: nothing to check. */
  int (*check)(void *arg, char *msg, size_t size);
  /* The context the library's blocks share (cdevs_mo_set_context) is stored in each
   * instance's params at this offset, when the library has a context. */
  size_t context_offset;
  /* Declares the instance in the context, before any model is added (name: the
   * component's name); it may note what it declared in arg, for the instance's model
   * (a data module with ops: a resource's capacity schedule). 0, or -1 with a message. */
  int (*declare)(void *context, const char *name, void *arg, char *msg, size_t size);
  const char *help;
} cdevs_lang_block;

typedef struct cdevs_lang_library {
  const char *context; /* the kind of context its blocks share ("proc"), or NULL */
  const cdevs_lang_block *blocks;
  size_t nblocks;
} cdevs_lang_library;

/* Adds a library's blocks to what model files may instantiate (the same library twice
 * is added once). Call before loading models; not thread-safe. 0, or -1 (a block name
 * already taken, too many libraries). */
int cdevs_lang_register(const cdevs_lang_library *lib);
/* Whether the model instantiates blocks of a library whose context kind is `context`. */
int cdevs_mo_uses(const cdevs_mo *mo, const char *context);
/* The context those blocks share in the next cdevs_mo_add (for "proc", a cdevs_proc):
 * data modules are declared in it there. cdevs_mo_add fails without one. */
void cdevs_mo_set_context(cdevs_mo *mo, const char *context, void *ctx);

/* ---- Parameters drawn from distributions ------------------------------------------
 *
 * `parameter Real k = Uniform(1, 2);` gives k a value drawn anew for each run: a
 * parameter whose binding (or an element of an array literal binding) is a call of a
 * distribution that a lower layer offers (cdevs_lang_register_random: the process
 * layer's cdevs_proc_random, with its variates and MRG32k3a streams). The value is
 * drawn when the model is compiled, for a package seed and a replication
 * (cdevs_mo_load_text_rep); the loaders without them draw replication 0 of seed 0.
 * A value computed from a drawn one is drawn too; neither may be used where the
 * value must stay the same from one replication to the next (an array's size, a
 * subscript, a loop's range, a constant, an experiment annotation): a located error.
 * A distribution anywhere else (an equation, a start value) is a located error too.
 */
typedef struct cdevs_lang_random {
  /* Whether name(...) is a distribution ("Uniform", "UNIF"). */
  int (*is_dist)(const char *name);
  /* The value of the scalar parameter `param` (its hierarchical name: "k", "t1.k[2]")
   * drawn from t (a CDEVS_TERM_CALL as written, its arguments evaluated) for the
   * package seed `seed` on replication `replication`: 0 and *v, or -1 with what is
   * wrong with the distribution in msg (reported at it). */
  int (*draw)(const cdevs_lang_term *t, const char *param, uint64_t seed, uint64_t replication, double *v,
              char *msg, size_t size);
} cdevs_lang_random;

/* The distributions parameters may be drawn from (borrowed; one at a time: a later
 * call replaces it, NULL removes it). Call before loading models; not thread-safe. */
void cdevs_lang_register_random(const cdevs_lang_random *r);

/* cdevs_mo_load_text with the parameters that have a distribution drawn for package
 * seed `seed` and replication `replication` (0-based). */
int cdevs_mo_load_text_rep(const char *name, const char *text, size_t len, FILE *diag, uint64_t seed,
                           uint64_t replication, cdevs_mo **out);
/* The scalar parameters the model drew, in declaration order: the name ("k[2]"), the
 * value drawn, and the distribution as written with its arguments evaluated
 * ("Uniform(1, 2)"; for a parameter computed from drawn ones, "(from drawn values)"). */
size_t cdevs_mo_random_count(const cdevs_mo *mo);
const char *cdevs_mo_random_name(const cdevs_mo *mo, size_t i);
double cdevs_mo_random_value(const cdevs_mo *mo, size_t i);
const char *cdevs_mo_random_law(const cdevs_mo *mo, size_t i);

#ifdef __cplusplus
}
#endif
#endif
