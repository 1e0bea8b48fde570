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

#define P(type, field, kind_) {.name = #field, .offset = offsetof(type, field), .kind = kind_}
#define B(name_, ops_, size_, params_, through_) {.name = name_, .ops = ops_, .arg_size = size_, .params = params_, .through = through_}

static const lang_param integ_p[] = {P(cdevs_integrator_params, method, LP_METHOD), P(cdevs_integrator_params, x0, LP_REAL),
                                     P(cdevs_integrator_params, dqrel, LP_REAL), P(cdevs_integrator_params, dqmin, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param const_p[] = {P(cdevs_constant_params, value, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param step_p[] = {P(cdevs_step_params, t_step, LP_REAL), P(cdevs_step_params, before, LP_REAL),
                                    P(cdevs_step_params, after, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param ramp_p[] = {P(cdevs_ramp_params, t_start, LP_REAL), P(cdevs_ramp_params, t_end, LP_REAL),
                                    P(cdevs_ramp_params, y_start, LP_REAL), P(cdevs_ramp_params, y_end, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param sine_p[] = {P(cdevs_sine_params, amplitude, LP_REAL), P(cdevs_sine_params, freq, LP_REAL),
                                    P(cdevs_sine_params, phase, LP_REAL), P(cdevs_sine_params, offset, LP_REAL),
                                    P(cdevs_sine_params, order, LP_INT), P(cdevs_sine_params, dq, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param wave_p[] = {P(cdevs_wave_params, low, LP_REAL), P(cdevs_wave_params, high, LP_REAL),
                                    P(cdevs_wave_params, period, LP_REAL), P(cdevs_wave_params, duty, LP_REAL),
                                    P(cdevs_wave_params, delay, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param pwm_p[] = {P(cdevs_pwm_params, low, LP_REAL), P(cdevs_pwm_params, high, LP_REAL),
                                   P(cdevs_pwm_params, period, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param wsum_p[] = {P(cdevs_wsum_params, n, LP_INT), P(cdevs_wsum_params, w, LP_REALS), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param gain_p[] = {P(cdevs_gain_params, k, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param mult_p[] = {P(cdevs_mult_params, n, LP_INT), P(cdevs_mult_params, dqrel, LP_REAL),
                                     P(cdevs_mult_params, dqmin, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param div_p[] = {P(cdevs_div_params, dqrel, LP_REAL), P(cdevs_div_params, dqmin, LP_REAL),
                                   {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param inv_p[] = {P(cdevs_inv_params, dqrel, LP_REAL), P(cdevs_inv_params, dqmin, LP_REAL),
                                   {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param square_p[] = {P(cdevs_square_params, dqrel, LP_REAL), P(cdevs_square_params, dqmin, LP_REAL),
                                      {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param pow_p[] = {P(cdevs_pow_params, p, LP_REAL), P(cdevs_pow_params, dqrel, LP_REAL),
                                    P(cdevs_pow_params, dqmin, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param func_p[] = {P(cdevs_func_params, fn, LP_FN), P(cdevs_func_params, dqrel, LP_REAL),
                                     P(cdevs_func_params, dqmin, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param cross_p[] = {P(cdevs_cross_params, level, LP_REAL), P(cdevs_cross_params, direction, LP_INT),
                                     P(cdevs_cross_params, value, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param cmp_p[] = {P(cdevs_comparator_params, level, LP_REAL), P(cdevs_comparator_params, low, LP_REAL),
                                   P(cdevs_comparator_params, high, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param hyst_p[] = {P(cdevs_hysteresis_params, x_on, LP_REAL), P(cdevs_hysteresis_params, x_off, LP_REAL),
                                    P(cdevs_hysteresis_params, low, LP_REAL), P(cdevs_hysteresis_params, high, LP_REAL),
                                    P(cdevs_hysteresis_params, start_high, LP_INT), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param switch_p[] = {P(cdevs_switch_params, level, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param sat_p[] = {P(cdevs_saturation_params, lo, LP_REAL), P(cdevs_saturation_params, hi, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param quant_p[] = {P(cdevs_quantizer_params, quantum, LP_REAL),
                                     P(cdevs_quantizer_params, hysteresis, LP_REAL), {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param sampler_p[] = {P(cdevs_sampler_params, period, LP_REAL), P(cdevs_sampler_params, order, LP_INT),
                                       P(cdevs_sampler_params, numerical, LP_INT), P(cdevs_sampler_params, width, LP_REAL),
                                       {NULL, 0, 0, NULL, NULL, NULL}};
static const lang_param none_p[] = {{NULL, 0, 0, NULL, NULL, NULL}};

static const lang_block blocks[] = {
    B("Integrator", &cdevs_integrator_ops, sizeof(cdevs_integrator_params), integ_p, 0),
    B("ResetIntegrator", &cdevs_reset_integrator_ops, sizeof(cdevs_integrator_params), integ_p, 0),
    B("Constant", &cdevs_constant_ops, sizeof(cdevs_constant_params), const_p, 0),
    B("Step", &cdevs_step_ops, sizeof(cdevs_step_params), step_p, 0),
    B("Ramp", &cdevs_ramp_ops, sizeof(cdevs_ramp_params), ramp_p, 0),
    B("Sine", &cdevs_sine_ops, sizeof(cdevs_sine_params), sine_p, 0),
    B("Pulse", &cdevs_pulse_ops, sizeof(cdevs_wave_params), wave_p, 0),
    B("Triangle", &cdevs_triangle_ops, sizeof(cdevs_wave_params), wave_p, 0),
    B("Saw", &cdevs_saw_ops, sizeof(cdevs_wave_params), wave_p, 0),
    B("PWM", &cdevs_pwm_ops, sizeof(cdevs_pwm_params), pwm_p, 0),
    B("WSum", &cdevs_wsum_ops, sizeof(cdevs_wsum_params), wsum_p, 1),
    B("Gain", &cdevs_gain_ops, sizeof(cdevs_gain_params), gain_p, 1),
    B("Mult", &cdevs_mult_ops, sizeof(cdevs_mult_params), mult_p, 1),
    B("Div", &cdevs_div_ops, sizeof(cdevs_div_params), div_p, 1),
    B("Inv", &cdevs_inv_ops, sizeof(cdevs_inv_params), inv_p, 1),
    B("Square", &cdevs_square_ops, sizeof(cdevs_square_params), square_p, 1),
    B("Pow", &cdevs_pow_ops, sizeof(cdevs_pow_params), pow_p, 1),
    B("Func", &cdevs_func_ops, sizeof(cdevs_func_params), func_p, 1),
    B("CrossDetect", &cdevs_cross_ops, sizeof(cdevs_cross_params), cross_p, 0),
    B("Comparator", &cdevs_comparator_ops, sizeof(cdevs_comparator_params), cmp_p, 0),
    B("Hysteresis", &cdevs_hysteresis_ops, sizeof(cdevs_hysteresis_params), hyst_p, 0),
    B("Switch", &cdevs_switch_ops, sizeof(cdevs_switch_params), switch_p, 1),
    B("Saturation", &cdevs_saturation_ops, sizeof(cdevs_saturation_params), sat_p, 1),
    B("Quantizer", &cdevs_quantizer_ops, sizeof(cdevs_quantizer_params), quant_p, 0),
    B("SampleHold", &cdevs_sample_hold_ops, 0, none_p, 0),
    B("Sampler", &cdevs_sampler_ops, sizeof(cdevs_sampler_params), sampler_p, 0),
    B("Counter", &cdevs_counter_ops, 0, none_p, 0),
};

/* Libraries of other layers (cdevs_lang_register). */
#define MAX_LIBS 8
static const cdevs_lang_library *libs[MAX_LIBS];
static size_t nlibs;

int cdevs_lang_register(const cdevs_lang_library *lib) {
  for (size_t i = 0; i < nlibs; i++)
    if (libs[i] == lib) return 0;
  if (nlibs == MAX_LIBS || !lib) return -1;
  for (size_t k = 0; k < lib->nblocks; k++)
    if (lang_block_find(lib->blocks[k].name)) return -1;
  libs[nlibs++] = lib;
  return 0;
}

/* The distributions parameters may be drawn from (cdevs_lang_register_random). */
static const cdevs_lang_random *random_lib;

void cdevs_lang_register_random(const cdevs_lang_random *r) { random_lib = r; }

const cdevs_lang_random *lang_random(void) { return random_lib; }

int lang_is_dist(const char *name) { return random_lib && name && random_lib->is_dist(name); }

const lang_block *lang_block_find(const char *name) {
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
    if (strcmp(blocks[i].name, name) == 0) return &blocks[i];
  for (size_t l = 0; l < nlibs; l++)
    for (size_t k = 0; k < libs[l]->nblocks; k++)
      if (strcmp(libs[l]->blocks[k].name, name) == 0) return &libs[l]->blocks[k];
  return NULL;
}

const char *lang_block_context(const lang_block *b) {
  for (size_t l = 0; l < nlibs; l++)
    if (b >= libs[l]->blocks && b < libs[l]->blocks + libs[l]->nblocks) return libs[l]->context;
  return NULL;
}

const cdevs_port_def *lang_block_ports(const lang_block *b, cdevs_dir dir) {
  if (!b->ops) return NULL;
  return dir == CDEVS_OUT ? b->ops->outputs : b->ops->inputs;
}

size_t lang_block_names(const char **out, size_t max) {
  size_t n = 0;
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0] && n < max; i++) out[n++] = blocks[i].name;
  for (size_t l = 0; l < nlibs; l++)
    for (size_t k = 0; k < libs[l]->nblocks && n < max; k++) out[n++] = libs[l]->blocks[k].name;
  return n;
}

static void list_ports(FILE *out, const cdevs_port_def *p) {
  if (!p || !p->name) fprintf(out, " -");
  for (; p && p->name; p++) fprintf(out, " %s", p->name);
}

static void list_block(FILE *out, const lang_block *b) {
  fprintf(out, "%-16s", b->name);
  if (!b->ops) {
    fprintf(out, " (data module)");
  } else {
    fprintf(out, " in:");
    list_ports(out, b->ops->inputs);
    fprintf(out, "  out:");
    list_ports(out, b->ops->outputs);
  }
  fprintf(out, "  params:");
  for (const lang_param *q = b->params; q->name; q++) {
    fprintf(out, "%s %s", q == b->params ? "" : ",", q->name);
    if (q->kind == LP_REALS) fprintf(out, "[]");
    if (q->kind == LP_METHOD) fprintf(out, " (QSS1..QSS3, LIQSS1..LIQSS3)");
    if (q->kind == LP_REF) fprintf(out, " (a %s)", q->ref);
    if (q->help) fprintf(out, " (%s)", q->help);
    if (q->kind == LP_FN) {
      fprintf(out, " (");
      for (int f = 1; cdevs_fn_name((cdevs_fn)f); f++) fprintf(out, "%s%s", f > 1 ? " " : "", cdevs_fn_name((cdevs_fn)f));
      fprintf(out, ")");
    }
  }
  if (!b->params->name) fprintf(out, " -");
  fprintf(out, "\n");
  if (b->help) fprintf(out, "%16s %s\n", "", b->help);
}

/* The tables are the one list: what a model may instantiate is what is listed. */
void cdevs_mo_list_blocks(FILE *out) {
  for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++) list_block(out, &blocks[i]);
  for (size_t l = 0; l < nlibs; l++)
    for (size_t k = 0; k < libs[l]->nblocks; k++) list_block(out, &libs[l]->blocks[k]);
}
