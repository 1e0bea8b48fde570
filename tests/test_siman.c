/* SPDX-License-Identifier: MIT */
/* SIMAN's separate blocks: Queue → Seize → Delay → Release give the fused Process's
 * statistics bit for bit; M/M/1 and priority queueing theory; the manufacturing line of
 * the seed's Fig. 4 against its traffic equations; queue rules, balking, Branch, Count
 * and Tally on hand-derived numbers; bad models; allocation failures. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/cdevs.h"
#include "check.h"
#include "test_util.h"

/* ---- helpers ---------------------------------------------------------------------- */

static cdevs_dist dist(int kind, double a, double b) {
  cdevs_dist d;
  double p[2] = {a, b};
  if (cdevs_dist_make(&d, kind, p, cdevs_dist_arity(kind), NULL, 0) != CDEVS_OK) abort();
  return d;
}
static cdevs_dist expo(double mean) { return dist(CDEVS_DIST_EXPONENTIAL, mean, 0); }
static cdevs_dist constant(double c) { return dist(CDEVS_DIST_CONSTANT, c, 0); }
static cdevs_dist uniform(double a, double b) { return dist(CDEVS_DIST_UNIFORM, a, b); }

static cdevs_model *block(cdevs_model *parent, const char *name, const cdevs_atomic_ops *ops, const void *arg) {
  return cdevs_atomic_add(parent, name, ops, arg);
}

/* from.port → to.in inside root */
static void wire(cdevs_model *root, cdevs_model *from, const char *port, cdevs_model *to) {
  cdevs_connect(root, from, port, to, "in");
}

/* The summary of a statistic, or a failed check (all NaN) if there is none. */
static cdevs_stat_info stat_of(cdevs_proc *p, const char *owner, const char *name, double t_end) {
  cdevs_stat_info in;
  memset(&in, 0, sizeof in);
  in.s.avg = in.s.half_width = NAN;
  long i = cdevs_proc_stat_find(p, owner, name);
  if (i < 0) {
    fprintf(stderr, "no statistic %s.%s\n", owner, name);
    CHECK(i >= 0);
    return in;
  }
  cdevs_proc_stat(p, (size_t)i, t_end, &in);
  return in;
}
static double avg_of(cdevs_proc *p, const char *owner, const char *name, double t_end) {
  return stat_of(p, owner, name, t_end).s.avg;
}
static long long count_of(cdevs_proc *p, const char *owner, const char *name, double t_end) {
  return (long long)stat_of(p, owner, name, t_end).s.count;
}

/* Equal bits, NaN equal to NaN (a half-width that could not be given). */
static int same(double a, double b) { return a == b || (isnan(a) && isnan(b)); }

/* Every field of two summaries the same; prints the first difference. */
static int same_summary(const char *what, const cdevs_stat_summary *a, const cdevs_stat_summary *b) {
  struct {
    const char *name;
    double x, y;
  } f[] = {{"avg", a->avg, b->avg},       {"min", a->min, b->min},
           {"max", a->max, b->max},       {"final", a->final, b->final},
           {"stddev", a->stddev, b->stddev}, {"half_width", a->half_width, b->half_width},
           {"count", (double)a->count, (double)b->count}, {"hw_status", a->hw_status, b->hw_status},
           {"batches", a->batches, b->batches}};
  for (size_t k = 0; k < COUNT(f); k++)
    if (!same(f[k].x, f[k].y)) {
      fprintf(stderr, "%s.%s: %.17g != %.17g\n", what, f[k].name, f[k].x, f[k].y);
      return 0;
    }
  return 1;
}

/* ---- M/M/1: the fused Process against Queue → Seize → Delay → Release --------------- */

/* Customers arrive Poisson with mean interarrival 1.25 (λ = 0.8) and are served, one at
 * a time, for Exponential(1) (μ = 1). `separate` builds the server from the four SIMAN
 * blocks, whose Delay draws from the Process's stream "server.delay" and whose Queue
 * is named as the Process's is. Runs to t_end with the Create's first arrival at t = 0;
 * returns the process elements (NULL if the run failed). */
static cdevs_proc *mm1(int separate, double t_end, uint64_t rep, uint64_t *transitions) {
  cdevs_proc_opts o = cdevs_proc_opts_default();
  o.span = t_end;
  o.replication = rep;
  cdevs_proc *p = cdevs_proc_new(NULL, &o);
  if (!p || cdevs_proc_resource(p, "server", 1) < 0) abort();
  cdevs_model *root = cdevs_root_new(NULL, "mm1");
  cdevs_create_params cp = {p, "Customer", expo(1.25), 1, 0, 0};
  cdevs_dispose_params dp = {p};
  cdevs_model *arrive = block(root, "arrive", &cdevs_create_ops, &cp);
  cdevs_model *leave = block(root, "leave", &cdevs_dispose_ops, &dp);
  if (!separate) {
    cdevs_process_params pp = {p, CDEVS_SEIZE_DELAY_RELEASE, "server", 1, 0, expo(1), CDEVS_VA, CDEVS_FIFO, NULL, 0};
    cdevs_model *server = block(root, "server", &cdevs_process_ops, &pp);
    wire(root, arrive, "out", server);
    wire(root, server, "out", leave);
  } else {
    cdevs_siman_queue_params qp = {p, "server.Queue", CDEVS_FIFO, NULL, 0};
    cdevs_siman_seize_params sp = {p, "server", 1, 0};
    cdevs_siman_delay_params yp = {p, expo(1), CDEVS_VA, "server"};
    cdevs_siman_release_params rp = {p, "server", 1};
    cdevs_model *q = block(root, "queue", &cdevs_siman_queue_ops, &qp);
    cdevs_model *s = block(root, "seize", &cdevs_siman_seize_ops, &sp);
    cdevs_model *d = block(root, "delay", &cdevs_siman_delay_ops, &yp);
    cdevs_model *r = block(root, "release", &cdevs_siman_release_ops, &rp);
    wire(root, arrive, "out", q);
    wire(root, q, "out", s);
    wire(root, s, "out", d);
    wire(root, d, "out", r);
    wire(root, r, "out", leave);
  }
  cdevs_sim *sim = NULL;
  int ok = CHECK_RUN(cdevs_sim_new(root, NULL, &sim)) && CHECK_RUN(cdevs_sim_run(sim, t_end));
  if (!ok && sim) fprintf(stderr, "%s\n", cdevs_sim_errmsg(sim));
  if (!ok && !sim) fprintf(stderr, "%s\n", cdevs_model_errmsg(root));
  cdevs_stats st;
  if (sim) {
    cdevs_sim_stats(sim, &st);
    *transitions = st.internals + st.externals + st.confluents;
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  if (!ok) {
    cdevs_proc_free(p);
    return NULL;
  }
  return p;
}

static const char *const mm1_stats[][2] = {
    {"server.Queue", "WaitTime"}, {"server.Queue", "NQ"},   {"server.Queue", "NumberBalked"},
    {"server", "Utilization"},    {"server", "NumberBusy"}, {"server", "NumberSeized"},
    {"Customer", "WaitTime"},     {"Customer", "VATime"},   {"Customer", "NVATime"},
    {"Customer", "TotalTime"},    {"Customer", "WIP"},      {"Customer", "NumberIn"},
    {"Customer", "NumberOut"},    {"System", "NumberIn"},   {"System", "NumberOut"}};

/* Replications 0..5 (substreams) over t = 1e5: every field of every statistic the same
 * bits; on replication 0 also queueing theory. */
static void test_mm1_equivalence(void) {
  const double T = 1e5;
  for (uint64_t rep = 0; rep < 6; rep++) {
    uint64_t tr_fused = 0, tr_sep = 0;
    cdevs_proc *fused = mm1(0, T, rep, &tr_fused), *sep = mm1(1, T, rep, &tr_sep);
    if (!fused || !sep) {
      CHECK(fused && sep);
      cdevs_proc_free(fused);
      cdevs_proc_free(sep);
      return;
    }
    int equal = 0;
    for (size_t k = 0; k < COUNT(mm1_stats); k++) {
      char what[96];
      snprintf(what, sizeof what, "replication %llu %s.%s", (unsigned long long)rep, mm1_stats[k][0], mm1_stats[k][1]);
      cdevs_stat_info a = stat_of(fused, mm1_stats[k][0], mm1_stats[k][1], T);
      cdevs_stat_info b = stat_of(sep, mm1_stats[k][0], mm1_stats[k][1], T);
      equal += same_summary(what, &a.s, &b.s);
    }
    CHECK_EQ_INT(equal, COUNT(mm1_stats));
    CHECK_EQ_INT(cdevs_proc_wip(fused), cdevs_proc_wip(sep));
    cdevs_stat_info w = stat_of(sep, "server.Queue", "WaitTime", T);
    cdevs_stat_info nq = stat_of(sep, "server.Queue", "NQ", T);
    cdevs_stat_info u = stat_of(sep, "server", "Utilization", T);
    printf("M/M/1 replication %llu over t = 1e5: %d of %zu statistics bit for bit equal (Process %llu transitions, "
           "separate blocks %llu); Wq %.4f ± %.4f, Lq %.4f ± %.4f, utilization %.4f ± %.4f\n",
           (unsigned long long)rep, equal, COUNT(mm1_stats), (unsigned long long)tr_fused,
           (unsigned long long)tr_sep, w.s.avg, w.s.half_width, nq.s.avg, nq.s.half_width, u.s.avg, u.s.half_width);
    if (rep == 0) {
      /* Queueing theory, ρ = λ/μ = 0.8: Wq = ρ/(μ − λ) = 4, Lq = λWq = 3.2,
         utilization ρ; each within three of its batch-means 95% half-widths. The number
         of waits is the number of arrivals, Poisson with mean and variance λT = 80000:
         within 5 sd. */
      CHECK(w.s.hw_status == CDEVS_HW_OK && nq.s.hw_status == CDEVS_HW_OK && u.s.hw_status == CDEVS_HW_OK);
      CHECK_NEAR(w.s.avg, 4.0, 3 * w.s.half_width);
      CHECK_NEAR(nq.s.avg, 3.2, 3 * nq.s.half_width);
      CHECK_NEAR(u.s.avg, 0.8, 3 * u.s.half_width);
      CHECK_NEAR((double)w.s.count, 0.8 * T, 5 * sqrt(0.8 * T));
    }
    cdevs_proc_free(fused);
    cdevs_proc_free(sep);
  }
}

/* ---- priorities across seize points ------------------------------------------------- */

/* Two classes, each Poisson with mean interarrival 2.5, share one Exponential(1) server,
 * class 1 first (priority 0 against 1). Each class is served by a Process, or by the
 * SIMAN blocks (bit `separate` k for class k + 1), so that units released by either
 * kind go to either kind. Cobham's formula (non-preemptive priority, W0 = Σ λᵢE[Sᵢ²]/2
 * = 0.8·2/2 = 0.8): Wq1 = W0/(1 − ρ1) = 4/3, Wq2 = W0/((1 − ρ1)(1 − ρ)) = 20/3. */
static cdevs_proc *two_classes(int separate, double t_end) {
  cdevs_proc_opts o = cdevs_proc_opts_default();
  o.span = t_end;
  cdevs_proc *p = cdevs_proc_new(NULL, &o);
  if (!p || cdevs_proc_resource(p, "server", 1) < 0) abort();
  cdevs_model *root = cdevs_root_new(NULL, "prio");
  cdevs_dispose_params dp = {p};
  cdevs_model *leave = block(root, "leave", &cdevs_dispose_ops, &dp);
  for (int k = 0; k < 2; k++) {
    /* names that outlive the loop: the blocks read them in init, at cdevs_sim_new */
    static const char *const a_name[] = {"a1", "a2"}, *const s_name[] = {"s1", "s2"},
                             *const q_name[] = {"s1.Queue", "s2.Queue"};
    const char *a = a_name[k], *s = s_name[k], *qn = q_name[k];
    /* The first arrivals come after the start: two at t0 would tie for the free unit,
       which a Process takes in the first step at t0 and a Queue only after its link,
       in the second (see siman.h). */
    cdevs_create_params cp = {p, k ? "Two" : "One", expo(2.5), 1, 0.1 * (k + 1), 0};
    cdevs_model *arrive = block(root, a, &cdevs_create_ops, &cp);
    if (!(separate >> k & 1)) {
      cdevs_process_params pp = {p, CDEVS_SEIZE_DELAY_RELEASE, "server", 1, k, expo(1), CDEVS_VA, CDEVS_FIFO, NULL, 0};
      cdevs_model *server = block(root, s, &cdevs_process_ops, &pp);
      wire(root, arrive, "out", server);
      wire(root, server, "out", leave);
      continue;
    }
    /* the four blocks one level down, in a coupled model named like the Process */
    cdevs_model *c = cdevs_coupled_add(root, k ? "line2" : "line1");
    cdevs_port_add(c, CDEVS_IN, "in", CDEVS_MSG);
    cdevs_port_add(c, CDEVS_OUT, "out", CDEVS_MSG);
    cdevs_siman_queue_params qp = {p, qn, CDEVS_FIFO, NULL, 0};
    cdevs_siman_seize_params sp = {p, "server", 1, k};
    cdevs_siman_delay_params yp = {p, expo(1), CDEVS_VA, s};
    cdevs_siman_release_params rp = {p, "server", 1};
    cdevs_model *q = block(c, "queue", &cdevs_siman_queue_ops, &qp);
    cdevs_model *z = block(c, "seize", &cdevs_siman_seize_ops, &sp);
    cdevs_model *d = block(c, "delay", &cdevs_siman_delay_ops, &yp);
    cdevs_model *r = block(c, "release", &cdevs_siman_release_ops, &rp);
    cdevs_connect(c, c, "in", q, "in");
    wire(c, q, "out", z);
    wire(c, z, "out", d);
    wire(c, d, "out", r);
    cdevs_connect(c, r, "out", c, "out");
    wire(root, arrive, "out", c);
    wire(root, c, "out", leave);
  }
  cdevs_sim *sim = NULL;
  int ok = CHECK_RUN(cdevs_sim_new(root, NULL, &sim)) && CHECK_RUN(cdevs_sim_run(sim, t_end));
  if (!ok) fprintf(stderr, "%s\n", sim ? cdevs_sim_errmsg(sim) : cdevs_model_errmsg(root));
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  if (!ok) {
    cdevs_proc_free(p);
    return NULL;
  }
  return p;
}

static void test_priorities(void) {
  const double T = 1e5;
  cdevs_proc *p[4];
  for (int v = 0; v < 4; v++) p[v] = two_classes(v, T);
  if (!p[0] || !p[1] || !p[2] || !p[3]) {
    CHECK(!"a two-class run failed");
  } else {
    static const char *const stats[][2] = {{"s1.Queue", "WaitTime"}, {"s2.Queue", "WaitTime"},
                                           {"s1.Queue", "NQ"},       {"server", "Utilization"},
                                           {"server", "NumberSeized"}, {"One", "TotalTime"},
                                           {"Two", "TotalTime"}};
    for (int v = 1; v < 4; v++) {
      int equal = 0;
      for (size_t k = 0; k < COUNT(stats); k++) {
        cdevs_stat_info a = stat_of(p[0], stats[k][0], stats[k][1], T), b = stat_of(p[v], stats[k][0], stats[k][1], T);
        char what[96];
        snprintf(what, sizeof what, "variant %d %s.%s", v, stats[k][0], stats[k][1]);
        equal += same_summary(what, &a.s, &b.s);
      }
      CHECK_EQ_INT(equal, COUNT(stats));
      /* The second class's NQ takes the same values at the same times, but a Process
         also records it at each of its own departures, when the unit goes to the first
         class and its queue stays as it was: its integral is summed in more pieces,
         equal to rounding. */
      cdevs_stat_info a = stat_of(p[0], "s2.Queue", "NQ", T), b = stat_of(p[v], "s2.Queue", "NQ", T);
      CHECK(a.s.count == b.s.count && a.s.max == b.s.max && a.s.final == b.s.final);
      CHECK_NEAR(a.s.avg, b.s.avg, 1e-12 * a.s.avg);
      CHECK_EQ_INT(a.s.hw_status, b.s.hw_status);
      CHECK(same(a.s.half_width, b.s.half_width) || fabs(a.s.half_width - b.s.half_width) <= 1e-9 * a.s.half_width);
    }
    cdevs_stat_info w1 = stat_of(p[3], "s1.Queue", "WaitTime", T), w2 = stat_of(p[3], "s2.Queue", "WaitTime", T);
    printf("two classes, class 1 first: Wq1 %.4f ± %.4f (4/3), Wq2 %.4f ± %.4f (20/3); the Process/SIMAN mixes "
           "equal bit for bit but for class 2's NQ (to rounding)\n",
           w1.s.avg, w1.s.half_width, w2.s.avg, w2.s.half_width);
    CHECK(w1.s.hw_status == CDEVS_HW_OK && w2.s.hw_status == CDEVS_HW_OK);
    CHECK_NEAR(w1.s.avg, 4.0 / 3, 3 * w1.s.half_width);
    CHECK_NEAR(w2.s.avg, 20.0 / 3, 3 * w2.s.half_width);
  }
  for (int v = 0; v < 4; v++) cdevs_proc_free(p[v]);
}

/* ---- the manufacturing line of the seed's Fig. 4 ------------------------------------------ */

/* Pieces arrive Poisson (mean interarrival 5, λ = 0.2), are machined one at a time
 * (Uniform(2, 4)), inspected (Uniform(0.5, 1.5), no resource), and found Good (70%),
 * Reject (10%) or Repair (20%); repaired pieces (Exponential(10)) go back to the
 * machine's queue. */
enum { L_ARRIVE = 0, L_GOOD_TALLY, L_REJECT_TALLY, L_BLOCKS };

typedef struct line_watch {
  uint32_t id[L_BLOCKS];
  uint64_t created, disposed; /* entities the Create emitted, entities sent into a Dispose */
} line_watch;

static void line_output(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  (void)t, (void)port;
  line_watch *w = ud;
  if (!cdevs_entity_of(v)) return;
  if (atomic == w->id[L_ARRIVE]) w->created++;
  if (atomic == w->id[L_GOOD_TALLY] || atomic == w->id[L_REJECT_TALLY]) w->disposed++;
}

static cdevs_model *build_line(const cdevs_alloc *a, cdevs_proc *p, cdevs_model **ids) {
  cdevs_model *root = cdevs_root_new(a, "fig4");
  cdevs_create_params cp = {p, "Piece", expo(5), 1, 0, 0};
  cdevs_siman_queue_params qp = {p, NULL, CDEVS_FIFO, NULL, 0};
  cdevs_siman_seize_params sp = {p, "machine", 1, 0};
  cdevs_siman_delay_params machining = {p, uniform(2, 4), CDEVS_VA, NULL};
  cdevs_siman_release_params rp = {p, "machine", 1};
  cdevs_siman_delay_params inspection = {p, uniform(0.5, 1.5), CDEVS_NVA, NULL};
  cdevs_siman_branch_params bp = {p, 3, {CDEVS_SIMAN_WITH, CDEVS_SIMAN_WITH, CDEVS_SIMAN_WITH}, {70, 10, 20}, {NULL}, {0}, {0}};
  cdevs_siman_count_params good = {p, "Good", 1}, reject = {p, "Reject", 1}, repair = {p, "Repair", 1};
  cdevs_siman_tally_params tis = {p, CDEVS_SIMAN_TIME_IN_SYSTEM, NULL, "TimeInSystem"};
  cdevs_siman_delay_params repairing = {p, expo(10), CDEVS_NVA, NULL};
  cdevs_dispose_params dp = {p};
  cdevs_model *arrive = block(root, "arrive", &cdevs_create_ops, &cp);
  cdevs_model *queue = block(root, "machineQ", &cdevs_siman_queue_ops, &qp);
  cdevs_model *seize = block(root, "seize", &cdevs_siman_seize_ops, &sp);
  cdevs_model *machine = block(root, "machining", &cdevs_siman_delay_ops, &machining);
  cdevs_model *release = block(root, "release", &cdevs_siman_release_ops, &rp);
  cdevs_model *inspect = block(root, "inspect", &cdevs_siman_delay_ops, &inspection);
  cdevs_model *branch = block(root, "classify", &cdevs_siman_branch_ops, &bp);
  cdevs_model *cgood = block(root, "countGood", &cdevs_siman_count_ops, &good);
  cdevs_model *creject = block(root, "countReject", &cdevs_siman_count_ops, &reject);
  cdevs_model *crepair = block(root, "countRepair", &cdevs_siman_count_ops, &repair);
  cdevs_model *tgood = block(root, "tallyGood", &cdevs_siman_tally_ops, &tis);
  cdevs_model *treject = block(root, "tallyReject", &cdevs_siman_tally_ops, &tis);
  cdevs_model *fix = block(root, "repair", &cdevs_siman_delay_ops, &repairing);
  cdevs_model *goodOut = block(root, "good", &cdevs_dispose_ops, &dp);
  cdevs_model *rejectOut = block(root, "reject", &cdevs_dispose_ops, &dp);
  wire(root, arrive, "out", queue);
  wire(root, queue, "out", seize);
  wire(root, seize, "out", machine);
  wire(root, machine, "out", release);
  wire(root, release, "out", inspect);
  wire(root, inspect, "out", branch);
  wire(root, branch, "out1", cgood);
  wire(root, branch, "out2", creject);
  wire(root, branch, "out3", crepair);
  wire(root, cgood, "out", tgood);
  wire(root, creject, "out", treject);
  wire(root, tgood, "out", goodOut);
  wire(root, treject, "out", rejectOut);
  wire(root, crepair, "out", fix);
  wire(root, fix, "out", queue);
  if (ids) ids[L_ARRIVE] = arrive, ids[L_GOOD_TALLY] = tgood, ids[L_REJECT_TALLY] = treject;
  return root;
}

static void test_manufacturing(void) {
  const double T = 1e5, lambda = 0.2, pg = 0.7, prej = 0.1, prep = 0.2, ES = 3;
  cdevs_proc_opts o = cdevs_proc_opts_default();
  o.span = T;
  cdevs_proc *p = cdevs_proc_new(NULL, &o);
  if (!p || cdevs_proc_resource(p, "machine", 1) < 0) abort();
  cdevs_model *ids[L_BLOCKS];
  cdevs_model *root = build_line(NULL, p, ids);
  cdevs_sim *sim = NULL;
  if (!CHECK_RUN(cdevs_sim_new(root, NULL, &sim))) {
    fprintf(stderr, "%s\n", cdevs_model_errmsg(root));
    cdevs_model_free(root);
    cdevs_proc_free(p);
    return;
  }
  line_watch w = {{0}, 0, 0};
  for (int k = 0; k < L_BLOCKS; k++) w.id[k] = cdevs_sim_atomic_id(sim, ids[k]);
  cdevs_observer obs = {line_output, NULL, NULL, NULL};
  cdevs_sim_observe(sim, &obs, &w);
  long in = cdevs_proc_stat_find(p, "System", "NumberIn"), out = cdevs_proc_stat_find(p, "System", "NumberOut");
  uint64_t steps = 0, broken = 0;
  /* After every instant: NumberIn = NumberOut + WIP, and both counts agree with the
     entities seen leaving the Create and going into the Disposes. */
  while (cdevs_sim_next_time(sim) <= T) {
    if (!CHECK_RUN(cdevs_sim_step(sim))) {
      fprintf(stderr, "%s\n", cdevs_sim_errmsg(sim));
      break;
    }
    steps++;
    cdevs_stat_info si, so;
    cdevs_proc_stat(p, (size_t)in, cdevs_sim_time(sim), &si);
    cdevs_proc_stat(p, (size_t)out, cdevs_sim_time(sim), &so);
    uint64_t wip = cdevs_proc_wip(p);
    if (si.s.count != so.s.count + wip || si.s.count != w.created || so.s.count != w.disposed) {
      if (!broken)
        fprintf(stderr, "t=%.17g: NumberIn %llu, NumberOut %llu, WIP %llu, created %llu, disposed %llu\n",
                cdevs_sim_time(sim), (unsigned long long)si.s.count, (unsigned long long)so.s.count,
                (unsigned long long)wip, (unsigned long long)w.created, (unsigned long long)w.disposed);
      broken++;
    }
  }
  CHECK_EQ_INT(broken, 0);
  CHECK(steps > 100000);

  /* Traffic equations: the machine sees λm = λ + prep·λm, so λm = λ/(1 − prep) = 0.25
     and its utilization is λm·E[S] = 0.75. A piece ends Good with chance
     pg/(1 − prep) and Reject with prej/(1 − prep) (thinning of a Poisson stream:
     Poisson counts, sd √mean). Repairs per piece K are geometric (E K = prep/(1 − prep),
     Var K = prep/(1 − prep)²), so repairs and machine passes K + 1 over the Poisson
     arrivals are compound Poisson with variance λT·E[K²] and λT·E[(K + 1)²]. Counts
     within 5 sd plus 50 for the pieces still inside at T; utilization within three
     half-widths. */
  double lm = lambda / (1 - prep), EK = prep / (1 - prep), VK = prep / ((1 - prep) * (1 - prep));
  double m_good = lambda * T * pg / (1 - prep), m_rej = lambda * T * prej / (1 - prep);
  double m_rep = lambda * T * EK, m_pass = lm * T;
  long long n_good = count_of(p, "Good", "Count", T), n_rej = count_of(p, "Reject", "Count", T);
  long long n_rep = count_of(p, "Repair", "Count", T), n_pass = count_of(p, "machine", "NumberSeized", T);
  cdevs_stat_info u = stat_of(p, "machine", "Utilization", T);
  printf("Fig. 4 line over t = 1e5 (%llu steps): good %lld (%.0f), reject %lld (%.0f), repair %lld (%.0f), machine "
         "passes %lld (%.0f), utilization %.4f ± %.4f (%.2f)\n",
         (unsigned long long)steps, n_good, m_good, n_rej, m_rej, n_rep, m_rep, n_pass, m_pass, u.s.avg,
         u.s.half_width, lm * ES);
  CHECK_NEAR(n_good, m_good, 5 * sqrt(m_good) + 50);
  CHECK_NEAR(n_rej, m_rej, 5 * sqrt(m_rej) + 50);
  CHECK_NEAR(n_rep, m_rep, 5 * sqrt(lambda * T * (VK + EK * EK)) + 50);
  CHECK_NEAR(n_pass, m_pass, 5 * sqrt(lambda * T * (VK + (EK + 1) * (EK + 1))) + 50);
  CHECK(u.s.hw_status == CDEVS_HW_OK);
  CHECK_NEAR(u.s.avg, lm * ES, 3 * u.s.half_width);
  /* every piece leaves through a Tally on its way out */
  CHECK_EQ_INT(n_good + n_rej, count_of(p, "System", "NumberOut", T));
  CHECK_EQ_INT(stat_of(p, "TimeInSystem", "Value", T).s.count, n_good + n_rej);
  /* Little's law on the sample path: average WIP = throughput × time in system, up to
     the pieces inside at the ends; and the Tally's time in system is the Dispose's. */
  double L = avg_of(p, "Piece", "WIP", T), W = avg_of(p, "TimeInSystem", "Value", T);
  double lhat = (double)(n_good + n_rej) / T;
  printf("  Little: L %.4f, λ̂W %.4f\n", L, lhat * W);
  CHECK_NEAR(L, lhat * W, 0.01 * L);
  CHECK_NEAR(W, avg_of(p, "Piece", "TotalTime", T), 1e-9 * W);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
}

/* The same line in Classic DEVS mode (one imminent model at a time): the link at the
 * start and the wakes still work, and no draw changes order, so every statistic is the
 * Parallel DEVS run's. */
static void test_classic_mode(void) {
  const double T = 5000;
  cdevs_proc *p[2];
  for (int mode = 0; mode < 2; mode++) {
    p[mode] = cdevs_proc_new(NULL, NULL);
    if (!p[mode] || cdevs_proc_resource(p[mode], "machine", 1) < 0) abort();
    cdevs_model *root = build_line(NULL, p[mode], NULL);
    cdevs_sim_opts so = cdevs_sim_opts_default();
    so.mode = mode ? CDEVS_CLASSIC : CDEVS_PARALLEL;
    cdevs_sim *sim = NULL;
    if (CHECK_RUN(cdevs_sim_new(root, &so, &sim))) CHECK_RUN(cdevs_sim_run(sim, T));
    cdevs_sim_free(sim);
    cdevs_model_free(root);
  }
  size_t n = cdevs_proc_stat_count(p[0]), equal = 0;
  CHECK_EQ_INT(n, cdevs_proc_stat_count(p[1]));
  for (size_t i = 0; i < n && i < cdevs_proc_stat_count(p[1]); i++) {
    cdevs_stat_info a, b;
    cdevs_proc_stat(p[0], i, T, &a);
    cdevs_proc_stat(p[1], i, T, &b);
    char what[96];
    snprintf(what, sizeof what, "classic %s.%s", a.owner, a.name);
    equal += (size_t)same_summary(what, &a.s, &b.s);
  }
  CHECK_EQ_INT(equal, n);
  CHECK(count_of(p[1], "System", "NumberOut", T) > 500);
  cdevs_proc_free(p[0]);
  cdevs_proc_free(p[1]);
}

/* ---- queue rules and balking, on hand-derived numbers ---------------------------------- */

/* Five entities arrive at t = 0, 1, 2, 3, 4 (each with a Uniform(0, 1) "size") at a
 * server busy for a constant 10 per entity; the serials and sizes of the entities
 * leaving the Release are recorded in order. */
typedef struct order_watch {
  uint32_t release, balk;
  uint64_t serial[8];
  double size[8];
  int n, balked;
  int size_attr;
} order_watch;

static void order_output(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  (void)t, (void)port;
  order_watch *w = ud;
  cdevs_entity *e = cdevs_entity_of(v);
  if (!e) return;
  if (atomic == w->release && w->n < 8) {
    w->serial[w->n] = e->serial;
    w->size[w->n++] = e->attr[w->size_attr];
  }
  if (atomic == w->balk) w->balked++;
}

/* Runs the five arrivals through a Queue of this rule and capacity (balk_port: couple
 * its "balk" to a Count → Dispose); fills w, returns the process elements. */
static cdevs_proc *five(int rule, uint64_t capacity, int balk_port, order_watch *w) {
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  if (!p || cdevs_proc_resource(p, "server", 1) < 0) abort();
  memset(w, 0, sizeof *w);
  w->size_attr = cdevs_proc_attribute(p, "size");
  cdevs_model *root = cdevs_root_new(NULL, "five");
  cdevs_create_params cp = {p, "Job", constant(1), 1, 0, 5};
  cdevs_assign_params ap = {p, "size", uniform(0, 1), NULL, NULL, 0};
  cdevs_siman_queue_params qp = {p, NULL, rule, "size", capacity};
  cdevs_siman_seize_params sp = {p, "server", 1, 0};
  cdevs_siman_delay_params yp = {p, constant(10), CDEVS_VA, NULL};
  cdevs_siman_release_params rp = {p, "server", 1};
  cdevs_siman_count_params bp = {p, "balked", 0};
  cdevs_dispose_params dp = {p};
  cdevs_model *c = block(root, "arrive", &cdevs_create_ops, &cp);
  cdevs_model *a = block(root, "size", &cdevs_assign_ops, &ap);
  cdevs_model *q = block(root, "q", &cdevs_siman_queue_ops, &qp);
  cdevs_model *s = block(root, "seize", &cdevs_siman_seize_ops, &sp);
  cdevs_model *d = block(root, "work", &cdevs_siman_delay_ops, &yp);
  cdevs_model *r = block(root, "release", &cdevs_siman_release_ops, &rp);
  cdevs_model *out = block(root, "out", &cdevs_dispose_ops, &dp);
  wire(root, c, "out", a);
  wire(root, a, "out", q);
  wire(root, q, "out", s);
  wire(root, s, "out", d);
  wire(root, d, "out", r);
  wire(root, r, "out", out);
  cdevs_model *bc = NULL;
  if (balk_port) {
    bc = block(root, "balkers", &cdevs_siman_count_ops, &bp);
    wire(root, q, "balk", bc);
    wire(root, bc, "out", out);
  }
  cdevs_sim *sim = NULL;
  cdevs_observer obs = {order_output, NULL, NULL, NULL};
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim))) {
    w->release = cdevs_sim_atomic_id(sim, r);
    w->balk = bc ? cdevs_sim_atomic_id(sim, bc) : UINT32_MAX;
    cdevs_sim_observe(sim, &obs, w);
    if (!CHECK_RUN(cdevs_sim_run(sim, INFINITY))) fprintf(stderr, "%s\n", cdevs_sim_errmsg(sim));
  } else {
    fprintf(stderr, "%s\n", cdevs_model_errmsg(root));
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return p;
}

static void test_queue_rules(void) {
  order_watch w;
  /* FIFO: served at 0, 10, 20, 30, 40; waits 0, 9, 18, 27, 36 (mean 18). The queue
     holds 0 on [0, 1), 1, 2, 3 on the next unit intervals, 4 on [4, 10), then 3, 2, 1,
     0 for 10 each until the last leaves at 50: area 1 + 2 + 3 + 24 + 30 + 20 + 10 = 90,
     time average 90/50 = 1.8, 8 changes. */
  cdevs_proc *p = five(CDEVS_FIFO, 0, 0, &w);
  CHECK_EQ_INT(w.n, 5);
  for (int i = 0; i < w.n; i++) CHECK_EQ_INT(w.serial[i], i + 1);
  cdevs_stat_info wt = stat_of(p, "q", "WaitTime", 50), nq = stat_of(p, "q", "NQ", 50);
  CHECK_NEAR(wt.s.avg, 18, 1e-12);
  CHECK_NEAR(wt.s.max, 36, 0);
  CHECK_EQ_INT(wt.s.count, 5);
  CHECK_NEAR(nq.s.avg, 1.8, 1e-12);
  CHECK_NEAR(nq.s.max, 4, 0);
  CHECK_EQ_INT(nq.s.count, 8);
  CHECK_NEAR(avg_of(p, "server", "Utilization", 50), 1, 1e-12);
  cdevs_proc_free(p);

  /* LIFO: 1 at once, then the latest first: 5, 4, 3, 2; waits 0, 6, 17, 28, 39. */
  p = five(CDEVS_LIFO, 0, 0, &w);
  static const int lifo[] = {1, 5, 4, 3, 2};
  CHECK_EQ_INT(w.n, 5);
  for (int i = 0; i < w.n; i++) CHECK_EQ_INT(w.serial[i], lifo[i]);
  CHECK_NEAR(avg_of(p, "q", "WaitTime", 50), 18, 1e-12);
  cdevs_proc_free(p);

  /* By size: after the first (served at once), highest or lowest first. */
  for (int rule = CDEVS_LVF; rule <= CDEVS_HVF; rule++) {
    p = five(rule, 0, 0, &w);
    CHECK_EQ_INT(w.n, 5);
    int ordered = 1;
    for (int i = 2; i < w.n; i++) ordered &= rule == CDEVS_HVF ? w.size[i - 1] >= w.size[i] : w.size[i - 1] <= w.size[i];
    CHECK(ordered);
    cdevs_proc_free(p);
  }

  /* Capacity 2: 1 is served at 0, 2 and 3 wait, 4 and 5 find two waiting and balk. */
  for (int balk_port = 0; balk_port <= 1; balk_port++) {
    p = five(CDEVS_FIFO, 2, balk_port, &w);
    CHECK_EQ_INT(w.n, 3);
    CHECK_EQ_INT(count_of(p, "q", "NumberBalked", 30), 2);
    CHECK_EQ_INT(count_of(p, "System", "NumberOut", 30), 5);
    CHECK_EQ_INT(cdevs_proc_wip(p), 0);
    if (balk_port) {
      CHECK_EQ_INT(w.balked, 2);
      CHECK_EQ_INT(count_of(p, "balked", "Count", 30), 2);
    }
    cdevs_proc_free(p);
  }
}

/* ---- Branch, Count, Tally ---------------------------------------------------------------- */

/* N entities, one per time unit, through a Branch whose outputs each go through a Count
 * "outK" to a Dispose; returns the process elements after the run. */
static cdevs_proc *branch_run(int n_out, const int *kind, const double *percent, int n, cdevs_status *st) {
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  if (!p) abort();
  cdevs_model *root = cdevs_root_new(NULL, "br");
  cdevs_create_params cp = {p, "Item", constant(1), 1, 0, (uint64_t)n};
  cdevs_siman_branch_params bp = {p, n_out, {0}, {0}, {NULL}, {0}, {0}};
  for (int k = 0; k < n_out; k++) bp.kind[k] = kind[k], bp.percent[k] = percent[k];
  cdevs_dispose_params dp = {p};
  cdevs_model *c = block(root, "arrive", &cdevs_create_ops, &cp);
  cdevs_model *b = block(root, "branch", &cdevs_siman_branch_ops, &bp);
  cdevs_model *d = block(root, "leave", &cdevs_dispose_ops, &dp);
  wire(root, c, "out", b);
  for (int k = 0; k < n_out; k++) {
    char name[16], port[16];
    snprintf(name, sizeof name, "out%d", k + 1);
    snprintf(port, sizeof port, "out%d", k + 1);
    cdevs_siman_count_params kp = {p, NULL, 0};
    cdevs_model *m = block(root, name, &cdevs_siman_count_ops, &kp);
    wire(root, b, port, m);
    wire(root, m, "out", d);
  }
  cdevs_sim *sim = NULL;
  *st = cdevs_sim_new(root, NULL, &sim);
  if (*st == CDEVS_OK) *st = cdevs_sim_run(sim, INFINITY);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return p;
}

static void test_branch(void) {
  enum { N = 20000 };
  cdevs_status st;
  /* WITH 30, WITH 70, ALWAYS: every entity goes out1 or out2 (binomial, sd
     √(N·0.3·0.7)), and a duplicate goes out3; each duplicate enters the system. */
  int k1[] = {CDEVS_SIMAN_WITH, CDEVS_SIMAN_WITH, CDEVS_SIMAN_ALWAYS};
  double p1[] = {30, 70, 0};
  cdevs_proc *p = branch_run(3, k1, p1, N, &st);
  CHECK_EQ_INT(st, CDEVS_OK);
  long long a = count_of(p, "out1", "Count", N), b = count_of(p, "out2", "Count", N);
  printf("Branch WITH 30/70 + ALWAYS over %d: %lld / %lld, %lld duplicates\n", N, a, b,
         count_of(p, "out3", "Count", N));
  CHECK_EQ_INT(a + b, N);
  CHECK_NEAR(a, 0.3 * N, 5 * sqrt(N * 0.3 * 0.7));
  CHECK_EQ_INT(count_of(p, "out3", "Count", N), N);
  CHECK_EQ_INT(count_of(p, "System", "NumberIn", N), 2 * N);
  CHECK_EQ_INT(count_of(p, "System", "NumberOut", N), 2 * N);
  CHECK_EQ_INT(cdevs_proc_wip(p), 0);
  cdevs_proc_free(p);

  /* WITH 25, ELSE */
  int k2[] = {CDEVS_SIMAN_WITH, CDEVS_SIMAN_ELSE};
  double p2[] = {25, 0};
  p = branch_run(2, k2, p2, N, &st);
  CHECK_EQ_INT(st, CDEVS_OK);
  a = count_of(p, "out1", "Count", N);
  CHECK_EQ_INT(a + count_of(p, "out2", "Count", N), N);
  CHECK_NEAR(a, 0.25 * N, 5 * sqrt(N * 0.25 * 0.75));
  cdevs_proc_free(p);

  /* Bad chances: more than 100 in all; less than 100 and no ELSE; two ELSEs. */
  char err[512];
  struct {
    int kind[2];
    double percent[2];
    const char *msg;
  } cases[] = {{{CDEVS_SIMAN_WITH, CDEVS_SIMAN_WITH}, {60, 50}, "Branch's chances add up to 110%, more than 100"},
               {{CDEVS_SIMAN_WITH, CDEVS_SIMAN_WITH}, {30, 60}, "add up to 90% and it has no ELSE output"},
               {{CDEVS_SIMAN_ELSE, CDEVS_SIMAN_ELSE}, {0, 0}, "two ELSE outputs (out1 and out2)"},
               {{CDEVS_SIMAN_WITH, 7}, {100, 0}, "out2 has no kind 7"}};
  for (size_t i = 0; i < COUNT(cases); i++) {
    cdevs_proc *q = cdevs_proc_new(NULL, NULL);
    cdevs_model *root = cdevs_root_new(NULL, "br");
    cdevs_create_params cp = {q, NULL, constant(1), 1, 0, 1};
    cdevs_siman_branch_params bp = {q, 2, {cases[i].kind[0], cases[i].kind[1]}, {cases[i].percent[0], cases[i].percent[1]}, {NULL}, {0}, {0}};
    cdevs_dispose_params dp = {q};
    cdevs_model *c = block(root, "arrive", &cdevs_create_ops, &cp);
    cdevs_model *br = block(root, "branch", &cdevs_siman_branch_ops, &bp);
    cdevs_model *d = block(root, "leave", &cdevs_dispose_ops, &dp);
    wire(root, c, "out", br);
    wire(root, br, "out1", d);
    wire(root, br, "out2", d);
    cdevs_sim *sim = NULL;
    CHECK(cdevs_sim_new(root, NULL, &sim) != CDEVS_OK);
    snprintf(err, sizeof err, "%s", cdevs_model_errmsg(root));
    CHECK_CONTAINS(err, cases[i].msg);
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    cdevs_proc_free(q);
  }
}

/* N = 1000 entities created at t = 0, 1, …, N − 1: Count "arrivals" by 2, a constant
 * delay of 3, a Tally of the time in system (3 for each), a Tally of the time since the
 * attribute "stamp" (never set: 0, so the value is the time, k + 3: mean (N − 1)/2 + 3),
 * an Assign of "mark" = 7, a Tally of "mark", and Count "arrivals" again by 1 (the
 * counter is shared: 3N in all). */
static void test_count_tally(void) {
  enum { N = 1000 };
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  if (!p) abort();
  /* attributes are declared before the Create makes its first entity (in its init) */
  cdevs_proc_attribute(p, "stamp");
  cdevs_proc_attribute(p, "mark");
  cdevs_model *root = cdevs_root_new(NULL, "ct");
  cdevs_create_params cp = {p, NULL, constant(1), 1, 0, N};
  cdevs_siman_count_params c2 = {p, "arrivals", 2}, c1 = {p, "arrivals", 0};
  cdevs_siman_delay_params yp = {p, constant(3), CDEVS_VA, NULL};
  cdevs_siman_tally_params tis = {p, CDEVS_SIMAN_TIME_IN_SYSTEM, NULL, "tis"};
  cdevs_siman_tally_params since = {p, CDEVS_SIMAN_INTERVAL, "stamp", "since0"};
  cdevs_assign_params ap = {p, "mark", constant(7), NULL, NULL, 0};
  cdevs_siman_tally_params mark = {p, CDEVS_SIMAN_ATTR, "mark", NULL};
  cdevs_dispose_params dp = {p};
  cdevs_model *m[] = {block(root, "arrive", &cdevs_create_ops, &cp),   block(root, "count2", &cdevs_siman_count_ops, &c2),
                      block(root, "wait", &cdevs_siman_delay_ops, &yp), block(root, "tis", &cdevs_siman_tally_ops, &tis),
                      block(root, "since", &cdevs_siman_tally_ops, &since), block(root, "assign", &cdevs_assign_ops, &ap),
                      block(root, "mark", &cdevs_siman_tally_ops, &mark), block(root, "count1", &cdevs_siman_count_ops, &c1),
                      block(root, "leave", &cdevs_dispose_ops, &dp)};
  for (size_t i = 0; i + 1 < COUNT(m); i++) wire(root, m[i], "out", m[i + 1]);
  cdevs_sim *sim = NULL;
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim)) && CHECK_RUN(cdevs_sim_run(sim, INFINITY))) {
    double t = cdevs_sim_time(sim);
    CHECK_NEAR(t, N - 1 + 3, 0);
    CHECK_EQ_INT(count_of(p, "arrivals", "Count", t), 3 * N);
    cdevs_stat_info a = stat_of(p, "tis", "Value", t);
    CHECK_EQ_INT(a.s.count, N);
    CHECK(a.s.min == 3 && a.s.max == 3 && a.s.avg == 3);
    a = stat_of(p, "since0", "Value", t);
    CHECK_NEAR(a.s.avg, (N - 1) / 2.0 + 3, 1e-9);
    CHECK(a.s.min == 3 && a.s.max == N + 2);
    a = stat_of(p, "mark", "Value", t); /* named after the block */
    CHECK(a.s.avg == 7 && a.s.count == N);
  } else {
    fprintf(stderr, "%s\n", sim ? cdevs_sim_errmsg(sim) : cdevs_model_errmsg(root));
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
}

/* ---- bad models ------------------------------------------------------------------------- */

enum { ARR = 0, QUEUE, SEIZE, DELAY, RELEASE, DISPOSE, QUEUE2, SEIZE2, NBAD };

/* A line from a recipe: which blocks exist and what feeds what (edges[k] = {from, to};
 * -1 ends). Five arrivals, one per time unit; a resource "m" of capacity 2. Returns
 * the status of building or running, with the message in err. */
static cdevs_status bad_line(const int edges[][2], cdevs_siman_seize_params sp, cdevs_siman_release_params rp,
                             cdevs_dist delay, char *err, size_t n, cdevs_proc **keep) {
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  if (!p || cdevs_proc_resource(p, "m", 2) < 0) abort();
  sp.proc = rp.proc = p;
  cdevs_model *root = cdevs_root_new(NULL, "bad");
  cdevs_create_params cp = {p, NULL, constant(1), 1, 0, 5};
  cdevs_siman_queue_params qp = {p, NULL, CDEVS_FIFO, NULL, 0};
  cdevs_siman_delay_params yp = {p, delay, CDEVS_VA, NULL};
  cdevs_dispose_params dp = {p};
  static const char *const names[NBAD] = {"arrive", "q", "seize", "work", "release", "leave", "q2", "seize2"};
  static const cdevs_atomic_ops *const ops[NBAD] = {
      &cdevs_create_ops,        &cdevs_siman_queue_ops, &cdevs_siman_seize_ops, &cdevs_siman_delay_ops,
      &cdevs_siman_release_ops, &cdevs_dispose_ops,     &cdevs_siman_queue_ops, &cdevs_siman_seize_ops};
  const void *args[NBAD] = {&cp, &qp, &sp, &yp, &rp, &dp, &qp, &sp};
  cdevs_model *m[NBAD] = {NULL};
  for (int k = 0; edges[k][0] >= 0; k++)
    for (int e = 0; e < 2; e++)
      if (!m[edges[k][e]]) m[edges[k][e]] = block(root, names[edges[k][e]], ops[edges[k][e]], args[edges[k][e]]);
  for (int k = 0; edges[k][0] >= 0; k++) wire(root, m[edges[k][0]], "out", m[edges[k][1]]);
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, NULL, &sim);
  if (st == CDEVS_OK) st = cdevs_sim_run(sim, INFINITY);
  snprintf(err, n, "%s", sim ? cdevs_sim_errmsg(sim) : cdevs_model_errmsg(root));
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  if (keep) *keep = p;
  else cdevs_proc_free(p);
  return st;
}

/* An atomic model that takes anything on "in" and ignores it. */
static const cdevs_port_def sink_in[] = {{"in", CDEVS_MSG}, {NULL, CDEVS_ANY}};
static double sink_ta(const void *state) {
  (void)state;
  return INFINITY;
}
static const cdevs_atomic_ops sink_ops = {.type = "Sink", .inputs = sink_in, .ta = sink_ta};

static void test_errors(void) {
  char err[512];
  cdevs_siman_seize_params sp = {NULL, "m", 1, 0};
  cdevs_siman_release_params rp = {NULL, "m", 1};
  cdevs_dist d1 = constant(1);
  static const int good[][2] = {{ARR, QUEUE}, {QUEUE, SEIZE}, {SEIZE, DELAY}, {DELAY, RELEASE}, {RELEASE, DISPOSE}, {-1, -1}};
  /* the recipe itself runs */
  CHECK_EQ_INT(bad_line(good, sp, rp, d1, err, sizeof err, NULL), CDEVS_OK);

  /* a resource that does not exist, and more units than it has */
  cdevs_siman_seize_params sp_bad = sp;
  sp_bad.resource = "nope";
  CHECK(bad_line(good, sp_bad, rp, d1, err, sizeof err, NULL) != CDEVS_OK);
  CHECK_CONTAINS(err, "bad.seize");
  CHECK_CONTAINS(err, "Seize of no resource 'nope'");
  sp_bad = sp;
  sp_bad.units = 3;
  CHECK(bad_line(good, sp_bad, rp, d1, err, sizeof err, NULL) != CDEVS_OK);
  CHECK_CONTAINS(err, "Seize of 3 units of 'm', which has 2");
  cdevs_siman_release_params rp_bad = {NULL, "nope", 1};
  CHECK(bad_line(good, sp, rp_bad, d1, err, sizeof err, NULL) != CDEVS_OK);
  CHECK_CONTAINS(err, "Release of no resource 'nope'");

  /* releasing units not held: straight from the Create, or more than were seized */
  static const int no_seize[][2] = {{ARR, RELEASE}, {RELEASE, DISPOSE}, {-1, -1}};
  CHECK_EQ_INT(bad_line(no_seize, sp, rp, d1, err, sizeof err, NULL), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "bad.release");
  CHECK_CONTAINS(err, "entity 1 releases 1 units of 'm' it does not hold (it holds 0)");
  rp_bad = rp;
  rp_bad.units = 2;
  CHECK_EQ_INT(bad_line(good, sp, rp_bad, d1, err, sizeof err, NULL), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "entity 1 releases 2 units of 'm' it does not hold (it holds 1)");

  /* a Queue not followed by a Seize: by a Delay, by a Dispose, by nothing, by two */
  static const int q_delay[][2] = {{ARR, QUEUE}, {QUEUE, DELAY}, {DELAY, DISPOSE}, {-1, -1}};
  CHECK_EQ_INT(bad_line(q_delay, sp, rp, d1, err, sizeof err, NULL), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "bad.work");
  CHECK_CONTAINS(err, "Queue 'q' leads here, but a Queue must lead to a Seize");
  static const int q_dispose[][2] = {{ARR, QUEUE}, {QUEUE, DISPOSE}, {-1, -1}};
  CHECK_EQ_INT(bad_line(q_dispose, sp, rp, d1, err, sizeof err, NULL), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "not an entity");
  static const int q_none[][2] = {{ARR, QUEUE}, {-1, -1}};
  CHECK(bad_line(q_none, sp, rp, d1, err, sizeof err, NULL) != CDEVS_OK);
  CHECK_CONTAINS(err, "'bad.q': its output 'out' is connected to nothing");
  static const int q_two[][2] = {{ARR, QUEUE}, {QUEUE, SEIZE}, {QUEUE, SEIZE2}, {SEIZE, DISPOSE}, {SEIZE2, DISPOSE},
                                 {-1, -1}};
  CHECK(bad_line(q_two, sp, rp, d1, err, sizeof err, NULL) != CDEVS_OK);
  CHECK_CONTAINS(err, "reaches 2 inputs; a Queue leads to one Seize only");

  /* by a model that ignores the link: the Queue finds no answer at the start time */
  {
    cdevs_proc *q = cdevs_proc_new(NULL, NULL);
    cdevs_model *root = cdevs_root_new(NULL, "bad");
    cdevs_siman_queue_params qp = {q, NULL, CDEVS_FIFO, NULL, 0};
    cdevs_model *qq = block(root, "q", &cdevs_siman_queue_ops, &qp);
    cdevs_model *sink = block(root, "sink", &sink_ops, NULL);
    wire(root, qq, "out", sink);
    cdevs_sim *sim = NULL;
    cdevs_status st = cdevs_sim_new(root, NULL, &sim);
    if (st == CDEVS_OK) st = cdevs_sim_run(sim, 10);
    CHECK_EQ_INT(st, CDEVS_EMODEL);
    CHECK_CONTAINS(sim ? cdevs_sim_errmsg(sim) : "", "t=0: model 'bad.q': its output 'out' leads to no Seize");
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    cdevs_proc_free(q);
  }

  /* a Seize without its Queue, with a second feeder, or after two Queues */
  static const int s_alone[][2] = {{ARR, SEIZE}, {SEIZE, DELAY}, {DELAY, RELEASE}, {RELEASE, DISPOSE}, {-1, -1}};
  CHECK_EQ_INT(bad_line(s_alone, sp, rp, d1, err, sizeof err, NULL), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "bad.seize");
  CHECK_CONTAINS(err, "entity 1 arrives without waiting in the Queue before this Seize");
  static const int s_extra[][2] = {{ARR, QUEUE}, {QUEUE, SEIZE}, {ARR, SEIZE}, {SEIZE, DELAY}, {DELAY, RELEASE},
                                   {RELEASE, DISPOSE}, {-1, -1}};
  CHECK_EQ_INT(bad_line(s_extra, sp, rp, d1, err, sizeof err, NULL), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "arrives without waiting in the Queue before this Seize");
  static const int s_two[][2] = {{ARR, QUEUE}, {ARR, QUEUE2}, {QUEUE, SEIZE}, {QUEUE2, SEIZE}, {SEIZE, DELAY},
                                 {DELAY, RELEASE}, {RELEASE, DISPOSE}, {-1, -1}};
  CHECK_EQ_INT(bad_line(s_two, sp, rp, d1, err, sizeof err, NULL), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "Queues 'q' and 'q2' both lead to this Seize");

  /* a negative delay drawn at run time */
  CHECK_EQ_INT(bad_line(good, sp, rp, dist(CDEVS_DIST_NORMAL, 0.1, 1), err, sizeof err, NULL), CDEVS_EMODEL);
  CHECK_CONTAINS(err, "bad.work");
  CHECK_CONTAINS(err, "the delay Normal(0.1, 1) drew -");

  /* Seizing both units, then one more in a second Queue-Seize: the first entity holds
     the two and waits for a third, the four others wait for it, for ever; the deadlock
     report names both queues. */
  static const int hold[][2] = {{ARR, QUEUE}, {QUEUE, SEIZE}, {SEIZE, QUEUE2}, {QUEUE2, SEIZE2}, {SEIZE2, DISPOSE},
                                {-1, -1}};
  cdevs_proc *p = NULL;
  sp.units = 2;
  CHECK_EQ_INT(bad_line(hold, sp, rp, d1, err, sizeof err, &p), CDEVS_OK);
  char why[512];
  CHECK_EQ_INT(cdevs_proc_deadlock(p, why, sizeof why), 5);
  CHECK_CONTAINS(why, "4 entities in queue 'q' wait for resource 'm' (2 of 2 units held) since t=1");
  CHECK_CONTAINS(why, "1 entity in queue 'q2' waits for resource 'm'");
  CHECK_EQ_INT(count_of(p, "q", "NQ", 5), 4); /* changes of NQ: 1, 2, 3, 4 */
  cdevs_proc_free(p);

  /* Queue parameters: a rule out of range, a ranking without an attribute */
  cdevs_proc *q = cdevs_proc_new(NULL, NULL);
  cdevs_proc_resource(q, "m", 1);
  cdevs_siman_queue_params bad_q[] = {{q, NULL, 9, NULL, 0}, {q, NULL, CDEVS_HVF, NULL, 0}, {NULL, NULL, 0, NULL, 0}};
  const char *bad_q_msg[] = {"Queue has no rule 9", "ranks its entities by an attribute and needs its name",
                             "Queue needs its process elements"};
  for (size_t i = 0; i < COUNT(bad_q); i++) {
    cdevs_model *root = cdevs_root_new(NULL, "bad");
    cdevs_siman_seize_params s1 = {q, "m", 1, 0};
    cdevs_dispose_params dp = {q};
    cdevs_model *qq = block(root, "q", &cdevs_siman_queue_ops, &bad_q[i]);
    cdevs_model *ss = block(root, "seize", &cdevs_siman_seize_ops, &s1);
    cdevs_model *dd = block(root, "leave", &cdevs_dispose_ops, &dp);
    wire(root, qq, "out", ss);
    wire(root, ss, "out", dd);
    cdevs_sim *sim = NULL;
    CHECK(cdevs_sim_new(root, NULL, &sim) != CDEVS_OK);
    CHECK_CONTAINS(cdevs_model_errmsg(root), bad_q_msg[i]);
    cdevs_sim_free(sim);
    cdevs_model_free(root);
  }
  cdevs_proc_free(q);
}

/* A balker holding units, with no "balk" output, would leave the system holding them. */
static void test_balk_holding(void) {
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  cdevs_proc_resource(p, "a", 5);
  cdevs_proc_resource(p, "b", 1);
  cdevs_model *root = cdevs_root_new(NULL, "bh");
  cdevs_create_params cp = {p, NULL, constant(1), 1, 0, 5};
  cdevs_siman_queue_params qa = {p, "qa", CDEVS_FIFO, NULL, 0}, qb = {p, "qb", CDEVS_FIFO, NULL, 1};
  cdevs_siman_seize_params sa = {p, "a", 1, 0}, sb = {p, "b", 1, 0};
  cdevs_siman_delay_params yp = {p, constant(10), CDEVS_VA, NULL};
  cdevs_dispose_params dp = {p};
  cdevs_model *m[] = {block(root, "arrive", &cdevs_create_ops, &cp), block(root, "qa", &cdevs_siman_queue_ops, &qa),
                      block(root, "sa", &cdevs_siman_seize_ops, &sa),   block(root, "qb", &cdevs_siman_queue_ops, &qb),
                      block(root, "sb", &cdevs_siman_seize_ops, &sb),   block(root, "work", &cdevs_siman_delay_ops, &yp),
                      block(root, "leave", &cdevs_dispose_ops, &dp)};
  for (size_t i = 0; i + 1 < COUNT(m); i++) wire(root, m[i], "out", m[i + 1]);
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, NULL, &sim);
  if (st == CDEVS_OK) st = cdevs_sim_run(sim, INFINITY);
  CHECK_EQ_INT(st, CDEVS_EMODEL);
  /* 1 takes b at 0, 2 waits for it at 1, 3 balks at 2 holding a unit of a */
  CHECK_CONTAINS(sim ? cdevs_sim_errmsg(sim) : "", "entity 3 balks and leaves the system while it holds 1 units of 'a'");
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
}

/* ---- allocation failures ------------------------------------------------------------------ */

/* The Fig. 4 line for t = 300 with the n-th allocation after the process elements were
 * made failing, for every n until a run allocates without failing: each ends with a
 * status, and nothing is left allocated. (The resource and the entity type are made
 * first without failures: they are world.c's to test.) */
static void test_alloc_failures(void) {
  long leaks = 0, surfaced = 0, n;
  for (n = 1; n < 100000; n++) {
    counting c = {0, 0, 0, 0, 0};
    cdevs_alloc a = {counting_realloc, &c};
    cdevs_proc *p = cdevs_proc_new(&a, NULL);
    if (!p || cdevs_proc_resource(p, "machine", 1) < 0 || cdevs_proc_entity_type(p, "Piece") < 0) abort();
    c.fail_at = c.calls + n;
    cdevs_model *root = build_line(&a, p, NULL);
    cdevs_sim *sim = NULL;
    cdevs_status st = cdevs_sim_new(root, NULL, &sim);
    if (st == CDEVS_OK) st = cdevs_sim_run(sim, 300);
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    cdevs_proc_free(p);
    if (c.live != 0 || c.blocks != 0) {
      if (!leaks) fprintf(stderr, "allocation %ld failing leaves %lld bytes in %ld blocks\n", n, c.live, c.blocks);
      leaks++;
    }
    surfaced += c.failed && st != CDEVS_OK;
    if (!c.failed) break;
  }
  printf("allocation failures: %ld points tried, %ld surfaced as an error status, %ld leaked\n", n - 1, surfaced,
         leaks);
  CHECK_EQ_INT(leaks, 0);
  CHECK(n > 50);
  CHECK(surfaced > 0);
}

int main(void) {
  test_mm1_equivalence();
  test_priorities();
  test_manufacturing();
  test_classic_mode();
  test_queue_rules();
  test_branch();
  test_count_tally();
  test_errors();
  test_balk_holding();
  test_alloc_failures();
  return check_report("test_siman");
}
