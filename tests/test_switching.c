/* SPDX-License-Identifier: MIT */
/*
 * Models that switch their class at run time (`switch to`, src/lang/switching.c), the
 * examples of issue 21 against references computed here with SUNDIALS CVODE
 * (ref_switched: root finding on the same switching conditions, each class's
 * equations integrated in its own state space, the same handover maps), never
 * against cdevs' own output:
 *  - the string pendulum (examples/structure/string_pendulum.mo): the class switches
 *    at the reference's event times, four of them, then it stays stretched;
 *  - the machine (examples/structure/machine.mo): Engine2 swapped for Engine1 when
 *    the flywheel passes 40, then w = 40 + 18 (t - t_swap) exactly;
 *  - ARGESIM C7 by model switching (examples/c7/c7_switch.mo): the eight contacts of
 *    the pendulum switching its length (examples/c7/README.md);
 * every switch seen by the kernel's structure observer (a remove and an add each),
 * the results continuous across switches; and the language's located errors.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/cdevs.h"
#include "cdevs/ode.h"
#include "check.h"
#include "reference.h"

#ifndef EXAMPLES
#define EXAMPLES "examples"
#endif

#define MAX_EV 64

/* ---- References: ref_switched (src/cli/reference.c), CVODE in each class's states ---- */

static int reference(const ref_switched_sys *sys, int c0, const double *x0, double t_end, double *ev, int *nev,
                     int *c_end, double *x_end) {
  char err[200];
  int rc = ref_switched(sys, c0, x0, t_end, 1e-12, 1e-14, ev, NULL, MAX_EV, nev, c_end, x_end, err, sizeof err);
  if (rc) fprintf(stderr, "reference: %s\n", err);
  return rc;
}

/* The string pendulum: class 0 bound (phi, w), class 1 free (x, y, vx, vy). */
static const double SP_L = 1.0, SP_G = 9.81, SP_K = 0.1;
static void sp_rhs(int c, const double *y, double *yd, void *ud) {
  (void)ud;
  if (c == 0) {
    yd[0] = y[1];
    yd[1] = -SP_G / SP_L * sin(y[0]) - SP_K * y[1];
  } else {
    yd[0] = y[2], yd[1] = y[3];
    yd[2] = -SP_K * y[2];
    yd[3] = -SP_G - SP_K * y[3];
  }
}
/* Bound: the thread's force per unit mass L w^2 + g cos(phi) (it goes slack below 0);
 * free: x^2 + y^2 - L^2 (stretched at 0). */
static double sp_root(int c, const double *y, void *ud) {
  (void)ud;
  return c == 0 ? SP_L * y[1] * y[1] + SP_G * cos(y[0]) : y[0] * y[0] + y[1] * y[1] - SP_L * SP_L;
}
static int sp_map(int c, const double *y, double *y2, void *ud) {
  (void)ud;
  if (c == 0) {
    double phi = y[0], w = y[1];
    y2[0] = SP_L * sin(phi), y2[1] = -SP_L * cos(phi), y2[2] = SP_L * w * cos(phi), y2[3] = SP_L * w * sin(phi);
    return 1;
  }
  y2[0] = atan2(y[0], -y[1]);
  y2[1] = (y[0] * y[3] - y[1] * y[2]) / (SP_L * SP_L);
  return 0;
}

/* The machine: class 0 Engine2 (theta, w), class 1 Engine1 (w). */
static void m_rhs(int c, const double *y, double *yd, void *ud) {
  (void)ud;
  if (c == 0) {
    yd[0] = y[1];
    yd[1] = 1.8 * 10.0 * (1.0 + sin(1.8 * y[0])) / 1.0;
  } else {
    yd[0] = 1.8 * 10.0 / 1.0;
  }
}
static double m_root(int c, const double *y, void *ud) {
  (void)ud; return c == 0 ? y[1] - 40.0 : 1.0; }
static int m_map(int c, const double *y, double *y2, void *ud) {
  (void)ud;
  (void)c;
  y2[0] = y[1];
  return 1;
}

/* ---- The engine ------------------------------------------------------------------- */

typedef struct seen {
  int adds, removes;
  double t_add[MAX_EV];
  uint32_t relay;
  double final[4];
  int nfinal;
} seen;

static void on_structure(void *ud, double t, const char *what) {
  seen *s = ud;
  if (!strncmp(what, "add ", 4) && s->adds < MAX_EV) s->t_add[s->adds++] = t;
  if (!strncmp(what, "remove ", 7)) s->removes++;
}

static void on_output(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  seen *s = ud;
  (void)t;
  if (atomic != s->relay || v->kind != CDEVS_TAYLOR) return;
  if (port < 4) s->final[port] = v->u.taylor[0];
  if (port + 1 > s->nfinal) s->nfinal = port + 1;
}

/* The x (port 0) sent by the relay: a polynomial each; continuity across a switch is
 * checked on the value of the old one at t against the new one's. */
typedef struct cont {
  uint32_t relay;
  int have;
  double c[4], t0, worst;
  int port;
} cont;
static void on_cont(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  cont *k = ud;
  if (atomic != k->relay || port != k->port || v->kind != CDEVS_TAYLOR) return;
  if (k->have) {
    double tau = t - k->t0, old = k->c[0] + tau * (k->c[1] + tau * (k->c[2] + tau * k->c[3]));
    double d = fabs(old - v->u.taylor[0]);
    if (d > k->worst) k->worst = d;
  }
  k->have = 1, k->t0 = t;
  for (int i = 0; i < 4; i++) k->c[i] = i <= v->order ? v->u.taylor[i] : 0.0;
}

/* Runs mo (taken) at its own method and tolerances (or tol > 0) to t_end; what the
 * observers saw into s, k. */
static int run_mo(cdevs_mo *mo, double tol, int method, double t_end, seen *s, cont *k, cdevs_mo_stats *ms) {
  memset(s, 0, sizeof *s);
  cdevs_mo_experiment e;
  cdevs_mo_experiment_get(mo, &e);
  if (tol > 0) e.tol = tol, e.abstol = tol / 1000;
  if (method >= 0) e.method = (cdevs_qss_method)method;
  cdevs_mo_set_ode(mo, &cdevs_ode_cvode); /* (for the classical methods) */
  cdevs_model *root = cdevs_root_new(NULL, "t");
  cdevs_model *m = cdevs_mo_add(root, "m", mo, e.method, e.tol, e.abstol);
  cdevs_sim *sim = NULL;
  int rc = -1;
  if (!m || cdevs_sim_new(root, NULL, &sim)) {
    fprintf(stderr, "%s\n", cdevs_model_errmsg(root));
    check_failed++;
    goto out;
  }
  const cdevs_model *relay;
  int port;
  CHECK(cdevs_mo_output_source(mo, 0, &relay, &port) == 0 && port == 0);
  s->relay = k->relay = cdevs_sim_atomic_id(sim, relay);
  static const cdevs_observer obs = {on_output, NULL, NULL, on_structure};
  static const cdevs_observer cobs = {on_cont, NULL, NULL, NULL};
  if (!CHECK_RUN(cdevs_sim_observe(sim, &obs, s)) || !CHECK_RUN(cdevs_sim_observe(sim, &cobs, k))) goto out;
  if (!CHECK_RUN(cdevs_sim_run(sim, t_end))) {
    fprintf(stderr, "  %s\n", cdevs_sim_errmsg(sim));
    goto out;
  }
  cdevs_mo_stats_sim(mo, sim, ms);
  rc = 0;
out:
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_mo_free(mo);
  return rc;
}

static int run_file(const char *file, double t_end, seen *s, cont *k, cdevs_mo_stats *ms) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", EXAMPLES, file);
  cdevs_mo *mo = NULL;
  if (cdevs_mo_load(path, stderr, &mo)) {
    check_failed++;
    return -1;
  }
  return run_mo(mo, 0.0, -1, t_end, s, k, ms);
}

static void test_string_pendulum(void) {
  /* (bound: the force falls through 0; free: the distance rises through L) */
  static const ref_switched_sys sys = {{2, 4}, {-1, 1}, sp_rhs, sp_root, sp_map, NULL, 0};
  double ev[MAX_EV], y_end[4], y0[2] = {0.0, 7.0};
  int nev = 0, c_end = -1;
  CHECK(reference(&sys, 0, y0, 10.0, ev, &nev, &c_end, y_end) == 0);
  /* The seed's figures (Nytsch-Geusen §5, Fig. 11): four structural changes in two
   * cycles, then the thread stays stretched. */
  CHECK(nev == 4 && c_end == 0);
  /* Under each method of order 2 and 3 at Tolerance 1e-8 (AbsTolerance 1e-10): the
   * switching times to 1e-6. (Under QSS2 and LIQSS2 the thread once went taut a
   * microsecond after going slack, 14 switches in all: the handover was taken on q,
   * and a relation at exactly 0 kept reading as true after it left 0.) */
  static const cdevs_qss_method methods[] = {CDEVS_QSS3, CDEVS_QSS2, CDEVS_LIQSS2, CDEVS_LIQSS3, CDEVS_CVODE_BDF,
                                             CDEVS_CVODE_AM};
  for (size_t mi = 0; mi < sizeof methods / sizeof methods[0]; mi++) {
    char path[512];
    snprintf(path, sizeof path, "%s/structure/string_pendulum.mo", EXAMPLES);
    cdevs_mo *mo = NULL;
    if (cdevs_mo_load(path, stderr, &mo)) {
      check_failed++;
      return;
    }
    seen s;
    cont k = {.port = 0};
    cdevs_mo_stats ms;
    if (run_mo(mo, 0.0, methods[mi], 10.0, &s, &k, &ms)) return;
    CHECK(s.adds == nev && s.removes == nev && ms.switches == (uint64_t)nev);
    double worst = 0.0;
    for (int i = 0; i < nev && i < s.adds; i++) {
      double d = fabs(s.t_add[i] - ev[i]);
      if (d > worst) worst = d;
    }
    CHECK(worst < 1e-6);
    /* x is continuous across the switches (the handover maps are exact). */
    CHECK(k.worst < 1e-6);
    /* At the end it is stretched. */
    CHECK(s.nfinal == 3 && s.final[2] == 1.0);
    printf("string pendulum, %s: %d switches (reference %d: %.9f %.9f %.9f %.9f), max |dt| %.2g, max jump of x "
           "%.2g\n", cdevs_qss_method_name(methods[mi]), s.adds, nev, ev[0], ev[1], ev[2], ev[3], worst, k.worst);
  }
}

static void test_machine(void) {
  static const ref_switched_sys sys = {{2, 1}, {1, 1}, m_rhs, m_root, m_map, NULL, 0};
  double ev[MAX_EV], y_end[2], y0[2] = {0.0, 0.0};
  int nev = 0, c_end = -1;
  CHECK(reference(&sys, 0, y0, 5.0, ev, &nev, &c_end, y_end) == 0);
  CHECK(nev == 1 && c_end == 1);
  seen s;
  cont k = {.port = 0};
  cdevs_mo_stats ms;
  if (run_file("structure/machine.mo", 5.0, &s, &k, &ms)) return;
  CHECK(s.adds == 1 && s.removes == 1);
  CHECK(fabs(s.t_add[0] - ev[0]) < 1e-6);
  /* After the swap the flywheel accelerates at ratio * T / J = 18 exactly: the last
   * value sent is a line through 40 at the swap (QSS3 integrates a constant exactly). */
  double tau = 5.0 - k.t0, w5 = k.c[0] + tau * (k.c[1] + tau * (k.c[2] + tau * k.c[3]));
  printf("machine: swap at t=%.10f (reference %.10f), w jump at the swap %.2g, w(5) %.8f (40 + 18 (5 - t_swap) = "
         "%.8f)\n", s.t_add[0], ev[0], k.worst, w5, 40.0 + 18.0 * (5.0 - ev[0]));
  CHECK(k.worst < 1e-6);
  CHECK(fabs(w5 - (40.0 + 18.0 * (5.0 - ev[0]))) < 1e-5);
}

/* ARGESIM C7, experiment 1 (examples/c7/README.md): class 0 the long pendulum, 1 the
 * short one, each with (phi, v), v = len·phi' the bob's speed, which goes on at a
 * contact; the rope wraps on the pin as phi falls through phip, leaves it as it rises. */
#define C7_PI 3.14159265358979323846
static const double C7_M = 1.02, C7_L = 1.0, C7_LP = 0.7, C7_G = 9.81, C7_D = 0.2, C7_PHIP = -C7_PI / 12;
static void c7_rhs(int c, const double *x, double *dx, void *ud) {
  (void)ud;
  double len = c == 0 ? C7_L : C7_L - C7_LP;
  dx[0] = x[1] / len;
  dx[1] = -C7_G * sin(x[0]) - C7_D / C7_M * x[1];
}
static double c7_root(int c, const double *x, void *ud) {
  (void)ud;
  (void)c;
  return x[0] - C7_PHIP;
}
static int c7_map(int c, const double *x, double *y, void *ud) {
  (void)ud;
  y[0] = x[0], y[1] = x[1];
  return 1 - c;
}

static void test_c7_switch(void) {
  static const ref_switched_sys sys = {{2, 2}, {-1, 1}, c7_rhs, c7_root, c7_map, NULL, 0};
  double ref[MAX_EV], x_end[2], x0[2] = {C7_PI / 6, 0.0};
  int nref = 0, c_end = -1;
  CHECK(reference(&sys, 0, x0, 10.0, ref, &nref, &c_end, x_end) == 0);
  CHECK(nref == 8); /* (the seed's Table 1: 8 contacts, the last about 6.72) */
  seen s;
  cont k = {.port = 0};
  cdevs_mo_stats ms;
  if (run_file("c7/c7_switch.mo", 10.0, &s, &k, &ms)) return;
  CHECK(s.adds == nref && s.removes == nref);
  double worst = 0.0;
  for (int i = 0; i < nref && i < s.adds; i++)
    if (fabs(s.t_add[i] - ref[i]) > worst) worst = fabs(s.t_add[i] - ref[i]);
  CHECK(worst < 1e-6);
  CHECK(k.worst < 1e-6); /* phi continuous across the switches */
  printf("C7 by model switching: %d switches, max |dt| against CVODE %.2g\n", s.adds, worst);
}

/* ---- The language's errors ----------------------------------------------------------- */

static void expect_error(const char *name, const char *text, const char *want) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cdevs_mo *mo = NULL;
  int n = cdevs_mo_load_text(name, text, strlen(text), f, &mo);
  fclose(f);
  CHECK(n > 0 && mo == NULL && buf && strstr(buf, want) != NULL);
  if (!buf || !strstr(buf, want)) fprintf(stderr, "  %s: wanted '%s', got:\n%s\n", name, want, buf ? buf : "");
  cdevs_mo_free(mo);
  free(buf);
}

#define FREE_CLASS                                                                                                     \
  "model Free\n  Real x(start = 0), v(start = 0);\nequation\n  der(x) = v;\n  der(v) = -1;\nend Free;\n"

static void test_errors(void) {
  expect_error("unknown.mo",
               FREE_CLASS "model m\n  Real x(start = 1);\nequation\n  der(x) = -x;\nalgorithm\n  when x < 0.5 then\n"
                          "    switch to Fre(x = x);\n  end when;\nend m;\n",
               "unknown.mo:13:5: error: switch to 'Fre': no class of that name in this file; did you mean 'Free'?");
  expect_error("notvar.mo",
               FREE_CLASS "model m\n  Real x(start = 1);\nequation\n  der(x) = -x;\nalgorithm\n  when x < 0.5 then\n"
                          "    switch to Free(z = x);\n  end when;\nend m;\n",
               "notvar.mo:13:20: error: 'z' is not a variable of Free");
  expect_error("notstate.mo",
               "model Free\n  Real x(start = 0), y;\nequation\n  der(x) = 1;\n  y = 2 * x;\nend Free;\n"
               "model m\n  Real x(start = 1), y;\nequation\n  der(x) = -x;\n  y = x;\nalgorithm\n  when x < 0.5 then\n"
               "    switch to Free(y = x);\n  end when;\nend m;\n",
               "is not a state of Free");
  expect_error("result.mo",
               FREE_CLASS "model m\n  Real x(start = 1), u(start = 0);\nequation\n  der(x) = -x;\n  der(u) = 1;\n"
                          "algorithm\n  when x < 0.5 then\n    switch to Free(x = x);\n  end when;\n"
                          "  annotation(experiment(MMO_Output = {x, u}));\nend m;\n",
               "'u', a result of this model, is not a variable of Free");
  expect_error("outside.mo",
               FREE_CLASS "model m\n  Real x(start = 1);\nequation\n  der(x) = -x;\nalgorithm\n  switch to Free(x = x);\n"
                          "end m;\n",
               "outside.mo:12:3: error: 'switch to' belongs in a when clause");
  expect_error("component.mo",
               "model S\n  Real x(start = 1);\nequation\n  der(x) = -x;\nalgorithm\n  when x < 0.5 then\n"
               "    switch to S(x = 1);\n  end when;\nend S;\nmodel m\n  S s;\nend m;\n",
               "'s' is of class S, which switches to another class");
  /* A switch under LIQSS_BDF is refused when the model is added. */
  const char *ok = FREE_CLASS "model m\n  Real x(start = 1);\nequation\n  der(x) = -x;\nalgorithm\n  when x < 0.5 then\n"
                              "    switch to Free(x = x);\n  end when;\n  annotation(experiment(MMO_Output = {x}));\nend m;\n";
  cdevs_mo *mo = NULL;
  CHECK(cdevs_mo_load_text("ok.mo", ok, strlen(ok), stderr, &mo) == 0);
  if (mo) {
    cdevs_model *root = cdevs_root_new(NULL, "t");
    CHECK(cdevs_mo_add(root, "m", mo, CDEVS_LIQSS_BDF, 1e-6, 1e-8) == NULL);
    CHECK(strstr(cdevs_model_errmsg(root), "not LIQSS_BDF") != NULL);
    cdevs_model_free(root);
    /* A classical method without an integrator given (cdevs_mo_set_ode): refused. */
    root = cdevs_root_new(NULL, "t");
    CHECK(cdevs_mo_add(root, "m", mo, CDEVS_CVODE_BDF, 1e-6, 1e-8) == NULL);
    CHECK(strstr(cdevs_model_errmsg(root), "built without") != NULL);
    cdevs_model_free(root);
    /* Under QSS it switches once, at x = 0.5 (t = ln 2), then falls with v' = -1. */
    root = cdevs_root_new(NULL, "t");
    cdevs_model *m = cdevs_mo_add(root, "m", mo, CDEVS_QSS3, 1e-8, 1e-10);
    cdevs_sim *sim = NULL;
    CHECK(m && cdevs_sim_new(root, NULL, &sim) == CDEVS_OK);
    seen s;
    memset(&s, 0, sizeof s);
    static const cdevs_observer obs = {NULL, NULL, NULL, on_structure};
    if (sim && CHECK_RUN(cdevs_sim_observe(sim, &obs, &s)) && CHECK_RUN(cdevs_sim_run(sim, 2.0))) {
      CHECK(s.adds == 1 && fabs(s.t_add[0] - log(2.0)) < 1e-7);
    }
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    cdevs_mo_free(mo);
  }
}

/* A class switching to itself (a reset of its states): x' = -x from 1, restarted at 1
 * whenever it falls to 0.5, so x(3) = exp(-(3 - 4 ln 2)) after four switches. (The
 * model's own class as the only target once ran as if it did not switch: the
 * switches were dropped, x(3) = exp(-3), and the run ended with status 0.) */
static void test_self_switch(void) {
  const char *text = "model m\n  Real x(start = 1);\nequation\n  der(x) = -x;\nalgorithm\n  when x < 0.5 then\n"
                     "    switch to m(x = 1);\n  end when;\n  annotation(experiment(StopTime = 3, MMO_Output = {x}));\n"
                     "end m;\n";
  cdevs_mo *mo = NULL;
  int loaded = cdevs_mo_load_text("self.mo", text, strlen(text), stderr, &mo) == 0;
  CHECK(loaded);
  if (!loaded) return;
  seen s;
  cont k = {.port = 0};
  cdevs_mo_stats ms;
  if (run_mo(mo, 1e-9, -1, 3.0, &s, &k, &ms)) return;
  CHECK(s.adds == 4 && ms.switches == 4);
  for (int i = 0; i < s.adds; i++) CHECK(fabs(s.t_add[i] - (i + 1) * log(2.0)) < 1e-8);
  /* the last polynomial sent, at 3 */
  double tau = 3.0 - k.t0, x3 = k.c[0] + tau * (k.c[1] + tau * (k.c[2] + tau * k.c[3]));
  CHECK(fabs(x3 - exp(-(3.0 - 4.0 * log(2.0)))) < 1e-7);
}

/* A relation that starts at exactly 0 and leaves it: a bob started on the unit circle,
 * moving along it slower than a circle needs, falls inside (x^2 + y^2 >= 1 held at the
 * start, and no longer holds); `when x^2 + y^2 >= 1 and x*vx + y*vy > 0` fires when it
 * comes back out to the circle moving outward, not when it starts moving outward
 * inside (it did, at 0.5586, with x^2 + y^2 - 1 = -0.87, status 0). The reference: the
 * free flight in closed form (x'' = -k x', y'' = -g - k y') and bisection on r^2 - 1. */
typedef struct last_value {
  uint32_t atomic;
  int port;
  double v;
} last_value;
static void on_last(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  (void)t;
  last_value *l = ud;
  if (atomic == l->atomic && port == l->port) l->v = v->kind == CDEVS_TAYLOR ? v->u.taylor[0] : v->u.real;
}

static double ff_r2(double t, const double *s0, double k, double g) {
  double e = (1.0 - exp(-k * t)) / k;
  double x = s0[0] + s0[2] * e, y = s0[1] + (s0[3] + g / k) * e - g / k * t;
  return x * x + y * y - 1.0;
}
static void test_relation_from_zero(void) {
  const double phi = 2.4, w = 2.5, k = 0.1, g = 9.81;
  const double s0[4] = {sin(phi), -cos(phi), w * cos(phi), w * sin(phi)};
  /* the return to the circle: r^2 - 1 < 0 at 0.6, > 0 at 1.0 (checked), bisected */
  double lo = 0.6, hi = 1.0;
  CHECK(ff_r2(lo, s0, k, g) < 0 && ff_r2(hi, s0, k, g) > 0);
  for (int i = 0; i < 200; i++) {
    double mid = 0.5 * (lo + hi);
    if (ff_r2(mid, s0, k, g) < 0) lo = mid;
    else hi = mid;
  }
  const char *text =
      "model a\n  parameter Real phi0 = 2.4, w0 = 2.5;\n"
      "  Real x(start = sin(phi0)), y(start = -cos(phi0)), vx(start = w0 * cos(phi0)), vy(start = w0 * sin(phi0));\n"
      "  discrete Real hit(start = 0);\nequation\n  der(x) = vx;\n  der(y) = vy;\n  der(vx) = -0.1 * vx;\n"
      "  der(vy) = -9.81 - 0.1 * vy;\nalgorithm\n  when x^2 + y^2 >= 1 and x * vx + y * vy > 0 then\n"
      "    hit := time;\n  end when;\n  annotation(experiment(StopTime = 1.5, Tolerance = 1e-8, AbsTolerance = 1e-10,"
      " MMO_Output = {hit}));\nend a;\n";
  static const cdevs_qss_method methods[] = {CDEVS_QSS2, CDEVS_QSS3, CDEVS_LIQSS2, CDEVS_LIQSS3, CDEVS_CVODE_BDF,
                                             CDEVS_CVODE_AM};
  for (size_t mi = 0; mi < sizeof methods / sizeof methods[0]; mi++) {
    cdevs_mo *mo = NULL;
    int loaded = cdevs_mo_load_text("rel.mo", text, strlen(text), stderr, &mo) == 0;
    CHECK(loaded);
    if (!loaded) return;
    cdevs_mo_set_ode(mo, &cdevs_ode_cvode);
    cdevs_model *root = cdevs_root_new(NULL, "t");
    cdevs_model *m = cdevs_mo_add(root, "m", mo, methods[mi], 1e-8, 1e-10);
    cdevs_sim *sim = NULL;
    CHECK(m && cdevs_sim_new(root, NULL, &sim) == CDEVS_OK);
    last_value lv = {UINT32_MAX, 0, NAN};
    const cdevs_model *src;
    static const cdevs_observer obs = {on_last, NULL, NULL, NULL};
    if (sim && cdevs_mo_output_source(mo, 0, &src, &lv.port) == 0) lv.atomic = cdevs_sim_atomic_id(sim, src);
    if (sim && CHECK_RUN(cdevs_sim_observe(sim, &obs, &lv)) && CHECK_RUN(cdevs_sim_run(sim, 1.5))) {
      double hit = lv.v; /* (the last value of hit the system sent) */
      CHECK(fabs(hit - lo) < 1e-6);
      if (!(fabs(hit - lo) < 1e-6))
        fprintf(stderr, "  %s: fired at %.10f, the bob is back on the circle at %.10f\n",
                cdevs_qss_method_name(methods[mi]), hit, lo);
    }
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    cdevs_mo_free(mo);
  }
}

int main(void) {
  test_relation_from_zero();
  test_self_switch();
  test_string_pendulum();
  test_machine();
  test_c7_switch();
  test_errors();
  return check_report("test_switching");
}
