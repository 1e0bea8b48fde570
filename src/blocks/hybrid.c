/* SPDX-License-Identifier: MIT */
/*
 * Hybrid blocks: outputs that switch when an input polynomial crosses a level. The
 * switching instant is a root of the polynomial, found in closed form, so an event
 * lands exactly where the signal crosses and no time step is involved.
 *
 * After a crossing the input's value at that instant is the level only up to
 * round-off; planning from there with the value snapped to the level (`snap`) lets
 * the derivatives decide the side, so a crossing is never found twice. The same holds
 * for the input sent again at that instant (a block or equations between the signal
 * and this block passing it on once more): a value within round-off of the level just
 * crossed is the level (see crossed_at), so it cannot flip the output back, while a
 * jump across the level by more than that still does.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "cdevs/continuous.h"
#include "qss/crossing.h"
#include "signal.h"

typedef struct hyb_state {
  cdevs__sig u[3];
  double p[5];   /* the block's numeric parameters */
  int side;      /* watched side of the level (0: not known yet) */
  int64_t k;     /* quantizer level, sampler / PWM period */
  int to;        /* side after the planned event */
  int by_root;   /* the planned event is a root of the input, not a jump seen at once */
  double snap;   /* level crossed at the last internal event, or NaN */
  /* The last crossing at a root: its instant, input, level, and how far from the level
   * round-off can put a value of that input at that instant (see crossed_at). */
  double t_root, root_level, root_band;
  int root_in;
  double y[4];   /* output to emit */
  int yorder;
  int emit;      /* λ emits y at the planned event */
  double sigma;
  double origin;  /* sampler, PWM: the start time periods count from */
  double t_sample; /* sampler: time of the last sample */
  double hist[3];  /* sampler: the last samples, newest first */
  int nhist;
  int started;     /* quantizer: its first level has been announced */
  /* Sampler with a width D: the input's segments (each from its event on) over the
   * last 2D and the one before, oldest first. */
  const cdevs_alloc *alloc;
  cdevs__sig *seg;
  uint32_t nseg, capseg;
} hyb_state;

static const cdevs_port_def u_in[] = {{"u", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
static const cdevs_port_def sh_in[] = {{"u", CDEVS_TAYLOR}, {"trigger", CDEVS_ANY}, {NULL, CDEVS_ANY}};
static const cdevs_port_def sw_in[] = {
    {"u0", CDEVS_TAYLOR}, {"ctl", CDEVS_TAYLOR}, {"u1", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
static const cdevs_port_def pwm_in[] = {{"duty", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
static const cdevs_port_def y_out[] = {{"y", CDEVS_TAYLOR}, {NULL, CDEVS_ANY}};
/* Signal inputs take exactly one driver; a sample-and-hold's trigger takes events. */
static const unsigned char u_in_drivers[] = {CDEVS_DRIVERS_ONE};
static const unsigned char sh_in_drivers[] = {CDEVS_DRIVERS_ONE, CDEVS_DRIVERS_ANY};
static const unsigned char sw_in_drivers[] = {CDEVS_DRIVERS_ONE, CDEVS_DRIVERS_ONE, CDEVS_DRIVERS_ONE};
static const unsigned char pwm_in_drivers[] = {CDEVS_DRIVERS_ONE};

static int check_finite(cdevs_ctx *cx, const double *p, int n, const char *what) {
  for (int i = 0; i < n; i++)
    if (!isfinite(p[i])) {
      cdevs_ctx_fail(cx, "%s needs finite parameters", what);
      return CDEVS_EINVAL;
    }
  return CDEVS_OK;
}

static void hyb_start(hyb_state *s) {
  s->sigma = INFINITY;
  s->snap = NAN;
  s->t_root = NAN;
}

/*
 * Input i crossed `level` (moving at level_slope: a PWM's carrier) at t, at a root of
 * its series: the plan from here takes the value as the level (snap). So does one of
 * the input sent again at this instant whose value is off the level by no more than
 * round-off can explain: the instant t is the root only to half a unit in its last
 * place, which at the input's slope puts the value off the level by up to
 * |slope|·ulp(t)/2 (2.6e-16 for a pendulum's angle crossing 0 at 3.2 rad/s near
 * t = 1.5), and the series' terms carry a few units in the last place of their sizes.
 * Taken for a jump back across the level, such a value flipped the output back, and
 * the root found again a rounding away flipped it once more, for ever at one instant.
 */
static void crossed_at(hyb_state *s, int i, double t, double level, double level_slope) {
  const cdevs__sig *u = &s->u[i];
  double c[4], terms = 0.0, p = 1.0, tau = t - u->t;
  for (int k = 0; k <= u->order; k++, p *= tau) terms += fabs(u->c[k] * p);
  cdevs__sig_at(u, t, c);
  double slope = fabs((u->order >= 1 ? c[1] : 0.0) - level_slope);
  double ulp = nextafter(fabs(t), INFINITY) - fabs(t);
  s->snap = level;
  s->t_root = t, s->root_in = i, s->root_level = level;
  s->root_band = 4.0 * slope * ulp + 16.0 * DBL_EPSILON * (fabs(level) + terms);
}

/* The input's series around t, with the value snapped to the level just crossed (at
 * the crossing, and for a value sent again then within round-off of it). */
static int input_at(const hyb_state *s, int i, double t, double *c) {
  cdevs__sig_at(&s->u[i], t, c);
  if (!isnan(s->snap))
    c[0] = s->snap;
  else if (t == s->t_root && i == s->root_in && fabs(c[0] - s->root_level) <= s->root_band)
    c[0] = s->root_level;
  return s->u[i].order;
}

static int side_at(const double *c, int order, double level) {
  double d[4] = {c[0] - level, c[1], c[2], c[3]};
  return cdevs__side(d, order);
}

static double hyb_ta(const void *state) {
  const hyb_state *s = state;
  return s->sigma;
}

static void hyb_output(cdevs_ctx *cx, const void *state) {
  const hyb_state *s = state;
  if (s->emit) cdevs__emit_series(cx, 0, s->y, s->yorder);
}

static void set_const_output(hyb_state *s, double v) {
  s->y[0] = v;
  s->y[1] = s->y[2] = s->y[3] = 0.0;
  s->yorder = 0;
}

/* ---- Cross detect and comparator: one level, side of u - level -------------------- */

enum { K_CROSS, K_COMPARATOR };

static void level_plan(hyb_state *s, double t, int kind) {
  double c[4];
  int order = input_at(s, 0, t, c);
  double level = s->p[0];
  int now = side_at(c, order, level);
  /* An input identically at the level is not above it: the comparator is low. */
  if (now == 0 && kind == K_COMPARATOR) now = -1;
  s->emit = 0;
  if (s->side == 0 && now != 0) {
    s->side = now; /* first knowledge of the side: not a crossing */
    if (kind == K_COMPARATOR) {
      set_const_output(s, now > 0 ? s->p[2] : s->p[1]);
      s->emit = 1, s->to = now, s->sigma = 0.0;
      return;
    }
  }
  s->by_root = 0;
  if (now != 0 && now != s->side) { /* the input jumped across the level */
    s->to = now;
    s->sigma = 0.0;
  } else if (s->side == 0) {
    s->sigma = INFINITY;
    return;
  } else {
    s->to = -s->side;
    s->sigma = cdevs__next_cross(c, order, level, s->side);
    s->by_root = 1;
  }
  if (kind == K_CROSS) {
    int dir = (int)s->p[1];
    s->emit = dir == 0 || dir == s->to;
    set_const_output(s, s->p[2]);
  } else {
    s->emit = 1;
    set_const_output(s, s->to > 0 ? s->p[2] : s->p[1]);
  }
}

static int cross_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_cross_params *p = arg;
  hyb_state *s = state;
  s->p[0] = p->level, s->p[1] = p->direction, s->p[2] = p->value;
  if (check_finite(cx, s->p, 3, "cross detect")) return CDEVS_EINVAL;
  if (p->direction < -1 || p->direction > 1) {
    cdevs_ctx_fail(cx, "cross detect direction must be -1, 0 or 1 (got %d)", p->direction);
    return CDEVS_EINVAL;
  }
  hyb_start(s);
  return CDEVS_OK;
}

static int comparator_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_comparator_params *p = arg;
  hyb_state *s = state;
  s->p[0] = p->level, s->p[1] = p->low, s->p[2] = p->high;
  if (check_finite(cx, s->p, 3, "comparator")) return CDEVS_EINVAL;
  hyb_start(s);
  /* Before any input, u = 0: announce the matching output at the start. */
  s->side = 0 > p->level ? 1 : -1;
  set_const_output(s, s->side > 0 ? p->high : p->low);
  s->emit = 1, s->to = s->side, s->sigma = 0.0;
  return CDEVS_OK;
}

static void level_ext(cdevs_ctx *cx, void *state, const cdevs_bag *x, int kind) {
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) cdevs__sig_set(&s->u[0], x->events[i].value, t);
  if (s->emit && s->sigma == 0.0) return; /* an announcement is due now: keep it */
  s->snap = NAN;
  level_plan(s, t, kind);
}

static void level_int(cdevs_ctx *cx, void *state, int kind) {
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  int crossed = s->to != s->side && s->by_root;
  s->side = s->to;
  s->snap = NAN;
  if (crossed) crossed_at(s, 0, t, s->p[0], 0.0);
  level_plan(s, t, kind);
  s->snap = NAN;
}

static void cross_ext(cdevs_ctx *cx, void *st, double e, const cdevs_bag *x) {
  (void)e;
  level_ext(cx, st, x, K_CROSS);
}
static void cross_int(cdevs_ctx *cx, void *st) { level_int(cx, st, K_CROSS); }
static void comparator_ext(cdevs_ctx *cx, void *st, double e, const cdevs_bag *x) {
  (void)e;
  level_ext(cx, st, x, K_COMPARATOR);
}
static void comparator_int(cdevs_ctx *cx, void *st) { level_int(cx, st, K_COMPARATOR); }

/* ---- Hysteresis: high after u reaches x_on, low after it falls to x_off ---------- */

static void hyst_plan(hyb_state *s, double t) {
  double c[4];
  int order = input_at(s, 0, t, c);
  double x_on = s->p[0], x_off = s->p[1];
  int high = s->side > 0;
  s->emit = 0;
  s->by_root = 0;
  /* Reaching a threshold counts: an input that stays exactly on it has switched. */
  if (!high && side_at(c, order, x_on) >= 0) {
    s->to = 1, s->sigma = 0.0;
  } else if (high && side_at(c, order, x_off) <= 0) {
    s->to = -1, s->sigma = 0.0;
  } else {
    s->by_root = 1;
    s->to = -s->side;
    s->sigma = high ? cdevs__next_cross(c, order, x_off, 1) : cdevs__next_cross(c, order, x_on, -1);
  }
  s->emit = 1;
  set_const_output(s, s->to > 0 ? s->p[3] : s->p[2]);
}

static int hyst_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_hysteresis_params *p = arg;
  hyb_state *s = state;
  s->p[0] = p->x_on, s->p[1] = p->x_off, s->p[2] = p->low, s->p[3] = p->high;
  if (check_finite(cx, s->p, 4, "hysteresis")) return CDEVS_EINVAL;
  if (!(p->x_off < p->x_on)) {
    cdevs_ctx_fail(cx, "hysteresis needs x_off < x_on (got %g, %g)", p->x_off, p->x_on);
    return CDEVS_EINVAL;
  }
  hyb_start(s);
  s->side = s->to = p->start_high ? 1 : -1;
  set_const_output(s, p->start_high ? p->high : p->low);
  s->emit = 1, s->sigma = 0.0;
  return CDEVS_OK;
}

static void hyst_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) cdevs__sig_set(&s->u[0], x->events[i].value, t);
  if (s->emit && s->sigma == 0.0 && s->to == s->side) return; /* initial announcement */
  hyst_plan(s, t);
}

static void hyst_int(cdevs_ctx *cx, void *state) {
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  int crossed = s->to != s->side && s->by_root;
  s->side = s->to;
  s->snap = NAN;
  if (crossed) crossed_at(s, 0, t, s->side > 0 ? s->p[0] : s->p[1], 0.0);
  hyst_plan(s, t);
  s->snap = NAN;
  if (s->to == s->side) s->emit = 0, s->sigma = s->sigma == 0.0 ? INFINITY : s->sigma;
}

/* ---- Saturation: region -1 (below lo), 0 (inside), +1 (above hi) ---------------- */

static void sat_output_for(hyb_state *s, int region, const double *c, int order) {
  if (region > 0) {
    set_const_output(s, s->p[1]);
  } else if (region < 0) {
    set_const_output(s, s->p[0]);
  } else {
    for (int k = 0; k < 4; k++) s->y[k] = c[k];
    s->yorder = order;
  }
}

static void sat_plan(hyb_state *s, double t, int input_changed) {
  double c[4];
  int order = input_at(s, 0, t, c);
  double lo = s->p[0], hi = s->p[1];
  int now = side_at(c, order, hi) > 0 ? 1 : side_at(c, order, lo) < 0 ? -1 : 0;
  s->by_root = 0;
  if (now != s->side || (input_changed && now == 0)) {
    s->to = now;
    s->sigma = 0.0;
    s->emit = 1;
    sat_output_for(s, now, c, order);
    return;
  }
  double r;
  if (now == 0) {
    double a = cdevs__next_cross(c, order, hi, -1), b = cdevs__next_cross(c, order, lo, 1);
    r = a < b ? a : b;
    s->to = a < b ? 1 : -1;
  } else {
    r = cdevs__next_cross(c, order, now > 0 ? hi : lo, now);
    s->to = 0;
  }
  s->sigma = r;
  s->emit = 1;
  s->by_root = 1;
  /* The output after the crossing: the bound, or u from the crossing on. */
  double cc[4];
  cdevs__sig_at(&s->u[0], t + (isfinite(r) ? r : 0.0), cc);
  sat_output_for(s, s->to, cc, order);
}

static int sat_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_saturation_params *p = arg;
  hyb_state *s = state;
  s->p[0] = p->lo, s->p[1] = p->hi;
  if (check_finite(cx, s->p, 2, "saturation")) return CDEVS_EINVAL;
  if (!(p->lo < p->hi)) {
    cdevs_ctx_fail(cx, "saturation needs lo < hi (got %g, %g)", p->lo, p->hi);
    return CDEVS_EINVAL;
  }
  hyb_start(s);
  s->side = 2; /* unknown: the first input always produces an output */
  return CDEVS_OK;
}

static void sat_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) cdevs__sig_set(&s->u[0], x->events[i].value, t);
  s->snap = NAN;
  sat_plan(s, t, 1);
}

static void sat_int(cdevs_ctx *cx, void *state) {
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  int from = s->side;
  s->side = s->to;
  /* Snap to the bound between the old and the new region. */
  s->snap = NAN;
  if (from != s->side && from != 2 && s->by_root)
    crossed_at(s, 0, t, from > 0 || s->side > 0 ? s->p[1] : s->p[0], 0.0);
  sat_plan(s, t, 0);
  s->snap = NAN;
  if (s->sigma == 0.0 && s->to == s->side) s->sigma = INFINITY; /* nothing new */
}

/* ---- Quantizer: level k, up at (k+1)·Δ, down at k·Δ - ε -------------------------- */

/* Levels are counted in an int64_t; beyond 2^52 quanta k and k + 1 coincide as
 * doubles and the block could not move. */
#define QUANT_MAX_LEVEL 4503599627370496.0

static int quant_plan(cdevs_ctx *cx, hyb_state *s, double t) {
  double c[4];
  int order = input_at(s, 0, t, c);
  double D = s->p[0], eps = s->p[1];
  if (!(fabs(c[0] / D) < QUANT_MAX_LEVEL)) {
    cdevs_ctx_fail(cx, "quantizer: input %g is beyond 2^52 quanta of %g", c[0], D);
    s->sigma = INFINITY;
    return -1;
  }
  int64_t k = s->k;
  if (s->side == 0) { /* first input: the level that holds u */
    k = (int64_t)floor(c[0] / D);
    s->side = 1;
  } else if (side_at(c, order, (double)(k + 1) * D) >= 0 && !isnan(s->snap) && s->to > 0) {
    k = k + 1; /* reached the upper threshold at a root */
  } else if (!isnan(s->snap) && s->to < 0) {
    k = k - 1;
  } else if (side_at(c, order, (double)(k + 1) * D) >= 0 || side_at(c, order, (double)k * D - eps) < 0) {
    k = (int64_t)floor(c[0] / D); /* jumped */
  }
  s->emit = k != s->k || !s->started;
  s->k = k;
  s->started = 1;
  set_const_output(s, (double)k * D);
  double up = cdevs__next_cross(c, order, (double)(k + 1) * D, -1);
  double dn = cdevs__next_cross(c, order, (double)k * D - eps, 1);
  s->to = up < dn ? 1 : -1;
  s->sigma = s->emit ? 0.0 : (up < dn ? up : dn);
  if (s->emit) s->to = 0;
  return 0;
}

static int quant_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_quantizer_params *p = arg;
  hyb_state *s = state;
  s->p[0] = p->quantum, s->p[1] = p->hysteresis;
  if (check_finite(cx, s->p, 2, "quantizer")) return CDEVS_EINVAL;
  if (!(p->quantum > 0.0) || !(p->hysteresis >= 0.0) || !(p->hysteresis < p->quantum)) {
    cdevs_ctx_fail(cx, "quantizer needs quantum > 0 and 0 <= hysteresis < quantum");
    return CDEVS_EINVAL;
  }
  hyb_start(s);
  return CDEVS_OK;
}

static void quant_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) cdevs__sig_set(&s->u[0], x->events[i].value, t);
  int pending = s->emit && s->sigma == 0.0; /* a level change not yet announced */
  s->snap = NAN;
  s->to = 0;
  if (quant_plan(cx, s, t)) return;
  if (pending) s->emit = 1, s->sigma = 0.0, s->to = 0;
}

static void quant_int(cdevs_ctx *cx, void *state) {
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  if (s->emit) { /* the announced level is out: plan the next crossing */
    double c[4];
    int order = input_at(s, 0, t, c);
    double D = s->p[0], eps = s->p[1];
    double up = cdevs__next_cross(c, order, (double)(s->k + 1) * D, -1);
    double dn = cdevs__next_cross(c, order, (double)s->k * D - eps, 1);
    s->to = up < dn ? 1 : -1;
    s->sigma = up < dn ? up : dn;
    s->emit = 0;
    return;
  }
  crossed_at(s, 0, t, s->to > 0 ? (double)(s->k + 1) * s->p[0] : (double)s->k * s->p[0] - s->p[1], 0.0);
  (void)quant_plan(cx, s, t);
  s->snap = NAN;
}

/* ---- Switch: u0 while ctl > level, else u1 ------------------------------------- */

static void switch_plan(hyb_state *s, double t, int selected_changed) {
  double c[4];
  int order = input_at(s, 1, t, c);
  int now = side_at(c, order, s->p[0]);
  if (now == 0) now = -1; /* ctl exactly at the level is not above it: u1 */
  int sel_changed = now != s->side;
  s->side = now;
  s->snap = NAN;
  int sel = s->side > 0 ? 0 : 2;
  double y[4];
  cdevs__sig_at(&s->u[sel], t, y);
  if (sel_changed || selected_changed) {
    for (int k = 0; k < 4; k++) s->y[k] = y[k];
    s->yorder = s->u[sel].order;
    s->emit = 1;
    s->sigma = 0.0;
    s->to = s->side;
  } else {
    s->to = -s->side;
    s->sigma = cdevs__next_cross(c, order, s->p[0], s->side);
    s->emit = 1;
    int other = s->to > 0 ? 0 : 2;
    cdevs__sig_at(&s->u[other], t + (isfinite(s->sigma) ? s->sigma : 0.0), s->y);
    s->yorder = s->u[other].order;
  }
}

static int switch_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_switch_params *p = arg;
  hyb_state *s = state;
  s->p[0] = p->level;
  if (check_finite(cx, s->p, 1, "switch")) return CDEVS_EINVAL;
  hyb_start(s);
  return CDEVS_OK;
}

static void switch_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  int sel = s->side > 0 ? 0 : 2, changed = s->side == 0;
  for (size_t i = 0; i < x->n; i++) {
    cdevs__sig_set(&s->u[x->events[i].port], x->events[i].value, t);
    if (x->events[i].port == sel) changed = 1;
  }
  switch_plan(s, t, changed);
}

static void switch_int(cdevs_ctx *cx, void *state) {
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  int crossed = s->to != s->side;
  s->side = s->to;
  double c[4];
  if (crossed) crossed_at(s, 1, t, s->p[0], 0.0); /* ctl is at the level: let its derivatives decide */
  int order = input_at(s, 1, t, c);
  s->snap = NAN;
  s->to = -s->side;
  s->sigma = cdevs__next_cross(c, order, s->p[0], s->side);
  int other = s->to > 0 ? 0 : 2;
  cdevs__sig_at(&s->u[other], t + (isfinite(s->sigma) ? s->sigma : 0.0), s->y);
  s->yorder = s->u[other].order;
}

/* ---- Sample and hold, sampler ------------------------------------------------------ */

static int sh_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx, (void)arg;
  hyb_start(state);
  return CDEVS_OK;
}

static void sh_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  int trig = 0;
  for (size_t i = 0; i < x->n; i++) {
    if (x->events[i].port == 0)
      cdevs__sig_set(&s->u[0], x->events[i].value, t);
    else
      trig = 1;
  }
  if (trig) {
    set_const_output(s, cdevs__sig_eval(&s->u[0], t));
    s->emit = 1;
    s->sigma = 0.0;
  } else if (s->sigma != 0.0) {
    s->sigma = INFINITY;
  }
}

static void sh_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  hyb_state *s = state;
  s->emit = 0;
  s->sigma = INFINITY;
}

/* The input at x <= now from the segments (its first value before the first). */
static double seg_at(const hyb_state *s, double x) {
  if (!s->nseg) return cdevs__sig_eval(&s->u[0], x);
  uint32_t i = s->nseg;
  while (i > 1 && s->seg[i - 1].t > x) i--;
  const cdevs__sig *g = &s->seg[i - 1];
  return g->t > x ? g->c[0] : cdevs__sig_eval(g, x);
}

static void sampler_take(hyb_state *s, double t) {
  int order = (int)s->p[1];
  double T = s->p[0], c[4], D = s->p[3];
  cdevs__sig_at(&s->u[0], t, c);
  if (s->p[2] != 0.0 && D > 0.0) { /* the seed's delays: u(t - D), u(t - 2D) */
    double v0 = c[0], d1 = seg_at(s, t - D), d2 = seg_at(s, t - 2.0 * D);
    set_const_output(s, v0);
    if (order >= 1) s->y[1] = (v0 - d1) / D;
    if (order >= 2) s->y[2] = (v0 - 2.0 * d1 + d2) / (2.0 * D * D);
    s->yorder = order;
    return;
  }
  if (s->p[2] == 0.0) {
    for (int k = 0; k < 4; k++) s->y[k] = k <= order && k <= s->u[0].order ? c[k] : 0.0;
  } else {
    /* hist holds the samples before this one; a repeated sample of the same instant
     * (emit == 2) has already stored itself in hist[0], so its history starts at 1. */
    int back = s->emit == 2 ? 1 : 0, have = s->nhist - back;
    double v0 = c[0], h1 = s->hist[back], h2 = s->hist[back + 1];
    set_const_output(s, v0);
    if (order >= 1 && have >= 1) s->y[1] = (v0 - h1) / T;
    if (order >= 2 && have >= 2) s->y[2] = (v0 - 2.0 * h1 + h2) / (2.0 * T * T);
  }
  s->yorder = order;
}

static int sampler_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_sampler_params *p = arg;
  hyb_state *s = state;
  s->p[0] = p->period, s->p[1] = p->order, s->p[2] = p->numerical ? 1.0 : 0.0, s->p[3] = p->width;
  s->origin = cdevs_ctx_time(cx);
  s->alloc = cdevs_ctx_alloc(cx);
  if (!(p->period > 0.0) || !isfinite(p->period) || p->order < 0 || p->order > 2) {
    cdevs_ctx_fail(cx, "sampler needs period > 0 and order 0..2");
    return CDEVS_EINVAL;
  }
  if (!(p->width >= 0.0) || !isfinite(p->width)) {
    cdevs_ctx_fail(cx, "sampler needs width >= 0 (0: the period)");
    return CDEVS_EINVAL;
  }
  hyb_start(s);
  s->sigma = 0.0;
  s->emit = 1;
  return CDEVS_OK;
}

static void sampler_output(cdevs_ctx *cx, const void *state) {
  hyb_state s = *(const hyb_state *)state;
  sampler_take(&s, cdevs_ctx_time(cx));
  cdevs__emit_series(cx, 0, s.y, s.yorder);
}

static void sampler_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) cdevs__sig_set(&s->u[0], x->events[i].value, t);
  if (s->p[2] != 0.0 && s->p[3] > 0.0) { /* keep the segment, drop those before t - 2D's */
    uint32_t drop = 0;
    while (drop + 1 < s->nseg && s->seg[drop + 1].t <= t - 2.0 * s->p[3]) drop++;
    if (drop) {
      memmove(s->seg, s->seg + drop, (s->nseg - drop) * sizeof *s->seg);
      s->nseg -= drop;
    }
    if (s->nseg && s->seg[s->nseg - 1].t == t) {
      s->seg[s->nseg - 1] = s->u[0]; /* a second event at one instant replaces the first */
    } else {
      if (s->nseg == s->capseg) {
        uint32_t cap = s->capseg ? 2 * s->capseg : 16;
        cdevs__sig *g = s->alloc->realloc(s->alloc->ud, s->seg, s->capseg * sizeof *g, cap * sizeof *g);
        if (!g) {
          cdevs_ctx_fail(cx, "sampler: out of memory for the input's history");
          return;
        }
        s->seg = g, s->capseg = cap;
      }
      s->seg[s->nseg++] = s->u[0];
    }
  }
  s->sigma -= e;
  /* The input changed at the instant of the last sample (a zero-time cascade):
   * sample again, so the instant's sample holds the settled value. */
  if (s->nhist && t == s->t_sample) {
    s->sigma = 0.0;
    s->emit = 2;
  }
}

static void sampler_int(cdevs_ctx *cx, void *state) {
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  double v = cdevs__sig_eval(&s->u[0], t);
  if (s->emit == 2) { /* a repeated sample replaces the one of this instant */
    s->hist[0] = v;
    s->emit = 1;
    s->k--;
  } else {
    s->hist[2] = s->hist[1];
    s->hist[1] = s->hist[0];
    s->hist[0] = v;
    if (s->nhist < 3) s->nhist++;
  }
  s->t_sample = t;
  s->k++;
  s->sigma = s->origin + (double)s->k * s->p[0] - t;
  if (s->sigma < 0.0) s->sigma = 0.0;
}

/* ---- PWM: high while duty(t) exceeds a saw carrier 0 → 1 per period --------------- */

static void pwm_plan(hyb_state *s, double t) {
  double T = s->p[2], tk = s->origin + (double)s->k * T, c[4];
  int order = input_at(s, 0, t, c);
  c[0] -= (t - tk) / T;
  c[1] -= 1.0 / T;
  if (order < 1) order = 1;
  int now = cdevs__side(c, order);
  if (now == 0) now = -1;
  double t_next = tk + T - t;
  s->by_root = 0;
  if (now != s->side) {
    s->to = now, s->sigma = 0.0, s->emit = 1;
  } else {
    s->by_root = 1;
    double r = cdevs__next_cross(c, order, 0.0, s->side);
    s->emit = r < t_next;
    s->to = r < t_next ? -s->side : s->side;
    s->sigma = r < t_next ? r : t_next;
  }
  set_const_output(s, s->to > 0 ? s->p[1] : s->p[0]);
}

static int pwm_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_pwm_params *p = arg;
  hyb_state *s = state;
  s->p[0] = p->low, s->p[1] = p->high, s->p[2] = p->period;
  s->origin = cdevs_ctx_time(cx);
  if (check_finite(cx, s->p, 3, "pwm") || !(p->period > 0.0)) {
    cdevs_ctx_fail(cx, "pwm needs finite levels and period > 0");
    return CDEVS_EINVAL;
  }
  hyb_start(s);
  s->side = 0;
  pwm_plan(s, s->origin);
  return CDEVS_OK;
}

static void pwm_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) cdevs__sig_set(&s->u[0], x->events[i].value, t);
  if (s->emit && s->sigma == 0.0) return;
  s->snap = NAN;
  pwm_plan(s, t);
}

static void pwm_int(cdevs_ctx *cx, void *state) {
  hyb_state *s = state;
  double t = cdevs_ctx_time(cx);
  double T = s->p[2], tk = s->origin + (double)s->k * T;
  int crossed = s->to != s->side && s->by_root;
  int jumped = s->to != s->side && !s->by_root;
  s->side = s->to;
  if (!crossed && !jumped && t >= tk + T) { /* period boundary: the carrier restarts at 0 */
    s->k++;
    s->side = 0;
  }
  if (crossed) crossed_at(s, 0, t, (t - tk) / T, 1.0 / T); /* snap duty - carrier to 0 at the crossing */
  pwm_plan(s, t);
  s->snap = NAN;
  if (s->sigma == 0.0 && s->to == s->side) s->emit = 0;
}

/* The hybrid blocks' operations tables (finifn: NULL, or the sampler's, which frees
 * its input's history). */
#define HYB_OPS_FINI(sym, tname, params, in, initfn, outfn, extfn, intfn, finifn)            \
  const cdevs_atomic_ops sym = {.type = tname,                                                \
                                .state_size = sizeof(hyb_state),                              \
                                .arg_size = params,                                           \
                                .inputs = in,                                                 \
                                .in_drivers = in##_drivers,                                   \
                                .outputs = y_out,                                             \
                                .init = initfn,                                               \
                                .ta = hyb_ta,                                                 \
                                .output = outfn,                                              \
                                .delta_int = intfn,                                           \
                                .delta_ext = extfn,                                           \
                                .fini = finifn}
#define HYB_OPS(sym, tname, params, in, initfn, outfn, extfn, intfn) \
  HYB_OPS_FINI(sym, tname, params, in, initfn, outfn, extfn, intfn, NULL)

HYB_OPS(cdevs_cross_ops, "CrossDetect", sizeof(cdevs_cross_params), u_in, cross_init, hyb_output,
        cross_ext, cross_int);
HYB_OPS(cdevs_comparator_ops, "Comparator", sizeof(cdevs_comparator_params), u_in, comparator_init,
        hyb_output, comparator_ext, comparator_int);
HYB_OPS(cdevs_hysteresis_ops, "Hysteresis", sizeof(cdevs_hysteresis_params), u_in, hyst_init,
        hyb_output, hyst_ext, hyst_int);
HYB_OPS(cdevs_saturation_ops, "Saturation", sizeof(cdevs_saturation_params), u_in, sat_init,
        hyb_output, sat_ext, sat_int);
HYB_OPS(cdevs_quantizer_ops, "Quantizer", sizeof(cdevs_quantizer_params), u_in, quant_init,
        hyb_output, quant_ext, quant_int);
HYB_OPS(cdevs_switch_ops, "Switch", sizeof(cdevs_switch_params), sw_in, switch_init, hyb_output,
        switch_ext, switch_int);
HYB_OPS(cdevs_sample_hold_ops, "SampleHold", 0, sh_in, sh_init, hyb_output, sh_ext, sh_int);
static void sampler_fini(void *state) {
  hyb_state *s = state;
  if (s->seg) s->alloc->realloc(s->alloc->ud, s->seg, s->capseg * sizeof *s->seg, 0);
}

HYB_OPS_FINI(cdevs_sampler_ops, "Sampler", sizeof(cdevs_sampler_params), u_in, sampler_init, sampler_output,
             sampler_ext, sampler_int, sampler_fini);
HYB_OPS(cdevs_pwm_ops, "PWM", sizeof(cdevs_pwm_params), pwm_in, pwm_init, hyb_output, pwm_ext,
        pwm_int);
