/* SPDX-License-Identifier: MIT */
/* CSV result files fed by a simulator observer: every change, or dense on a step. */
#include "cdevs/results.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocks/signal.h"

typedef cdevs__sig series;

struct cdevs_results {
  cdevs_sim *sim;
  uint32_t atomic;
  FILE *f;
  char *path, *part;
  double step, t0;
  uint64_t k; /* next dense sample */
  double row_t; /* step = 0: the instant whose row is pending, or NaN */
  int nports;
  series *s;
  uint64_t rows;
  int failed;
  cdevs_observer obs;
};


static void row(cdevs_results *r, double t) {
  if (fprintf(r->f, "%.17g", t) < 0) r->failed = 1;
  for (int p = 0; p < r->nports; p++) fprintf(r->f, ",%.17g", cdevs__sig_eval(&r->s[p], t));
  if (fputc('\n', r->f) == EOF) r->failed = 1;
  r->rows++;
}

/* Dense rows strictly before t (the series are valid up to t). */
static void dense_until(cdevs_results *r, double t, int inclusive) {
  for (;;) {
    double g = r->t0 + (double)r->k * r->step;
    if (inclusive ? g > t : g >= t) break;
    row(r, g);
    r->k++;
  }
}

static void on_output(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  cdevs_results *r = ud;
  if (atomic != r->atomic || port < 0 || port >= r->nports) return;
  if (r->step > 0.0) {
    dense_until(r, t, 0);
  } else if (!isnan(r->row_t) && t != r->row_t) {
    row(r, r->row_t);
  }
  r->row_t = t;
  cdevs__sig_set(&r->s[port], v, t);
}

cdevs_status cdevs_results_open(cdevs_sim *sim, const cdevs_model *atomic, const char *path, double step,
                                cdevs_results **out) {
  *out = NULL;
  if (!sim || !atomic || !path || !(step >= 0.0) || !isfinite(step)) return CDEVS_EINVAL;
  cdevs_results *r = calloc(1, sizeof *r);
  if (!r) return CDEVS_ENOMEM;
  r->sim = sim;
  r->atomic = cdevs_sim_atomic_id(sim, atomic);
  r->step = step;
  r->t0 = cdevs_sim_time(sim);
  r->row_t = NAN;
  r->nports = cdevs_port_count(atomic, CDEVS_OUT);
  r->s = calloc(r->nports ? (size_t)r->nports : 1, sizeof *r->s);
  size_t n = strlen(path);
  r->path = malloc(n + 1);
  r->part = malloc(n + 6);
  if (!r->s || !r->path || !r->part) {
    free(r->s), free(r->path), free(r->part), free(r);
    return CDEVS_ENOMEM;
  }
  memcpy(r->path, path, n + 1);
  snprintf(r->part, n + 6, "%s.part", path);
  r->f = fopen(r->part, "w");
  if (!r->f) {
    free(r->s), free(r->path), free(r->part), free(r);
    return CDEVS_EIO;
  }
  fputs("time", r->f);
  for (int p = 0; p < r->nports; p++) fprintf(r->f, ",%s", cdevs_port_name(atomic, CDEVS_OUT, p));
  fputc('\n', r->f);
  r->obs.output = on_output;
  cdevs_status st = cdevs_sim_observe(sim, &r->obs, r);
  if (st) {
    fclose(r->f);
    remove(r->part);
    free(r->s), free(r->path), free(r->part), free(r);
    return st;
  }
  *out = r;
  return CDEVS_OK;
}

uint64_t cdevs_results_rows(const cdevs_results *r) { return r ? r->rows : 0; }

cdevs_status cdevs_results_close(cdevs_results *r, double t_end, int ok) {
  if (!r) return CDEVS_OK;
  cdevs_sim_unobserve(r->sim, &r->obs, r);
  if (ok) {
    if (r->step > 0.0) {
      dense_until(r, t_end, 1);
    } else if (!isnan(r->row_t)) {
      row(r, r->row_t);
      if (t_end > r->row_t) row(r, t_end); /* the state at the stop time */
    }
  }
  int bad = r->failed || ferror(r->f);
  bad |= fclose(r->f) != 0;
  cdevs_status st = CDEVS_OK;
  if (!ok || bad || rename(r->part, r->path) != 0) {
    remove(r->part);
    st = ok ? CDEVS_EIO : CDEVS_OK;
  }
  free(r->s), free(r->path), free(r->part), free(r);
  return st;
}
