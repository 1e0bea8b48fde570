/* SPDX-License-Identifier: MIT */
/* The model compiler's state, shared by its files: compile.c (symbols, constants,
 * the initial algorithm, ordering, the driver), equations.c (bytecode of equations
 * and when clauses) and instance.c (a compiled model's API: outputs, instances). */
#ifndef CDEVS_LANG_COMPILE_IMPL_H
#define CDEVS_LANG_COMPILE_IMPL_H

#include <stdint.h>

#include "blocks_map.h"
#include "cdevs/graph.h"
#include "cdevs/lang.h"
#include "lang_impl.h"
#include "qss/system.h"

enum vclass { V_CONST, V_PARAM, V_STATE, V_ALG, V_DISC, V_UNKNOWN };

typedef struct sym {
  const decl *d;
  int cls;
  int dims[2], ndims; /* sizes; 0 dims: scalar */
  uint32_t size;
  uint32_t first_flat; /* index into the per-scalar classification arrays */
  uint8_t done;        /* declared: its size and value are known (a binding read before is an error) */
} sym;

typedef struct comp {
  const ast_model *m;
  lang_diag *d;
  sym *syms;
  size_t nsyms;
  /* per flat scalar: class and class index (classes are decided per scalar) */
  int *cls;
  uint32_t *cidx;
  uint32_t nflat;
  double *cval; /* values of constants and parameters, initial values of the rest */
  uint32_t counts[V_UNKNOWN];
  /* loop indices in scope */
  const char *iname[32];
  double ival[32];
  int nidx;
  /* An array equation (der(u) = -u) is compiled element by element: while elem > 0,
   * a whole-array reference u reads u[elem] (elem_size: the equation's size). */
  uint32_t elem, elem_size;
  cdevs__crand rng; /* rand() in start values and the initial algorithm */
  /* Parameters drawn from distributions (cdevs_lang_register_random): the run's
   * package seed and replication; per flat scalar, whether its value was drawn or
   * computed from a drawn one (rnd); read_rnd: such a value was read since it was
   * cleared; fixed_what: where the expression being evaluated is, when it must not
   * read one ("an array's size"), else NULL. */
  uint64_t seed, rep;
  uint8_t *rnd;
  int read_rnd;
  const char *fixed_what;
  /* bytecode under construction */
  bc_ins *code;
  uint32_t ncode, capcode;
  int sp, maxsp;
  int oom;
  /* equation bookkeeping */
  bc_code *der;
  int8_t *der_set;
  bc_code *alg;     /* by algebraic index, before sorting */
  int8_t *alg_set;
  int *alg_line, *alg_col;
  int *der_line;
  /* Discretes the compiler adds (relations, sample()) after the declared ones,
   * from index ndisc_decl on, with their first values. */
  uint32_t ndisc_decl;
  double *xdisc0;
  uint32_t capxdisc;
  uint32_t *relh, relcap, nrel; /* relations' crossings by hash (equations.c) */
  sys_crossing *cross;
  uint32_t ncross, capcross;
  int in_initial;
  int in_handler;
  /* Relations in the code being compiled are events (equations and crossing
   * functions, outside noEvent()); in handlers they are plain comparisons. */
  int rel_events;
  uint64_t unrolled; /* loop iterations so far: a bound keeps hostile input finite */
  cdevs_mo *mo;
  lang_arena *a; /* for the expressions the compiler builds (algorithm statements) */
  struct alg_run *alg_run; /* the algorithm section being run symbolically (equations.c) */
  uint64_t *gseen; /* the graph checks' findings reported so far (graph.c), once each */
  uint32_t ngseen, capgseen;
} comp;

/* A library block instance (cdevs.Integrator x(...)) and a connect() between two. */
typedef struct mo_comp {
  const char *name;
  const lang_block *b;
  unsigned char *arg; /* its params struct (b->arg_size bytes, malloc'd: suitably aligned) */
  unsigned set; /* bit i: params[i] was given a value */
  int line, col; /* the declaration */
  cdevs_model *model;
  /* A DEVS graph instance (graph.c): its graph, and b, its ops before and after the
   * graph is built (gops, its ports only, then the graph's own); the class and the
   * flat declaration with its modifiers. All owned but the last two. */
  cdevs_graph *graph;
  lang_block *gblock;
  cdevs_atomic_ops *gops;
  const ast_model *gclass;
  const decl *gdecl;
} mo_comp;

typedef struct mo_conn {
  uint32_t from, to;
  int fport, tport;
  int line, col; /* the connect() */
} mo_conn;

/* The equations read a component's output (der(x) = k.y, or connect(k.y, u)): input
 * k of the equation system, "k.y". */
typedef struct mo_in {
  uint32_t comp;
  int port;
  char *name;
  double start; /* its value until the component's first event */
} mo_in;

/* A component reads a variable of the equations (connect(x, k.u)): flat scalar f
 * drives the component's input port. */
typedef struct mo_link {
  uint32_t f, comp;
  int port;
  int line, col; /* the connect() */
} mo_link;

/* A `switch to Name(x = e, …)` of the model: the class, where it is written, and the
 * values it hands over: each slot's variable in the new class (a flat name, "x" or
 * "v[2]"), and once the classes are compiled, its state there and the mode. */
typedef struct mo_switch {
  char *cls;
  int line, col;
  uint32_t nslots;
  char **slot_name;
  int *slot_line, *slot_col;
  uint32_t *slot_state;
  uint32_t mode; /* among the model's modes: 0 the model's own class, k modes[k - 1] */
} mo_switch;

/* A model that switches: what each of its instances (cdevs_mo_add) runs on
 * (switching.c). */
typedef struct mo_vs mo_vs;

/* The context a library of another layer shares (cdevs_mo_set_context). */
#define MO_MAX_CONTEXTS 4
typedef struct mo_context {
  const char *kind;
  void *ctx;
} mo_context;

struct cdevs_mo {
  char *file; /* the model's path, for the run's messages */
  char **strs; /* the text of CDEVS_LP_NAME and CDEVS_LP_REF parameters */
  uint32_t nstrs;
  mo_context ctx[MO_MAX_CONTEXTS];
  mo_comp *comps;
  uint32_t ncomps;
  mo_conn *conns;
  uint32_t nconns;
  mo_in *ins;
  uint32_t nins;
  double *in0;
  const char **in_names;
  mo_link *links;
  uint32_t nlinks;
  uint32_t *out_port; /* per output: the component port (kind 3) */
  cdevs_model *system;
  uint8_t *sys_out_kind;
  uint32_t *sys_out_index;
  const char **sys_out_names;
  cdevs__sys_spec spec;
  cdevs_mo_experiment exp;
  double t_end; /* cdevs_mo_set_stop's, when t_end_set */
  int t_end_set;
  cdevs_mo_jacobian jacobian; /* cdevs_mo_set_jacobian's */
  cdevs_mo_zeno zeno;         /* cdevs_mo_set_zeno's */
  char **names;   /* per flat scalar: "x[3]" */
  uint32_t nflat;
  int *cls;
  uint32_t *cidx;
  /* outputs */
  uint8_t *out_kind;
  uint32_t *out_index;
  const char **out_names;
  uint32_t n_out;
  cdevs__sys_arg arg;
  const cdevs_mo_ode *ode;    /* cdevs_mo_set_ode's */
  const cdevs_mo_ode *in_use; /* the system's integrator since cdevs_mo_add (NULL: QSS) */
  /* LIQSS_BDF: MMO_BDF_Part's states (per state; NULL: chosen as QSS Solver does,
   * see mixed_part), MMO_BDF_PDepth, MMO_BDF_Max_Step; and since cdevs_mo_add, the
   * split system, its classical part's atomic model and argument. */
  uint8_t *bdf_part;
  int bdf_depth;
  double bdf_max_step;
  cdevs__sys_split split;
  int split_made;
  cdevs_model *bdf;
  cdevs__sys_arg bdf_arg;
  uint32_t bdf_states; /* in the classical part */
  /* The parameters drawn (cdevs_mo_random_*): flat scalars, values, and the laws as
   * written (NULL: computed from drawn values). */
  uint32_t ndrawn;
  uint32_t *drawn;
  double *drawn_val;
  char **drawn_law;
  /* Its switches (`switch to`); and the model's (file's last class's) only: the other
   * classes it switches to, directly or through those (its modes, each compiled
   * whole), and the runs built from it (switching.c; the last one's in vs_last). */
  mo_switch *sw;
  uint32_t nsw;
  char *sw_cls; /* a mode's: its class's name */
  struct cdevs_mo **modes;
  uint32_t nmodes;
  mo_vs *vs_list, *vs_last;
};

/* The model's modes compiled and its switches resolved (compile.c calls it after
 * compiling the model): 0, or -1 after located errors. compile_class compiles one
 * class (flattened) into a new cdevs_mo. */
typedef int lang_compile_class_fn(const ast_model *cls, void *ud, cdevs_mo **out);
int lang_modes_resolve(cdevs_mo *top, const ast_model *file_top, lang_diag *d, lang_compile_class_fn *compile_class,
                       void *ud);
/* The argument of mo's equation system (spec sp) under method at tol, abstol, as
 * cdevs_mo_add gives it (instance.c). */
cdevs__sys_arg lang_sys_arg(const cdevs_mo *mo, const cdevs__sys_spec *sp, cdevs_qss_method method, double tol,
                            double abstol);
/* A variable's name as a port or model name of the kernel ("t.h" -> "t:h") into buf. */
const char *lang_kernel_name(char *buf, size_t n, const char *name);
/* A switching model added to parent (cdevs_mo_add's work for it), and its pieces'
 * release (cdevs_mo_free). */
cdevs_model *lang_switching_add(cdevs_model *parent, const char *name, cdevs_mo *mo, cdevs_qss_method method,
                                double tol, double abstol);
void lang_switching_free(cdevs_mo *mo);
/* The statistics of a switching model's run: the modes removed and the one running. */
void lang_switching_stats(const cdevs_mo *mo, cdevs_sim *sim, cdevs_mo_stats *st);
int lang_switching_output_source(const cdevs_mo *mo, size_t i, const cdevs_model **atomic, int *port);


/* Shared between the compiler's files. */
typedef struct lang_fn_op_def {
  const char *name;
  bc_op op;
  int arity;
} lang_fn_op_def;
/* The built-in functions that are one op of the bytecode (besides the unary cdevs_fn
 * ones), for equations and constants alike; lang_fn_op gives f's index, or -1. */
extern const lang_fn_op_def lang_fn_ops[];
int lang_fn_op(const char *f);
const sym *lang_lookup(const comp *c, const char *name);
/* A for loop's index in scope: its value. */
int lang_index_of(const comp *c, const char *name, double *v);
/* The flat scalar a reference names (its subscripts evaluated); nonzero on error. */
int lang_flat_index(comp *c, const sym *s, const node *ref, uint32_t *out);
/* A constant expression's value (*ok = 0, reported, if it is not one). */
double lang_ceval(comp *c, const node *n, int *ok);
void lang_arity_error(comp *c, const node *n);
/* Runs body once per value of a for loop's range, with the index in scope. */
int lang_exec_for(comp *c, const node *n, int (*body)(comp *, const node *, void *), void *ud);
/* The equation and algorithm sections into the system's codes (equations.c). */
int lang_eq_list(comp *c, const node *list, void *ud);
/* A loop of instantaneous dependencies through blocks and the equations' algebraic
 * variables (v = x + g.y; connect(v, g.u) with g a gain): a located error at the
 * connect() that closes it. 0, or -1 (reported). After the spec is built. */
int lang_check_loops(comp *c, const cdevs__sys_spec *sp);
/* Every output of a component that carries entities (of those it uses) must be
 * connected: 0, or -1 after reporting each that is not. */
int lang_check_entity_outputs(comp *c);
/* Defines algebraic scalar f (declared by d) by rhs, as an equation would. */
int lang_define_by(comp *c, const decl *d, uint32_t f, const node *rhs);
int lang_alg_list(comp *c, const node *list, void *ud);
/* "comp.port" -> component and port index in direction dir; -1 if not such a port. */
int lang_comp_port(const comp *c, const node *r, cdevs_dir dir, int *ci);
/* A malloc'd copy of s (NULL when out of memory). */
char *lang_dup(const char *s);
/* The system input that carries component ci's output port (added at its first use);
 * its index, or -1 (out of memory). */
int lang_input(comp *c, uint32_t ci, int port, const char *name);
int lang_is_integrator(const cdevs_atomic_ops *ops);
/* A component of a DEVS graph class (d->graph): its graph with its ports, at the
 * declaration; then the graph built from the class with the instance's modifiers and
 * checked, once the model's constants are known (graph.c). 0, or -1 (reported). */
int lang_graph_declare(comp *c, mo_comp *k, const decl *d);
int lang_graph_build(comp *c, mo_comp *k);
/* A model output: flat scalar f, or a component's port (compile.c). */
int lang_add_output(cdevs_mo *mo, uint32_t f);
int lang_add_comp_output(cdevs_mo *mo, const char *name, uint32_t ci, int port);

#endif
