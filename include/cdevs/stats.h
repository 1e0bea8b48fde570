/* SPDX-License-Identifier: MIT */
/* Output statistics of process models: tallies, time-persistent statistics, 95%
 * half-widths by batch means within a run and by replications, MSER-5 warm-up. */
#ifndef CDEVS_STATS_H
#define CDEVS_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why a half-width could not be given (Arena prints "(Insufficient)" and
 * "(Correlated)"): fewer than CDEVS_STATS_MIN_BATCHES full batches, or the batch means'
 * lag-1 autocorrelation is significantly positive at the 5% level (the batches are too
 * short). The test is von Neumann's ratio in Young's form, C = 1 − Σ(b_i − b_{i+1})² /
 * (2 Σ(b_i − b̄)²), against the normal with variance (nb − 2)/(nb² − 1), one-sided. */
typedef enum cdevs_hw_status {
  CDEVS_HW_OK = 0,
  CDEVS_HW_INSUFFICIENT,
  CDEVS_HW_CORRELATED
} cdevs_hw_status;

#define CDEVS_STATS_MIN_BATCHES 20

/* What a statistic reports at the end of a run. For a tally stddev is the sample
 * standard deviation (divisor n − 1, NaN for a single observation). For a
 * time-persistent statistic avg is the time average, stddev the time-weighted one
 * (divisor the length of time), count the number of changes of value, and min and max
 * range over every value taken, even for no time.
 *
 * The half-width is by batch means, the batch size growing as the run goes:
 * observations (or equal spans of simulated time) fill batches
 * of one size; when 2 * CDEVS_STATS_MIN_BATCHES batches are complete, adjacent pairs
 * merge and the size doubles. The complete batches b_1 … b_nb (the last, incomplete
 * one is left out) give t_{0.975, nb−1} * s_b / √nb. half_width is NaN unless hw_status
 * is CDEVS_HW_OK; it is 0 when every batch mean is the same. With no observation, avg,
 * min, max, final and stddev are NaN and count is 0. */
typedef struct cdevs_stat_summary {
  double avg, min, max, final, stddev;
  uint64_t count;
  double half_width;
  int hw_status; /* cdevs_hw_status */
  int batches;   /* complete batches, which the half-width used or would have used */
} cdevs_stat_summary;

/* ---- Tallies: observations (waiting times, times in system) -------------------- */
typedef struct cdevs_tally cdevs_tally;
/* a may be NULL (the C library); NULL if out of memory. */
cdevs_tally *cdevs_tally_new(const cdevs_alloc *a);
void cdevs_tally_free(cdevs_tally *t);
/* One observation x made at simulated time t (the time is kept for MSER-5's answer
 * in time units). A non-finite x or time, or a time before the previous observation's,
 * is CDEVS_EINVAL and is not recorded. It never fails for memory (see mser5); O(1)
 * amortized, no allocation but the occasional doubling of the MSER-5 array. */
cdevs_status cdevs_tally_add(cdevs_tally *t, double time, double x);
/* Forgets everything observed so far (the end of a warm-up period), the time of the
 * last observation included. */
void cdevs_tally_reset(cdevs_tally *t);
void cdevs_tally_summary(const cdevs_tally *t, cdevs_stat_summary *s);

/* ---- Time-persistent statistics: a piecewise-constant value (queue length, busy) */
typedef struct cdevs_tpstat cdevs_tpstat;
/* Starts at time t0 with value v0. span > 0 is the expected length of the run (the
 * batches are span / (2 * CDEVS_STATS_MIN_BATCHES) long to begin with and double as the
 * run goes past it, so a run ending at t0 + span has CDEVS_STATS_MIN_BATCHES of them);
 * INFINITY or 0 when unknown: the first interval of nonzero length is then taken for
 * the whole run (it is split into 2 * CDEVS_STATS_MIN_BATCHES batches). NULL if out of
 * memory, or if t0 or v0 is not finite or span is negative or NaN. */
cdevs_tpstat *cdevs_tpstat_new(const cdevs_alloc *a, double t0, double v0, double span);
void cdevs_tpstat_free(cdevs_tpstat *s);
/* The value becomes v at time t (t finite and not before the previous change, v finite,
 * else CDEVS_EINVAL and nothing changes). O(1) amortized, no allocation. */
cdevs_status cdevs_tpstat_set(cdevs_tpstat *s, double t, double v);
/* The current value. */
double cdevs_tpstat_value(const cdevs_tpstat *s);
/* Forgets the history before time t, keeping the current value (warm-up): the
 * statistic starts anew at t as if created there, with the batches sized for what
 * remains of the expected span. CDEVS_EINVAL if t is not finite or before the last
 * change. */
cdevs_status cdevs_tpstat_reset(cdevs_tpstat *s, double t);
/* The summary over [start (t0 or the reset time), t_end]; the statistic is not
 * changed. avg, stddev and half_width are NaN if t_end is not finite, is before the
 * last change, or equals the start (no time has passed). */
void cdevs_tpstat_summary(const cdevs_tpstat *s, double t_end, cdevs_stat_summary *out);

/* ---- Across replications ---------------------------------------------------------- */
/* The mean of n values and its 95% half-width t_{0.975, n−1} * s / √n, s the sample
 * standard deviation (NaN when n < 2; half_width may be NULL). Returns the mean (NaN
 * when n = 0). */
double cdevs_stats_mean_hw(const double *x, size_t n, double *half_width);
/* The p-quantile of Student's t distribution with df > 0 degrees of freedom (INFINITY
 * for the normal), to about 1e-13 relative; ±INFINITY at p = 0 and 1, NaN for p outside
 * [0, 1] or df <= 0. */
double cdevs_student_t_quantile(double p, double df);

/* ---- Warm-up ----------------------------------------------------------------------- */
/* MSER-5 (White 1997; White, Cobb & Spratt 2000) on a tally's observations since
 * its creation or reset: over the means Z_1 … Z_m of consecutive batches of 5
 * observations (an incomplete last batch is left out), the truncation d in
 * 0 … ⌊m/2⌋ minimising Σ_{i>d} (Z_i − Z̄_d)² / (m − d)², ties to the smaller d. The
 * answer is a time: that of the last observation truncated, or that of the first
 * observation when nothing is (d = 0); every truncated observation was made at or
 * before it and every kept one at or after it. NaN with fewer than 10 batches.
 * Memory stays bounded: the batches are kept in an array that stops growing at 2^12
 * of them (64 KiB, 5 * 2^12 observations), or earlier if the allocator refuses; adjacent
 * pairs then merge, and a longer run is judged on batches of 10, 20, … observations
 * (between 2^11 and 2^12 of them, so the cut is placed to within 1/2048 of the run). */
double cdevs_tally_mser5(const cdevs_tally *t);

#ifdef __cplusplus
}
#endif
#endif
