/* SPDX-License-Identifier: MIT */
/*
 * Static function blocks: y = f(u0, …, un-1). When any input changes, the block
 * shifts every input's polynomial to now, applies f in Taylor arithmetic (so y
 * carries exact derivatives up to the inputs' highest order) and emits at once.
 * A nonlinear f's y is beyond that series; the block plans a refresh where the
 * terms left out reach its quantum (see refresh_in), as the QSS system does for its
 * algebraic outputs: a zero-time pair of transitions that evaluates f again and
 * sends y.
 */
#include <math.h>

#include "cdevs/continuous.h"
#include "qss/qss_impl.h"
#include "signal.h"

enum fkind { F_WSUM, F_GAIN, F_MULT, F_DIV, F_INV, F_SQUARE, F_POW, F_FUNC };

typedef struct static_state {
  int kind, n;
  double w[CDEVS_STATIC_MAX_INPUTS]; /* weights, gain or exponent */
  cdevs_fn fn;
  cdevs__sig u[CDEVS_STATIC_MAX_INPUTS];
  double y[4];
  int yorder;
  double sigma;
  /* Nonlinear blocks: the quantum's parameters (dqrel < 0: linear, no refresh),
   * whether the next internal event is a refresh (nothing sent), and the left-out
   * coefficient c_{m+1} of the last evaluation and its time (its change estimates the
   * next one). */
  double dqrel, dqmin;
  int refresh;
  double hist[2];
} static_state;

static const cdevs_port_def in8[] = {{"u0", CDEVS_TAYLOR}, {"u1", CDEVS_TAYLOR}, {"u2", CDEVS_TAYLOR},
                                     {"u3", CDEVS_TAYLOR}, {"u4", CDEVS_TAYLOR}, {"u5", CDEVS_TAYLOR},
                                     {"u6", CDEVS_TAYLOR}, {"u7", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
static const cdevs_port_def in2[] = {{"u0", CDEVS_TAYLOR}, {"u1", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
static const cdevs_port_def in1[] = {{"u", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
static const cdevs_port_def out1[] = {{"y", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
/* Each input is one signal: two drivers would keep the last value. Of the eight inputs
   of WSum and Mult only the first n are read, so none of them is required here. */
static const unsigned char in8_drivers[] = {CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL};
static const unsigned char in2_drivers[] = {CDEVS_DRIVERS_ONE, CDEVS_DRIVERS_ONE};
static const unsigned char in1_drivers[] = {CDEVS_DRIVERS_ONE};

static void base_init(static_state *s, int kind, int n) {
  s->kind = kind;
  s->n = n;
  s->sigma = INFINITY;
  s->dqrel = -1.0; /* (linear: no refresh) */
  s->hist[1] = NAN;
  for (int i = 0; i < n; i++) s->w[i] = 1.0;
}

/* A nonlinear block's quantum (0, 0: the defaults). */
static int quantum(cdevs_ctx *cx, static_state *s, double dqrel, double dqmin) {
  if (!(dqrel >= 0.0 && dqmin >= 0.0 && isfinite(dqrel) && isfinite(dqmin))) {
    cdevs_ctx_fail(cx, "dqrel and dqmin must be finite and >= 0 (got %g, %g)", dqrel, dqmin);
    return CDEVS_EINVAL;
  }
  if (dqrel == 0.0 && dqmin == 0.0) dqrel = 1e-6, dqmin = 1e-9;
  if (!(dqmin > 0.0)) { /* a quantum of 0 where y is 0: a refresh at once, for ever */
    cdevs_ctx_fail(cx, "a nonlinear block needs dqmin > 0, or dqrel = dqmin = 0 for the defaults (got dqrel=%g dqmin=%g)",
                   dqrel, dqmin);
    return CDEVS_EINVAL;
  }
  s->dqrel = dqrel, s->dqmin = dqmin;
  return CDEVS_OK;
}

static int wsum_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_wsum_params *p = arg;
  static_state *s = state;
  if (p->n < 1 || p->n > CDEVS_STATIC_MAX_INPUTS) {
    cdevs_ctx_fail(cx, "wsum needs 1..%d inputs (got n=%d)", CDEVS_STATIC_MAX_INPUTS, p->n);
    return CDEVS_EINVAL;
  }
  base_init(s, F_WSUM, p->n);
  for (int i = 0; i < p->n; i++) s->w[i] = p->w[i];
  return CDEVS_OK;
}

static int gain_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  static_state *s = state;
  base_init(s, F_GAIN, 1);
  s->w[0] = ((const cdevs_gain_params *)arg)->k;
  return CDEVS_OK;
}

static int mult_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_mult_params *p = arg;
  int n = p->n ? p->n : 2;
  if (n < 2 || n > CDEVS_STATIC_MAX_INPUTS) {
    cdevs_ctx_fail(cx, "mult needs 2..%d inputs (got n=%d)", CDEVS_STATIC_MAX_INPUTS, p->n);
    return CDEVS_EINVAL;
  }
  base_init(state, F_MULT, n);
  return quantum(cx, state, p->dqrel, p->dqmin);
}

static int div_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_div_params *p = arg;
  base_init(state, F_DIV, 2);
  return quantum(cx, state, p->dqrel, p->dqmin);
}

static int inv_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_inv_params *p = arg;
  base_init(state, F_INV, 1);
  return quantum(cx, state, p->dqrel, p->dqmin);
}

static int square_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_square_params *p = arg;
  base_init(state, F_SQUARE, 1);
  return quantum(cx, state, p->dqrel, p->dqmin);
}

static int pow_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_pow_params *p = arg;
  if (!isfinite(p->p)) {
    cdevs_ctx_fail(cx, "pow needs a finite exponent");
    return CDEVS_EINVAL;
  }
  static_state *s = state;
  base_init(s, F_POW, 1);
  s->w[0] = p->p;
  return quantum(cx, s, p->dqrel, p->dqmin);
}

static int func_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_func_params *p = arg;
  if (!cdevs_fn_name(p->fn)) {
    cdevs_ctx_fail(cx, "func: unknown function %d", (int)p->fn);
    return CDEVS_EINVAL;
  }
  static_state *s = state;
  base_init(s, F_FUNC, 1);
  s->fn = p->fn;
  return quantum(cx, s, p->dqrel, p->dqmin);
}

static double static_ta(const void *state) { return ((const static_state *)state)->sigma; }

static void static_output(cdevs_ctx *cx, const void *state) {
  const static_state *s = state;
  if (!s->refresh) cdevs__emit_series(cx, 0, s->y, s->yorder);
}

/* f at t on the inputs' series to `order` into y; 0, or -1 with the run failed. */
static int eval_at(cdevs_ctx *cx, static_state *s, double t, int order, double *y) {
  double u[CDEVS_STATIC_MAX_INPUTS][4];
  const double *up[CDEVS_STATIC_MAX_INPUTS];
  for (int i = 0; i < s->n; i++) {
    cdevs__sig_at(&s->u[i], t, u[i]);
    up[i] = u[i];
  }
  int st = CDEVS_OK;
  const char *what = NULL;
  switch (s->kind) {
  case F_WSUM: cdevs_taylor_wsum(y, up, s->w, s->n, order); break;
  case F_GAIN: cdevs_taylor_scale(y, u[0], s->w[0], order); break;
  case F_MULT:
    cdevs_taylor_mul(y, u[0], u[1], order);
    for (int i = 2; i < s->n; i++) cdevs_taylor_mul(y, y, u[i], order);
    break;
  case F_DIV: st = cdevs_taylor_div(y, u[0], u[1], order), what = "division by zero"; break;
  case F_INV: st = cdevs_taylor_inv(y, u[0], order), what = "division by zero"; break;
  case F_SQUARE: cdevs_taylor_mul(y, u[0], u[0], order); break;
  case F_POW: st = cdevs_taylor_pow(y, u[0], s->w[0], order), what = "pow outside its domain"; break;
  case F_FUNC: st = cdevs_taylor_fn(y, u[0], s->fn, order), what = cdevs_fn_name(s->fn); break;
  }
  if (!st) {
    for (int k = 0; k <= order; k++)
      if (!isfinite(y[k])) {
        cdevs_ctx_fail(cx, "the output is not finite (coefficient %d is %g)", k, y[k]);
        return -1;
      }
    return 0;
  }
  cdevs_ctx_fail(cx, "%s%s: input u=%.17g", s->kind == F_FUNC ? "argument outside the domain of " : "", what,
                 u[s->kind == F_DIV ? 1 : 0][0]);
  return -1;
}

/* y at t to the inputs' highest degree, to be sent now; a nonlinear block's one degree
 * further where there is one, the first term its refresh plans on (refresh_in). */
static void evaluate(cdevs_ctx *cx, static_state *s, double t) {
  int order = 0;
  for (int i = 0; i < s->n; i++)
    if (s->u[i].order > order) order = s->u[i].order;
  if (eval_at(cx, s, t, s->dqrel >= 0.0 && order < 3 ? order + 1 : order, s->y)) return;
  s->yorder = order;
  s->sigma = 0.0;
  s->refresh = 0;
}

/* The degree of input i's series (its last nonzero coefficient). */
static int degree(const static_state *s, int i) {
  int d = s->u[i].order;
  while (d > 0 && s->u[i].c[d] == 0.0) d--;
  return d;
}

/* y's series, to degree m, is f at the inputs exactly: a product of degree m or less
 * (a switch's 0 or 1 times a line), or any f of constants. */
static int exact(const static_state *s, int m) {
  int sum = 0, most = 0;
  for (int i = 0; i < s->n; i++) {
    int d = degree(s, i);
    sum += d, most = d > most ? d : most;
  }
  switch (s->kind) {
  case F_MULT: return sum <= m;
  case F_SQUARE: return 2 * sum <= m;
  case F_DIV: return degree(s, 1) == 0 && degree(s, 0) <= m;
  default: return most == 0;
  }
}

/* How long y, sent at t to degree m, may be extrapolated (cdevs__refresh_tau, with
 * c_{m+1} from evaluate): INFINITY for a linear block, and where y's series is f itself. */
static double refresh_in(static_state *s, double t) {
  int m = s->yorder;
  if (m >= 3 || exact(s, m)) return INFINITY; /* (degree 3: a source's own refresh sends it) */
  return cdevs__refresh_tau(fmax(s->dqrel * fabs(s->y[0]), s->dqmin), s->y, m + 1, s->hist, t);
}

static void static_int(cdevs_ctx *cx, void *state) {
  static_state *s = state;
  if (s->dqrel < 0.0) { /* linear: y is sent, and is y until the inputs change */
    s->sigma = INFINITY;
    return;
  }
  double t = cdevs_ctx_time(cx);
  if (s->refresh) { /* the refresh's time: f again, sent at once */
    evaluate(cx, s, t);
    return;
  }
  /* y is sent: the refresh, if its series is not f's and runs out */
  double tau = refresh_in(s, t), tn = t + tau;
  s->refresh = tau < INFINITY;
  s->sigma = !s->refresh ? INFINITY : tn > t ? tau : nextafter(t, INFINITY) - t; /* (time moves on) */
}

static void static_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  static_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) cdevs__sig_set(&s->u[x->events[i].port], x->events[i].value, t);
  evaluate(cx, s, t);
}

#define STATIC_OPS(sym, tname, params, in, initfn)                                           \
  const cdevs_atomic_ops sym = {.type = tname,                                                \
                                .state_size = sizeof(static_state),                           \
                                .arg_size = params,                                           \
                                .inputs = in,                                                 \
                                .in_drivers = in##_drivers,                                   \
                                .outputs = out1,                                              \
                                .init = initfn,                                               \
                                .ta = static_ta,                                              \
                                .output = static_output,                                      \
                                .delta_int = static_int,                                      \
                                .delta_ext = static_ext}

STATIC_OPS(cdevs_wsum_ops, "WSum", sizeof(cdevs_wsum_params), in8, wsum_init);
STATIC_OPS(cdevs_gain_ops, "Gain", sizeof(cdevs_gain_params), in1, gain_init);
STATIC_OPS(cdevs_mult_ops, "Mult", sizeof(cdevs_mult_params), in8, mult_init);
STATIC_OPS(cdevs_div_ops, "Div", sizeof(cdevs_div_params), in2, div_init);
STATIC_OPS(cdevs_inv_ops, "Inv", sizeof(cdevs_inv_params), in1, inv_init);
STATIC_OPS(cdevs_square_ops, "Square", sizeof(cdevs_square_params), in1, square_init);
STATIC_OPS(cdevs_pow_ops, "Pow", sizeof(cdevs_pow_params), in1, pow_init);
STATIC_OPS(cdevs_func_ops, "Func", sizeof(cdevs_func_params), in1, func_init);
