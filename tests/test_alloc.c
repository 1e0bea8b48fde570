/* SPDX-License-Identifier: MIT */
/* Allocation failure: fail the n-th allocation, for every n, while building and running
   coupled models and an equation model; every failure must surface as a status and
   leak nothing. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/cdevs.h"
#include "check.h"
#include "test_util.h"

/* Builds, seeds and runs one DEVStone model through a; returns the first error. */
static cdevs_status devstone(const cdevs_alloc *a, const cdevs_devstone_params *p) {
  cdevs_model *root = cdevs_devstone_build(a, p);
  if (!root) return CDEVS_ENOMEM;
  cdevs_sim_opts o = cdevs_sim_opts_default();
  o.max_transitions_per_instant = UINT64_MAX;
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, &o, &sim);
  if (!st) st = cdevs_devstone_seed(sim);
  if (!st) st = cdevs_sim_run(sim, INFINITY);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return st;
}

/* Builds and runs three models through allocator a; returns the first error. */
static cdevs_status scenario(const cdevs_alloc *a) {
  cdevs_status result = CDEVS_OK;
  /* 1. the experimental frame, long enough for the transducer's table to grow */
  cdevs_generator_params g = {1.0, 1.0};
  cdevs_processor_params p = {2.0};
  cdevs_transducer_params t = {200.5};
  cdevs_model *root = cdevs_efp_build(a, &g, &p, &t);
  if (!root) return CDEVS_ENOMEM;
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, NULL, &sim);
  if (!st) st = cdevs_sim_run(sim, INFINITY);
  if (st && !result) result = st;
  cdevs_sim_free(sim);
  cdevs_model_free(root);

  /* 2. a deeper hierarchy with added ports, many couplings and fan-out */
  cdevs_devstone_params dp = {CDEVS_DEVSTONE_HOMOD, 4, 5, 0.0, 0.0};
  st = devstone(a, &dp);
  if (st && !result) result = st;
  /* 3. LI with a wide level: more than 16 children switches on the name hash */
  cdevs_devstone_params lp = {CDEVS_DEVSTONE_LI, 3, 40, 0.0, 0.0};
  st = devstone(a, &lp);
  if (st && !result) result = st;

  /* 4. continuous blocks that allocate: a table source (its points), a recorder
   * (its rows, growing past the first buffer), in the flyback block diagram */
  cdevs_flyback_params fp = cdevs_flyback_default();
  root = cdevs_flyback_build(a, &fp, CDEVS_QSS2, 1e-3, 1e-5);
  if (!root) return result ? result : CDEVS_ENOMEM;
  const double tt[3] = {0.0, 1e-4, 2e-4}, ty[3] = {0.0, 1.0, 0.5};
  cdevs_table_params tp = {tt, ty, 3, 1};
  cdevs_model *tab = cdevs_atomic_add(root, "table", &cdevs_table_ops, &tp);
  cdevs_recorder_params rp = {2, 1e-6, 3e-4};
  cdevs_model *rec = cdevs_atomic_add(root, "rec", &cdevs_recorder_ops, &rp);
  cdevs_connect(root, cdevs_model_child(root, "vC"), "y", rec, "u0");
  cdevs_connect(root, tab, "y", rec, "u1");
  sim = NULL;
  st = cdevs_sim_new(root, NULL, &sim);
  if (!st) st = cdevs_sim_run(sim, 3e-4);
  if (st && !result) result = st;
  cdevs_sim_free(sim);
  cdevs_model_free(root);

  /* 5. messages through the engine */
  cdevs_msg *m = cdevs_array_new(a, 4);
  if (!m) return result ? result : CDEVS_ENOMEM;
  cdevs_msg_release(m);
  return result;
}

/* ---- many small models: the arena crosses chunks at every kind of node allocation ---- */

static double passive_ta(const void *state) {
  (void)state;
  return INFINITY;
}

static const cdevs_port_def pin[] = {{"in", CDEVS_REAL}, {NULL, CDEVS_ANY}};
static const cdevs_port_def pout[] = {{"out", CDEVS_REAL}, {NULL, CDEVS_ANY}};
static const cdevs_atomic_ops passive_ops = {.type = "Passive", .state_size = 8, .arg_size = 8,
                                             .inputs = pin, .outputs = pout, .ta = passive_ta};

/* A root, one coupled model whose name is `pad` 16-byte arena slots long, then enough
 * atomics to fill more than one arena chunk (32 KB). As pad runs over 0..15 the first
 * allocation that needs a new chunk is, in turn, an atomic's node, its name, its
 * argument; the n-th allocation failing then hits each of them. */
static cdevs_status arena_scenario(const cdevs_alloc *a) {
  cdevs_status result = CDEVS_OK;
  for (int pad = 0; pad < 16; pad++) {
    cdevs_model *root = cdevs_root_new(a, "top");
    if (!root) return result ? result : CDEVS_ENOMEM;
    char name[16 * 16 + 16];
    memset(name, 'c', sizeof name);
    name[16 * pad + 15] = '\0';
    cdevs_model *c = cdevs_coupled_add(root, name);
    cdevs_port_add(c, CDEVS_IN, "in", CDEVS_REAL);
    const double arg = 1.0;
    cdevs_model *prev = NULL;
    for (int i = 0; i < 300; i++) {
      char an[16];
      snprintf(an, sizeof an, "a%d", i);
      cdevs_model *m = cdevs_atomic_add(c, an, &passive_ops, &arg);
      cdevs_connect(c, prev ? prev : c, prev ? "out" : "in", m, "in");
      prev = m;
    }
    cdevs_sim *sim = NULL;
    cdevs_status st = cdevs_sim_new(root, NULL, &sim);
    if (st && !result) result = st;
    cdevs_sim_free(sim);
    cdevs_model_free(root);
  }
  return result;
}

/* ---- an equation model: the system's arrays, incidence lists and event tree ---- */

static cdevs_mo *eq_model;

/* An equation model with states, algebraics, relations as events, when clauses and
 * outputs, instanced and run through a (the model file is compiled once, outside). */
static cdevs_status equations_scenario(const cdevs_alloc *a) {
  cdevs_model *root = cdevs_root_new(a, "top");
  if (!root) return CDEVS_ENOMEM;
  cdevs_model *m = cdevs_mo_add(root, "eq", eq_model, CDEVS_LIQSS2, 1e-3, 1e-6);
  cdevs_status st = m ? CDEVS_OK : CDEVS_ENOMEM;
  cdevs_sim *sim = NULL;
  if (!st) st = cdevs_sim_new(root, NULL, &sim);
  if (!st) st = cdevs_sim_run(sim, 3.0);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return st;
}

/* 5. structure changes during a run: cells in a dish divide for four generations (a
 * new cell, its coupling through the dish to a counter, past 16 children so the
 * names are hashed) and then remove themselves; the counter's own coupling is
 * unmade and made again by the first cell at t = 2.5. */
typedef struct sc_cell {
  int gen;
  cdevs_model *dish, *root, *counter;
} sc_cell;
static const cdevs_port_def sc_out[] = {{"out", CDEVS_INT}, {NULL, CDEVS_ANY}};
static const cdevs_port_def sc_in[] = {{"in", CDEVS_INT}, {NULL, CDEVS_ANY}};
static int sc_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  *(sc_cell *)state = *(const sc_cell *)arg;
  return 0;
}
static double sc_ta(const void *state) { return ((const sc_cell *)state)->gen < 0 ? 0.5 : 1.0; }
static void sc_output(cdevs_ctx *cx, const void *state) { cdevs_emit_int(cx, 0, ((const sc_cell *)state)->gen); }
static const cdevs_atomic_ops sc_cell_ops;
static void sc_int(cdevs_ctx *cx, void *state) {
  sc_cell *c = state;
  if (c->gen < 0) { /* the rewirer: once, at t = 2.5 */
    cdevs_ctx_disconnect(cx, c->root, c->dish, "out", c->counter, "in");
    cdevs_ctx_connect(cx, c->root, c->dish, "out", c->counter, "in");
    c->gen = -100;
    return;
  }
  if (c->gen == 4) {
    cdevs_ctx_remove(cx, (cdevs_model *)(uintptr_t)cdevs_ctx_model(cx));
    return;
  }
  char name[48];
  snprintf(name, sizeof name, "g%d_%.0f_%u", c->gen + 1, cdevs_ctx_time(cx), cdevs_ctx_self(cx));
  sc_cell child = {c->gen + 1, c->dish, c->root, c->counter};
  cdevs_model *m = cdevs_ctx_add_atomic(cx, c->dish, name, &sc_cell_ops, &child);
  if (m) cdevs_ctx_connect(cx, c->dish, m, "out", c->dish, "out");
  c->gen++;
}
static double sc_rewirer_ta(const void *state) {
  int g = ((const sc_cell *)state)->gen;
  return g == -1 ? 2.5 : INFINITY;
}
static const cdevs_atomic_ops sc_cell_ops = {.type = "Cell", .state_size = sizeof(sc_cell),
                                             .arg_size = sizeof(sc_cell), .outputs = sc_out, .init = sc_init,
                                             .ta = sc_ta, .output = sc_output, .delta_int = sc_int};
static const cdevs_atomic_ops sc_rewirer_ops = {.type = "Rewirer", .state_size = sizeof(sc_cell),
                                                .arg_size = sizeof(sc_cell), .init = sc_init, .ta = sc_rewirer_ta,
                                                .delta_int = sc_int};
static double sc_passive(const void *state) {
  (void)state;
  return INFINITY;
}
static void sc_count(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)cx, (void)e;
  *(long *)state += (long)x->n;
}
static const cdevs_atomic_ops sc_counter_ops = {.type = "Counter", .state_size = sizeof(long), .inputs = sc_in,
                                                .ta = sc_passive, .delta_ext = sc_count};

static cdevs_status structure_scenario(const cdevs_alloc *a) {
  cdevs_model *root = cdevs_root_new(a, "top");
  if (!root) return CDEVS_ENOMEM;
  cdevs_model *dish = cdevs_coupled_add(root, "dish");
  cdevs_model *counter = cdevs_atomic_add(root, "counter", &sc_counter_ops, NULL);
  sc_cell first = {0, dish, root, counter}, rewirer = {-1, dish, root, counter};
  cdevs_model *c0 = cdevs_atomic_add(dish, "c0", &sc_cell_ops, &first);
  cdevs_atomic_add(root, "rewirer", &sc_rewirer_ops, &rewirer);
  cdevs_port_add(dish, CDEVS_OUT, "out", CDEVS_INT);
  cdevs_connect(dish, c0, "out", dish, "out");
  cdevs_connect(root, dish, "out", counter, "in");
  cdevs_status st = cdevs_model_status(root);
  cdevs_sim *sim = NULL;
  if (!st) st = cdevs_sim_new(root, NULL, &sim);
  if (!st) st = cdevs_sim_run(sim, INFINITY);
  /* 2^k cells emit at t = k + 1 for k = 0..4: 31 events, whatever the rewiring did */
  const long *n = sim && !st ? cdevs_sim_state(sim, counter) : NULL;
  if (!st && (!n || *n != 31)) st = CDEVS_EMODEL;
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return st;
}

/* Runs fn once to count its allocations, then once more failing each of them in turn:
 * every failure must come back as an error status and leave nothing allocated. */
static void fail_each(const char *what, cdevs_status (*fn)(const cdevs_alloc *), long min_calls) {
  counting c;
  memset(&c, 0, sizeof c);
  cdevs_alloc a = {counting_realloc, &c};
  CHECK_EQ_INT(fn(&a), CDEVS_OK);
  CHECK_EQ_INT(c.live, 0);
  CHECK_EQ_INT(c.blocks, 0);
  long total = c.calls;
  CHECK(total >= min_calls); /* the scenario reaches what it is meant to */
  long surfaced = 0, leaks = 0, silent = 0;
  for (long n = 1; n <= total; n++) {
    memset(&c, 0, sizeof c);
    c.fail_at = n;
    cdevs_status st = fn(&a);
    if (!c.failed) continue;
    if (st != CDEVS_OK)
      surfaced++;
    else
      silent++;
    if (c.live != 0 || c.blocks != 0) {
      leaks++;
      fprintf(stderr, "%s: allocation %ld of %ld: %lld bytes in %ld blocks leaked\n", what, n,
              total, c.live, c.blocks);
    }
  }
  printf("%s: failed each of %ld allocations in turn: %ld surfaced as errors\n", what, total,
         surfaced);
  CHECK_EQ_INT(surfaced, total);
  CHECK_EQ_INT(silent, 0);
  CHECK_EQ_INT(leaks, 0);
}

int main(void) {
  fail_each("models", scenario, 100);
  fail_each("arena", arena_scenario, 100);
  fail_each("structure", structure_scenario, 100);
  const char *text = "model m\n  parameter Real k = 2;\n  Real x[3](each start = 1), y, z(start = 0);\n"
                     "  discrete Real n(start = 0);\nequation\n  y = x[1] + x[2];\n"
                     "  for i in 1:3 loop\n    der(x[i]) = -k * x[i] + (if time < 1 then 1 else 0);\n  end for;\n"
                     "  der(z) = if y > 1 then -z else 1;\nalgorithm\n"
                     "  when x[3] < 0.6 or time > 2.5 then\n    n := n + 1;\n  end when;\n"
                     "  when sample(0.5, 1) then\n    n := n + 10;\n  end when;\n"
                     "  annotation(experiment(MMO_Output = {x, y, n}));\nend m;\n";
  if (CHECK_RUN(cdevs_mo_load_text("m.mo", text, strlen(text), stderr, &eq_model)))
    fail_each("equations", equations_scenario, 60);
  cdevs_mo_free(eq_model);
  return check_report("test_alloc");
}
