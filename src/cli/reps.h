/* SPDX-License-Identifier: MIT */
/* Replications of a model file: the model compiled for each (its parameters drawn on
 * the replication's substream), and a set of replications spread over worker
 * processes and MPI ranks whose records come back as text (reps.c); the replications
 * of equation models and their report (mo_reps.c). */
#ifndef CDEVS_CLI_REPS_H
#define CDEVS_CLI_REPS_H

#include <stdint.h>
#include <stdio.h>

#include "cdevs/cdevs.h"

/* A model file as the run was asked for, to compile again for each replication. */
typedef struct cli_model {
  const char *path;  /* as given ("-": standard input) */
  const char *name;  /* for messages ("<stdin>") */
  const char *text;  /* the model text */
  size_t len;
  uint64_t seed;     /* --seed */
  double stop;       /* the run's stop time */
  cdevs_mo_jacobian jac;
  cdevs_mo_zeno zeno;
  const char *vars;  /* --vars, or NULL */
} cli_model;

/* The model compiled with its parameters drawn for replication r (0-based) and the
 * run's settings: NULL after the diagnostics went to diag (run.c). */
cdevs_mo *cli_model_load(const cli_model *m, uint64_t r, FILE *diag);

/* Replication r: its record written to out (whole, or nothing). 0; 1 when a stop
 * signal came (nothing written); -1 after saying on stderr what failed. */
typedef int cli_rep_fn(void *ud, uint64_t r, FILE *out);

/*
 * Replications 0..k-1, each run by fn, this process's share of them (all, or under
 * mpirun rank i's of N: i, i + N, i + 2N, …) on `jobs` worker processes (forked; one:
 * in this process). On rank 0, *text (malloc'd, NUL-terminated; NULL if nothing ran)
 * gets every rank's records, in no particular order; on the others NULL. Returns the
 * exit status: CLI_OK; CLI_FAIL when a replication failed (said by the process that
 * ran it); CLI_INTERRUPTED after a stop signal (passed on to the workers; what ran is
 * in *text). *workers: how many this process used.
 */
int cli_reps_run(uint64_t k, unsigned jobs, cli_rep_fn *fn, void *ud, char **text, unsigned *workers);

/* The last line of a set of replications on stderr: "summary: model=… replications=…
 * jobs=… [ranks=…] wall_s=… replications_per_s=…". */
void cli_reps_summary(const char *path, size_t done, unsigned jobs, double wall);

/* The replications of an equation model with parameters drawn from distributions:
 * each value among the outputs (--vars) at the stop time and its minimum and maximum
 * over the run, and the parameters drawn, as the mean over the replications with its
 * 95% half-width on stderr and every replication's in o->report. The exit status. */
struct cli_proc_opts;
int cli_mo_reps(const cli_model *m, cdevs_mo *mo, const cdevs_mo_experiment *e, const struct cli_proc_opts *o);

/* Report files: a CSV field quoted, a number (nothing for one not finite), a JSON
 * string escaped, a JSON number (null for one not finite). */
void cli_csv_text(FILE *f, const char *s);
void cli_csv_num(FILE *f, double x);
void cli_json_text(FILE *f, const char *s);
void cli_json_num(FILE *f, double x);

/* Over the replications that ran (done[0..nd)), the values x[done[k]·stride]: their
 * mean with its 95% half-width (Student t), min and max (buf: room for nd). */
typedef struct cli_across {
  double mean, hw, min, max;
} cli_across;
cli_across cli_across_reps(const double *x, size_t stride, const uint64_t *done, size_t nd, double *buf);
/* The same over x[0..n). */
cli_across cli_across_values(const double *x, size_t n);
/* JSON: "mean": m, "half_width": h, "min": a, "max": b (no braces). */
void cli_json_across(FILE *f, cli_across a);

#endif
