/* SPDX-License-Identifier: MIT */
/*
 * Structure changes during a run (cdevs_ctx_add_atomic, _remove, _connect,
 * _disconnect): a population of cells that divide and die, against the counts of
 * binary fission worked out by hand; couplings made and unmade while a generator
 * runs; a coupled model removed with what it holds; and the misuses, each a named
 * error that stops the run with nothing leaked.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/cdevs.h"
#include "check.h"

static double passive_ta(const void *s) {
  (void)s;
  return INFINITY;
}

/* ---- a population: binary fission ------------------------------------------------- */

/* Every cell lives one time unit per generation: at its internal transition it
 * divides (a new cell of the next generation beside it, its output coupled to the
 * counter, and it moves to the next generation too) until generation K, where it
 * removes itself. Starting from one cell at t = 0: 2^k cells from t = k to k + 1 for
 * k <= K, none after K + 1; 2^K - 1 births, 2^K deaths; each cell emits once per
 * transition, 2^(k-1) events at t = k (k = 1 .. K + 1): 2^(K+1) - 1 in all. */
typedef struct world {
  cdevs_model *dish, *counter;
  int K;
  long named, finis, live, worst_live_gap;
  long adds, removes, connects, lines_checked;
  cdevs_sim *sim;
} world;

typedef struct cell_arg {
  world *w;
  int gen;
} cell_arg;
typedef struct cell_state {
  world *w;
  int gen;
} cell_state;

static const cdevs_port_def cell_out[] = {{"out", CDEVS_INT}, {NULL, CDEVS_ANY}};
static const cdevs_port_def count_in[] = {{"in", CDEVS_INT}, {NULL, CDEVS_ANY}};

static int cell_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  const cell_arg *a = arg;
  cell_state *s = state;
  s->w = a->w, s->gen = a->gen;
  a->w->live++;
  return 0;
}
static double cell_ta(const void *state) {
  (void)state;
  return 1.0;
}
static void cell_output(cdevs_ctx *cx, const void *state) {
  const cell_state *s = state;
  cdevs_emit_int(cx, 0, s->gen);
}
static const cdevs_atomic_ops cell_ops;
static void cell_int(cdevs_ctx *cx, void *state) {
  cell_state *s = state;
  world *w = s->w;
  cdevs_model *self = (cdevs_model *)(uintptr_t)cdevs_ctx_model(cx);
  if (s->gen == w->K) {
    cdevs_ctx_remove(cx, self);
    return;
  }
  char name[32];
  snprintf(name, sizeof name, "c%ld", ++w->named);
  cell_arg a = {w, s->gen + 1};
  cdevs_model *child = cdevs_ctx_add_atomic(cx, w->dish, name, &cell_ops, &a);
  if (child) cdevs_ctx_connect(cx, w->dish, child, "out", w->dish, "out"); /* (through the dish's port) */
  s->gen++;
}
static void cell_fini(void *state) {
  cell_state *s = state;
  s->w->finis++;
  s->w->live--;
}
static const cdevs_atomic_ops cell_ops = {.type = "Cell", .state_size = sizeof(cell_state),
                                          .arg_size = sizeof(cell_arg), .outputs = cell_out, .init = cell_init,
                                          .ta = cell_ta, .output = cell_output, .delta_int = cell_int,
                                          .fini = cell_fini};

typedef struct counter_state {
  long events;
  long by_gen[32];
} counter_state;
static void counter_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)cx, (void)e;
  counter_state *s = state;
  for (size_t i = 0; i < x->n; i++) {
    s->events++;
    int64_t g = x->events[i].value->u.integer;
    if (g >= 0 && g < 32) s->by_gen[g]++;
  }
}
static const cdevs_atomic_ops counter_ops = {.type = "Counter", .state_size = sizeof(counter_state),
                                             .inputs = count_in, .ta = passive_ta, .delta_ext = counter_ext};

static void on_structure(void *ud, double t, const char *what) {
  (void)t;
  world *w = ud;
  if (!strncmp(what, "add ", 4)) w->adds++;
  else if (!strncmp(what, "remove ", 7)) w->removes++;
  else if (!strncmp(what, "connect ", 8)) w->connects++;
}
/* At every transition: the cells the simulator holds are the cells alive (inits less
 * finis), counted over its ids. */
static void on_transition(void *ud, double t, uint32_t atomic, cdevs_transition kind, size_t bag, double tn) {
  (void)t, (void)atomic, (void)kind, (void)bag, (void)tn;
  world *w = ud;
  long held = 0;
  for (uint32_t i = 0; i < cdevs_sim_atomic_count(w->sim); i++) {
    const cdevs_model *m = cdevs_sim_atomic(w->sim, i);
    held += m && cdevs_model_ops(m) == &cell_ops;
  }
  long gap = labs(held - w->live);
  if (gap > w->worst_live_gap) w->worst_live_gap = gap;
  w->lines_checked++;
}

static void test_population(int K, int watch) {
  world w;
  memset(&w, 0, sizeof w);
  w.K = K;
  cdevs_model *root = cdevs_root_new(NULL, "top");
  w.dish = cdevs_coupled_add(root, "dish");
  w.counter = cdevs_atomic_add(root, "counter", &counter_ops, NULL);
  cell_arg a0 = {&w, 0};
  cdevs_model *c0 = cdevs_atomic_add(w.dish, "c0", &cell_ops, &a0);
  cdevs_port_add(w.dish, CDEVS_OUT, "out", CDEVS_INT);
  cdevs_connect(w.dish, c0, "out", w.dish, "out");
  cdevs_connect(root, w.dish, "out", w.counter, "in");
  cdevs_sim *sim = NULL;
  int built = cdevs_sim_new(root, NULL, &sim) == CDEVS_OK;
  CHECK(built);
  if (!built) {
    fprintf(stderr, "%s\n", cdevs_model_errmsg(root));
    cdevs_model_free(root);
    return;
  }
  w.sim = sim;
  static const cdevs_observer obs = {NULL, on_transition, NULL, on_structure};
  static const cdevs_observer lines = {NULL, NULL, NULL, on_structure};
  cdevs_sim_observe(sim, watch ? &obs : &lines, &w);
  long full = 1L << K;
  /* mid-run: 2^K cells alive from t = K to K + 1 */
  cdevs_status st = cdevs_sim_run(sim, K + 0.5);
  CHECK(st == CDEVS_OK);
  if (st) fprintf(stderr, "  %s\n", cdevs_sim_errmsg(sim));
  CHECK(w.live == full);
  CHECK(cdevs_sim_atomic_count(sim) == (uint32_t)full + 1); /* the cells and the counter, no id reused */
  st = cdevs_sim_run(sim, INFINITY);
  CHECK(st == CDEVS_OK);
  if (st) fprintf(stderr, "  %s\n", cdevs_sim_errmsg(sim));
  const cdevs_model *ctr = cdevs_model_child(root, "counter");
  const counter_state *cs = cdevs_sim_state(sim, ctr);
  printf("population K = %d: %ld births, %ld deaths, %ld couplings made, %ld events counted, %ld alive at the end,"
         " worst gap %ld over %ld transitions\n", K, w.adds, w.removes, w.connects, cs ? cs->events : -1, w.live,
         w.worst_live_gap, w.lines_checked);
  CHECK(w.adds == full - 1);
  CHECK(w.removes == full);
  CHECK(w.connects == full - 1);
  CHECK(w.finis == full);
  CHECK(w.live == 0);
  CHECK(cs && cs->events == 2 * full - 1);
  /* generation g emits g at t = g + 1, from its 2^g cells */
  for (int g = 0; cs && g <= K; g++) CHECK(cs->by_gen[g] == 1L << g);
  if (watch) CHECK(w.worst_live_gap == 0 && w.lines_checked > 2 * full);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

/* ---- couplings made and unmade ------------------------------------------------------ */

/* A generator emits 1 at t = 1, 2, ..., 10; a switch couples it to sink A at t = 3.5,
 * moves it to sink B at t = 6.5 and to nothing at 8.5: A gets t = 4, 5, 6, B gets 7, 8. */
static const cdevs_port_def gen_out[] = {{"out", CDEVS_INT}, {NULL, CDEVS_ANY}};
typedef struct gen_state {
  int k;
} gen_state;
static double gen_ta(const void *state) { return ((const gen_state *)state)->k < 10 ? 1.0 : INFINITY; }
static void gen_output(cdevs_ctx *cx, const void *state) {
  (void)state;
  cdevs_emit_int(cx, 0, 1);
}
static void gen_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  ((gen_state *)state)->k++;
}
static const cdevs_atomic_ops gen_ops = {.type = "Gen", .state_size = sizeof(gen_state), .outputs = gen_out,
                                         .ta = gen_ta, .output = gen_output, .delta_int = gen_int};

typedef struct sink_state {
  int n;
  double t[16];
} sink_state;
static void sink_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e, (void)x;
  sink_state *s = state;
  if (s->n < 16) s->t[s->n] = cdevs_ctx_time(cx);
  s->n++;
}
static const cdevs_atomic_ops sink_ops = {.type = "Sink", .state_size = sizeof(sink_state), .inputs = count_in,
                                          .ta = passive_ta, .delta_ext = sink_ext};

typedef struct switch_arg {
  cdevs_model *root, *gen, *a, *b;
  int misuse; /* 0: none; else which misuse (test_misuses) */
} switch_arg;
typedef struct switch_state {
  switch_arg a;
  int step;
} switch_state;
static int switch_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  ((switch_state *)state)->a = *(const switch_arg *)arg;
  return 0;
}
static double switch_ta(const void *state) {
  const switch_state *s = state;
  return s->step == 0 ? 3.5 : s->step < 3 ? 3.0 - (s->step == 2) : INFINITY;
}
static void switch_int(cdevs_ctx *cx, void *state) {
  switch_state *s = state;
  const switch_arg *a = &s->a;
  if (s->step == 0) cdevs_ctx_connect(cx, a->root, a->gen, "out", a->a, "in");
  if (s->step == 1) {
    cdevs_ctx_disconnect(cx, a->root, a->gen, "out", a->a, "in");
    cdevs_ctx_connect(cx, a->root, a->gen, "out", a->b, "in");
  }
  if (s->step == 2) cdevs_ctx_disconnect(cx, a->root, a->gen, "out", a->b, "in");
  s->step++;
}
static const cdevs_atomic_ops switch_ops = {.type = "Switch", .state_size = sizeof(switch_state),
                                            .arg_size = sizeof(switch_arg), .init = switch_init, .ta = switch_ta,
                                            .delta_int = switch_int};

static void test_rewiring(void) {
  cdevs_model *root = cdevs_root_new(NULL, "top");
  cdevs_model *gen = cdevs_atomic_add(root, "gen", &gen_ops, NULL);
  cdevs_model *sa = cdevs_atomic_add(root, "a", &sink_ops, NULL);
  cdevs_model *sb = cdevs_atomic_add(root, "b", &sink_ops, NULL);
  switch_arg arg = {root, gen, sa, sb, 0};
  cdevs_atomic_add(root, "switch", &switch_ops, &arg);
  cdevs_sim *sim = NULL;
  int built = cdevs_sim_new(root, NULL, &sim) == CDEVS_OK;
  CHECK(built);
  if (built) {
    cdevs_status st = cdevs_sim_run(sim, 100.0);
    CHECK(st == CDEVS_OK);
    if (st) fprintf(stderr, "  %s\n", cdevs_sim_errmsg(sim));
    const sink_state *a = cdevs_sim_state(sim, sa), *b = cdevs_sim_state(sim, sb);
    printf("rewiring: A got %d events (t = %g, %g, %g), B got %d (t = %g, %g)\n", a->n, a->t[0], a->t[1], a->t[2],
           b->n, b->t[0], b->t[1]);
    CHECK(a->n == 3 && a->t[0] == 4.0 && a->t[1] == 5.0 && a->t[2] == 6.0);
    CHECK(b->n == 2 && b->t[0] == 7.0 && b->t[1] == 8.0);
    cdevs_stats stt;
    cdevs_sim_stats(sim, &stt);
    CHECK(stt.fanout_edges == 0); /* nothing coupled at the end */
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

/* ---- a coupled model removed with what it holds ------------------------------------- */

static long group_finis;
static void counted_fini(void *state) {
  (void)state;
  group_finis++;
}
static const cdevs_atomic_ops member_ops = {.type = "Member", .state_size = sizeof(sink_state),
                                            .inputs = count_in, .ta = passive_ta, .delta_ext = sink_ext,
                                            .fini = counted_fini};
typedef struct killer_state {
  cdevs_model *victim;
  double at;
  int done;
} killer_state;
static int killer_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  killer_state *s = state;
  *s = *(const killer_state *)arg;
  return 0;
}
static double killer_ta(const void *state) {
  const killer_state *s = state;
  return s->done ? INFINITY : s->at;
}
static void killer_int(cdevs_ctx *cx, void *state) {
  killer_state *s = state;
  cdevs_ctx_remove(cx, s->victim);
  s->done = 1;
}
static const cdevs_atomic_ops killer_ops = {.type = "Killer", .state_size = sizeof(killer_state),
                                            .arg_size = sizeof(killer_state), .init = killer_init,
                                            .ta = killer_ta, .delta_int = killer_int};

static void test_remove_coupled(void) {
  cdevs_model *root = cdevs_root_new(NULL, "top");
  cdevs_model *gen = cdevs_atomic_add(root, "gen", &gen_ops, NULL);
  cdevs_model *group = cdevs_coupled_add(root, "group");
  cdevs_port_add(group, CDEVS_IN, "in", CDEVS_INT);
  cdevs_model *inner = cdevs_coupled_add(group, "inner");
  cdevs_port_add(inner, CDEVS_IN, "in", CDEVS_INT);
  cdevs_model *m[3] = {cdevs_atomic_add(group, "m0", &member_ops, NULL), cdevs_atomic_add(group, "m1", &member_ops, NULL),
                       cdevs_atomic_add(inner, "m2", &member_ops, NULL)};
  cdevs_connect(root, gen, "out", group, "in");
  cdevs_connect(group, group, "in", m[0], "in");
  cdevs_connect(group, group, "in", m[1], "in");
  cdevs_connect(group, group, "in", inner, "in");
  cdevs_connect(inner, inner, "in", m[2], "in");
  cdevs_model *survivor = cdevs_atomic_add(root, "survivor", &sink_ops, NULL);
  cdevs_connect(root, gen, "out", survivor, "in");
  killer_state k = {group, 4.5, 0};
  cdevs_atomic_add(root, "killer", &killer_ops, &k);
  cdevs_sim *sim = NULL;
  group_finis = 0;
  int built = cdevs_sim_new(root, NULL, &sim) == CDEVS_OK;
  CHECK(built);
  if (built) {
    cdevs_status st = cdevs_sim_run(sim, 4.7);
    CHECK(st == CDEVS_OK);
    CHECK(group_finis == 3); /* all three members, one of them in a coupled model inside */
    uint32_t id0 = UINT32_MAX;
    for (uint32_t i = 0; i < cdevs_sim_atomic_count(sim); i++)
      if (cdevs_sim_atomic(sim, i) == NULL) id0 = id0 == UINT32_MAX ? i : id0;
    CHECK(id0 != UINT32_MAX);
    CHECK(cdevs_sim_state(sim, m[0]) == NULL && cdevs_model_child(root, "group") == NULL);
    st = cdevs_sim_run(sim, 100.0);
    CHECK(st == CDEVS_OK);
    const sink_state *sv = cdevs_sim_state(sim, survivor);
    CHECK(sv && sv->n == 10); /* the other receiver of the generator keeps getting all ten */
    cdevs_model_counts c;
    cdevs_model_counts_get(root, &c);
    CHECK(c.atomics == 3 && c.coupled == 1 && c.ic == 1 && c.eic == 0);
  }
  cdevs_sim_free(sim);
  CHECK(group_finis == 3);
  cdevs_model_free(root);
}

/* ---- misuses ------------------------------------------------------------------------- */

typedef struct bad_state {
  int which;
  cdevs_model *root, *other, *gen;
} bad_state;
static const cdevs_port_def real_in[] = {{"in", CDEVS_REAL}, {NULL, CDEVS_ANY}};
static const cdevs_atomic_ops real_sink_ops = {.type = "RealSink", .state_size = sizeof(sink_state),
                                               .inputs = real_in, .ta = passive_ta, .delta_ext = sink_ext};
static int bad_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  *(bad_state *)state = *(const bad_state *)arg;
  return 0;
}
static double one_ta(const void *state) {
  (void)state;
  return 1.0;
}
static void bad_output(cdevs_ctx *cx, const void *state) {
  const bad_state *s = state;
  if (s->which == 4) cdevs_ctx_remove(cx, s->other); /* in λ: not a transition */
}
static void bad_int(cdevs_ctx *cx, void *state) {
  bad_state *s = state;
  cdevs_model *self = (cdevs_model *)(uintptr_t)cdevs_ctx_model(cx);
  switch (s->which) {
  case 1: /* the same model removed twice */
    cdevs_ctx_remove(cx, s->other);
    cdevs_ctx_remove(cx, s->other);
    break;
  case 2: /* an INT output to a REAL input */
    cdevs_ctx_connect(cx, s->root, s->gen, "out", cdevs_ctx_add_atomic(cx, s->root, "r", &real_sink_ops, NULL), "in");
    break;
  case 3: /* removes itself, then asks for more */
    cdevs_ctx_remove(cx, self);
    cdevs_ctx_add_atomic(cx, s->root, "late", &sink_ops, NULL);
    break;
  case 11: /* replaces itself: its successor and a coupling first, then its removal (allowed) */
    cdevs_ctx_connect(cx, s->root, s->gen, "out", cdevs_ctx_add_atomic(cx, s->root, "heir", &sink_ops, NULL), "in");
    cdevs_ctx_remove(cx, self);
    break;
  case 5: /* a name taken */
    cdevs_ctx_add_atomic(cx, s->root, "gen", &sink_ops, NULL);
    break;
  case 6: /* a coupling that is not there */
    cdevs_ctx_disconnect(cx, s->root, s->gen, "out", s->other, "in");
    break;
  case 7: /* a coupling made twice */
    cdevs_ctx_connect(cx, s->root, s->gen, "out", s->other, "in");
    cdevs_ctx_connect(cx, s->root, s->gen, "out", s->other, "in");
    break;
  case 8: /* the root */
    cdevs_ctx_remove(cx, s->root);
    break;
  case 9: /* a port that does not exist */
    cdevs_ctx_connect(cx, s->root, s->gen, "nope", s->other, "in");
    break;
  default: break;
  }
}
static const cdevs_atomic_ops bad_ops = {.type = "Bad", .state_size = sizeof(bad_state), .arg_size = sizeof(bad_state),
                                         .init = bad_init, .ta = one_ta, .output = bad_output, .delta_int = bad_int};

/* A second model that, removed by case 10's remover at t = 1, also asks (at the same
 * instant, with a larger id) for a coupling. */
static void asker_int(cdevs_ctx *cx, void *state) {
  bad_state *s = state;
  cdevs_ctx_connect(cx, s->root, s->gen, "out", s->other, "in");
}
static const cdevs_atomic_ops asker_ops = {.type = "Asker", .state_size = sizeof(bad_state),
                                           .arg_size = sizeof(bad_state), .init = bad_init, .ta = one_ta,
                                           .delta_int = asker_int};

static void test_misuses(void) {
  static const struct {
    int which;
    const char *want;
  } cases[] = {
      {1, "removing 'top.victim': it is not in the tree (removed already, or never added)"},
      {2, "coupling 'gen.out' -> 'r.in': int port feeds real port"},
      {3, "it asked to add a model in the instant 'top.bad' removed it"},
      {4, "removing a model outside a transition"},
      {5, "'top' already has a model called 'gen'"},
      {6, "there is no coupling 'gen' port 0 -> 'victim' port 0 in 'top'"},
      {7, "the coupling 'gen.out' -> 'victim.in' exists already"},
      {8, "removing 'top': the root cannot be removed"},
      {9, "'gen' has no output port 'nope'"},
      {10, "it asked to connect in the instant 'top.bad' removed it"},
  };
  for (size_t k = 0; k < COUNT(cases); k++) {
    cdevs_model *root = cdevs_root_new(NULL, "top");
    cdevs_model *gen = cdevs_atomic_add(root, "gen", &gen_ops, NULL);
    cdevs_model *victim = cdevs_atomic_add(root, "victim", &sink_ops, NULL);
    bad_state b = {cases[k].which, root, victim, gen};
    if (cases[k].which == 10) {
      bad_state rm = {0, root, NULL, gen};
      cdevs_model *bad = cdevs_atomic_add(root, "bad", &bad_ops, &rm);
      (void)bad;
      bad_state ask = {0, root, victim, gen};
      cdevs_model *asker = cdevs_atomic_add(root, "asker", &asker_ops, &ask);
      /* bad removes the asker: its state's `other` is set after the tree is built */
      cdevs_sim *sim = NULL;
      int built = cdevs_sim_new(root, NULL, &sim) == CDEVS_OK;
      CHECK(built);
      if (built) {
        bad_state *bs = cdevs_sim_state(sim, bad);
        bs->which = 1, bs->other = asker; /* removes the asker (once: the second removal comes after the error) */
        cdevs_status st = cdevs_sim_run(sim, 10.0);
        const char *msg = cdevs_sim_errmsg(sim);
        CHECK(st != CDEVS_OK && strstr(msg, cases[k].want) != NULL);
        if (!strstr(msg, cases[k].want)) fprintf(stderr, "  case %d: '%s'\n", cases[k].which, msg);
      }
      cdevs_sim_free(sim);
      cdevs_model_free(root);
      continue;
    }
    cdevs_atomic_add(root, "bad", &bad_ops, &b);
    cdevs_sim *sim = NULL;
    int built = cdevs_sim_new(root, NULL, &sim) == CDEVS_OK;
    CHECK(built);
    if (built) {
      cdevs_status st = cdevs_sim_run(sim, 10.0);
      const char *msg = cdevs_sim_errmsg(sim);
      CHECK(st != CDEVS_OK && strstr(msg, cases[k].want) != NULL);
      CHECK(strstr(msg, "t=1:") != NULL || strstr(msg, "t=1 ") != NULL);
      if (!strstr(msg, cases[k].want)) fprintf(stderr, "  case %d: '%s'\n", cases[k].which, msg);
      /* the run stays stopped, its states kept */
      CHECK(cdevs_sim_run(sim, 20.0) != CDEVS_OK);
      CHECK(cdevs_sim_state(sim, gen) != NULL);
    }
    cdevs_sim_free(sim);
    cdevs_model_free(root);
  }
  { /* A model replacing itself (its successor asked for before its removal) runs on. */
    cdevs_model *root = cdevs_root_new(NULL, "top");
    cdevs_model *gen = cdevs_atomic_add(root, "gen", &gen_ops, NULL);
    bad_state b = {11, root, NULL, gen};
    cdevs_atomic_add(root, "bad", &bad_ops, &b);
    cdevs_sim *sim = NULL;
    int built = cdevs_sim_new(root, NULL, &sim) == CDEVS_OK;
    CHECK(built);
    if (built) {
      CHECK(cdevs_sim_run(sim, 10.0) == CDEVS_OK);
      CHECK(cdevs_model_child(root, "bad") == NULL && cdevs_model_child(root, "heir") != NULL);
    }
    cdevs_sim_free(sim);
    cdevs_model_free(root);
  }
  /* A tree shared by two simulators cannot change. */
  cdevs_model *root = cdevs_root_new(NULL, "top");
  cdevs_model *gen = cdevs_atomic_add(root, "gen", &gen_ops, NULL);
  cdevs_model *victim = cdevs_atomic_add(root, "victim", &sink_ops, NULL);
  bad_state b = {8, root, victim, gen};
  b.which = 1;
  cdevs_atomic_add(root, "bad", &bad_ops, &b);
  cdevs_sim *s1 = NULL, *s2 = NULL;
  int built = cdevs_sim_new(root, NULL, &s1) == CDEVS_OK && cdevs_sim_new(root, NULL, &s2) == CDEVS_OK;
  CHECK(built);
  if (built) {
    CHECK(cdevs_sim_run(s1, 10.0) != CDEVS_OK);
    CHECK(strstr(cdevs_sim_errmsg(s1), "the model tree is shared by 2 simulators") != NULL);
  }
  cdevs_sim_free(s1);
  cdevs_sim_free(s2);
  cdevs_model_free(root);
}

/* ---- random changes against a mirror of the tree -------------------------------------
 * A random tree of coupled models (ports in0, in1, out0, out1) and nodes (atomic, the
 * same ports) is changed at every integer time by a driver: couplings made and unmade
 * in random coupled models (EIC, IC, EOC), nodes added, nodes and coupled models
 * removed. The test keeps its own copy of the tree and works out, with its own
 * recursive walk, where each node's outputs must arrive; at the next integer time
 * every node emits serial*2 + port on both outputs, and what each node receives (and
 * what reaches the root's outputs, and where the root's input goes) must be exactly
 * that multiset. The routes the kernel updates change by change must agree with routes
 * computed from scratch. */
enum { MX_MODELS = 600, MX_COUPLINGS = 4000, MX_LOG = 400000 };
typedef struct mx_model {
  cdevs_model *h;
  int parent, atomic, alive, serial;
} mx_model;
typedef struct mx_coupling {
  int parent, src, sport, dst, dport, alive; /* src/dst: a model index, or -1 for the parent */
} mx_coupling;
typedef struct mx_rec {
  int t, to, port, value; /* to: a node's serial, or -1 for the root's output */
} mx_rec;
typedef struct mx_world {
  mx_model m[MX_MODELS];
  int nm;
  mx_coupling c[MX_COUPLINGS];
  int nc;
  mx_rec log[MX_LOG];
  long nlog;
  uint64_t rng;
  int serials, steps, changes_per_step;
  long changes;
  cdevs_model *driver_h;
  int overflow;
} mx_world;
static mx_world *mx;

static uint32_t mx_rand(uint32_t n) {
  mx->rng = mx->rng * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)((mx->rng >> 33) % n);
}
static void mx_log(int t, int to, int port, int value) {
  if (mx->nlog == MX_LOG) {
    mx->overflow = 1;
    return;
  }
  mx->log[mx->nlog++] = (mx_rec){t, to, port, value};
}

static const cdevs_port_def node_in[] = {{"in0", CDEVS_INT}, {"in1", CDEVS_INT}, {NULL, CDEVS_ANY}};
static const cdevs_port_def node_out[] = {{"out0", CDEVS_INT}, {"out1", CDEVS_INT}, {NULL, CDEVS_ANY}};
typedef struct node_state {
  int serial;
} node_state;
static int node_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  ((node_state *)state)->serial = *(const int *)arg;
  return 0;
}
static double node_ta(const void *state) {
  (void)state;
  return 1.0;
}
static void node_output(cdevs_ctx *cx, const void *state) {
  const node_state *s = state;
  cdevs_emit_int(cx, 0, s->serial * 2);
  cdevs_emit_int(cx, 1, s->serial * 2 + 1);
}
static void node_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  const node_state *s = state;
  for (size_t i = 0; i < x->n; i++)
    mx_log((int)cdevs_ctx_time(cx), s->serial, x->events[i].port, (int)x->events[i].value->u.integer);
}
static void node_conf(cdevs_ctx *cx, void *state, const cdevs_bag *x) { node_ext(cx, state, 0, x); }
static void node_int(cdevs_ctx *cx, void *state) { (void)cx, (void)state; }
static const cdevs_atomic_ops node_ops = {.type = "Node", .state_size = sizeof(node_state), .arg_size = sizeof(int),
                                          .inputs = node_in, .outputs = node_out, .init = node_init, .ta = node_ta,
                                          .output = node_output, .delta_int = node_int, .delta_ext = node_ext,
                                          .delta_conf = node_conf};

static int mx_add(int parent, int atomic, cdevs_model *h) {
  mx_model *x = &mx->m[mx->nm];
  x->h = h, x->parent = parent, x->atomic = atomic, x->alive = 1, x->serial = atomic ? mx->serials++ : -1;
  return mx->nm++;
}
/* Model i is j or inside it. */
static int mx_inside(int i, int j) {
  for (; i >= 0; i = mx->m[i].parent)
    if (i == j) return 1;
  return 0;
}
static int mx_live(int i) {
  for (; i >= 0; i = mx->m[i].parent)
    if (!mx->m[i].alive) return 0;
  return 1;
}
static const char *mx_port(int dir_in, int p) { return dir_in ? (p ? "in1" : "in0") : (p ? "out1" : "out0"); }

/* Appends to a list the ends (serial*2 + port, or -1 - port for the root's outputs)
 * reached from end (src, port) of coupled model m: src -1 is m's input. */
static void mx_follow(int m, int src, int port, int *out, int *n) {
  for (int k = 0; k < mx->nc; k++) {
    const mx_coupling *c = &mx->c[k];
    if (!c->alive || c->parent != m || c->src != src || c->sport != port) continue;
    if (c->dst < 0) {
      if (mx->m[m].parent < 0)
        out[(*n)++] = -1 - c->dport;
      else
        mx_follow(mx->m[m].parent, m, c->dport, out, n);
    } else if (mx->m[c->dst].atomic) {
      out[(*n)++] = mx->m[c->dst].serial * 2 + c->dport;
    } else {
      mx_follow(c->dst, -1, c->dport, out, n);
    }
  }
}

/* A random change of the mirror, requested of the kernel too. */
static void mx_change(cdevs_ctx *cx) {
  int kind = (int)mx_rand(10);
  int coupled[MX_MODELS], nco = 0;
  for (int i = 0; i < mx->nm; i++)
    if (!mx->m[i].atomic && mx_live(i)) coupled[nco++] = i;
  int P = coupled[mx_rand((uint32_t)nco)];
  int kids[MX_MODELS], nk = 0;
  for (int i = 1; i < mx->nm; i++) /* (not the driver, model 0, which has no ports) */
    if (mx->m[i].parent == P && mx->m[i].alive) kids[nk++] = i;
  if (kind < 4 && mx->nc < MX_COUPLINGS) { /* connect */
    int from = mx_rand((uint32_t)nk + 1) == 0 || !nk ? -1 : kids[mx_rand((uint32_t)nk)];
    int to = mx_rand((uint32_t)nk + 1) == 0 || !nk ? -1 : kids[mx_rand((uint32_t)nk)];
    if (from == to) return;
    int fp = (int)mx_rand(2), tp = (int)mx_rand(2);
    for (int k = 0; k < mx->nc; k++) {
      const mx_coupling *c = &mx->c[k];
      if (c->alive && c->parent == P && c->src == from && c->sport == fp && c->dst == to && c->dport == tp) return;
    }
    mx->c[mx->nc++] = (mx_coupling){P, from, fp, to, tp, 1};
    cdevs_model *ph = mx->m[P].h;
    cdevs_ctx_connect(cx, ph, from < 0 ? ph : mx->m[from].h, mx_port(from < 0, fp), to < 0 ? ph : mx->m[to].h,
                      mx_port(to >= 0, tp));
  } else if (kind < 6) { /* disconnect */
    int live[MX_COUPLINGS], nl = 0;
    for (int k = 0; k < mx->nc; k++)
      if (mx->c[k].alive && mx_live(mx->c[k].parent)) live[nl++] = k;
    if (!nl) return;
    mx_coupling *c = &mx->c[live[mx_rand((uint32_t)nl)]];
    c->alive = 0;
    cdevs_model *ph = mx->m[c->parent].h;
    cdevs_ctx_disconnect(cx, ph, c->src < 0 ? ph : mx->m[c->src].h, mx_port(c->src < 0, c->sport),
                         c->dst < 0 ? ph : mx->m[c->dst].h, mx_port(c->dst >= 0, c->dport));
  } else if (kind < 8 && mx->nm < MX_MODELS) { /* a node added */
    char name[32];
    snprintf(name, sizeof name, "n%d", mx->serials);
    int serial = mx->serials;
    cdevs_model *h = cdevs_ctx_add_atomic(cx, mx->m[P].h, name, &node_ops, &serial);
    if (h) mx_add(P, 1, h);
  } else if (nk) { /* a model removed, with its couplings (not the driver) */
    int victim = kids[mx_rand((uint32_t)nk)];
    if (mx_inside(0, victim)) return; /* (the driver stays) */
    mx->m[victim].alive = 0;
    for (int k = 0; k < mx->nc; k++)
      if (mx->c[k].parent == P && (mx->c[k].src == victim || mx->c[k].dst == victim)) mx->c[k].alive = 0;
    cdevs_ctx_remove(cx, mx->m[victim].h);
  }
  mx->changes++;
}

typedef struct driver_state {
  int step;
} driver_state;
static double driver_ta(const void *state) {
  return ((const driver_state *)state)->step < mx->steps ? 1.0 : INFINITY;
}
static void driver_int(cdevs_ctx *cx, void *state) {
  driver_state *s = state;
  for (int k = 0; k < mx->changes_per_step; k++) mx_change(cx);
  s->step++;
}
static const cdevs_atomic_ops driver_ops = {.type = "Driver", .state_size = sizeof(driver_state), .ta = driver_ta,
                                            .delta_int = driver_int};

static void mx_root_out(void *ud, double t, int port, const cdevs_value *v) {
  (void)ud;
  mx_log((int)t, -1, port, (int)v->u.integer);
}

/* What the mirror says arrives at the next instant: (to, port, value) triples. */
static long mx_expected(int t, mx_rec *out, long cap) {
  long n = 0;
  int dst[4096];
  for (int i = 0; i < mx->nm; i++) {
    if (!mx->m[i].atomic || !mx_live(i)) continue;
    for (int p = 0; p < 2; p++) {
      int nd = 0;
      mx_follow(mx->m[i].parent, i, p, dst, &nd);
      for (int k = 0; k < nd && n < cap; k++)
        out[n++] = dst[k] < 0 ? (mx_rec){t, -1, -1 - dst[k], mx->m[i].serial * 2 + p}
                              : (mx_rec){t, dst[k] / 2, dst[k] % 2, mx->m[i].serial * 2 + p};
    }
  }
  int nd = 0; /* the root's input in0, injected with -7 */
  mx_follow(1, -1, 0, dst, &nd);
  for (int k = 0; k < nd && n < cap; k++)
    out[n++] = dst[k] < 0 ? (mx_rec){t, -1, -1 - dst[k], -7} : (mx_rec){t, dst[k] / 2, dst[k] % 2, -7};
  return n;
}
static int cmp_rec(const void *pa, const void *pb) {
  const mx_rec *a = pa, *b = pb;
  if (a->to != b->to) return a->to < b->to ? -1 : 1;
  if (a->port != b->port) return a->port < b->port ? -1 : 1;
  return a->value < b->value ? -1 : (a->value > b->value);
}

static void test_random_changes(uint64_t seed, int steps, int per_step) {
  mx = calloc(1, sizeof *mx);
  mx_rec *want = calloc(MX_LOG, sizeof *want);
  if (!mx || !want) {
    CHECK(!"out of memory");
    free(mx), free(want);
    return;
  }
  mx->rng = seed, mx->steps = steps, mx->changes_per_step = per_step;
  cdevs_model *root = cdevs_root_new(NULL, "top");
  /* model 0 the driver, 1 the root: the driver sits in the root */
  mx->nm = 2;
  mx->m[0] = (mx_model){cdevs_atomic_add(root, "driver", &driver_ops, NULL), 1, 1, 1, -1};
  mx->m[1] = (mx_model){root, -1, 0, 1, -1};
  cdevs_port_add(root, CDEVS_IN, "in0", CDEVS_INT);
  cdevs_port_add(root, CDEVS_IN, "in1", CDEVS_INT);
  cdevs_port_add(root, CDEVS_OUT, "out0", CDEVS_INT);
  cdevs_port_add(root, CDEVS_OUT, "out1", CDEVS_INT);
  /* a random tree: coupled models three deep, nodes anywhere, random couplings */
  for (int k = 0; k < 40; k++) {
    int coupled[MX_MODELS], nco = 0;
    for (int i = 0; i < mx->nm; i++)
      if (!mx->m[i].atomic) coupled[nco++] = i;
    int P = coupled[mx_rand((uint32_t)nco)];
    int depth = 0;
    for (int i = P; mx->m[i].parent >= 0; i = mx->m[i].parent) depth++;
    char name[32];
    if (depth < 3 && mx_rand(3) == 0) {
      snprintf(name, sizeof name, "c%d", mx->nm);
      cdevs_model *h = cdevs_coupled_add(mx->m[P].h, name);
      for (int p = 0; p < 2; p++) {
        cdevs_port_add(h, CDEVS_IN, mx_port(1, p), CDEVS_INT);
        cdevs_port_add(h, CDEVS_OUT, mx_port(0, p), CDEVS_INT);
      }
      mx_add(P, 0, h);
    } else {
      snprintf(name, sizeof name, "n%d", mx->serials);
      int serial = mx->serials;
      mx_add(P, 1, cdevs_atomic_add(mx->m[P].h, name, &node_ops, &serial));
    }
  }
  for (int k = 0; k < 80; k++) { /* couplings, as mx_change makes them, before the run */
    int coupled[MX_MODELS], nco = 0;
    for (int i = 0; i < mx->nm; i++)
      if (!mx->m[i].atomic) coupled[nco++] = i;
    int P = coupled[mx_rand((uint32_t)nco)];
    int kids[MX_MODELS], nk = 0;
    for (int i = 0; i < mx->nm; i++)
      if (mx->m[i].parent == P) kids[nk++] = i;
    int from = !nk || mx_rand((uint32_t)nk + 1) == 0 ? -1 : kids[mx_rand((uint32_t)nk)];
    int to = !nk || mx_rand((uint32_t)nk + 1) == 0 ? -1 : kids[mx_rand((uint32_t)nk)];
    if (from == to || from == 0 || to == 0) continue;
    int fp = (int)mx_rand(2), tp = (int)mx_rand(2), dup = 0;
    for (int j = 0; j < mx->nc; j++) {
      const mx_coupling *c = &mx->c[j];
      dup |= c->parent == P && c->src == from && c->sport == fp && c->dst == to && c->dport == tp;
    }
    if (dup) continue;
    cdevs_model *ph = mx->m[P].h;
    if (cdevs_connect(ph, from < 0 ? ph : mx->m[from].h, mx_port(from < 0, fp), to < 0 ? ph : mx->m[to].h,
                      mx_port(to >= 0, tp)) == CDEVS_OK)
      mx->c[mx->nc++] = (mx_coupling){P, from, fp, to, tp, 1};
  }
  cdevs_sim *sim = NULL;
  int built = cdevs_sim_new(root, NULL, &sim) == CDEVS_OK;
  CHECK(built);
  if (!built) {
    fprintf(stderr, "  %s\n", cdevs_model_errmsg(root));
    cdevs_model_free(root);
    free(mx), free(want);
    return;
  }
  static const cdevs_observer obs = {NULL, NULL, mx_root_out, NULL};
  cdevs_sim_observe(sim, &obs, NULL);
  long bad_steps = 0, compared = 0;
  for (int t = 1; t <= steps + 1; t++) {
    /* the routes at t are those of the tree after the changes at t - 1 (the mirror now) */
    long nwant = mx_expected(t, want, MX_LOG);
    long from = mx->nlog;
    cdevs_value v = {.kind = CDEVS_INT, .u.integer = -7};
    if (!CHECK_RUN(cdevs_sim_inject(sim, t, 0, &v))) break;
    if (!CHECK_RUN(cdevs_sim_run(sim, t))) {
      fprintf(stderr, "  %s\n", cdevs_sim_errmsg(sim));
      break;
    }
    long ngot = mx->nlog - from;
    qsort(want, (size_t)nwant, sizeof *want, cmp_rec);
    qsort(mx->log + from, (size_t)ngot, sizeof *mx->log, cmp_rec);
    int same = ngot == nwant;
    for (long k = 0; same && k < ngot; k++) same = !cmp_rec(&want[k], &mx->log[from + k]);
    if (!same && !bad_steps)
      fprintf(stderr, "  seed %llu, t = %d: %ld events arrived, the mirror says %ld\n", (unsigned long long)seed, t,
              ngot, nwant);
    bad_steps += !same;
    compared += nwant;
    if (mx->nlog > MX_LOG / 2) mx->nlog = 0; /* (what was compared is not needed again) */
  }
  CHECK(!mx->overflow);
  CHECK_EQ_INT(bad_steps, 0);
  CHECK(mx->changes > (long)steps * per_step / 2);
  printf("random changes, seed %llu: %ld changes over %d instants, %ld deliveries compared, %d models\n",
         (unsigned long long)seed, mx->changes, steps, compared, mx->nm);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  free(mx), free(want);
}

int main(void) {
  test_population(5, 1);
  test_population(12, 0);
  test_rewiring();
  test_remove_coupled();
  test_misuses();
  for (uint64_t seed = 1; seed <= 6; seed++) test_random_changes(seed, 60, 1 + (int)(seed % 4));
  test_random_changes(7, 400, 6); /* (maps grown and shrunk, hundreds of models) */
  return check_report("test_structure");
}
