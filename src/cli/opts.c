/* SPDX-License-Identifier: MIT */
/* The option parser every subcommand shares (getopt_long over the subcommand's table,
 * which also writes its --help), and small helpers of the command. */
#define _GNU_SOURCE /* getopt_long */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "cli.h"

void cli_help(const cli_cmd *c, FILE *f) {
  fprintf(f, "usage: cdevs %s [options]%s%s\n\n%s\n\noptions:\n", c->name, c->args[0] ? " " : "",
          c->args, c->about);
  for (const cli_opt *o = c->opts; o->name; o++) {
    char lhs[64];
    /* An optional value is written "[=SPEED]" and follows the name directly. */
    snprintf(lhs, sizeof lhs, "--%s%s%s", o->name, o->arg && o->arg[0] != '[' ? " " : "", o->arg ? o->arg : "");
    fprintf(f, "  %-24s %s\n", lhs, o->help);
  }
  fprintf(f, "  %-24s %s\n", "-h, --help", "this text");
  fprintf(f,
          "\nexit status: 0 done; 1 the model or the run failed, or its results could not be\n"
          "written; 2 bad command line; 130 interrupted (SIGINT, SIGTERM, SIGHUP), the\n"
          "results kept up to the instant reached.\n");
}

void cli_parse_begin(cli_parser *p, const cli_cmd *cmd, int argc, char **argv) {
  memset(p, 0, sizeof *p);
  p->cmd = cmd;
  p->argc = argc;
  p->argv = argv;
  int n = 0;
  for (const cli_opt *o = cmd->opts; o->name && n < CLI_MAX_OPTS; o++, n++)
    p->lo[n] = (struct option){o->name, !o->arg ? no_argument : o->arg[0] == '[' ? optional_argument : required_argument,
                               NULL, 1000 + n};
  if (n == CLI_MAX_OPTS && cmd->opts[n].name) { /* a table longer than the parser: a programmer's error */
    fprintf(stderr, "cdevs %s: more than %d options (raise CLI_MAX_OPTS in cli.h)\n", cmd->name, CLI_MAX_OPTS);
    abort();
  }
  p->lo[n++] = (struct option){"help", no_argument, NULL, 'h'};
  p->lo[n] = (struct option){NULL, 0, NULL, 0};
  opterr = 0;
  optind = 0; /* glibc: start afresh */
}

int cli_parse_next(cli_parser *p) {
  int c = getopt_long(p->argc, p->argv, ":h", p->lo, NULL);
  if (c == -1) return CLI_END;
  if (c == 'h') {
    cli_help(p->cmd, stdout);
    return CLI_HELP;
  }
  if (c == ':') {
    fprintf(stderr, "cdevs %s: %s needs a value (see cdevs %s --help)\n", p->cmd->name,
            p->argv[optind - 1], p->cmd->name);
    return CLI_ERROR;
  }
  if (c == '?') {
    const char *a = optopt ? NULL : p->argv[optind - 1];
    if (a)
      fprintf(stderr, "cdevs %s: unknown option '%s' (see cdevs %s --help)\n", p->cmd->name, a,
              p->cmd->name);
    else
      fprintf(stderr, "cdevs %s: unknown option '-%c' (see cdevs %s --help)\n", p->cmd->name, optopt,
              p->cmd->name);
    return CLI_ERROR;
  }
  p->opt = &p->cmd->opts[c - 1000];
  p->val = optarg;
  return 0;
}

int cli_parse_status(int outcome) { return outcome == CLI_HELP ? CLI_OK : CLI_USAGE; }

int cli_is(const cli_parser *p, const char *name) { return strcmp(p->opt->name, name) == 0; }

int cli_positional(const cli_parser *p, char ***args) {
  *args = p->argv + optind;
  return p->argc - optind;
}

int cli_bad_value(const cli_parser *p, const char *need) {
  fprintf(stderr, "cdevs %s: --%s needs %s, got '%s'\n", p->cmd->name, p->opt->name, need,
          p->val ? p->val : "");
  return CLI_USAGE;
}

int cli_parse_double(const char *s, double *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

int cli_parse_u32(const char *s, uint32_t *out) {
  if (!s || !*s || *s == '-') return -1;
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (*end || errno || v > UINT32_MAX) return -1;
  *out = (uint32_t)v;
  return 0;
}

double cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

long cli_peak_rss_kb(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

void cli_summary(cdevs_sim *sim, double wall) {
  cdevs_stats st;
  cdevs_sim_stats(sim, &st);
  uint64_t trans = st.internals + st.externals + st.confluents;
  fprintf(stderr,
          "summary: atomics=%u instants=%llu transitions=%llu internal=%llu external=%llu "
          "confluent=%llu outputs=%llu wall_s=%.3f events_per_s=%.0f\n",
          st.atomics, (unsigned long long)st.instants, (unsigned long long)trans,
          (unsigned long long)st.internals, (unsigned long long)st.externals,
          (unsigned long long)st.confluents, (unsigned long long)st.outputs, wall,
          wall > 0 ? (double)trans / wall : 0.0);
}
