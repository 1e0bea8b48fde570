/* SPDX-License-Identifier: MIT */
/* cdevs run for models with process blocks: the run's cdevs_proc (seed, replication,
 * warm-up), Arena's report at the end, and --reps K replications, on --jobs J worker
 * processes and under mpirun on its ranks (reps.c), merged in replication order (the
 * same bytes for any J and any number of ranks). */
#define _POSIX_C_SOURCE 200809L /* strdup */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "proc_run.h"
#include "ranks.h"

cdevs_proc *cli_proc_world(const cli_proc_opts *o, const cdevs_mo_experiment *e, uint64_t replication) {
  cdevs_proc_opts po = cdevs_proc_opts_default();
  cdevs_rng_package_seed(o->seed, po.seed);
  po.replication = replication;
  po.start = e->start;
  po.warmup = o->warmup;
  po.span = e->stop - e->start;
  po.skip_levels = 1; /* the model file is one coupled model under the root: blocks are named as in the file */
  cdevs_proc *w = cdevs_proc_new(NULL, &po);
  if (!w) fprintf(stderr, "cdevs run: out of memory for the process elements\n");
  return w;
}

/* ---- One replication's statistics, as exact text ------------------------------------ */

/* A statistic of one replication: what cdevs_proc_stat says (parsed back from a
 * worker's text). Its names are the first replication read's: every replication of a
 * model keeps the same statistics in the same order (checked when read). */
typedef struct rep_stat {
  const char *category, *owner, *name;
  int kind;
  cdevs_stat_summary s;
  double mser5;
} rep_stat;

typedef struct rep {
  int done; /* 1: ran to the stop time */
  int owns; /* its statistics' names are its own copies (the first read) */
  uint32_t n;
  rep_stat *st;
} rep;

/* Names hold no tab or newline (they are block paths and type names); if one did, it
 * is written with a space, so the text stays parseable. */
static void put_name(FILE *f, const char *s) {
  for (; *s; s++) fputc(*s == '\t' || *s == '\n' ? ' ' : *s, f);
}

/* "R r n" then n lines "kind avg hw status min max final stddev count batches mser\tcat\towner\tname",
 * the numbers as hexadecimal floating point (exact). */
static void rep_write(FILE *f, cdevs_proc *w, uint64_t r, double t_end) {
  size_t n = cdevs_proc_stat_count(w);
  fprintf(f, "R %" PRIu64 " %zu\n", r, n);
  for (size_t i = 0; i < n; i++) {
    cdevs_stat_info in;
    cdevs_proc_stat(w, i, t_end, &in);
    fprintf(f, "%d %a %a %d %a %a %a %a %" PRIu64 " %d %a\t", in.kind, in.s.avg, in.s.half_width, in.s.hw_status,
            in.s.min, in.s.max, in.s.final, in.s.stddev, in.s.count, in.s.batches, in.mser5);
    put_name(f, in.category);
    fputc('\t', f);
    put_name(f, in.owner);
    fputc('\t', f);
    put_name(f, in.name);
    fputc('\n', f);
  }
}

static void rep_free(rep *r) {
  for (uint32_t i = 0; r->owns && r->st && i < r->n; i++)
    free((char *)r->st[i].category), free((char *)r->st[i].owner), free((char *)r->st[i].name);
  free(r->st);
  r->st = NULL, r->n = 0, r->done = 0, r->owns = 0;
}

/* The text up to `end` (ended there), p moved past it; NULL if there is none. */
static char *field(char **p, char end) {
  char *s = *p, *e = strchr(s, end);
  if (!e) return NULL;
  *e = 0;
  *p = e + 1;
  return s;
}

/* A name of statistic i: the reference's if there is one (and it must be the same),
 * else a copy. 0, or -1. */
static int name_of(const char **dst, const char *text, const rep *ref, uint32_t i, size_t which) {
  if (!text) return -1;
  if (!ref) return (*dst = strdup(text)) ? 0 : -1;
  const rep_stat *r = &ref->st[i];
  const char *want = which == 0 ? r->category : which == 1 ? r->owner : r->name;
  return strcmp(want, text) ? -1 : (*dst = want, 0);
}

/* Parses text (NUL-terminated, modified) into reps[0..k): 0, or -1 if it is not what
 * rep_write wrote, or a replication kept other statistics than the first read (*ref,
 * set to it). */
static int rep_parse(char *text, rep *reps, uint64_t k, rep **ref) {
  char *p = text;
  while (*p) {
    /* (not sscanf: it measures the whole rest of the text at each call, which made
       reading 10^5 replications quadratic) */
    char *e;
    if (p[0] != 'R' || p[1] != ' ') return -1;
    unsigned long long r = strtoull(p + 2, &e, 10), n;
    if (e == p + 2 || *e != ' ') return -1;
    p = e + 1;
    n = strtoull(p, &e, 10);
    if (e == p || *e != '\n' || r >= k || reps[r].done || n > 1u << 24) return -1;
    p = e + 1;
    rep *rp = &reps[r];
    if (*ref && n != (*ref)->n) return -1;
    rp->st = calloc(n ? n : 1, sizeof *rp->st);
    if (!rp->st) return -1;
    rp->n = (uint32_t)n;
    rp->owns = !*ref;
    for (size_t i = 0; i < n; i++) {
      rep_stat *s = &rp->st[i];
      char *tab = strchr(p, '\t');
      if (!tab) return -1;
      *tab = 0;
      int hs, nb;
      uint64_t cnt;
      if (sscanf(p, "%d %la %la %d %la %la %la %la %" SCNu64 " %d %la", &s->kind, &s->s.avg, &s->s.half_width, &hs,
                 &s->s.min, &s->s.max, &s->s.final, &s->s.stddev, &cnt, &nb, &s->mser5) != 11)
        return -1;
      if (s->kind < 0 || s->kind > CDEVS_STAT_TIME || hs < 0 || hs > 2) return -1;
      s->s.hw_status = hs, s->s.count = cnt, s->s.batches = nb;
      p = tab + 1;
      if (name_of(&s->category, field(&p, '\t'), *ref, (uint32_t)i, 0) ||
          name_of(&s->owner, field(&p, '\t'), *ref, (uint32_t)i, 1) ||
          name_of(&s->name, field(&p, '\n'), *ref, (uint32_t)i, 2))
        return -1;
    }
    rp->done = 1;
    if (!*ref) *ref = rp;
  }
  return 0;
}

/* ---- The report of many replications ----------------------------------------------- */

static const char *const kind_names[] = {"count", "tally", "time"};
static const char *const hw_names[] = {"ok", "insufficient", "correlated"};

/* The replications that ran, in order, and statistic i's averages over them. */
static cli_across across_reps(const rep *reps, const uint64_t *done, size_t nd, uint32_t i, double *buf) {
  for (size_t k = 0; k < nd; k++) buf[k] = reps[done[k]].st[i].s.avg;
  return cli_across_values(buf, nd);
}

static int write_report_file(const char *path, const cli_proc_opts *o, const cdevs_mo_experiment *e,
                             const rep *reps, const uint64_t *done, size_t nd, double t_end) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "cdevs run: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  const char *dot = strrchr(path, '.');
  int json = dot && !strcmp(dot, ".json");
  uint32_t n = nd ? reps[done[0]].n : 0;
  double *buf = malloc((nd ? nd : 1) * sizeof *buf);
  if (!buf) {
    fclose(f);
    return -1;
  }
  if (json) {
    fprintf(f, "{\n  \"start\": ");
    cli_json_num(f, e->start);
    fprintf(f, ",\n  \"stop\": ");
    cli_json_num(f, t_end);
    fprintf(f, ",\n  \"warmup\": ");
    cli_json_num(f, o->warmup);
    fprintf(f, ",\n  \"seed\": %" PRIu64 ",\n  \"replications\": [", o->seed);
    for (size_t k = 0; k < nd; k++) fprintf(f, "%s%" PRIu64, k ? ", " : "", done[k] + 1);
    fprintf(f, "],\n  \"statistics\": [");
    for (uint32_t i = 0; i < n; i++) {
      const rep_stat *s0 = &reps[done[0]].st[i];
      cli_across a = across_reps(reps, done, nd, i, buf);
      fprintf(f, "%s\n    {\"category\": ", i ? "," : "");
      cli_json_text(f, s0->category);
      fprintf(f, ", \"owner\": ");
      cli_json_text(f, s0->owner);
      fprintf(f, ", \"name\": ");
      cli_json_text(f, s0->name);
      fprintf(f, ", \"kind\": \"%s\",\n     ", kind_names[s0->kind]);
      cli_json_across(f, a);
      fprintf(f, ",\n     \"runs\": [");
      for (size_t k = 0; k < nd; k++) {
        const rep_stat *s = &reps[done[k]].st[i];
        fprintf(f, "%s{\"avg\": ", k ? ", " : "");
        cli_json_num(f, s->s.avg);
        fprintf(f, ", \"half_width\": ");
        cli_json_num(f, s->s.hw_status == CDEVS_HW_OK ? s->s.half_width : NAN);
        fprintf(f, ", \"half_width_status\": \"%s\", \"min\": ", hw_names[s->s.hw_status]);
        cli_json_num(f, s->s.min);
        fprintf(f, ", \"max\": ");
        cli_json_num(f, s->s.max);
        fprintf(f, ", \"final\": ");
        cli_json_num(f, s->s.final);
        fprintf(f, ", \"count\": %" PRIu64 "}", s->s.count);
      }
      fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
  } else {
    fprintf(f, "replication,category,owner,name,kind,avg,half_width,min,max,final,count\n");
    for (size_t k = 0; k < nd; k++)
      for (uint32_t i = 0; i < n; i++) {
        const rep_stat *s = &reps[done[k]].st[i];
        fprintf(f, "%" PRIu64 ",%s,", done[k] + 1, s->category);
        cli_csv_text(f, s->owner);
        fprintf(f, ",%s,%s,", s->name, kind_names[s->kind]);
        cli_csv_num(f, s->s.avg);
        fputc(',', f);
        if (s->s.hw_status == CDEVS_HW_OK) cli_csv_num(f, s->s.half_width);
        fputc(',', f);
        cli_csv_num(f, s->s.min);
        fputc(',', f);
        cli_csv_num(f, s->s.max);
        fputc(',', f);
        cli_csv_num(f, s->s.final);
        fprintf(f, ",%" PRIu64 "\n", s->s.count);
      }
    /* Across the replications: the mean of their averages, its half-width, their
     * extremes, and how many there were. */
    for (uint32_t i = 0; nd > 1 && i < n; i++) {
      const rep_stat *s0 = &reps[done[0]].st[i];
      cli_across a = across_reps(reps, done, nd, i, buf);
      fprintf(f, "all,%s,", s0->category);
      cli_csv_text(f, s0->owner);
      fprintf(f, ",%s,%s,", s0->name, kind_names[s0->kind]);
      cli_csv_num(f, a.mean);
      fputc(',', f);
      cli_csv_num(f, a.hw);
      fputc(',', f);
      cli_csv_num(f, a.min);
      fputc(',', f);
      cli_csv_num(f, a.max);
      fprintf(f, ",,%zu\n", nd);
    }
  }
  free(buf);
  if (fclose(f)) {
    fprintf(stderr, "cdevs run: writing %s failed: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* The text report across replications, on f. */
static void report_across(FILE *f, const rep *reps, const uint64_t *done, size_t nd, uint64_t k, double t_end,
                          const cli_proc_opts *o) {
  const char *const *order = cdevs_proc_categories;
  uint32_t n = reps[done[0]].n;
  double *buf = malloc(nd * sizeof *buf);
  if (!buf) return;
  fprintf(f, "Process statistics over %zu replication%s", nd, nd == 1 ? "" : "s");
  if (nd < k) fprintf(f, " (of %" PRIu64 " asked)", k);
  fprintf(f, " to t = %.10g, seed %" PRIu64, t_end, o->seed);
  if (o->warmup > 0) fprintf(f, ", warm-up %.10g", o->warmup);
  fprintf(f, ":\nthe mean of the replications' averages with its 95%% half-width (Student t, %zu df)\n",
          nd > 1 ? nd - 1 : 0);
  for (size_t c = 0; order[c]; c++) {
    int header = 0;
    for (uint32_t i = 0; i < n; i++) {
      const rep_stat *s0 = &reps[done[0]].st[i];
      if (strcmp(s0->category, order[c])) continue;
      if (!header) {
        fprintf(f, "%s\n  %-34s %12s %12s %12s %12s\n", order[c], "statistic", "mean", "half width", "minimum",
                "maximum");
        header = 1;
      }
      cli_across a = across_reps(reps, done, nd, i, buf);
      char name[160], hw[32];
      snprintf(name, sizeof name, "%s.%s", s0->owner, s0->name);
      if (!isfinite(a.mean)) { /* no observation in some replication (an empty tally) */
        fprintf(f, "  %-34s %12s\n", name, "(no observations)");
        continue;
      }
      if (isfinite(a.hw)) snprintf(hw, sizeof hw, "%.6g", a.hw);
      else snprintf(hw, sizeof hw, "%s", nd < 2 ? "(one run)" : "-");
      fprintf(f, "  %-34s %12.6g %12s %12.6g %12.6g\n", name, a.mean, hw, a.min, a.max);
    }
  }
  free(buf);
}

/* ---- Running replications ---------------------------------------------------------- */

typedef struct proc_reps {
  const cli_model *m;
  cdevs_mo *mo; /* the model as compiled for replication 0 */
  const cdevs_mo_experiment *e;
  const cli_proc_opts *o;
} proc_reps;

/* Replication r to the stop time, its statistics written to out: 0; 1 when a stop
 * signal came (nothing written); -1 after saying what failed. A model that draws
 * parameters is compiled again with the replication's. */
static int run_rep(void *ud, uint64_t r, FILE *out) {
  const proc_reps *pr = ud;
  const cdevs_mo_experiment *e = pr->e;
  cdevs_mo *mo = pr->mo;
  if (r > 0 && cdevs_mo_random_count(mo) && !(mo = cli_model_load(pr->m, r, stderr))) {
    fprintf(stderr, "cdevs run: replication %" PRIu64 ": the model does not compile with its parameters drawn\n",
            r + 1);
    return -1;
  }
  cdevs_proc *w = cli_proc_world(pr->o, e, r);
  if (!w) {
    if (mo != pr->mo) cdevs_mo_free(mo);
    return -1;
  }
  cdevs_mo_set_context(mo, "proc", w);
  cdevs_model *root = cdevs_root_new(NULL, "run");
  (void)cdevs_mo_add(root, "model", mo, e->method, e->tol, e->abstol);
  cdevs_sim_opts so = cdevs_sim_opts_default();
  so.t0 = e->start;
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, &so, &sim);
  int rc = 0;
  if (st) {
    fprintf(stderr, "cdevs run: replication %" PRIu64 ": %s\n", r + 1,
            cdevs_model_errmsg(root)[0] ? cdevs_model_errmsg(root) : cdevs_strerror(st));
    rc = -1;
  } else {
    cli_catch_stop_signals(sim);
    st = cdevs_sim_run(sim, e->stop);
    char dl[512];
    if (cli_stop_signal()) {
      rc = 1;
    } else if (st) {
      fprintf(stderr, "cdevs run: replication %" PRIu64 ": %s\n", r + 1,
              cdevs_sim_errmsg(sim)[0] ? cdevs_sim_errmsg(sim) : cdevs_strerror(st));
      rc = -1;
    } else if (isinf(cdevs_sim_next_time(sim)) && cdevs_proc_deadlock(w, dl, sizeof dl)) {
      fprintf(stderr, "cdevs run: replication %" PRIu64 ": deadlock: nothing is scheduled, yet %s\n", r + 1, dl);
      rc = -1;
    } else {
      rep_write(out, w, r, e->stop);
    }
    cli_catch_stop_signals(NULL);
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_mo_set_context(mo, "proc", NULL);
  cdevs_proc_free(w);
  if (mo != pr->mo) cdevs_mo_free(mo);
  return rc;
}

int cli_proc_reps(const cli_model *m, cdevs_mo *mo, const cdevs_mo_experiment *e, const cli_proc_opts *o) {
  uint64_t k = o->reps;
  proc_reps pr = {m, mo, e, o};
  double t0 = cli_now();
  char *text = NULL;
  unsigned jobs = 0;
  int rc = cli_reps_run(k, o->jobs, run_rep, &pr, &text, &jobs);
  if (cli_ranks_rank() > 0) { /* rank 0 reports */
    free(text);
    return rc;
  }
  rep *reps = calloc(k, sizeof *reps);
  if (!reps) {
    free(text);
    fprintf(stderr, "cdevs run: out of memory for %" PRIu64 " replications\n", k);
    return CLI_FAIL;
  }
  rep *ref = NULL;
  if (text && rep_parse(text, reps, k, &ref)) {
    fprintf(stderr, "cdevs run: a worker's statistics could not be read back, or differ from another's\n");
    rc = CLI_FAIL;
  }
  free(text); /* read: the statistics are in reps */
  double wall = cli_now() - t0;
  /* The replications that ran, in order. */
  uint64_t *done = malloc(k * sizeof *done);
  size_t nd = 0;
  for (uint64_t r = 0; done && r < k; r++)
    if (reps[r].done) done[nd++] = r;
  if (done && nd) {
    if (!o->quiet || rc != CLI_OK) report_across(stderr, reps, done, nd, k, e->stop, o);
    if (o->report && write_report_file(o->report, o, e, reps, done, nd, e->stop)) rc = CLI_FAIL;
    else if (o->report && !o->quiet) fprintf(stderr, "wrote %s\n", o->report);
  }
  if (rc == CLI_OK && nd < k) { /* every replication ran, or the run says why not */
    fprintf(stderr, "cdevs run: only %zu of %" PRIu64 " replications came back from the workers\n", nd, k);
    rc = CLI_FAIL;
  }
  if (rc == CLI_INTERRUPTED)
    fprintf(stderr, "cdevs run: interrupted (%s): %zu of %" PRIu64 " replications ran and are reported\n",
            cli_signal_name(cli_stop_signal() ? cli_stop_signal() : SIGINT), nd, k);
  cli_reps_summary(m->path, nd, jobs, wall);
  for (uint64_t r = 0; r < k; r++) /* the names' owner last: the others borrow them */
    if (&reps[r] != ref) rep_free(&reps[r]);
  if (ref) rep_free(ref);
  free(reps), free(done);
  return rc;
}

/* ---- A single run ----------------------------------------------------------------- */

int cli_proc_finish(cdevs_proc *w, const cdevs_mo_experiment *e, const cli_proc_opts *o, double t_end, int passive) {
  int rc = CLI_OK;
  char dl[512];
  if (passive && cdevs_proc_deadlock(w, dl, sizeof dl)) {
    fprintf(stderr, "cdevs run: deadlock at t=%.10g: nothing is scheduled, yet %s\n", t_end, dl);
    rc = CLI_FAIL;
  }
  if (!o->quiet || rc) cdevs_proc_report(w, t_end, stderr);
  /* MSER-5's truncation point, when no warm-up was asked for: the latest of the tallies'. */
  double sug = -INFINITY;
  char from[160] = "";
  size_t n = cdevs_proc_stat_count(w);
  for (size_t i = 0; o->warmup == 0 && i < n; i++) {
    cdevs_stat_info in;
    cdevs_proc_stat(w, i, t_end, &in);
    if (in.kind == CDEVS_STAT_TALLY && in.mser5 > sug) {
      sug = in.mser5;
      snprintf(from, sizeof from, "%s.%s", in.owner, in.name);
    }
  }
  if (from[0] && isfinite(sug) && !o->quiet)
    fprintf(stderr, "MSER-5 (White 1997) on the tallies suggests --warmup %.6g (from %s)\n", sug - e->start, from);
  if (o->report) {
    /* The run's statistics as one replication, names borrowed from w. */
    rep one = {.done = 1, .n = (uint32_t)n, .st = calloc(n ? n : 1, sizeof *one.st)};
    for (size_t i = 0; one.st && i < n; i++) {
      cdevs_stat_info in;
      cdevs_proc_stat(w, i, t_end, &in);
      one.st[i] = (rep_stat){in.category, in.owner, in.name, in.kind, in.s, in.mser5};
    }
    uint64_t zero = 0;
    if (!one.st || write_report_file(o->report, o, e, &one, &zero, 1, t_end))
      rc = CLI_FAIL;
    else if (!o->quiet)
      fprintf(stderr, "wrote %s\n", o->report);
    free(one.st);
  }
  return rc;
}

/* ---- Trajectories of statistics (--vars serve.Queue.NQ,System.NumberOut) ----------- */

struct cli_proc_trace {
  cdevs_proc *w;
  size_t n;
  size_t *idx;          /* the statistics traced */
  double *latest, *row; /* their values after the last transition seen, and as last written */
  double cur;           /* the instant of the last transition seen */
  double last;          /* the time of the last row written */
  FILE *f;
  cdevs_results_file *rf; /* written beside out under a unique name, put in place at the end */
  char *out;
  cdevs_observer obs;
};

static void trace_row(cli_proc_trace *tr, double t, const double *v) {
  tr->last = t;
  fprintf(tr->f, "%.17g", t);
  for (size_t k = 0; k < tr->n; k++) fprintf(tr->f, ",%.17g", v[k]);
  fputc('\n', tr->f);
}

/* The instant tr->cur is over: its last values, as a step (the values before, then
   after, both at its time) if they changed. */
static void trace_flush(cli_proc_trace *tr) {
  if (!memcmp(tr->latest, tr->row, tr->n * sizeof *tr->row)) return;
  if (tr->last != tr->cur) trace_row(tr, tr->cur, tr->row);
  trace_row(tr, tr->cur, tr->latest);
  memcpy(tr->row, tr->latest, tr->n * sizeof *tr->row);
}

/* After each transition: the values read then are the instant's so far; the first
   transition of a later instant closes the earlier one. */
static void trace_transition(void *ud, double t, uint32_t atomic, cdevs_transition kind, size_t bag, double tn) {
  (void)atomic, (void)kind, (void)bag, (void)tn;
  cli_proc_trace *tr = ud;
  if (t != tr->cur) {
    trace_flush(tr);
    tr->cur = t;
  }
  for (size_t k = 0; k < tr->n; k++) tr->latest[k] = cdevs_proc_stat_value(tr->w, tr->idx[k]);
}

static void trace_free(cli_proc_trace *tr) {
  if (!tr) return;
  if (tr->rf) (void)cdevs_results_file_close(tr->rf, 0);
  free(tr->idx), free(tr->latest), free(tr->row), free(tr->out);
  free(tr);
}

/* Statistic "owner.name" (the name is after the last dot): its index, or -1. */
static long stat_named(const cdevs_proc *w, const char *full) {
  const char *dot = strrchr(full, '.');
  if (!dot || dot == full) return -1;
  char owner[256];
  size_t len = (size_t)(dot - full);
  if (len >= sizeof owner) return -1;
  memcpy(owner, full, len);
  owner[len] = 0;
  return cdevs_proc_stat_find(w, owner, dot + 1);
}

cli_proc_trace *cli_proc_trace_open(cdevs_proc *w, cdevs_sim *sim, const char *vars, const char *out, double t0) {
  cli_proc_trace *tr = calloc(1, sizeof *tr);
  char *list = strdup(vars);
  size_t cap = 1;
  for (const char *c = vars; *c; c++) cap += *c == ',';
  if (!tr || !list || !(tr->idx = calloc(cap, sizeof *tr->idx)) || !(tr->latest = calloc(cap, sizeof *tr->latest)) ||
      !(tr->row = calloc(cap, sizeof *tr->row)) || !(tr->out = strdup(out))) {
    fprintf(stderr, "cdevs run: out of memory\n");
    goto fail;
  }
  tr->w = w;
  for (char *save = NULL, *name = strtok_r(list, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
    long i = stat_named(w, name);
    cdevs_stat_info in;
    if (i >= 0) cdevs_proc_stat(w, (size_t)i, t0, &in);
    if (i < 0 || in.kind == CDEVS_STAT_TALLY) {
      fprintf(stderr, "cdevs run: --vars: '%s' is %s; a process model's trajectories are those of its counts and "
                      "time-persistent statistics (owner.name as the report prints them:", name,
              i < 0 ? "neither a variable of the model nor a statistic" : "a tally (observations, not a trajectory)");
      size_t shown = 0;
      for (size_t k = 0; k < cdevs_proc_stat_count(w) && shown < 6; k++) {
        cdevs_proc_stat(w, k, t0, &in);
        if (in.kind == CDEVS_STAT_TALLY) continue;
        fprintf(stderr, "%s %s.%s", shown++ ? "," : "", in.owner, in.name);
      }
      fprintf(stderr, ", ...)\n");
      goto fail;
    }
    tr->idx[tr->n++] = (size_t)i;
  }
  if (cdevs_results_file_open(out, &tr->rf)) {
    fprintf(stderr, "cdevs run: cannot write %s: %s\n", out, strerror(errno));
    goto fail;
  }
  tr->f = cdevs_results_file_stream(tr->rf);
  fprintf(tr->f, "time");
  for (size_t k = 0; k < tr->n; k++) {
    cdevs_stat_info in;
    cdevs_proc_stat(w, tr->idx[k], t0, &in);
    fprintf(tr->f, ",%s.%s", in.owner, in.name);
    tr->row[k] = tr->latest[k] = cdevs_proc_stat_value(w, tr->idx[k]);
  }
  fputc('\n', tr->f);
  trace_row(tr, t0, tr->row);
  tr->cur = t0;
  tr->obs.transition = trace_transition;
  if (cdevs_sim_observe(sim, &tr->obs, tr)) {
    fprintf(stderr, "cdevs run: too many observers\n");
    goto fail;
  }
  free(list);
  return tr;
fail:
  free(list);
  trace_free(tr);
  return NULL;
}

int cli_proc_trace_close(cli_proc_trace *tr, cdevs_sim *sim, double t_end) {
  if (!tr) return 0;
  cdevs_sim_unobserve(sim, &tr->obs, tr);
  trace_flush(tr);
  if (t_end > tr->cur) trace_row(tr, t_end, tr->row);
  int bad = cdevs_results_file_close(tr->rf, 1) != CDEVS_OK;
  tr->rf = NULL;
  if (bad) fprintf(stderr, "cdevs run: writing %s failed: %s\n", tr->out, strerror(errno));
  trace_free(tr);
  return bad ? -1 : 0;
}
