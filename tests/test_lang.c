/* SPDX-License-Identifier: MIT */
/* The model language front end: diagnostics with location, caret and suggestions,
 * recovery after errors, acceptance of well-formed μ-Modelica, bounds on nesting
 * and file size, and the experiment annotation's keys and values. */
#define _POSIX_C_SOURCE 200809L /* mkstemp, ftruncate */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cdevs/cdevs.h"
#include "check.h"
#include "lang/lang_impl.h"
#include "qss/system.h"

/* Checks text; returns the error count and the diagnostics in out. */
static int diag_of(const char *text, char *out, size_t size) {
  FILE *f = tmpfile();
  if (!f) return -2;
  int n = cdevs_lang_check_text("m.mo", text, strlen(text), f);
  rewind(f);
  size_t got = fread(out, 1, size - 1, f);
  out[got] = 0;
  fclose(f);
  return n;
}

/* Compiles text (parse, check, compile); returns the error count and the
 * diagnostics in out, and the model in *mo when mo is not NULL (else it is freed). */
static int load_diag(const char *text, char *out, size_t size, cdevs_mo **mo) {
  FILE *f = tmpfile();
  if (!f) return -2;
  cdevs_mo *m = NULL;
  int n = cdevs_mo_load_text("m.mo", text, strlen(text), f, &m);
  rewind(f);
  size_t got = fread(out, 1, size - 1, f);
  out[got] = 0;
  fclose(f);
  if (mo)
    *mo = m;
  else
    cdevs_mo_free(m);
  return n;
}

/* der(x) = -x + 0*x + … + 0*x with terms "+ 0*x": a left-deep chain whose height is
 * terms + 1 (the first + sits on -x, of height 1). */
static char *flat_sum(size_t terms) {
  const char *head = "model m\n  Real x(start=1);\nequation\n  der(x) = -x", *tail = ";\nend m;\n";
  char *t = malloc(strlen(head) + 6 * terms + strlen(tail) + 1);
  if (!t) return NULL;
  char *q = t + sprintf(t, "%s", head);
  for (size_t i = 0; i < terms; i++) q += sprintf(q, " + 0*x");
  strcpy(q, tail);
  return t;
}

/* The column of the n-th (1-based) '+' on the line it is on. */
static int col_of_plus(const char *text, size_t n) {
  const char *line = text, *p = text;
  for (; *p; p++) {
    if (*p == '\n') line = p + 1;
    if (*p == '+' && --n == 0) break;
  }
  return (int)(p - line) + 1;
}

static char *repeat(const char *pre, const char *unit, size_t n, const char *mid, const char *close, size_t m,
                    const char *post) {
  size_t len = strlen(pre) + n * strlen(unit) + strlen(mid) + m * strlen(close) + strlen(post) + 1;
  char *t = malloc(len);
  if (!t) return NULL;
  char *q = t + sprintf(t, "%s", pre);
  for (size_t i = 0; i < n; i++) q += sprintf(q, "%s", unit);
  q += sprintf(q, "%s", mid);
  for (size_t i = 0; i < m; i++) q += sprintf(q, "%s", close);
  strcpy(q, post);
  return t;
}

/* A flat sum of 74,000 terms (the 440 KB model) and of 300,000 overflowed the
 * stack in the checker; now their tree is refused where it passes LANG_MAX_DEPTH,
 * with the place and what to write instead (it read "nested too deeply", which a flat
 * sum is not to its writer), and a sum just under the bound compiles and runs. */
static void test_deep_sum(void) {
  char out[4096];
  size_t sizes[] = {74000, 300000};
  for (int k = 0; k < 2; k++) {
    char *t = flat_sum(sizes[k]);
    if (!t) continue;
    CHECK_EQ_INT(load_diag(t, out, sizeof out, NULL), 1);
    char want[256];
    snprintf(want, sizeof want,
             "m.mo:4:%d: error: more than %d terms in one chain of binary operators (an array and sum() takes "
             "any number)",
             col_of_plus(t, LANG_MAX_DEPTH), LANG_MAX_DEPTH);
    CHECK_CONTAINS(out, want);
    /* the 440 KB line is shown as a window around the column, not whole */
    CHECK(strlen(out) < 600);
    CHECK_EQ_INT(cdevs_lang_check_text("m.mo", t, strlen(t), NULL), 1);
    free(t);
  }
  /* The equation is one more level: LANG_MAX_DEPTH - 2 terms are the most, one more
   * is refused at the equation. */
  char *t = flat_sum(LANG_MAX_DEPTH - 1);
  if (!t) return;
  CHECK_EQ_INT(load_diag(t, out, sizeof out, NULL), 1);
  CHECK_CONTAINS(out, "m.mo:4:3: error: expression nested too deeply");
  free(t);
  t = flat_sum(LANG_MAX_DEPTH - 2);
  cdevs_mo *mo = NULL;
  if (!t) return;
  CHECK_EQ_INT(load_diag(t, out, sizeof out, &mo), 0);
  CHECK_STR(out, "");
  free(t);
  if (!mo) return;
  cdevs_model *root = cdevs_root_new(NULL, "t");
  cdevs_model *m = cdevs_mo_add(root, "model", mo, CDEVS_QSS3, 1e-8, 1e-10);
  cdevs_sim *sim = NULL;
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim)) && CHECK_RUN(cdevs_sim_run(sim, 1.0)))
    CHECK_NEAR(cdevs__system_x(cdevs_sim_state(sim, m), 0, 1.0), exp(-1.0), 1e-6);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_mo_free(mo);
}

/* Every kind of nesting, just past the bound: a located error, no stack overflow;
 * well inside it (LANG_MAX_DEPTH - 10 levels, the statement's own levels aside): fine. */
static void test_deep_nesting(void) {
  char out[4096];
  const char *eq = "model m\n  Real x(start=1);\n  discrete Real d;\nequation\n  der(x) = ";
  const char *end = ";\nend m;\n";
  struct {
    const char *what, *pre, *unit, *mid, *close, *post;
  } shapes[] = {
      {"parentheses", eq, "(", "x", ")", end},
      {"calls", eq, "sin(", "x", ")", end},
      {"arrays and subscripts", "model m\n  constant Integer k[1] = {1};\n  Real x(start=1);\nequation\n"
       "  der(x) = k[", "k[", "1", "]", "];\nend m;\n"},
      {"unary minus", eq, "- ", "x", "", end},
      {"powers", eq, "x ^ ", "1", "", end},
      {"not", "model m\n  Real x(start=1);\nequation\n  der(x) = if ", "not ", "x > 0 then 1 else 0", "", end},
      {"if in else", eq, "if x > 0 then 1 else ", "x", "", end},
      {"if statements", "model m\n  Real x(start=1);\n  discrete Real d;\nequation\n  der(x) = 1;\n"
       "algorithm\n  when x > 2 then\n", "    if d > 0 then\n", "d := 1;\n", "    end if;\n", "  end when;\nend m;\n"},
      {"annotations", "model m\n  Real x(start=1);\nequation\n  der(x) = x;\n  annotation(", "a(", "b = 1",
       ")", ");\nend m;\n"},
  };
  for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
    size_t over[] = {LANG_MAX_DEPTH + 1, 200000};
    for (int k = 0; k < 2; k++) {
      char *t = repeat(shapes[i].pre, shapes[i].unit, over[k], shapes[i].mid, shapes[i].close, over[k], shapes[i].post);
      if (!t) continue;
      int n = load_diag(t, out, sizeof out, NULL);
      if (n < 1 || !strstr(out, "error: expression nested too deeply (more than 2000 levels)"))
        fprintf(stderr, "  %s, %zu deep: %d errors:\n%.300s\n", shapes[i].what, over[k], n, out);
      CHECK(n >= 1);
      CHECK_CONTAINS(out, "error: expression nested too deeply (more than 2000 levels)");
      free(t);
    }
    /* the if statements count twice in the tree (the if and its body) */
    size_t under = i == 7 ? LANG_MAX_DEPTH / 2 - 10 : LANG_MAX_DEPTH - 10;
    char *t = repeat(shapes[i].pre, shapes[i].unit, under, shapes[i].mid, shapes[i].close, under, shapes[i].post);
    if (!t) continue;
    int n = cdevs_lang_check_text("m.mo", t, strlen(t), NULL);
    if (n != 0) fprintf(stderr, "  %s, %zu deep: %d errors\n", shapes[i].what, under, n);
    CHECK_EQ_INT(n, 0);
    free(t);
  }
}

/* Model files are read in chunks up to LANG_MAX_FILE whatever they are: /dev/zero
 * read until memory ran out. A file of exactly the limit is read (and parsed: NUL
 * bytes end the text at once); one byte more is refused, as a directory is. */
static void test_read_limit(void) {
  char out[4096];
  FILE *f = tmpfile();
  if (!f) return;
  CHECK_EQ_INT(cdevs_lang_check_file("/dev/zero", f), -1);
  cdevs_mo *mo = NULL;
  CHECK_EQ_INT(cdevs_mo_load("/dev/zero", f, &mo), -1);
  CHECK(mo == NULL);
  CHECK_EQ_INT(cdevs_lang_check_file("/", f), -1);
  rewind(f);
  size_t got = fread(out, 1, sizeof out - 1, f);
  out[got] = 0;
  fclose(f);
  CHECK_CONTAINS(out, "/dev/zero: larger than 64 MiB: not a model file\n/dev/zero: larger than 64 MiB");
  CHECK_CONTAINS(out, "/: cannot read: Is a directory");
  char path[] = "/tmp/cdevs_test_lang_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return;
  CHECK_EQ_INT(ftruncate(fd, (off_t)(64 << 20)), 0);
  CHECK(cdevs_lang_check_file(path, NULL) > 0); /* read, and refused as a model */
  CHECK_EQ_INT(ftruncate(fd, (off_t)(64 << 20) + 1), 0);
  CHECK_EQ_INT(cdevs_lang_check_file(path, NULL), -1);
  close(fd);
  unlink(path);
}

/* experiment(...): an unknown key is a located warning with a suggestion; the keys
 * QSS Solver's models use (all of them, from its models/ and test suites), vendor
 * keys and other annotations are silent. */
static void test_experiment_keys(void) {
  char out[4096];
  const char *typo = "model m\n  Real x(start=1);\nequation\n  der(x) = -x;\n"
                     "  annotation(experiment(StopTime=2, Tolerence=1e-4, Colour=1));\nend m;\n";
  CHECK_EQ_INT(load_diag(typo, out, sizeof out, NULL), 0);
  CHECK_CONTAINS(out, "m.mo:5:37: warning: unknown experiment annotation 'Tolerence' is ignored; did you mean "
                      "'Tolerance'?\n");
  CHECK_CONTAINS(out, "m.mo:5:53: warning: unknown experiment annotation 'Colour' is ignored\n");
  const char *qss =
      "model m\n  Real x(start=1);\nequation\n  der(x) = -x;\n"
      "  annotation(experiment(MMO_Description=\"d\", MMO_Solver=LIQSS2, MMO_PartitionMethod=Metis,\n"
      "    Jacobian=Dense, MMO_BDF_PDepth=1, MMO_BDF_Max_Step=0, MMO_SymDiff=false, MMO_Period={1e-2},\n"
      "    MMO_OutputType=CI_Sampled, MMO_DT_Min=0, MMO_LPS=1, MMO_Parallel=false, MMO_DT_Synch=SD_DT_Fixed,\n"
      "    MMO_HH=false, MMO_Event_Id=1, MMO_RandomSeed=0, MMO_HD=false, MMO_BDF_Part={x}, MMO_MinStep=1e-9,\n"
      "    MMO_LHS_DSC=false, MMO_RHS_ST=false, MMO_LHS_ST=false, MMO_Scheduler=ST_Binary, Interval=0.1,\n"
      "    __Vendor_Thing=3, MMO_Output={x}, StartTime=0, StopTime=1, Tolerance={1e-3}, AbsTolerance={1e-6}),\n"
      "    Documentation(info=\"x\"), uses(Modelica(version=\"4.0\")));\nend m;\n";
  CHECK_EQ_INT(load_diag(qss, out, sizeof out, NULL), 0);
  CHECK_STR(out, "");
  /* Keys of another annotation are not the experiment's: a vendor's StopTime = 99
   * before or after experiment(StopTime = 2) left the run at 99. */
  const char *orders[] = {"__Vendor(StopTime=99, Tolerance=0.5), experiment(StopTime=2)",
                          "experiment(StopTime=2), __Vendor(StopTime=99, Tolerance=0.5)"};
  for (int i = 0; i < 2; i++) {
    char text[512];
    snprintf(text, sizeof text, "model m\n  Real x(start=1);\nequation\n  der(x) = -x;\n  annotation(%s);\nend m;\n",
             orders[i]);
    cdevs_mo *mo = NULL;
    CHECK_EQ_INT(load_diag(text, out, sizeof out, &mo), 0);
    if (!mo) continue;
    cdevs_mo_experiment e;
    cdevs_mo_experiment_get(mo, &e);
    CHECK_NEAR(e.stop, 2.0, 0.0);
    CHECK_NEAR(e.tol, 1e-3, 0.0); /* the default, not the vendor's 0.5 */
    cdevs_mo_free(mo);
  }
}

/* Invalid experiment values are located errors at check time, by the rule of the
 * flags of `cdevs run` (--tol >= 0, --abstol > 0, finite numbers, the stop after the
 * start, a known method); Tolerance=-1 was accepted and livelocked the run. */
static void test_experiment_values(void) {
  char out[4096], text[512];
  struct {
    const char *exp, *want;
  } bad[] = {
      {"Tolerance=-1", "m.mo:5:35: error: Tolerance is -1: it needs a value >= 0"},
      {"AbsTolerance=0", "m.mo:5:38: error: AbsTolerance is 0: it needs a value > 0"},
      {"AbsTolerance={-1e-6}", "m.mo:5:39: error: AbsTolerance is -1e-06: it needs a value > 0"},
      {"Tolerance=0/0", "m.mo:5:36: error: Tolerance is "},
      {"Tolerance=\"tight\"", "m.mo:5:35: error: Tolerance needs a number, not a string"},
      {"StopTime=1e308*10", "m.mo:5:39: error: StopTime is inf: it needs a finite number"},
      {"StartTime=2, StopTime=1", "m.mo:5:38: error: StopTime (1) must be after StartTime (2)"},
      {"StartTime=2", "m.mo:5:25: error: StopTime (1) must be after StartTime (2)"},
      {"MMO_Solver=QSS7", "m.mo:5:36: error: unknown MMO_Solver 'QSS7'; did you mean 'QSS1'?"},
      {"MMO_Solver=Euler", "m.mo:5:36: error: unknown MMO_Solver 'Euler' (QSS1, QSS2, QSS3, LIQSS1, LIQSS2, LIQSS3, "
                           "mLIQSS1, mLIQSS2, CVODE_BDF, CVODE_AM or LIQSS_BDF)"},
      {"method=3", "m.mo:5:32: error: method needs a method name: QSS1, QSS2, QSS3, LIQSS1, LIQSS2, LIQSS3, "
                   "mLIQSS1, mLIQSS2, CVODE_BDF, CVODE_AM or LIQSS_BDF"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(text, sizeof text, "model m\n  Real x(start=1);\nequation\n  der(x) = -x;\n"
             "  annotation(experiment(%s));\nend m;\n", bad[i].exp);
    CHECK_EQ_INT(load_diag(text, out, sizeof out, NULL), 1);
    CHECK_CONTAINS(out, bad[i].want);
  }
  /* What the flags accept is accepted: Tolerance=0 (the absolute quantum alone); QSS
   * Solver's names, the same method or the nearest with a warning; a method as a string. */
  struct {
    const char *exp;
    cdevs_qss_method method;
    double tol;
    const char *warn;
  } good[] = {
      {"Tolerance=0", CDEVS_QSS3, 0.0, ""},
      {"MMO_Solver=QSS", CDEVS_QSS1, 1e-3, ""},
      {"MMO_Solver=LIQSS", CDEVS_LIQSS1, 1e-3, ""},
      {"MMO_Solver=mLIQSS", CDEVS_MLIQSS1, 1e-3, ""}, /* QSS Solver's name for order 1 */
      {"MMO_Solver=mLIQSS2", CDEVS_MLIQSS2, 1e-3, ""},
      {"MMO_Solver=mliqss1", CDEVS_MLIQSS1, 1e-3, ""},
      {"MMO_Solver=mLIQSS3", CDEVS_MLIQSS2, 1e-3, "warning: MMO_Solver mLIQSS3 is not available here; using mLIQSS2"},
      {"MMO_Solver=DASSL", CDEVS_CVODE_BDF, 1e-3, "warning: MMO_Solver DASSL is not available here; using CVODE_BDF"},
      {"MMO_Solver=CVODE_AM", CDEVS_CVODE_AM, 1e-3, ""},
      {"MMO_Solver=cvode_bdf", CDEVS_CVODE_BDF, 1e-3, ""}, /* any case, as --method takes it */
      {"method=\"LIQSS2\", Tolerance={1e-5}", CDEVS_LIQSS2, 1e-5, ""},
  };
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    snprintf(text, sizeof text, "model m\n  Real x(start=1);\nequation\n  der(x) = -x;\n"
             "  annotation(experiment(%s));\nend m;\n", good[i].exp);
    cdevs_mo *mo = NULL;
    CHECK_EQ_INT(load_diag(text, out, sizeof out, &mo), 0);
    if (!*good[i].warn) CHECK_STR(out, "");
    CHECK_CONTAINS(out, good[i].warn);
    if (!mo) continue;
    cdevs_mo_experiment e;
    cdevs_mo_experiment_get(mo, &e);
    CHECK_EQ_INT(e.method, good[i].method);
    CHECK_NEAR(e.tol, good[i].tol, 0.0);
    cdevs_mo_free(mo);
  }
  /* A string is an annotation's value only: in an equation it was a silent 0. */
  CHECK_EQ_INT(load_diag("model m\n  Real x(start=1);\nequation\n  der(x) = \"fast\";\nend m;\n", out, sizeof out,
                         NULL),
               1);
  CHECK_CONTAINS(out, "m.mo:4:12: error: expected a scalar expression");
}

static void test_accepts(void) {
  char out[4096];
  const char *lv =
      "model lotka_volterra\n"
      "  Real x[2];\n"
      "  initial algorithm\n"
      "    x[1] := 0.5;\n"
      "    x[2] := 0.5;\n"
      "  equation\n"
      "    der(x[1]) = 0.1 * x[1] - 0.1 * x[1]*x[2];\n"
      "    der(x[2]) = 0.1 * x[1]*x[2] - 0.1 * x[2];\n"
      "  annotation(experiment(MMO_Solver=QSS3, MMO_Output={x[:]}, StartTime=0.0,\n"
      "    StopTime=300.0, Tolerance={1e-3}, AbsTolerance={1e-6}));\n"
      "end lotka_volterra;\n";
  CHECK_EQ_INT(diag_of(lv, out, sizeof out), 0);
  CHECK_STR(out, "");
  const char *bb =
      "model bball\n"
      "  Real x(start=0.575), vx(start=0.5), y(start=10.5), vy;\n"
      "  discrete Real stair(start=10), contact;\n"
      "  equation\n"
      "    der(y) = vy;\n"
      "    der(vy) = -9.8 - 0.1 * vy - contact * ((y - stair) * 1e6 + vy * 30);\n"
      "    der(x) = vx;\n"
      "    der(vx) = -0.1 * vx;\n"
      "  algorithm\n"
      "    when y < stair then contact := 1; elsewhen y > stair then contact := 0; end when;\n"
      "    when x - 11 + stair > 0 then stair := stair - 1; end when;\n"
      "end bball;\n";
  CHECK_EQ_INT(diag_of(bb, out, sizeof out), 0);
  /* for loops over two indices, if expressions, block comments, a quoted name */
  const char *misc =
      "model m /* comment */\n"
      "  constant Integer N = 3;\n"
      "  Real u[N, N], 'q r';\n"
      "  parameter Real k = if N > 2 then 1.5 else -2;\n"
      "equation\n"
      "  for i in 1:N, j in 1:N loop\n"
      "    der(u[i, j]) = -k * u[i, j] + (if time > 1 and not (i == j) then 1 else 0);\n"
      "  end for;\n"
      "  der('q r') = sin(time)^2 - 'q r';\n"
      "end m;\n";
  CHECK_EQ_INT(diag_of(misc, out, sizeof out), 0);
  CHECK_STR(out, "");
}

static void test_diagnostics(void) {
  char out[4096];
  /* A missing semicolon: line, column, the source line and a caret. */
  CHECK_EQ_INT(diag_of("model m\n  Real x\nequation\n  der(x) = -x;\nend m;\n", out, sizeof out), 1);
  CHECK_STR(out,
            "m.mo:3:1: error: expected ';', found 'equation'\n"
            "  equation\n"
            "  ^\n");
  /* An unknown name with a suggestion. */
  CHECK_EQ_INT(diag_of("model m\n  Real speed;\nequation\n  der(speed) = -sped;\nend m;\n", out,
                       sizeof out),
               1);
  CHECK_STR(out,
            "m.mo:4:17: error: unknown variable 'sped'; did you mean 'speed'?\n"
            "    der(speed) = -sped;\n"
            "                  ^\n");
  /* Several errors in one run: the parser recovers at the next ';'. */
  int n = diag_of("model m\n  Real x, y;\nequation\n  der(x) = 2 * * x;\n  der(y) = (y;\n"
                  "  der(x) = sinn(y);\nend m;\n",
                  out, sizeof out);
  CHECK_EQ_INT(n, 2);
  CHECK_CONTAINS(out, "m.mo:4:16: error: expected an expression, found '*'");
  CHECK_CONTAINS(out, "m.mo:5:14: error: expected ')', found ';'");
  /* Name errors are reported once the syntax is right. */
  CHECK_EQ_INT(diag_of("model m\n  Real x;\nequation\n  der(x) = sinn(x);\nend m;\n", out, sizeof out), 1);
  CHECK_CONTAINS(out, "m.mo:4:12: error: unknown function 'sinn'; did you mean 'sin'?");
  /* Roles: der of a parameter, an algorithm assigning a state or a parameter. */
  n = diag_of("model m\n  parameter Real p = 1;\n  Real x;\nequation\n  der(p) = 1;\nalgorithm\n"
              "  when time > 1 then\n    x := 0;\n    p := 2;\n  end when;\nend m;\n",
              out, sizeof out);
  CHECK_EQ_INT(n, 3);
  CHECK_CONTAINS(out, "m.mo:5:7: error: der() of 'p', which is a parameter");
  CHECK_CONTAINS(out, "m.mo:8:5: error: 'x' is continuous: change it with reinit() in a when clause");
  CHECK_CONTAINS(out, "m.mo:9:5: error: 'p' is a parameter: it can only be set in an initial algorithm");
  /* ':=' in an equation section, a wrong end name, a duplicate declaration. */
  n = diag_of("model m\n  Real x;\n  Real x;\nequation\n  x := 1;\nend n;\n", out, sizeof out);
  CHECK_CONTAINS(out, "m.mo:5:5: error: use '=' in an equation section (':=' is for algorithms)");
  CHECK_CONTAINS(out, "m.mo:6:5: error: the model is 'm' but ends with 'n'");
  /* Lexical errors. */
  CHECK_EQ_INT(diag_of("model m\n  Real x;\nequation\n  der(x) = 1 $ 2;\nend m;\n", out, sizeof out) > 0, 1);
  CHECK_CONTAINS(out, "m.mo:4:14: error: unexpected character '$'");
  CHECK(diag_of("model m /* never closed\n", out, sizeof out) > 0);
  CHECK_CONTAINS(out, "m.mo:1:9: error: unterminated comment");
  /* Not a model at all, and an empty file. */
  CHECK_EQ_INT(diag_of("x = 1;", out, sizeof out), 1);
  CHECK_CONTAINS(out, "m.mo:1:1: error: expected 'model', found 'x'");
  CHECK_EQ_INT(diag_of("", out, sizeof out), 1);
  CHECK_CONTAINS(out, "m.mo:1:1: error: expected 'model', found end of file");
  /* Deep nesting is an error, not a stack overflow. */
  size_t depth = 100000;
  char *deep = malloc(2 * depth + 64);
  strcpy(deep, "model m Real x; equation der(x) = ");
  size_t k = strlen(deep);
  for (size_t i = 0; i < depth; i++) deep[k++] = '(';
  deep[k] = 0;
  CHECK(diag_of(deep, out, sizeof out) > 0);
  CHECK_CONTAINS(out, "nested too deeply");
  free(deep);
}

int main(void) {
  test_accepts();
  test_diagnostics();
  test_deep_sum();
  test_deep_nesting();
  test_read_limit();
  test_experiment_keys();
  test_experiment_values();
  return check_report("test_lang");
}
