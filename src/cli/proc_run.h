/* SPDX-License-Identifier: MIT */
/* cdevs run's part for models with process blocks (proc_run.c). */
#ifndef CDEVS_CLI_PROC_RUN_H
#define CDEVS_CLI_PROC_RUN_H

#include "cdevs/cdevs.h"
#include "reps.h"

typedef struct cli_proc_opts {
  uint64_t seed;      /* --seed: the package seed (cdevs_rng_package_seed) */
  uint64_t reps;      /* --reps */
  unsigned jobs;      /* --jobs */
  double warmup;      /* --warmup */
  const char *report; /* --report FILE.csv|.json, or NULL */
  int quiet;
} cli_proc_opts;

/* The process elements of replication r (0-based) of a run: NULL after saying why. */
cdevs_proc *cli_proc_world(const cli_proc_opts *o, const cdevs_mo_experiment *e, uint64_t replication);
/* After a single run to t_end (passive: nothing was left scheduled): a deadlock is an
 * error; the report on stderr, MSER-5's warm-up suggestion, the report file. The exit
 * status. */
int cli_proc_finish(cdevs_proc *w, const cdevs_mo_experiment *e, const cli_proc_opts *o, double t_end, int passive);
/* o->reps replications on o->jobs workers (and under mpirun on every rank), merged in
 * replication order: the report on stderr and in o->report (rank 0). mo is the model
 * compiled for replication 0; a model that draws parameters is compiled again for
 * each other (from m). The exit status. */
int cli_proc_reps(const cli_model *m, cdevs_mo *mo, const cdevs_mo_experiment *e, const cli_proc_opts *o);

/* --vars naming a process model's counts and time-persistent statistics as the report
 * prints them ("serve.Queue.NQ", "System.NumberOut"): their trajectories written to out
 * (time and one column each; a row where the run starts, then each change at the end
 * of its instant as two rows at its time, the values before and after, so that a
 * line through the rows draws the steps; a row where it ends). Open after the
 * simulator is made (blocks make their statistics in init); NULL after saying why. */
typedef struct cli_proc_trace cli_proc_trace;
cli_proc_trace *cli_proc_trace_open(cdevs_proc *w, cdevs_sim *sim, const char *vars, const char *out, double t0);
/* The last rows, the file put in place (also after an error or a stop signal: what
 * was run is kept); 0, or -1 after saying why. */
int cli_proc_trace_close(cli_proc_trace *tr, cdevs_sim *sim, double t_end);

#endif
