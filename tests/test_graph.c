/* SPDX-License-Identifier: MIT */
/* DEVS graphs (GGADLib): the expression evaluator, lifetimes, guards, confluence under
 * both rules, simultaneous inputs, the run-time ambiguity error, the checks, graphs
 * coupled to equations, and hostile graph sections. Every expected number is worked
 * out by hand from the graph semantics in cdevs/graph.h. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/cdevs.h"
#include "check.h"
#include "test_util.h"

#define CODE(a) ((cdevs_graph_code){(a), (uint32_t)COUNT(a)})
#define K(x) {CDEVS_GOP_CONST, 0, (x)}
#define OP(o) {CDEVS_GOP_##o, 0, 0}
#define FN1(f) {CDEVS_GOP_FN1, CDEVS_GFN_##f, 0}
#define FN2(f) {CDEVS_GOP_FN2, CDEVS_GFN_##f, 0}

/* ---- Running graphs ------------------------------------------------------------------ */

/* The outputs of one graph instance (by name) during a run. */
typedef struct rec {
  const char *graph; /* the instance's name in the model */
  const cdevs_graph *g;
  int n;
  double t[256], v[256];
  int port[256];
} rec;

static void rec_output(void *ud, double t, uint32_t a, int port, const cdevs_value *v) {
  rec *r = ud;
  (void)a;
  if (r->n < 256) r->t[r->n] = t, r->v[r->n] = v->u.real, r->port[r->n] = port, r->n++;
}

/* Output observer filtering on the graph r->g (the atomic's graph). */
typedef struct watch {
  rec *r;
  cdevs_sim *sim;
} watch;

static void watch_output(void *ud, double t, uint32_t a, int port, const cdevs_value *v) {
  watch *w = ud;
  if (cdevs_graph_of(cdevs_sim_atomic(w->sim, a)) == w->r->g) rec_output(w->r, t, a, port, v);
}

/* Compiles text into a model; the diagnostics into diag (size bytes). The error count. */
static int load(const char *text, char *diag, size_t size, cdevs_mo **mo) {
  FILE *f = tmpfile();
  if (!f) return -2;
  cdevs_mo *m = NULL;
  int n = cdevs_mo_load_text("g.mo", text, strlen(text), f, &m);
  rewind(f);
  size_t got = fread(diag, 1, size - 1, f);
  diag[got] = 0;
  fclose(f);
  if (mo) *mo = m;
  else cdevs_mo_free(m);
  return n;
}

/* Runs model text to `stop`, recording the outputs of graph instance r->graph; the
 * run's status, its message in err. */
static cdevs_status run_text(const char *text, double stop, rec *r, char *err, size_t errsize) {
  char diag[4096];
  cdevs_mo *mo = NULL;
  err[0] = 0;
  if (load(text, diag, sizeof diag, &mo)) {
    snprintf(err, errsize, "%s", diag);
    fprintf(stderr, "%s", diag);
    check_failed++;
    return CDEVS_EINVAL;
  }
  r->g = NULL;
  for (size_t i = 0; i < cdevs_mo_graph_count(mo); i++) {
    const char *nm;
    const cdevs_graph *g = cdevs_mo_graph(mo, i, &nm);
    if (!strcmp(nm, r->graph)) r->g = g;
  }
  CHECK(r->g != NULL);
  cdevs_model *root = cdevs_root_new(NULL, "t");
  cdevs_mo_add(root, "m", mo, CDEVS_QSS3, 1e-6, 1e-9);
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, NULL, &sim);
  if (st == CDEVS_OK) {
    watch w = {r, sim};
    static const cdevs_observer obs = {watch_output, NULL, NULL, NULL};
    cdevs_sim_observe(sim, &obs, &w);
    st = cdevs_sim_run(sim, stop);
    snprintf(err, errsize, "%s", cdevs_sim_errmsg(sim));
    cdevs_sim_free(sim);
  } else {
    snprintf(err, errsize, "%s", cdevs_model_errmsg(root));
  }
  cdevs_model_free(root);
  cdevs_mo_free(mo);
  return st;
}

/* ---- The evaluator ----------------------------------------------------------------------- */

static double eval(const cdevs_graph_ins *ins, uint32_t n) {
  cdevs_graph_code c = {ins, n};
  return cdevs_graph_eval(&c, NULL, 0, 0.0);
}
#define EVAL(a) eval((a), (uint32_t)COUNT(a))

static void test_eval(void) {
  static const cdevs_graph_ins sum[] = {K(2), K(3), OP(ADD), K(4), OP(MUL)}; /* (2+3)*4 */
  CHECK_NEAR(EVAL(sum), 20, 0);
  static const cdevs_graph_ins div[] = {K(7), K(2), OP(DIV)};
  CHECK_NEAR(EVAL(div), 3.5, 0);
  static const cdevs_graph_ins pw[] = {K(2), K(10), OP(POW), OP(NEG)};
  CHECK_NEAR(EVAL(pw), -1024, 0);
  static const cdevs_graph_ins rel[] = {K(1), K(2), OP(LT), K(2), K(1), OP(LE), OP(NOT), OP(AND)}; /* 1<2 and not 2<=1 */
  CHECK_NEAR(EVAL(rel), 1, 0);
  static const cdevs_graph_ins eqs[] = {K(1), K(1), OP(NE), K(3), K(3), OP(EQ), OP(OR)};
  CHECK_NEAR(EVAL(eqs), 1, 0);
  static const cdevs_graph_ins gt[] = {K(1), K(1), OP(GT), K(0), K(1), OP(GE), OP(OR)};
  CHECK_NEAR(EVAL(gt), 0, 0);
  static const cdevs_graph_ins sel1[] = {K(1), K(5), K(6), OP(SELECT)}, sel0[] = {K(0), K(5), K(6), OP(SELECT)};
  CHECK_NEAR(EVAL(sel1), 5, 0);
  CHECK_NEAR(EVAL(sel0), 6, 0);
  /* Modelica's integer division family on -7 and 3: mod 2, rem -1, div -2. */
  static const cdevs_graph_ins m1[] = {K(-7), K(3), FN2(MOD)}, m2[] = {K(-7), K(3), FN2(REM)}, m3[] = {K(-7), K(3), FN2(DIV)};
  CHECK_NEAR(EVAL(m1), 2, 0);
  CHECK_NEAR(EVAL(m2), -1, 0);
  CHECK_NEAR(EVAL(m3), -2, 0);
  static const cdevs_graph_ins mn[] = {K(4), K(-1), FN2(MIN), K(4), K(-1), FN2(MAX), OP(SUB)}; /* -1 - 4 */
  CHECK_NEAR(EVAL(mn), -5, 0);
  static const cdevs_graph_ins at[] = {K(1), K(1), FN2(ATAN2)};
  CHECK_NEAR(EVAL(at), atan(1.0), 1e-15);
  static const cdevs_graph_ins f1[] = {K(16), FN1(SQRT), K(-1.5), FN1(FLOOR), OP(ADD), K(-1.5), FN1(CEIL), OP(SUB)};
  CHECK_NEAR(EVAL(f1), 4 - 2 + 1, 0);
  static const cdevs_graph_ins f2[] = {K(-3), FN1(SIGN), K(-2), FN1(ABS), OP(MUL), K(0), FN1(COS), OP(ADD)}; /* -1*2 + 1 */
  CHECK_NEAR(EVAL(f2), -1, 0);
  /* Variables and the time. */
  static const cdevs_graph_ins vt[] = {{CDEVS_GOP_VAR, 1, 0}, {CDEVS_GOP_TIME, 0, 0}, OP(MUL)};
  double vars[2] = {10, 3};
  cdevs_graph_code c = CODE(vt);
  CHECK_NEAR(cdevs_graph_eval(&c, vars, 2, 2.5), 7.5, 0);
  /* Malformed code is NaN, never a crash: underflow, two values left, a variable out
   * of range, an unknown operation, a function out of range, too deep a stack. */
  static const cdevs_graph_ins under[] = {K(1), OP(ADD)}, two[] = {K(1), K(2)}, badop[] = {{200, 0, 0}};
  static const cdevs_graph_ins badfn[] = {K(1), {CDEVS_GOP_FN1, 99, 0}};
  CHECK(isnan(EVAL(under)));
  CHECK(isnan(EVAL(two)));
  CHECK(isnan(EVAL(badop)));
  CHECK(isnan(EVAL(badfn)));
  CHECK(isnan(cdevs_graph_eval(&c, vars, 1, 0.0)));
  cdevs_graph_ins deep[2 * CDEVS_GRAPH_MAX_STACK + 1];
  for (int i = 0; i <= CDEVS_GRAPH_MAX_STACK; i++) deep[i] = (cdevs_graph_ins)K(1);
  for (int i = 0; i < CDEVS_GRAPH_MAX_STACK; i++) deep[CDEVS_GRAPH_MAX_STACK + 1 + i] = (cdevs_graph_ins)OP(ADD);
  CHECK(isnan(eval(deep, COUNT(deep))));
  CHECK_NEAR(eval(deep + 1, COUNT(deep) - 2), CDEVS_GRAPH_MAX_STACK, 0); /* 64 values, 63 additions */
  CHECK(isnan(cdevs_graph_eval(NULL, NULL, 0, 0)));
}

/* The language's expressions in a graph: precedence, if, the integer functions, and
 * the parameters folded in. */
static void test_expressions(void) {
  rec r = {.graph = "e"};
  char err[4096];
  const char *m =
      "model M\n"
      "  graph E\n"
      "    output y;\n"
      "    parameter Integer k = 3;\n"
      "    Integer n = 5;\n"
      "    initial phase A(lifetime = 1);\n"
      "    phase B(lifetime = inf);\n"
      "    internal A -> B output y!(if n > 2 then mod(n, k) + 2^2 else -1), y!-n*2+k, y!div(-7, 2) + rem(-7, 2);\n"
      "  end E;\n"
      "  E e(k = 4);\n"
      "end M;\n";
  CHECK_EQ_INT(run_text(m, 2, &r, err, sizeof err), CDEVS_OK);
  CHECK_EQ_INT(r.n, 3);
  CHECK_NEAR(r.t[0], 1, 0);
  CHECK_NEAR(r.v[0], 5 % 4 + 4, 0); /* k = 4 from the modifier */
  CHECK_NEAR(r.v[1], -5 * 2 + 4, 0);
  CHECK_NEAR(r.v[2], -3 + -1, 0);
}

/* ---- Lifetimes --------------------------------------------------------------------------- */

static void test_lifetimes(void) {
  char err[4096];
  /* A: 2d, B: d + elapsed (0 on entering); d grows by 1 at each A -> B. Outputs at
   * t = 2 (d = 1), 2 + 2 = 4 (d = 2 in B), 4 + 4 = 8, 8 + 3 = 11, 11 + 6 = 17. */
  rec r = {.graph = "l"};
  const char *m =
      "model M\n"
      "  graph L\n"
      "    output y;\n"
      "    Real d = 1;\n"
      "    initial phase A(lifetime = 2 * d);\n"
      "    phase B(lifetime = d + elapsed);\n"
      "    internal A -> B output y!time then d := d + 1;\n"
      "    internal B -> A output y!elapsed;\n"
      "  end L;\n"
      "  L l;\n"
      "end M;\n";
  CHECK_EQ_INT(run_text(m, 20, &r, err, sizeof err), CDEVS_OK);
  static const double t[] = {2, 4, 8, 11, 17}, v[] = {2, 2, 8, 3, 17}; /* y!elapsed in B: its lifetime */
  CHECK_EQ_INT(r.n, 5);
  for (int i = 0; i < 5 && i < r.n; i++) {
    CHECK_NEAR(r.t[i], t[i], 1e-12);
    CHECK_NEAR(r.v[i], v[i], 1e-12);
  }
  /* An input no transition takes leaves the phase and its time alone: A's lifetime of 3
   * ends at t = 3 although u = 7 came at t = 1. Then u = 5 at t = 4 re-enters A (its
   * lifetime restarts): the next output at t = 7. */
  rec p = {.graph = "p"};
  const char *m2 =
      "model M\n"
      "  graph P\n"
      "    input u;\n"
      "    output y;\n"
      "    initial phase A(lifetime = 3);\n"
      "    phase B;\n"
      "    internal A -> B output y!1;\n"
      "    external B -> A when u?5;\n"
      "    external A -> B when u?9;\n"
      "  end P;\n"
      "  graph S\n"
      "    output o;\n"
      "    initial phase S0(lifetime = 1);\n"
      "    phase S1(lifetime = 3), S2;\n"
      "    internal S0 -> S1 output o!7;\n"
      "    internal S1 -> S2 output o!5;\n"
      "  end S;\n"
      "  S s;\n"
      "  P p;\n"
      "equation\n"
      "  connect(s.o, p.u);\n"
      "end M;\n";
  CHECK_EQ_INT(run_text(m2, 20, &p, err, sizeof err), CDEVS_OK);
  CHECK_EQ_INT(p.n, 2);
  CHECK_NEAR(p.t[0], 3, 0);
  CHECK_NEAR(p.t[1], 7, 0);
}

/* ---- Guards and simultaneous inputs -------------------------------------------------------- */

static void test_guards(void) {
  char err[4096];
  /* Src sends b = 15 at t = 1; a = 1 and b = 2 together at t = 2; a = 3 at 3; a = 1
   * alone at 4; a = 1 and a = 3 together at 5.
   *   t=1: only the guard reading b is offered: 15 > 10 and k = 0 < 5: k = 15, y!15;
   *   t=2: a?1 and b?2 (both in the bag): k = 12, y!12 (b > 10 is false);
   *   t=3: a?3: k = 112, y!112 (the guards reading b are not offered: no b);
   *   t=4: a?1 alone: a?1 and b?2 is false, b's guard is not offered: ignored;
   *   t=5: a?1 and a?3 both hold in one bag (a reads the last, 3): k = 3 + 1000. */
  rec r = {.graph = "g"};
  const char *m =
      "model M\n"
      "  graph G\n"
      "    input a, b;\n"
      "    output y;\n"
      "    Integer k = 0;\n"
      "    initial phase S(lifetime = inf);\n"
      "    phase T(lifetime = 0);\n"
      "    internal T -> S output y!k;\n"
      "    external S -> T when a?1 and b?2 then k := 12;\n"
      "    external S -> T when b > 10 and k < 5 then k := integer(b);\n"
      "    external S -> T when a?3 and not a?1 then k := k + 100;\n"
      "    external S -> T when a?3 and a?1 then k := integer(a) + 1000;\n"
      "  end G;\n"
      "  graph Src\n"
      "    output oa, ob;\n"
      "    initial phase W0(lifetime = 1);\n"
      "    phase W1(lifetime = 1), W2(lifetime = 1), W3(lifetime = 1), W4(lifetime = 1), W5;\n"
      "    internal W0 -> W1 output ob!15;\n"
      "    internal W1 -> W2 output oa!1, ob!2;\n"
      "    internal W2 -> W3 output oa!3;\n"
      "    internal W3 -> W4 output oa!1;\n"
      "    internal W4 -> W5 output oa!1, oa!3;\n"
      "  end Src;\n"
      "  Src src;\n"
      "  G g;\n"
      "equation\n"
      "  connect(src.oa, g.a);\n"
      "  connect(src.ob, g.b);\n"
      "end M;\n";
  CHECK_EQ_INT(run_text(m, 10, &r, err, sizeof err), CDEVS_OK);
  static const double t[] = {1, 2, 3, 5}, v[] = {15, 12, 112, 1003};
  CHECK_EQ_INT(r.n, 4);
  for (int i = 0; i < 4 && i < r.n; i++) {
    CHECK_NEAR(r.t[i], t[i], 0);
    CHECK_NEAR(r.v[i], v[i], 0);
  }
}

/* Two external transitions that both fire on one input: the run stops with an error
 * naming both, where they are, the phase and the time (GGADLib logs and aborts). */
static void test_ambiguity(void) {
  char err[4096];
  rec r = {.graph = "g"};
  const char *m =
      "model M\n"
      "  graph G\n"
      "    input u;\n"
      "    output y;\n"
      "    initial phase S(lifetime = inf);\n"
      "    phase A(lifetime = inf), B(lifetime = inf);\n"
      "    external S -> A when u > 0;\n"
      "    external S -> B when u < 5;\n"
      "    external A -> S when u?1;\n"
      "    external B -> S when u?1;\n"
      "  end G;\n"
      "  graph Src\n"
      "    output o;\n"
      "    initial phase W0(lifetime = 1);\n"
      "    phase W1(lifetime = 1), W2(lifetime = 1), W3;\n"
      "    internal W0 -> W1 output o!-1;\n" /* only u < 5: S -> B */
      "    internal W1 -> W2 output o!1;\n"  /* B -> S */
      "    internal W2 -> W3 output o!2;\n"  /* both: the error, at t = 3 */
      "  end Src;\n"
      "  Src src;\n"
      "  G g;\n"
      "equation\n"
      "  connect(src.o, g.u);\n"
      "end M;\n";
  CHECK_EQ_INT(run_text(m, 10, &r, err, sizeof err), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "t=3: model 't.m.g': phase 'S': external transitions u > 0 (g.mo:7:5) and u < 5 (g.mo:8:5) "
                      "fire on the same input");
}

/* ---- Confluence, from C ---------------------------------------------------------------- */

/* A (lifetime 1) -> B by its internal transition, emitting y!1; u?1 takes A -> C and
 * B -> D. u = 1 at t = 1 meets A's end. */
static cdevs_graph *confluent_graph(cdevs_graph_confluence rule) {
  static const cdevs_graph_ins one[] = {K(1)}, guard[] = {K(1), {CDEVS_GOP_EVENT, 0, 0}};
  cdevs_graph *g = cdevs_graph_new(NULL, "Conf");
  cdevs_graph_add_input(g, "u");
  cdevs_graph_add_output(g, "y");
  cdevs_graph_code life = CODE(one), gc = CODE(guard);
  int a = cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"A", &life, 1, NULL, NULL});
  int b = cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"B", NULL, 0, NULL, NULL});
  int c = cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"C", NULL, 0, NULL, NULL});
  int d = cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"D", NULL, 0, NULL, NULL});
  cdevs_graph_emit e = {0, CODE(one)};
  cdevs_graph_add_internal(g, &(cdevs_graph_transition_def){.from = a, .to = b, .emits = &e, .nemits = 1});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = a, .to = c, .guard = &gc});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = b, .to = d, .guard = &gc});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = c, .to = a, .guard = &gc});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = d, .to = a, .guard = &gc});
  cdevs_graph_set_confluence(g, rule);
  return g;
}

static void test_confluence(void) {
  for (int rule = 0; rule < 2; rule++) {
    cdevs_graph *g = confluent_graph((cdevs_graph_confluence)rule);
    CHECK_EQ_INT(cdevs_graph_check(g, NULL, NULL), CDEVS_OK);
    cdevs_model *root = cdevs_root_new(NULL, "root");
    cdevs_port_add(root, CDEVS_IN, "u", CDEVS_ANY);
    cdevs_model *m = cdevs_graph_atomic_add(root, "g", g);
    cdevs_connect(root, root, "u", m, "u");
    cdevs_sim *sim = NULL;
    CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
    if (!sim) continue;
    rec r = {.graph = "g", .g = g};
    watch w = {&r, sim};
    static const cdevs_observer obs = {watch_output, NULL, NULL, NULL};
    cdevs_sim_observe(sim, &obs, &w);
    cdevs_value one = cdevs_real(1);
    CHECK_EQ_INT(cdevs_sim_inject(sim, 1.0, 0, &one), CDEVS_OK);
    CHECK_EQ_INT(cdevs_sim_step(sim), CDEVS_OK);
    const void *st = cdevs_sim_state(sim, m);
    /* Both rules emit A's output; GGADLib's stops in B with the input dropped, the
     * kernel's takes it from B to D. */
    CHECK_EQ_INT(r.n, 1);
    CHECK_NEAR(r.t[0], 1, 0);
    CHECK_STR(cdevs_graph_phase_name(g, cdevs_graph_state_phase(st)), rule == CDEVS_GRAPH_CONF_INTERNAL ? "B" : "D");
    CHECK_EQ_INT(cdevs_graph_state_dropped(st), rule == CDEVS_GRAPH_CONF_INTERNAL);
    double v;
    CHECK_EQ_INT(cdevs_graph_state_input(st, 0, &v), 1);
    CHECK_NEAR(v, 1, 0);
    /* Without the coincidence: u at t = 0.5 takes A -> C. */
    cdevs_sim_free(sim);
    CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
    CHECK_EQ_INT(cdevs_sim_inject(sim, 0.5, 0, &one), CDEVS_OK);
    CHECK_EQ_INT(cdevs_sim_step(sim), CDEVS_OK);
    CHECK_STR(cdevs_graph_phase_name(g, cdevs_graph_state_phase(cdevs_sim_state(sim, m))), "C");
    CHECK(isinf(cdevs_sim_next_time(sim)));
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    cdevs_graph_free(g);
  }
}

/* ---- The checks ---------------------------------------------------------------------------- */

typedef struct reports {
  int n, errors;
  cdevs_graph_elem what[8];
  int index[8], other[8];
  char msg[8][400];
} reports;

static void on_report(void *ud, int is_error, cdevs_graph_elem what, int index, int other, const char *msg) {
  reports *r = ud;
  r->errors += is_error;
  if (r->n < 8) {
    r->what[r->n] = what, r->index[r->n] = index, r->other[r->n] = other;
    snprintf(r->msg[r->n], sizeof r->msg[r->n], "%s", msg);
  }
  r->n++;
}

static void test_checks_c(void) {
  static const cdevs_graph_ins one[] = {K(1)}, zero[] = {K(0)}, g1[] = {K(1), {CDEVS_GOP_EVENT, 0, 0}};
  cdevs_graph_code c1 = CODE(one), c0 = CODE(zero), gc = CODE(g1);
  /* Two initial phases: reported at the second, naming the first. */
  cdevs_graph *g = cdevs_graph_new(NULL, "G");
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"A", NULL, 1, NULL, NULL});
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"B", NULL, 1, NULL, NULL});
  reports r = {0};
  CHECK_EQ_INT(cdevs_graph_check(g, on_report, &r), CDEVS_EINVAL);
  CHECK(r.errors >= 1);
  CHECK_EQ_INT(r.what[0], CDEVS_GRAPH_PHASE);
  CHECK_EQ_INT(r.index[0], 1);
  CHECK_EQ_INT(r.other[0], 0);
  CHECK_CONTAINS(cdevs_graph_errmsg(g), "second initial phase");
  /* Frozen: nothing more is added, and cdevs_graph_ops refuses it. */
  CHECK_EQ_INT(cdevs_graph_add_input(g, "late"), CDEVS_EINVAL);
  CHECK(cdevs_graph_ops(g) == NULL);
  cdevs_graph_free(g);
  /* No initial phase. */
  g = cdevs_graph_new(NULL, "G");
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"A", NULL, 0, NULL, NULL});
  memset(&r, 0, sizeof r);
  CHECK_EQ_INT(cdevs_graph_check(g, on_report, &r), CDEVS_EINVAL);
  CHECK_EQ_INT(r.what[0], CDEVS_GRAPH_WHOLE);
  CHECK_CONTAINS(r.msg[0], "no initial phase");
  cdevs_graph_free(g);
  /* Two internal transitions from A; B has a finite lifetime and no way out. */
  g = cdevs_graph_new(NULL, "G");
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"A", &c1, 1, NULL, NULL});
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"B", &c1, 0, NULL, NULL});
  cdevs_graph_add_internal(g, &(cdevs_graph_transition_def){.from = 0, .to = 1});
  cdevs_graph_add_internal(g, &(cdevs_graph_transition_def){.from = 0, .to = 0});
  memset(&r, 0, sizeof r);
  CHECK_EQ_INT(cdevs_graph_check(g, on_report, &r), CDEVS_EINVAL);
  CHECK_EQ_INT(r.errors, 2);
  CHECK_EQ_INT(r.what[0], CDEVS_GRAPH_TRANSITION);
  CHECK_EQ_INT(r.index[0], 1);
  CHECK_CONTAINS(r.msg[0], "second internal transition");
  CHECK_CONTAINS(r.msg[1], "phase 'B' has a finite lifetime and no internal transition");
  cdevs_graph_free(g);
  /* A zero-lifetime cycle A -> B -> C -> A, entered from the initial phase S. */
  g = cdevs_graph_new(NULL, "G");
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"S", &c1, 1, NULL, NULL});
  for (int i = 0; i < 3; i++)
    cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){i == 0 ? "A" : i == 1 ? "B" : "C", &c0, 0, NULL, NULL});
  cdevs_graph_add_internal(g, &(cdevs_graph_transition_def){.from = 0, .to = 1});
  for (int i = 1; i <= 3; i++) cdevs_graph_add_internal(g, &(cdevs_graph_transition_def){.from = i, .to = i % 3 + 1});
  memset(&r, 0, sizeof r);
  CHECK_EQ_INT(cdevs_graph_check(g, on_report, &r), CDEVS_EINVAL);
  CHECK_EQ_INT(r.errors, 1);
  CHECK_CONTAINS(r.msg[0], "(A -> B -> C -> A)");
  cdevs_graph_free(g);
  /* The same guard twice from one phase, and a guardless one beside another. */
  g = cdevs_graph_new(NULL, "G");
  cdevs_graph_add_input(g, "u");
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"A", NULL, 1, NULL, NULL});
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"B", NULL, 0, NULL, NULL});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = 0, .to = 1, .guard = &gc});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = 0, .to = 0, .guard = &gc});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = 1, .to = 0});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = 1, .to = 1, .guard = &gc});
  memset(&r, 0, sizeof r);
  CHECK_EQ_INT(cdevs_graph_check(g, on_report, &r), CDEVS_EINVAL);
  CHECK_EQ_INT(r.errors, 2);
  CHECK_CONTAINS(r.msg[0], "phase 'B' has an external transition with no guard");
  CHECK_CONTAINS(r.msg[1], "phase 'A' has two external transitions with the same guard");
  CHECK_EQ_INT(r.index[1], 1);
  CHECK_EQ_INT(r.other[1], 0);
  cdevs_graph_free(g);
  /* Warnings only: an unreachable phase, a dead end, an internal transition that
   * never fires. The graph passes. */
  g = cdevs_graph_new(NULL, "G");
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"A", &c1, 1, NULL, NULL});
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"B", NULL, 0, NULL, NULL});
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"Lost", NULL, 0, NULL, NULL});
  cdevs_graph_add_internal(g, &(cdevs_graph_transition_def){.from = 0, .to = 1});
  cdevs_graph_add_internal(g, &(cdevs_graph_transition_def){.from = 2, .to = 0});
  memset(&r, 0, sizeof r);
  CHECK_EQ_INT(cdevs_graph_check(g, on_report, &r), CDEVS_OK);
  CHECK_EQ_INT(r.errors, 0);
  CHECK_EQ_INT(r.n, 4); /* B dead end; Lost: never fires, dead end, unreachable */
  CHECK(cdevs_graph_ops(g) != NULL);
  cdevs_graph_free(g);
  /* Building errors are sticky and name what is wrong. */
  g = cdevs_graph_new(NULL, "G");
  static const cdevs_graph_ins bad[] = {K(1), OP(ADD)};
  cdevs_graph_code cb = CODE(bad);
  CHECK_EQ_INT(cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"A", &cb, 1, NULL, NULL}), CDEVS_EINVAL);
  CHECK_CONTAINS(cdevs_graph_errmsg(g), "the lifetime of phase 'A': instruction 1 takes 2 values from a stack of 1");
  CHECK_EQ_INT(cdevs_graph_add_input(g, "u"), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_graph_check(g, NULL, NULL), CDEVS_EINVAL);
  cdevs_model *root = cdevs_root_new(NULL, "root");
  CHECK(cdevs_graph_atomic_add(root, "g", g) == NULL);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "instruction 1");
  cdevs_model_free(root);
  cdevs_graph_free(g);
  g = cdevs_graph_new(NULL, "G");
  cdevs_graph_add_input(g, "u");
  CHECK_EQ_INT(cdevs_graph_add_output(g, "u"), 0);
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"A", NULL, 1, NULL, NULL});
  memset(&r, 0, sizeof r);
  CHECK_EQ_INT(cdevs_graph_check(g, on_report, &r), CDEVS_EINVAL);
  CHECK_EQ_INT(r.errors, 1);
  CHECK_CONTAINS(r.msg[0], "'u' is declared twice");
  cdevs_graph_free(g);
  cdevs_graph_free(NULL);
}

/* Every allocation of building and checking a graph may fail: an error, no leak. */
static void test_alloc_failures(void) {
  static const cdevs_graph_ins one[] = {K(1)}, g1[] = {K(1), {CDEVS_GOP_EVENT, 0, 0}};
  int succeeded = 0;
  for (long fail = 1; fail < 200 && !succeeded; fail++) {
    counting cnt = {0, fail, 0, 0, 0};
    cdevs_alloc a = {counting_realloc, &cnt};
    cdevs_graph *g = cdevs_graph_new(&a, "G");
    if (g) {
      cdevs_graph_code c1 = CODE(one), gc = CODE(g1);
      cdevs_graph_add_input(g, "u");
      cdevs_graph_add_output(g, "y");
      int v = cdevs_graph_add_var(g, "n", CDEVS_GRAPH_INTEGER, 0);
      cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"A", &c1, 1, "1", "here"});
      cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"B", NULL, 0, NULL, NULL});
      cdevs_graph_emit e = {0, CODE(one)};
      cdevs_graph_assign as = {v < 0 ? 0 : v, CODE(one)};
      cdevs_graph_add_internal(g, &(cdevs_graph_transition_def){0, 1, NULL, &e, 1, &as, 1, "y!1", "there"});
      cdevs_graph_add_external(g, &(cdevs_graph_transition_def){1, 0, &gc, NULL, 0, NULL, 0, "u?1", NULL});
      succeeded = cdevs_graph_check(g, NULL, NULL) == CDEVS_OK;
      if (!succeeded) CHECK(cdevs_graph_errmsg(g)[0] != 0);
      cdevs_graph_free(g);
    }
    CHECK_EQ_INT(cnt.live, 0);
    CHECK_EQ_INT(cnt.blocks, 0);
  }
  CHECK(succeeded);
}

/* ---- The checks in model files: each a located error ---------------------------------- */

static const char *graph_model(char *buf, size_t size, const char *body) {
  snprintf(buf, size, "model M\n  graph G\n    input u;\n    output y;\n%s  end G;\n  G g;\nend M;\n", body);
  return buf;
}

static void test_checks_lang(void) {
  static const struct {
    const char *body, *diag;
    int errors;
  } cases[] = {
      {"    phase A;\n", "g.mo:2:9: error: graph 'G' has no initial phase", 1},
      {"    initial phase A;\n    initial phase B;\n", "g.mo:6:19: error: a second initial phase ('A' at line 5", 1},
      {"    initial phase A(lifetime = 1);\n    internal A -> A output y!1;\n    internal A -> A;\n",
       "g.mo:7:5: error: phase 'A' has a second internal transition (the first at line 6)", 1},
      {"    initial phase A(lifetime = 2);\n", "g.mo:5:19: error: phase 'A' has a finite lifetime and no internal", 1},
      {"    initial phase A(lifetime = 1);\n    phase B(lifetime = 0), C(lifetime = 0);\n    internal A -> B;\n"
       "    internal B -> C;\n    internal C -> B;\n",
       "g.mo:6:11: error: a cycle of internal transitions through phases of lifetime 0 (B -> C -> B)", 1},
      {"    initial phase A;\n    phase B, C;\n    external A -> B when u?1;\n    external A -> C when u?1;\n"
       "    external B -> A when u?2;\n    external C -> A when u?2;\n",
       "g.mo:8:5: error: phase 'A' has two external transitions with the same guard (to 'B' and to 'C')", 1},
      {"    initial phase A;\n    external A -> A when v?1;\n", "g.mo:6:26: error: 'v?…' needs an input port", 1},
      {"    initial phase A;\n    external A -> A when u?1 then q := 1;\n", "g.mo:6:35: error: unknown name 'q'", 1},
      {"    initial phase A(lifetime = 1);\n    internal A -> A output z!1;\n", "g.mo:6:28: error: 'z!…' sends on an output port", 1},
      {"    initial phase A;\n    external A -> B when u?1;\n", "g.mo:6:19: error: graph 'G' has no phase 'B'", 1},
      {"    Integer n = 0;\n    initial phase A;\n    external A -> A when u?1 then n := u;\n",
       "g.mo:7:40: error: the value assigned to Integer 'n' is Real, where an Integer goes", 1},
      {"    Boolean b = false;\n    initial phase A;\n    external A -> A when u + b > 1;\n",
       "g.mo:7:30: error: an operand of an arithmetic operator is Boolean, not a number", 1},
      {"    initial phase A;\n    external A -> A when u;\n", "g.mo:6:26: error: a guard is Real, where a condition", 1},
      {"    initial phase A(lifetime = u);\n    internal A -> A;\n", "g.mo:5:32: error: 'u' is an input port", 1},
      {"    initial phase A(lifetime = 1);\n    internal A -> A when u?1;\n",
       "g.mo:6:21: error: an internal transition has no guard", 1},
      {"    initial phase A;\n    external A -> A when u?1 output y!1;\n",
       "g.mo:6:30: error: an external transition sends no output", 1},
      {"    initial phase A;\n    external A -> A then y := 1;\n", "g.mo:6:26: error: 'y' is an output port", 1},
      {"    Real x[3];\n    initial phase A;\n", "g.mo:5:10: error: 'x': a graph's variables are scalars", 1},
      {"    parameter Real d = e2;\n    parameter Real e2 = 1;\n    initial phase A;\n",
       "g.mo:5:24: error: 'e2' is used before its declaration", 1},
      {"    initial phase A;\n    phase A;\n", "g.mo:6:11: error: phase 'A' is declared twice", 1},
      {"    initial phase A;\n  equation\n", "g.mo:6:3: error: a graph holds declarations, phases and transitions", 1},
  };
  char text[2048], diag[4096];
  for (size_t i = 0; i < COUNT(cases); i++) {
    int n = load(graph_model(text, sizeof text, cases[i].body), diag, sizeof diag, NULL);
    CHECK_EQ_INT(n, cases[i].errors);
    CHECK_CONTAINS(diag, cases[i].diag);
  }
  /* Warnings do not stop the model: a dead end and an unreachable phase. */
  int n = load(graph_model(text, sizeof text, "    initial phase A;\n    phase B;\n    external B -> A when u?1;\n"),
               diag, sizeof diag, NULL);
  CHECK_EQ_INT(n, 0);
  CHECK_CONTAINS(diag, "g.mo:5:19: warning: phase 'A' is a dead end");
  CHECK_CONTAINS(diag, "g.mo:6:11: warning: phase 'B' is unreachable");
  /* Modifiers of an instance: an unknown one, a constant, a bad Integer. */
  const char *mods =
      "model M\n  graph G\n    parameter Integer k = 1;\n    constant Real c = 2;\n    Real x = 0;\n"
      "    initial phase A;\n  end G;\n  G g(kk = 2);\n  G h(c = 3);\n  G i(k = 1.5);\nend M;\n";
  CHECK(load(mods, diag, sizeof diag, NULL) > 0);
  CHECK_CONTAINS(diag, "g.mo:8:7: error: graph 'G' has no parameter or variable 'kk'; did you mean 'k'?");
  /* A graph defined in its own file-level class, instantiated twice with different
   * lifetimes: a zero-lifetime cycle in one instance only, reported once, where the
   * lifetime is written. */
  const char *two =
      "graph G\n  parameter Real d = 1;\n  initial phase A(lifetime = d);\n  internal A -> A;\nend G;\n"
      "model M\n  G ok;\n  G bad(d = 0);\nend M;\n";
  CHECK_EQ_INT(load(two, diag, sizeof diag, NULL), 1);
  CHECK_CONTAINS(diag, "g.mo:3:17: error: a cycle of internal transitions through phases of lifetime 0 (A -> A): "
                       "time would not advance (an illegitimate model) (in 'bad')");
  /* A file whose model is a graph runs it alone. */
  rec r = {.graph = "Alone"};
  char err[4096];
  CHECK_EQ_INT(run_text("graph Alone\n  output y;\n  initial phase A(lifetime = 0.5);\n  internal A -> A output y!time;\n"
                        "end Alone;\n", 2, &r, err, sizeof err), CDEVS_OK);
  CHECK_EQ_INT(r.n, 4);
  CHECK_NEAR(r.v[3], 2.0, 0);
}

/* ---- Graphs and equations ------------------------------------------------------------------ */

/* A pump as a graph, a tank as an equation: the tank drains at 0.5 and the pump fills
 * at 1 once it has started (0.5 after the level fell below 0.5); it stops when the
 * level passes 1.5. From h(0) = 1: low at t = 1; the pump runs from 1.5 (h = 0.25)
 * until h = 1.5 at 1.5 + 1.25/0.5 = 4; h is 0.5 again at 4 + 1/0.5 = 6, the pump runs
 * from 6.5 to 9. */
static void test_with_equations(void) {
  const char *m =
      "model Tank\n"
      "  graph Pump\n"
      "    input level;\n"
      "    output q;\n"
      "    initial phase Off;\n"
      "    phase Starting(lifetime = 0.5), On, Stopping(lifetime = 0);\n"
      "    internal Starting -> On output q!1;\n"
      "    internal Stopping -> Off output q!0;\n"
      "    external Off -> Starting when level?1;\n"
      "    external On -> Stopping when level?0;\n"
      "  end Pump;\n"
      "  Pump pump;\n"
      "  Real h(start = 1);\n"
      "  discrete Real low(start = 0);\n"
      "equation\n"
      "  der(h) = pump.q - 0.5;\n"
      "  connect(low, pump.level);\n"
      "algorithm\n"
      "  when h < 0.5 then\n"
      "    low := 1;\n"
      "  end when;\n"
      "  when h > 1.5 then\n"
      "    low := 0;\n"
      "  end when;\n"
      "end Tank;\n";
  rec r = {.graph = "pump"};
  char err[4096];
  CHECK_EQ_INT(run_text(m, 10, &r, err, sizeof err), CDEVS_OK);
  static const double t[] = {1.5, 4, 6.5, 9}, v[] = {1, 0, 1, 0};
  CHECK_EQ_INT(r.n, 4);
  for (int i = 0; i < 4 && i < r.n; i++) {
    CHECK_NEAR(r.t[i], t[i], 1e-6);
    CHECK_NEAR(r.v[i], v[i], 0);
  }
}

/* ---- Hostile input ---------------------------------------------------------------------- */

/* Grows a text buffer with printf. */
typedef struct text {
  char *s;
  size_t n, cap;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...) {
  va_list ap;
  for (;;) {
    va_start(ap, fmt);
    int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if (t->s && t->n + (size_t)k < t->cap) {
      t->n += (size_t)k;
      return;
    }
    size_t cap = (t->cap + (size_t)k + 1) * 2;
    char *s = realloc(t->s, cap);
    if (!s) return;
    t->s = s, t->cap = cap;
  }
}

static void test_hostile(void) {
  char diag[8192];
  /* An empty graph, an unfinished one, a graph with no name, garbage inside. */
  CHECK_EQ_INT(load("model M\n  graph G\n  end G;\n  G g;\nend M;\n", diag, sizeof diag, NULL), 1);
  CHECK_CONTAINS(diag, "g.mo:2:9: error: graph 'G' has no initial phase");
  CHECK(load("model M\n  graph G\n    initial phase A(lifetime = ", diag, sizeof diag, NULL) > 0);
  CHECK_CONTAINS(diag, "g.mo:3:");
  CHECK(load("graph\n", diag, sizeof diag, NULL) > 0);
  CHECK_CONTAINS(diag, "g.mo:2:1: error: expected the model's name");
  CHECK(load("graph G\n  ?!?! -> -> ; phase ; initial ; internal -> ; external A -> when ;\n  !! y!1 u?2;\nend G;\n",
             diag, sizeof diag, NULL) > 0);
  CHECK_CONTAINS(diag, "g.mo:2:3: error:");
  /* p?v and p!v belong to graphs only. */
  CHECK(load("model M\n  Real x;\nequation\n  x = u?1;\nend M;\n", diag, sizeof diag, NULL) > 0);
  CHECK_CONTAINS(diag, "g.mo:4:8: error: expected ';', found '?'");
  /* A guard nested beyond the parser's bound, and one past the evaluator's stack. */
  text t = {0};
  put(&t, "model M\n  graph G\n    input u;\n    initial phase A;\n    external A -> A when ");
  for (int i = 0; i < 3000; i++) put(&t, "(");
  put(&t, "u?1");
  for (int i = 0; i < 3000; i++) put(&t, ")");
  put(&t, ";\n  end G;\n  G g;\nend M;\n");
  CHECK(t.s && load(t.s, diag, sizeof diag, NULL) > 0);
  CHECK_CONTAINS(diag, "nested too deeply");
  t.n = 0;
  put(&t, "model M\n  graph G\n    input u;\n    initial phase A;\n    external A -> A when u > ");
  for (int i = 0; i < 70; i++) put(&t, "u + (");
  put(&t, "1");
  for (int i = 0; i < 70; i++) put(&t, ")");
  put(&t, ";\n  end G;\n  G g;\nend M;\n");
  CHECK_EQ_INT(t.s ? load(t.s, diag, sizeof diag, NULL) : -1, 1);
  CHECK_CONTAINS(diag, "g.mo:5:28: error: this expression holds more than 64 values at once");
  /* A large graph: a ring of 20,000 phases, and 5,000 external transitions from one
   * phase (distinct guards, then one repeated at the end). */
  t.n = 0;
  put(&t, "model M\n  graph G\n    input u;\n    output y;\n    initial phase P0(lifetime = 1);\n");
  for (int i = 1; i < 20000; i++) put(&t, "    phase P%d(lifetime = 1);\n", i);
  for (int i = 0; i < 20000; i++) put(&t, "    internal P%d -> P%d output y!%d;\n", i, (i + 1) % 20000, i);
  for (int i = 0; i < 5000; i++) put(&t, "    external P0 -> P%d when u?%d;\n", i % 20000, i);
  put(&t, "    external P0 -> P1 when u?4321;\n  end G;\n  G g;\nend M;\n");
  CHECK_EQ_INT(t.s ? load(t.s, diag, sizeof diag, NULL) : -1, 1);
  CHECK_CONTAINS(diag, "error: phase 'P0' has two external transitions with the same guard (to 'P4321' and to 'P1')");
  free(t.s);
}

/* ---- Untimed abstraction ------------------------------------------------------------ */

/* Phases A (initial, passive), B (lifetime 1), C, D, E (passive); transitions
 *   0 A -u?1-> B, 1 B -internal-> A, 2 A -u?2-> C, 3 C -u?1-> D, 4 D -u?3-> C,
 *   5 D -internal-> A (D is passive: never fires), 6 A -false-> E (never fires),
 *   7 E -u?1-> A.
 * By hand: forward from A, A B C D (C via A, D via C; E only behind the false guard);
 * backward to A, A B E (C and D only lead to each other: a liveness violation, C the
 * first such phase, reached by A -> C); backward to D, all five. */
static void test_reachable(void) {
  static const cdevs_graph_ins one[] = {K(1)}, no[] = {K(0)}, u1[] = {K(1), {CDEVS_GOP_EVENT, 0, 0}},
                               u2[] = {K(2), {CDEVS_GOP_EVENT, 0, 0}}, u3[] = {K(3), {CDEVS_GOP_EVENT, 0, 0}};
  cdevs_graph_code c1 = CODE(one), cf = CODE(no), g1 = CODE(u1), g2 = CODE(u2), g3 = CODE(u3);
  cdevs_graph *g = cdevs_graph_new(NULL, "R");
  cdevs_graph_add_input(g, "u");
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"A", NULL, 1, NULL, NULL});
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"B", &c1, 0, NULL, NULL});
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"C", NULL, 0, NULL, NULL});
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"D", NULL, 0, NULL, NULL});
  cdevs_graph_add_phase(g, &(cdevs_graph_phase_def){"E", NULL, 0, NULL, NULL});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = 0, .to = 1, .guard = &g1});
  cdevs_graph_add_internal(g, &(cdevs_graph_transition_def){.from = 1, .to = 0});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = 0, .to = 2, .guard = &g2});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = 2, .to = 3, .guard = &g1});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = 3, .to = 2, .guard = &g3});
  cdevs_graph_add_internal(g, &(cdevs_graph_transition_def){.from = 3, .to = 0});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = 0, .to = 4, .guard = &cf});
  cdevs_graph_add_external(g, &(cdevs_graph_transition_def){.from = 4, .to = 0, .guard = &g1});
  int via[5];
  CHECK_EQ_INT(cdevs_graph_reachable(g, 0, 0, via), CDEVS_EINVAL); /* not checked yet */
  CHECK_EQ_INT(cdevs_graph_check(g, NULL, NULL), CDEVS_OK);
  CHECK_EQ_INT(cdevs_graph_initial(g), 0);
  static const int possible[8] = {1, 1, 1, 1, 1, 0, 0, 1};
  for (int t = 0; t < 8; t++) CHECK_EQ_INT(cdevs_graph_transition_possible(g, t), possible[t]);
  CHECK_EQ_INT(cdevs_graph_transition_possible(g, 8), -1);
  CHECK_EQ_INT(cdevs_graph_reachable(g, 0, 0, via), 4);
  static const int fwd[5] = {0, 0, 0, 2, -1}, to_a[5] = {0, 0, -1, -1, 0}, to_d[5] = {2, 0, 3, 3, 0};
  for (int p = 0; p < 5; p++) CHECK_EQ_INT(via[p], fwd[p]);
  CHECK_EQ_INT(cdevs_graph_reachable(g, 0, 1, via), 3);
  for (int p = 0; p < 5; p++) CHECK_EQ_INT(via[p], to_a[p]);
  CHECK_EQ_INT(cdevs_graph_reachable(g, 3, 1, via), 5);
  for (int p = 0; p < 5; p++) CHECK_EQ_INT(via[p], to_d[p]);
  CHECK_EQ_INT(cdevs_graph_reachable(g, 5, 0, via), CDEVS_EINVAL);
  cdevs_graph_free(g);
}

int main(void) {
  test_eval();
  test_expressions();
  test_lifetimes();
  test_guards();
  test_ambiguity();
  test_confluence();
  test_checks_c();
  test_alloc_failures();
  test_checks_lang();
  test_with_equations();
  test_hostile();
  test_reachable();
  return check_report("test_graph");
}
