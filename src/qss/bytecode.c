/* SPDX-License-Identifier: MIT */
/*
 * Expression bytecode over Taylor series: the evaluator (a stack machine whose
 * operands are series of up to four coefficients, so one evaluation yields a value and
 * its time derivatives), its forward-mode partial for LIQSS, constant folding, and the
 * degree in time of what a code computes.
 */
#include "system.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/taylor.h"
#include "crossing.h"

/* ---- Bytecode evaluation --------------------------------------------------------- */


static int cmp_op(int op, double a, double b) {
  switch (op) {
  case BC_LT: return a < b;
  case BC_LE: return a <= b;
  case BC_GT: return a > b;
  case BC_GE: return a >= b;
  case BC_EQ: return a == b;
  default: return a != b;
  }
}

/* State j's q around env->t into r (coefficients above order zero), or in a seeded
 * evaluation the value of q with ε on the seed's. */
static inline void load_state(const bc_env *env, uint32_t j, int order, int dual, double *r) {
  if (env->seed != UINT32_MAX) { /* the partial derivative with respect to q_seed */
    if (env->seed == SEED_X) { /* or the value on x instead of q (check_on_x) */
      cdevs__series_const(r, cdevs__qvar_x(&env->states[j], env->m, env->t));
      return;
    }
    double q[4];
    cdevs__qvar_q(&env->states[j], env->m, env->t, q);
    cdevs__series_const(r, q[0]);
    if (j == env->seed) r[1] = 1.0;
    return;
  }
  const cdevs__qvar *v = &env->states[j];
  if (order >= env->m->order - 1) {
    /* Derivatives (q's degree) and crossings (one more): q's coefficients above its
     * degree are 0, so shifting at the evaluation's own order, a constant here, is
     * the same shift, unrolled. */
    for (int k = 0; k < 4; k++) r[k] = k <= order ? v->q[k] : 0.0;
    cdevs__series_shift(r, order, env->t - v->tq);
    if (dual && j == env->dual) r[3] = 1.0;
    return;
  }
  cdevs__qvar_q(v, env->m, env->t, r); /* below q's degree (handlers): its value at t */
  if (order < 2) r[2] = 0.0;
  if (order < 1) r[1] = 0.0;
}

/* The evaluator, inlined once per order so that the series loops unroll. With dual
 * (orders up to 2, codes with dual_ok) coefficient 3 of every operand carries its
 * partial derivative with respect to q_{env->dual} at τ = 0, forward mode: LIQSS's
 * ∂ẋ_j/∂q_j comes with the derivative's own evaluation instead of a second one. An
 * op that rewrites all four coefficients takes the partial aside first (pd). */
static inline __attribute__((always_inline)) int bc_eval_order(const bc_code *c, const bc_env *env, int order,
                                                               int dual, double *out, double (*st)[4]) {
  int sp = 0;
  const int top = dual ? 3 : order; /* the last coefficient a linear op scales */
  double kept[4]; /* a state's series that is read again (BC_KEEP, BC_AGAIN) */
  for (uint32_t i = 0; i < c->n; i++) {
    const bc_ins *in = &c->ins[i];
    double *r, pd = 0.0;
    int st_ok = CDEVS_OK;
    switch ((bc_op)in->op) {
    case BC_CONST: cdevs__series_const(st[sp++], in->k); break;
    case BC_PARAM: cdevs__series_const(st[sp++], env->params[in->arg]); break;
    case BC_DISC: cdevs__series_const(st[sp++], env->discs[in->arg]); break;
    case BC_PRE: cdevs__series_const(st[sp++], (env->pre ? env->pre : env->discs)[in->arg]); break;
    case BC_TIME:
      cdevs__series_const(st[sp], env->t);
      if (order >= 1 && env->seed == UINT32_MAX) st[sp][1] = 1.0;
      sp++;
      break;
    case BC_STATE:
      r = st[sp++];
      if (in->reuse == BC_AGAIN) {
        for (int k = 0; k < 4; k++) r[k] = kept[k];
      } else {
        load_state(env, in->arg, order, dual, r);
        if (in->reuse == BC_KEEP) /* 8-byte reads of what load_state just stored */
          for (int k = 0; k < 4; k++) kept[k] = ((const volatile double *)r)[k];
      }
      break;
    case BC_ADDK: st[sp - 1][0] += in->k; break;
    case BC_SUBK: st[sp - 1][0] -= in->k; break;
    case BC_RSUBK:
      r = st[sp - 1];
      r[0] = in->k - r[0];
      for (int k = 1; k <= top; k++) r[k] = -r[k];
      break;
    case BC_MULK:
      for (int k = 0; k <= top; k++) st[sp - 1][k] *= in->k;
      break;
    case BC_DIVK:
      for (int k = 0; k <= top; k++) st[sp - 1][k] /= in->k;
      break;
    case BC_ADDS: case BC_SUBS: case BC_MULS: {
      double qown[4], *q = in->reuse ? kept : qown;
      if (in->reuse != BC_AGAIN) load_state(env, in->arg, order, dual, q);
      r = st[sp - 1];
      if (in->op == BC_ADDS) {
        if (dual) pd = r[3] + q[3];
        cdevs__series_add(r, r, q, order);
      } else if (in->op == BC_SUBS) {
        if (dual) pd = r[3] - q[3];
        cdevs__series_sub(r, r, q, order);
      } else {
        if (dual) pd = r[0] * q[3] + r[3] * q[0];
        cdevs__series_mul(r, r, q, order);
      }
      if (dual) r[3] = pd;
      break;
    }
    case BC_ALG: memcpy(st[sp++], env->algs[in->arg], sizeof st[0]); break;
    /* The linear operations and the product inline (series.h): they are most of
     * what equations do, and a call per operation cost more than the arithmetic. */
    case BC_ADD:
      sp--;
      if (dual) pd = st[sp - 1][3] + st[sp][3];
      cdevs__series_add(st[sp - 1], st[sp - 1], st[sp], order);
      if (dual) st[sp - 1][3] = pd;
      break;
    case BC_SUB:
      sp--;
      if (dual) pd = st[sp - 1][3] - st[sp][3];
      cdevs__series_sub(st[sp - 1], st[sp - 1], st[sp], order);
      if (dual) st[sp - 1][3] = pd;
      break;
    case BC_MUL: {
      sp--;
      double *a = st[sp - 1], *b = st[sp];
      if (cdevs__series_is_const(b, top)) { /* by a constant (a parameter): a scaling, same result */
        for (int k = 0; k <= top; k++) a[k] *= b[0];
        break;
      }
      if (dual) pd = a[0] * b[3] + a[3] * b[0];
      cdevs__series_mul(a, a, b, order);
      if (dual) a[3] = pd;
      break;
    }
    case BC_DIV:
      sp--;
      r = st[sp - 1];
      if (cdevs__series_is_const(st[sp], top) && st[sp][0] != 0.0) {
        for (int k = 0; k <= top; k++) r[k] /= st[sp][0];
      } else {
        double pa = r[3], pb = st[sp][3];
        st_ok = cdevs_taylor_div(r, r, st[sp], order);
        if (dual) r[3] = (pa - r[0] * pb) / st[sp][0];
      }
      break;
    case BC_NEG:
      for (int k = 0; k <= top; k++) st[sp - 1][k] = -st[sp - 1][k];
      break;
    case BC_POWK:
      r = st[sp - 1];
      if (in->k == 2.0) { /* a², the commonest power (reaction terms): the product, as taylor_pow squares */
        if (dual) pd = 2.0 * r[0] * r[3];
        cdevs__series_mul(r, r, r, order);
        if (dual) r[3] = pd;
        break;
      }
      if (dual) pd = r[3] == 0.0 ? 0.0 : in->k * pow(r[0], in->k - 1.0) * r[3];
      st_ok = cdevs_taylor_pow(r, r, in->k, order);
      if (dual) r[3] = pd;
      break;
    case BC_POW: {
      /* a^b = exp(b·log a); a constant b falls back to the exact power. */
      sp--;
      r = st[sp - 1];
      if (cdevs__series_is_const(st[sp], order)) {
        st_ok = cdevs_taylor_pow(r, r, st[sp][0], order);
      } else {
        double l[4];
        st_ok = cdevs_taylor_log(l, r, order);
        if (!st_ok) {
          cdevs_taylor_mul(l, l, st[sp], order);
          cdevs_taylor_exp(r, l, order);
        }
      }
      break;
    }
    case BC_FN: st_ok = cdevs_taylor_fn(st[sp - 1], st[sp - 1], (cdevs_fn)in->arg, order); break;
    case BC_MIN:
    case BC_MAX: {
      sp--;
      r = st[sp - 1];
      /* The branch taken at τ = 0 (ties: the one that stays smaller/larger). */
      double d[4];
      cdevs_taylor_sub(d, r, st[sp], order);
      int s = cdevs__side(d, order);
      int take_b = in->op == BC_MIN ? s > 0 : s < 0;
      if (isnan(r[0]) || isnan(st[sp][0]))
        cdevs__series_const(r, NAN);
      else if (take_b)
        memcpy(r, st[sp], sizeof st[0]);
      break;
    }
    case BC_ATAN2: {
      sp--;
      r = st[sp - 1]; /* atan2(y, x) = atan(y/x) + branch; derivatives as atan(y/x) */
      double y0 = r[0], x0 = st[sp][0], q[4];
      if (x0 != 0.0 && !cdevs_taylor_div(q, r, st[sp], order)) {
        cdevs_taylor_atan(r, q, order);
        r[0] = atan2(y0, x0);
      } else {
        cdevs__series_const(r, atan2(y0, x0));
      }
      break;
    }
    case BC_MOD: {
      sp--;
      r = st[sp - 1];
      if (st[sp][0] == 0.0) {
        st_ok = CDEVS_EDOMAIN;
        break;
      }
      double q = floor(r[0] / st[sp][0]);
      r[0] -= q * st[sp][0];
      for (int k = 1; k <= order; k++) r[k] -= q * st[sp][k];
      break;
    }
    case BC_SIGN: r = st[sp - 1], cdevs__series_const(r, isnan(r[0]) ? (double)NAN : (r[0] > 0) - (r[0] < 0)); break;
    case BC_FLOOR: r = st[sp - 1], cdevs__series_const(r, floor(r[0])); break;
    case BC_CEIL: r = st[sp - 1], cdevs__series_const(r, ceil(r[0])); break;
    /* Logic on an undefined value (NaN, see below) stays undefined. */
    case BC_LT: case BC_LE: case BC_GT: case BC_GE: case BC_EQ: case BC_NE:
      sp--;
      cdevs__series_const(st[sp - 1], isnan(st[sp - 1][0]) || isnan(st[sp][0])
                                          ? (double)NAN : (double)cmp_op(in->op, st[sp - 1][0], st[sp][0]));
      break;
    case BC_AND: case BC_OR:
      sp--;
      if (isnan(st[sp - 1][0]) || isnan(st[sp][0]))
        cdevs__series_const(st[sp - 1], NAN);
      else if (in->op == BC_AND)
        cdevs__series_const(st[sp - 1], st[sp - 1][0] != 0.0 && st[sp][0] != 0.0);
      else
        cdevs__series_const(st[sp - 1], st[sp - 1][0] != 0.0 || st[sp][0] != 0.0);
      break;
    case BC_NOT: cdevs__series_const(st[sp - 1], isnan(st[sp - 1][0]) ? (double)NAN : st[sp - 1][0] == 0.0); break;
    case BC_RAND: {
      if (!env->rng) return CDEVS_EDOMAIN;
      cdevs__series_const(st[sp - 1], cdevs__crand_scaled(env->rng, st[sp - 1][0]));
      break;
    }
    case BC_SELECT:
      sp -= 2;
      if (isnan(st[sp - 1][0]))
        cdevs__series_const(st[sp - 1], NAN);
      else if (st[sp - 1][0] != 0.0)
        memcpy(st[sp - 1], st[sp], sizeof st[0]);
      else
        memcpy(st[sp - 1], st[sp + 1], sizeof st[0]);
      break;
    }
    /* A domain error makes the op's value undefined (NaN), not the evaluation an
     * error: both branches of an if-expression are evaluated, and only the one
     * taken may fail (if g > 0 then x/g else 0, with g = 0). An undefined value
     * that reaches the result is the error. */
    for (int k = 0; st_ok && k < 4; k++) st[sp - 1][k] = NAN;
  }
  /* Coefficient by coefficient: the ops wrote them one or two at a time, and a
   * wider load of just-stored values cannot be forwarded from the store buffer (it
   * waits for the stores to retire). The compiler merged the copy into 16-byte
   * loads regardless; volatile reads keep them 8 bytes wide. This load was a tenth
   * of the evaluator's time on advection. */
  const volatile double *res = st[0];
  for (int k = 0; k < 4; k++) out[k] = k <= order || (dual && k == 3) ? res[k] : 0.0;
  /* An undefined operand (all its coefficients NaN) makes every op's value at τ = 0
   * undefined, so the result's first coefficient says it all. */
  return out[0] != out[0] ? CDEVS_EDOMAIN : CDEVS_OK;
}

/* Order 0 on plain values: what bc_eval_order(order 0) computes, op for op (the same
 * expressions, the same NaN for an op outside its domain), without carrying four
 * coefficients through the stack. CVODE's right-hand side is nothing but this; it
 * took 730 instructions a derivative of adr's through the series evaluator. The ops
 * with no scalar form here (scalar_ok) take that evaluator. */
static int bc_value(const bc_code *c, const bc_env *env, double *out, double *st) {
  int sp = 0;
  const int deg = env->m->order - 1;
  double kept = 0.0, r4[4];
  for (uint32_t i = 0; i < c->n; i++) {
    const bc_ins *in = &c->ins[i];
    double q = 0.0;
    switch ((bc_op)in->op) {
    case BC_CONST: st[sp++] = in->k; break;
    case BC_PARAM: st[sp++] = env->params[in->arg]; break;
    case BC_DISC: st[sp++] = env->discs[in->arg]; break;
    case BC_PRE: st[sp++] = (env->pre ? env->pre : env->discs)[in->arg]; break;
    case BC_TIME: st[sp++] = env->t; break;
    case BC_STATE: case BC_ADDS: case BC_SUBS: case BC_MULS:
      if (in->reuse == BC_AGAIN) {
        q = kept;
      } else { /* q at t, as cdevs__qvar_q's shift computes its first coefficient */
        const cdevs__qvar *v = &env->states[in->arg];
        double h = env->t - v->tq;
        q = v->q[0];
        if (h != 0.0) {
          if (deg >= 3) q += h * (v->q[1] + h * (v->q[2] + h * v->q[3]));
          else if (deg == 2) q += h * (v->q[1] + h * v->q[2]);
          else if (deg == 1) q += h * v->q[1];
        }
        if (in->reuse == BC_KEEP) kept = q;
      }
      if (in->op == BC_STATE) st[sp++] = q;
      else if (in->op == BC_ADDS) st[sp - 1] += q;
      else if (in->op == BC_SUBS) st[sp - 1] -= q;
      else st[sp - 1] *= q;
      break;
    case BC_ADDK: st[sp - 1] += in->k; break;
    case BC_SUBK: st[sp - 1] -= in->k; break;
    case BC_RSUBK: st[sp - 1] = in->k - st[sp - 1]; break;
    case BC_MULK: st[sp - 1] *= in->k; break;
    case BC_DIVK: st[sp - 1] /= in->k; break;
    case BC_ALG: st[sp++] = env->algs[in->arg][0]; break;
    case BC_ADD: sp--, st[sp - 1] += st[sp]; break;
    case BC_SUB: sp--, st[sp - 1] -= st[sp]; break;
    case BC_MUL: sp--, st[sp - 1] *= st[sp]; break;
    case BC_DIV: sp--, st[sp - 1] = st[sp] != 0.0 ? st[sp - 1] / st[sp] : (double)NAN; break;
    case BC_NEG: st[sp - 1] = -st[sp - 1]; break;
    case BC_POWK:
      if (in->k == 2.0) {
        st[sp - 1] *= st[sp - 1];
        break;
      }
      cdevs__series_const(r4, st[sp - 1]);
      st[sp - 1] = cdevs_taylor_pow(r4, r4, in->k, 0) ? (double)NAN : r4[0];
      break;
    case BC_FN:
      cdevs__series_const(r4, st[sp - 1]);
      st[sp - 1] = cdevs_taylor_fn(r4, r4, (cdevs_fn)in->arg, 0) ? (double)NAN : r4[0];
      break;
    case BC_MIN: case BC_MAX: {
      sp--;
      double a = st[sp - 1], b = st[sp], d = a - b;
      int s = d > 0.0 ? 1 : d < 0.0 ? -1 : 0;
      if (isnan(a) || isnan(b)) st[sp - 1] = NAN;
      else if (in->op == BC_MIN ? s > 0 : s < 0) st[sp - 1] = b;
      break;
    }
    case BC_SIGN: q = st[sp - 1], st[sp - 1] = isnan(q) ? (double)NAN : (q > 0) - (q < 0); break;
    case BC_FLOOR: st[sp - 1] = floor(st[sp - 1]); break;
    case BC_CEIL: st[sp - 1] = ceil(st[sp - 1]); break;
    case BC_LT: case BC_LE: case BC_GT: case BC_GE: case BC_EQ: case BC_NE:
      sp--;
      st[sp - 1] = isnan(st[sp - 1]) || isnan(st[sp]) ? (double)NAN : (double)cmp_op(in->op, st[sp - 1], st[sp]);
      break;
    case BC_AND: case BC_OR:
      sp--;
      if (isnan(st[sp - 1]) || isnan(st[sp])) st[sp - 1] = NAN;
      else if (in->op == BC_AND) st[sp - 1] = st[sp - 1] != 0.0 && st[sp] != 0.0;
      else st[sp - 1] = st[sp - 1] != 0.0 || st[sp] != 0.0;
      break;
    case BC_NOT: st[sp - 1] = isnan(st[sp - 1]) ? (double)NAN : st[sp - 1] == 0.0; break;
    case BC_SELECT:
      sp -= 2;
      st[sp - 1] = isnan(st[sp - 1]) ? (double)NAN : st[sp - 1] != 0.0 ? st[sp] : st[sp + 1];
      break;
    default: return -2; /* (not scalar_ok: fold keeps these out) */
    }
  }
  out[0] = st[0], out[1] = out[2] = out[3] = 0.0;
  return out[0] != out[0] ? CDEVS_EDOMAIN : CDEVS_OK;
}

int cdevs__bc_eval(const bc_code *c, const bc_env *env, int order, double *out, double (*st)[4]) {
  switch (order) {
  case 0:
    if (c->scalar_ok && env->seed == UINT32_MAX) return bc_value(c, env, out, st[0]);
    return bc_eval_order(c, env, 0, 0, out, st);
  case 1: return bc_eval_order(c, env, 1, 0, out, st);
  case 2: return bc_eval_order(c, env, 2, 0, out, st);
  default: return bc_eval_order(c, env, 3, 0, out, st);
  }
}

int cdevs__bc_eval_dual(const bc_code *c, const bc_env *env, int order, double *out, double (*st)[4]) {
  switch (order) {
  case 0: return bc_eval_order(c, env, 0, 1, out, st);
  case 1: return bc_eval_order(c, env, 1, 1, out, st);
  default: return bc_eval_order(c, env, 2, 1, out, st);
  }
}

/* Operands each op pops (it pushes one); -1 for loads, which push without popping. */
static int bc_arity(int op) {
  switch ((bc_op)op) {
  case BC_CONST: case BC_STATE: case BC_ALG: case BC_DISC: case BC_PARAM: case BC_TIME: case BC_PRE: return -1;
  case BC_NEG: case BC_POWK: case BC_FN: case BC_SIGN: case BC_FLOOR: case BC_CEIL: case BC_NOT:
  case BC_RAND: case BC_ADDK: case BC_SUBK: case BC_RSUBK: case BC_MULK: case BC_DIVK:
  case BC_ADDS: case BC_SUBS: case BC_MULS: return 1;
  case BC_SELECT: return 3;
  default: return 2;
  }
}

int cdevs__bc_eval_op(bc_ins op, const double *x, int n, double *v) {
  bc_ins ins[4];
  double st[4][4], r[4];
  for (int k = 0; k < n; k++) ins[k] = (bc_ins){.op = BC_CONST, .k = x[k]};
  ins[n] = op;
  bc_code code = {.ins = ins, .n = (uint32_t)n + 1, .max_stack = (uint32_t)n + 1};
  bc_env env = {.seed = UINT32_MAX, .dual = UINT32_MAX}; /* no state, parameter or random stream */
  int rc = cdevs__bc_eval(&code, &env, 0, r, st);
  *v = r[0];
  return rc;
}

void cdevs__bc_fold(bc_code *c, const double *params) {
  /* Every operand already folded is exactly one CONST at the end of the output, so
   * an op whose operands are all constant replaces them by its value, computed by
   * the evaluator itself (one semantics). A domain error is left for run time, where
   * it is reported with the time; random numbers are never folded. */
  uint32_t n = 0, sp = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    bc_ins in = c->ins[i];
    if (in.op == BC_PARAM) in = (bc_ins){.op = BC_CONST, .arg = 0, .k = params[in.arg]};
    int ar = bc_arity(in.op);
    c->ins[n++] = in;
    if (ar < 0) {
      sp++;
      continue;
    }
    int all = in.op != BC_RAND && !BC_READS_STATE(in.op) && sp >= (uint32_t)ar;
    for (int k = 1; all && k <= ar; k++) all = c->ins[n - 1 - k].op == BC_CONST;
    sp -= (uint32_t)ar - 1;
    if (!all) continue;
    double x[3], v;
    for (int k = 0; k < ar; k++) x[k] = c->ins[n - 1 - ar + (uint32_t)k].k;
    if (cdevs__bc_eval_op(in, x, ar, &v)) continue;
    n -= (uint32_t)ar + 1;
    c->ins[n++] = (bc_ins){.op = BC_CONST, .arg = 0, .k = v};
  }
  /* Fusion. The top operand of a binary op is the value of the instruction just
   * before it when that is a load; a constant loaded just before that one is the
   * other operand, so k·q and k+q become q's load then a scaling or a shift. */
  uint32_t m = 0;
  for (uint32_t i = 0; i < n; i++) {
    bc_ins in = c->ins[i];
    int op = in.op;
    bc_ins *prev = m > 0 ? &c->ins[m - 1] : NULL;
    if (prev && op == BC_POW && prev->op == BC_CONST) { /* a^k: the exact power */
      *prev = (bc_ins){.op = BC_POWK, .arg = 0, .k = prev->k};
      continue;
    }
    if (prev && (op == BC_ADD || op == BC_SUB || op == BC_MUL || op == BC_DIV)) {
      if (prev->op == BC_CONST && (op != BC_DIV || prev->k != 0.0)) {
        static const uint8_t with_k[] = {[BC_ADD] = BC_ADDK, [BC_SUB] = BC_SUBK, [BC_MUL] = BC_MULK,
                                         [BC_DIV] = BC_DIVK};
        *prev = (bc_ins){.op = with_k[op], .arg = 0, .k = prev->k};
        /* a/k as a·(1/k): a product instead of a division per coefficient, which is
         * what a division by a parameter (a capacitance) cost; a last-bit difference. */
        double inv = 1.0 / prev->k;
        if (op == BC_DIV && isfinite(inv) && inv != 0.0) *prev = (bc_ins){.op = BC_MULK, .arg = 0, .k = inv};
        continue;
      }
      if (prev->op == BC_STATE && op != BC_DIV) {
        uint32_t j = prev->arg;
        if (m > 1 && c->ins[m - 2].op == BC_CONST) { /* k op q */
          double k = c->ins[m - 2].k;
          c->ins[m - 2] = (bc_ins){.op = BC_STATE, .arg = j, .k = 0.0};
          *prev = (bc_ins){.op = op == BC_ADD ? BC_ADDK : op == BC_SUB ? BC_RSUBK : BC_MULK, .arg = 0, .k = k};
        } else {
          *prev = (bc_ins){.op = op == BC_ADD ? BC_ADDS : op == BC_SUB ? BC_SUBS : BC_MULS, .arg = j, .k = 0.0};
          /* -q_a + q_b, as an upwind difference is written: q_b - q_a, two ops fewer */
          if (op == BC_ADD && m > 2 && c->ins[m - 2].op == BC_NEG && c->ins[m - 3].op == BC_STATE) {
            c->ins[m - 2] = (bc_ins){.op = BC_SUBS, .arg = c->ins[m - 3].arg, .k = 0.0};
            c->ins[m - 3] = (bc_ins){.op = BC_STATE, .arg = j, .k = 0.0};
            m--;
          }
        }
        continue;
      }
    }
    c->ins[m++] = in;
  }
  c->n = m;
  /* A state read again with no other state read between (advection's u[j], four
   * times in its derivative): the evaluator keeps the first read's series instead
   * of loading and shifting q again. */
  uint32_t last = UINT32_MAX, at = 0;
  for (uint32_t i = 0; i < m; i++) {
    if (!BC_READS_STATE(c->ins[i].op)) continue;
    c->ins[i].reuse = 0;
    if (c->ins[i].arg == last) {
      c->ins[i].reuse = BC_AGAIN;
      if (c->ins[at].reuse != BC_AGAIN) c->ins[at].reuse = BC_KEEP;
    } else {
      last = c->ins[i].arg, at = i;
    }
  }
  c->dual_ok = 1;
  c->reads_alg = 0;
  c->scalar_ok = 1;
  for (uint32_t i = 0; i < m; i++) {
    c->reads_alg |= c->ins[i].op == BC_ALG;
    switch ((bc_op)c->ins[i].op) {
    case BC_ALG: case BC_FN: c->dual_ok = 0; break;
    case BC_POW: case BC_ATAN2: case BC_MOD: case BC_RAND: c->dual_ok = 0, c->scalar_ok = 0; break;
    default: break;
    }
  }
}

/* The degree in τ of what code c computes when each state's q has degree qdeg and
 * algebraic a degree adeg[a]: at most cap, which also stands for anything that is
 * not a polynomial (a quotient by a varying divisor, a function of a varying
 * argument). The coefficients above it come out zero, so evaluating at that order
 * instead of a higher one gives the same series for less work: time - nextSample is
 * a line, and a crossing linear in the states has q's degree. st holds max_stack
 * ints. */
int cdevs__bc_degree(const bc_code *c, int qdeg, int cap, const uint8_t *adeg, int *st) {
  int sp = 0;
  for (uint32_t i = 0; i < c->n; i++) {
    const bc_ins *in = &c->ins[i];
    int a = sp >= 1 ? st[sp - 1] : 0, b = sp >= 2 ? st[sp - 2] : 0, d;
    switch ((bc_op)in->op) {
    case BC_CONST: case BC_PARAM: case BC_DISC: case BC_PRE: st[sp++] = 0; continue;
    case BC_TIME: st[sp++] = 1; continue;
    case BC_STATE: st[sp++] = qdeg; continue;
    case BC_ALG: st[sp++] = adeg[in->arg]; continue;
    case BC_ADDK: case BC_SUBK: case BC_RSUBK: case BC_MULK: case BC_DIVK: case BC_NEG: d = a; break;
    case BC_ADDS: case BC_SUBS: d = a > qdeg ? a : qdeg; break;
    case BC_MULS: d = a + qdeg; break;
    case BC_ADD: case BC_SUB: case BC_MIN: case BC_MAX: d = a > b ? a : b; break;
    case BC_MUL: d = a + b; break;
    case BC_DIV: d = a == 0 ? b : cap; break; /* the divisor is the top */
    case BC_POWK: /* a^k: a polynomial for a whole k up to cap */
      d = a == 0 ? 0 : in->k >= 0.0 && in->k <= cap && in->k == floor(in->k) ? a * (int)in->k : cap;
      break;
    case BC_SELECT: d = a > b ? a : b; break; /* the branch taken, either */
    case BC_SIGN: case BC_FLOOR: case BC_CEIL: case BC_LT: case BC_LE: case BC_GT: case BC_GE: case BC_EQ:
    case BC_NE: case BC_AND: case BC_OR: case BC_NOT: case BC_RAND: d = 0; break;
    default: d = a == 0 && (bc_arity(in->op) < 2 || b == 0) ? 0 : cap; break; /* FN, POW, ATAN2, MOD */
    }
    sp -= bc_arity(in->op) - 1;
    st[sp - 1] = d < cap ? d : cap;
  }
  return sp ? st[0] : 0;
}
