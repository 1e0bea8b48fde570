/* SPDX-License-Identifier: MIT */
/* The cdevs command's pieces: one table-driven option parser shared by every
 * subcommand, the plotting through gnuplot, and the subcommands themselves. */
#ifndef CDEVS_CLI_H
#define CDEVS_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "cdevs/cdevs.h"

/* Exit statuses, the same for every subcommand (documented in --help and cdevs.1). */
enum {
  CLI_OK = 0,          /* done */
  CLI_FAIL = 1,        /* the model or the run failed, or its results could not be written */
  CLI_USAGE = 2,       /* bad command line: unknown option, bad value, missing argument */
  CLI_INTERRUPTED = 130 /* stopped by SIGINT, SIGTERM or SIGHUP; results kept up to there */
};

/* One option of a subcommand: --name, with a value shown as `arg` (NULL: a flag). */
typedef struct cli_opt {
  const char *name;
  const char *arg;
  const char *help;
} cli_opt;

typedef struct cli_cmd {
  const char *name;    /* as typed: "run", "example flyback" */
  const char *args;    /* the positional arguments, for the usage line ("" if none) */
  const char *about;   /* what it does, one or a few lines */
  const cli_opt *opts; /* ended by {NULL, NULL, NULL} */
} cli_cmd;

#define CLI_MAX_OPTS 24

typedef struct cli_parser {
  const cli_cmd *cmd;
  int argc;
  char **argv; /* argv[0] is the subcommand's last word */
  struct option lo[CLI_MAX_OPTS + 2];
  const cli_opt *opt; /* the option just parsed */
  const char *val;    /* its value, or NULL for a flag */
} cli_parser;

enum { CLI_END = -1, CLI_HELP = -2, CLI_ERROR = -3 };

/* Starts parsing argv (argv[0] is the subcommand's name, skipped). */
void cli_parse_begin(cli_parser *p, const cli_cmd *cmd, int argc, char **argv);
/* The next option: 0 with p->opt and p->val set; CLI_END when only positional
 * arguments remain (cli_positional gives them); CLI_HELP after printing the help to
 * stdout; CLI_ERROR after printing why to stderr. */
int cli_parse_next(cli_parser *p);
/* Is the option just parsed --name? */
int cli_is(const cli_parser *p, const char *name);
/* The positional arguments left once cli_parse_next returned CLI_END. */
int cli_positional(const cli_parser *p, char ***args);
/* "cdevs CMD: --opt needs NEED, got 'VALUE'" on stderr; returns CLI_USAGE. */
int cli_bad_value(const cli_parser *p, const char *need);
/* The status for a CLI_HELP or CLI_ERROR outcome of cli_parse_next. */
int cli_parse_status(int outcome);
void cli_help(const cli_cmd *cmd, FILE *f);

int cli_parse_double(const char *s, double *out);
int cli_parse_u32(const char *s, uint32_t *out);
double cli_now(void);
long cli_peak_rss_kb(void);
/* The one-line summary of a kernel run (events, transitions by kind, wall time). */
void cli_summary(cdevs_sim *sim, double wall);

/* ---- plotting (plot.c) ------------------------------------------------------------ */

/* 0 if gnuplot can be run; otherwise prints how to get it (as cdevs CMD) and returns -1. */
int cli_plot_available(const char *cmd);
/*
 * Runs gnuplot on `script` without a shell: the script goes to gnuplot's standard
 * input, and args[0..nargs-1] become its string variables ARG1, ARG2, … (gnuplot -c).
 * File names and titles reach gnuplot this way only, as values, never as script text,
 * so no name can close a quote and add a command. The script must come from the
 * program, never from the user. 0 if gnuplot succeeded.
 */
int cli_plot_run(const char *script, const char *const *args, int nargs);
/* The gnuplot terminal for a plot file: "pngcairo" for .png, else "svg". */
const char *cli_plot_terminal(const char *out);

/* ---- subcommands ------------------------------------------------------------------- */

int cli_run(int argc, char **argv);
/* Stop signals (SIGINT, SIGTERM, SIGHUP) end the run of sim at its current instant
 * instead of the process; cli_stop_signal says which came (0: none). */
void cli_catch_stop_signals(cdevs_sim *sim);
int cli_stop_signal(void);
const char *cli_signal_name(int sig);
int cli_check(int argc, char **argv);
int cli_example(int argc, char **argv);
int cli_devstone(int argc, char **argv);
int cli_bench(int argc, char **argv);
int cli_list_blocks(int argc, char **argv);
int cli_graph(int argc, char **argv); /* graph_cmd.c */
extern const cli_cmd cli_graph_cmd;

extern const cli_cmd cli_run_cmd, cli_check_cmd, cli_flyback_cmd, cli_efp_cmd, cli_devstone_cmd,
    cli_bench_cmd, cli_list_blocks_cmd;

/* A command that has written everything may leave its models to the system at exit:
 * tearing down a DEVStone tree of 10^5 models (its nodes, couplings and routes) takes
 * 10-20 ms nobody waits for. Sanitized builds tear down, so that their leak checks
 * see every block freed. */
#if defined(__SANITIZE_ADDRESS__)
#define CLI_TEARDOWN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CLI_TEARDOWN 1
#endif
#endif
#ifndef CLI_TEARDOWN
#define CLI_TEARDOWN 0
#endif

#endif
