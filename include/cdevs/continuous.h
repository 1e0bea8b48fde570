/* SPDX-License-Identifier: MIT */
/*
 * The continuous block library (the PowerDEVS / ModelicaDEVS palette): integrators,
 * sources, static functions, hybrid blocks and sinks. Signals are CDEVS_TAYLOR
 * values: an event carries the polynomial of the signal from its time on, and a
 * block evaluates or shifts it as time passes (dense output is exact).
 *
 * Every block is an atomic type (`cdevs_<block>_ops`) whose argument is its params
 * struct; add one with cdevs_atomic_add(parent, name, &cdevs_gain_ops, &params).
 * Output ports are named "y"; inputs are named below. Parameter errors are reported
 * by cdevs_sim_new with the block's path; run-time domain errors (sqrt of a negative
 * value, division by zero, …) stop the run with the block's path and the time.
 */
#ifndef CDEVS_CONTINUOUS_H
#define CDEVS_CONTINUOUS_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"
#include "qss.h"
#include "taylor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Integrators ------------------------------------------------------------------ */

/*
 * Integrator: x' = u, x(t0) = x0, integrated by `method` with quantum
 * ΔQ = max(dqmin, dqrel·|x|). Input "u" (the derivative); output "y" emits the
 * quantized state q (a polynomial of degree order-1) at every requantization.
 * The reset integrator adds input "reset": an event sets x to its value at once.
 */
typedef struct cdevs_integrator_params {
  cdevs_qss_method method; /* 0 means QSS3 */
  double x0;
  double dqrel; /* >= 0 */
  double dqmin; /* > 0 */
} cdevs_integrator_params;
extern const cdevs_atomic_ops cdevs_integrator_ops;
extern const cdevs_atomic_ops cdevs_reset_integrator_ops;
/* The state x at time t (>= the integrator's last transition): exact polynomial evaluation. */
double cdevs_integrator_x(const void *state, double t);
/* Requantizations so far: internal transitions after the start-up output at t0 (the
 * count QSS Solver reports as "simulation transitions"). */
uint64_t cdevs_integrator_steps(const void *state);

/* ---- Sources (no input; output "y") ------------------------------------------------ */

typedef struct cdevs_constant_params {
  double value;
} cdevs_constant_params;
extern const cdevs_atomic_ops cdevs_constant_ops;

/* before until t_step, after from t_step on. */
typedef struct cdevs_step_params {
  double t_step, before, after;
} cdevs_step_params;
extern const cdevs_atomic_ops cdevs_step_ops;

/* y_start until t_start, a straight line to y_end at t_end, then y_end. */
typedef struct cdevs_ramp_params {
  double t_start, t_end, y_start, y_end;
} cdevs_ramp_params;
extern const cdevs_atomic_ops cdevs_ramp_ops;

/*
 * offset + amplitude·sin(2π·freq·t + phase), emitted as its Taylor polynomial of
 * degree `order` (1..3; 0 picks 2), renewed before the truncation error can exceed dq.
 */
typedef struct cdevs_sine_params {
  double amplitude, freq, phase, offset;
  int order; /* degree of the emitted polynomial; 0 means 2 */
  double dq; /* > 0 */
} cdevs_sine_params;
extern const cdevs_atomic_ops cdevs_sine_ops;

/*
 * Periodic waveforms with period > 0, starting `delay` after t0:
 *   pulse:    high for duty·period, then low (0 < duty < 1); square is duty 0.5;
 *   triangle: low → high in half a period, back to low in the other half;
 *   saw:      low → high over the period, then back to low at once.
 * Before the delay they hold low.
 */
typedef struct cdevs_wave_params {
  double low, high, period, duty, delay;
} cdevs_wave_params;
extern const cdevs_atomic_ops cdevs_pulse_ops;
extern const cdevs_atomic_ops cdevs_triangle_ops;
extern const cdevs_atomic_ops cdevs_saw_ops;

/*
 * PWM: input "duty" (a signal in [0, 1]); y is high while a saw carrier rising from
 * 0 to 1 over each period is below duty, low otherwise. Edges are the exact roots
 * of duty(t) - carrier(t).
 */
typedef struct cdevs_pwm_params {
  double low, high, period;
} cdevs_pwm_params;
extern const cdevs_atomic_ops cdevs_pwm_ops;

/*
 * Table: y follows the points (t[i], y[i]) (t strictly increasing), linearly
 * interpolated (linear != 0) or held; before t[0] it is y[0], after the last point
 * the last value. The arrays are copied when the simulator starts.
 */
typedef struct cdevs_table_params {
  const double *t, *y;
  size_t n;
  int linear;
} cdevs_table_params;
extern const cdevs_atomic_ops cdevs_table_ops;
/*
 * Reads a two-column CSV (time,value; a header line and '#' comments allowed) into
 * arrays allocated with a (NULL: the C library); *t and *y are freed with the same
 * allocator, size *n each. On error returns CDEVS_EIO or CDEVS_EINVAL with
 * "file:line: message" in err.
 */
cdevs_status cdevs_table_load_csv(const char *path, const cdevs_alloc *a, double **t,
                                  double **y, size_t *n, char *err, size_t errsize);
void cdevs_table_free(const cdevs_alloc *a, double *t, double *y, size_t n);

/* ---- Static functions (inputs "u0".."u7", or "u"; output "y") ------------------- */

#define CDEVS_STATIC_MAX_INPUTS 8

/* y = Σ w[i]·u_i over n inputs (1..8). */
typedef struct cdevs_wsum_params {
  int n;
  double w[CDEVS_STATIC_MAX_INPUTS];
} cdevs_wsum_params;
extern const cdevs_atomic_ops cdevs_wsum_ops;

/* y = k·u (input "u"). */
typedef struct cdevs_gain_params {
  double k;
} cdevs_gain_params;
extern const cdevs_atomic_ops cdevs_gain_ops;

/*
 * The nonlinear blocks below send y as the series of f at their inputs' series, to
 * the inputs' degree. Between input events y is beyond that series (cos of a ramp
 * is no polynomial), so while the inputs send nothing (a ramp, an integrator of a
 * constant) the block evaluates f again and sends y where the terms it leaves out
 * reach max(dqrel·|y|, dqmin). dqrel and dqmin both 0 mean 1e-6 and 1e-9; a model
 * file gives its run's tolerances.
 */

/* y = Π u_i over n inputs (2..8; 0 means 2). */
typedef struct cdevs_mult_params {
  int n;
  double dqrel, dqmin;
} cdevs_mult_params;
extern const cdevs_atomic_ops cdevs_mult_ops;

/* y = u0 / u1; y = 1 / u, y = u², y = u^p (input "u"). Div, Inv and Square take
 * their quantum only, and need it: they once took no params (and NULL), which
 * cdevs_atomic_add now refuses; a zeroed struct gives the defaults. */
typedef struct cdevs_div_params {
  double dqrel, dqmin;
} cdevs_div_params;
typedef struct cdevs_inv_params {
  double dqrel, dqmin;
} cdevs_inv_params;
typedef struct cdevs_square_params {
  double dqrel, dqmin;
} cdevs_square_params;
extern const cdevs_atomic_ops cdevs_div_ops;
extern const cdevs_atomic_ops cdevs_inv_ops;
extern const cdevs_atomic_ops cdevs_square_ops;
typedef struct cdevs_pow_params {
  double p;
  double dqrel, dqmin;
} cdevs_pow_params;
extern const cdevs_atomic_ops cdevs_pow_ops;

/* y = fn(u) for an elementary function (input "u"; cdevs_fn is in taylor.h). */
typedef struct cdevs_func_params {
  cdevs_fn fn;
  double dqrel, dqmin;
} cdevs_func_params;
extern const cdevs_atomic_ops cdevs_func_ops;

/* ---- Hybrid blocks ------------------------------------------------------------------ */

/*
 * Cross detect: emits `value` on "y" at the exact instant the input "u" crosses
 * `level` (a root of its polynomial) in the chosen direction: +1 rising, -1
 * falling, 0 both.
 */
typedef struct cdevs_cross_params {
  double level;
  int direction;
  double value;
} cdevs_cross_params;
extern const cdevs_atomic_ops cdevs_cross_ops;

/* Comparator: y = high while u > level, low otherwise; switches at the exact crossing. */
typedef struct cdevs_comparator_params {
  double level, low, high;
} cdevs_comparator_params;
extern const cdevs_atomic_ops cdevs_comparator_ops;

/* Hysteresis: y turns high when u rises to x_on, low when it falls to x_off (< x_on). */
typedef struct cdevs_hysteresis_params {
  double x_on, x_off, low, high;
  int start_high; /* initial output */
} cdevs_hysteresis_params;
extern const cdevs_atomic_ops cdevs_hysteresis_ops;

/* Switch: inputs "u0", "ctl", "u1"; y = u0 while ctl > level, else u1. */
typedef struct cdevs_switch_params {
  double level;
} cdevs_switch_params;
extern const cdevs_atomic_ops cdevs_switch_ops;

/* Saturation: y = min(max(u, lo), hi), switching at the exact crossings of lo and hi. */
typedef struct cdevs_saturation_params {
  double lo, hi;
} cdevs_saturation_params;
extern const cdevs_atomic_ops cdevs_saturation_ops;

/*
 * Quantizer: y = k·quantum for the level k it holds; it moves up when u reaches
 * (k+1)·quantum and down when u falls to k·quantum - hysteresis (hysteretic
 * quantization, Cellier & Kofman 2006). 0 <= hysteresis < quantum.
 */
typedef struct cdevs_quantizer_params {
  double quantum, hysteresis;
} cdevs_quantizer_params;
extern const cdevs_atomic_ops cdevs_quantizer_ops;

/* Sample and hold: inputs "u" and "trigger"; any trigger event emits u's current value. */
extern const cdevs_atomic_ops cdevs_sample_hold_ops;

/*
 * Sampler: every period (from t0) emits the input "u" as a polynomial of degree
 * `order` (0..2). exact: u's own coefficients. Numerical (the seed's
 * SamplerTimeNumerical, Beltrame & Cellier §4.2): the value u, the difference
 * (u - u(t-D))/D and (u - 2u(t-D) + u(t-2D))/(2D²) (the seed's second difference over
 * D², as a Taylor coefficient: halved), with u(t-D) the input D earlier (Modelica's
 * delay(u, D): its first value before the start). width D = 0 takes the samples
 * alone, D being the period, as a sampler in front of a system that only provides
 * values would do.
 */
typedef struct cdevs_sampler_params {
  double period;
  int order;
  int numerical;
  double width; /* D (numerical only); 0: the period, from the samples */
} cdevs_sampler_params;
extern const cdevs_atomic_ops cdevs_sampler_ops;

/* ---- Sinks -------------------------------------------------------------------------- */

/*
 * Recorder: inputs "u0".."u(n-1)". With step = 0 it records a row at every input
 * event (the values of all inputs at that time); with step > 0 it samples the inputs'
 * polynomials at t0, t0 + step, … up to t_stop (dense output). Rows stay in memory
 * until written with cdevs_recorder_write (into a cdevs_results_file, results.h, for
 * a file that is whole or absent).
 */
typedef struct cdevs_recorder_params {
  int n; /* 1..8 */
  double step;
  double t_stop; /* used when step > 0 */
} cdevs_recorder_params;
extern const cdevs_atomic_ops cdevs_recorder_ops;
size_t cdevs_recorder_rows(const void *state);
/* Row i: its time, and the n values into v. */
double cdevs_recorder_row(const void *state, size_t i, double *v);
/* Writes "time,<names…>" and the rows to f; names may be NULL (u0, u1, …). */
cdevs_status cdevs_recorder_write(const void *state, FILE *f, const char *const *names);

/* Event counter: counts the events arriving on "u". */
extern const cdevs_atomic_ops cdevs_counter_ops;
uint64_t cdevs_counter_count(const void *state);

/* ---- Example block diagrams (the QSS benchmarks) ---------------------------------- */

/*
 * The flyback converter of Beltrame & Cellier (section 4.1) as a causal block diagram
 * (examples/flyback/README.md derives it): magnetizing current iL referred to the
 * primary and output voltage vC, an ideal switch driven by a pulse, an ideal diode.
 * Integrators are named "iL" and "vC"; the root also has outputs "iL" and "vC".
 */
typedef struct cdevs_flyback_params {
  double vin, lm, n, c, r; /* V, H, Ns/Np, F, Ω */
  double freq, duty;       /* switching frequency (Hz) and duty cycle */
} cdevs_flyback_params;
/* 12 V, 100 µH, 0.5, 20 µF, 20 Ω, 50 kHz, 0.4 (discontinuous conduction). */
cdevs_flyback_params cdevs_flyback_default(void);
cdevs_model *cdevs_flyback_build(const cdevs_alloc *a, const cdevs_flyback_params *p,
                                 cdevs_qss_method method, double dqrel, double dqmin);

/*
 * The LC transmission line: x1' = d - x2, xi' = x(i-1) - x(i+1), xN' = x(N-1), with d
 * a step from 1 to 0 at t = 1. Integrators "x1".."xN".
 */
cdevs_model *cdevs_lcline_build(const cdevs_alloc *a, int n, cdevs_qss_method method,
                                double dqrel, double dqmin);

/*
 * The stiff system of Migoni et al. (2013): x1' = 0.01·x2, x2' = 2020 - 100·x1 - 100·x2,
 * x(0) = (0, 20). Integrators "x1" and "x2".
 */
cdevs_model *cdevs_stiff_build(const cdevs_alloc *a, cdevs_qss_method method, double dqrel,
                               double dqmin);

#ifdef __cplusplus
}
#endif
#endif
