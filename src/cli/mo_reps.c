/* SPDX-License-Identifier: MIT */
/* cdevs run --reps for equation models whose parameters are drawn from distributions
 * (`parameter Real k = Uniform(1, 2);`): each replication compiled with its parameters
 * drawn on its substream and run to the stop time; each output's value there and its
 * minimum and maximum over the run, and the parameters drawn, reported as the mean
 * over the replications with its Student-t 95% half-width, every replication's values
 * in the report file. Records travel as exact hexadecimal text (reps.c), so the report
 * is the same bytes for any number of workers and ranks. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "proc_run.h"
#include "ranks.h"
#include "reps.h"

/* ---- One replication: the outputs followed through the run ------------------------- */

/* An output's trajectory: the polynomial of its last event (from t0), and the
 * extremes of the trajectory up to that event. */
typedef struct track {
  double t0;
  double c[CDEVS_TAYLOR_MAX + 1];
  int order;
  int seen;
  double min, max;
} track;

/* An output port of the run and the output it carries (sorted by atomic, port). */
typedef struct port_key {
  uint32_t atomic;
  int port;
  size_t out;
} port_key;

typedef struct follow {
  track *tr;
  port_key *keys;
  size_t n;
} follow;

static double poly(const double *c, int order, double tau) {
  double v = c[order];
  for (int i = order - 1; i >= 0; i--) v = v * tau + c[i];
  return v;
}

static void extreme(track *tr, double v) {
  if (v < tr->min) tr->min = v;
  if (v > tr->max) tr->max = v;
}

/* The extremes of tr's polynomial over [0, h] (its ends and where its slope is 0)
 * into tr->min and tr->max. */
static void segment(track *tr, double h) {
  const double *c = tr->c;
  double at[4] = {0.0, h};
  int n = 2;
  if (tr->order >= 3 && c[3] != 0.0) { /* 3c3·τ² + 2c2·τ + c1 = 0 */
    double a = 3.0 * c[3], b = 2.0 * c[2], d = b * b - 4.0 * a * c[1];
    if (d >= 0.0) {
      double q = -0.5 * (b + copysign(sqrt(d), b));
      at[n++] = q / a;
      if (q != 0.0) at[n++] = c[1] / q;
    }
  } else if (tr->order >= 2 && c[2] != 0.0) {
    at[n++] = -c[1] / (2.0 * c[2]);
  }
  for (int i = 0; i < n; i++)
    if (at[i] >= 0.0 && at[i] <= h) extreme(tr, poly(c, tr->order, at[i]));
}

static int key_cmp(const void *a, const void *b) {
  const port_key *x = a, *y = b;
  if (x->atomic != y->atomic) return x->atomic < y->atomic ? -1 : 1;
  if (x->port != y->port) return x->port < y->port ? -1 : 1;
  return x->out < y->out ? -1 : x->out > y->out;
}

static void on_output(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  follow *f = ud;
  size_t lo = 0, hi = f->n; /* the first key not below (atomic, port) */
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    const port_key *k = &f->keys[mid];
    if (k->atomic < atomic || (k->atomic == atomic && k->port < port)) lo = mid + 1;
    else hi = mid;
  }
  for (; lo < f->n && f->keys[lo].atomic == atomic && f->keys[lo].port == port; lo++) {
    track *tr = &f->tr[f->keys[lo].out];
    double c[CDEVS_TAYLOR_MAX + 1] = {0};
    int order = 0;
    if (v->kind == CDEVS_TAYLOR) {
      order = v->order > CDEVS_TAYLOR_MAX ? CDEVS_TAYLOR_MAX : v->order;
      memcpy(c, v->u.taylor, sizeof c);
    } else if (v->kind == CDEVS_REAL) {
      c[0] = v->u.real;
    } else if (v->kind == CDEVS_INT) {
      c[0] = (double)v->u.integer;
    } else {
      continue;
    }
    if (tr->seen) segment(tr, t - tr->t0);
    memcpy(tr->c, c, sizeof c);
    tr->order = order, tr->t0 = t, tr->seen = 1;
  }
}

static const cdevs_observer follow_ops = {.output = on_output};

typedef struct mo_reps {
  const cli_model *m;
  cdevs_mo *mo; /* compiled for replication 0: the names, and that replication */
  const cdevs_mo_experiment *e;
  size_t np, nv; /* parameters drawn, outputs */
} mo_reps;

/* "R r np nv", then the np parameters' values, then per output "final min max", the
 * numbers as hexadecimal floating point (exact). */
static void rec_write(FILE *out, uint64_t r, const cdevs_mo *mo, const track *tr, size_t nv, double t_end) {
  size_t np = cdevs_mo_random_count(mo);
  fprintf(out, "R %" PRIu64 " %zu %zu\n", r, np, nv);
  for (size_t i = 0; i < np; i++) fprintf(out, "%a\n", cdevs_mo_random_value(mo, i));
  for (size_t i = 0; i < nv; i++) {
    double fin = tr[i].seen ? poly(tr[i].c, tr[i].order, t_end - tr[i].t0) : NAN;
    fprintf(out, "%a %a %a\n", fin, tr[i].seen ? tr[i].min : NAN, tr[i].seen ? tr[i].max : NAN);
  }
}

static int run_one(void *ud, uint64_t r, FILE *out) {
  const mo_reps *x = ud;
  const cdevs_mo_experiment *e = x->e;
  cdevs_mo *mo = r == 0 ? x->mo : cli_model_load(x->m, r, stderr);
  if (!mo) {
    fprintf(stderr, "cdevs run: replication %" PRIu64 ": the model does not compile with its parameters drawn\n",
            r + 1);
    return -1;
  }
  int rc = 0;
  size_t nv = cdevs_mo_output_count(mo);
  if (cdevs_mo_random_count(mo) != x->np || nv != x->nv) { /* (the language keeps sizes fixed: never) */
    fprintf(stderr, "cdevs run: replication %" PRIu64 " has other variables than replication 1\n", r + 1);
    if (mo != x->mo) cdevs_mo_free(mo);
    return -1;
  }
  cdevs_model *root = cdevs_root_new(NULL, "run");
  (void)cdevs_mo_add(root, "model", mo, e->method, e->tol, e->abstol);
  cdevs_sim_opts so = cdevs_sim_opts_default();
  so.t0 = e->start;
  cdevs_sim *sim = NULL;
  follow f = {calloc(nv ? nv : 1, sizeof *f.tr), calloc(nv ? nv : 1, sizeof *f.keys), nv};
  cdevs_status st = f.tr && f.keys ? cdevs_sim_new(root, &so, &sim) : CDEVS_ENOMEM;
  for (size_t i = 0; !st && i < nv; i++) {
    const cdevs_model *a;
    int port;
    if (cdevs_mo_output_source(mo, i, &a, &port)) st = CDEVS_EINVAL;
    f.keys[i] = (port_key){st ? 0 : cdevs_sim_atomic_id(sim, a), port, i};
    f.tr[i].min = INFINITY, f.tr[i].max = -INFINITY;
  }
  if (!st) {
    qsort(f.keys, nv, sizeof *f.keys, key_cmp);
    st = cdevs_sim_observe(sim, &follow_ops, &f);
  }
  if (st) {
    const char *why = sim && cdevs_sim_errmsg(sim)[0] ? cdevs_sim_errmsg(sim) : cdevs_model_errmsg(root);
    fprintf(stderr, "cdevs run: replication %" PRIu64 ": %s\n", r + 1, why[0] ? why : cdevs_strerror(st));
    rc = -1;
  } else {
    cli_catch_stop_signals(sim);
    st = cdevs_sim_run(sim, e->stop);
    if (cli_stop_signal()) {
      rc = 1;
    } else if (st) {
      fprintf(stderr, "cdevs run: replication %" PRIu64 ": %s\n", r + 1,
              cdevs_sim_errmsg(sim)[0] ? cdevs_sim_errmsg(sim) : cdevs_strerror(st));
      rc = -1;
    } else {
      for (size_t i = 0; i < nv; i++)
        if (f.tr[i].seen) segment(&f.tr[i], e->stop - f.tr[i].t0);
      rec_write(out, r, mo, f.tr, nv, e->stop);
    }
    cli_catch_stop_signals(NULL);
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  free(f.tr), free(f.keys);
  if (mo != x->mo) cdevs_mo_free(mo);
  return rc;
}

/* ---- The replications together ----------------------------------------------------- */

/* What came back: per replication (done[r]) the parameters par[r·np + i] and the
 * outputs' values val[(r·nv + i)·3 + 0, 1, 2]: final, min, max. */
typedef struct merged {
  size_t np, nv;
  uint64_t k;
  uint8_t *done;
  double *par, *val;
} merged;

/* Reads the records of text (modified) into g: 0, or -1 if they are not what
 * rec_write wrote for this model. */
static int rec_parse(char *text, merged *g) {
  char *p = text, *e;
  while (*p) {
    if (p[0] != 'R' || p[1] != ' ') return -1;
    unsigned long long r = strtoull(p + 2, &e, 10), np, nv;
    if (e == p + 2 || *e != ' ') return -1;
    np = strtoull(p = e + 1, &e, 10);
    if (e == p || *e != ' ') return -1;
    nv = strtoull(p = e + 1, &e, 10);
    if (e == p || *e != '\n' || r >= g->k || g->done[r] || np != g->np || nv != g->nv) return -1;
    p = e + 1;
    for (size_t i = 0; i < g->np; i++) {
      g->par[r * g->np + i] = strtod(p, &e);
      if (e == p || *e != '\n') return -1;
      p = e + 1;
    }
    for (size_t i = 0; i < g->nv; i++)
      for (int j = 0; j < 3; j++) {
        g->val[(r * g->nv + i) * 3 + (size_t)j] = strtod(p, &e);
        if (e == p || *e != (j < 2 ? ' ' : '\n')) return -1;
        p = e + 1;
      }
    g->done[r] = 1;
  }
  return 0;
}


static const char *const what[3] = {"final", "min", "max"};

static void json_across(FILE *f, const char *key, cli_across a) {
  fprintf(f, "\"%s\": {", key);
  cli_json_across(f, a);
  fputc('}', f);
}

/* CSV: "replication,kind,name,final,min,max", a line per replication and parameter
 * (its value in final) or output, then lines "mean" and "half_width" cli_across them.
 * JSON: the same as objects, with the laws and the extremes cli_across replications. */
static int write_report(const char *path, const cdevs_mo *mo, const cdevs_mo_experiment *e, uint64_t seed,
                        const merged *g, const uint64_t *done, size_t nd) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "cdevs run: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  double *buf = malloc((nd ? nd : 1) * sizeof *buf);
  if (!buf) {
    fclose(f);
    fprintf(stderr, "cdevs run: out of memory for the report\n");
    return -1;
  }
  const char *dot = strrchr(path, '.');
  if (dot && !strcmp(dot, ".json")) {
    fprintf(f, "{\n  \"start\": ");
    cli_json_num(f, e->start);
    fprintf(f, ",\n  \"stop\": ");
    cli_json_num(f, e->stop);
    fprintf(f, ",\n  \"seed\": %" PRIu64 ",\n  \"replications\": [", seed);
    for (size_t k = 0; k < nd; k++) fprintf(f, "%s%" PRIu64, k ? ", " : "", done[k] + 1);
    fprintf(f, "],\n  \"parameters\": [");
    for (size_t i = 0; i < g->np; i++) {
      fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
      cli_json_text(f, cdevs_mo_random_name(mo, i));
      fprintf(f, ", \"law\": ");
      cli_json_text(f, cdevs_mo_random_law(mo, i));
      fprintf(f, ", ");
      json_across(f, "value", cli_across_reps(g->par + i, g->np, done, nd, buf));
      fprintf(f, ",\n     \"runs\": [");
      for (size_t k = 0; k < nd; k++) {
        fprintf(f, "%s", k ? ", " : "");
        cli_json_num(f, g->par[done[k] * g->np + i]);
      }
      fprintf(f, "]}");
    }
    fprintf(f, "\n  ],\n  \"variables\": [");
    for (size_t i = 0; i < g->nv; i++) {
      fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
      cli_json_text(f, cdevs_mo_output_name(mo, i));
      for (int j = 0; j < 3; j++) {
        fprintf(f, ",\n     ");
        json_across(f, what[j], cli_across_reps(g->val + i * 3 + (size_t)j, g->nv * 3, done, nd, buf));
      }
      fprintf(f, ",\n     \"runs\": [");
      for (size_t k = 0; k < nd; k++) {
        const double *v = &g->val[(done[k] * g->nv + i) * 3];
        fprintf(f, "%s{\"final\": ", k ? ", " : "");
        cli_json_num(f, v[0]);
        fprintf(f, ", \"min\": ");
        cli_json_num(f, v[1]);
        fprintf(f, ", \"max\": ");
        cli_json_num(f, v[2]);
        fputc('}', f);
      }
      fprintf(f, "]}");
    }
    fprintf(f, "\n  ]\n}\n");
  } else {
    fprintf(f, "replication,kind,name,final,min,max\n");
    for (size_t k = 0; k < nd; k++) {
      for (size_t i = 0; i < g->np; i++) {
        fprintf(f, "%" PRIu64 ",parameter,", done[k] + 1);
        cli_csv_text(f, cdevs_mo_random_name(mo, i));
        fputc(',', f);
        cli_csv_num(f, g->par[done[k] * g->np + i]);
        fprintf(f, ",,\n");
      }
      for (size_t i = 0; i < g->nv; i++) {
        fprintf(f, "%" PRIu64 ",variable,", done[k] + 1);
        cli_csv_text(f, cdevs_mo_output_name(mo, i));
        for (int j = 0; j < 3; j++) {
          fputc(',', f);
          cli_csv_num(f, g->val[(done[k] * g->nv + i) * 3 + (size_t)j]);
        }
        fputc('\n', f);
      }
    }
    /* Across the replications: the mean, and its 95% half-width (empty for one run). */
    for (int row = 0; row < 2; row++) {
      for (size_t i = 0; i < g->np; i++) {
        cli_across a = cli_across_reps(g->par + i, g->np, done, nd, buf);
        fprintf(f, "%s,parameter,", row ? "half_width" : "mean");
        cli_csv_text(f, cdevs_mo_random_name(mo, i));
        fputc(',', f);
        cli_csv_num(f, row ? a.hw : a.mean);
        fprintf(f, ",,\n");
      }
      for (size_t i = 0; i < g->nv; i++) {
        fprintf(f, "%s,variable,", row ? "half_width" : "mean");
        cli_csv_text(f, cdevs_mo_output_name(mo, i));
        for (int j = 0; j < 3; j++) {
          cli_across a = cli_across_reps(g->val + i * 3 + (size_t)j, g->nv * 3, done, nd, buf);
          fputc(',', f);
          cli_csv_num(f, row ? a.hw : a.mean);
        }
        fputc('\n', f);
      }
    }
  }
  free(buf);
  if (fclose(f)) {
    fprintf(stderr, "cdevs run: writing %s failed: %s\n", path, strerror(errno));
    return -1;
  }
  return 0;
}

static void report_line(FILE *f, const char *name, cli_across a, size_t nd) {
  char hw[32];
  if (isfinite(a.hw)) snprintf(hw, sizeof hw, "%.6g", a.hw);
  else snprintf(hw, sizeof hw, "%s", nd < 2 ? "(one run)" : "-");
  if (!isfinite(a.mean)) fprintf(f, "  %-34s %12s\n", name, "(no value)");
  else fprintf(f, "  %-34s %12.6g %12s %12.6g %12.6g\n", name, a.mean, hw, a.min, a.max);
}

static void report_across(FILE *f, const cdevs_mo *mo, const cdevs_mo_experiment *e, uint64_t seed,
                          const merged *g, const uint64_t *done, size_t nd) {
  double *buf = malloc(nd * sizeof *buf);
  if (!buf) return;
  fprintf(f, "Statistics over %zu replication%s", nd, nd == 1 ? "" : "s");
  if (nd < g->k) fprintf(f, " (of %" PRIu64 " asked)", g->k);
  fprintf(f, " to t = %.10g, seed %" PRIu64 " (replication r draws the parameters on substream r):\n"
             "the mean over the replications with its 95%% half-width (Student t, %zu df)\n",
          e->stop, seed, nd > 1 ? nd - 1 : 0);
  static const char *const heads[3] = {"Values at the stop time", "Minimum over each run", "Maximum over each run"};
  char name[160];
  fprintf(f, "%-36s %12s %12s %12s %12s\n", "Parameters drawn", "mean", "half width", "minimum", "maximum");
  for (size_t i = 0; i < g->np; i++) {
    snprintf(name, sizeof name, "%s ~ %s", cdevs_mo_random_name(mo, i), cdevs_mo_random_law(mo, i));
    report_line(f, name, cli_across_reps(g->par + i, g->np, done, nd, buf), nd);
  }
  for (int j = 0; j < 3 && g->nv; j++) {
    fprintf(f, "%s\n", heads[j]);
    for (size_t i = 0; i < g->nv; i++)
      report_line(f, cdevs_mo_output_name(mo, i),
                  cli_across_reps(g->val + i * 3 + (size_t)j, g->nv * 3, done, nd, buf), nd);
  }
  free(buf);
}

int cli_mo_reps(const cli_model *m, cdevs_mo *mo, const cdevs_mo_experiment *e, const cli_proc_opts *o) {
  uint64_t k = o->reps;
  mo_reps x = {m, mo, e, cdevs_mo_random_count(mo), cdevs_mo_output_count(mo)};
  double t0 = cli_now();
  char *text = NULL;
  unsigned jobs = 0;
  int rc = cli_reps_run(k, o->jobs, run_one, &x, &text, &jobs);
  if (cli_ranks_rank() > 0) { /* rank 0 reports */
    free(text);
    return rc;
  }
  merged g = {x.np, x.nv, k, calloc(k, 1), calloc(k * x.np + 1, sizeof(double)),
              calloc(k * x.nv * 3 + 1, sizeof(double))};
  uint64_t *done = malloc(k * sizeof *done);
  if (!g.done || !g.par || !g.val || !done) {
    fprintf(stderr, "cdevs run: out of memory for %" PRIu64 " replications\n", k);
    rc = CLI_FAIL;
  } else if (text && rec_parse(text, &g)) {
    fprintf(stderr, "cdevs run: a worker's records could not be read back\n");
    rc = CLI_FAIL;
  }
  free(text);
  double wall = cli_now() - t0;
  size_t nd = 0;
  for (uint64_t r = 0; done && g.done && r < k; r++)
    if (g.done[r]) done[nd++] = r;
  if (nd) {
    if (!o->quiet || rc != CLI_OK) report_across(stderr, mo, e, m->seed, &g, done, nd);
    if (o->report && write_report(o->report, mo, e, m->seed, &g, done, nd)) rc = CLI_FAIL;
    else if (o->report && !o->quiet) fprintf(stderr, "wrote %s\n", o->report);
  }
  if (rc == CLI_OK && nd < k) {
    fprintf(stderr, "cdevs run: only %zu of %" PRIu64 " replications came back from the workers\n", nd, k);
    rc = CLI_FAIL;
  }
  if (rc == CLI_INTERRUPTED)
    fprintf(stderr, "cdevs run: interrupted (%s): %zu of %" PRIu64 " replications ran and are reported\n",
            cli_signal_name(cli_stop_signal() ? cli_stop_signal() : SIGINT), nd, k);
  cli_reps_summary(m->path, nd, jobs, wall);
  free(g.done), free(g.par), free(g.val), free(done);
  return rc;
}
