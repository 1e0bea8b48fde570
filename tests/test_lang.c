/* SPDX-License-Identifier: MIT */
/* The model language front end: diagnostics with location, caret and suggestions,
 * recovery after errors, and acceptance of well-formed μ-Modelica. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/cdevs.h"
#include "check.h"

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
  return check_report("test_lang");
}
