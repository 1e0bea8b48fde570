/* SPDX-License-Identifier: MIT */
/* cdevs bench: the QSS benchmarks (flyback converter, stiff system, LC line), with
 * their error against a reference solution, as one machine-readable line. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "reference.h"


typedef struct bench_cfg {
  const char *name;
  cdevs_qss_method method;
  int cvode, n;
  double dqrel, dqmin, tol, stop;
} bench_cfg;

static uint64_t integrator_steps(cdevs_sim *sim) {
  uint64_t total = 0;
  for (uint32_t i = 0; i < cdevs_sim_atomic_count(sim); i++) {
    const cdevs_atomic_ops *ops = cdevs_model_ops(cdevs_sim_atomic(sim, i));
    if (ops == &cdevs_integrator_ops || ops == &cdevs_reset_integrator_ops)
      total += cdevs_integrator_steps(cdevs_sim_state_at(sim, i));
  }
  return total;
}

static cdevs_model *bench_build(const bench_cfg *c) {
  if (!strcmp(c->name, "flyback")) {
    cdevs_flyback_params p = cdevs_flyback_default();
    return cdevs_flyback_build(NULL, &p, c->method, c->dqrel, c->dqmin);
  }
  if (!strcmp(c->name, "stiff")) return cdevs_stiff_build(NULL, c->method, c->dqrel, c->dqmin);
  return cdevs_lcline_build(NULL, c->n, c->method, c->dqrel, c->dqmin);
}

/* Builds and starts the benchmark's simulator; prints the error and returns NULL on failure. */
static cdevs_sim *bench_sim(const bench_cfg *c, cdevs_model **root) {
  cdevs_sim *sim = NULL;
  *root = bench_build(c);
  int st = cdevs_sim_new(*root, NULL, &sim);
  if (st) {
    fprintf(stderr, "cdevs bench: %s\n", cdevs_model_errmsg(*root)[0] ? cdevs_model_errmsg(*root) : cdevs_strerror(st));
    cdevs_model_free(*root);
    return NULL;
  }
  return sim;
}

/* Largest deviation from the reference on a grid of n + 1 points over [0, stop]. */
static double bench_error(const bench_cfg *c, size_t n) {
  cdevs_model *root;
  cdevs_sim *sim = bench_sim(c, &root);
  if (!sim) return NAN;
  double *tg = malloc((n + 1) * sizeof *tg), *ri = malloc((n + 1) * sizeof *ri),
         *rv = malloc((n + 1) * sizeof *rv), err = NAN;
  if (!tg || !ri || !rv) goto out;
  for (size_t k = 0; k <= n; k++) tg[k] = c->stop * (double)k / (double)n;
  const cdevs_model *a = NULL, *b = NULL;
  if (!strcmp(c->name, "flyback")) {
    char msg[256] = "";
    long steps;
    cdevs_flyback_params p = cdevs_flyback_default();
    if (ref_flyback(&p, 1e-10, tg, n + 1, ri, rv, &steps, msg, sizeof msg)) {
      fprintf(stderr, "cdevs bench: %s\n", msg);
      goto out;
    }
    a = cdevs_model_child(root, "vC");
    for (size_t k = 0; k <= n; k++) ri[k] = rv[k];
  } else {
    for (size_t k = 0; k <= n; k++) ref_stiff(tg[k], &ri[k], &rv[k]);
    a = cdevs_model_child(root, "x1");
    b = cdevs_model_child(root, "x2");
  }
  err = 0.0;
  for (size_t k = 0; k <= n; k++) {
    if (cdevs_sim_run(sim, tg[k])) {
      fprintf(stderr, "cdevs bench: %s\n", cdevs_sim_errmsg(sim));
      err = NAN;
      goto out;
    }
    double e = fabs(cdevs_integrator_x(cdevs_sim_state(sim, a), tg[k]) - ri[k]);
    if (e > err) err = e;
    if (b) {
      e = fabs(cdevs_integrator_x(cdevs_sim_state(sim, b), tg[k]) - rv[k]);
      if (e > err) err = e;
    }
  }
out:
  free(tg), free(ri), free(rv);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return err;
}

static const cli_opt bench_opts[] = {
    {"method", "M", "QSS1, QSS2, QSS3 (default), LIQSS1, LIQSS2, LIQSS3, or CVODE (flyback only)"},
    {"n", "N", "lcline: number of sections, 2..10000000 (default 200)"},
    {"dqrel", "R", "relative quantum (default 1e-3)"},
    {"dqmin", "A", "minimum quantum (default: per benchmark)"},
    {"tol", "R", "CVODE's relative tolerance, in (0, 1) (default 1e-6)"},
    {"stop", "T", "stop time (default: per benchmark)"},
    {NULL, NULL, NULL}};

const cli_cmd cli_bench_cmd = {"bench", "flyback|stiff|lcline",
                               "Runs a QSS benchmark and prints one line of figures.", bench_opts};

int cli_bench(int argc, char **argv) {
  bench_cfg c = {NULL, CDEVS_QSS3, 0, 0, 1e-3, -1.0, 1e-6, -1.0};
  int rc;
  cli_parser ps;
  cli_parse_begin(&ps, &cli_bench_cmd, argc, argv);
  while ((rc = cli_parse_next(&ps)) == 0) {
    const char *v = ps.val;
    if (cli_is(&ps, "method")) {
      if (!strcmp(v, "CVODE") || !strcmp(v, "cvode")) {
        c.cvode = 1;
      } else if (cdevs_qss_method_parse(v, &c.method)) {
        fprintf(stderr, "cdevs bench: unknown method '%s'\n", v);
        return CLI_USAGE;
      } else if (cdevs_qss_method_pairs(c.method)) {
        fprintf(stderr, "cdevs bench: %s pairs the states of an equation system; the benchmarks are block diagrams, "
                        "whose integrators are each alone (use LIQSS1 or LIQSS2)\n", v);
        return CLI_USAGE;
      }
    } else if (cli_is(&ps, "n")) {
      uint32_t n;
      if (cli_parse_u32(v, &n) || n < 2 || n > 10000000) return cli_bad_value(&ps, "an integer in 2..10000000");
      c.n = (int)n;
    } else if (cli_is(&ps, "dqrel")) {
      if (cli_parse_double(v, &c.dqrel) || c.dqrel < 0) return cli_bad_value(&ps, "a value >= 0");
    } else if (cli_is(&ps, "dqmin")) {
      if (cli_parse_double(v, &c.dqmin) || !(c.dqmin > 0)) return cli_bad_value(&ps, "a value > 0");
    } else if (cli_is(&ps, "tol")) {
      if (cli_parse_double(v, &c.tol) || !(c.tol > 0) || c.tol >= 1)
        return cli_bad_value(&ps, "a relative tolerance in (0, 1)");
    } else if (cli_is(&ps, "stop")) {
      if (cli_parse_double(v, &c.stop) || !(c.stop > 0)) return cli_bad_value(&ps, "a time > 0");
    }
  }
  if (rc != CLI_END) return cli_parse_status(rc);
  char **pos;
  int npos = cli_positional(&ps, &pos);
  if (npos == 1) c.name = pos[0];
  if (npos != 1 || (strcmp(c.name, "flyback") && strcmp(c.name, "stiff") && strcmp(c.name, "lcline"))) {
    fprintf(stderr, "cdevs bench: name one of flyback, stiff, lcline\n");
    return CLI_USAGE;
  }
  int fly = !strcmp(c.name, "flyback"), lc = !strcmp(c.name, "lcline");
  if (c.cvode && !fly) {
    fprintf(stderr, "cdevs bench: CVODE is available for the flyback benchmark only\n");
    return CLI_USAGE;
  }
  if (c.stop < 0) c.stop = fly ? 2e-3 : lc ? 200.0 : 500.0;
  if (c.dqmin < 0) c.dqmin = fly ? 1e-5 : lc ? 1e-6 : 1e-3;
  if (!lc) c.n = 2;
  if (lc && !c.n) c.n = 200;
  const char *mname = c.cvode ? "CVODE" : cdevs_qss_method_name(c.method);
  size_t grid = fly ? 20000 : 50000;
  uint64_t transitions;
  double wall, maxerr = NAN;
  if (c.cvode) {
    size_t n = grid + 1;
    double *tg = malloc(n * sizeof *tg), *i1 = malloc(n * sizeof *i1), *v1 = malloc(n * sizeof *v1),
           *i2 = malloc(n * sizeof *i2), *v2 = malloc(n * sizeof *v2);
    char msg[256] = "";
    long steps = 0, ref_steps;
    rc = !tg || !i1 || !v1 || !i2 || !v2;
    cdevs_flyback_params p = cdevs_flyback_default();
    if (!rc) {
      for (size_t k = 0; k < n; k++) tg[k] = c.stop * (double)k / (double)grid;
      double t0 = cli_now();
      rc = ref_flyback(&p, c.tol, tg, n, i1, v1, &steps, msg, sizeof msg);
      wall = cli_now() - t0;
      if (!rc) rc = ref_flyback(&p, 1e-10, tg, n, i2, v2, &ref_steps, msg, sizeof msg);
    }
    if (!rc) {
      maxerr = 0;
      for (size_t k = 0; k < n; k++)
        if (fabs(v1[k] - v2[k]) > maxerr) maxerr = fabs(v1[k] - v2[k]);
    }
    free(tg), free(i1), free(v1), free(i2), free(v2);
    if (rc) {
      fprintf(stderr, "cdevs bench: %s\n", msg[0] ? msg : "out of memory");
      return CLI_FAIL;
    }
    transitions = (uint64_t)steps;
  } else {
    cdevs_model *root;
    cdevs_sim *sim = bench_sim(&c, &root);
    if (!sim) return CLI_FAIL;
    double t0 = cli_now();
    int st = cdevs_sim_run(sim, c.stop);
    wall = cli_now() - t0;
    if (st) {
      fprintf(stderr, "cdevs bench: %s\n", cdevs_sim_errmsg(sim));
      cdevs_sim_free(sim);
      cdevs_model_free(root);
      return CLI_FAIL;
    }
    transitions = integrator_steps(sim);
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    if (!lc) maxerr = bench_error(&c, grid);
  }
  printf("bench name=%s method=%s n=%d transitions=%llu max_error=%.6g wall_s=%.6f\n", c.name, mname,
         c.n, (unsigned long long)transitions, maxerr, wall);
  return 0;
}

