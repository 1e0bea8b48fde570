/* SPDX-License-Identifier: MIT */
/* Helpers of the tests that compile model files and run them (test_mo, test_hybrid,
 * test_ode, test_stiff):
 * a model from text or from examples/, started under a root, stepped, and its
 * diagnostics. Failures count as failed checks (check.h). */
#ifndef CDEVS_TEST_MO_RUN_H
#define CDEVS_TEST_MO_RUN_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/cdevs.h"
#include "check.h"
#include "qss/system.h"

#ifndef EXAMPLES
#define EXAMPLES "examples"
#endif

typedef struct run {
  cdevs_mo *mo;
  cdevs_model *root, *m;
  cdevs_sim *sim;
} run;

/* Adds r->mo to a new root and starts a simulation; a failure counts as a failed check. */
static inline int run_start(run *r, cdevs_qss_method method, double tol, double abstol) {
  r->root = cdevs_root_new(NULL, "t");
  r->m = cdevs_mo_add(r->root, "model", r->mo, method, tol, abstol);
  if (cdevs_sim_new(r->root, NULL, &r->sim)) {
    fprintf(stderr, "%s\n", cdevs_model_errmsg(r->root));
    check_failed++;
    return -1;
  }
  return 0;
}

/* An example model file (a path under examples/), compiled; NULL (a failed check) if
 * it does not. */
static inline cdevs_mo *mo_from_example(const char *file) {
  char path[512];
  cdevs_mo *mo = NULL;
  snprintf(path, sizeof path, "%s/%s", EXAMPLES, file);
  if (cdevs_mo_load(path, stderr, &mo)) check_failed++;
  return mo;
}

/* Opens an example with its experiment's tolerances and method (or method, when not
 * 0), LIQSS taking its a as jac says. */
static inline int run_open_as(run *r, const char *file, cdevs_mo_jacobian jac, cdevs_qss_method method) {
  memset(r, 0, sizeof *r);
  if (!(r->mo = mo_from_example(file))) return -1;
  cdevs_mo_experiment e;
  cdevs_mo_experiment_get(r->mo, &e);
  cdevs_mo_set_jacobian(r->mo, jac);
  return run_start(r, method ? method : e.method, e.tol, e.abstol);
}

static inline int run_open(run *r, const char *file) { return run_open_as(r, file, CDEVS_JAC_EXACT, 0); }

/* A model written in the test, compiled; NULL (a failed check) if it does not. */
static cdevs_mo *mo_from_text(const char *text) {
  cdevs_mo *mo = NULL;
  if (cdevs_mo_load_text("m.mo", text, strlen(text), stderr, &mo)) check_failed++;
  return mo;
}

/* Compiles a model written in the test and starts it. */
static inline int run_text_jac(run *r, const char *text, cdevs_qss_method method, double tol, double abstol,
                        cdevs_mo_jacobian jac) {
  memset(r, 0, sizeof *r);
  if (!(r->mo = mo_from_text(text))) return -1;
  cdevs_mo_set_jacobian(r->mo, jac);
  return run_start(r, method, tol, abstol);
}

static inline int run_text(run *r, const char *text, cdevs_qss_method method, double tol, double abstol) {
  return run_text_jac(r, text, method, tol, abstol, CDEVS_JAC_EXACT);
}

/* run_text, then simulated up to t; a failure counts as a failed check, closes r and
 * returns -1. */
static inline void run_close(run *r);
static inline int run_to(run *r, double t);
static inline int run_text_until(run *r, const char *text, cdevs_qss_method method, double tol, double abstol, double t) {
  if (run_text(r, text, method, tol, abstol)) return -1;
  if (run_to(r, t)) return 0;
  run_close(r);
  return -1;
}

/* Simulates r up to t: 1, or 0 after counting the failure with the simulator's
 * message (CHECK_RUN gives only the status). */
static inline int run_to(run *r, double t) {
  if (CHECK_RUN(cdevs_sim_run(r->sim, t))) return 1;
  fprintf(stderr, "  simulating to %g: %s\n", t, cdevs_sim_errmsg(r->sim));
  return 0;
}

/* The equation system's counters. */
static inline cdevs_mo_stats run_stats(const run *r) {
  cdevs_mo_stats st;
  cdevs_mo_stats_get(cdevs_sim_state(r->sim, r->m), &st);
  return st;
}

static inline void run_close(run *r) {
  cdevs_sim_free(r->sim);
  cdevs_model_free(r->root);
  cdevs_mo_free(r->mo);
}

static inline double x_at(run *r, uint32_t i, double t) {
  return cdevs__system_x(cdevs_sim_state(r->sim, r->m), i, t);
}

/* 1 if text fails to compile with a message holding want (else a failed check). */
static inline int load_fails(const char *text, const char *want) {
  char *buf = NULL;
  size_t len = 0;
  FILE *d = open_memstream(&buf, &len);
  cdevs_mo *mo = NULL;
  int rc = d ? cdevs_mo_load_text("m.mo", text, strlen(text), d, &mo) : 0;
  if (d) fclose(d);
  int ok = rc != 0 && buf && strstr(buf, want);
  if (!ok) fprintf(stderr, "  expected an error '%s', got: %s\n", want, buf ? buf : "(nothing)");
  CHECK(ok);
  cdevs_mo_free(mo);
  free(buf);
  return ok;
}

/* The thermostat of test_hybrid and test_ode: a hysteresis block reads T
 * (connect(T, h.u)) and switches the heater, which der(T) reads; on below 19, off
 * above 21, from T = 15 (the closed-form switch times are derived where it is used). */
static const char thermostat_mo[] =
    "model m\n"
    "  cdevs.Hysteresis h(x_on = 21, x_off = 19, low = 1, high = 0, start_high = 0);\n"
    "  Real T(start = 15);\n"
    "equation\n  der(T) = -0.1 * (T - 10) + 2 * h.y;\n  connect(T, h.u);\n"
    "  annotation(experiment(StopTime = 60, MMO_Output = {T, h.y}));\nend m;\n";

/* The thermostat's k-th switch (from 0), and how many fall in [0, 60]:
 *   on:  T' = -0.1 (T - 10) + 2, T = 30 - (30 - T0) e^{-0.1 t}: 15 -> 21 in 10 ln(15/9);
 *   off: T' = -0.1 (T - 10),     T = 10 + (T0 - 10) e^{-0.1 t}: 21 -> 19 in 10 ln(11/9);
 *   on again 19 -> 21: 30 - 11 e^{-0.1 t} = 21, in 10 ln(11/9) too.
 * |T'| is 0.9 K/s at every switch (heating at 21, cooling at 19). */
static inline double thermostat_switch(int k) { return 10 * log(15.0 / 9.0) + k * 10 * log(11.0 / 9.0); }
enum { THERMOSTAT_SWITCHES = 28 }; /* 5.108 + 2.007 k <= 60: k = 0..27 */

/* examples/bball (when y < 0 then reinit(v, -e*v)) stepped to t = 12: its impacts
 * into *n, and the worst distance from the exact impact times, t1 = sqrt(2h/g) and
 * then every 2·v_k/g with v_{k+1} = e·v_k (12 of them: the 12th at 11.87, the 13th at
 * 12.07). */
static inline double bball_impacts(run *r, int *n) {
  const double g = 9.81, h = 10.0, e = 0.8;
  double t_exact = sqrt(2 * h / g), speed = g * t_exact, worst = 0;
  uint64_t seen = 0;
  *n = 0;
  while (cdevs_sim_next_time(r->sim) <= 12.0) {
    if (!CHECK_RUN(cdevs_sim_step(r->sim))) break;
    cdevs_mo_stats st;
    cdevs_mo_stats_sim(r->mo, r->sim, &st);
    if (st.crossings > seen) {
      seen = st.crossings;
      if (fabs(cdevs_sim_time(r->sim) - t_exact) > worst) worst = fabs(cdevs_sim_time(r->sim) - t_exact);
      (*n)++;
      speed *= e;
      t_exact += 2 * speed / g;
    }
  }
  return worst;
}

/* The switch times of examples/hysdel over [0, 60] from the closed forms of its
 * modes, into want (6): with the pulse high (u = 1) for the first 10 s of each 20 s
 * period and y0 at the period's start (mode 1):
 *   mode 1, u = 1: y = 1 - (1 - y0) e^{-s/2}, at 0.5 after s1 = 2 ln((1 - y0)/0.5);
 *   mode 2, u = 1 (y' = 0.25 there): y = 1 - (0.5 + 0.25 τ) e^{-τ}, to t = 10;
 *   mode 2, u = 0: y = (C + D σ) e^{-σ}, C = y(10), D = y'(10) + C, down to 0.5 at
 *     σ2, bisected on the falling side (after the peak at σ = 1 - C/D);
 *   mode 1, u = 0: y = 0.5 e^{-(t - t_down)/2}: the next period's y0. */
static inline int hysdel_switches(double *want) {
  int nw = 0;
  double y0 = 0.0;
  for (int c = 0; c < 3; c++) {
    double s1 = 2 * log((1 - y0) / 0.5), tau = 10 - s1;
    want[nw++] = 20.0 * c + s1;
    double e = exp(-tau), y10 = 1 - (0.5 + 0.25 * tau) * e, dy10 = (0.25 * tau + 0.25) * e;
    double C = y10, D = dy10 + C, lo = 1 - C / D > 0 ? 1 - C / D : 0, hi = 50;
    for (int k = 0; k < 200; k++) {
      double mid = 0.5 * (lo + hi);
      if ((C + D * mid) * exp(-mid) > 0.5) lo = mid;
      else hi = mid;
    }
    want[nw++] = 20.0 * c + 10 + lo;
    y0 = 0.5 * exp(-(10 - lo) / 2);
  }
  return nw;
}

/* What the outputs of a model file sent: per output, its last value (as a Taylor
 * series from its time), and the times at which output `watch` changed value. */
#define MAX_OUT 16
#define MAX_CHANGES 256
typedef struct probe {
  const cdevs_mo *mo;
  cdevs_sim *sim;
  uint32_t atomic[MAX_OUT];
  int port[MAX_OUT], n;
  cdevs_value last[MAX_OUT];
  double t_last[MAX_OUT];
  int watch, nchanges;
  double changes[MAX_CHANGES], to[MAX_CHANGES];
} probe;

static inline void probe_output(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  probe *p = ud;
  for (int i = 0; i < p->n; i++) {
    if (p->atomic[i] != atomic || p->port[i] != port) continue;
    if (i == p->watch && p->t_last[i] == p->t_last[i] /* not the first */ &&
        cdevs_value_eval(v, 0) != cdevs_value_eval(&p->last[i], t - p->t_last[i]) && p->nchanges < MAX_CHANGES) {
      p->changes[p->nchanges] = t;
      p->to[p->nchanges++] = cdevs_value_eval(v, 0);
    }
    p->last[i] = *v;
    p->t_last[i] = t;
  }
}

static const cdevs_observer probe_ops = {probe_output, NULL, NULL, NULL};

/* Watches r's outputs (output `watch` for its changes; -1 for none). */
static inline int probe_start(probe *p, run *r, int watch) {
  memset(p, 0, sizeof *p);
  p->mo = r->mo;
  p->sim = r->sim;
  p->watch = watch;
  for (size_t i = 0; i < cdevs_mo_output_count(r->mo) && i < MAX_OUT; i++) {
    const cdevs_model *a;
    if (cdevs_mo_output_source(r->mo, i, &a, &p->port[i])) {
      check_failed++;
      return -1;
    }
    p->atomic[i] = cdevs_sim_atomic_id(r->sim, a);
    p->t_last[i] = NAN;
    p->n++;
  }
  return CHECK_RUN(cdevs_sim_observe(r->sim, &probe_ops, p)) ? 0 : -1;
}

/* Output i (by name) at t. */
static inline double probe_at(const probe *p, const char *name, double t) {
  for (int i = 0; i < p->n; i++)
    if (!strcmp(cdevs_mo_output_name(p->mo, (size_t)i), name)) return cdevs_value_eval(&p->last[i], t - p->t_last[i]);
  fprintf(stderr, "  no output '%s'\n", name);
  check_failed++;
  return NAN;
}

/* The index of r's output named name (a failed check and -1 if there is none). */
static inline int probe_index(const run *r, const char *name) {
  for (size_t i = 0; i < cdevs_mo_output_count(r->mo); i++)
    if (!strcmp(cdevs_mo_output_name(r->mo, i), name)) return (int)i;
  fprintf(stderr, "  no output '%s'\n", name);
  check_failed++;
  return -1;
}

/* Watches r's outputs, output `name` for its changes: 0, or -1 (a failed check). */
static inline int probe_watch(probe *p, run *r, const char *name) {
  int k = probe_index(r, name);
  return k >= 0 ? probe_start(p, r, k) : -1;
}

/* Models that must not load: head, each case's text, then tail; each fails with
 * its message. */
typedef struct bad_case {
  const char *text, *want;
} bad_case;

static inline void fails_each(const char *head, const char *tail, const bad_case *cases, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char text[1024];
    snprintf(text, sizeof text, "%s%s%s", head, cases[i].text, tail);
    load_fails(text, cases[i].want);
  }
}

/* Compiles text, watches its outputs (output `watch` for changes) and runs it to t:
 * 1 if all went well (r is then to be closed), 0 after a failed check (r closed). */
static inline int run_probed(run *r, probe *p, const char *text, cdevs_qss_method method, double tol, double abstol,
                      double t, int watch) {
  if (run_text(r, text, method, tol, abstol)) return 0;
  if (!probe_start(p, r, watch) && run_to(r, t)) return 1;
  run_close(r);
  return 0;
}

#endif
