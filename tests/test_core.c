/* SPDX-License-Identifier: MIT */
/* Kernel tests: the experimental frame, the DEVSLib processor, concurrent events under
   Parallel and Classic DEVS, fan-out and fan-in, validation errors, messages, traces. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/cdevs.h"
#include "check.h"

/* ---- small test models ----------------------------------------------------------- */

/* Probe: an internal event at `first`, then passive; it logs its transitions. */
typedef struct probe_state {
  double sigma;
  char log[256];
} probe_state;

static const cdevs_port_def any_in[] = {{"in", CDEVS_ANY}, {NULL, CDEVS_ANY}};
static const cdevs_port_def real_out[] = {{"out", CDEVS_REAL}, {NULL, CDEVS_ANY}};

static int probe_init(cdevs_ctx *cx, void *st, const void *arg) {
  (void)cx;
  ((probe_state *)st)->sigma = *(const double *)arg;
  return 0;
}
static double probe_ta(const void *st) { return ((const probe_state *)st)->sigma; }
static void probe_log(probe_state *s, const char *fmt, double a, double b) {
  size_t n = strlen(s->log);
  snprintf(s->log + n, sizeof s->log - n, fmt, a, b);
}
static void probe_int(cdevs_ctx *cx, void *st) {
  probe_state *s = st;
  probe_log(s, "I@%g;", cdevs_ctx_time(cx), 0);
  s->sigma = INFINITY;
}
static void probe_ext(cdevs_ctx *cx, void *st, double e, const cdevs_bag *x) {
  (void)x;
  probe_state *s = st;
  probe_log(s, "E@%g,e=%g;", cdevs_ctx_time(cx), e);
  s->sigma -= e; /* an input does not cancel the pending internal event */
}
static const cdevs_atomic_ops probe_ops = {
    .type = "Probe", .state_size = sizeof(probe_state), .arg_size = sizeof(double),
    .inputs = any_in, .init = probe_init, .ta = probe_ta, .delta_int = probe_int,
    .delta_ext = probe_ext};

/* Sink: counts external transitions and remembers its last bag. */
typedef struct sink_state {
  int n_ext, n_conf;
  size_t last_n;
  int ports[8];
  double values[8];
  double last_t;
  cdevs_msg *kept;
} sink_state;

static const cdevs_port_def sink_in[] = {{"a", CDEVS_ANY}, {"b", CDEVS_ANY}, {NULL, CDEVS_ANY}};
static double passive_ta(const void *st) {
  (void)st;
  return INFINITY;
}
static void sink_ext(cdevs_ctx *cx, void *st, double e, const cdevs_bag *x) {
  (void)e;
  sink_state *s = st;
  s->n_ext++;
  s->last_n = x->n;
  s->last_t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n && i < 8; i++) {
    s->ports[i] = x->events[i].port;
    s->values[i] = cdevs_value_eval(x->events[i].value, 0.0);
    if (x->events[i].value->kind == CDEVS_MSG && !s->kept)
      s->kept = cdevs_msg_retain(x->events[i].value->u.msg);
  }
}
static void sink_fini(void *st) { cdevs_msg_release(((sink_state *)st)->kept); }
static const cdevs_atomic_ops sink_ops = {
    .type = "Sink", .state_size = sizeof(sink_state), .inputs = sink_in, .ta = passive_ta,
    .delta_ext = sink_ext, .fini = sink_fini};

/* Pinger: ta = 0 after every input, and it answers: two of them never stop. */
static const cdevs_port_def ping_out[] = {{"out", CDEVS_INT}, {NULL, CDEVS_ANY}};
static const cdevs_port_def ping_in[] = {{"in", CDEVS_INT}, {NULL, CDEVS_ANY}};
static double zero_ta(const void *st) { return *(const double *)st; }
static int ping_init(cdevs_ctx *cx, void *st, const void *arg) {
  (void)cx;
  *(double *)st = *(const int *)arg ? 0.0 : INFINITY;
  return 0;
}
static void ping_out_fn(cdevs_ctx *cx, const void *st) {
  (void)st;
  cdevs_emit_int(cx, 0, 1);
}
static void ping_int(cdevs_ctx *cx, void *st) {
  (void)cx;
  *(double *)st = INFINITY;
}
static void ping_ext(cdevs_ctx *cx, void *st, double e, const cdevs_bag *x) {
  (void)cx, (void)e, (void)x;
  *(double *)st = 0.0;
}
static const cdevs_atomic_ops ping_ops = {
    .type = "Ping", .state_size = sizeof(double), .arg_size = sizeof(int), .inputs = ping_in,
    .outputs = ping_out, .init = ping_init, .ta = zero_ta, .output = ping_out_fn,
    .delta_int = ping_int, .delta_ext = ping_ext};

/* ---- the experimental frame (Zeigler, Praehofer & Kim 2000) ---------------------------- */

static void efp_run(cdevs_mode mode, int genr_first, uint64_t *arrived, uint64_t *solved,
                    uint64_t *bailed, double *thru, double *ta) {
  cdevs_generator_params g = {1.0, 1.0};
  cdevs_processor_params p = {2.0};
  cdevs_transducer_params t = {100.5};
  cdevs_model *root = cdevs_efp_build(NULL, &g, &p, &t);
  cdevs_model *ef = cdevs_model_child(root, "ef"), *proc = cdevs_model_child(root, "proc");
  cdevs_model_set_priority(genr_first ? ef : proc, -1);
  cdevs_sim_opts o = cdevs_sim_opts_default();
  o.mode = mode;
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, &o, &sim), CDEVS_OK);
  CHECK_NEAR(cdevs_sim_next_time(sim), 1.0, 0);
  CHECK_EQ_INT(cdevs_sim_run(sim, INFINITY), CDEVS_OK);
  const cdevs_transducer_state *ts = cdevs_sim_state(sim, cdevs_model_child(ef, "transd"));
  const cdevs_processor_state *ps = cdevs_sim_state(sim, proc);
  *arrived = ts->arrived;
  *solved = ts->solved;
  *bailed = ps->bailed;
  *thru = cdevs_transducer_throughput(ts);
  *ta = cdevs_transducer_mean_turnaround(ts);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

static void test_efp(void) {
  uint64_t arrived, solved, bailed;
  double thru, ta;
  /* Jobs arrive at t = 1, 2, …, 100 (the window closes at 100.5). Parallel DEVS: when
     the processor finishes a job at t = 3, 5, … the next job arrives at that instant
     and δconf (δint, then δext) takes it, so the jobs of t = 1, 3, …, 99 are served,
     each in 2; those done by 100.5 are the 49 finishing at 3, 5, …, 99. The 50 jobs of
     even times arrive while it is busy and are dropped. */
  efp_run(CDEVS_PARALLEL, 0, &arrived, &solved, &bailed, &thru, &ta);
  CHECK_EQ_INT(arrived, 100);
  CHECK_EQ_INT(solved, 49);
  CHECK_EQ_INT(bailed, 50);
  CHECK_NEAR(thru, 49.0 / 100.5, 1e-15);
  CHECK_NEAR(ta, 2.0, 1e-15);
  /* Classic DEVS, processor first: it finishes before the new job arrives: the same. */
  efp_run(CDEVS_CLASSIC, 0, &arrived, &solved, &bailed, &thru, &ta);
  CHECK_EQ_INT(solved, 49);
  CHECK_EQ_INT(bailed, 50);
  /* Classic DEVS, generator first: the job of t = 3 finds the processor still busy and
     is dropped; the next one served is t = 4. Served: t = 1, 4, 7, …, 100 (34 jobs),
     finishing at 3 + 3k; 33 of them (k = 0..32) by 100.5; dropped: 100 − 34 = 66. */
  efp_run(CDEVS_CLASSIC, 1, &arrived, &solved, &bailed, &thru, &ta);
  CHECK_EQ_INT(arrived, 100);
  CHECK_EQ_INT(solved, 33);
  CHECK_EQ_INT(bailed, 66);
  CHECK_NEAR(thru, 33.0 / 100.5, 1e-15);
  CHECK_NEAR(ta, 2.0, 1e-15);
}

/* ---- the DEVSLib processor (SNE 18/2, Listings 1-3) ------------------------------------ */

typedef struct out_log {
  int n;
  double t[8];
  int64_t v[8];
} out_log;

static void log_root(void *ud, double t, int port, const cdevs_value *v) {
  (void)port;
  out_log *l = ud;
  if (l->n < 8) {
    l->t[l->n] = t;
    l->v[l->n] = v->u.integer;
  }
  l->n++;
}

static void test_devslib_processor(void) {
  cdevs_model *root = cdevs_root_new(NULL, "top");
  cdevs_port_add(root, CDEVS_IN, "in", CDEVS_INT);
  cdevs_port_add(root, CDEVS_OUT, "out", CDEVS_INT);
  cdevs_processor_params p = {1.0};
  cdevs_model *proc = cdevs_atomic_add(root, "processor", &cdevs_processor_ops, &p);
  cdevs_connect(root, root, "in", proc, "in");
  cdevs_connect(root, proc, "out", root, "out");
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
  out_log log = {0, {0}, {0}};
  cdevs_observer obs = {NULL, NULL, log_root, NULL};
  cdevs_sim_observe(sim, &obs, &log);
  CHECK(cdevs_sim_next_time(sim) == INFINITY);
  cdevs_value j1 = cdevs_int(1), j2 = cdevs_int(2);
  CHECK_EQ_INT(cdevs_sim_inject(sim, 0.0, 0, &j1), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_step(sim), CDEVS_OK);
  CHECK_NEAR(cdevs_sim_next_time(sim), 1.0, 0);
  CHECK_EQ_INT(cdevs_sim_inject(sim, 0.5, 0, &j2), CDEVS_OK);
  /* inputs at another time than those pending, or in the past, are refused */
  CHECK_EQ_INT(cdevs_sim_inject(sim, 0.25, 0, &j2), CDEVS_ETIME);
  CHECK_EQ_INT(cdevs_sim_step(sim), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_inject(sim, 0.25, 0, &j2), CDEVS_ETIME);
  CHECK_EQ_INT(cdevs_sim_inject(sim, 2.0, 0, &j2), CDEVS_ETIME); /* beyond next event (1) */
  CHECK_EQ_INT(cdevs_sim_run(sim, INFINITY), CDEVS_OK);
  /* one output, at t = 1, carrying the first job; the second was bailed */
  CHECK_EQ_INT(log.n, 1);
  CHECK_NEAR(log.t[0], 1.0, 0);
  CHECK_EQ_INT(log.v[0], 1);
  const cdevs_processor_state *ps = cdevs_sim_state(sim, proc);
  CHECK_EQ_INT(ps->received, 1);
  CHECK_EQ_INT(ps->bailed, 1);
  CHECK(cdevs_sim_next_time(sim) == INFINITY);
  CHECK_EQ_INT(cdevs_sim_step(sim), CDEVS_ESTATE);
  /* Listing 2's other case: two jobs in one bag while idle: the first is processed. */
  cdevs_value j3 = cdevs_int(3), j4 = cdevs_int(4);
  CHECK_EQ_INT(cdevs_sim_inject(sim, 5.0, 0, &j3), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_inject(sim, 5.0, 0, &j4), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_run(sim, 10.0), CDEVS_OK);
  CHECK_EQ_INT(log.n, 2);
  CHECK_NEAR(log.t[1], 6.0, 0);
  CHECK_EQ_INT(log.v[1], 3);
  CHECK_EQ_INT(ps->received, 2);
  CHECK_EQ_INT(ps->bailed, 2);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

/* Ticker: an internal event every `period`; each δint logs cdevs_ctx_horizon. */
typedef struct ticker_state {
  double period;
  int n;
  double t[8], h[8];
} ticker_state;
static int ticker_init(cdevs_ctx *cx, void *st, const void *arg) {
  (void)cx;
  ((ticker_state *)st)->period = *(const double *)arg;
  return 0;
}
static double ticker_ta(const void *st) { return ((const ticker_state *)st)->period; }
static void ticker_int(cdevs_ctx *cx, void *st) {
  ticker_state *s = st;
  if (s->n < 8) s->t[s->n] = cdevs_ctx_time(cx), s->h[s->n] = cdevs_ctx_horizon(cx), s->n++;
}
static const cdevs_atomic_ops ticker_ops = {.type = "Ticker", .state_size = sizeof(ticker_state),
                                            .arg_size = sizeof(double), .init = ticker_init,
                                            .ta = ticker_ta, .delta_int = ticker_int};
static void on_transition(void *ud, double t, uint32_t atomic, cdevs_transition kind, size_t bag, double tn) {
  (void)t, (void)atomic, (void)kind, (void)bag, (void)tn;
  ++*(int *)ud;
}

/* The horizon a model may step its own quiet events to: the next event of anything
 * else, or the end of the run; the current time when transitions are watched or the
 * simulator is stepped. A ticks at 1, 2, 3, 4; B at 2.5; the run ends at 4.2. */
static void test_horizon(void) {
  for (int mode = 0; mode < 3; mode++) { /* run; run with an observer; step */
    cdevs_model *root = cdevs_root_new(NULL, "h");
    double pa = 1.0, pb = 2.5;
    cdevs_model *a = cdevs_atomic_add(root, "A", &ticker_ops, &pa);
    cdevs_model *b = cdevs_atomic_add(root, "B", &ticker_ops, &pb);
    cdevs_sim *sim = NULL;
    CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
    int seen = 0;
    cdevs_observer obs = {NULL, on_transition, NULL, NULL};
    if (mode == 1) CHECK_EQ_INT(cdevs_sim_observe(sim, &obs, &seen), CDEVS_OK);
    if (mode == 2)
      while (cdevs_sim_next_time(sim) <= 4.2) CHECK_EQ_INT(cdevs_sim_step(sim), CDEVS_OK);
    else
      CHECK_EQ_INT(cdevs_sim_run(sim, 4.2), CDEVS_OK);
    const ticker_state *sa = cdevs_sim_state(sim, a), *sb = cdevs_sim_state(sim, b);
    static const double free_a[] = {2.5, 2.5, 4.2, 4.2};
    CHECK_EQ_INT(sa->n, 4);
    CHECK_EQ_INT(sb->n, 1);
    for (int k = 0; k < 4 && k < sa->n; k++) CHECK(sa->h[k] == (mode ? sa->t[k] : free_a[k]));
    CHECK(sb->h[0] == (mode ? 2.5 : 3.0));
    if (mode == 1) CHECK_EQ_INT(seen, 5);
    cdevs_sim_free(sim);
    cdevs_model_free(root);
  }
}

/* ---- the ModelicaDEVS two-block concurrent-event case --------------------------------- */

/* Block A (a generator with its first output at t = 3) feeds block B (a probe whose
   own internal event is also at t = 3). Returns B's log. */
static void two_blocks(cdevs_mode mode, int b_first, char *log, size_t size) {
  cdevs_model *root = cdevs_root_new(NULL, "two");
  cdevs_generator_params g = {3.0, 100.0};
  double b_at = 3.0;
  cdevs_model *a = cdevs_atomic_add(root, "A", &cdevs_generator_ops, &g);
  cdevs_model *b = cdevs_atomic_add(root, "B", &probe_ops, &b_at);
  cdevs_connect(root, a, "out", b, "in");
  if (b_first) cdevs_model_set_priority(b, -1);
  cdevs_sim_opts o = cdevs_sim_opts_default();
  o.mode = mode;
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, &o, &sim), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_run(sim, 10.0), CDEVS_OK);
  snprintf(log, size, "%s", ((probe_state *)cdevs_sim_state(sim, b))->log);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

static void test_concurrent_events(void) {
  char log[256];
  /* Parallel DEVS: B gets δconf, which by default is δint, then δext with e = 0 —
     internal before external, as ModelicaDEVS hard-codes it. */
  two_blocks(CDEVS_PARALLEL, 0, log, sizeof log);
  CHECK_STR(log, "I@3;E@3,e=0;");
  /* Parallel DEVS does not depend on priorities. */
  two_blocks(CDEVS_PARALLEL, 1, log, sizeof log);
  CHECK_STR(log, "I@3;E@3,e=0;");
  /* Classic, A before B: A's output reaches B first (δext, e = 3 since B's last
     transition at 0), then B, still imminent at 3, runs δint. */
  two_blocks(CDEVS_CLASSIC, 0, log, sizeof log);
  CHECK_STR(log, "E@3,e=3;I@3;");
  /* Classic, B before A: B's δint first, then A's output arrives with e = 0. */
  two_blocks(CDEVS_CLASSIC, 1, log, sizeof log);
  CHECK_STR(log, "I@3;E@3,e=0;");
}

/* ---- one-to-many and many-to-one in one instant ------------------------------------------ */

static void test_fan_out_fan_in(void) {
  cdevs_model *root = cdevs_root_new(NULL, "fan");
  /* one generator, inside a coupled model, feeding three sinks at three depths */
  cdevs_model *left = cdevs_coupled_add(root, "left");
  cdevs_port_add(left, CDEVS_OUT, "out", CDEVS_INT);
  cdevs_generator_params g1 = {1.0, 10.0}, g2 = {2.0, 10.0};
  cdevs_model *g = cdevs_atomic_add(left, "g", &cdevs_generator_ops, &g1);
  cdevs_connect(left, g, "out", left, "out");
  cdevs_model *s1 = cdevs_atomic_add(root, "s1", &sink_ops, NULL);
  cdevs_model *mid = cdevs_coupled_add(root, "mid");
  cdevs_port_add(mid, CDEVS_IN, "in", CDEVS_INT);
  cdevs_model *s2 = cdevs_atomic_add(mid, "s2", &sink_ops, NULL);
  cdevs_model *deep = cdevs_coupled_add(mid, "deep");
  cdevs_port_add(deep, CDEVS_IN, "in", CDEVS_INT);
  cdevs_model *s3 = cdevs_atomic_add(deep, "s3", &sink_ops, NULL);
  cdevs_connect(root, left, "out", s1, "a");
  cdevs_connect(root, left, "out", mid, "in");
  cdevs_connect(mid, mid, "in", s2, "b");
  cdevs_connect(mid, mid, "in", deep, "in");
  cdevs_connect(deep, deep, "in", s3, "a");
  /* three generators, all at t = 2, into one sink: two on port a, one on port b */
  cdevs_model *k = cdevs_atomic_add(root, "k", &sink_ops, NULL);
  const char *names[3] = {"h1", "h2", "h3"};
  for (int i = 0; i < 3; i++) {
    cdevs_model *h = cdevs_atomic_add(root, names[i], &cdevs_generator_ops, &g2);
    cdevs_connect(root, h, "out", k, i < 2 ? "a" : "b");
  }
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_OK);
  cdevs_model_counts mc;
  cdevs_model_counts_get(root, &mc);
  CHECK_EQ_INT(mc.atomics, 8);
  CHECK_EQ_INT(mc.coupled, 4);
  CHECK_EQ_INT(mc.eic, 3); /* mid.in → s2, mid.in → deep, deep.in → s3 */
  CHECK_EQ_INT(mc.ic, 5);
  CHECK_EQ_INT(mc.eoc, 1);
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
  cdevs_stats st;
  cdevs_sim_stats(sim, &st);
  CHECK_EQ_INT(st.fanout_edges, 6); /* g → s1, s2, s3; h1, h2, h3 → k */
  CHECK_EQ_INT(cdevs_sim_run(sim, 5.0), CDEVS_OK);
  const sink_state *a = cdevs_sim_state(sim, s1), *b = cdevs_sim_state(sim, s2),
                   *c = cdevs_sim_state(sim, s3), *kk = cdevs_sim_state(sim, k);
  CHECK_EQ_INT(a->n_ext, 1);
  CHECK_EQ_INT(b->n_ext, 1);
  CHECK_EQ_INT(c->n_ext, 1);
  CHECK_NEAR(a->last_t, 1.0, 0);
  CHECK_NEAR(c->last_t, 1.0, 0);
  CHECK_EQ_INT(a->ports[0], 0);
  CHECK_EQ_INT(b->ports[0], 1);
  /* fan-in: one δext with a bag of three, in emission order h1, h2, h3 */
  CHECK_EQ_INT(kk->n_ext, 1);
  CHECK_EQ_INT(kk->last_n, 3);
  CHECK_NEAR(kk->last_t, 2.0, 0);
  CHECK_EQ_INT(kk->ports[0], 0);
  CHECK_EQ_INT(kk->ports[1], 0);
  CHECK_EQ_INT(kk->ports[2], 1);
  cdevs_sim_stats(sim, &st);
  CHECK_EQ_INT(st.outputs, 4);
  CHECK_EQ_INT(st.deliveries, 6);
  CHECK_EQ_INT(st.externals, 4);
  CHECK_EQ_INT(st.internals, 4);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

/* ---- validation ---------------------------------------------------------------------------- */

/* Adds output ports p0..p(n-1) to a generator (after its own "out"), and with
 * every_other_in input ports p0, p2, … (after its own "stop"): how many were not
 * given the index their order says. */
static int add_ports(cdevs_model *a, int n, int every_other_in) {
  char nm[32];
  int bad = 0;
  for (int i = 0; i < n; i++) {
    snprintf(nm, sizeof nm, "p%d", i);
    bad += cdevs_port_add(a, CDEVS_OUT, nm, CDEVS_REAL) != i + 1;
    if (every_other_in && i % 2 == 0) bad += cdevs_port_add(a, CDEVS_IN, nm, CDEVS_REAL) != i / 2 + 1;
  }
  return bad;
}

static void test_validation(void) {
  cdevs_generator_params g = {1.0, 1.0};
  cdevs_model *root = cdevs_root_new(NULL, "v");
  cdevs_model *a = cdevs_atomic_add(root, "a", &cdevs_generator_ops, &g);
  cdevs_model *p = cdevs_atomic_add(root, "p", &probe_ops, &(double){1.0});
  CHECK_EQ_INT(cdevs_connect(root, a, "out", p, "nope"), CDEVS_ENAME);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "model 'v': coupling 'a.out' -> 'p.nope'");
  CHECK_CONTAINS(cdevs_model_errmsg(root), "'p' has no input port 'nope'");
  /* sticky: later calls do nothing and the first error stays */
  CHECK(cdevs_atomic_add(root, "b", &cdevs_generator_ops, &g) == NULL);
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_ENAME);
  cdevs_sim *sim = (cdevs_sim *)&g;
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_ENAME);
  CHECK(sim == NULL);
  cdevs_model_free(root);

  root = cdevs_root_new(NULL, "v");
  cdevs_model *c = cdevs_coupled_add(root, "c");
  cdevs_port_add(c, CDEVS_IN, "x", CDEVS_REAL);
  a = cdevs_atomic_add(root, "a", &cdevs_generator_ops, &g);
  CHECK_EQ_INT(cdevs_connect(root, a, "out", c, "x"), CDEVS_EKIND);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "'a.out' -> 'c.x': int port feeds real port");
  cdevs_model_free(root);

  root = cdevs_root_new(NULL, "v");
  c = cdevs_coupled_add(root, "c");
  CHECK(cdevs_coupled_add(c, "same") != NULL);
  CHECK(cdevs_atomic_add(c, "same", &sink_ops, NULL) == NULL);
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_ENAME);
  CHECK_STR(cdevs_model_errmsg(root), "model 'v.c': duplicate child name 'same'");
  cdevs_model_free(root);

  /* many children: the hashed name index still finds duplicates */
  root = cdevs_root_new(NULL, "v");
  char nm[16];
  for (int i = 0; i < 100; i++) {
    snprintf(nm, sizeof nm, "s%d", i);
    cdevs_atomic_add(root, nm, &sink_ops, NULL);
  }
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_OK);
  CHECK(cdevs_model_child(root, "s57") != NULL);
  CHECK(cdevs_atomic_add(root, "s57", &sink_ops, NULL) == NULL);
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_ENAME);
  cdevs_model_free(root);

  /* many ports: past 16 a list is hashed; each direction its own, the ops table's
   * ports ("stop" in, "out" out) among them, and every name found at the position
   * it was added */
  root = cdevs_root_new(NULL, "v");
  a = cdevs_atomic_add(root, "a", &cdevs_generator_ops, &g);
  CHECK_EQ_INT(add_ports(a, 3000, 1), 0);
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_OK);
  int bad_find = (cdevs_port_find(a, CDEVS_OUT, "out") != 0) + (cdevs_port_find(a, CDEVS_IN, "stop") != 0);
  for (int i = 0; i < 3000; i++) {
    snprintf(nm, sizeof nm, "p%d", i);
    bad_find += cdevs_port_find(a, CDEVS_OUT, nm) != i + 1;
    bad_find += cdevs_port_find(a, CDEVS_IN, nm) != (i % 2 == 0 ? i / 2 + 1 : CDEVS_ENAME);
  }
  CHECK_EQ_INT(bad_find, 0);
  CHECK_EQ_INT(cdevs_port_find(a, CDEVS_OUT, "p3000"), CDEVS_ENAME);
  CHECK_EQ_INT(cdevs_port_add(a, CDEVS_OUT, "out", CDEVS_REAL), CDEVS_ENAME);
  CHECK_STR(cdevs_model_errmsg(root), "model 'v.a': duplicate output port 'out'");
  cdevs_model_free(root);
  root = cdevs_root_new(NULL, "v");
  a = cdevs_atomic_add(root, "a", &cdevs_generator_ops, &g);
  CHECK_EQ_INT(add_ports(a, 100, 0), 0);
  CHECK_EQ_INT(cdevs_port_add(a, CDEVS_OUT, "p77", CDEVS_REAL), CDEVS_ENAME);
  CHECK_STR(cdevs_model_errmsg(root), "model 'v.a': duplicate output port 'p77'");
  cdevs_model_free(root);

  root = cdevs_root_new(NULL, "v");
  a = cdevs_atomic_add(root, "a", &cdevs_generator_ops, &g);
  cdevs_model *s = cdevs_atomic_add(root, "s", &sink_ops, NULL);
  CHECK_EQ_INT(cdevs_connect(root, a, "out", s, "a"), CDEVS_OK);
  CHECK_EQ_INT(cdevs_connect(root, a, "out", s, "a"), CDEVS_OK); /* found when flattening */
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_ECOUPLING);
  CHECK_STR(cdevs_model_errmsg(root), "model 'v': duplicate coupling 'a.out' -> 's.a'");
  cdevs_model_free(root);

  root = cdevs_root_new(NULL, "v");
  cdevs_model *q = cdevs_atomic_add(root, "q", &ping_ops, &(int){1});
  CHECK_EQ_INT(cdevs_connect(root, q, "out", q, "in"), CDEVS_ECOUPLING);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "feeds a model into itself");
  cdevs_model_free(root);

  /* couplings must stay inside the parent */
  root = cdevs_root_new(NULL, "v");
  c = cdevs_coupled_add(root, "c");
  a = cdevs_atomic_add(c, "a", &cdevs_generator_ops, &g);
  s = cdevs_atomic_add(root, "s", &sink_ops, NULL);
  CHECK_EQ_INT(cdevs_connect(root, a, "out", s, "a"), CDEVS_ECOUPLING);
  cdevs_model_free(root);
}

static double neg_ta(const void *st) {
  (void)st;
  return -1.0;
}
static const cdevs_atomic_ops neg_ops = {.type = "Neg", .ta = neg_ta};

static void fail_output(cdevs_ctx *cx, const void *st) {
  (void)st;
  cdevs_emit_int(cx, 0, 3); /* port "out" is real */
}
static double one_ta(const void *st) {
  (void)st;
  return 1.0;
}
static const cdevs_atomic_ops badkind_ops = {
    .type = "BadKind", .outputs = real_out, .ta = one_ta, .output = fail_output};

static void boom_int(cdevs_ctx *cx, void *st) {
  (void)st;
  cdevs_ctx_fail(cx, "sqrt of %g", -4.0);
}
static const cdevs_atomic_ops boom_ops = {.type = "Boom", .ta = one_ta, .delta_int = boom_int};

/* A root "r" holding one atomic model, run to t = 5, must stop with st and msg. */
static void run_error(const cdevs_atomic_ops *ops, const char *name, cdevs_status st,
                      const char *msg) {
  cdevs_model *root = cdevs_root_new(NULL, "r");
  cdevs_atomic_add(root, name, ops, NULL);
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_run(sim, 5.0), st);
  CHECK_STR(cdevs_sim_errmsg(sim), msg);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

static void test_run_errors(void) {
  cdevs_sim *sim = NULL;
  cdevs_model *root = cdevs_root_new(NULL, "r");
  cdevs_model *c = cdevs_coupled_add(root, "c");
  cdevs_atomic_add(c, "neg", &neg_ops, NULL);
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_ETIME);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "model 'r.c.neg': time advance -1 is negative");
  cdevs_model_free(root);

  /* the legitimacy guard names the models that keep the instant alive */
  root = cdevs_root_new(NULL, "r");
  cdevs_model *p1 = cdevs_atomic_add(root, "ping", &ping_ops, &(int){1});
  cdevs_model *p2 = cdevs_atomic_add(root, "pong", &ping_ops, &(int){0});
  cdevs_connect(root, p1, "out", p2, "in");
  cdevs_connect(root, p2, "out", p1, "in");
  cdevs_sim_opts o = cdevs_sim_opts_default();
  o.max_transitions_per_instant = 1000;
  CHECK_EQ_INT(cdevs_sim_new(root, &o, &sim), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_run(sim, 1.0), CDEVS_ELEGIT);
  CHECK_CONTAINS(cdevs_sim_errmsg(sim), "t=0: more than 1000 transitions at one instant");
  CHECK(strstr(cdevs_sim_errmsg(sim), "'r.ping'") || strstr(cdevs_sim_errmsg(sim), "'r.pong'"));
  cdevs_stats st;
  cdevs_sim_stats(sim, &st);
  /* each instant is ping's δint plus pong's δext (or the reverse): the guard trips
     at the end of the first instant that takes the count past 1000, i.e. at 1002 */
  CHECK_EQ_INT(st.internals + st.externals + st.confluents, 1002);
  CHECK_EQ_INT(cdevs_sim_step(sim), CDEVS_ELEGIT); /* stays stopped */
  cdevs_sim_free(sim);
  cdevs_model_free(root);

  run_error(&badkind_ops, "bad", CDEVS_EKIND,
            "t=1: model 'r.bad': int value on real output port 'out'");
  run_error(&boom_ops, "boom", CDEVS_EMODEL, "t=1: model 'r.boom': sqrt of -4");

  /* API misuse gets a status, not a crash */
  CHECK_EQ_INT(cdevs_sim_new(NULL, NULL, &sim), CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_sim_run(NULL, 1.0), CDEVS_EINVAL);
  CHECK(cdevs_coupled_add(NULL, "x") == NULL);
  CHECK(cdevs_root_new(NULL, "bad.name") == NULL);
  CHECK_STR(cdevs_strerror(CDEVS_ELEGIT),
            "too many transitions at one instant (illegitimate model)");
  cdevs_model_free(NULL);
  cdevs_sim_free(NULL);
}

/* ---- a tree in use is frozen ------------------------------------------------------------------ */

/* Changing a tree while a simulator built from it lives (whose arrays are sized and
 * indexed by the tree as flattened) is refused, located, and leaves the tree as it was;
 * once the simulator is freed the tree may change and be simulated again. */
/* A cdevs_sim_new that fails for a reason of its own (bad options here; running out of
 * memory, a model's init) says why in cdevs_model_errmsg but leaves the tree usable:
 * the next cdevs_sim_new with good options succeeds. It used to fail forever with the
 * first error, as if the tree were broken. */
static void test_sim_new_retry(void) {
  cdevs_model *root = cdevs_root_new(NULL, "r");
  cdevs_generator_params g = {1.0, 1.0};
  cdevs_atomic_add(root, "a", &cdevs_generator_ops, &g);
  cdevs_sim_opts o = cdevs_sim_opts_default();
  o.mode = (cdevs_mode)99;
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, &o, &sim), CDEVS_EINVAL);
  CHECK_STR(cdevs_model_errmsg(root), "model 'r': invalid simulator options (mode 99, t0 0)");
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
  if (sim) {
    CHECK_EQ_INT(cdevs_sim_run(sim, 2.5), CDEVS_OK);
    CHECK_NEAR(cdevs_sim_time(sim), 2.0, 0.0); /* the generator's events at 1, 2 */
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

/* cdevs_model_free while a simulator still reads the tree, or on a part of a tree, is
 * refused (the tree's error says why) instead of leaving dangling pointers; the
 * simulator runs on, and the tree is freed after it. */
static void test_free_in_use(void) {
  cdevs_model *root = cdevs_root_new(NULL, "u");
  cdevs_generator_params g = {1.0, 1.0};
  cdevs_model *a = cdevs_atomic_add(root, "a", &cdevs_generator_ops, &g);
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
  cdevs_model_free(a);
  cdevs_model_free(root);
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_EINVAL);
  CHECK_STR(cdevs_model_errmsg(root), "model 'u.a': cdevs_model_free takes a root (cdevs_root_new), not a part");
  if (sim) {
    CHECK_EQ_INT(cdevs_sim_run(sim, 3.5), CDEVS_OK);
    CHECK_NEAR(cdevs_sim_time(sim), 3.0, 0.0);
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  root = cdevs_root_new(NULL, "v");
  cdevs_atomic_add(root, "a", &cdevs_generator_ops, &g);
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
  cdevs_model_free(root);
  CHECK_EQ_INT(cdevs_model_status(root), CDEVS_ESTATE);
  CHECK_STR(cdevs_model_errmsg(root), "model 'v': cannot free the model tree: 1 simulator still uses it");
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

static void test_frozen_tree(void) {
  static const char *const want[4] = {
      "model 'f': cannot add model 'late': the model tree is in use by 1 simulator "
      "(cdevs_sim_new); free it first",
      "model 'f.b': cannot add port 'late': the model tree is in use by 1 simulator "
      "(cdevs_sim_new); free it first",
      "model 'f': cannot add a coupling from 'a': the model tree is in use by 2 simulators "
      "(cdevs_sim_new); free them first",
      "model 'f': cannot set the priority of 'b': the model tree is in use by 1 simulator "
      "(cdevs_sim_new); free it first"};
  for (int k = 0; k < 4; k++) {
    cdevs_model *root = cdevs_root_new(NULL, "f");
    cdevs_generator_params g = {1.0, 1.0};
    cdevs_model *a = cdevs_atomic_add(root, "a", &cdevs_generator_ops, &g);
    cdevs_model *b = cdevs_coupled_add(root, "b");
    cdevs_atomic_add(b, "p", &probe_ops, &(double){2.0});
    cdevs_port_add(b, CDEVS_IN, "in", CDEVS_ANY);
    cdevs_sim *sim = NULL, *sim2 = NULL;
    CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
    if (k == 2) CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim2), CDEVS_OK);
    if (k == 0) CHECK(cdevs_atomic_add(root, "late", &probe_ops, &(double){1.0}) == NULL);
    if (k == 1) CHECK_EQ_INT(cdevs_port_add(b, CDEVS_OUT, "late", CDEVS_ANY), CDEVS_ESTATE);
    if (k == 2) CHECK_EQ_INT(cdevs_connect(root, a, "out", b, "in"), CDEVS_ESTATE);
    if (k == 3) cdevs_model_set_priority(b, -1);
    CHECK_EQ_INT(cdevs_model_status(root), CDEVS_ESTATE);
    CHECK_STR(cdevs_model_errmsg(root), want[k]);
    cdevs_model_counts c;
    cdevs_model_counts_get(root, &c);
    CHECK_EQ_INT(c.atomics, 2);
    CHECK_EQ_INT(c.coupled, 2);
    CHECK_EQ_INT(c.ic, 0);
    CHECK_EQ_INT(cdevs_port_count(b, CDEVS_OUT), 0);
    CHECK_EQ_INT(cdevs_sim_run(sim, 10.0), CDEVS_OK); /* the simulator is unharmed */
    cdevs_sim_free(sim2);
    cdevs_sim_free(sim);
    cdevs_model_free(root);
  }
  /* freed simulators unfreeze the tree */
  cdevs_model *root = cdevs_root_new(NULL, "f");
  cdevs_atomic_add(root, "a", &probe_ops, &(double){1.0});
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
  cdevs_sim_free(sim);
  CHECK(cdevs_atomic_add(root, "b", &probe_ops, &(double){1.0}) != NULL);
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_atomic_count(sim), 2);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

/* ---- messages -------------------------------------------------------------------------------- */

static int destroyed;
static void payload_destroy(void *p) {
  (void)p;
  destroyed++;
}
static const cdevs_msg_type entity_type = {"Entity", payload_destroy};
static const cdevs_port_def msg_out[] = {{"out", CDEVS_MSG}, {NULL, CDEVS_ANY}};
static void msg_output(cdevs_ctx *cx, const void *st) {
  (void)st;
  cdevs_msg *m = cdevs_msg_new(cdevs_ctx_alloc(cx), &entity_type, sizeof(double));
  *(double *)cdevs_msg_data(m) = 42.0;
  cdevs_value v = cdevs_msgval(m);
  cdevs_emit(cx, 0, &v);
  cdevs_msg_release(m); /* the engine holds its own reference */
}
static void to_passive(cdevs_ctx *cx, void *st) {
  (void)cx;
  *(double *)st = INFINITY;
}
static int start_at_one(cdevs_ctx *cx, void *st, const void *arg) {
  (void)cx, (void)arg;
  *(double *)st = 1.0;
  return 0;
}
static const cdevs_atomic_ops msg_ops = {
    .type = "MsgSource", .state_size = sizeof(double), .outputs = msg_out, .init = start_at_one,
    .ta = zero_ta, .output = msg_output, .delta_int = to_passive};

static void test_messages(void) {
  destroyed = 0;
  cdevs_model *root = cdevs_root_new(NULL, "m");
  cdevs_model *src = cdevs_atomic_add(root, "src", &msg_ops, NULL);
  cdevs_model *k1 = cdevs_atomic_add(root, "k1", &sink_ops, NULL);
  cdevs_model *k2 = cdevs_atomic_add(root, "k2", &sink_ops, NULL);
  cdevs_connect(root, src, "out", k1, "a");
  cdevs_connect(root, src, "out", k2, "b");
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_run(sim, 10.0), CDEVS_OK);
  const sink_state *a = cdevs_sim_state(sim, k1), *b = cdevs_sim_state(sim, k2);
  CHECK(a->kept != NULL && a->kept == b->kept); /* one message, shared, not copied */
  CHECK_EQ_INT(cdevs_msg_refs(a->kept), 2);     /* the engine released its reference */
  CHECK_NEAR(*(double *)cdevs_msg_data(a->kept), 42.0, 0);
  CHECK_EQ_INT(destroyed, 0);
  cdevs_sim_free(sim); /* the sinks' fini release theirs */
  CHECK_EQ_INT(destroyed, 1);
  cdevs_model_free(root);

  cdevs_msg *arr = cdevs_array_new(NULL, 8);
  size_t n = 0;
  double *d = cdevs_array_data(arr, &n);
  CHECK_EQ_INT(n, 8);
  CHECK(d != NULL && d[7] == 0.0);
  cdevs_msg_release(arr);
  double c[4] = {1.0, 2.0, 0.5, -1.0};
  cdevs_value tv = cdevs_taylor(3, c);
  CHECK_NEAR(cdevs_value_eval(&tv, 2.0), 1.0 + 4.0 + 2.0 - 8.0, 0);
}

/* The C library's allocator, but freed blocks are overwritten and held back (as a
 * sanitizer's quarantine does), so that anything still read from them afterwards (a
 * function pointer in a freed simulator) is garbage even without a sanitizer. */
static void *quarantine[256];
static int nquarantine;
static void *scrubbing_realloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize == 0) {
    if (!ptr) return NULL;
    memset(ptr, 0xa5, osize);
    if (nquarantine < 256)
      quarantine[nquarantine++] = ptr;
    else
      free(ptr);
    return NULL;
  }
  return realloc(ptr, nsize);
}
static void quarantine_free(void) {
  while (nquarantine) free(quarantine[--nquarantine]);
}

static cdevs_msg *escaped;
static void keep_root_msg(void *ud, double t, int port, const cdevs_value *v) {
  (void)ud, (void)t, (void)port;
  if (v->kind == CDEVS_MSG && !escaped) escaped = cdevs_msg_retain(v->u.msg);
}

/* A message created with the simulator's allocator and kept by the caller outlives the
 * simulator: it must not need the freed simulator to free itself. */
static void test_message_outlives_sim(void) {
  destroyed = 0;
  escaped = NULL;
  const cdevs_alloc scrub = {scrubbing_realloc, NULL};
  cdevs_model *root = cdevs_root_new(&scrub, "m");
  cdevs_port_add(root, CDEVS_OUT, "out", CDEVS_MSG);
  cdevs_model *src = cdevs_atomic_add(root, "src", &msg_ops, NULL);
  cdevs_connect(root, src, "out", root, "out");
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
  static const cdevs_observer keep = {NULL, NULL, keep_root_msg, NULL};
  CHECK_EQ_INT(cdevs_sim_observe(sim, &keep, NULL), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_run(sim, 10.0), CDEVS_OK);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  CHECK(escaped != NULL);
  if (!escaped) return;
  CHECK_EQ_INT(cdevs_msg_refs(escaped), 1);
  CHECK_NEAR(*(double *)cdevs_msg_data(escaped), 42.0, 0);
  CHECK_EQ_INT(destroyed, 0);
  cdevs_msg_release(escaped);
  CHECK_EQ_INT(destroyed, 1);
  quarantine_free();
}

/* ---- traces are deterministic --------------------------------------------------------------- */

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  if (b && fread(b, 1, (size_t)n, f) != (size_t)n) n = 0;
  if (b) b[n] = '\0';
  fclose(f);
  return b;
}

static void trace_efp(const char *path) {
  cdevs_generator_params g = {1.0, 1.0};
  cdevs_processor_params p = {2.0};
  cdevs_transducer_params t = {10.5};
  cdevs_model *root = cdevs_efp_build(NULL, &g, &p, &t);
  cdevs_sim *sim = NULL;
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &sim), CDEVS_OK);
  cdevs_trace *tr = NULL;
  CHECK_EQ_INT(cdevs_trace_open(sim, path, &tr), CDEVS_OK);
  CHECK_EQ_INT(cdevs_sim_run(sim, INFINITY), CDEVS_OK);
  CHECK_EQ_INT(cdevs_trace_close(tr, 1), CDEVS_OK);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

static void test_trace(void) {
  trace_efp("trace_a.csv");
  trace_efp("trace_b.csv");
  char *a = slurp("trace_a.csv"), *b = slurp("trace_b.csv");
  CHECK(a && b && strcmp(a, b) == 0);
  /* The first instant, t = 1: genr emits job 0 (to proc and transd), then its δint,
     then proc and transd take the job by δext. */
  CHECK_CONTAINS(a, "time,event,model,port,value,bag,tn\n"
                    "1,output,efp.ef.genr,out,0,,\n"
                    "1,internal,efp.ef.genr,,,0,2\n");
  CHECK_CONTAINS(a, "1,external,efp.proc,,,1,3\n");
  CHECK_CONTAINS(a, "3,root_output,efp,solved,0,,\n");
  CHECK_CONTAINS(a, "3,confluent,efp.proc,,,1,5\n");
  free(a);
  free(b);
  remove("trace_a.csv");
  remove("trace_b.csv");
}

/* ---- direct sends (cdevs_send): to any model, without a coupling ---------------------- */

typedef struct ds_sender_state {
  uint32_t to; /* UINT32_MAX: not yet known */
  int port, fired, misuse;
  double value;
} ds_sender_state;
typedef struct ds_sink_state {
  int n;
  double sum, t;
} ds_sink_state;

static const cdevs_port_def ds_in[] = {{"a", CDEVS_REAL}, {"b", CDEVS_INT}, {NULL, CDEVS_ANY}};

static double sender_ta(const void *st) { return ((const ds_sender_state *)st)->fired ? INFINITY : 1.0; }
static void sender_out(cdevs_ctx *cx, const void *st) {
  const ds_sender_state *s = st;
  cdevs_value v = cdevs_real(s->value);
  cdevs_send(cx, s->to, s->port, &v);
}
static void sender_int(cdevs_ctx *cx, void *st) {
  ds_sender_state *s = st;
  s->fired = 1;
  if (s->misuse) { /* outside λ */
    cdevs_value v = cdevs_real(0);
    cdevs_send(cx, s->to, 0, &v);
  }
}
static double ds_passive(const void *st) {
  (void)st;
  return INFINITY;
}
static void ds_sink_ext(cdevs_ctx *cx, void *st, double e, const cdevs_bag *x) {
  (void)e;
  ds_sink_state *s = st;
  for (size_t i = 0; i < x->n; i++) s->sum += x->events[i].value->u.real, s->n++;
  s->t = cdevs_ctx_time(cx);
}
static const cdevs_atomic_ops sender_ops = {.type = "Sender", .state_size = sizeof(ds_sender_state),
                                            .arg_size = sizeof(ds_sender_state), .ta = sender_ta,
                                            .output = sender_out, .delta_int = sender_int};
static const cdevs_atomic_ops ds_sink_ops = {.type = "Sink", .state_size = sizeof(ds_sink_state), .inputs = ds_in,
                                          .ta = ds_passive, .delta_ext = ds_sink_ext};

static int sender_init(cdevs_ctx *cx, void *st, const void *arg) {
  (void)cx;
  memcpy(st, arg, sizeof(ds_sender_state));
  return 0;
}

static cdevs_status run_senders(ds_sender_state a, ds_sender_state b, ds_sink_state *got, char *err, size_t n) {
  cdevs_atomic_ops ops = sender_ops;
  ops.init = sender_init;
  cdevs_model *root = cdevs_root_new(NULL, "top");
  cdevs_model *deep = cdevs_coupled_add(cdevs_coupled_add(root, "x"), "y");
  cdevs_model *sink = cdevs_atomic_add(deep, "sink", &ds_sink_ops, NULL); /* id 0: added first */
  cdevs_atomic_add(root, "s1", &ops, &a);
  cdevs_atomic_add(root, "s2", &ops, &b);
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, NULL, &sim);
  if (st == CDEVS_OK) {
    st = cdevs_sim_run(sim, 10);
    memcpy(got, cdevs_sim_state(sim, sink), sizeof *got);
    snprintf(err, n, "%s", cdevs_sim_errmsg(sim));
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return st;
}

static void test_direct_send(void) {
  ds_sink_state got;
  char err[512];
  /* Two models send to one deep inside another coupled model, with no coupling at all:
     both values are in its bag at t = 1 (DEVSLib's two stages: send, then read). */
  ds_sender_state a = {0, 0, 0, 0, 2.5}, b = {0, 0, 0, 0, 4.0};
  CHECK_EQ_INT(run_senders(a, b, &got, err, sizeof err), CDEVS_OK);
  CHECK_EQ_INT(got.n, 2);
  CHECK_NEAR(got.sum, 6.5, 0);
  CHECK_NEAR(got.t, 1.0, 0);
  /* misuse: an input port that is not there, a kind the port does not take, a send
     outside λ, a model that is not there */
  ds_sender_state bad_port = {0, 5, 0, 0, 1}, bad_kind = {0, 1, 0, 0, 1}, outside = {0, 0, 0, 1, 1},
               nobody = {77, 0, 0, 0, 1};
  CHECK(run_senders(bad_port, b, &got, err, sizeof err) == CDEVS_EINVAL);
  CHECK_CONTAINS(err, "input port 5");
  CHECK(run_senders(bad_kind, b, &got, err, sizeof err) == CDEVS_EKIND);
  CHECK_CONTAINS(err, "real value sent to int input port 'b' of 'top.x.y.sink'");
  CHECK(run_senders(outside, b, &got, err, sizeof err) == CDEVS_ESTATE);
  CHECK_CONTAINS(err, "outside the output function");
  CHECK(run_senders(nobody, b, &got, err, sizeof err) == CDEVS_EINVAL);
  CHECK_CONTAINS(err, "to model 77");
}

/* ---- zero time advances: the batch of one instant ------------------------------------------
 * Relays that get an input answer after ta = 0 (a zero-delay model's every event):
 * their internal transitions in the next instant at the same time run in id order
 * whatever order the inputs reached them in (the couplings are made in reverse), as a
 * heap of (t, id) orders them, and their outputs reach the collector in that order;
 * a model whose own time advance ends at that same instant joins them in id order. */
typedef struct relay_state {
  double sigma;
  int64_t tag;
} relay_state;
static int relay_init(cdevs_ctx *cx, void *st, const void *arg) {
  (void)cx;
  relay_state *s = st;
  s->sigma = *(const double *)arg;
  s->tag = isinf(s->sigma) ? 0 : 100; /* the ones with a time of their own: 100 + id */
  return 0;
}
static double relay_ta(const void *st) { return ((const relay_state *)st)->sigma; }
static void relay_out(cdevs_ctx *cx, const void *st) {
  cdevs_emit_int(cx, 0, ((const relay_state *)st)->tag + (int64_t)cdevs_ctx_self(cx));
}
static void relay_int(cdevs_ctx *cx, void *st) {
  (void)cx;
  ((relay_state *)st)->sigma = INFINITY;
}
static void relay_ext(cdevs_ctx *cx, void *st, double e, const cdevs_bag *x) {
  (void)cx, (void)e, (void)x;
  ((relay_state *)st)->sigma = 0.0;
}
static const cdevs_atomic_ops relay_ops = {.type = "Relay",
                                           .state_size = sizeof(relay_state),
                                           .arg_size = sizeof(double),
                                           .inputs = ping_in,
                                           .outputs = ping_out,
                                           .init = relay_init,
                                           .ta = relay_ta,
                                           .output = relay_out,
                                           .delta_int = relay_int,
                                           .delta_ext = relay_ext};
typedef struct order_log {
  double t[64];
  uint32_t id[64];
  int n;
  int64_t got[64];
  int ngot;
} order_log;
static void order_transition(void *ud, double t, uint32_t atomic, cdevs_transition kind, size_t bag, double tn) {
  (void)bag, (void)tn;
  order_log *l = ud;
  if (kind == CDEVS_INTERNAL && l->n < 64) l->t[l->n] = t, l->id[l->n++] = atomic;
}
typedef struct collect_state {
  order_log *log;
} collect_state;
static int collect_init(cdevs_ctx *cx, void *st, const void *arg) {
  (void)cx;
  ((collect_state *)st)->log = *(order_log *const *)arg;
  return 0;
}
static void collect_ext(cdevs_ctx *cx, void *st, double e, const cdevs_bag *x) {
  (void)cx, (void)e;
  order_log *l = ((collect_state *)st)->log;
  for (size_t k = 0; k < x->n && l->ngot < 64; k++) l->got[l->ngot++] = x->events[k].value->u.integer;
}
static const cdevs_atomic_ops collect_ops = {.type = "Collect",
                                             .state_size = sizeof(collect_state),
                                             .arg_size = sizeof(order_log *),
                                             .inputs = ping_in,
                                             .init = collect_init,
                                             .ta = passive_ta,
                                             .delta_ext = collect_ext};

static void test_zero_ta_order(void) {
  cdevs_model *root = cdevs_root_new(NULL, "top");
  double one = 1.0, two = 2.0, never = INFINITY;
  cdevs_model *src = cdevs_atomic_add(root, "src", &relay_ops, &one); /* id 0: emits at 1 */
  cdevs_model *r[6];
  for (int k = 0; k < 6; k++) {
    char nm[8];
    snprintf(nm, sizeof nm, "r%d", k);
    /* r3 also ends its own time advance at 1 (from its start, in the heap): it takes
     * its input there in a confluent transition, then joins the batch. r5's own time
     * (2) is replaced by its input's ta = 0. */
    r[k] = cdevs_atomic_add(root, nm, &relay_ops, k == 3 ? &one : k == 5 ? &two : &never);
  }
  order_log log;
  memset(&log, 0, sizeof log);
  order_log *lp = &log;
  cdevs_model *col = cdevs_atomic_add(root, "col", &collect_ops, &lp);
  for (int k = 5; k >= 0; k--) cdevs_connect(root, src, "out", r[k], "in"); /* deliveries in reverse id order */
  for (int k = 0; k < 6; k++) cdevs_connect(root, r[k], "out", col, "in");
  cdevs_sim *sim = NULL;
  CHECK(cdevs_sim_new(root, NULL, &sim) == CDEVS_OK);
  static const cdevs_observer obs = {NULL, order_transition, NULL, NULL};
  if (sim && CHECK_RUN(cdevs_sim_observe(sim, &obs, &log)) && CHECK_RUN(cdevs_sim_run(sim, 10.0))) {
    /* Ids: src 0, r0..r5 1..6, col 7. t=1: src's internal (r3's is confluent); then
     * at 1 again the batch, r3 first in, then r5 .. r0 as the inputs came: run in id
     * order. */
    static const uint32_t want[] = {0, 1, 2, 3, 4, 5, 6};
    CHECK(log.n == 7);
    for (int k = 0; k < log.n && k < 7; k++) {
      CHECK(log.t[k] == 1.0);
      CHECK(log.id[k] == want[k]);
    }
    /* the collector (src is not coupled to it): r3's 104 in the first instant, then
     * the batch's outputs in id order (r3 and r5 with their tags of 100) */
    static const int64_t got[] = {104, 1, 2, 3, 104, 5, 106};
    CHECK(log.ngot == 7);
    for (int k = 0; k < log.ngot && k < 7; k++) CHECK(log.got[k] == got[k]);
    CHECK(isinf(cdevs_sim_next_time(sim)));
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
}

int main(void) {
  test_zero_ta_order();
  test_efp();
  test_devslib_processor();
  test_concurrent_events();
  test_fan_out_fan_in();
  test_validation();
  test_run_errors();
  test_frozen_tree();
  test_sim_new_retry();
  test_free_in_use();
  test_messages();
  test_message_outlives_sim();
  test_direct_send();
  test_horizon();
  test_trace();
  return check_report("test_core");
}
