/* SPDX-License-Identifier: MIT */
/* The library blocks a model file can instantiate (cdevs.Integrator x(x0 = 1)), with
 * their parameters by name, mapped onto the blocks' params structs. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "blocks_map.h"
#include "cdevs/continuous.h"
#include "cdevs/lang.h"
#include "cdevs/taylor.h"

#define P(type, field, kind) {#field, offsetof(type, field), kind}

static const lang_param integ_p[] = {P(cdevs_integrator_params, method, LP_METHOD), P(cdevs_integrator_params, x0, LP_REAL),
                                     P(cdevs_integrator_params, dqrel, LP_REAL), P(cdevs_integrator_params, dqmin, LP_REAL), {0}};
static const lang_param const_p[] = {P(cdevs_constant_params, value, LP_REAL), {0}};
static const lang_param step_p[] = {P(cdevs_step_params, t_step, LP_REAL), P(cdevs_step_params, before, LP_REAL),
                                    P(cdevs_step_params, after, LP_REAL), {0}};
static const lang_param ramp_p[] = {P(cdevs_ramp_params, t_start, LP_REAL), P(cdevs_ramp_params, t_end, LP_REAL),
                                    P(cdevs_ramp_params, y_start, LP_REAL), P(cdevs_ramp_params, y_end, LP_REAL), {0}};
static const lang_param sine_p[] = {P(cdevs_sine_params, amplitude, LP_REAL), P(cdevs_sine_params, freq, LP_REAL),
                                    P(cdevs_sine_params, phase, LP_REAL), P(cdevs_sine_params, offset, LP_REAL),
                                    P(cdevs_sine_params, order, LP_INT), P(cdevs_sine_params, dq, LP_REAL), {0}};
static const lang_param wave_p[] = {P(cdevs_wave_params, low, LP_REAL), P(cdevs_wave_params, high, LP_REAL),
                                    P(cdevs_wave_params, period, LP_REAL), P(cdevs_wave_params, duty, LP_REAL),
                                    P(cdevs_wave_params, delay, LP_REAL), {0}};
static const lang_param pwm_p[] = {P(cdevs_pwm_params, low, LP_REAL), P(cdevs_pwm_params, high, LP_REAL),
                                   P(cdevs_pwm_params, period, LP_REAL), {0}};
static const lang_param wsum_p[] = {P(cdevs_wsum_params, n, LP_INT), P(cdevs_wsum_params, w, LP_REALS), {0}};
static const lang_param gain_p[] = {P(cdevs_gain_params, k, LP_REAL), {0}};
static const lang_param mult_p[] = {P(cdevs_mult_params, n, LP_INT), P(cdevs_mult_params, dqrel, LP_REAL),
                                     P(cdevs_mult_params, dqmin, LP_REAL), {0}};
static const lang_param pow_p[] = {P(cdevs_pow_params, p, LP_REAL), P(cdevs_pow_params, dqrel, LP_REAL),
                                    P(cdevs_pow_params, dqmin, LP_REAL), {0}};
static const lang_param func_p[] = {P(cdevs_func_params, fn, LP_FN), P(cdevs_func_params, dqrel, LP_REAL),
                                     P(cdevs_func_params, dqmin, LP_REAL), {0}};
static const lang_param cross_p[] = {P(cdevs_cross_params, level, LP_REAL), P(cdevs_cross_params, direction, LP_INT),
                                     P(cdevs_cross_params, value, LP_REAL), {0}};
static const lang_param cmp_p[] = {P(cdevs_comparator_params, level, LP_REAL), P(cdevs_comparator_params, low, LP_REAL),
                                   P(cdevs_comparator_params, high, LP_REAL), {0}};
static const lang_param hyst_p[] = {P(cdevs_hysteresis_params, x_on, LP_REAL), P(cdevs_hysteresis_params, x_off, LP_REAL),
                                    P(cdevs_hysteresis_params, low, LP_REAL), P(cdevs_hysteresis_params, high, LP_REAL),
                                    P(cdevs_hysteresis_params, start_high, LP_INT), {0}};
static const lang_param switch_p[] = {P(cdevs_switch_params, level, LP_REAL), {0}};
static const lang_param sat_p[] = {P(cdevs_saturation_params, lo, LP_REAL), P(cdevs_saturation_params, hi, LP_REAL), {0}};
static const lang_param quant_p[] = {P(cdevs_quantizer_params, quantum, LP_REAL),
                                     P(cdevs_quantizer_params, hysteresis, LP_REAL), {0}};
static const lang_param sampler_p[] = {P(cdevs_sampler_params, period, LP_REAL), P(cdevs_sampler_params, order, LP_INT),
                                       P(cdevs_sampler_params, numerical, LP_INT), P(cdevs_sampler_params, width, LP_REAL),
                                       {0}};
static const lang_param none_p[] = {{0}};

static const lang_block blocks[] = {
    {"Integrator", &cdevs_integrator_ops, sizeof(cdevs_integrator_params), integ_p, 0},
    {"ResetIntegrator", &cdevs_reset_integrator_ops, sizeof(cdevs_integrator_params), integ_p, 0},
    {"Constant", &cdevs_constant_ops, sizeof(cdevs_constant_params), const_p, 0},
    {"Step", &cdevs_step_ops, sizeof(cdevs_step_params), step_p, 0},
    {"Ramp", &cdevs_ramp_ops, sizeof(cdevs_ramp_params), ramp_p, 0},
    {"Sine", &cdevs_sine_ops, sizeof(cdevs_sine_params), sine_p, 0},
    {"Pulse", &cdevs_pulse_ops, sizeof(cdevs_wave_params), wave_p, 0},
    {"Triangle", &cdevs_triangle_ops, sizeof(cdevs_wave_params), wave_p, 0},
    {"Saw", &cdevs_saw_ops, sizeof(cdevs_wave_params), wave_p, 0},
    {"PWM", &cdevs_pwm_ops, sizeof(cdevs_pwm_params), pwm_p, 0},
    {"WSum", &cdevs_wsum_ops, sizeof(cdevs_wsum_params), wsum_p, 1},
    {"Gain", &cdevs_gain_ops, sizeof(cdevs_gain_params), gain_p, 1},
    {"Mult", &cdevs_mult_ops, sizeof(cdevs_mult_params), mult_p, 1},
    {"Div", &cdevs_div_ops, 0, none_p, 1},
    {"Inv", &cdevs_inv_ops, 0, none_p, 1},
    {"Square", &cdevs_square_ops, 0, none_p, 1},
    {"Pow", &cdevs_pow_ops, sizeof(cdevs_pow_params), pow_p, 1},
    {"Func", &cdevs_func_ops, sizeof(cdevs_func_params), func_p, 1},
    {"CrossDetect", &cdevs_cross_ops, sizeof(cdevs_cross_params), cross_p, 0},
    {"Comparator", &cdevs_comparator_ops, sizeof(cdevs_comparator_params), cmp_p, 0},
    {"Hysteresis", &cdevs_hysteresis_ops, sizeof(cdevs_hysteresis_params), hyst_p, 0},
    {"Switch", &cdevs_switch_ops, sizeof(cdevs_switch_params), switch_p, 1},
    {"Saturation", &cdevs_saturation_ops, sizeof(cdevs_saturation_params), sat_p, 1},
    {"Quantizer", &cdevs_quantizer_ops, sizeof(cdevs_quantizer_params), quant_p, 0},
    {"SampleHold", &cdevs_sample_hold_ops, 0, none_p, 0},
    {"Sampler", &cdevs_sampler_ops, sizeof(cdevs_sampler_params), sampler_p, 0},
    {"Counter", &cdevs_counter_ops, 0, none_p, 0},
};

const lang_block *lang_block_find(const char *name) {
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
    if (strcmp(blocks[i].name, name) == 0) return &blocks[i];
  return NULL;
}

size_t lang_block_names(const char **out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0] && n < max; i++) out[n++] = blocks[i].name;
  return n;
}

/* The table above is the one list: what a model may instantiate is what is listed. */
void cdevs_mo_list_blocks(FILE *out) {
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) {
    const lang_block *b = &blocks[i];
    fprintf(out, "%-16s in:", b->name);
    const cdevs_port_def *p = b->ops->inputs;
    for (; p && p->name; p++) fprintf(out, " %s", p->name);
    if (p == b->ops->inputs || !b->ops->inputs) fprintf(out, " -");
    fprintf(out, "  out:");
    for (p = b->ops->outputs; p && p->name; p++) fprintf(out, " %s", p->name);
    if (p == b->ops->outputs || !b->ops->outputs) fprintf(out, " -");
    fprintf(out, "  params:");
    for (const lang_param *q = b->params; q->name; q++) {
      fprintf(out, "%s %s", q == b->params ? "" : ",", q->name);
      if (q->kind == LP_REALS) fprintf(out, "[]");
      if (q->kind == LP_METHOD) fprintf(out, " (QSS1..QSS3, LIQSS1..LIQSS3)");
      if (q->kind == LP_FN) {
        fprintf(out, " (");
        for (int f = 1; cdevs_fn_name((cdevs_fn)f); f++) fprintf(out, "%s%s", f > 1 ? " " : "", cdevs_fn_name((cdevs_fn)f));
        fprintf(out, ")");
      }
    }
    if (!b->params->name) fprintf(out, " -");
    fprintf(out, "\n");
  }
}
