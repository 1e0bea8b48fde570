/* SPDX-License-Identifier: MIT */
/*
 * Mixed models (issue 18): equations that read the outputs of library blocks and
 * blocks that read the equations' variables, checked against closed forms; and the
 * located errors of connections that cannot work.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mo_run.h"


/* der(x) = r.y reads a ramp (x = t²/2); a block integrates v = 2x (connect(v, k.u)):
 * k.y = 1 + t³/3. */
static void test_equations_and_blocks(void) {
  const char *text =
      "model m\n"
      "  cdevs.Ramp r(t_start = 0, t_end = 10, y_start = 0, y_end = 10);\n"
      "  cdevs.Integrator k(x0 = 1);\n"
      "  Real x(start = 0);\n  Real v;\n"
      "equation\n  der(x) = r.y;\n  v = 2 * x;\n  connect(v, k.u);\n"
      "  annotation(experiment(StopTime = 3, MMO_Output = {x, k.y}));\nend m;\n";
  static const cdevs_qss_method methods[] = {CDEVS_QSS2, CDEVS_QSS3, CDEVS_LIQSS2};
  for (int mi = 0; mi < (int)COUNT(methods); mi++) {
    run r;
    probe p;
    const double tol = 1e-6, abstol = 1e-9;
    if (run_text(&r, text, methods[mi], tol, abstol)) continue;
    if (!probe_start(&p, &r, -1) && run_to(&r, 3.0)) {
      double x = probe_at(&p, "x", 3.0), ky = probe_at(&p, "k.y", 3.0);
      printf("%s: x(3) = %.12g (4.5), k.y(3) = %.12g (10)\n", cdevs_qss_method_name(methods[mi]), x, ky);
      /* x: a quadratic, exact for QSS2/3; what is sent is q, within a quantum of x
       * (two under LIQSS, whose q may lead x). */
      CHECK_NEAR(x, 4.5, 2 * 4.5 * tol);
      /* k.y: its q (what it sends) within a quantum of its x, and x's error over 3 s
       * with an input that is itself within a quantum of 2x: 3·2·4.5·tol. */
      CHECK_NEAR(ky, 10.0, 10 * tol + 3 * 2 * 4.5 * tol);
    }
    run_close(&r);
  }
}

/* The thermostat (thermostat_mo, tests/mo_run.h): a hysteresis block and the
 * equations in a loop, its switches at the closed-form times. */
static void test_thermostat(void) {
  const char *text = thermostat_mo;
  run r;
  probe p;
  const double tol = 1e-8, abstol = 1e-10;
  if (run_text(&r, text, CDEVS_QSS3, tol, abstol)) return;
  if (!probe_watch(&p, &r, "h.y") && run_to(&r, 60.0)) {
    double worst = 0;
    /* Each switch where q_T meets the threshold: within a quantum (21·tol) over the
     * slope there (0.9 K/s), 2.3e-7 s, plus the error T has gathered, which the next
     * switch inherits: a few quanta per cycle over 14 cycles; 1e-5 s is ample and far
     * below the half period (2.007 s) a missed or extra switch would show. */
    CHECK_EQ_INT(p.nchanges, THERMOSTAT_SWITCHES);
    for (int k = 0; k < p.nchanges; k++) {
      worst = worst_of(worst, fabs(p.changes[k] - thermostat_switch(k)));
      CHECK_NEAR(p.to[k], k % 2 ? 1.0 : 0.0, 0.0);
    }
    printf("thermostat: %d switches, worst |dt| %.3g\n", p.nchanges, worst);
    CHECK(worst < 1e-5);
  }
  run_close(&r);
}

/* A when clause on a block's output: not at the start, where the output's first
 * event replaces the input's start value (c.y > 0.5 holds from t = 0: Modelica does
 * not fire a when that is true at initialisation); once at a step's time. */
static void test_when_on_block_output(void) {
  const char *text =
      "model m\n"
      "  cdevs.Constant c(value = 1);\n  cdevs.Step s(t_step = 1.5, before = 0, after = 2);\n"
      "  discrete Real n(start = 0), ts(start = -1);\n  Real x(start = 0);\n"
      "equation\n  der(x) = s.y;\n"
      "algorithm\n  when c.y > 0.5 then\n    n := n + 1;\n  end when;\n"
      "  when s.y > 1 then\n    ts := time;\n  end when;\n"
      "  annotation(experiment(StopTime = 3, MMO_Output = {x, n, ts}));\nend m;\n";
  run r;
  probe p;
  if (!run_probed(&r, &p, text, CDEVS_QSS2, 1e-6, 1e-9, 3.0, -1)) return;
  CHECK_NEAR(probe_at(&p, "n", 3.0), 0.0, 0.0);
  CHECK_NEAR(probe_at(&p, "ts", 3.0), 1.5, 0.0);
  CHECK_NEAR(probe_at(&p, "x", 3.0), 3.0, 1e-9); /* 2·(3 - 1.5) */
  run_close(&r);
}

/*
 * A comparator on an algebraic copy of a state (th = theta, connect(th, c.u)) and a
 * when clause on its output: the pendulum der(theta) = omega, der(omega) = -w2·sin(theta)
 * from rest at theta0 = -1. Each change of c.y reached the equations, which sent th
 * again although th does not read c.y; at the comparator's own crossing that value is
 * off 0 by the rounding of the instant (2.6e-16 on the side just left), which it took
 * for a jump back: "more than 10^6 transitions at one instant" at the first fall
 * (t = 3T/4 = 1.589 here). Now th is sent only when what it
 * reads changes, and the comparator takes a value within rounding of the level just
 * crossed as the level. theta crosses 0 at T/4 + j·T/2, with the period
 * T = 4·K(sin(theta0/2)) / sqrt(w2), K the complete elliptic integral of the first kind
 * (by the arithmetic-geometric mean: K(k) = π / (2·agm(1, sqrt(1 - k²)))). The error of
 * each crossing time: theta's error (a few quanta, 1e-8 relative, over the 10 s) over
 * its slope there (|omega| = 2·sqrt(w2)·sin(1/2) = 3.03); 1e-6 is ample and far below
 * the half period (1.06) a missed or extra edge would show.
 */
static void test_comparator_on_algebraic(void) {
  const char *text =
      "model m\n  parameter Real w2 = 10;\n  Real theta(start = -1), omega(start = 0);\n"
      "  cdevs.Comparator c(level = 0, low = 0, high = 1);\n  discrete Real n(start = 0);\n  Real th;\n"
      "equation\n  der(theta) = omega;\n  der(omega) = -w2 * sin(theta);\n  th = theta;\n  connect(th, c.u);\n"
      "algorithm\n  when c.y > 0.5 then\n    n := pre(n) + 1;\n  elsewhen c.y < 0.5 then\n    n := pre(n) + 1;\n"
      "  end when;\n  annotation(experiment(MMO_Output = {theta, n, c.y}));\nend m;\n";
  double a = 1.0, g = sqrt(1.0 - sin(0.5) * sin(0.5));
  for (int i = 0; i < 8; i++) {
    double an = 0.5 * (a + g);
    g = sqrt(a * g), a = an;
  }
  const double T = 4.0 * (3.14159265358979323846 / (2.0 * a)) / sqrt(10.0);
  run r;
  probe p;
  if (run_text(&r, text, CDEVS_QSS3, 1e-8, 1e-10)) return;
  if (!probe_watch(&p, &r, "c.y") && run_to(&r, 10.0)) {
    int want = (int)floor((10.0 - T / 4.0) / (T / 2.0)) + 1; /* crossings in [0, 10] */
    double worst = 0.0;
    CHECK_EQ_INT(p.nchanges, want);
    for (int k = 0; k < p.nchanges; k++) {
      worst = worst_of(worst, fabs(p.changes[k] - (T / 4.0 + k * T / 2.0)));
      CHECK_NEAR(p.to[k], k % 2 ? 0.0 : 1.0, 0.0); /* up first: theta rises from -1 */
    }
    CHECK_NEAR(probe_at(&p, "n", 10.0), (double)want, 0.0);
    printf("comparator on th = theta: %d edges, worst |dt| %.3g\n", p.nchanges, worst);
    CHECK(worst < 1e-6);
  }
  run_close(&r);
}

/* An algebraic output through a gain back into the equations, a loop with a state on
 * it (lang_check_loops lets it be): der(x) = -0.5·z, z = 2·th, th = x, so x = e^-t.
 * Every event of z made the equations send th again, the gain z again: a zero-time
 * loop at t = 0. */
static void test_algebraic_output_fed_back(void) {
  const char *text =
      "model m\n  cdevs.Gain g(k = 2);\n  Real x(start = 1);\n  Real th, z;\n"
      "equation\n  der(x) = -0.5 * z;\n  th = x;\n  connect(th, g.u);\n  connect(g.y, z);\n"
      "  annotation(experiment(MMO_Output = {x}));\nend m;\n";
  run r;
  probe p;
  if (!run_probed(&r, &p, text, CDEVS_QSS3, 1e-8, 1e-10, 2.0, -1)) return;
  /* x's error: a few quanta (1e-8 relative) gathered over 2 s, and q within one of x. */
  CHECK_NEAR(probe_at(&p, "x", 2.0), exp(-2.0), 1e-6);
  run_close(&r);
}

/* A block diagram's nonlinear function of an exact ramp: a' = 1 sends its series once
 * (a = t is exact, a never requantizes), so cos's output, the series of cos(t) at 0,
 * was integrated for the whole run (b(10) = 10 under QSS2 for sin(10) = -0.544). The
 * Func block now sends cos again where its series leaves the run's quantum
 * (max(1e-6·|y|, 1e-9)): b's input stays within 1e-6 of cos(t), so b, its exact
 * integral, within 1e-5 of sin(t) at t = 10, and b.y (q) within a quantum more. */
static void test_nonlinear_block_refresh(void) {
  const char *text = "model m\n  cdevs.Constant c(value = 1);\n  cdevs.Integrator a(x0 = 0);\n  cdevs.Func f(fn = cos);\n"
                     "  cdevs.Integrator b(x0 = 0);\nequation\n  connect(c.y, a.u);\n  connect(a.y, f.u);\n"
                     "  connect(f.y, b.u);\n  annotation(experiment(MMO_Output = {b.y}));\nend m;\n";
  static const cdevs_qss_method ms[] = {CDEVS_QSS2, CDEVS_QSS3, CDEVS_LIQSS2};
  for (int k = 0; k < (int)COUNT(ms); k++) {
    run r;
    probe p;
    if (!run_probed(&r, &p, text, ms[k], 1e-6, 1e-9, 10.0, -1)) continue;
    double b = probe_at(&p, "b.y", 10.0);
    printf("cos of a ramp, %s: b(10) = %.9f (sin(10) = %.9f)\n", cdevs_qss_method_name(ms[k]), b, sin(10.0));
    CHECK_NEAR(b, sin(10.0), 1e-5 + 1e-6);
    run_close(&r);
  }
}

/* A value that is not finite on its way to the equations (a gain overflowing) is an
 * error, named where it arises: the gain's output. */
static void test_input_not_finite(void) {
  const char *text = "model m\n  cdevs.Constant c(value = 1e308);\n  cdevs.Gain i(k = 10);\n  Real x(start = 0);\n"
                     "equation\n  connect(c.y, i.u);\n  der(x) = i.y;\nend m;\n";
  run r;
  if (run_text(&r, text, CDEVS_QSS2, 1e-6, 1e-9)) return;
  int rc = cdevs_sim_run(r.sim, 1.0);
  const char *msg = cdevs_sim_errmsg(r.sim);
  CHECK(rc != 0);
  if (rc == 0 || !strstr(msg, "model.i'")) fprintf(stderr, "  got: %s\n", msg);
  CHECK(rc != 0 && strstr(msg, "model.i': the output is not finite"));
  run_close(&r);
}

/* Connections that cannot work, each a located error at load. */
static void test_connection_errors(void) {
  const char *head = "model m\n  cdevs.Integrator k;\n  cdevs.Gain g(k = 2);\n  parameter Real p = 1;\n"
                     "  Real x(start = 1), u;\n  input Real w;\nequation\n";
  static const bad_case cases[] = {
      {"  der(x) = k.u;\n", "m.mo:8:12: error: 'k.u' is an input of 'k'"},
      {"  der(x) = k.z;\n", "'k.z' is not an output of a component"},
      {"  der(x) = -x;\n  connect(p, k.u);\n", "'p' is a parameter or constant"},
      {"  der(x) = -x;\n  connect(k.y, x);\n", "'x' is a state"},
      {"  der(x) = -x;\n  connect(x, k.q);\n", "'k.q' is not a port of a component"},
      {"  der(x) = -x + w;\n", "input 'w' is not connected"},
      {"  der(x) = -x;\n  u = 1;\n  connect(g.y, u);\n", "'u' is defined by two equations"},
      /* Loops with no state on the way: through the equations, and through blocks alone. */
      {"  der(x) = -x;\n  u = x + g.y;\n  connect(u, g.u);\n",
       "m.mo:10:3: error: an instantaneous loop: 'u' reaches itself through blocks"},
      {"  der(x) = -x;\n  connect(g.y, g.u);\n", "m.mo:9:3: error: an instantaneous loop: reaches itself"},
      /* The variable sent to two blocks, the loop through the second (it passed). */
      {"  der(x) = -x;\n  u = x + g.y;\n  connect(u, k.u);\n  connect(u, g.u);\n",
       "m.mo:11:3: error: an instantaneous loop: 'u' reaches itself"},
  };
  fails_each(head, "end m;\n", cases, sizeof cases / sizeof cases[0]);
}

/* Model classes as components, nested, with modifiers (a modifier's name is the
 * component's element, its value read in the enclosing class: area = area): two
 * linear tanks in series
 * (h' = (qin - k h)/area, qout = k h) inside a class Cascade, fed by a constant
 * block. With q the inflow, a_i = k_i/A_i:
 *   h1 = q/k1 + (h10 - q/k1) e^{-a1 t}
 *   h2 = q/k2 + C/(a2 - a1) e^{-a1 t} + D e^{-a2 t},  C = (k1 h10 - q)/A2,
 *        D = h20 - q/k2 - C/(a2 - a1). */
static const char *tank_class =
    "model LinTank\n  parameter Real area = 1, k = 0.5;\n  input Real qin;\n  output Real qout;\n"
    "  Real h(start = 1);\nequation\n  der(h) = (qin - qout) / area;\n  qout = k * h;\nend LinTank;\n";

static void test_model_classes(void) {
  char text[2048];
  snprintf(text, sizeof text,
           "%s"
           "model Cascade\n  parameter Real area = 1;\n  input Real qin;\n  output Real qout;\n"
           "  LinTank upper(area = area, h(start = 2));\n  LinTank lower(k = 0.25);\n"
           "equation\n  connect(qin, upper.qin);\n  connect(upper.qout, lower.qin);\n  connect(lower.qout, qout);\n"
           "end Cascade;\n"
           "model m\n  Cascade c(area = 2, upper(k = 1), lower(h(start = 3)));\n  cdevs.Constant src(value = 0.3);\n"
           "equation\n  connect(src.y, c.qin);\n"
           "  annotation(experiment(StopTime = 3, MMO_Output = {c.upper.h, c.lower.h, c.qout}));\nend m;\n",
           tank_class);
  run r;
  probe p;
  const double tol = 1e-8;
  if (run_text(&r, text, CDEVS_QSS3, tol, 1e-12)) return;
  if (!probe_start(&p, &r, -1) && run_to(&r, 3.0)) {
    const double q = 0.3, A1 = 2, k1 = 1, A2 = 1, k2 = 0.25, h10 = 2, h20 = 3, t = 3;
    double a1 = k1 / A1, a2 = k2 / A2, C = (k1 * h10 - q) / A2, D = h20 - q / k2 - C / (a2 - a1);
    double h1 = q / k1 + (h10 - q / k1) * exp(-a1 * t);
    double h2 = q / k2 + C / (a2 - a1) * exp(-a1 * t) + D * exp(-a2 * t);
    double g1 = probe_at(&p, "c.upper.h", t), g2 = probe_at(&p, "c.lower.h", t), qo = probe_at(&p, "c.qout", t);
    printf("classes: h1(3) = %.10g (%.10g), h2(3) = %.10g (%.10g)\n", g1, h1, g2, h2);
    /* Stable and linear: the error stays within a few quanta (tol·|h|) over 3 s. */
    CHECK_NEAR(g1, h1, 10 * tol * 2);
    CHECK_NEAR(g2, h2, 10 * tol * 3);
    CHECK_NEAR(qo, k2 * h2, 10 * tol * 3 * k2);
  }
  run_close(&r);
}

/* A class from a file on CDEVS_PATH (LinTank.mo), and its errors located in that
 * file. */
static void test_class_library(void) {
  char dir[] = "/tmp/cdevs_libXXXXXX", path[300];
  if (!mkdtemp(dir)) {
    check_failed++;
    return;
  }
  snprintf(path, sizeof path, "%s/LinTank.mo", dir);
  FILE *f = fopen(path, "w");
  if (f) fputs(tank_class, f), fclose(f);
  char bad[300];
  snprintf(bad, sizeof bad, "%s/Leaky.mo", dir);
  f = fopen(bad, "w");
  if (f) fputs("model Leaky\n  Real h(start = 1);\nequation\n  der(h) = -hh;\nend Leaky;\n", f), fclose(f);
  setenv("CDEVS_PATH", dir, 1);
  run r;
  probe p;
  const char *text = "model m\n  LinTank t(k = 2);\n  cdevs.Constant src(value = 1);\nequation\n"
                     "  connect(src.y, t.qin);\n  annotation(experiment(MMO_Output = {t.h}));\nend m;\n";
  if (!run_text(&r, text, CDEVS_QSS3, 1e-8, 1e-12)) {
    /* h' = 1 - 2h, h(0) = 1: h = 0.5 + 0.5 e^{-2t} */
    if (!probe_start(&p, &r, -1) && run_to(&r, 1.0))
      CHECK_NEAR(probe_at(&p, "t.h", 1.0), 0.5 + 0.5 * exp(-2.0), 1e-7);
    run_close(&r);
  }
  char want[400];
  snprintf(want, sizeof want, "%s:4:13: error: unknown variable 'hh'; did you mean 'h'?", bad);
  load_fails("model m\n  Leaky l;\nend m;\n", want);
  load_fails("model m\n  LinTunk t;\nend m;\n", "unknown type 'LinTunk' of 't'");
  /* A folder named like a class file is not one (it was read, failed, and the model
   * loaded with nothing in it). */
  char sub[300];
  snprintf(sub, sizeof sub, "%s/Dir.mo", dir);
  CHECK(mkdir(sub, 0700) == 0);
  load_fails("model m\n  Dir d;\nend m;\n", "unknown type 'Dir' of 'd'");
  rmdir(sub);
  load_fails("model m\n  LinTank t(aera = 2);\nend m;\n", "class 'LinTank' has no element 'aera'; did you mean 'area'?");
  load_fails("model m\n  LinTank t(h = 2);\nend m;\n", "set its start value with h(start = …)");
  load_fails("model m\n  LinTank t(h(stat = 2));\nend m;\n", "'stat' of 'h' is not an attribute");
  load_fails("model m\n  LinTank t(qin = 1);\n  Real y;\nequation\n  y = t.hh;\nend m;\n",
             "m.mo:5:7: error: 't' has no variable 'hh'; did you mean 't.h'?");
  load_fails("model A\n  B b;\nend A;\nmodel B\n  A a;\nend B;\nmodel m\n  A x;\nend m;\n", "contains itself");
  load_fails("model m\n  m again;\n  Real x(start = 1);\nequation\n  der(x) = -x;\nend m;\n",
             "m.mo:2:5: error: 'again' is of the model's own class 'm': a class cannot contain itself");
  load_fails("model m\n  LinTank t;\nend m;\n", "m.mo:2:11: error: input 't.qin' (of class LinTank) is not connected");
  const char *bound = "model m\n  LinTank t(qin = 1, k = 2);\nend m;\n";
  if (!run_text(&r, bound, CDEVS_QSS3, 1e-8, 1e-12)) {
    if (run_to(&r, 1.0)) CHECK_NEAR(x_at(&r, 0, 1.0), 0.5 + 0.5 * exp(-2.0), 1e-7);
    run_close(&r);
  }
  unsetenv("CDEVS_PATH");
  remove(path), remove(bad), rmdir(dir);
}

/* Which class a name means: a library file's own helper classes before the model's
 * classes of the same name (Pipe.mo's Valve, k = 2, not the model's, k = 100); a
 * qualified name and a plain one read different files (Lib.Decay: k = 3, Decay: k =
 * 1); a file read once however many components use it (40 Lib.Decay: once). And
 * modifiers merged at every depth: r(q(t(area = 9))) over Pair's t(k = 7). Each
 * state decays as e^{-k t / area}, read at t = 1. */
static void test_class_scoping(void) {
  char dir[] = "/tmp/cdevs_scopeXXXXXX", path[400];
  if (!mkdtemp(dir)) {
    check_failed++;
    return;
  }
  static const char *const files[][2] = {
      {"Lib", NULL},
      {"Lib/Decay.mo", "model Decay\n  parameter Real k = 3;\n  Real x(start = 1);\nequation\n  der(x) = -k * x;\nend Decay;\n"},
      {"Decay.mo", "model Decay\n  parameter Real k = 1;\n  Real x(start = 1);\nequation\n  der(x) = -k * x;\nend Decay;\n"},
      {"Pipe.mo", "model Valve\n  parameter Real k = 2;\nend Valve;\nmodel Pipe\n  Valve v;\n  Real x(start = 1);\n"
                  "equation\n  der(x) = -v.k * x;\nend Pipe;\n"},
  };
  for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
    if (!files[i][1]) {
      CHECK(mkdir(path, 0700) == 0);
      continue;
    }
    FILE *f = fopen(path, "w");
    if (f) fputs(files[i][1], f), fclose(f);
  }
  setenv("CDEVS_PATH", dir, 1);
  char text[4096];
  int n = snprintf(text, sizeof text,
                   "model Valve\n  parameter Real k = 100;\nend Valve;\n"
                   "model Tk\n  parameter Real area = 1, k = 1;\n  Real h(start = 1);\nequation\n  der(h) = -k * h / area;\n"
                   "end Tk;\nmodel Pair\n  Tk t(k = 7);\nend Pair;\nmodel Triple\n  Pair q;\nend Triple;\n"
                   "model m\n  Lib.Decay a;\n  Decay b;\n  Pipe p;\n  Triple r(q(t(area = 9)));\n");
  for (int i = 0; i < 40; i++) n += snprintf(text + n, sizeof text - (size_t)n, "  Lib.Decay d%d;\n", i);
  snprintf(text + n, sizeof text - (size_t)n, "  annotation(experiment(MMO_Output = {a.x, b.x, p.x, r.q.t.h, d39.x}));\nend m;\n");
  run r;
  probe p;
  if (run_probed(&r, &p, text, CDEVS_QSS3, 1e-9, 1e-12, 1.0, -1)) {
    CHECK_NEAR(probe_at(&p, "a.x", 1.0), exp(-3.0), 1e-8);
    CHECK_NEAR(probe_at(&p, "b.x", 1.0), exp(-1.0), 1e-8);
    CHECK_NEAR(probe_at(&p, "p.x", 1.0), exp(-2.0), 1e-8);
    CHECK_NEAR(probe_at(&p, "r.q.t.h", 1.0), exp(-7.0 / 9.0), 1e-8);
    CHECK_NEAR(probe_at(&p, "d39.x", 1.0), exp(-3.0), 1e-8);
    run_close(&r);
  }
  /* A component takes modifiers, not a value; an element is modified once. */
  load_fails("model m\n  Decay t = 3;\nend m;\n", "m.mo:2:9: error: 't' is a component: give it modifiers");
  load_fails("model m\n  Decay t(k = 2, k = 3);\nend m;\n", "m.mo:2:18: error: 'k' is modified twice");
  unsetenv("CDEVS_PATH");
  for (size_t i = sizeof files / sizeof files[0]; i-- > 0;) {
    snprintf(path, sizeof path, "%s/%s", dir, files[i][0]);
    remove(path);
  }
  rmdir(dir);
}

/* The HYSDEL paper's two-mode system (examples/hysdel): its mode switches against
 * the closed forms of each mode (hysdel_switches, tests/mo_run.h). */
static void test_hysdel(void) {
  double want[6];
  int nw = hysdel_switches(want);
  run r;
  probe p;
  if (run_open(&r, "hysdel/hysdel.mo")) return;
  if (!probe_watch(&p, &r, "mode") && run_to(&r, 60.0)) {
    CHECK_EQ_INT(p.nchanges, nw);
    double worst = 0;
    for (int k = 0; k < nw && k < p.nchanges; k++) {
      worst = worst_of(worst, fabs(p.changes[k] - want[k]));
      CHECK_NEAR(p.to[k], k % 2 ? 1.0 : 2.0, 0.0);
    }
    printf("hysdel: %d switches, the first at %.9f (2 ln 2 = %.9f), worst |dt| %.2g\n", p.nchanges,
           p.nchanges ? p.changes[0] : NAN, 2 * log(2.0), worst);
    /* Tolerance 1e-6 on y <= 1, slopes 0.25 (up) and about 0.3 (down): a switch's
     * own error, where q (within a quantum of y) meets the threshold, is at most a
     * quantum over the slope, 4e-6 s; the y error a mode hands to the next shifts
     * the next switch by its own size over the slope, and both modes are stable
     * (they contract it). 1e-5 s, 2.5 quanta of time, holds both. */
    CHECK(worst < 1e-5);
  }
  run_close(&r);
}

/* pre() in a when clause is the value before the event, whatever the handler has
 * assigned since (b := pre(a) after a := 5 reads 1); elsewhere it is the value. */
static void test_pre(void) {
  const char *text = "model m\n  discrete Real a(start = 1), b(start = 0), c(start = 0), n(start = 0);\n"
                     "  Real x(start = 0);\nequation\n  der(x) = pre(a);\n"
                     "algorithm\n  when time > 0.5 then\n    a := 5;\n    b := pre(a);\n    c := a;\n"
                     "    n := pre(n) + 1;\n  end when;\n"
                     "  annotation(experiment(StopTime = 1, MMO_Output = {x, a, b, c, n}));\nend m;\n";
  run r;
  probe p;
  if (!run_probed(&r, &p, text, CDEVS_QSS2, 1e-8, 1e-12, 1.0, -1)) return;
  CHECK_NEAR(probe_at(&p, "b", 1.0), 1.0, 0.0);
  CHECK_NEAR(probe_at(&p, "c", 1.0), 5.0, 0.0);
  CHECK_NEAR(probe_at(&p, "n", 1.0), 1.0, 0.0);
  CHECK_NEAR(probe_at(&p, "x", 1.0), 0.5 * 1 + 0.5 * 5, 1e-7); /* 1 until 0.5, then 5 */
  run_close(&r);
  load_fails("model m\n  discrete Real a[2];\nalgorithm\n  when time > 1 then\n    a[1] := pre(a);\n"
             "  end when;\nend m;\n", "pre() takes one element of the array 'a'");
}

/* An algorithm section outside when clauses (S15, "pure Modelica" if statements):
 * computed in order, with each relation an event. x' = y, y = -1 while x > 0.5,
 * else -2: x = 1 - t to t = 0.5, then 0.5 - 2 (t - 0.5); z reads y as the branch
 * left it; w[i] = i·x from a for loop. */
static void test_algorithm_statements(void) {
  const char *text = "model m\n  Real x(start = 1), y, z, w[3];\nalgorithm\n  y := -2;\n  z := 0;\n"
                     "  if x > 0.5 then\n    y := -1;\n    z := y * 3;\n  end if;\n"
                     "  for i in 1:3 loop\n    w[i] := i * x;\n  end for;\n"
                     "equation\n  der(x) = y;\n  annotation(experiment(StopTime = 1, MMO_Output = {x, y, z, w}));\nend m;\n";
  run r;
  probe p;
  if (!run_probed(&r, &p, text, CDEVS_QSS2, 1e-8, 1e-12, 1.0, 1)) return;
  CHECK_EQ_INT(p.nchanges, 1);
  CHECK_NEAR(p.changes[0], 0.5, 1e-7);
  CHECK_NEAR(probe_at(&p, "x", 1.0), -0.5, 1e-7);
  CHECK_NEAR(probe_at(&p, "z", 1.0), 0.0, 0.0);
  CHECK_NEAR(probe_at(&p, "w[3]", 1.0), -1.5, 3e-7);
  run_close(&r);
  const char *head = "model m\n  Real x(start = 1), y;\n  discrete Real d;\nalgorithm\n";
  static const bad_case bad[] = {
      {"  if x > 0 then\n    y := 1;\n  end if;\n", "'y' is not assigned in every branch of this if, nor before it"},
      {"  x := 2;\n", "'x' is a state"},
      {"  d := 2;\n", "'d' is discrete (set it in a when clause)"},
  };
  fails_each(head, "equation\n  der(x) = -x;\nend m;\n", bad, sizeof bad / sizeof bad[0]);
  /* A comprehension reads what the section assigned before it (z = sum of y = 1 over
   * two terms: 2, not the later y = 5), and an outer loop's index as a number
   * (w[j] = sum(j·i, i = 1..2) = 3j); when clauses in nested loops are when clauses
   * (n[i, j] counts x falling through 0.5 + 0.1·(i + j)). A comprehension's own
   * index in a subscript is its own, not an outer loop's of the same name, and sums
   * read u before its later assignment: at t = 1, x = 0 and u = {1, 2, 3}, so v[1]
   * = v[2] = s = s2 = 1 + 2 + 3 = 6 (they were 3, 6, 5: u[i]·3 from the outer i, and
   * the final u[1] = 0). */
  const char *more =
      "model m\n  Real x(start = 1), y, z, w[2], u[3], v[2], s, s2;\n  discrete Real n[2, 2];\nequation\n"
      "  der(x) = -1;\n"
      "algorithm\n  y := 1;\n  z := sum(y for i in 1:2);\n  y := 5;\n"
      "  for j in 1:2 loop\n    w[j] := sum(j * i for i in 1:2);\n  end for;\n"
      "  for i in 1:3 loop\n    u[i] := i * (1 + x);\n  end for;\n"
      "  for i in 1:2 loop\n    v[i] := sum(u[i] for i in 1:3);\n  end for;\n"
      "  s := sum(u);\n  s2 := sum(u[j] for j in 1:3);\n  u[1] := 0;\n"
      "  for i in 1:2 loop\n    for j in 1:2 loop\n      when x < 0.5 + 0.1 * (i + j) then\n"
      "        n[i, j] := time;\n      end when;\n    end for;\n  end for;\n"
      "  annotation(experiment(StopTime = 1, MMO_Output = {y, z, w, n, v, s, s2, u[1]}));\nend m;\n";
  if (run_probed(&r, &p, more, CDEVS_QSS2, 1e-9, 1e-12, 1.0, -1)) {
    CHECK_NEAR(probe_at(&p, "v[1]", 1.0), 6.0, 1e-8);
    CHECK_NEAR(probe_at(&p, "v[2]", 1.0), 6.0, 1e-8);
    CHECK_NEAR(probe_at(&p, "s", 1.0), 6.0, 1e-8);
    CHECK_NEAR(probe_at(&p, "s2", 1.0), 6.0, 1e-8);
    CHECK_NEAR(probe_at(&p, "u[1]", 1.0), 0.0, 0.0);
    CHECK_NEAR(probe_at(&p, "y", 1.0), 5.0, 0.0);
    CHECK_NEAR(probe_at(&p, "z", 1.0), 2.0, 0.0);
    CHECK_NEAR(probe_at(&p, "w[1]", 1.0), 3.0, 0.0);
    CHECK_NEAR(probe_at(&p, "w[2]", 1.0), 6.0, 0.0);
    /* x = 1 - t reaches 0.5 + 0.1 (i + j) at t = 0.5 - 0.1 (i + j). */
    CHECK_NEAR(probe_at(&p, "n[1,1]", 1.0), 0.3, 1e-8);
    CHECK_NEAR(probe_at(&p, "n[2,2]", 1.0), 0.1, 1e-8);
    run_close(&r);
  }
  /* An if whose condition is fixed (a loop index's) runs one branch, as an if
   * equation: c[i] = c[i - 1] + x from c[1] = x is i·x, x = e^{-t} (it was "index 0
   * out of bounds" from the branch not taken at i = 1). */
  const char *fixed = "model m\n  Real x(start = 1), c[3];\nalgorithm\n  for i in 1:3 loop\n    if i > 1 then\n"
                      "      c[i] := c[i - 1] + x;\n    else\n      c[i] := x;\n    end if;\n  end for;\n"
                      "equation\n  der(x) = -x;\n  annotation(experiment(MMO_Output = {c}));\nend m;\n";
  if (run_probed(&r, &p, fixed, CDEVS_QSS3, 1e-9, 1e-12, 1.0, -1)) {
    CHECK_NEAR(probe_at(&p, "c[3]", 1.0), 3.0 * exp(-1.0), 1e-7);
    run_close(&r);
  }
  /* An expression that doubles at each step: refused, not a gigabyte of code. */
  load_fails("model m\n  Real x(start = 1), y;\nalgorithm\n  y := x;\n  for i in 1:30 loop\n    y := y + y;\n"
             "  end for;\nequation\n  der(x) = -y;\nend m;\n",
             "m.mo:6:5: error: the value of 'y' grows beyond 1000000 terms");
}

/* The controlled vessel (examples/vessel): its controller's phase changes against the
 * closed forms of each phase. Filling (phi = 0.01, W = 0) keeps l (T - Tin) constant:
 * from l_low = 0.2 at T = 60 to l_high = 1 takes 80 s and ends at T = 15 + 0.2·45/1 =
 * 24; heating (W = 1e6, phi = 0) takes (60 - 24) c rho A l_high / W = 150.696 s;
 * draining (phi = -0.02) 40 s at constant T. */
static void test_vessel(void) {
  run r;
  probe p, cold;
  if (run_open(&r, "vessel/vessel.mo")) return;
  if (!probe_watch(&p, &r, "phase") && !probe_watch(&cold, &r, "is_cold") && run_to(&r, 1000.0)) {
    const double heat = (60.0 - (15.0 + 0.2 * 45.0 / 1.0)) * 4186.0 * 1000.0 * 1.0 * 1.0 / 1e6;
    const double dur[3] = {80.0, heat, 40.0};
    double t = 0, worst = 0;
    int k = 0;
    for (; t + dur[k % 3] <= 1000.0; k++) {
      t += dur[k % 3];
      if (k < p.nchanges) {
        worst = worst_of(worst, fabs(p.changes[k] - t));
        CHECK_NEAR(p.to[k], (k + 1) % 3 + 1, 0.0);
      }
    }
    CHECK_EQ_INT(p.nchanges, k);
    /* Each switch where a quantum of l or T (1e-8 relative) meets the threshold:
     * about 1e-8·l / phi or 1e-8·T / (dT/dt) = 1e-6 s, and the following switches
     * carry it on. */
    CHECK(worst < 1e-5);
    printf("vessel: %d phase changes, worst |dt| %.2g (heating %.3f s)\n", p.nchanges, worst, heat);
    /* Filling from T = 60 at l_low cools to 15 + 0.2·45/1 = 24 °C at l_high, the
     * lowest T of the cycle: is_cold (T < 20) never changes from 0. */
    CHECK_EQ_INT(cold.nchanges, 0);
    CHECK_NEAR(probe_at(&cold, "is_cold", 1000.0), 0.0, 0.0);
  }
  run_close(&r);
}

/* The composition property of an I/O system (the Vangheluwe seed, V5): δ(ω[ti,tf],
 * q) = δ(ω[tx,tf], δ(ω[ti,tx], q)). A run to 5 in one piece and in eight (cut at
 * instants between events, and once at the instant of the simulator's next event)
 * reach the same state, to the bit, and the same numbers of steps and crossings: the
 * switching C5 model, the HYSDEL one, which reads a block, and one whose state x is
 * no output, so that its events are taken in batches between the simulator's (the
 * cuts end the batches: the run in pieces takes them another way, which C5 and
 * HYSDEL, every state an output, never do). */
static void test_composition(void) {
  static const char *files[] = {"c5/c5.mo", "hysdel/hysdel.mo", NULL};
  static const char *batched = "model m\n  Real x(start = 1), y(start = 0);\nequation\n"
                               "  der(x) = -x + sin(10 * time);\n  der(y) = 0.01 * x;\n"
                               "  annotation(experiment(StopTime = 5, MMO_Output = {y}));\nend m;\n";
  static const double cuts[] = {0.3, -1 /* the next event's instant */, 1.5, 2.0, 3.3, 4.0, 4.9999};
  for (int fi = 0; fi < 3; fi++) {
    run a, b;
    const char *name = files[fi] ? files[fi] : "x not an output";
    if (files[fi] ? run_open(&a, files[fi]) : run_text(&a, batched, CDEVS_QSS3, 1e-6, 1e-9)) continue;
    if (files[fi] ? run_open(&b, files[fi]) : run_text(&b, batched, CDEVS_QSS3, 1e-6, 1e-9)) {
      run_close(&a);
      continue;
    }
    int ok = run_to(&a, 5.0);
    for (size_t k = 0; ok && k < sizeof cuts / sizeof cuts[0]; k++)
      ok = run_to(&b, cuts[k] < 0 ? cdevs_sim_next_time(b.sim) : cuts[k]);
    ok = ok && run_to(&b, 5.0);
    if (ok) {
      const cdevs_model *sa, *sb;
      int port;
      if (!CHECK_RUN(cdevs_mo_output_source(a.mo, 0, &sa, &port)) ||
          !CHECK_RUN(cdevs_mo_output_source(b.mo, 0, &sb, &port))) {
        run_close(&a), run_close(&b);
        continue;
      }
      const void *xa = cdevs_sim_state(a.sim, sa), *xb = cdevs_sim_state(b.sim, sb);
      cdevs_mo_stats ta, tb;
      cdevs_mo_stats_get(xa, &ta), cdevs_mo_stats_get(xb, &tb);
      for (uint32_t i = 0; i < 2; i++) CHECK(cdevs__system_x(xa, i, 5.0) == cdevs__system_x(xb, i, 5.0));
      CHECK_EQ_INT(ta.crossings, tb.crossings);
      CHECK_EQ_INT(ta.steps, tb.steps);
      cdevs_stats ka, kb;
      cdevs_sim_stats(a.sim, &ka), cdevs_sim_stats(b.sim, &kb);
      printf("composition %s: x(5) %.17g in one piece and in eight; %llu and %llu transitions for %llu steps\n", name,
             cdevs__system_x(xa, 0, 5.0), (unsigned long long)(ka.internals + ka.externals + ka.confluents),
             (unsigned long long)(kb.internals + kb.externals + kb.confluents), (unsigned long long)ta.steps);
      if (!files[fi]) /* batches were taken, and the cuts ended some of them */
        CHECK(ka.internals < ta.steps && ka.internals < kb.internals);
    }
    run_close(&a), run_close(&b);
  }
}

/* An array of model components wired by a for loop: N identical linear tanks in
 * series (area 1, k = 0.5: time constant tau = 2), the first fed by q = 1. Tank n of
 * the chain is an Erlang lag: h_n = (q/k)(1 - e^{-t/tau} sum_{j<n} (t/tau)^j / j!). */
static void test_component_arrays(void) {
  char text[2048];
  snprintf(text, sizeof text,
           "%s"
           "model m\n  parameter Integer N = 5;\n  LinTank t[N](h(start = 0));\n  cdevs.Constant src(value = 1);\n"
           "equation\n  connect(src.y, t[1].qin);\n  for i in 1:N - 1 loop\n    connect(t[i].qout, t[i + 1].qin);\n"
           "  end for;\n  annotation(experiment(StopTime = 10, MMO_Output = {t.h, t[5].qout}));\nend m;\n",
           tank_class);
  run r;
  probe p;
  if (!run_probed(&r, &p, text, CDEVS_QSS3, 1e-8, 1e-12, 10.0, -1)) return;
  double worst = 0, term = 1, sum = 0, x = 10.0 / 2.0;
  for (int n = 1; n <= 5; n++) {
    sum += term; /* sum_{j < n} x^j / j! */
    term *= x / n;
    double want = 2.0 * (1 - exp(-x) * sum);
    char name[16];
    snprintf(name, sizeof name, "t.h[%d]", n);
    worst = worst_of(worst, fabs(probe_at(&p, name, 10.0) - want));
    if (n == 5) CHECK_NEAR(probe_at(&p, "t.qout[5]", 10.0), 0.5 * want, 1e-6);
  }
  printf("component arrays: 5 tanks in series, max |h - Erlang| %.3g\n", worst);
  CHECK(worst < 1e-6);
  run_close(&r);
  static const bad_case bad[] = {
      {"  LinTank t[2, 2];\n", "an array of components has one dimension"},
      {"  LinTank t[2](aera = 1);\n", "class 'LinTank' has no element 'aera'"},
      {"  LinTank t[2];\n", "m.mo:11:11: error: input 't.qin[1]' (of class LinTank) is not connected"},
      /* (bindings per element read the size: these stopped with SIGFPE after the error) */
      {"  LinTank t[0](k = 2);\n", "size 0 of 't.area' is out of range"},
      {"  LinTank t[-3](k = 2);\n", "size -3 of 't.area' is out of range"},
      {"  LinTank t[1e12](k = 2);\n", "expected an integer, got 1e+12"},
  };
  char head[1024];
  snprintf(head, sizeof head, "%smodel m\n", tank_class);
  fails_each(head, "end m;\n", bad, sizeof bad / sizeof bad[0]);
  load_fails("model A\n  cdevs.Gain g;\nend A;\nmodel m\n  A a[2];\nend m;\n",
             "an array of components of 'A', which holds components, is not supported yet");
  /* An array input bound by a modifier, element by element: h_i' = q_i - h_i/2 from
   * 1, h_i = 2 q_i + (1 - 2 q_i) e^{-t/2}. An input whose binding reads another input
   * nothing is connected to: an error (it was two warnings that both stayed 0). */
  char arrin[1024];
  snprintf(arrin, sizeof arrin, "%smodel m\n  LinTank t[2](qin = {1, 3});\n  annotation(experiment(MMO_Output = {t.h}));\nend m;\n",
           tank_class);
  if (run_probed(&r, &p, arrin, CDEVS_QSS3, 1e-9, 1e-12, 2.0, -1)) {
    CHECK_NEAR(probe_at(&p, "t.h[1]", 2.0), 2 * 1 + (1 - 2 * 1) * exp(-1.0), 1e-7);
    CHECK_NEAR(probe_at(&p, "t.h[2]", 2.0), 2 * 3 + (1 - 2 * 3) * exp(-1.0), 1e-7);
    run_close(&r);
  }
  /* A class's own bindings and start values, per component: k = 2 h0, h(start = h0),
   * h0 = {1, 2, 3}: h = h0 e^{-2 h0 t} ("'t.h0' has 1 subscript, not 0" before). */
  const char *own = "model T\n  parameter Real h0 = 2;\n  parameter Real k = 2 * h0;\n  Real h(start = h0);\n"
                    "equation\n  der(h) = -k * h;\nend T;\nmodel m\n  T t[3](h0 = {1, 2, 3});\n"
                    "  annotation(experiment(MMO_Output = {t.h}));\nend m;\n";
  if (run_probed(&r, &p, own, CDEVS_QSS3, 1e-9, 1e-12, 1.0, -1)) {
    for (int i = 1; i <= 3; i++) {
      char nm[16];
      snprintf(nm, sizeof nm, "t.h[%d]", i);
      CHECK_NEAR(probe_at(&p, nm, 1.0), i * exp(-2.0 * i), 1e-8);
    }
    run_close(&r);
  }
  load_fails("model m\n  input Real u = v + w;\n  input Real w;\n  Real v;\n  Real x(start = 1);\nequation\n"
             "  der(x) = -x * u;\nend m;\n", "m.mo:3:14: error: input 'w' is not connected");
  /* An array literal of a class is per component (p = {10, 20} in each: only the
   * first component had it, the others 0), one of a modifier per component (k, x's
   * start) unless 'each' gives it to all; an input's binding reads the component's
   * own parameters (it was "out of memory"). x' = k + p1 + p2 + u, u = 2k, from x0:
   * t.x(1) = 3k + 30 for k = 1, 2, 3; e.x(1) = x0 + 1 + 3 + 2 for x0 = 5, 6. */
  const char *cell = "model Cell\n  parameter Real k = 1;\n  parameter Real p[2] = {10, 20};\n  input Real u = 2 * k;\n"
                     "  Real x(start = 0);\nequation\n  der(x) = k + p[1] + p[2] + u;\nend Cell;\n";
  char lits[1024];
  snprintf(lits, sizeof lits, "%smodel m\n  Cell t[3](k = {1, 2, 3});\n  Cell e[2](each p = {1, 2}, x(start = {5, 6}));\n"
           "  annotation(experiment(MMO_Output = {t.x, e.x}));\nend m;\n", cell);
  if (run_probed(&r, &p, lits, CDEVS_QSS3, 1e-9, 1e-12, 1.0, -1)) {
    CHECK_NEAR(probe_at(&p, "t.x[1]", 1.0), 33.0, 1e-8);
    CHECK_NEAR(probe_at(&p, "t.x[2]", 1.0), 36.0, 1e-8);
    CHECK_NEAR(probe_at(&p, "t.x[3]", 1.0), 39.0, 1e-8);
    CHECK_NEAR(probe_at(&p, "e.x[1]", 1.0), 11.0, 1e-8);
    CHECK_NEAR(probe_at(&p, "e.x[2]", 1.0), 12.0, 1e-8);
    run_close(&r);
  }
  /* Array literals of another size: errors (the missing entries were zeros, the extra
   * ones dropped). */
  char cellm[1024];
  snprintf(cellm, sizeof cellm, "%smodel m\n", cell);
  static const bad_case sizes[] = {
      {"  Cell t[3](k = {1, 2});\n", "m.mo:10:17: error: 't.k' of 3 components: the modifier gives 2 values"},
      {"  Cell t[2](each p = {1, 2, 3});\n", "'t.p' has 2 elements in each component, its value 3"},
      {"  parameter Real a[3] = {1, 2};\n", "m.mo:10:25: error: 'a' has 3 elements, its value 2"},
      {"  Real y[2](start = {1, 2, 3});\n", "'y' has 2 elements, its value 3"},
  };
  fails_each(cellm, "end m;\n", sizes, sizeof sizes / sizeof sizes[0]);
}

/* A block's own method cannot be mLIQSS (it pairs states of an equation system; an
 * integrator is alone with its state): a located error saying so, not LIQSS by
 * another name. */
static void test_block_method_pairs(void) {
  CHECK(load_fails("model m\n  cdevs.Integrator k(method = mLIQSS2);\n  Real r;\nequation\n  r = 1;\n"
                   "  connect(r, k.u);\nend m;\n",
                   "m.mo:2:31: error: method must be QSS1, QSS2, QSS3, LIQSS1, LIQSS2 or LIQSS3 (mLIQSS pairs"));
}

/* A model file's Inv, Div and Square take the run's tolerances as their quantum
 * (dqrel = --tol, dqmin = --abstol), as Mult, Pow and Func do; they kept 1e-6 and
 * 1e-9. Of u = 2 + sin t (a Sine sending degree-2 series, rarely: dq = 1e-4) and the
 * ramp r = 1 + t/2, sampled every 0.02 s to t = 10: at tol 1e-10, abstol 1e-13,
 * within two quanta of their functions of u and r as sent (test_blocks derives the
 * two); a model that sets its own (i(dqrel = 1e-3, dqmin = 1e-6)) keeps it, and
 * takes fewer transitions than at the run's 1e-10. */
static void test_block_quantum_from_run(void) {
  const char *head = "model m\n  cdevs.Sine u(amplitude = 1, freq = 0.15915494309189535, offset = 2, order = 2, "
                     "dq = 1e-4);\n  cdevs.Ramp r(t_start = 0, t_end = 10, y_start = 1, y_end = 6);\n";
  const char *tail = "equation\n  connect(u.y, i.u);\n  connect(u.y, d.u0);\n  connect(r.y, d.u1);\n"
                     "  connect(u.y, s.u);\n"
                     "  annotation(experiment(MMO_Output = {u.y, r.y, i.y, d.y, s.y}));\nend m;\n";
  const char *runs[2] = {"  cdevs.Inv i;\n  cdevs.Div d;\n  cdevs.Square s;\n",
                         "  cdevs.Inv i(dqrel = 1e-3, dqmin = 1e-6);\n  cdevs.Div d(dqrel = 1e-3, dqmin = 1e-6);\n"
                         "  cdevs.Square s(dqrel = 1e-3, dqmin = 1e-6);\n"};
  uint64_t internals[2] = {0, 0};
  for (int ri = 0; ri < 2; ri++) {
    char text[1024];
    snprintf(text, sizeof text, "%s%s%s", head, runs[ri], tail);
    const double dqrel = ri ? 1e-3 : 1e-10, dqmin = ri ? 1e-6 : 1e-13;
    run r;
    probe p;
    if (run_text(&r, text, CDEVS_QSS3, 1e-10, 1e-13)) continue;
    if (probe_start(&p, &r, -1)) {
      run_close(&r);
      continue;
    }
    double worst = 0.0;
    for (int k = 1; k <= 500 && run_to(&r, 0.02 * k); k++) {
      double t = 0.02 * k, u = probe_at(&p, "u.y", t), rv = probe_at(&p, "r.y", t);
      double y[3] = {probe_at(&p, "i.y", t), probe_at(&p, "d.y", t), probe_at(&p, "s.y", t)};
      double f[3] = {1.0 / u, u / rv, u * u};
      for (int i = 0; i < 3; i++) worst = worst_of(worst, fabs(y[i] - f[i]) / fmax(dqrel * fabs(f[i]), dqmin));
    }
    cdevs_stats st;
    cdevs_sim_stats(r.sim, &st);
    internals[ri] = st.internals;
    printf("Inv, Div, Square at dqrel %g: worst %.2f quanta, %llu internal transitions\n", dqrel, worst,
           (unsigned long long)internals[ri]);
    CHECK(worst <= 2.0);
    run_close(&r);
  }
  CHECK(internals[1] < internals[0]);
}

int main(void) {
  test_block_method_pairs();
  test_equations_and_blocks();
  test_thermostat();
  test_when_on_block_output();
  test_comparator_on_algebraic();
  test_algebraic_output_fed_back();
  test_nonlinear_block_refresh();
  test_block_quantum_from_run();
  test_input_not_finite();
  test_connection_errors();
  test_model_classes();
  test_class_library();
  test_class_scoping();
  test_hysdel();
  test_pre();
  test_algorithm_statements();
  test_vessel();
  test_composition();
  test_component_arrays();
  return check_report("test_hybrid");
}
