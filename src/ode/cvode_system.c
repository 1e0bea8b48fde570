/* SPDX-License-Identifier: MIT */
/*
 * A model's equation system integrated by SUNDIALS CVODE (BDF or Adams-Moulton) as
 * one atomic model: the classical integrator inside DEVS of cdevs/ode.h. It runs the
 * same compiled system as the QSS one (src/qss/system.h: bytecode of derivatives,
 * algebraics, crossing functions and handlers), with the states read from CVODE's
 * vector: each state's q is set to its value (or to the series of CVODE's
 * interpolant, for the outputs) before the codes are evaluated.
 *
 * One CVODE step per internal transition, in CVODE's one-step mode: at t the step to
 * t' is taken, the outputs are sent at once (a zero-time transition) as the series
 * of the step's interpolant at t, and the next transition is at t' (or at a root
 * CVODE found before it, where the handlers run and CVODE restarts).
 *
 * The classical part of a mixed-mode run (LIQSS_BDF, cdevs__sys_arg's lagging) steps
 * behind its inputs instead, as QSS Solver's does: its inputs are QSS states, whose
 * trajectories are known only up to now, so each synchronization at t integrates
 * from the last one to t with the inputs' polynomials as they came (every segment
 * since the last synchronization: the right-hand side reads the one in force at its
 * time), and sends y(t) with its slope and curvature, which the QSS part reads until
 * the next one, CVODE's next step later. Nothing restarts CVODE but an input that
 * jumps (a discrete's, a block's), which synchronizes at once first.
 */
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include "cdevs/ode.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cvode/cvode.h>
#include <nvector/nvector_serial.h>
#include <sundials/sundials_context.h>
#include <sunlinsol/sunlinsol_band.h>
#include <sunlinsol/sunlinsol_dense.h>
#include <sunmatrix/sunmatrix_band.h>
#include <sunmatrix/sunmatrix_dense.h>

#include "qss/system.h"
#include "ode/ode_impl.h"

typedef struct cv_state {
  const cdevs__sys_spec *sp;
  cdevs__sys_switching sw; /* cdevs__sys_arg's, and whether it has switched */
  const cdevs__qss_method *m; /* QSS3's: a state's q carries a series up to degree 2 */
  int bdf;
  int relations; /* crossings that are an equation's relation (side_disc): settle_sides' work */
  int alg_outs, cont_outs; /* outputs that are algebraics; that are states or algebraics */
  /* t_end: where the run is meant to end (the model's StopTime, or
   * cdevs_mo_set_stop's), which CVODE does not step past. It is a hint, not the end
   * of the model: at t_end the next transition is one ulp later, which a run to t_end
   * does not reach and a run that goes on does; the integration then goes on with no
   * end (past_end). */
  double rtol, atol, t_end;
  int past_end;
  SUNContext ctx;
  void *mem;
  N_Vector y, dy;
  SUNMatrix A;
  SUNLinearSolver LS;
  cdevs__qvar *v; /* the states, then the inputs (their last event's series) */
  double (*alg)[4];
  double *disc, *pre;
  double (*stack)[4];
  int *roots;
  /* The outputs' series as last computed: out[o] from tout[o] on. Those flagged in
   * send wait for the zero-time transition whose λ sends them (dirty: any). */
  double (*out)[4];
  double *tout;
  uint8_t *send;
  /* An input event's scratch (see resend_set): per state and input, per algebraic,
   * whether the event moved it; per output, whether it is sent again, and for an
   * algebraic one the offset that keeps its value on the series sent before
   * (anchor); the discretes before the event. */
  uint8_t *xmoved, *amoved, *which;
  double *anchor, *dold;
  /* Per algebraic output, the states it reads (directly or through algebraics) that
   * are not outputs themselves: oread[oread_start[o] .. oread_start[o + 1]), NULL if
   * none does; oread_g: scratch as long as the longest (snap_states). */
  uint32_t *oread_start, *oread;
  double *oread_g;
  double t, tn; /* the last transition's time; the next one's */
  double tstep; /* where the current step ends (tn is before it while outputs are sent within it) */
  int at_root;  /* tstep is a root CVODE found */
  int dirty;    /* outputs wait to be sent (send flags which) */
  int started;  /* the first step is taken */
  char err[320]; /* what an evaluation inside CVODE's callbacks found */
  uint64_t steps, crossings, reinits, zeno;
  double zeno_t;
  int zeno_continue;
  /* Per crossing: the side its function is on (+1, -1), and the hysteresis h that
   * side keeps: CVODE is given f + side·h, so a function left at round-off's
   * distance on the wrong side of 0 by its own event (a ball at y = -1e-16 after its
   * bounce) is not taken for the side it has to cross again, which hid the next
   * bounce inside one step. h is a tenth of the absolute tolerance for functions of
   * states, 0 for those of time, discretes and inputs alone. zwatch: the Zeno watch
   * (the QSS system's). */
  int8_t *zsign;
  uint8_t *ztime; /* the function varies in time beyond a line, the states held (sin(100·time)) */
  int any_ztime;
  double *zh;
  cdevs__zeno *zwatch;
  uint8_t *zself; /* its handlers change what its function reads (an ideal diode): no Zeno watch, as in QSS */
  /* Buffers of an event: the crossing functions before and after a change, which
   * crossings have fired, the outputs' series (3 per state). */
  double *g0, *g1, *ser;
  uint8_t *done;
  uint8_t *in_seen; /* per input: an event has come (before it, the start value) */
  double t0;
  uint32_t tiny; /* steps in a row too short to move time on (see step) */
  char edge[320]; /* an evaluation that failed at a trial point during those steps */
  cdevs__crand rng; /* rand() in handlers: the stream where the initial algorithm left it */
  /* Lagging (the classical part of a mixed-mode run): where CVODE is (the last
   * synchronization), and per input the segments of its trajectory since then, in
   * time order (seg[k][0] in force at tsync). */
  int lagging;
  double tsync, max_step;
  double tsent; /* when the outputs were last sent (their series are from there) */
  cdevs__qvar **seg;
  uint32_t *nseg, *capseg;
  uint64_t syncs;
} cv_state;

/* ---- Evaluations ------------------------------------------------------------------ */

static void say(cv_state *s, const char *fmt, ...) {
  if (s->err[0]) return; /* the first is the cause */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->err, sizeof s->err, fmt, ap);
  va_end(ap);
}

/* The states at t: their values (c1, c2 NULL) or series y + c1·τ + c2·τ². */
static void load(cv_state *s, double t, const double *y, const double *c1, const double *c2) {
  for (uint32_t i = 0; i < s->sp->n_states; i++) {
    cdevs__qvar *q = &s->v[i];
    q->q[0] = y[i], q->q[1] = c1 ? c1[i] : 0.0, q->q[2] = c2 ? c2[i] : 0.0, q->q[3] = 0.0;
    q->tq = t;
  }
}

static bc_env env_at(const cv_state *s, double t, const double *pre) {
  bc_env env = {s->v, s->m, (const double (*)[4])s->alg, s->disc, s->sp->params, t, NULL, UINT32_MAX, UINT32_MAX,
                pre};
  return env;
}

/* An evaluation at t failed (outside a function's domain, or not finite): said, -1. */
static int failed_at(cv_state *s, cdevs__sys_what kind, uint32_t i, double t, int domain) {
  char what[340];
  cdevs__sys_name(s->sp, kind, i, what, sizeof what);
  say(s, "%s is %s at t = %.17g", what, domain ? "outside the domain of a function" : "not a finite number", t);
  return -1;
}

/* The algebraics at t, in their order, to `order`; 0, or -1 (said). */
static int eval_algs(cv_state *s, double t, int order) {
  const cdevs__sys_spec *sp = s->sp;
  bc_env env = env_at(s, t, NULL);
  for (uint32_t a = 0; a < sp->n_algs; a++) {
    int bad = cdevs__bc_eval(&sp->alg[a], &env, order, s->alg[a], s->stack);
    if (bad || !isfinite(s->alg[a][0])) return failed_at(s, SYS_ALG, a, t, bad);
  }
  return 0;
}

/* Lagging: each input's segment in force at t (the last that starts at or before t). */
static void lag_inputs(cv_state *s, double t) {
  const cdevs__sys_spec *sp = s->sp;
  for (uint32_t k = 0; k < sp->n_in; k++) {
    uint32_t lo = 0, hi = s->nseg[k];
    if (hi == 0) continue; /* (no event yet: v holds the start value) */
    while (hi - lo > 1) {
      uint32_t mid = (lo + hi) / 2;
      if (s->seg[k][mid].tq <= t) lo = mid;
      else hi = mid;
    }
    s->v[sp->n_states + k] = s->seg[k][lo];
  }
}

static int rhs(sunrealtype t, N_Vector y, N_Vector yd, void *ud) {
  cv_state *s = ud;
  const cdevs__sys_spec *sp = s->sp;
  if (s->lagging) lag_inputs(s, t);
  /* A failure is recoverable: CVODE evaluates at trial points beyond where the model
   * is defined (sqrt of a level about to reach 0), and tries a smaller step; the
   * message stays for when it gives up. */
  load(s, t, NV_DATA_S(y), NULL, NULL);
  if (eval_algs(s, t, 0)) return 1;
  bc_env env = env_at(s, t, NULL);
  double *d = NV_DATA_S(yd);
  for (uint32_t j = 0; j < sp->n_states; j++) {
    double r[4];
    int bad = cdevs__bc_eval(&sp->der[j], &env, 0, r, s->stack);
    if (bad || !isfinite(r[0])) return failed_at(s, SYS_DER, j, t, bad), 1;
    d[j] = r[0];
  }
  return 0;
}

static int roots(sunrealtype t, N_Vector y, sunrealtype *g, void *ud) {
  cv_state *s = ud;
  const cdevs__sys_spec *sp = s->sp;
  load(s, t, NV_DATA_S(y), NULL, NULL);
  if (eval_algs(s, t, 0)) return -1;
  bc_env env = env_at(s, t, NULL);
  for (uint32_t z = 0; z < sp->n_cross; z++) {
    double r[4];
    int bad = cdevs__bc_eval(&sp->cross[z].f, &env, 0, r, s->stack);
    if (bad || !isfinite(r[0])) return failed_at(s, SYS_CROSS, z, t, bad);
    g[z] = r[0] + s->zsign[z] * s->zh[z];
  }
  return 0;
}

/* CVODE's own messages go into err, not to stderr. */
static void cv_error(int code, const char *module, const char *function, char *msg, void *ud) {
  (void)module, (void)function;
  if (code < 0) say(ud, "%s", msg); /* (not its warnings: "t + h = t on the next step") */
}

/* Stops the run: CVODE's flag, its message (or the evaluation's), the time. */
static void fail(cdevs_ctx *cx, cv_state *s, int flag, double t) {
  char *name = CVodeGetReturnFlagName(flag);
  cdevs_ctx_fail(cx, "%s (CVODE %s) stopped at t = %.17g: %s", s->bdf ? "CVODE_BDF" : "CVODE_AM", name ? name : "?",
                 t, s->err[0] ? s->err : "no message");
  free(name);
}

/* ---- Steps -------------------------------------------------------------------------- */

/* Output o's series as sent (from tout[o]) at t. */
static double sent_at(const cv_state *s, uint32_t o, double t) {
  const double *r = s->out[o];
  double tau = t - s->tout[o];
  return r[0] + tau * (r[1] + tau * r[2]);
}

/* The outputs' series at t from the current step's interpolant: states y, y', y''/2;
 * algebraics evaluated on those to order 2; discretes their values. Then sent: all
 * of them (which NULL), or those an input event moved (which[o], see resend_set),
 * each algebraic one shifted by its anchor; the others keep the series they were
 * sent, which the receivers have. */
static int outputs_at(cdevs_ctx *cx, cv_state *s, double t, const uint8_t *which) {
  const cdevs__sys_spec *sp = s->sp;
  uint32_t ns = sp->n_states;
  double *y = NV_DATA_S(s->dy);
  double *c[3] = {s->ser, s->ser + ns, s->ser + 2 * ns};
  int qu = 0; /* the interpolant's degree: CVODE's order in the last step */
  if (CVodeGetLastOrder(s->mem, &qu) < 0) qu = 0;
  int order = qu < 2 ? qu : 2;
  if (!s->started) order = 0;
  for (int k = 0; k <= order; k++) {
    int flag = CVodeGetDky(s->mem, t, k, s->dy);
    if (flag < 0) {
      fail(cx, s, flag, t);
      return -1;
    }
    for (uint32_t i = 0; i < ns; i++) c[k][i] = y[i] / (k == 2 ? 2.0 : 1.0);
  }
  for (int k = order + 1; k < 3; k++)
    for (uint32_t i = 0; i < ns; i++) c[k][i] = 0.0;
  load(s, t, c[0], c[1], c[2]);
  int rc = s->alg_outs ? eval_algs(s, t, 2) : 0;
  for (uint32_t o = 0; !rc && o < sp->n_out; o++) {
    uint32_t i = sp->out_index[o];
    double *r = s->out[o];
    if (which && !which[o]) continue;
    if (sp->out_kind[o] == 0) r[0] = c[0][i], r[1] = c[1][i], r[2] = c[2][i], r[3] = 0.0;
    else if (sp->out_kind[o] == 1) memcpy(r, s->alg[i], sizeof s->out[o]), r[3] = 0.0;
    else r[0] = s->disc[i], r[1] = r[2] = r[3] = 0.0;
    if (which && sp->out_kind[o] == 1) r[0] += s->anchor[o];
    s->tout[o] = t, s->send[o] = 1, s->dirty = 1;
  }
  if (rc) {
    cdevs_ctx_fail(cx, "%s", s->err);
    return -1;
  }
  /* The next time the outputs are sent: the step's end, or sooner, where a series
   * sent now (a state's or an algebraic's) leaves the solution CVODE's interpolant
   * gives by more than its tolerance (rtol·|v| + atol): halving from the step's end,
   * at most 30 times (a step of 2^-30 of its own length is taken as is). A block
   * reading an output then sees the solver's solution, not an extrapolation of the
   * step's start over the whole step, which for a long step (der(x) = 1, v =
   * cos(x)) is no solution at all. */
  s->tn = s->tstep;
  for (int halvings = 0; halvings < 30 && s->cont_outs && isfinite(s->tn); halvings++) {
    double b = s->tn;
    if (CVodeGetDky(s->mem, b, 0, s->dy) < 0) break;
    load(s, b, y, NULL, NULL);
    if (s->alg_outs && eval_algs(s, b, 0)) break; /* (the step's next evaluation reports it) */
    int ok = 1;
    for (uint32_t o = 0; o < sp->n_out && ok; o++) {
      if (sp->out_kind[o] == 2) continue;
      double v = sp->out_kind[o] == 0 ? y[sp->out_index[o]] : s->alg[sp->out_index[o]][0];
      ok = fabs(sent_at(s, o, b) - v) <= s->rtol * fabs(v) + s->atol;
    }
    if (ok) break;
    s->tn = t + 0.5 * (b - t);
  }
  if (!(s->tn > t)) s->tn = s->tstep;
  return 0;
}

/* The longest step that cannot step over two crossings of a function of time:
 * CVODE sees a root only where the function's sign differs at the ends of a step,
 * and its steps follow the states, not the function (when sin(100·time) > 0 beside a
 * slow state lost 8 of 159 events). A quarter of the function's local period, 2π/ω,
 * with ω² estimated from its series in time at t (the states held) as a sinusoid's:
 * 6|c3|/|c1| near a zero, 2|c2|/|c0| near a peak. INFINITY without such functions. */
static double step_cap(cv_state *s, double t) {
  const cdevs__sys_spec *sp = s->sp;
  if (!s->any_ztime) return INFINITY;
  load(s, t, NV_DATA_S(s->y), NULL, NULL);
  if (eval_algs(s, t, 3)) return INFINITY; /* (the step reports it) */
  bc_env env = env_at(s, t, NULL);
  double cap = INFINITY;
  for (uint32_t z = 0; z < sp->n_cross; z++) {
    double c[4];
    if (!s->ztime[z] || cdevs__bc_eval(&sp->cross[z].f, &env, 3, c, s->stack)) continue;
    double w2 = 0.0, tiny = 1e-300;
    if (fabs(c[1]) > tiny) w2 = fmax(w2, 6.0 * fabs(c[3]) / fabs(c[1]));
    if (fabs(c[0]) > tiny) w2 = fmax(w2, 2.0 * fabs(c[2]) / fabs(c[0]));
    if (w2 > 0.0 && isfinite(w2)) cap = fmin(cap, 0.5 * M_PI / sqrt(w2));
  }
  return cap;
}

/* A run that goes on past t_end (an embedder's cdevs_sim_run beyond the model's
 * StopTime): CVODE integrates on, with no stop time. 0, or -1 (failed). */
static int go_past_end(cdevs_ctx *cx, cv_state *s, double t) {
  s->t_end = INFINITY;
  if (CVodeSetStopTime(s->mem, INFINITY) < 0) {
    fail(cx, s, CV_ILL_INPUT, t);
    return -1;
  }
  return 0;
}

/* One CVODE step from t: the next transition at its end (or a root before it), the
 * outputs at t (those in which: outputs_at). */
static int step(cdevs_ctx *cx, cv_state *s, double t, const uint8_t *which) {
  if (t >= s->t_end && !s->past_end) { /* the end: the values there, a step's end one ulp on */
    s->at_root = 0;
    s->past_end = 1;
    s->tstep = nextafter(t, INFINITY);
    if (s->started && outputs_at(cx, s, t, which)) return -1;
    s->tn = s->tstep;
    return 0;
  }
  if (s->past_end && isfinite(s->t_end) && go_past_end(cx, s, t)) return -1;
  double tret = t;
  s->err[0] = 0;
  if (s->any_ztime) {
    double cap = step_cap(s, t);
    CVodeSetMaxStep(s->mem, cap < INFINITY ? cap : 0.0); /* (0: none) */
  }
  /* (tout only sets the direction and, after a restart, bounds the first step by a
   * tenth of its distance: the end, or a scale of t.) */
  double tout = isfinite(s->t_end) ? s->t_end : t + fmax(1.0, fabs(t));
  int flag = CVode(s->mem, tout, s->y, &tret, CV_ONE_STEP);
  if (flag < 0) {
    fail(cx, s, flag, tret);
    return -1;
  }
  /* In one-step mode CVODE's own step limit never counts past one: a step size that
   * collapses (a discontinuity without an event) is seen here, as steps that no
   * longer move time on. */
  if (tret - t <= 1e-14 * fmax(1.0, fabs(t))) {
    if (s->err[0]) memcpy(s->edge, s->err, sizeof s->edge);
    if (++s->tiny > 10000) {
      char with[300] = "";
      if (s->sp->n_states) { /* the largest state: a solution that grows without bound stalls so */
        uint32_t big = 0;
        for (uint32_t i = 1; i < s->sp->n_states; i++)
          if (fabs(NV_Ith_S(s->y, i)) > fabs(NV_Ith_S(s->y, big))) big = i;
        snprintf(with, sizeof with, ", with %s = %.6g", s->sp->state_names[big], NV_Ith_S(s->y, big));
      }
      if (s->edge[0]) /* an evaluation failed at a trial point: the edge of the model's domain */
        cdevs_ctx_fail(cx, "%s stopped at t = %.17g: %u steps in a row too short to move time on%s, the solution "
                       "at the edge of where the model is defined: %s",
                       s->bdf ? "CVODE_BDF" : "CVODE_AM", t, s->tiny, with, s->edge);
      else
        cdevs_ctx_fail(cx, "%s stopped at t = %.17g: %u steps in a row too short to move time on%s (a finite-time "
                       "blow-up, a change with no event, or a stiff model under CVODE_AM)",
                       s->bdf ? "CVODE_BDF" : "CVODE_AM", t, s->tiny, with);
      return -1;
    }
  } else {
    s->tiny = 0, s->edge[0] = 0;
  }
  s->steps++;
  s->started = 1;
  s->at_root = flag == CV_ROOT_RETURN;
  s->tstep = tret;
  return outputs_at(cx, s, t, which);
}

/* The values at t of what CVODE integrates, into y (within the last step). */
static int state_at(cdevs_ctx *cx, cv_state *s, double t) {
  if (!s->started) return 0; /* y holds the start values */
  int flag = CVodeGetDky(s->mem, t, 0, s->y);
  if (flag < 0) {
    fail(cx, s, flag, t);
    return -1;
  }
  return 0;
}

/* CVODE restarts at t from y (a handler or an input changed the equations); the
 * outputs in which (outputs_at) are sent again. */
static int restart(cdevs_ctx *cx, cv_state *s, double t, const uint8_t *which) {
  int flag = CVodeReInit(s->mem, t, s->y);
  if (flag < 0) {
    fail(cx, s, flag, t);
    return -1;
  }
  return step(cx, s, t, which);
}

/* Zeno behaviour, as the QSS system finds it (cdevs__zeno_*): the function's slope at
 * t, from its series on the states' (y, f(y)), only once its events have shrunk four
 * times in a row. An error unless the run goes on (--zeno continue). */
static int zeno_watch(cdevs_ctx *cx, cv_state *s, uint32_t z, double t) {
  const cdevs__sys_spec *sp = s->sp;
  double dt, r, t_acc, f[4];
  char what[340], msg[700];
  if (!cdevs__zeno_shrinking(&s->zwatch[z], t, &dt, &r)) return 0;
  if (rhs(t, s->y, s->dy, s) != 0) return 0;
  load(s, t, NV_DATA_S(s->y), NV_DATA_S(s->dy), NULL);
  bc_env env = env_at(s, t, NULL);
  if (eval_algs(s, t, 1) || cdevs__bc_eval(&sp->cross[z].f, &env, 1, f, s->stack) || !isfinite(f[1])) return 0;
  cdevs__sys_name(sp, SYS_CROSS, z, what, sizeof what);
  if (!cdevs__zeno_accumulates(&s->zwatch[z], t, dt, r, f[1], s->zh[z], what, &t_acc, msg, sizeof msg)) return 0;
  if (s->zeno++ == 0) s->zeno_t = t_acc;
  if (s->zeno_continue) return 0;
  cdevs_ctx_fail(cx, "%s", msg);
  return -1;
}

/* The CVODE system's side of a handler (cdevs__sys_run_actions): values on the states
 * and discretes as the actions before left them. */
typedef struct cv_handler {
  cdevs_ctx *cx;
  cv_state *s;
  uint32_t z;
  double t;
} cv_handler;

static int ch_value(void *ud, const sys_action *ac, double *v) {
  cv_handler *h = ud;
  cv_state *s = h->s;
  if (ac->value.reads_alg && eval_algs(s, h->t, 0)) {
    cdevs_ctx_fail(h->cx, "%s", s->err);
    return -1;
  }
  bc_env env = env_at(s, h->t, s->pre);
  env.rng = &s->rng;
  double val[4];
  int bad = cdevs__bc_eval(&ac->value, &env, 0, val, s->stack);
  if (bad || !isfinite(val[0])) {
    char where[340];
    cdevs__sys_name(s->sp, SYS_CROSS, h->z, where, sizeof where);
    cdevs_ctx_fail(h->cx, "a value set in a when clause (%s) is %s at t = %.17g", where,
                   bad ? "outside the domain of a function" : "not a finite number", h->t);
    return -1;
  }
  *v = val[0];
  return 0;
}

static void ch_reinit(void *ud, uint32_t i, double v) {
  cv_handler *h = ud;
  if (NV_Ith_S(h->s->y, i) != v) h->s->xmoved[i] = 1; /* (an input event sends it again: resend_set) */
  NV_Ith_S(h->s->y, i) = v;
  h->s->v[i].q[0] = v; /* read by what follows in this handler */
  h->s->reinits++;
}

static void ch_assign(void *ud, uint32_t d, double v) { ((cv_handler *)ud)->s->disc[d] = v; }

/* Crossing z's handler for direction dir (+1: its function became positive). */
static int handle(cdevs_ctx *cx, cv_state *s, uint32_t z, int dir, double t) {
  const cdevs__sys_spec *sp = s->sp;
  const sys_crossing *c = &sp->cross[z];
  const sys_action *acts = dir > 0 ? c->on_rise : c->on_fall;
  uint32_t n = dir > 0 ? c->n_rise : c->n_fall;
  s->zsign[z] = (int8_t)(dir > 0 ? 1 : -1);
  if (!n) return 0;
  s->crossings++;
  if (s->zh[z] > 0.0 && !s->zself[z] && zeno_watch(cx, s, z, t)) return -1;
  load(s, t, NV_DATA_S(s->y), NULL, NULL);
  static const sys_actions_ops ops = {ch_value, ch_reinit, ch_assign};
  cv_handler h = {cx, s, z, t};
  return cdevs__sys_run_actions(acts, n, &ops, &h, s->disc, s->pre, &s->sw, cx, s);
}

/* The relations of equations take the sides their functions are on now (after a
 * handler or an input changed them); those that change may move others. */
static int settle_sides(cdevs_ctx *cx, cv_state *s, double t) {
  const cdevs__sys_spec *sp = s->sp;
  if (!s->relations) return 0; /* (nothing to evaluate the algebraics for) */
  for (uint32_t round = 0; round <= sp->n_cross; round++) {
    int changed = 0;
    load(s, t, NV_DATA_S(s->y), NULL, NULL);
    if (eval_algs(s, t, 0)) {
      cdevs_ctx_fail(cx, "%s", s->err);
      return -1;
    }
    bc_env env = env_at(s, t, NULL);
    for (uint32_t z = 0; z < sp->n_cross; z++) {
      uint32_t d = sp->cross[z].side_disc;
      if (!d) continue;
      double r[4];
      int bad = cdevs__bc_eval(&sp->cross[z].f, &env, 0, r, s->stack);
      if (bad || !isfinite(r[0])) {
        failed_at(s, SYS_CROSS, z, t, bad);
        cdevs_ctx_fail(cx, "%s", s->err);
        return -1;
      }
      double side = r[0] > 0.0 ? 1.0 : r[0] < 0.0 ? -1.0 : s->disc[d - 1];
      if (side != s->disc[d - 1]) { /* its side, and the side CVODE's root function keeps */
        s->disc[d - 1] = side, changed = 1;
        s->zsign[z] = (int8_t)side;
      }
    }
    if (!changed) return 0;
  }
  return 0;
}

/* Samples due at t (sample(start, interval)): their handlers. */
static int samples_due(cdevs_ctx *cx, cv_state *s, double t, int *any) {
  const cdevs__sys_spec *sp = s->sp;
  for (uint32_t z = 0; z < sp->n_cross; z++) {
    const sys_crossing *c = &sp->cross[z];
    if (c->sample_interval > 0.0 && s->disc[c->sample_disc] <= t) {
      *any = 1;
      if (handle(cx, s, z, 1, t)) return -1;
      if (s->sw.switched) return 0;
    }
  }
  return 0;
}

static int sign_of(double g) { return g > 0.0 ? 1 : g < 0.0 ? -1 : 0; }

/* After a change at t (handlers, or new inputs) with the crossing functions g0 from
 * before it: a when condition the change made jump across zero fires now, as a
 * crossing (not those in done, whose own handlers made the change: a handler that
 * moves its own condition, on := 1 in a thermostat's, leaves it on its new side);
 * and so on, until nothing jumps. The relations take their sides. g0 is used up. */
static int jumps(cdevs_ctx *cx, cv_state *s, double t, double *g0, uint8_t *done) {
  const cdevs__sys_spec *sp = s->sp;
  uint32_t nz = sp->n_cross;
  double *g1 = s->g1;
  int rc = 0;
  for (uint32_t round = 0; round <= nz && !rc; round++) {
    if (settle_sides(cx, s, t) || (nz && roots(t, s->y, g1, s))) {
      if (s->err[0]) cdevs_ctx_fail(cx, "%s", s->err);
      rc = -1;
      break;
    }
    int any = 0;
    for (uint32_t z = 0; z < nz && !rc; z++) {
      const sys_crossing *c = &sp->cross[z];
      if (done[z] || c->side_disc || c->sample_interval > 0.0) continue;
      int b = sign_of(g0[z]), a = sign_of(g1[z]);
      if (a != 0 && a != b) {
        done[z] = 1, any = 1;
        rc = handle(cx, s, z, a, t);
        if (s->sw.switched) return rc;
      }
    }
    if (!any) break;
    memcpy(g0, g1, nz * sizeof *g0);
  }
  return rc;
}


/* The start's when conditions whose functions are at exactly 0 and heading to the
 * side where a strict condition holds (s > 0 rising): they become true now, their
 * handlers run (Modelica's when; the QSS system's leaves_zero). The heading is the
 * function's slope on the states' (y, f(y)); a function with slope 0 there keeps the
 * side below 0, as before. Then what the handlers made jump. */
static int zero_starts(cdevs_ctx *cx, cv_state *s, double t, int *any) {
  const cdevs__sys_spec *sp = s->sp;
  uint32_t nz = sp->n_cross;
  int found = 0;
  for (uint32_t z = 0; z < nz && !found; z++) {
    const sys_crossing *c = &sp->cross[z];
    found = !c->side_disc && !(c->sample_interval > 0.0) && (c->rise_strict || c->fall_strict);
  }
  if (!found) return 0;
  memset(s->done, 0, nz);
  if (roots(t, s->y, s->g0, s) || rhs(t, s->y, s->dy, s) != 0) {
    cdevs_ctx_fail(cx, "%s", s->err);
    return -1;
  }
  load(s, t, NV_DATA_S(s->y), NV_DATA_S(s->dy), NULL);
  if (eval_algs(s, t, 1)) {
    cdevs_ctx_fail(cx, "%s", s->err);
    return -1;
  }
  bc_env env = env_at(s, t, NULL);
  int8_t *dir = (int8_t *)s->g1; /* (g1 is free until jumps: a byte per crossing) */
  for (uint32_t z = 0; z < nz; z++) {
    const sys_crossing *c = &sp->cross[z];
    double f[4];
    dir[z] = 0;
    if (c->side_disc || c->sample_interval > 0.0 || s->g0[z] - s->zsign[z] * s->zh[z] != 0.0) continue;
    int bad = cdevs__bc_eval(&c->f, &env, 1, f, s->stack);
    if (bad || !isfinite(f[1])) {
      failed_at(s, SYS_CROSS, z, t, bad);
      cdevs_ctx_fail(cx, "%s", s->err);
      return -1;
    }
    if (f[1] > 0.0 && c->rise_strict && c->n_rise) dir[z] = 1;
    if (f[1] < 0.0 && c->fall_strict && c->n_fall) dir[z] = -1;
  }
  int rc = 0;
  for (uint32_t z = 0; z < nz && !rc && !s->sw.switched; z++)
    if (dir[z]) *any = 1, s->done[z] = 1, rc = handle(cx, s, z, dir[z], t);
  return rc || !*any || s->sw.switched ? rc : jumps(cx, s, t, s->g0, s->done);
}


/* An event of the bag: its input k and series c (degree *order): 1; 0 for a port
 * that is no input; -1 for a value that is none (the run stopped with why). */
static int input_event(cdevs_ctx *cx, const cv_state *s, const cdevs_event *ev, uint32_t *k, double *c, int *order) {
  char msg[320];
  *k = (uint32_t)ev->port;
  if (*k >= s->sp->n_in) return 0;
  if (cdevs__sys_input(s->sp, *k, ev->value, c, order, msg, sizeof msg)) {
    cdevs_ctx_fail(cx, "%s", msg);
    return -1;
  }
  return 1;
}

/* The algebraics up to a, at t, to order; 0, or -1 (said). */
static int algs_upto(cv_state *s, double t, uint32_t a, int order) {
  bc_env env = env_at(s, t, NULL);
  for (uint32_t g = 0; g <= a; g++) {
    int bad = cdevs__bc_eval(&s->sp->alg[g], &env, order, s->alg[g], s->stack);
    if (bad || !isfinite(s->alg[g][0])) return failed_at(s, SYS_ALG, g, t, bad);
  }
  return 0;
}

/*
 * An input event at t, before it changes anything: the states CVODE restarts from
 * are moved (within the tolerance) onto what the receivers have, the outputs'
 * series as sent, evaluated at t. CVODE's values differ from those by its error
 * (1e-12 for a pendulum at rtol 1e-8; a tolerance at most): restarted from them, the
 * solution sent soon after (its first step is short) put theta back across the
 * level a comparator had just found its crossing of on the series, which flipped it
 * back and forth. A state that is an output takes its series' value; then each
 * algebraic output f (on the inputs as they were) is projected onto its series'
 * value s by the states it reads that are not outputs, j, each in proportion to its
 * tolerance w_j over the time the series has been in force, τ (rtol·(|y_j| +
 * |y_j'|·τ) + atol: a state crossing 0 is off by rtol of its values then, not by
 * atol): dy_j = w_j² g_j (s - f) / Σ w_k² g_k², with g = ∂f/∂y from the first
 * Taylor coefficient of f as y_j moves at unit rate; three sweeps at most (exact in
 * one for th = theta; outputs that share states converge as in Kaczmarz's method).
 * A projection that would move the states by more than ten tolerances (an output
 * flat in its states) is not made. 0, or -1 (the run stopped).
 */
static int snap_states(cdevs_ctx *cx, cv_state *s, double t) {
  const cdevs__sys_spec *sp = s->sp;
  uint32_t ns = sp->n_states;
  double *y = NV_DATA_S(s->y), *rate = s->ser + ns; /* (free until outputs_at: zeros, one 1) */
  for (uint32_t o = 0; o < sp->n_out; o++)
    if (sp->out_kind[o] == 0) y[sp->out_index[o]] = sent_at(s, o, t);
  if (!s->oread) return 0; /* no algebraic output reads a state that is not one */
  if (rhs(t, s->y, s->dy, s) != 0) return 0; /* (no projection: the step reports it) */
  const double *dy = NV_DATA_S(s->dy);
  memset(rate, 0, ns * sizeof *rate);
  for (int sweep = 0; sweep < 3; sweep++) {
    int moved = 0;
    for (uint32_t o = 0; o < sp->n_out; o++) {
      uint32_t a = sp->out_index[o], k0 = s->oread_start[o], k1 = s->oread_start[o + 1];
      if (sp->out_kind[o] != 1 || k0 == k1) continue;
      load(s, t, y, rate, NULL);
      if (algs_upto(s, t, a, 1)) goto failed;
      double want = sent_at(s, o, t), r = want - s->alg[a][0], base = s->alg[a][1], gg = 0.0;
      if (!(fabs(r) > 4.0 * DBL_EPSILON * fmax(fabs(want), fabs(s->alg[a][0])))) continue;
      double *g = s->oread_g, tau = t - s->tout[o]; /* per read state, w_j·g_j */
      for (uint32_t k = k0; k < k1; k++) {
        uint32_t j = s->oread[k];
        rate[j] = 1.0;
        load(s, t, y, rate, NULL);
        rate[j] = 0.0;
        if (algs_upto(s, t, a, 1)) goto failed;
        g[k - k0] = (s->rtol * (fabs(y[j]) + fabs(dy[j]) * tau) + s->atol) * (s->alg[a][1] - base);
        gg += g[k - k0] * g[k - k0];
      }
      if (!(gg > 0.0) || fabs(r) > 10.0 * sqrt(gg)) continue; /* (flat, or far: see above) */
      for (uint32_t k = k0; k < k1; k++) {
        uint32_t j = s->oread[k];
        y[j] += (s->rtol * (fabs(y[j]) + fabs(dy[j]) * tau) + s->atol) * g[k - k0] * r / gg;
      }
      moved = 1;
    }
    if (!moved) break;
  }
  return 0;
failed:
  cdevs_ctx_fail(cx, "%s", s->err);
  return -1;
}

/*
 * An input event at t, before it changes anything: per algebraic output, what its
 * series as sent gives at t less its value on the states at t (CVODE's) and the
 * inputs as they were. Added to its value after the event, it makes the value sent
 * again the one the receivers have, moved by what the event changed, not by how far
 * the series sent before has strayed from CVODE's solution (within its tolerance).
 * 0, or -1 (the run stopped).
 */
static int anchor_algs(cdevs_ctx *cx, cv_state *s, double t) {
  const cdevs__sys_spec *sp = s->sp;
  if (!s->alg_outs) return 0;
  load(s, t, NV_DATA_S(s->y), NULL, NULL);
  if (eval_algs(s, t, 0)) {
    cdevs_ctx_fail(cx, "%s", s->err);
    return -1;
  }
  for (uint32_t o = 0; o < sp->n_out; o++)
    if (sp->out_kind[o] == 1) s->anchor[o] = sent_at(s, o, t) - s->alg[sp->out_index[o]][0];
  return 0;
}

/*
 * The outputs an input event at t moved, into which: a state's that a handler
 * reinit to another value, a discrete's that a handler changed, and an algebraic's
 * that reads such a state or discrete, or an input of the event (xmoved flags those
 * states and inputs; dold holds the discretes before), directly or through other
 * algebraics. Only they are sent again. The event moves no other value: the states
 * are continuous (their slopes may change, which the series sent keep until they
 * leave CVODE's solution by a tolerance, as within a step), and a value sent again
 * unchanged would come from the restarted solution, not from the series the
 * receivers have: a comparator that had just found its crossing on theta's series
 * read theta again 1e-12 on the other side of its level, and flipped back and forth.
 */
static void resend_set(cv_state *s) {
  const cdevs__sys_spec *sp = s->sp;
  for (uint32_t a = 0; a < sp->n_algs; a++) { /* (each reads only earlier ones) */
    const bc_code *code = &sp->alg[a];
    uint8_t m = 0;
    for (uint32_t i = 0; i < code->n && !m; i++) {
      const bc_ins *in = &code->ins[i];
      if (BC_READS_STATE(in->op)) m = s->xmoved[in->arg];
      else if (in->op == BC_DISC || in->op == BC_PRE) m = s->disc[in->arg] != s->dold[in->arg];
      else if (in->op == BC_ALG) m = s->amoved[in->arg];
    }
    s->amoved[a] = m;
  }
  for (uint32_t o = 0; o < sp->n_out; o++) {
    uint32_t i = sp->out_index[o];
    s->which[o] = sp->out_kind[o] == 0 ? s->xmoved[i] : sp->out_kind[o] == 1 ? s->amoved[i] : s->disc[i] != s->dold[i];
  }
}

/* ---- Lagging (the classical part of a mixed-mode run) ------------------------------- */

/* Appends to input k's segments the series c (degree order) from t on. */
static int lag_push(cv_state *s, uint32_t k, const double *c, int order, double t) {
  if (s->nseg[k] && s->seg[k][s->nseg[k] - 1].tq == t) s->nseg[k]--; /* (a later event at the same t) */
  if (s->nseg[k] == s->capseg[k]) {
    uint32_t cap = s->capseg[k] ? 2 * s->capseg[k] : 8;
    cdevs__qvar *g = realloc(s->seg[k], cap * sizeof *g);
    if (!g) return -1;
    s->seg[k] = g, s->capseg[k] = cap;
  }
  cdevs__qvar *q = &s->seg[k][s->nseg[k]++];
  memset(q, 0, sizeof *q);
  for (int j = 0; j <= order && j <= 2; j++) q->q[j] = c[j]; /* (to QSS3's degree, as the QSS system reads it) */
  q->tq = t;
  s->v[s->sp->n_states + k] = *q;
  return 0;
}

/* Drops the segments that end before t (each input keeps the one in force at t). */
static void lag_trim(cv_state *s, double t) {
  for (uint32_t k = 0; k < s->sp->n_in; k++) {
    uint32_t keep = 0;
    while (keep + 1 < s->nseg[k] && s->seg[k][keep + 1].tq <= t) keep++;
    if (keep) memmove(s->seg[k], s->seg[k] + keep, (s->nseg[k] - keep) * sizeof **s->seg);
    s->nseg[k] -= keep;
  }
}

/* CVODE from the last synchronization on to t, with the inputs' segments. */
static int lag_sync(cdevs_ctx *cx, cv_state *s, double t) {
  if (!(t > s->tsync)) return 0;
  if (CVodeSetStopTime(s->mem, t) < 0) {
    fail(cx, s, CV_ILL_INPUT, t);
    return -1;
  }
  double tret = s->tsync;
  s->err[0] = 0;
  while (tret < t) {
    int flag = CVode(s->mem, t, s->y, &tret, CV_NORMAL);
    if (flag < 0) {
      fail(cx, s, flag, tret);
      return -1;
    }
  }
  s->tsync = t;
  s->syncs++;
  lag_trim(s, t);
  lag_inputs(s, t);
  return 0;
}

/* The outputs at t (CVODE at t): each state's value, slope and curvature, from
 * CVODE's interpolant (from = 1) or, at a start or restart, from the right-hand side
 * (value and slope); the next synchronization a step of CVODE's later. At a restart
 * after a jump of an input (anchored; the states snapped to their series as sent),
 * each algebraic is shifted by its anchor (lag_ext): the values are those the
 * receivers have, moved by what the input changed. */
static int lag_send(cdevs_ctx *cx, cv_state *s, double t, int from_cvode, int anchored) {
  const cdevs__sys_spec *sp = s->sp;
  uint32_t ns = sp->n_states;
  double *c[3] = {s->ser, s->ser + ns, s->ser + 2 * ns}, h = 0.0;
  int order = 1;
  if (from_cvode) {
    int qu = 0;
    if (CVodeGetLastOrder(s->mem, &qu) < 0) qu = 1;
    order = qu < 2 ? qu : 2;
    for (int k = 0; k <= order; k++) {
      int flag = CVodeGetDky(s->mem, t, k, s->dy);
      if (flag < 0) {
        fail(cx, s, flag, t);
        return -1;
      }
      for (uint32_t i = 0; i < ns; i++) c[k][i] = NV_Ith_S(s->dy, i) / (k == 2 ? 2.0 : 1.0);
    }
    if (CVodeGetCurrentStep(s->mem, &h) < 0) h = 0.0;
  } else {
    if (rhs(t, s->y, s->dy, s) != 0) {
      cdevs_ctx_fail(cx, "%s", s->err);
      return -1;
    }
    for (uint32_t i = 0; i < ns; i++) c[0][i] = NV_Ith_S(s->y, i), c[1][i] = NV_Ith_S(s->dy, i);
  }
  for (int k = order + 1; k < 3; k++)
    for (uint32_t i = 0; i < ns; i++) c[k][i] = 0.0;
  if (!(h > 0.0)) {
    /* No step of CVODE's yet: the time the fastest state takes to move by its
     * tolerance (as a quantum), a thousandth of the run at most. */
    h = isfinite(s->t_end) ? (s->t_end - t) / 1000.0 : 1.0;
    for (uint32_t i = 0; i < ns; i++) {
      double rate = fabs(c[1][i]), band = s->rtol * fabs(c[0][i]) + s->atol;
      if (rate > 0.0 && band / rate < h) h = band / rate;
    }
    if (!(h > 0.0)) h = 1e-9;
  }
  if (from_cvode && t > s->tsent) {
    /* How far the series sent at the last synchronization had strayed from CVODE's
     * solution by now, in tolerance bands (ratio): the next interval is the one
     * whose extrapolation error (of order 3 in its length) would be 0.8 band, at
     * most twice the last, and never longer than CVODE's next step. The QSS part
     * reads the classical states within their tolerance, not an extrapolation over
     * a long step of CVODE's (a transient of 1e-3 s was read 60 bands off). */
    double ratio = 0.0, tau = t - s->tsent;
    for (uint32_t o = 0; o < sp->n_out; o++) {
      if (sp->out_kind[o] != 0) continue;
      const double *r = s->out[o];
      double y = c[0][sp->out_index[o]], was = r[0] + tau * (r[1] + tau * r[2]);
      ratio = fmax(ratio, fabs(was - y) / (s->rtol * fabs(y) + s->atol));
    }
    double lim = ratio > 0.0 ? tau * fmin(2.0, 0.9 * cbrt(0.8 / ratio)) : 2.0 * tau;
    if (lim < h) h = lim;
  }
  if (s->max_step > 0.0 && h > s->max_step) h = s->max_step;
  s->tsent = t;
  load(s, t, c[0], c[1], c[2]);
  if (s->alg_outs && eval_algs(s, t, 2)) {
    cdevs_ctx_fail(cx, "%s", s->err);
    return -1;
  }
  for (uint32_t o = 0; o < sp->n_out; o++) {
    uint32_t i = sp->out_index[o];
    double *r = s->out[o];
    if (sp->out_kind[o] == 0) r[0] = c[0][i], r[1] = c[1][i], r[2] = c[2][i], r[3] = 0.0;
    else if (sp->out_kind[o] == 1) memcpy(r, s->alg[i], sizeof s->out[o]), r[3] = 0.0;
    else r[0] = s->disc[i], r[1] = r[2] = r[3] = 0.0;
    if (anchored && sp->out_kind[o] == 1) r[0] += s->anchor[o];
    s->tout[o] = t, s->send[o] = 1, s->dirty = 1;
  }
  s->tn = t >= s->t_end ? nextafter(t, INFINITY) : fmin(t + h, s->t_end); /* (past_end) */
  if (!(s->tn > t)) s->tn = nextafter(t, INFINITY);
  return 0;
}

static void lag_int(cdevs_ctx *cx, cv_state *s, double t) {
  if (t > s->t_end) s->t_end = INFINITY; /* (a run past the end: lag_send) */
  if (s->started && lag_sync(cx, s, t)) return;
  int first = !s->started;
  s->started = 1;
  (void)lag_send(cx, s, t, !first, 0);
}

/* Inputs at t: soft ones (QSS states) become segments; one that jumps synchronizes
 * CVODE to t first (with the inputs as they were) and restarts it there. */
static void lag_ext(cdevs_ctx *cx, cv_state *s, double t, const cdevs_bag *x) {
  const cdevs__sys_spec *sp = s->sp;
  int hard = 0;
  for (size_t i = 0; i < x->n; i++) {
    uint32_t k = (uint32_t)x->events[i].port;
    if (k < sp->n_in && !(sp->in_soft && sp->in_soft[k])) hard = 1;
  }
  if (hard && s->started) {
    if (lag_sync(cx, s, t)) return;
    lag_trim(s, t);
    lag_inputs(s, t);
    if (snap_states(cx, s, t) || anchor_algs(cx, s, t)) return;
  }
  for (size_t i = 0; i < x->n; i++) {
    uint32_t k;
    double c[4];
    int order, got = input_event(cx, s, &x->events[i], &k, c, &order);
    if (got < 0) return;
    if (!got) continue;
    if (!s->started) s->nseg[k] = 0; /* (the start: the event replaces the start value) */
    if (lag_push(s, k, c, order, t)) {
      cdevs_ctx_fail(cx, "out of memory");
      return;
    }
  }
  if (!s->started) return;
  if (!hard) {
    /* A soft input that has moved away from the series it had at the last
     * synchronization (the one CVODE's step size was chosen with, and that the
     * outputs sent then were computed under) by more than two of its quanta
     * synchronizes now: the QSS part reads a classical state that is not left
     * behind by a front arriving through its inputs (adr's, which reached u[500]
     * 5.5 s late when the next synchronization was a long step of CVODE's away). */
    for (size_t i = 0; i < x->n && s->tn > t; i++) {
      uint32_t k = (uint32_t)x->events[i].port;
      if (k >= sp->n_in || s->nseg[k] < 2) continue;
      const cdevs__qvar *a = &s->seg[k][0], *b = &s->seg[k][s->nseg[k] - 1];
      double tau = t - a->tq, was = a->q[0] + tau * (a->q[1] + tau * a->q[2]);
      if (fabs(b->q[0] - was) > 2.0 * (s->rtol * fabs(b->q[0]) + s->atol)) s->tn = t;
    }
    return;
  }
  lag_trim(s, t);
  lag_inputs(s, t);
  long n = 0; /* CVODE's count restarts with it: s->steps keeps those before */
  if (CVodeGetNumSteps(s->mem, &n) == 0) s->steps += (uint64_t)n;
  int flag = CVodeReInit(s->mem, t, s->y);
  if (flag < 0) {
    fail(cx, s, flag, t);
    return;
  }
  s->reinits++;
  (void)lag_send(cx, s, t, 0, 1);
}


/* oread (see cv_state): per algebraic output, a walk through the algebraics it
 * reads, gathering the states. 0, or -1 out of memory. */
static int output_reads(cv_state *s) {
  const cdevs__sys_spec *sp = s->sp;
  uint32_t ns = sp->n_states, na = sp->n_algs, n = 0, cap = 0, longest = 0;
  uint8_t *seen = calloc((size_t)ns + na + 1, 1);
  uint32_t *todo = malloc(((size_t)na + 1) * sizeof *todo);
  s->oread_start = calloc((size_t)sp->n_out + 1, sizeof *s->oread_start);
  if (!seen || !todo || !s->oread_start) return free(seen), free(todo), -1;
  for (uint32_t o = 0; o < sp->n_out; o++)
    if (sp->out_kind[o] == 0) seen[sp->out_index[o]] = 2; /* (an output: never read here) */
  for (uint32_t o = 0; o < sp->n_out; o++) {
    s->oread_start[o] = n;
    if (sp->out_kind[o] != 1) continue;
    uint32_t ntodo = 0, first = n;
    todo[ntodo++] = sp->out_index[o], seen[ns + sp->out_index[o]] = 1;
    while (ntodo) {
      const bc_code *c = &sp->alg[todo[--ntodo]];
      for (uint32_t i = 0; i < c->n; i++) {
        uint32_t arg = c->ins[i].arg;
        if (c->ins[i].op == BC_ALG && !seen[ns + arg]) seen[ns + arg] = 1, todo[ntodo++] = arg;
        if (!BC_READS_STATE(c->ins[i].op) || arg >= ns || seen[arg]) continue;
        if (n == cap) {
          uint32_t *g = realloc(s->oread, (cap = cap ? 2 * cap : 16) * sizeof *g);
          if (!g) return free(seen), free(todo), -1;
          s->oread = g;
        }
        s->oread[n++] = arg, seen[arg] = 1;
      }
    }
    /* (the marks off again, but the outputs') */
    for (uint32_t k = first; k < n; k++) seen[s->oread[k]] = 0;
    memset(seen + ns, 0, na);
    if (n - first > longest) longest = n - first;
  }
  s->oread_start[sp->n_out] = n;
  free(seen), free(todo);
  if (n && !(s->oread_g = malloc(longest * sizeof *s->oread_g))) return -1;
  if (!n) free(s->oread), s->oread = NULL;
  return 0;
}

/* The Jacobian's bandwidths: below (ml) and above (mu) the diagonal, from which
 * states each derivative reads, directly or through algebraics. -1 out of memory. */
static int cv_bandwidth(const cdevs__sys_spec *sp, uint32_t *ml, uint32_t *mu) {
  uint32_t ns = sp->n_states, na = sp->n_algs;
  /* Per algebraic, the lowest and highest state it reads (lo > hi: none). */
  uint32_t *lo = malloc((na ? na : 1) * sizeof *lo), *hi = malloc((na ? na : 1) * sizeof *hi);
  if (!lo || !hi) return free(lo), free(hi), -1;
  *ml = *mu = 0;
  for (uint32_t e = 0; e < na + ns; e++) {
    const bc_code *c = e < na ? &sp->alg[e] : &sp->der[e - na];
    uint32_t l = UINT32_MAX, h = 0;
    for (uint32_t i = 0; i < c->n; i++) {
      const bc_ins *in = &c->ins[i];
      if (BC_READS_STATE(in->op) && in->arg < ns) l = in->arg < l ? in->arg : l, h = in->arg > h ? in->arg : h;
      else if (in->op == BC_ALG && lo[in->arg] <= hi[in->arg])
        l = lo[in->arg] < l ? lo[in->arg] : l, h = hi[in->arg] > h ? hi[in->arg] : h;
    }
    if (e < na) {
      lo[e] = l, hi[e] = h;
      continue;
    }
    uint32_t j = e - na;
    if (l <= h) {
      if (l < j && j - l > *ml) *ml = j - l;
      if (h > j && h - j > *mu) *mu = h - j;
    }
  }
  free(lo), free(hi);
  return 0;
}

/* ---- The atomic model ----------------------------------------------------------------- */

static int cv_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs__sys_arg *a = arg;
  const cdevs__sys_spec *sp = a->spec;
  cv_state *s = state;
  memset(s, 0, sizeof *s);
  s->sp = sp;
  s->sw = a->sw, s->sw.switched = 0;
  s->m = cdevs__qss_method_get(CDEVS_QSS3);
  s->bdf = a->method != CDEVS_CVODE_AM;
  s->rtol = a->dqrel, s->atol = a->dqmin > 0.0 ? a->dqmin : 1e-12;
  s->t_end = a->t_end;
  s->t = cdevs_ctx_time(cx);
  s->lagging = a->lagging, s->max_step = a->max_step, s->tsync = s->t;
  if (s->lagging && (sp->n_cross || sp->n_discs)) {
    cdevs_ctx_fail(cx, "a lagging classical system takes no crossings and no discretes");
    return CDEVS_EINVAL;
  }
  if (s->lagging) {
    size_t ni = sp->n_in ? sp->n_in : 1;
    s->seg = calloc(ni, sizeof *s->seg), s->nseg = calloc(ni, sizeof *s->nseg), s->capseg = calloc(ni, sizeof *s->capseg);
    if (!s->seg || !s->nseg || !s->capseg) return CDEVS_ENOMEM;
  }
  uint32_t ns = sp->n_states, nz = sp->n_cross, nv = ns + sp->n_in;
  uint32_t depth = cdevs__sys_stack_depth(sp), n1 = nz ? nz : 1;
  s->v = calloc(nv ? nv : 1, sizeof *s->v);
  s->alg = calloc(sp->n_algs ? sp->n_algs : 1, sizeof *s->alg);
  s->disc = calloc(sp->n_discs ? sp->n_discs : 1, sizeof *s->disc);
  s->pre = calloc(sp->n_discs ? sp->n_discs : 1, sizeof *s->pre);
  s->stack = calloc(depth, sizeof *s->stack);
  s->roots = calloc(n1, sizeof *s->roots);
  size_t no = sp->n_out ? sp->n_out : 1;
  s->out = calloc(no, sizeof *s->out);
  s->tout = calloc(no, sizeof *s->tout);
  s->send = calloc(no, 1);
  s->which = calloc(no, 1);
  s->anchor = calloc(no, sizeof *s->anchor);
  s->xmoved = calloc(nv ? nv : 1, 1);
  s->amoved = calloc(sp->n_algs ? sp->n_algs : 1, 1);
  s->dold = calloc(sp->n_discs ? sp->n_discs : 1, sizeof *s->dold);
  s->zsign = calloc(n1, sizeof *s->zsign);
  s->ztime = calloc(n1, 1);
  s->zh = calloc(n1, sizeof *s->zh);
  s->zwatch = calloc(n1, sizeof *s->zwatch);
  s->g0 = calloc(n1, sizeof *s->g0);
  s->g1 = calloc(n1, sizeof *s->g1);
  s->done = calloc(n1, 1);
  s->ser = calloc(3 * (size_t)(ns ? ns : 1), sizeof *s->ser);
  s->in_seen = calloc(sp->n_in ? sp->n_in : 1, 1);
  s->zself = calloc(n1, 1);
  if (!s->v || !s->alg || !s->disc || !s->pre || !s->stack || !s->roots || !s->out || !s->zsign || !s->zh ||
      !s->zwatch || !s->ztime || !s->g0 || !s->g1 || !s->done || !s->ser || !s->in_seen || !s->zself || !s->tout ||
      !s->send || !s->which || !s->anchor || !s->xmoved || !s->amoved || !s->dold)
    return CDEVS_ENOMEM;
  s->t0 = s->t;
  if (output_reads(s)) return CDEVS_ENOMEM;
  { /* Per algebraic, in their order (each reads only earlier ones): its degree in
     * time alone (the states held), and whether it reads a state; then per crossing
     * the same, for the step's cap and the hysteresis. */
    uint8_t *adeg = calloc(sp->n_algs ? sp->n_algs : 1, 1), *astate = calloc(sp->n_algs ? sp->n_algs : 1, 1);
    int *st = calloc(depth, sizeof *st);
    if (!adeg || !astate || !st) return free(adeg), free(astate), free(st), CDEVS_ENOMEM;
    cdevs__sys_alg_degrees(sp, 0, 4, adeg, st);
    for (uint32_t g = 0; g < sp->n_algs; g++) {
      const bc_code *code = &sp->alg[g];
      for (uint32_t i = 0; i < code->n && !astate[g]; i++)
        astate[g] = (BC_READS_STATE(code->ins[i].op) && code->ins[i].arg < ns) ||
                    (code->ins[i].op == BC_ALG && astate[code->ins[i].arg]);
    }
    for (uint32_t z = 0; z < nz; z++) {
      const bc_code *f = &sp->cross[z].f;
      int reads_states = 0;
      for (uint32_t i = 0; i < f->n; i++)
        reads_states |= (BC_READS_STATE(f->ins[i].op) && f->ins[i].arg < ns) ||
                        (f->ins[i].op == BC_ALG && astate[f->ins[i].arg]);
      s->zh[z] = reads_states ? s->atol / 10.0 : 0.0;
      cdevs__zeno_init(&s->zwatch[z]);
      s->ztime[z] = sp->cross[z].sample_interval == 0.0 && cdevs__bc_degree(f, 0, 4, adeg, st) >= 2;
      s->any_ztime |= s->ztime[z];
    }
    free(adeg), free(astate), free(st);
  }
  s->zeno_continue = a->zeno_continue;
  if (cdevs__sys_self_changing(sp, cdevs_ctx_alloc(cx), s->zself)) return CDEVS_ENOMEM;
  memcpy(s->disc, sp->disc0, sp->n_discs * sizeof *s->disc);
  memcpy(s->pre, sp->disc0, sp->n_discs * sizeof *s->pre);
  s->rng = sp->rng;
  for (uint32_t k = 0; k < sp->n_in; k++) {
    s->v[ns + k].q[0] = sp->in0 ? sp->in0[k] : 0.0;
    s->v[ns + k].tq = s->t;
  }
  if (SUNContext_Create(NULL, &s->ctx)) return CDEVS_ENOMEM;
  s->y = N_VNew_Serial((sunindextype)(ns ? ns : 1), s->ctx);
  s->dy = N_VNew_Serial((sunindextype)(ns ? ns : 1), s->ctx);
  cdevs__nv_fast(s->y), cdevs__nv_fast(s->dy); /* (before CVodeInit clones y) */
  s->mem = CVodeCreate(s->bdf ? CV_BDF : CV_ADAMS, s->ctx);
  /* A banded Jacobian (a discretized PDE: each derivative reads its neighbours) takes
   * CVODE's band solver: its difference quotients cost ml + mu + 1 evaluations of
   * the right-hand side, not one per state, and its factorization n·ml·mu. */
  uint32_t ml = 0, mu = 0;
  if (ns > 32 && cv_bandwidth(sp, &ml, &mu) == 0 && 4 * (ml + mu + 1) < ns) {
    s->A = SUNBandMatrix((sunindextype)ns, (sunindextype)mu, (sunindextype)ml, s->ctx);
    if (!s->y || !s->dy || !s->mem || !s->A) return CDEVS_ENOMEM;
    s->LS = SUNLinSol_Band(s->y, s->A, s->ctx);
  } else {
    s->A = SUNDenseMatrix((sunindextype)(ns ? ns : 1), (sunindextype)(ns ? ns : 1), s->ctx);
    if (!s->y || !s->dy || !s->mem || !s->A) return CDEVS_ENOMEM;
    s->LS = SUNLinSol_Dense(s->y, s->A, s->ctx);
  }
  if (!s->LS) return CDEVS_ENOMEM;
  for (uint32_t i = 0; i < ns; i++) NV_Ith_S(s->y, i) = a->x0 ? a->x0[i] : sp->x0[i];
  if (ns == 0) NV_Ith_S(s->y, 0) = 0.0; /* (a model of discretes only: CVODE integrates 0) */
  /* Sides of the relations from the start values; samples at their first instants. */
  for (uint32_t z = 0; z < nz; z++) s->relations += sp->cross[z].side_disc != 0;
  for (uint32_t o = 0; o < sp->n_out; o++) s->alg_outs += sp->out_kind[o] == 1, s->cont_outs += sp->out_kind[o] != 2;
  for (uint32_t z = 0; z < nz; z++)
    if (sp->cross[z].sample_interval > 0.0) s->disc[sp->cross[z].sample_disc] = cdevs__sys_first_sample(&sp->cross[z], s->t);
  if (settle_sides(cx, s, s->t)) return CDEVS_EMODEL;
  /* Each crossing starts on the side its function is on; at exactly 0, on the side
   * where its condition holds, if one does (f >= 0 holds at 0: a rise is no event),
   * else below (a strict condition becoming true from 0 is zero_starts'). */
  if (nz && roots(s->t, s->y, s->g0, s)) { /* (zsign 0: no offset yet) */
    cdevs_ctx_fail(cx, "%s", s->err);
    return CDEVS_EMODEL;
  }
  for (uint32_t z = 0; z < nz; z++) {
    const sys_crossing *c = &sp->cross[z];
    int holds_at_0 = c->n_rise && !c->rise_strict && !c->side_disc;
    s->zsign[z] = (int8_t)(s->g0[z] > 0.0 || (s->g0[z] == 0.0 && holds_at_0) ? 1 : -1);
  }
  if (CVodeInit(s->mem, rhs, s->t, s->y) || CVodeSStolerances(s->mem, s->rtol, s->atol) ||
      CVodeSetUserData(s->mem, s) || CVodeSetErrHandlerFn(s->mem, cv_error, s) ||
      CVodeSetLinearSolver(s->mem, s->LS, s->A) ||
      (nz && (CVodeRootInit(s->mem, (int)nz, roots) || CVodeSetNoInactiveRootWarn(s->mem))) ||
      (isfinite(s->t_end) && CVodeSetStopTime(s->mem, s->t_end))) {
    cdevs_ctx_fail(cx, "CVODE could not be set up: %s", s->err[0] ? s->err : "out of memory");
    return CDEVS_EMODEL;
  }
  if (CVodeSetMaxNumSteps(s->mem, 1000000) < 0 || (s->max_step > 0.0 && CVodeSetMaxStep(s->mem, s->max_step) < 0)) {
    cdevs_ctx_fail(cx, "CVODE could not be set up: %s", s->err[0] ? s->err : "bad settings");
    return CDEVS_EMODEL;
  }
  s->tn = s->t; /* the first transition: samples due now, the first step */
  return CDEVS_OK;
}

static void cv_fini(void *state) {
  cv_state *s = state;
  if (s->LS) SUNLinSolFree(s->LS);
  if (s->A) SUNMatDestroy(s->A);
  if (s->y) N_VDestroy(s->y);
  if (s->dy) N_VDestroy(s->dy);
  if (s->mem && getenv("CV_STATS")) { long a=0,b=0,c=0,d=0,e=0,f=0,g=0; CVodeGetNumSteps(s->mem,&a); CVodeGetNumRhsEvals(s->mem,&b); CVodeGetNumLinSolvSetups(s->mem,&c); CVodeGetNumNonlinSolvIters(s->mem,&d); CVodeGetNumJacEvals(s->mem,&e); CVodeGetNumLinRhsEvals(s->mem,&f); CVodeGetNumErrTestFails(s->mem,&g); fprintf(stderr,"cv: steps %ld rhs %ld lsetups %ld newton %ld jac %ld linrhs %ld errfails %ld syncs %lu\n",a,b,c,d,e,f,g,(unsigned long)s->syncs);}
  if (s->mem) CVodeFree(&s->mem);
  if (s->ctx) SUNContext_Free(&s->ctx);
  free(s->v), free(s->alg), free(s->disc), free(s->pre), free(s->stack), free(s->roots), free(s->out);
  free(s->zsign), free(s->zh), free(s->zwatch), free(s->ztime), free(s->g0), free(s->g1), free(s->done);
  free(s->ser), free(s->in_seen), free(s->zself);
  free(s->tout), free(s->send), free(s->which), free(s->anchor), free(s->xmoved), free(s->amoved), free(s->dold);
  free(s->oread_start), free(s->oread), free(s->oread_g);
  for (uint32_t k = 0; s->seg && k < s->sp->n_in; k++) free(s->seg[k]);
  free(s->seg), free(s->nseg), free(s->capseg);
}

static double cv_ta(const void *state) {
  const cv_state *s = state;
  if (s->sw.switched) return INFINITY; /* (removed at the end of the instant) */
  return s->dirty ? 0.0 : s->tn - s->t;
}

static void cv_output(cdevs_ctx *cx, const void *state) {
  const cv_state *s = state;
  if (!s->dirty) return;
  for (uint32_t o = 0; o < s->sp->n_out; o++) {
    if (!s->send[o]) continue;
    cdevs_value v = cdevs_taylor(s->sp->out_kind[o] == 2 ? 0 : 2, s->out[o]);
    cdevs_emit(cx, (int)o, &v);
  }
}

static void cv_int(cdevs_ctx *cx, void *state) {
  cv_state *s = state;
  double t = s->t = cdevs_ctx_time(cx);
  s->err[0] = 0;
  if (s->dirty) { /* the outputs at t are sent */
    s->dirty = 0;
    memset(s->send, 0, s->sp->n_out);
    return;
  }
  if (s->lagging) {
    lag_int(cx, s, t);
    return;
  }
  if (!s->started) { /* the start: samples due now, then the first step */
    int any = 0, zero = 0;
    if (samples_due(cx, s, t, &any) || s->sw.switched || settle_sides(cx, s, t) || zero_starts(cx, s, t, &zero) ||
        s->sw.switched)
      return;
    if (zero || any) (void)restart(cx, s, t, NULL); /* (a handler may have reinit a state) */
    else (void)step(cx, s, t, NULL);
    return;
  }
  if (t < s->tstep) { /* within the step: the outputs again */
    (void)outputs_at(cx, s, t, NULL);
    return;
  }
  if (!s->at_root) { /* a step's end: the next step goes on from there */
    (void)step(cx, s, t, NULL);
    return;
  }
  /* A root: the handlers of the crossings found, in their order (a sample's
   * function, time - next, rises through its instant); then what they made jump. */
  uint32_t nz = s->sp->n_cross;
  int rc = 0;
  memset(s->done, 0, nz);
  if (CVodeGetRootInfo(s->mem, s->roots)) {
    fail(cx, s, CV_MEM_NULL, t);
    rc = -1;
  }
  if (!rc && roots(t, s->y, s->g0, s)) {
    cdevs_ctx_fail(cx, "%s", s->err);
    rc = -1;
  }
  for (uint32_t z = 0; !rc && z < nz; z++) {
    int dir = s->sp->cross[z].sample_interval > 0.0 ? 1 : s->roots[z];
    if (!s->roots[z]) continue;
    s->done[z] = 1;
    rc = handle(cx, s, z, dir, t);
    if (s->sw.switched) return; /* its successor goes on from here */
  }
  if (!rc) rc = jumps(cx, s, t, s->g0, s->done);
  if (!rc && !s->sw.switched) (void)restart(cx, s, t, NULL);
}

static void cv_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  cv_state *s = state;
  const cdevs__sys_spec *sp = s->sp;
  double t = s->t = cdevs_ctx_time(cx);
  s->err[0] = 0;
  if (s->lagging) {
    lag_ext(cx, s, t, x);
    return;
  }
  if (state_at(cx, s, t)) return;
  /* The crossing functions just before the inputs change, to see which they jump
   * (the states snapped to their series as sent count as a change: a function
   * they move across zero fires now, as CVODE would not see it after the restart). */
  uint32_t nz = sp->n_cross;
  if (nz && roots(t, s->y, s->g0, s)) {
    cdevs_ctx_fail(cx, "%s", s->err);
    return;
  }
  /* What the outputs are before the event, to see which it moves (resend_set). */
  memset(s->xmoved, 0, sp->n_states + sp->n_in);
  memcpy(s->dold, s->disc, sp->n_discs * sizeof *s->dold);
  if (s->started && (snap_states(cx, s, t) || anchor_algs(cx, s, t))) return;
  /* Each input's first event at the start replaces its start value: the crossings
   * take their sides from it, as from the start values, and fire nothing (Modelica
   * does not fire a when that holds at the start). As the QSS system. */
  int starting = t == s->t0;
  for (size_t i = 0; i < x->n; i++) {
    uint32_t k;
    double c[4];
    int order, got = input_event(cx, s, &x->events[i], &k, c, &order);
    if (got < 0) return;
    if (!got) continue;
    starting &= !s->in_seen[k];
    s->in_seen[k] = 1;
    s->xmoved[sp->n_states + k] = 1;
    cdevs__qvar *q = &s->v[sp->n_states + k];
    memset(q, 0, sizeof *q);
    for (int j = 0; j <= order && j <= 2; j++) q->q[j] = c[j]; /* (to QSS3's degree, as the QSS system reads it) */
    q->tq = t;
  }
  memset(s->done, starting, nz);
  if (jumps(cx, s, t, s->g0, s->done) || s->sw.switched) return;
  if (starting && nz) { /* the sides the start's values put the crossings on */
    if (roots(t, s->y, s->g1, s)) {
      cdevs_ctx_fail(cx, "%s", s->err);
      return;
    }
    for (uint32_t z = 0; z < nz; z++) {
      double f = s->g1[z] - s->zsign[z] * s->zh[z];
      if (f != 0.0 && !sp->cross[z].side_disc) s->zsign[z] = (int8_t)(f > 0.0 ? 1 : -1);
    }
  }
  if (!s->started) return; /* the first transition, due now, takes the first step */
  resend_set(s);
  (void)restart(cx, s, t, s->which);
}

static void cv_stats(const void *state, cdevs_mo_stats *st) {
  const cv_state *s = state;
  memset(st, 0, sizeof *st);
  st->steps = s->steps;
  if (s->lagging) {
    long n = 0; /* the steps since the last restart, after those before it */
    if (s->mem && CVodeGetNumSteps(s->mem, &n) == 0) st->steps += (uint64_t)n;
    st->syncs = s->syncs;
  }
  st->crossings = s->crossings;
  st->reinits = s->reinits;
  st->zeno = s->zeno;
  st->zeno_t = s->zeno_t;
}

static const cdevs_port_def no_ports[] = {{NULL, CDEVS_ANY}};

static const cdevs_atomic_ops cvode_system_ops = {
    .type = "CvodeSystem",
    .state_size = sizeof(cv_state),
    .arg_size = sizeof(cdevs__sys_arg),
    .inputs = no_ports,
    .outputs = no_ports, /* added per model, as the QSS system's */
    .init = cv_init,
    .ta = cv_ta,
    .output = cv_output,
    .delta_int = cv_int,
    .delta_ext = cv_ext,
    .fini = cv_fini,
};

const cdevs_mo_ode cdevs_ode_cvode = {&cvode_system_ops, cv_stats};
