/* SPDX-License-Identifier: MIT */
/*
 * A compiled equation system: the derivatives, algebraic variables and zero-crossing
 * functions of a model as expression bytecode over Taylor series, and the one atomic
 * model that integrates them with per-state quantizers. The language layer fills a
 * cdevs__sys_spec; nothing here knows the syntax.
 */
#ifndef CDEVS_QSS_SYSTEM_H
#define CDEVS_QSS_SYSTEM_H

#include <stddef.h>
#include <stdint.h>

#include "cdevs/model.h"
#include "qss_impl.h"

typedef enum bc_op {
  BC_CONST, /* push k */
  BC_STATE, /* push q[arg] around t */
  BC_ALG,   /* push algebraic arg (already evaluated this step) */
  BC_DISC,  /* push discrete arg (constant series) */
  BC_PARAM, /* push parameter arg (constant) */
  BC_TIME,  /* push t + τ */
  BC_ADD, BC_SUB, BC_MUL, BC_DIV, BC_NEG,
  BC_POWK,  /* a^k, constant exponent k */
  BC_POW,   /* a^b */
  BC_FN,    /* unary function arg (cdevs_fn), on the top */
  BC_MIN, BC_MAX, BC_ATAN2, BC_MOD, BC_SIGN, BC_FLOOR, BC_CEIL,
  BC_LT, BC_LE, BC_GT, BC_GE, BC_EQ, BC_NE, /* compare values at τ = 0: 0 or 1 */
  BC_AND, BC_OR, BC_NOT,
  BC_SELECT, /* c, a, b -> c ? a : b (by the value of c) */
  BC_RAND,   /* a -> uniform in [0, a) (event handlers only) */
  /* Made by cdevs__bc_fold from a constant or a state loaded just before the op,
   * which is most of what equations do: one dispatch instead of two. */
  BC_ADDK, BC_SUBK, BC_RSUBK, BC_MULK, BC_DIVK, /* a+k, a−k, k−a, a·k, a/k (k ≠ 0) */
  BC_ADDS, BC_SUBS, BC_MULS,                     /* a+q, a−q, a·q with q = state arg */
  BC_PRE /* push discrete arg as it was before the event (handlers: Modelica's pre()) */
} bc_op;
/* The op reads state arg (a load or a fused op). */
#define BC_READS_STATE(op) ((op) == BC_STATE || ((op) >= BC_ADDS && (op) <= BC_MULS))

/* The random numbers of a model's rand(a): a·r/(2³¹−1) with r from the additive
 * feedback generator r_k = r_{k−31} + r_{k−3} (mod 2³²), output r >> 1, whose 34 seed
 * words come from the Park–Miller generator x ← 16807·x mod (2³¹−1) and whose first 310
 * outputs are dropped. That is the sequence the C library of Debian (glibc) gives for
 * rand() before any srand(), which is what QSS Solver's rand() draws, so a model that
 * draws in the same order gets the same numbers in both simulators. One stream per
 * model, carried from the initial algorithm into the event handlers; no global state. */
typedef struct cdevs__crand {
  uint32_t r[34];
  uint32_t k; /* index of the next word to produce, mod 34 */
} cdevs__crand;
void cdevs__crand_seed(cdevs__crand *g, uint32_t seed);
/* The next value in [0, 2³¹−1]. */
uint32_t cdevs__crand_next(cdevs__crand *g);
/* a · next / (2³¹−1), rounded as QSS Solver's a*rand()/RAND_MAX is. */
double cdevs__crand_scaled(cdevs__crand *g, double a);

typedef struct bc_ins {
  uint8_t op;
  /* Set by cdevs__bc_fold on state reads: BC_KEEP, the state is read again before
   * any other (the evaluator keeps its series); BC_AGAIN, it is that kept series. */
  uint8_t reuse;
  uint32_t arg;
  double k;
} bc_ins;
enum { BC_KEEP = 1, BC_AGAIN = 2 };

typedef struct bc_code {
  bc_ins *ins;
  uint32_t n;
  uint32_t max_stack;
  /* Set by cdevs__bc_fold: cdevs__bc_eval_dual can evaluate it (no algebraic, which
   * would need its own partial, and no op without a partial rule). */
  uint8_t dual_ok;
  /* Set by cdevs__bc_fold: the code loads an algebraic (which must be current first). */
  uint8_t reads_alg;
  /* Set by cdevs__bc_fold: every op has a scalar form, so cdevs__bc_eval at order 0
   * (CVODE's right-hand side, handlers) runs on plain values (bc_value). */
  uint8_t scalar_ok;
} bc_code;

/* One step of a zero-crossing handler, run in order: a discrete assignment, a
 * reinit, or a jump (if/elseif/else statements). */
enum { ACT_ASSIGN = 0, ACT_REINIT = 1, ACT_JUMP_UNLESS = 2, ACT_JUMP = 3, ACT_HANDOVER = 4, ACT_SWITCH = 5 };
/* A switch to another model class (`switch to Free(x = …, y = …)`): ACT_HANDOVER
 * actions, one per value handed over (target: its slot, value: the value), then
 * ACT_SWITCH (target: the switch's number in the model; no value), which ends the
 * handler: the actions after it do not run. */
typedef struct sys_action {
  int reinit;      /* ACT_*: the name is kept from when there were only two kinds */
  uint32_t target; /* state or discrete index; for jumps, the action to go to */
  bc_code value;   /* the value, or the jump condition */
} sys_action;

/* Runs a handler's actions in order: jumps, conditional jumps (taken where the value
 * is 0), reinits and assignments, then makes the discretes assigned the values
 * before the next event (pre). One semantics for every engine; what a value is, and
 * what a reinit and an assignment do, are the engine's (ops). Nonzero when value
 * failed (it has reported why). */
typedef struct sys_actions_ops {
  int (*value)(void *ud, const sys_action *ac, double *v); /* ac->value at this instant */
  void (*reinit)(void *ud, uint32_t state, double v);
  void (*assign)(void *ud, uint32_t disc, double v);
} sys_actions_ops;
/* A model that switches to other model classes (the language's `switch to`): what
 * takes the values handed over (handover(ud, slot, v)) and requests the change of
 * structure (switch_to(cx, state, ud, sw): this system removed, the new class's added;
 * it has the state for its statistics), from cdevs__sys_arg; and, in an engine's
 * state, whether it has switched: then the system is passive (ta = ∞) and emits
 * nothing until its removal at the end of the instant. NULL functions: the model does
 * not switch. */
typedef struct cdevs__sys_switching {
  void (*handover)(void *ud, uint32_t slot, double v);
  int (*switch_to)(cdevs_ctx *cx, const void *state, void *ud, uint32_t sw);
  void *ud;
  int switched;
} cdevs__sys_switching;
/* sw (NULL for the start's handlers, which never switch) runs ACT_HANDOVER and
 * ACT_SWITCH for the engine whose state is `state`: a switch of a system not added as
 * a switching one fails the run. */
int cdevs__sys_run_actions(const sys_action *acts, uint32_t n, const sys_actions_ops *ops, void *ud,
                           const double *disc, double *pre, cdevs__sys_switching *sw, cdevs_ctx *cx,
                           const void *state);

typedef struct sys_crossing {
  bc_code f;             /* the zero-crossing function */
  sys_action *on_rise;   /* handler when f becomes > 0 (when f > 0 / elsewhen …) */
  uint32_t n_rise;
  sys_action *on_fall;   /* handler when f becomes < 0 */
  uint32_t n_fall;
  /* Whether each direction's condition is a strict relation (f > 0, f < 0), false
   * where f is 0: a when whose function starts at exactly 0 and leaves it that way
   * fires then, as Modelica's does (the condition becomes true); `>=`/`<=`, true at
   * 0, fire only on a later crossing. */
  uint8_t rise_strict, fall_strict;
  /* A relation's crossing (an `if` of an equation): 1 + the discrete that holds f's
   * side (+1, -1), which the handlers keep and the system sets from f at the start;
   * 0 for a when clause's. */
  uint32_t side_disc;
  /* sample(start, interval): interval > 0, f = time - next with next the discrete
   * sample_disc, which its first handler step moves on by interval. The system starts
   * next at the first start + k·interval not before the start time, and fires there
   * (at the start time too: sample(0, 1) is true at 0, 1, 2, …). */
  double sample_start, sample_interval;
  uint32_t sample_disc;
  int line, col; /* where the condition is written, for messages */
} sys_crossing;

typedef struct cdevs__sys_spec {
  uint32_t n_states, n_algs, n_discs, n_params, n_cross;
  double *x0;              /* initial states */
  double *disc0;           /* initial discretes */
  double *params;          /* parameter values */
  bc_code *der;            /* per state */
  bc_code *alg;            /* per algebraic, in evaluation order (an algebraic reads only earlier ones) */
  sys_crossing *cross;
  const char **state_names, **alg_names; /* for error messages */
  const char *file;                      /* the model's path, and where each equation is */
  int *der_line, *alg_line;              /* (per state, per algebraic; may be NULL) */
  /* Outputs: ports of the atomic model, each a state (kind 0), an algebraic (1) or a
   * discrete (2). */
  uint32_t n_out;
  uint8_t *out_kind;
  uint32_t *out_index;
  const char **out_names;
  cdevs__crand rng; /* the random stream where the initial algorithm left it */
  /* Inputs: ports of the atomic model (CDEVS_TAYLOR), each read by the codes as one
   * more state past the last (BC_STATE with arg n_states + k): its q is the
   * polynomial of the last event received, and x is q. in0[k]: its value until its
   * first event (the start value). An event moves what reads it as a state's
   * requantization does; a jump past a crossing's level is an event at once. */
  uint32_t n_in;
  const char **in_names;
  const double *in0;
  /* Per input (NULL: none): 1 if it is another system's QSS state, whose q moves on
   * by at most a quantum at an event: a lagging classical system takes it as a
   * segment of a continuous input, not as a jump to restart at. */
  const uint8_t *in_soft;
} cdevs__sys_spec;

/* The algebraics' degrees in τ (at most cap) into deg (zeroed by the caller), states
 * counting as degree qdeg: passes until none changes (degrees only grow, so this ends;
 * in dependency order, the second pass checks). st: cdevs__sys_stack_depth ints. */
void cdevs__sys_alg_degrees(const cdevs__sys_spec *sp, int qdeg, int cap, uint8_t *deg, int *st);

/* zself: per crossing of sp, whether its handlers reinit a state or assign a discrete
 * its function reads, directly or through algebraics (such a crossing's new side is
 * the handler's doing, not a crossing: an ideal diode switching its own current).
 * Scratch from a. 0, or -1 out of memory. */
int cdevs__sys_self_changing(const cdevs__sys_spec *sp, const cdevs_alloc *a, uint8_t *zself);

/* ---- Shared by the QSS system and the classical one (src/ode) ---- */

/* What failed, for messages: a derivative, an algebraic, a crossing function, a state
 * (by index) or a value a handler computed. Its name and place into buf: "der(x)
 * (m.mo:4)", "algebraic variable 'y' (m.mo:5)", "the condition at m.mo:9:10",
 * "state 'x' (m.mo:4)", "a value set in a when clause". */
typedef enum cdevs__sys_what { SYS_DER, SYS_ALG, SYS_CROSS, SYS_STATE, SYS_HANDLER } cdevs__sys_what;
void cdevs__sys_name(const cdevs__sys_spec *sp, cdevs__sys_what kind, uint32_t i, char *buf, size_t n);
/* The deepest evaluation stack any code of sp needs. */
uint32_t cdevs__sys_stack_depth(const cdevs__sys_spec *sp);
/* A sample's first instant not before t (sample(start, interval) fires there). */
double cdevs__sys_first_sample(const sys_crossing *c, double t);
/* An event's value for input k as a series c[0..3] of degree *order: 0, or -1 with
 * the error (no number, or not finite) in msg. */
int cdevs__sys_input(const cdevs__sys_spec *sp, uint32_t k, const cdevs_value *v, double *c, int *order,
                     char *msg, size_t n);

/* The Zeno watch of one crossing: the time of its last handled event, the interval
 * before it, and how many intervals in a row have shrunk by 1% or more (a periodic
 * crossing's differ by round-off). */
typedef struct cdevs__zeno {
  double last, prev;
  uint32_t shrink;
} cdevs__zeno;
void cdevs__zeno_init(cdevs__zeno *w);
/* A handled event at t: 1 when four intervals in a row have shrunk (the last dt and
 * its ratio r to the one before into *dt, *r); the caller then asks zeno_accumulates
 * with the function's slope there. */
int cdevs__zeno_shrinking(cdevs__zeno *w, double t, double *dt, double *r);
/* Whether the events accumulate: the function's excursion between two of them, dt
 * times its slope, within 100 hysteresis bands h (past that the method misses one).
 * The estimated accumulation point into *t_acc, the watch started over, and the
 * message for an error into msg (what: the condition's name). */
int cdevs__zeno_accumulates(cdevs__zeno *w, double t, double dt, double r, double slope, double h,
                            const char *what, double *t_acc, char *msg, size_t n);

/* A system split in two by its states (split.c): q, the QSS part, with the discretes,
 * crossings and handlers; c, the classical part (the states marked classical, and the
 * algebraics their derivatives need). A state one part reads of the other's, and a
 * discrete c reads, is an input of the reader fed by a port of the owner (a link). */
typedef struct cdevs__sys_split_link {
  uint8_t from;   /* 0: q's port feeds c's input; 1: c's feeds q's */
  uint32_t port;  /* the source part's output port */
  uint32_t input; /* the other part's input */
} cdevs__sys_split_link;
typedef struct cdevs__sys_split {
  cdevs__sys_spec q, c;
  cdevs__sys_split_link *links;
  uint32_t n_links;
  /* Per output of the system: the part holding it (0 q, 1 c) and its port there. */
  uint8_t *out_side;
  uint32_t *out_port;
  /* Per input of the system: its input in q and in c (UINT32_MAX: not read there). */
  uint32_t *in_q, *in_c;
} cdevs__sys_split;
/* 0; -1 out of memory; -2 a model the split cannot take (a handler reinits a state
 * of c): the reason in err. */
int cdevs__sys_split_make(const cdevs__sys_spec *sp, const uint8_t *classical, cdevs__sys_split *s, char *err,
                          size_t n);
void cdevs__sys_split_free(cdevs__sys_split *s);

/* The atomic type; its argument is a pointer to a spec that outlives the simulator. */
extern const cdevs_atomic_ops cdevs__system_ops;
typedef struct cdevs__sys_arg {
  const cdevs__sys_spec *spec;
  cdevs_qss_method method;
  double t_end; /* where the run ends (LIQSS2's horizon); INFINITY if open-ended */
  /* LIQSS: a (∂ẋ_j/∂q_j) from the Jacobian at each requantization (0), or from the
   * secant of the last requantization (1), as QSS Solver does; the Jacobian still
   * gives the initial value and the value after a mode change. */
  int secant_a;
  int zeno_continue; /* an accumulation of events is counted, not an error */
  /* The quantum of every state, max(dqrel·|x|, dqmin), this instance's own (two
   * instances of one spec may have different ones). An algebraic output that is a
   * function of time beyond what is sent (to order m - 1, as q) is sent again when
   * the terms left out reach the same quantum of its value. */
  double dqrel, dqmin;
  /* The classical system only: lagging behind its inputs (the classical part of a
   * mixed-mode run, src/ode), with CVODE's steps at most max_step (0: no bound). */
  int lagging;
  double max_step;
  /* A model that switches to other model classes (the language's `switch to`): the
   * initial states instead of the spec's x0 (those handed over, for a class switched
   * to; NULL: x0), and the switch itself (cdevs__sys_switching). */
  const double *x0;
  cdevs__sys_switching sw;
} cdevs__sys_arg;

/* Statistics of a running system (from its state). */
typedef struct cdevs__sys_stats {
  uint64_t steps, crossings, reinits, refreshes; /* refreshes: of derivatives and of algebraic outputs */
  uint64_t paired; /* mLIQSS: requantizations taken together with another state's (in steps too) */
  uint64_t zeno;  /* accumulations run through */
  double zeno_t;  /* the first one's estimated time */
} cdevs__sys_stats;
void cdevs__system_stats(const void *state, cdevs__sys_stats *st);
/* A state's value at t. */
double cdevs__system_x(const void *state, uint32_t i, double t);
/* A discrete's value (for tests). */
double cdevs__system_disc(const void *state, uint32_t i);

/* Evaluates code to a Taylor series of order `order` around t; returns CDEVS_OK or
 * CDEVS_EDOMAIN (with the offending op in *bad). Exposed for tests. */
typedef struct bc_env {
  const cdevs__qvar *states;
  const cdevs__qss_method *m;
  const double (*algs)[4];
  const double *discs, *params;
  double t;
  cdevs__crand *rng; /* for BC_RAND; NULL where random numbers are not allowed */
  /* Forward-mode partial derivative: with seed < UINT32_MAX, an order-1 evaluation
   * takes state `seed` as q + ε and everything else (time included) as constant, so
   * coefficient 1 of the result is ∂f/∂q_seed. */
  uint32_t seed;
  /* cdevs__bc_eval_dual's state: the partial is taken with respect to q_dual. */
  uint32_t dual;
  /* The discretes before the event being handled (BC_PRE); NULL: discs. */
  const double *pre;
} bc_env;
int cdevs__bc_eval(const bc_code *c, const bc_env *env, int order, double *out, double (*stack)[4]);
/* The same at order <= 2, with out[3] = ∂f/∂q_{env->dual} at τ = 0 (forward mode,
 * the value only); for codes with dual_ok, those without an op it cannot carry a
 * partial through. */
int cdevs__bc_eval_dual(const bc_code *c, const bc_env *env, int order, double *out, double (*stack)[4]);
/* op (of arity n <= 3, not a load nor BC_RAND) on the constants x[0..n), by the
 * evaluator itself: one semantics for folding and for a language's constants.
 * CDEVS_OK, or CDEVS_EDOMAIN outside the op's domain. */
int cdevs__bc_eval_op(bc_ins op, const double *x, int n, double *v);
/* Folds what depends only on constants and parameters (fixed once the initial
 * algorithm has run) into constants, in place, then fuses each op with a constant or
 * state operand loaded just before it (BC_ADDK …, BC_ADDS …). */
void cdevs__bc_fold(bc_code *c, const double *params);
/* The degree in τ of what code c computes when each state's q has degree qdeg and
 * algebraic a degree adeg[a], at most cap (which also stands for anything that is not
 * a polynomial); st holds max_stack ints. */
int cdevs__bc_degree(const bc_code *c, int qdeg, int cap, const uint8_t *adeg, int *st);
/* bc_env's seed that evaluates on the states' x instead of q, values only (the
 * system's check of a crossing on x). */
#define SEED_X (UINT32_MAX - 1)

#endif
