/* SPDX-License-Identifier: MIT */
/* The graphs' expressions: postfix code over doubles, its checker and its evaluator
 * (guards, outputs, assignments and lifetimes run through one small loop). */
#include <math.h>
#include <stdio.h>

#include "graph_impl.h"

double cdevs__graph_value_num(const cdevs_value *v) {
  switch (v->kind) {
  case CDEVS_REAL: return v->u.real;
  case CDEVS_TAYLOR: return v->u.taylor[0];
  case CDEVS_INT: return (double)v->u.integer;
  default: return NAN;
  }
}

static double sign(double x) { return x > 0 ? 1.0 : x < 0 ? -1.0 : 0.0; }

static double (*const fn1[CDEVS_GFN1_COUNT_])(double) = {
    [CDEVS_GFN_SIN] = sin,     [CDEVS_GFN_COS] = cos,     [CDEVS_GFN_TAN] = tan,     [CDEVS_GFN_ASIN] = asin,
    [CDEVS_GFN_ACOS] = acos,   [CDEVS_GFN_ATAN] = atan,   [CDEVS_GFN_SINH] = sinh,   [CDEVS_GFN_COSH] = cosh,
    [CDEVS_GFN_TANH] = tanh,   [CDEVS_GFN_EXP] = exp,     [CDEVS_GFN_LOG] = log,     [CDEVS_GFN_LOG10] = log10,
    [CDEVS_GFN_SQRT] = sqrt,   [CDEVS_GFN_ABS] = fabs,    [CDEVS_GFN_SIGN] = sign,   [CDEVS_GFN_FLOOR] = floor,
    [CDEVS_GFN_CEIL] = ceil};

/* Modelica's: mod(a, b) = a - floor(a/b)·b, rem(a, b) = a - div(a, b)·b, div truncates. */
static double fn2(uint32_t f, double a, double b) {
  switch (f) {
  case CDEVS_GFN_MIN: return a < b ? a : b;
  case CDEVS_GFN_MAX: return a > b ? a : b;
  case CDEVS_GFN_MOD: return a - floor(a / b) * b;
  case CDEVS_GFN_REM: return a - trunc(a / b) * b;
  case CDEVS_GFN_ATAN2: return atan2(a, b);
  default: return trunc(a / b);
  }
}

/* The bag holds an event of value v on input port p (p?v). */
static int has_event(const gctx *x, uint32_t p, double v) {
  if (!x->in_n || !x->in_n[p]) return 0;
  for (size_t i = 0; i < x->bag->n; i++)
    if (x->bag->events[i].port == (int)p && cdevs__graph_value_num(x->bag->events[i].value) == v) return 1;
  return 0;
}

/* The code was checked (cdevs__graph_code_check): no bounds are tested here. */
double cdevs__graph_run(const cdevs_graph_ins *ins, uint32_t n, const gctx *x) {
  double st[CDEVS_GRAPH_MAX_STACK];
  int sp = 0;
  for (uint32_t i = 0; i < n; i++) {
    const cdevs_graph_ins *c = &ins[i];
    double b;
    switch ((cdevs_graph_op)c->op) {
    case CDEVS_GOP_CONST: st[sp++] = c->k; break;
    case CDEVS_GOP_VAR: st[sp++] = x->vars[c->arg]; break;
    case CDEVS_GOP_IN: st[sp++] = x->in_n && x->in_n[c->arg] ? x->in_last[c->arg] : NAN; break;
    case CDEVS_GOP_EVENT: st[sp - 1] = has_event(x, c->arg, st[sp - 1]); break;
    case CDEVS_GOP_TIME: st[sp++] = x->t; break;
    case CDEVS_GOP_ELAPSED: st[sp++] = x->elapsed; break;
    case CDEVS_GOP_NEG: st[sp - 1] = -st[sp - 1]; break;
    case CDEVS_GOP_NOT: st[sp - 1] = st[sp - 1] == 0.0; break;
    case CDEVS_GOP_FN1: st[sp - 1] = fn1[c->arg](st[sp - 1]); break;
    case CDEVS_GOP_SELECT:
      sp -= 2;
      st[sp - 1] = st[sp - 1] != 0.0 ? st[sp] : st[sp + 1];
      break;
    default:
      b = st[--sp];
      double *a = &st[sp - 1];
      switch ((cdevs_graph_op)c->op) {
      case CDEVS_GOP_ADD: *a += b; break;
      case CDEVS_GOP_SUB: *a -= b; break;
      case CDEVS_GOP_MUL: *a *= b; break;
      case CDEVS_GOP_DIV: *a /= b; break;
      case CDEVS_GOP_POW: *a = pow(*a, b); break;
      case CDEVS_GOP_LT: *a = *a < b; break;
      case CDEVS_GOP_LE: *a = *a <= b; break;
      case CDEVS_GOP_GT: *a = *a > b; break;
      case CDEVS_GOP_GE: *a = *a >= b; break;
      case CDEVS_GOP_EQ: *a = *a == b; break;
      case CDEVS_GOP_NE: *a = *a != b; break;
      case CDEVS_GOP_AND: *a = *a != 0.0 && b != 0.0; break;
      case CDEVS_GOP_OR: *a = *a != 0.0 || b != 0.0; break;
      default: *a = fn2(c->arg, *a, b); break; /* CDEVS_GOP_FN2 */
      }
    }
  }
  return sp == 1 ? st[0] : NAN;
}

int cdevs__graph_code_check(const cdevs_graph_ins *ins, uint32_t n, uint32_t nvars, uint32_t nin, char *msg,
                            size_t size) {
  int sp = 0, max = 0;
  for (uint32_t i = 0; i < n; i++) {
    const cdevs_graph_ins *c = &ins[i];
    int pop, push = 1;
    switch (c->op) {
    case CDEVS_GOP_CONST: case CDEVS_GOP_TIME: case CDEVS_GOP_ELAPSED: pop = 0; break;
    case CDEVS_GOP_VAR:
      if (c->arg >= nvars) return snprintf(msg, size, "instruction %u reads variable %u of %u", i, c->arg, nvars), -1;
      pop = 0;
      break;
    case CDEVS_GOP_IN: case CDEVS_GOP_EVENT:
      if (c->arg >= nin) return snprintf(msg, size, "instruction %u reads input port %u of %u", i, c->arg, nin), -1;
      pop = c->op == CDEVS_GOP_EVENT;
      break;
    case CDEVS_GOP_NEG: case CDEVS_GOP_NOT: pop = 1; break;
    case CDEVS_GOP_FN1:
      if (c->arg >= CDEVS_GFN1_COUNT_) return snprintf(msg, size, "instruction %u: no function %u", i, c->arg), -1;
      pop = 1;
      break;
    case CDEVS_GOP_FN2:
      if (c->arg >= CDEVS_GFN2_COUNT_) return snprintf(msg, size, "instruction %u: no function %u", i, c->arg), -1;
      pop = 2;
      break;
    case CDEVS_GOP_SELECT: pop = 3; break;
    default:
      if (c->op >= CDEVS_GOP_COUNT_) return snprintf(msg, size, "instruction %u: no operation %u", i, c->op), -1;
      pop = 2;
    }
    if (sp < pop) return snprintf(msg, size, "instruction %u takes %d values from a stack of %d", i, pop, sp), -1;
    sp += push - pop;
    if (sp > max) max = sp;
    if (max > CDEVS_GRAPH_MAX_STACK)
      return snprintf(msg, size, "the expression needs more than %d values at once", CDEVS_GRAPH_MAX_STACK), -1;
  }
  if (sp != 1) return snprintf(msg, size, "the code leaves %d values, not one", sp), -1;
  return max;
}

int cdevs__graph_code_const(const cdevs_graph *g, gcode c, double *v) {
  if (c.n != 1 || g->ins[c.start].op != CDEVS_GOP_CONST) return 0;
  *v = g->ins[c.start].k;
  return 1;
}

double cdevs_graph_eval(const cdevs_graph_code *code, const double *vars, uint32_t nvars, double t) {
  char msg[8];
  if (!code || !code->ins || cdevs__graph_code_check(code->ins, code->n, vars ? nvars : 0, 0, msg, sizeof msg) < 0)
    return NAN;
  gctx x = {.vars = vars, .t = t};
  return cdevs__graph_run(code->ins, code->n, &x);
}
