/* SPDX-License-Identifier: MIT */
/*
 * The continuous block library against closed-form results: the bouncing ball's
 * impact times, crossing and switching instants of the hybrid blocks driven by
 * signals whose crossings are known by hand, source waveforms, static functions
 * against libm, and the errors bad parameters and domain errors produce.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cdevs/cdevs.h"
#include "check.h"

#define PI 3.14159265358979323846

/* A root with a recorder "rec" watching `n` signals; run to t_stop. */
typedef struct rig {
  cdevs_model *root, *rec;
  cdevs_sim *sim;
  const void *rs;
} rig;

static cdevs_model *rig_new(rig *r, int n, double step, double t_stop) {
  r->root = cdevs_root_new(NULL, "rig");
  cdevs_recorder_params rp = {n, step, t_stop};
  r->rec = cdevs_atomic_add(r->root, "rec", &cdevs_recorder_ops, &rp);
  r->sim = NULL;
  return r->root;
}

static int rig_run(rig *r, double t_stop) {
  int st = cdevs_sim_new(r->root, NULL, &r->sim);
  if (st) {
    fprintf(stderr, "rig: %s\n", cdevs_model_errmsg(r->root));
    return st;
  }
  st = cdevs_sim_run(r->sim, t_stop);
  if (st) fprintf(stderr, "rig run: %s\n", cdevs_sim_errmsg(r->sim));
  r->rs = cdevs_sim_state(r->sim, r->rec);
  return st;
}

static void rig_free(rig *r) {
  cdevs_sim_free(r->sim);
  cdevs_model_free(r->root);
}

/* Runs the rig; a failed run counts as a failed check and ends the test function. */
#define RUN_OR_RETURN(r, t_stop)    \
  do {                              \
    if (rig_run(&(r), (t_stop))) {  \
      check_failed++;               \
      rig_free(&(r));               \
      return;                       \
    }                               \
  } while (0)

/* Row times where input 0 changes value (the recorder keeps one row per instant). */
static size_t changes(const rig *r, double *times, double *values, size_t max) {
  size_t n = 0;
  double prev = NAN, v[8];
  for (size_t i = 0; i < cdevs_recorder_rows(r->rs) && n < max; i++) {
    double t = cdevs_recorder_row(r->rs, i, v);
    if (i == 0 || v[0] != prev) {
      times[n] = t;
      values[n] = v[0];
      n++;
    }
    prev = v[0];
  }
  return n;
}

/* ---- Bouncing ball: cross detect + sample-and-hold + reset integrator ------------ */

static void test_bouncing_ball(cdevs_qss_method m, double dqrel, double dqmin) {
  const double g = 9.81, h = 10.0, e = 0.8;
  rig r;
  cdevs_model *root = rig_new(&r, 1, 0.0, 0.0);
  cdevs_integrator_params pv = {m, 0.0, dqrel, dqmin}, py = {m, h, dqrel, dqmin};
  cdevs_model *v = cdevs_atomic_add(root, "v", &cdevs_reset_integrator_ops, &pv);
  cdevs_model *y = cdevs_atomic_add(root, "y", &cdevs_integrator_ops, &py);
  cdevs_constant_params gc = {-g};
  cdevs_model *gm = cdevs_atomic_add(root, "g", &cdevs_constant_ops, &gc);
  cdevs_cross_params cp = {0.0, -1, 0.0};
  cdevs_model *hit = cdevs_atomic_add(root, "hit", &cdevs_cross_ops, &cp);
  cdevs_model *sh = cdevs_atomic_add(root, "hold", &cdevs_sample_hold_ops, NULL);
  cdevs_gain_params kp = {-e};
  cdevs_model *k = cdevs_atomic_add(root, "restitution", &cdevs_gain_ops, &kp);
  cdevs_connect(root, gm, "y", v, "u");
  cdevs_connect(root, v, "y", y, "u");
  cdevs_connect(root, y, "y", hit, "u");
  cdevs_connect(root, hit, "y", sh, "trigger");
  cdevs_connect(root, v, "y", sh, "u");
  cdevs_connect(root, sh, "y", k, "u");
  cdevs_connect(root, k, "y", v, "reset");
  cdevs_connect(root, hit, "y", r.rec, "u0");
  RUN_OR_RETURN(r, 12.0);
  /* Impacts: t1 = sqrt(2h/g); each bounce leaves with e times the impact speed and
   * flies 2·v/g. */
  double t_exact = sqrt(2.0 * h / g), speed = g * t_exact, worst = 0.0, val;
  size_t n = cdevs_recorder_rows(r.rs);
  for (size_t i = 0; i < n; i++) {
    double t = cdevs_recorder_row(r.rs, i, &val);
    if (fabs(t - t_exact) > worst) worst = fabs(t - t_exact);
    speed *= e;
    t_exact += 2.0 * speed / g;
  }
  printf("bouncing ball %s: %zu impacts, worst impact-time error %.3g\n", cdevs_qss_method_name(m), n,
         worst);
  CHECK_EQ_INT(n, 12); /* impacts before t = 12: 1.43, 3.71, …, 11.87 */
  CHECK(worst <= 1e-9);
  rig_free(&r);
}

/* ---- Hybrid blocks on signals with hand-computed crossings ---------------------- */

static void test_comparator_saturation_switch(void) {
  /* u = t on [0, 10] (a ramp), sampled every 0.25 by a second recorder. */
  rig r;
  cdevs_model *root = rig_new(&r, 1, 0.0, 0.0);
  cdevs_ramp_params rp = {0.0, 10.0, 0.0, 10.0};
  cdevs_model *u = cdevs_atomic_add(root, "u", &cdevs_ramp_ops, &rp);
  cdevs_comparator_params cp = {3.5, -1.0, 1.0};
  cdevs_model *cmp = cdevs_atomic_add(root, "cmp", &cdevs_comparator_ops, &cp);
  cdevs_saturation_params sp = {2.0, 5.0};
  cdevs_model *sat = cdevs_atomic_add(root, "sat", &cdevs_saturation_ops, &sp);
  cdevs_recorder_params dense = {1, 0.25, 10.0};
  cdevs_model *rs = cdevs_atomic_add(root, "dense", &cdevs_recorder_ops, &dense);
  cdevs_connect(root, u, "y", cmp, "u");
  cdevs_connect(root, u, "y", sat, "u");
  cdevs_connect(root, cmp, "y", r.rec, "u0");
  cdevs_connect(root, sat, "y", rs, "u0");
  RUN_OR_RETURN(r, 10.0);
  double t[8], v[8];
  size_t n = changes(&r, t, v, 8);
  CHECK_EQ_INT(n, 2);
  CHECK_NEAR(t[0], 0.0, 0.0);
  CHECK_NEAR(v[0], -1.0, 0.0);
  CHECK_NEAR(t[1], 3.5, 1e-12);
  CHECK_NEAR(v[1], 1.0, 0.0);
  const void *ds = cdevs_sim_state(r.sim, rs);
  double worst = 0.0;
  for (size_t i = 0; i < cdevs_recorder_rows(ds); i++) {
    double y, tt = cdevs_recorder_row(ds, i, &y);
    double want = tt < 2.0 ? 2.0 : tt > 5.0 ? 5.0 : tt;
    if (fabs(y - want) > worst) worst = fabs(y - want);
  }
  CHECK_EQ_INT(cdevs_recorder_rows(ds), 41);
  CHECK(worst <= 1e-12);
  rig_free(&r);

  /* Switch: ctl = sin(2π·0.5·t), u0 = 1, u1 = -1: y = sign(sin(πt)), edges at k. */
  root = rig_new(&r, 1, 0.0, 0.0);
  cdevs_sine_params sn = {1.0, 0.5, 0.0, 0.0, 3, 1e-4};
  cdevs_model *ctl = cdevs_atomic_add(root, "ctl", &cdevs_sine_ops, &sn);
  cdevs_constant_params c1 = {1.0}, c2 = {-1.0};
  cdevs_model *a = cdevs_atomic_add(root, "a", &cdevs_constant_ops, &c1);
  cdevs_model *b = cdevs_atomic_add(root, "b", &cdevs_constant_ops, &c2);
  cdevs_switch_params swp = {0.0};
  cdevs_model *sw = cdevs_atomic_add(root, "sw", &cdevs_switch_ops, &swp);
  cdevs_connect(root, a, "y", sw, "u0");
  cdevs_connect(root, ctl, "y", sw, "ctl");
  cdevs_connect(root, b, "y", sw, "u1");
  cdevs_connect(root, sw, "y", r.rec, "u0");
  RUN_OR_RETURN(r, 5.5);
  n = changes(&r, t, v, 8);
  CHECK_EQ_INT(n, 6); /* +1 from 0, then edges at 1, 2, 3, 4, 5 */
  for (size_t i = 1; i < n; i++) {
    /* The sine source is a cubic per segment (error <= 1e-4): its root is within
     * 1e-4 / π of the true one. */
    CHECK_NEAR(t[i], (double)i, 1e-4 / PI + 1e-12);
    CHECK_NEAR(v[i], i % 2 ? -1.0 : 1.0, 0.0);
  }
  rig_free(&r);
}

/*
 * A hybrid block whose input is sent again at the instant of its own crossing: u = s
 * + 0·y, a WSum of a sine s and the block's own output y with weight 0 (a feedback
 * switched off), re-sends s when y changes. s(t) = sin(πt) crosses a level L at
 * instants that are roots only to the rounding of t: the value sent again is off L by
 * up to π·ulp(t)/2 (~1e-16), on either side. It was taken for a jump back across the
 * level (the output flipped back, the root found again a rounding away flipped it once
 * more: "more than 10^6 transitions at one instant" at the comparator's first fall
 * through 0.3, t = 0.903); it must not be. The edges are checked against the
 * closed-form crossings of sin(πt): up through L at 2j + asin(L)/π, down at 2j + 1 -
 * asin(L)/π. The sine source's cubic segments are within dq = 1e-7 of it, so each
 * crossing within 1e-7 / (π·|cos|) of the true one (|cos| >= 0.6 at the levels used).
 */
static void test_resent_at_crossing(void) {
  const double a1 = asin(0.4) / PI, a2 = asin(0.8) / PI, lb = asin(0.3) / PI, tol = 1e-7 / (PI * 0.6) + 1e-12;
  enum { CMP, SWITCH, QUANT, HYST, CROSS, NKIND };
  static const char *names[NKIND] = {"comparator", "switch", "quantizer", "hysteresis", "cross detect"};
  for (int kind = 0; kind < NKIND; kind++) {
    rig r;
    cdevs_model *root = rig_new(&r, 1, 0.0, 0.0);
    cdevs_sine_params sn = {1.0, 0.5, 0.0, 0.0, 3, 1e-7};
    cdevs_model *sine = cdevs_atomic_add(root, "s", &cdevs_sine_ops, &sn);
    cdevs_wsum_params wp = {2, {1.0, 0.0}};
    cdevs_model *sum = cdevs_atomic_add(root, "u", &cdevs_wsum_ops, &wp);
    cdevs_model *b = NULL;
    cdevs_comparator_params cp = {0.3, -1.0, 1.0};
    cdevs_switch_params swp = {0.3};
    cdevs_quantizer_params qp = {0.4, 0.0};
    cdevs_hysteresis_params hp = {0.5, -0.5, -1.0, 1.0, 0};
    cdevs_cross_params xp = {0.3, 0, 1.0};
    const char *in = "u";
    if (kind == CMP) b = cdevs_atomic_add(root, "b", &cdevs_comparator_ops, &cp);
    if (kind == QUANT) b = cdevs_atomic_add(root, "b", &cdevs_quantizer_ops, &qp);
    if (kind == HYST) b = cdevs_atomic_add(root, "b", &cdevs_hysteresis_ops, &hp);
    if (kind == CROSS) b = cdevs_atomic_add(root, "b", &cdevs_cross_ops, &xp);
    if (kind == SWITCH) {
      cdevs_constant_params c1 = {1.0}, c2 = {-1.0};
      b = cdevs_atomic_add(root, "b", &cdevs_switch_ops, &swp);
      cdevs_connect(root, cdevs_atomic_add(root, "hi", &cdevs_constant_ops, &c1), "y", b, "u0");
      cdevs_connect(root, cdevs_atomic_add(root, "lo", &cdevs_constant_ops, &c2), "y", b, "u1");
      in = "ctl";
    }
    cdevs_connect(root, sine, "y", sum, "u0");
    cdevs_connect(root, b, "y", sum, "u1");
    cdevs_connect(root, sum, "y", b, in);
    cdevs_connect(root, b, "y", r.rec, "u0");
    if (rig_run(&r, 5.5)) { /* (each kind is tried) */
      fprintf(stderr, "  %s, its input sent again at its crossings: the run failed\n", names[kind]);
      check_failed++;
      rig_free(&r);
      continue;
    }
    /* The expected edges (time, value) up to 5.5. */
    double et[64], ev[64];
    size_t ne = 0;
    if (kind == CMP || kind == SWITCH) { /* low (s = 0 < 0.3), then each crossing of 0.3 */
      et[ne] = 0.0, ev[ne++] = -1.0;
      for (int k = 0; k < 6; k++) et[ne] = 2 * (k / 2) + (k % 2 ? 1 - lb : lb), ev[ne++] = k % 2 ? -1.0 : 1.0;
    } else if (kind == HYST) { /* low; high where s reaches 0.5, low where it falls to -0.5 */
      et[ne] = 0.0, ev[ne++] = -1.0;
      for (int k = 0; k < 6; k++) et[ne] = k + 1.0 / 6.0, ev[ne++] = k % 2 ? -1.0 : 1.0;
    } else if (kind == QUANT) { /* k·0.4: up at (k+1)·0.4, down at k·0.4 (no hysteresis) */
      const double per[10] = {a1, a2, 1 - a2, 1 - a1, 1, 1 + a1, 1 + a2, 2 - a2, 2 - a1, 2};
      const double val[10] = {0.4, 0.8, 0.4, 0.0, -0.4, -0.8, -1.2, -0.8, -0.4, 0.0};
      et[ne] = 0.0, ev[ne++] = 0.0;
      for (int p = 0; p < 3; p++)
        for (int i = 0; i < 10 && 2.0 * p + per[i] < 5.5; i++) et[ne] = 2.0 * p + per[i], ev[ne++] = val[i];
    }
    if (kind == CROSS) { /* one event per crossing of 0.3, none at the start */
      size_t n = cdevs_recorder_rows(r.rs);
      CHECK_EQ_INT(n, 6);
      for (size_t i = 0; i < n && i < 6; i++) {
        double v, t = cdevs_recorder_row(r.rs, i, &v);
        CHECK_NEAR(t, (double)(2 * (i / 2)) + (i % 2 ? 1 - lb : lb), tol);
      }
      ne = n;
    } else {
      double t[64], v[64];
      size_t n = changes(&r, t, v, 64);
      CHECK_EQ_INT(n, ne);
      for (size_t i = 0; i < n && i < ne; i++) {
        CHECK_NEAR(t[i], et[i], tol);
        CHECK_NEAR(v[i], ev[i], 1e-15);
      }
    }
    printf("%s, its input sent again at its crossings: %zu edges\n", names[kind], ne);
    rig_free(&r);
  }

  /* A genuine jump across the level at the instant of the crossing still flips: u =
   * r + st, a ramp r = t crossing 3.5 at t = 3.5 where a step st falls from 0 to -1.
   * The comparator goes high at 3.5 and, u being 2.5 then, low at once; it goes high
   * again where u = t - 1 reaches 3.5, at 4.5. */
  {
    rig r;
    cdevs_model *root = rig_new(&r, 1, 0.0, 0.0);
    cdevs_ramp_params rp = {0.0, 10.0, 0.0, 10.0};
    cdevs_step_params sp = {3.5, 0.0, -1.0};
    cdevs_wsum_params wp = {2, {1.0, 1.0}};
    cdevs_comparator_params cp = {3.5, -1.0, 1.0};
    cdevs_model *ramp = cdevs_atomic_add(root, "r", &cdevs_ramp_ops, &rp);
    cdevs_model *step = cdevs_atomic_add(root, "st", &cdevs_step_ops, &sp);
    cdevs_model *sum = cdevs_atomic_add(root, "u", &cdevs_wsum_ops, &wp);
    cdevs_model *cmp = cdevs_atomic_add(root, "cmp", &cdevs_comparator_ops, &cp);
    cdevs_connect(root, ramp, "y", sum, "u0");
    cdevs_connect(root, step, "y", sum, "u1");
    cdevs_connect(root, sum, "y", cmp, "u");
    cdevs_connect(root, cmp, "y", r.rec, "u0");
    RUN_OR_RETURN(r, 6.0);
    double t[8], v[8];
    size_t n = changes(&r, t, v, 8);
    CHECK_EQ_INT(n, 2); /* low from 0; 3.5's row holds low again; high at 4.5 */
    if (n == 2) {
      CHECK_NEAR(t[1], 4.5, 1e-12);
      CHECK_NEAR(v[1], 1.0, 0.0);
    }
    rig_free(&r);
  }
}

static void test_quantizer_hysteresis(void) {
  /* Triangle 0 → 6 → 0 over a period of 12: u = t up to 6, then 12 - t. */
  cdevs_wave_params tri = {0.0, 6.0, 12.0, 0.0, 0.0};
  rig r;
  cdevs_model *root = rig_new(&r, 1, 0.0, 0.0);
  cdevs_model *u = cdevs_atomic_add(root, "u", &cdevs_triangle_ops, &tri);
  cdevs_quantizer_params qp = {1.0, 0.25};
  cdevs_model *q = cdevs_atomic_add(root, "q", &cdevs_quantizer_ops, &qp);
  cdevs_connect(root, u, "y", q, "u");
  cdevs_connect(root, q, "y", r.rec, "u0");
  RUN_OR_RETURN(r, 11.9);
  double t[32], v[32];
  size_t n = changes(&r, t, v, 32);
  /* Up: level k at t = k (k = 0..6). Down: from level k to k-1 when u = k - 0.25,
   * i.e. at t = 12 - k + 0.25 for k = 6..1. */
  CHECK_EQ_INT(n, 13);
  for (size_t i = 0; i < n && i < 13; i++) {
    /* i = 7..12: level 12 - i, reached when u = 13 - i - 0.25, at t = i - 0.75. */
    double want_t = i <= 6 ? (double)i : (double)i - 0.75;
    double want_v = i <= 6 ? (double)i : 12.0 - (double)i;
    CHECK_NEAR(t[i], want_t, 1e-12);
    CHECK_NEAR(v[i], want_v, 0.0);
  }
  rig_free(&r);

  root = rig_new(&r, 1, 0.0, 0.0);
  u = cdevs_atomic_add(root, "u", &cdevs_triangle_ops, &tri);
  cdevs_hysteresis_params hp = {4.0, 2.0, 0.0, 1.0, 0};
  cdevs_model *hy = cdevs_atomic_add(root, "h", &cdevs_hysteresis_ops, &hp);
  cdevs_connect(root, u, "y", hy, "u");
  cdevs_connect(root, hy, "y", r.rec, "u0");
  RUN_OR_RETURN(r, 24.0);
  n = changes(&r, t, v, 32);
  /* low at 0; high at u = 4 (t = 4, 16); low at u = 2 falling (t = 10, 22). */
  CHECK_EQ_INT(n, 5);
  const double ht[5] = {0, 4, 10, 16, 22}, hv[5] = {0, 1, 0, 1, 0};
  for (size_t i = 0; i < n && i < 5; i++) {
    CHECK_NEAR(t[i], ht[i], 1e-12);
    CHECK_NEAR(v[i], hv[i], 0.0);
  }
  rig_free(&r);
}

static void test_pwm_cross_sampler(void) {
  /* PWM with duty = t/10 (a ramp) and period 1: in period k the carrier is t - k,
   * so y is high from k until t - k = t/10, i.e. t = 10k/9. */
  rig r;
  cdevs_model *root = rig_new(&r, 1, 0.0, 0.0);
  cdevs_ramp_params rp = {0.0, 10.0, 0.0, 1.0};
  cdevs_model *d = cdevs_atomic_add(root, "duty", &cdevs_ramp_ops, &rp);
  cdevs_pwm_params pp = {0.0, 1.0, 1.0};
  cdevs_model *pwm = cdevs_atomic_add(root, "pwm", &cdevs_pwm_ops, &pp);
  cdevs_connect(root, d, "y", pwm, "duty");
  cdevs_connect(root, pwm, "y", r.rec, "u0");
  RUN_OR_RETURN(r, 4.5);
  double t[32], v[32];
  size_t n = changes(&r, t, v, 32);
  /* low at 0 (duty 0 = carrier 0), then high at k and low at 10k/9 for k = 1..4. */
  CHECK_EQ_INT(n, 9);
  for (size_t i = 1; i < n && i < 9; i++) {
    size_t k = (i + 1) / 2;
    double want = i % 2 ? (double)k : 10.0 * (double)k / 9.0;
    CHECK_NEAR(t[i], want, 1e-12);
    CHECK_NEAR(v[i], i % 2 ? 1.0 : 0.0, 0.0);
  }
  rig_free(&r);

  /* Cross detect both ways on sin(2π·0.25·t): zero crossings at t = 2k; a
   * sampler with period 0.5 reports exact and numerically differentiated values. */
  root = rig_new(&r, 2, 0.0, 0.0);
  cdevs_sine_params sn = {1.0, 0.25, 0.0, 0.0, 3, 1e-9};
  cdevs_model *s = cdevs_atomic_add(root, "s", &cdevs_sine_ops, &sn);
  cdevs_cross_params cp = {0.0, 0, 7.0};
  cdevs_model *cr = cdevs_atomic_add(root, "cross", &cdevs_cross_ops, &cp);
  cdevs_model *cnt = cdevs_atomic_add(root, "count", &cdevs_counter_ops, NULL);
  cdevs_sampler_params ex = {0.5, 1, 0, 0.0}, nu = {0.5, 2, 1, 0.0};
  cdevs_model *se = cdevs_atomic_add(root, "exact", &cdevs_sampler_ops, &ex);
  cdevs_model *sn2 = cdevs_atomic_add(root, "numerical", &cdevs_sampler_ops, &nu);
  cdevs_connect(root, s, "y", cr, "u");
  cdevs_connect(root, cr, "y", cnt, "u");
  cdevs_connect(root, s, "y", se, "u");
  cdevs_connect(root, s, "y", sn2, "u");
  cdevs_connect(root, se, "y", r.rec, "u0");
  cdevs_connect(root, sn2, "y", r.rec, "u1");
  /* Mid-period samples of the samplers' polynomials show their slopes. */
  cdevs_recorder_params mid = {2, 0.25, 9.0};
  cdevs_model *rm = cdevs_atomic_add(root, "mid", &cdevs_recorder_ops, &mid);
  cdevs_connect(root, se, "y", rm, "u0");
  cdevs_connect(root, sn2, "y", rm, "u1");
  RUN_OR_RETURN(r, 9.0);
  /* Crossings at 2, 4, 6, 8 (t = 0 is the start, where sin is 0 and rising: not a crossing). */
  CHECK_EQ_INT(cdevs_counter_count(cdevs_sim_state(r.sim, cnt)), 4);
  double row[2];
  const double w = 2.0 * PI * 0.25, T = 0.5;
  size_t rows = cdevs_recorder_rows(r.rs);
  CHECK_EQ_INT(rows, 19); /* t = 0, 0.5, …, 9 */
  for (size_t i = 0; i < rows; i++) {
    double tt = cdevs_recorder_row(r.rs, i, row);
    CHECK_NEAR(tt, 0.5 * (double)i, 1e-12);
    double u0 = sin(w * tt);
    CHECK_NEAR(row[0], u0, 1e-9);
    CHECK_NEAR(row[1], u0, 1e-9);
  }
  /* At tk + 0.25: the exact sampler is sin(w·tk) + 0.25·w·cos(w·tk); the numerical
   * one is v0 + 0.25·(v0 - v1)/T + 0.0625·(v0 - 2v1 + v2)/(2T²) with v_j the samples
   * j periods back (missing ones contribute no term). */
  const void *ms = cdevs_sim_state(r.sim, rm);
  size_t nmid = 0;
  for (size_t i = 0; i < cdevs_recorder_rows(ms); i++) {
    double tt = cdevs_recorder_row(ms, i, row);
    double k = floor(tt / T + 1e-9), tk = k * T, tau = tt - tk;
    if (fabs(tau - 0.25) > 1e-9) continue;
    nmid++;
    double v0 = sin(w * tk), v1 = sin(w * (tk - T)), v2 = sin(w * (tk - 2 * T));
    double d1 = k >= 1 ? (v0 - v1) / T : 0.0, d2 = k >= 2 ? (v0 - 2 * v1 + v2) / (2 * T * T) : 0.0;
    /* The sine source's cubic segments (dq = 1e-9, length h = (24·dq/ω⁴)^¼) carry
     * a slope error up to ω⁴h³/6. */
    double h = pow(24e-9 / pow(w, 4), 0.25), slope_tol = pow(w, 4) * h * h * h / 6.0;
    CHECK_NEAR(row[0], v0 + tau * w * cos(w * tk), 1e-9 + tau * slope_tol);
    CHECK_NEAR(row[1], v0 + tau * d1 + tau * tau * d2, 1e-9);
  }
  CHECK_EQ_INT(nmid, 18);
  rig_free(&r);

  /* The seed's SamplerTimeNumerical with its own width D (Beltrame & Cellier §4.2):
   * slope (u - u(t-D))/D and curvature (u - 2u(t-D) + u(t-2D))/(2D²), the input D and
   * 2D earlier (its first value before the start). Period 0.5 on sin(w t), D = 0.1 and
   * 0.01; the recorder samples each polynomial at tk + 0.25, which must be the
   * formula's (the fit). The slope errors printed are the formula's own, a backward
   * difference's D/2·|u''| (the seed's footnote 5), for the reader: not checked, as
   * they do not read the block. */
  root = rig_new(&r, 2, 0.0, 0.0);
  s = cdevs_atomic_add(root, "s", &cdevs_sine_ops, &sn);
  cdevs_sampler_params wide = {0.5, 2, 1, 0.1}, narrow = {0.5, 2, 1, 0.01};
  cdevs_model *sw = cdevs_atomic_add(root, "wide", &cdevs_sampler_ops, &wide);
  cdevs_model *snw = cdevs_atomic_add(root, "narrow", &cdevs_sampler_ops, &narrow);
  cdevs_connect(root, s, "y", sw, "u");
  cdevs_connect(root, s, "y", snw, "u");
  cdevs_model *rmw = cdevs_atomic_add(root, "mid", &cdevs_recorder_ops, &mid);
  cdevs_connect(root, sw, "y", rmw, "u0");
  cdevs_connect(root, snw, "y", rmw, "u1");
  RUN_OR_RETURN(r, 9.0);
  const void *mw = cdevs_sim_state(r.sim, rmw);
  double worst_fit = 0, slope_err[2] = {0, 0};
  nmid = 0;
  for (size_t i = 0; i < cdevs_recorder_rows(mw); i++) {
    double tt = cdevs_recorder_row(mw, i, row);
    double k = floor(tt / T + 1e-9), tk = k * T, tau = tt - tk;
    if (fabs(tau - 0.25) > 1e-9 || k < 1) continue;
    nmid++;
    for (int c = 0; c < 2; c++) {
      double D = c ? 0.01 : 0.1, v0 = sin(w * tk), v1 = sin(w * (tk - D)), v2 = sin(w * (tk - 2 * D));
      double d1 = (v0 - v1) / D, d2 = (v0 - 2 * v1 + v2) / (2 * D * D);
      /* The sine's segments are within 1e-9 of it: the differences within 2e-9/D,
       * 4e-9/D² (times tau and tau²). */
      worst_fit = worst_of(worst_fit, fabs(row[c] - (v0 + tau * d1 + tau * tau * d2)) / (1e-9 + 2e-9 * tau / D +
                                                                                     4e-9 * tau * tau / (2 * D * D)));
      slope_err[c] = worst_of(slope_err[c], fabs(d1 - w * cos(w * tk)));
    }
  }
  printf("sampler width D: slope error %.3g (D = 0.1), %.3g (D = 0.01); fit within %.2g of its bound\n",
         slope_err[0], slope_err[1], worst_fit);
  CHECK_EQ_INT(nmid, 17); /* tk + 0.25 for k = 1..17 (tk + 0.25 <= 9; k = 0 has no history) */
  CHECK(worst_fit <= 1.0);
  rig_free(&r);
}

/* ---- Sources ------------------------------------------------------------------------ */

static void test_sources(void) {
  rig r;
  cdevs_model *root = rig_new(&r, 4, 0.05, 3.0);
  cdevs_wave_params pulse = {-1.0, 2.0, 1.0, 0.3, 0.5};
  cdevs_wave_params saw = {0.0, 4.0, 0.8, 0.0, 0.0};
  cdevs_sine_params sn = {2.0, 1.5, 0.3, 1.0, 2, 1e-6};
  const double tt[4] = {0.0, 1.0, 2.0, 2.5}, ty[4] = {1.0, 3.0, -1.0, 0.0};
  cdevs_table_params tp = {tt, ty, 4, 1};
  cdevs_model *p = cdevs_atomic_add(root, "pulse", &cdevs_pulse_ops, &pulse);
  cdevs_model *sw = cdevs_atomic_add(root, "saw", &cdevs_saw_ops, &saw);
  cdevs_model *si = cdevs_atomic_add(root, "sine", &cdevs_sine_ops, &sn);
  cdevs_model *tb = cdevs_atomic_add(root, "table", &cdevs_table_ops, &tp);
  cdevs_connect(root, p, "y", r.rec, "u0");
  cdevs_connect(root, sw, "y", r.rec, "u1");
  cdevs_connect(root, si, "y", r.rec, "u2");
  cdevs_connect(root, tb, "y", r.rec, "u3");
  RUN_OR_RETURN(r, 3.0);
  double worst[4] = {0, 0, 0, 0}, v[4];
  size_t rows = cdevs_recorder_rows(r.rs);
  CHECK_EQ_INT(rows, 61);
  for (size_t i = 0; i < rows; i++) {
    double t = cdevs_recorder_row(r.rs, i, v);
    /* Samples fall on the edges (multiples of 0.05): skip those, where both sides
     * are right. */
    double ph = fmod(t - 0.5, 1.0);
    double want[4];
    want[0] = t < 0.5 ? -1.0 : ph < 0.3 ? 2.0 : -1.0;
    want[1] = fmod(t, 0.8) * 5.0;
    want[2] = 1.0 + 2.0 * sin(2.0 * PI * 1.5 * t + 0.3);
    want[3] = t < 1.0 ? 1.0 + 2.0 * t : t < 2.0 ? 3.0 - 4.0 * (t - 1.0) : t < 2.5 ? -1.0 + 2.0 * (t - 2.0) : 0.0;
    int edge = fabs(ph) < 1e-9 || fabs(ph - 0.3) < 1e-9 || fabs(ph - 1.0) < 1e-9;
    for (int k = 0; k < 4; k++) {
      if ((k == 0 && edge) || (k == 1 && fabs(fmod(t, 0.8)) < 1e-9)) continue;
      if (k == 1 && fabs(fmod(t, 0.8) - 0.8) < 1e-9) continue;
      if (fabs(v[k] - want[k]) > worst[k]) worst[k] = fabs(v[k] - want[k]);
    }
  }
  CHECK(worst[0] == 0.0);
  CHECK(worst[1] <= 1e-12);
  CHECK(worst[2] <= 1e-6); /* the sine's dq */
  CHECK(worst[3] <= 1e-12);
  rig_free(&r);
}

static void test_table_csv(void) {
  const char *path = "test_blocks_table.csv";
  FILE *f = fopen(path, "w");
  fputs("time,value\n# comment\n0,1\n0.5, 2\n1.5,0\n", f);
  fclose(f);
  double *t, *y;
  size_t n;
  char err[256] = "";
  CHECK_EQ_INT(cdevs_table_load_csv(path, NULL, &t, &y, &n, err, sizeof err), CDEVS_OK);
  CHECK_EQ_INT(n, 3);
  if (n == 3) {
    CHECK_NEAR(t[1], 0.5, 0);
    CHECK_NEAR(y[1], 2.0, 0);
  }
  cdevs_table_free(NULL, t, y, n);
  f = fopen(path, "w");
  fputs("time,value\n0,1\n0.5,2\n0.4,3\n", f);
  fclose(f);
  CHECK_EQ_INT(cdevs_table_load_csv(path, NULL, &t, &y, &n, err, sizeof err), CDEVS_EINVAL);
  CHECK_CONTAINS(err, "test_blocks_table.csv:4: time 0.4 does not increase");
  f = fopen(path, "w");
  fputs("0,1\n1;x\n", f);
  fclose(f);
  CHECK_EQ_INT(cdevs_table_load_csv(path, NULL, &t, &y, &n, err, sizeof err), CDEVS_EINVAL);
  CHECK_CONTAINS(err, ":2: expected a finite value");
  remove(path);
  CHECK_EQ_INT(cdevs_table_load_csv("no/such/file.csv", NULL, &t, &y, &n, err, sizeof err), CDEVS_EIO);
}

/* ---- Static functions and errors ------------------------------------------------------ */

/* u = 0.2 + 0.1·t on [0, 5], five nonlinear blocks of it. At each event instant
 * (the ramp's start and end, and each block's refreshes between) the output is
 * fresh: libm's value of the function of u. Between events each output is its series
 * from the last one, which the block sends again where the terms it leaves out reach
 * its quantum, max(1e-6·|y|, 1e-9) by default: sampled every 0.01 s, within two
 * quanta (the exact left-out term and the estimated next one, each at most one).
 * The ramp sends nothing between 0 and 5, so without the refreshes each output was
 * its tangent at 0 for the whole ramp (exp: 2.0138 at t = 5 for e^0.7 = 2.0138,
 * sqrt 0.7 + … ). */
static void build_static(rig *r, cdevs_model *root) {
  cdevs_ramp_params rp = {0.0, 5.0, 0.2, 0.7};
  cdevs_model *u = cdevs_atomic_add(root, "u", &cdevs_ramp_ops, &rp);
  cdevs_func_params fe = {.fn = CDEVS_FN_EXP}, fs = {.fn = CDEVS_FN_SQRT}, fl = {.fn = CDEVS_FN_LOG};
  cdevs_pow_params pw = {.p = 1.5};
  cdevs_inv_params ip = {0}; /* (the default quantum) */
  cdevs_model *e = cdevs_atomic_add(root, "exp", &cdevs_func_ops, &fe);
  cdevs_model *s = cdevs_atomic_add(root, "sqrt", &cdevs_func_ops, &fs);
  cdevs_model *l = cdevs_atomic_add(root, "log", &cdevs_func_ops, &fl);
  cdevs_model *p = cdevs_atomic_add(root, "pow", &cdevs_pow_ops, &pw);
  cdevs_model *iv = cdevs_atomic_add(root, "inv", &cdevs_inv_ops, &ip);
  cdevs_model *blocks[5] = {e, s, l, p, iv};
  for (int i = 0; i < 5; i++) {
    cdevs_connect(root, u, "y", blocks[i], "u");
    cdevs_connect_i(root, blocks[i], 0, r->rec, i);
  }
}

static void static_values(double x, double *f) {
  f[0] = exp(x), f[1] = sqrt(x), f[2] = log(x), f[3] = pow(x, 1.5), f[4] = 1.0 / x;
}

static void test_static_functions(void) {
  rig r;
  build_static(&r, rig_new(&r, 5, 0.0, 0.0));
  RUN_OR_RETURN(r, 5.0);
  size_t rows = cdevs_recorder_rows(r.rs);
  printf("static functions: %zu event rows on the ramp\n", rows);
  CHECK(rows > 2); /* refreshes between the ramp's two events */
  size_t ends[2] = {0, rows ? rows - 1 : 0};
  for (int e = 0; e < 2 && rows >= 2; e++) { /* where every block is fresh: the ramp's start and end */
    size_t k = ends[e];
    double v[5], f[5];
    double t = cdevs_recorder_row(r.rs, k, v);
    CHECK_NEAR(t, k ? 5.0 : 0.0, 0.0);
    static_values(0.2 + 0.1 * t, f);
    for (int i = 0; i < 5; i++) CHECK_NEAR(v[i], f[i], 4e-16 * fmax(1.0, fabs(f[i])));
  }
  rig_free(&r);
  build_static(&r, rig_new(&r, 5, 0.01, 5.0));
  RUN_OR_RETURN(r, 5.0);
  double worst = 0.0;
  for (size_t k = 0; k < cdevs_recorder_rows(r.rs); k++) {
    double v[5], f[5];
    double t = cdevs_recorder_row(r.rs, k, v);
    static_values(0.2 + 0.1 * t, f);
    for (int i = 0; i < 5; i++) worst = worst_of(worst, fabs(v[i] - f[i]) / fmax(1e-6 * fabs(f[i]), 1e-9));
  }
  printf("static functions sampled: %zu rows, worst %.2f quanta\n", cdevs_recorder_rows(r.rs), worst);
  CHECK(cdevs_recorder_rows(r.rs) >= 500);
  CHECK(worst <= 2.0);
  rig_free(&r);
}

/* Inv, Div and Square of u = 2 + sin t (a Sine source sending degree-2 series, rarely:
 * dq = 1e-4) and of r = 1 + 0.5·t (an exact ramp) on [0, 10], with the quantum given
 * (dqrel, dqmin; they kept 1e-6 and 1e-9 whatever the run's tolerance). Sampled every
 * 0.01 s, each output is within two quanta, max(dqrel·|y|, dqmin), of its function of
 * the inputs as they were sent (the recorder's u and r; the exact left-out term and
 * the estimated next one, each at most one, as for test_static_functions). */
typedef struct quantum_run {
  double worst;       /* in quanta of the run's own */
  double worst_tight; /* in quanta of dqrel 1e-10, dqmin 1e-13 */
  uint64_t internals;
} quantum_run;

static void run_quantum(double dqrel, double dqmin, quantum_run *q) {
  rig r;
  cdevs_model *root = rig_new(&r, 5, 0.01, 10.0);
  cdevs_sine_params sp = {1.0, 1.0 / (2 * PI), 0.0, 2.0, 2, 1e-4};
  cdevs_ramp_params rp = {0.0, 10.0, 1.0, 6.0};
  cdevs_inv_params ip = {dqrel, dqmin};
  cdevs_div_params dp = {dqrel, dqmin};
  cdevs_square_params qp = {dqrel, dqmin};
  cdevs_model *u = cdevs_atomic_add(root, "u", &cdevs_sine_ops, &sp);
  cdevs_model *rr = cdevs_atomic_add(root, "r", &cdevs_ramp_ops, &rp);
  cdevs_model *inv = cdevs_atomic_add(root, "inv", &cdevs_inv_ops, &ip);
  cdevs_model *div = cdevs_atomic_add(root, "div", &cdevs_div_ops, &dp);
  cdevs_model *sq = cdevs_atomic_add(root, "sq", &cdevs_square_ops, &qp);
  cdevs_connect(root, u, "y", inv, "u");
  cdevs_connect(root, u, "y", div, "u0");
  cdevs_connect(root, rr, "y", div, "u1");
  cdevs_connect(root, u, "y", sq, "u");
  cdevs_connect(root, u, "y", r.rec, "u0");
  cdevs_connect(root, rr, "y", r.rec, "u1");
  cdevs_connect(root, inv, "y", r.rec, "u2");
  cdevs_connect(root, div, "y", r.rec, "u3");
  cdevs_connect(root, sq, "y", r.rec, "u4");
  q->worst = q->worst_tight = INFINITY;
  RUN_OR_RETURN(r, 10.0);
  cdevs_stats st;
  cdevs_sim_stats(r.sim, &st);
  q->internals = st.internals;
  q->worst = q->worst_tight = 0.0;
  for (size_t k = 0; k < cdevs_recorder_rows(r.rs); k++) {
    double v[5];
    (void)cdevs_recorder_row(r.rs, k, v);
    double f[3] = {1.0 / v[0], v[0] / v[1], v[0] * v[0]};
    for (int i = 0; i < 3; i++) {
      double e = fabs(v[2 + i] - f[i]);
      q->worst = worst_of(q->worst, e / fmax(dqrel * fabs(f[i]), dqmin));
      q->worst_tight = worst_of(q->worst_tight, e / fmax(1e-10 * fabs(f[i]), 1e-13));
    }
  }
  CHECK(cdevs_recorder_rows(r.rs) >= 1000);
  rig_free(&r);
}

static void test_static_quantum(void) {
  quantum_run tight, dflt, loose;
  run_quantum(1e-10, 1e-13, &tight);
  run_quantum(0.0, 0.0, &dflt); /* (1e-6, 1e-9) */
  run_quantum(1e-3, 1e-6, &loose);
  printf("Inv/Div/Square quantum: tight %.2f quanta (%llu internals), default %.3g tight quanta (%llu), "
         "loose %.2f quanta (%llu)\n",
         tight.worst, (unsigned long long)tight.internals, dflt.worst_tight, (unsigned long long)dflt.internals,
         loose.worst, (unsigned long long)loose.internals);
  CHECK(tight.worst <= 2.0);
  CHECK(loose.worst <= 2.0);
  /* The tight bound is one the default quantum cannot meet (it was what every run
   * got), and a loose quantum refreshes less often than the default. */
  CHECK(dflt.worst_tight > 2.0);
  CHECK(loose.internals < dflt.internals && dflt.internals < tight.internals);
}

static void test_errors(void) {
  /* sqrt of a negative argument stops the run with the block's path and the time. */
  rig r;
  cdevs_model *root = rig_new(&r, 1, 0.0, 0.0);
  cdevs_ramp_params rp = {0.0, 2.0, 1.0, -1.0};
  cdevs_model *u = cdevs_atomic_add(root, "u", &cdevs_ramp_ops, &rp);
  cdevs_func_params fs = {.fn = CDEVS_FN_SQRT};
  cdevs_model *s = cdevs_atomic_add(root, "root_of_u", &cdevs_func_ops, &fs);
  cdevs_connect(root, u, "y", s, "u");
  cdevs_connect(root, s, "y", r.rec, "u0");
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &r.sim), CDEVS_OK);
  /* The ramp 1 - t reaches 0 at t = 1, where sqrt's series ends (its derivative is
   * infinite there): the block, refreshing on the way, fails there (it went on to t
   * = 2, the ramp's end, before). */
  CHECK_EQ_INT(cdevs_sim_run(r.sim, 3.0), CDEVS_EMODEL);
  CHECK_CONTAINS(cdevs_sim_errmsg(r.sim), "t=1: model 'rig.root_of_u': argument outside the domain of sqrt");
  rig_free(&r);

  root = rig_new(&r, 1, 0.0, 0.0);
  cdevs_integrator_params bad = {CDEVS_QSS2, 0.0, 1e-3, 0.0};
  cdevs_model *in = cdevs_atomic_add(root, "x", &cdevs_integrator_ops, &bad);
  cdevs_constant_params one = {1.0};
  cdevs_connect(root, cdevs_atomic_add(root, "one", &cdevs_constant_ops, &one), "y", in, "u");
  cdevs_connect(root, in, "y", r.rec, "u0");
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &r.sim), CDEVS_EMODEL);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "dqmin > 0");
  rig_free(&r);

  /* A nonlinear block's quantum max(dqrel·|y|, dqmin) with dqmin = 0 is 0 where y
   * is: t·(1 + t) at t = 0 refreshed at once, for ever (a million transitions at t =
   * 0). Refused, as the integrator's. */
  root = rig_new(&r, 1, 0.0, 0.0);
  cdevs_ramp_params r0 = {0.0, 1.0, 0.0, 1.0}, r1 = {0.0, 1.0, 1.0, 2.0};
  cdevs_mult_params mp = {2, 1e-3, 0.0};
  cdevs_model *mu = cdevs_atomic_add(root, "m", &cdevs_mult_ops, &mp);
  cdevs_connect_i(root, cdevs_atomic_add(root, "a", &cdevs_ramp_ops, &r0), 0, mu, 0);
  cdevs_connect_i(root, cdevs_atomic_add(root, "b", &cdevs_ramp_ops, &r1), 0, mu, 1);
  cdevs_connect(root, mu, "y", r.rec, "u0");
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &r.sim), CDEVS_EMODEL);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "dqmin > 0");
  rig_free(&r);

  root = rig_new(&r, 1, 0.0, 0.0);
  cdevs_wave_params wp = {0.0, 1.0, 1.0, 1.5, 0.0};
  cdevs_model *pw = cdevs_atomic_add(root, "p", &cdevs_pulse_ops, &wp);
  cdevs_connect(root, pw, "y", r.rec, "u0");
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &r.sim), CDEVS_EMODEL);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "0 < duty < 1");
  rig_free(&r);

  cdevs_qss_method m;
  CHECK_EQ_INT(cdevs_qss_method_parse("liqss2", &m), 0);
  CHECK_EQ_INT(m, CDEVS_LIQSS2);
  CHECK_EQ_INT(cdevs_qss_method_parse("QSS4", &m), -1);
  CHECK_EQ_INT(cdevs_fn_parse("tanh"), CDEVS_FN_TANH);
  CHECK_EQ_INT(cdevs_fn_parse("sinh"), 0);
}

/* Regressions from review: each case failed before its fix. */
static void test_review_regressions(void) {
  /* A linear table that starts between two points starts at the interpolated value. */
  {
    rig r;
    cdevs_model *root = rig_new(&r, 1, 0.5, 1.0);
    const double tt[3] = {-1.0, 1.0, 3.0}, ty[3] = {0.0, 2.0, 2.0};
    cdevs_table_params tp = {tt, ty, 3, 1};
    cdevs_model *tb = cdevs_atomic_add(root, "table", &cdevs_table_ops, &tp);
    cdevs_connect(root, tb, "y", r.rec, "u0");
    if (!rig_run(&r, 1.0)) {
      double v;
      CHECK_EQ_INT(cdevs_recorder_rows(r.rs), 3);
      for (size_t i = 0; i < cdevs_recorder_rows(r.rs); i++) {
        double t = cdevs_recorder_row(r.rs, i, &v);
        CHECK_NEAR(v, 1.0 + t, 1e-15); /* the line through (-1, 0) and (1, 2) */
      }
    } else {
      check_failed++;
    }
    rig_free(&r);
  }
  /* Inputs exactly on a level: the comparator is low (u > level is false), the
   * switch takes u1, hysteresis has reached x_on. A step 1 -> 0.5 at t = 1. */
  {
    rig r;
    cdevs_model *root = rig_new(&r, 3, 0.0, 0.0);
    cdevs_step_params sp = {1.0, 1.0, 0.5};
    cdevs_model *u = cdevs_atomic_add(root, "u", &cdevs_step_ops, &sp);
    cdevs_comparator_params cp = {0.5, 0.0, 1.0};
    cdevs_model *cmp = cdevs_atomic_add(root, "cmp", &cdevs_comparator_ops, &cp);
    cdevs_switch_params swp = {0.5};
    cdevs_model *sw = cdevs_atomic_add(root, "sw", &cdevs_switch_ops, &swp);
    cdevs_constant_params c10 = {10.0}, c20 = {20.0};
    cdevs_model *a = cdevs_atomic_add(root, "a", &cdevs_constant_ops, &c10);
    cdevs_model *b = cdevs_atomic_add(root, "b", &cdevs_constant_ops, &c20);
    cdevs_step_params hs = {1.0, 0.0, 0.5};
    cdevs_model *hu = cdevs_atomic_add(root, "hu", &cdevs_step_ops, &hs);
    cdevs_hysteresis_params hp = {0.5, -0.5, 0.0, 1.0, 0};
    cdevs_model *hy = cdevs_atomic_add(root, "hy", &cdevs_hysteresis_ops, &hp);
    cdevs_connect(root, u, "y", cmp, "u");
    cdevs_connect(root, u, "y", sw, "ctl");
    cdevs_connect(root, a, "y", sw, "u0");
    cdevs_connect(root, b, "y", sw, "u1");
    cdevs_connect(root, hu, "y", hy, "u");
    cdevs_connect(root, cmp, "y", r.rec, "u0");
    cdevs_connect(root, sw, "y", r.rec, "u1");
    cdevs_connect(root, hy, "y", r.rec, "u2");
    if (!rig_run(&r, 2.0)) {
      double v[3];
      size_t n = cdevs_recorder_rows(r.rs);
      double t = cdevs_recorder_row(r.rs, n - 1, v);
      CHECK_NEAR(t, 1.0, 0.0);
      CHECK_NEAR(v[0], 0.0, 0.0);
      CHECK_NEAR(v[1], 20.0, 0.0);
      CHECK_NEAR(v[2], 1.0, 0.0);
    } else {
      check_failed++;
    }
    rig_free(&r);
  }
  /* A recorder whose span ends at or below 0 keeps its last sample. */
  {
    rig r;
    cdevs_model *root = rig_new(&r, 1, 0.1, 0.0);
    cdevs_constant_params c = {1.0};
    cdevs_model *k = cdevs_atomic_add(root, "k", &cdevs_constant_ops, &c);
    cdevs_connect(root, k, "y", r.rec, "u0");
    cdevs_sim_opts o = cdevs_sim_opts_default();
    o.t0 = -0.3;
    CHECK_EQ_INT(cdevs_sim_new(root, &o, &r.sim), CDEVS_OK);
    CHECK_EQ_INT(cdevs_sim_run(r.sim, 1.0), CDEVS_OK);
    CHECK_EQ_INT(cdevs_recorder_rows(cdevs_sim_state(r.sim, r.rec)), 4); /* -0.3 … 0 */
    rig_free(&r);
  }
  /* The quantizer refuses levels it cannot count instead of overflowing. */
  {
    rig r;
    cdevs_model *root = rig_new(&r, 1, 0.0, 0.0);
    cdevs_constant_params c = {1e17};
    cdevs_model *k = cdevs_atomic_add(root, "k", &cdevs_constant_ops, &c);
    cdevs_quantizer_params qp = {1e-3, 0.0};
    cdevs_model *q = cdevs_atomic_add(root, "q", &cdevs_quantizer_ops, &qp);
    cdevs_connect(root, k, "y", q, "u");
    cdevs_connect(root, q, "y", r.rec, "u0");
    CHECK_EQ_INT(cdevs_sim_new(root, NULL, &r.sim), CDEVS_OK);
    CHECK_EQ_INT(cdevs_sim_run(r.sim, 1.0), CDEVS_EMODEL);
    CHECK_CONTAINS(cdevs_sim_errmsg(r.sim), "model 'rig.q': quantizer: input 1e+17 is beyond 2^52 quanta");
    rig_free(&r);
  }
  /* CSV: a comment longer than the line buffer, then a header, then data. */
  {
    const char *path = "test_blocks_long.csv";
    FILE *f = fopen(path, "w");
    fputc('#', f);
    for (int i = 0; i < 1500; i++) fputc(i % 50 == 49 ? ',' : 'x', f);
    fputs("5,7\ntime,value\n0,1\n1,2\n", f);
    fclose(f);
    double *t, *y;
    size_t n;
    char err[256] = "";
    CHECK_EQ_INT(cdevs_table_load_csv(path, NULL, &t, &y, &n, err, sizeof err), CDEVS_OK);
    CHECK_EQ_INT(n, 2);
    if (n == 2) CHECK_NEAR(y[1], 2.0, 0.0);
    cdevs_table_free(NULL, t, y, n);
    remove(path);
  }
  /* Integer powers beyond squaring range accept a negative base: (-1 + ε)^1026. */
  {
    const double a[4] = {-1.0, 0.001, 0.0, 0.0};
    double r[4];
    CHECK_EQ_INT(cdevs_taylor_pow(r, a, 1026.0, 1), CDEVS_OK);
    CHECK_NEAR(r[0], 1.0, 1e-15);
    CHECK_NEAR(r[1], -1.026, 1e-12); /* p·a0^(p-1)·a1 */
  }
  /* A sine of negative frequency runs (it is the mirrored sine). */
  {
    rig r;
    cdevs_model *root = rig_new(&r, 1, 0.25, 1.0);
    cdevs_sine_params sn = {1.0, -1.0, 0.0, 0.0, 0, 1e-6};
    cdevs_model *s = cdevs_atomic_add(root, "s", &cdevs_sine_ops, &sn);
    cdevs_connect(root, s, "y", r.rec, "u0");
    if (!rig_run(&r, 1.0)) {
      double v;
      double t = cdevs_recorder_row(r.rs, 1, &v);
      CHECK_NEAR(v, sin(-2.0 * PI * t), 1e-6);
    } else {
      check_failed++;
    }
    rig_free(&r);
  }
}

/* An input that takes one continuous signal refuses a second driver (it would keep the
 * last value) and, without a default, refuses to be left unconnected (it would read 0),
 * at cdevs_sim_new, naming the input and the drivers; inputs with a default (recorder
 * channels, WSum's unused inputs) may stay unconnected, and a bag port (a counter)
 * takes many drivers. */
static void test_drivers(void) {
  cdevs_constant_params c1 = {1.0}, c2 = {2.0};
  cdevs_gain_params g = {3.0};
  cdevs_integrator_params ip = {CDEVS_QSS2, 0.0, 1e-3, 1e-6};
  for (int k = 0; k < 4; k++) {
    cdevs_model *root = cdevs_root_new(NULL, "d");
    cdevs_model *a = cdevs_atomic_add(root, "a", &cdevs_constant_ops, &c1);
    cdevs_model *b = cdevs_atomic_add(root, "b", &cdevs_constant_ops, &c2);
    cdevs_model *sub = cdevs_coupled_add(root, "sub");
    cdevs_port_add(sub, CDEVS_IN, "in", CDEVS_TAYLOR);
    cdevs_model *gain = cdevs_atomic_add(sub, "gain", &cdevs_gain_ops, &g);
    cdevs_model *x = cdevs_atomic_add(root, "x", &cdevs_integrator_ops, &ip);
    cdevs_connect(sub, sub, "in", gain, "u");
    cdevs_connect(root, a, "y", sub, "in");
    cdevs_connect(root, a, "y", x, "u");
    if (k == 1) cdevs_connect(root, b, "y", sub, "in"); /* two drivers through a coupled model */
    if (k == 2) cdevs_connect(root, b, "y", x, "u"); /* two drivers side by side */
    if (k == 3) cdevs_atomic_add(root, "y", &cdevs_integrator_ops, &ip);
    cdevs_sim *sim = NULL;
    cdevs_status st = cdevs_sim_new(root, NULL, &sim);
    if (k == 0) CHECK_EQ_INT(st, CDEVS_OK);
    if (k == 1) {
      CHECK_EQ_INT(st, CDEVS_ECOUPLING);
      CHECK_STR(cdevs_model_errmsg(root),
                "model 'd.sub.gain': input 'u' takes one signal but 2 outputs drive it: 'd.a.y', "
                "'d.b.y' (only the last value would be kept; add them with a WSum block)");
    }
    if (k == 2) {
      CHECK_EQ_INT(st, CDEVS_ECOUPLING);
      CHECK_STR(cdevs_model_errmsg(root),
                "model 'd.x': input 'u' takes one signal but 2 outputs drive it: 'd.a.y', "
                "'d.b.y' (only the last value would be kept; add them with a WSum block)");
    }
    if (k == 3) {
      CHECK_EQ_INT(st, CDEVS_ECOUPLING);
      CHECK_STR(cdevs_model_errmsg(root),
                "model 'd.y': input 'u' is not connected (it takes one signal and has no default)");
    }
    cdevs_sim_free(sim);
    cdevs_model_free(root);
  }
  /* a WSum of 2 with its other six inputs unconnected, and a recorder with free channels */
  rig r;
  cdevs_model *root = rig_new(&r, 2, 0.0, 0.0);
  cdevs_wsum_params wp = {2, {1.0, -1.0}};
  cdevs_model *w = cdevs_atomic_add(root, "w", &cdevs_wsum_ops, &wp);
  cdevs_connect(root, cdevs_atomic_add(root, "a", &cdevs_constant_ops, &c1), "y", w, "u0");
  cdevs_connect(root, cdevs_atomic_add(root, "b", &cdevs_constant_ops, &c2), "y", w, "u1");
  cdevs_connect(root, w, "y", r.rec, "u0");
  CHECK_EQ_INT(cdevs_sim_new(root, NULL, &r.sim), CDEVS_OK);
  rig_free(&r);
}

int main(void) {
  test_drivers();
  test_bouncing_ball(CDEVS_QSS3, 1e-3, 1e-6);
  test_bouncing_ball(CDEVS_LIQSS3, 1e-3, 1e-6);
  test_comparator_saturation_switch();
  test_resent_at_crossing();
  test_quantizer_hysteresis();
  test_pwm_cross_sampler();
  test_sources();
  test_table_csv();
  test_static_functions();
  test_static_quantum();
  test_errors();
  test_review_regressions();
  return check_report("test_blocks");
}
