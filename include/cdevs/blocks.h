/* SPDX-License-Identifier: MIT */
/* Ready atomic models: the generator → processor → transducer experimental frame. */
#ifndef CDEVS_BLOCKS_H
#define CDEVS_BLOCKS_H

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Generator: emits job numbers 0, 1, 2, … (int) on "out" at times first, first +
 * period, …; any event on "stop" makes it passive for good.
 */
typedef struct cdevs_generator_params {
  double first;  /* time of the first job, relative to the start time (>= 0) */
  double period; /* > 0 */
} cdevs_generator_params;
typedef struct cdevs_generator_state {
  double sigma, period;
  int64_t next_job;
} cdevs_generator_state;
extern const cdevs_atomic_ops cdevs_generator_ops;

/*
 * Processor (Zeigler's "proc"; the DEVSLib processor of SNE 18/2, Listings 1–3):
 * when idle it takes the first job of its input bag on "in" and emits it on "out"
 * after processing_time; the other jobs of that bag, and jobs arriving while busy,
 * are counted as bailed and dropped.
 */
typedef struct cdevs_processor_params {
  double processing_time; /* >= 0 */
} cdevs_processor_params;
typedef struct cdevs_processor_state {
  double sigma;
  double processing_time;
  int busy;
  int64_t job;
  uint64_t received; /* jobs taken for processing */
  uint64_t bailed;   /* jobs dropped */
  uint64_t done;     /* jobs emitted */
} cdevs_processor_state;
extern const cdevs_atomic_ops cdevs_processor_ops;

/*
 * Transducer: observes jobs arriving ("arrived") and jobs solved ("solved") until
 * observation_time, then emits on "out" (to stop the generator), turns passive and
 * ignores later inputs. Events at the closing instant itself still count.
 * It reports throughput = solved / observation time and the mean turnaround time
 * of solved jobs.
 */
typedef struct cdevs_transducer_params {
  double observation_time; /* > 0 */
} cdevs_transducer_params;
typedef struct cdevs_transducer_state {
  double sigma, t0, clock;
  int closed; /* the observation window is over: inputs are ignored */
  uint64_t arrived, solved;
  double total_turnaround;
  double *arrival;   /* arrival time by job number; NaN until it arrives */
  uint32_t narrival; /* capacity */
  const cdevs_alloc *alloc;
} cdevs_transducer_state;
extern const cdevs_atomic_ops cdevs_transducer_ops;

double cdevs_transducer_throughput(const cdevs_transducer_state *s);
double cdevs_transducer_mean_turnaround(const cdevs_transducer_state *s);

/*
 * Builds the experimental frame ef = {genr, transd} coupled to proc inside a root
 * "efp": genr.out → proc.in and transd.arrived; proc.out → transd.solved and root
 * "solved"; transd.out → genr.stop. Returns the root (check cdevs_model_status).
 */
cdevs_model *cdevs_efp_build(const cdevs_alloc *a, const cdevs_generator_params *g,
                             const cdevs_processor_params *p, const cdevs_transducer_params *t);

#ifdef __cplusplus
}
#endif
#endif
