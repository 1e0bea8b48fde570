/* SPDX-License-Identifier: MIT */
/* The QSS example block diagrams: flyback converter, LC line, stiff system. */
#include <stdio.h>

#include "cdevs/continuous.h"

cdevs_flyback_params cdevs_flyback_default(void) {
  cdevs_flyback_params p = {12.0, 100e-6, 0.5, 20e-6, 20.0, 50e3, 0.4};
  return p;
}

cdevs_model *cdevs_flyback_build(const cdevs_alloc *a, const cdevs_flyback_params *p,
                                 cdevs_qss_method method, double dqrel, double dqmin) {
  cdevs_model *root = cdevs_root_new(a, "flyback");
  cdevs_integrator_params ip = {method, 0.0, dqrel, dqmin};
  cdevs_model *iL = cdevs_atomic_add(root, "iL", &cdevs_reset_integrator_ops, &ip);
  cdevs_model *vC = cdevs_atomic_add(root, "vC", &cdevs_integrator_ops, &ip);
  /* s: the switch, closed (1) for duty·T of every period T. */
  cdevs_wave_params wp = {0.0, 1.0, 1.0 / p->freq, p->duty, 0.0};
  cdevs_model *sw = cdevs_atomic_add(root, "switch", &cdevs_pulse_ops, &wp);
  /* c = [iL > 0]; the diode conducts when the switch is open and current flows:
   * d = (1 - s)·c. */
  cdevs_comparator_params cp = {0.0, 0.0, 1.0};
  cdevs_model *cmp = cdevs_atomic_add(root, "iL_pos", &cdevs_comparator_ops, &cp);
  cdevs_constant_params one = {1.0};
  cdevs_model *c1 = cdevs_atomic_add(root, "one", &cdevs_constant_ops, &one);
  cdevs_wsum_params ns = {2, {1.0, -1.0}};
  cdevs_model *open = cdevs_atomic_add(root, "open", &cdevs_wsum_ops, &ns);
  cdevs_mult_params mp = {.n = 2};
  cdevs_model *diode = cdevs_atomic_add(root, "diode", &cdevs_mult_ops, &mp);
  /* iL' = s·Vin/Lm - d·vC/(N·Lm);  vC' = d·iL/(N·C) - vC/(R·C). */
  cdevs_model *dv = cdevs_atomic_add(root, "d_vC", &cdevs_mult_ops, &mp);
  cdevs_model *di = cdevs_atomic_add(root, "d_iL", &cdevs_mult_ops, &mp);
  cdevs_wsum_params fi = {2, {p->vin / p->lm, -1.0 / (p->n * p->lm)}};
  cdevs_model *diL = cdevs_atomic_add(root, "diL_dt", &cdevs_wsum_ops, &fi);
  cdevs_wsum_params fv = {2, {1.0 / (p->n * p->c), -1.0 / (p->r * p->c)}};
  cdevs_model *dvC = cdevs_atomic_add(root, "dvC_dt", &cdevs_wsum_ops, &fv);
  /* The diode blocks at iL = 0: the current is held at exactly 0 from then on. */
  cdevs_cross_params xp = {0.0, -1, 0.0};
  cdevs_model *off = cdevs_atomic_add(root, "diode_off", &cdevs_cross_ops, &xp);

  cdevs_connect(root, iL, "y", cmp, "u");
  cdevs_connect(root, c1, "y", open, "u0");
  cdevs_connect(root, sw, "y", open, "u1");
  cdevs_connect(root, open, "y", diode, "u0");
  cdevs_connect(root, cmp, "y", diode, "u1");
  cdevs_connect(root, diode, "y", dv, "u0");
  cdevs_connect(root, vC, "y", dv, "u1");
  cdevs_connect(root, diode, "y", di, "u0");
  cdevs_connect(root, iL, "y", di, "u1");
  cdevs_connect(root, sw, "y", diL, "u0");
  cdevs_connect(root, dv, "y", diL, "u1");
  cdevs_connect(root, di, "y", dvC, "u0");
  cdevs_connect(root, vC, "y", dvC, "u1");
  cdevs_connect(root, diL, "y", iL, "u");
  cdevs_connect(root, dvC, "y", vC, "u");
  cdevs_connect(root, iL, "y", off, "u");
  cdevs_connect(root, off, "y", iL, "reset");
  cdevs_port_add(root, CDEVS_OUT, "iL", CDEVS_TAYLOR);
  cdevs_port_add(root, CDEVS_OUT, "vC", CDEVS_TAYLOR);
  cdevs_connect(root, iL, "y", root, "iL");
  cdevs_connect(root, vC, "y", root, "vC");
  return root;
}

cdevs_model *cdevs_lcline_build(const cdevs_alloc *a, int n, cdevs_qss_method method,
                                double dqrel, double dqmin) {
  cdevs_model *root = cdevs_root_new(a, "lcline");
  if (n < 2) {
    cdevs_model_fail(root, CDEVS_EINVAL, "the LC line needs n >= 2 (got %d)", n);
    return root;
  }
  cdevs_step_params sp = {1.0, 1.0, 0.0};
  cdevs_model *d = cdevs_atomic_add(root, "d", &cdevs_step_ops, &sp);
  char name[32];
  cdevs_model *prev = d, *cur = NULL, *prev_f = NULL;
  for (int i = 1; i <= n; i++) {
    cdevs_integrator_params ip = {method, 0.0, dqrel, dqmin};
    snprintf(name, sizeof name, "x%d", i);
    cur = cdevs_atomic_add(root, name, &cdevs_integrator_ops, &ip);
    cdevs_wsum_params w = {i < n ? 2 : 1, {1.0, -1.0}};
    snprintf(name, sizeof name, "f%d", i);
    cdevs_model *f = cdevs_atomic_add(root, name, &cdevs_wsum_ops, &w);
    cdevs_connect(root, prev, "y", f, "u0");
    if (prev_f) cdevs_connect(root, cur, "y", prev_f, "u1");
    cdevs_connect(root, f, "y", cur, "u");
    prev = cur;
    prev_f = f;
  }
  return root;
}

cdevs_model *cdevs_stiff_build(const cdevs_alloc *a, cdevs_qss_method method, double dqrel,
                               double dqmin) {
  cdevs_model *root = cdevs_root_new(a, "stiff");
  cdevs_integrator_params p1 = {method, 0.0, dqrel, dqmin}, p2 = {method, 20.0, dqrel, dqmin};
  cdevs_model *x1 = cdevs_atomic_add(root, "x1", &cdevs_integrator_ops, &p1);
  cdevs_model *x2 = cdevs_atomic_add(root, "x2", &cdevs_integrator_ops, &p2);
  cdevs_gain_params g = {0.01};
  cdevs_model *k = cdevs_atomic_add(root, "k", &cdevs_gain_ops, &g);
  cdevs_wsum_params w = {3, {-100.0, -100.0, 1.0}};
  cdevs_model *f = cdevs_atomic_add(root, "f2", &cdevs_wsum_ops, &w);
  cdevs_constant_params c = {2020.0};
  cdevs_model *src = cdevs_atomic_add(root, "c", &cdevs_constant_ops, &c);
  cdevs_connect(root, x2, "y", k, "u");
  cdevs_connect(root, k, "y", x1, "u");
  cdevs_connect(root, x1, "y", f, "u0");
  cdevs_connect(root, x2, "y", f, "u1");
  cdevs_connect(root, src, "y", f, "u2");
  cdevs_connect(root, f, "y", x2, "u");
  return root;
}
