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
  uint32_t *src_atomic; /* per column: the atomic model and output port it follows */
  int *src_port;
  char **names;
  int mat;           /* MAT v4 (Dymola layout): rows are kept and written at close */
  double *rows_mem;  /* (1 + nports) doubles per row */
  size_t nrows_mem, cap_mem;
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
  if (r->mat) {
    size_t w = 1 + (size_t)r->nports;
    if (r->nrows_mem == r->cap_mem) {
      size_t cap = r->cap_mem ? 2 * r->cap_mem : 1024;
      double *n = realloc(r->rows_mem, cap * w * sizeof *n);
      if (!n) {
        r->failed = 1;
        return;
      }
      r->rows_mem = n;
      r->cap_mem = cap;
    }
    double *p = r->rows_mem + r->nrows_mem++ * w;
    p[0] = t;
    for (int k = 0; k < r->nports; k++) p[1 + k] = cdevs__sig_eval(&r->s[k], t);
    r->rows++;
    return;
  }
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
  /* Column `port` first: an equation model's outputs are its system's ports 0, 1, …
   * in column order, so this finds them without scanning every column per event. */
  int col = -1;
  if (port >= 0 && port < r->nports && r->src_atomic[port] == atomic && r->src_port[port] == port) col = port;
  for (int k = 0; col < 0 && k < r->nports; k++)
    if (r->src_atomic[k] == atomic && r->src_port[k] == port) col = k;
  if (col < 0) return;
  if (r->step > 0.0) {
    dense_until(r, t, 0);
  } else if (!isnan(r->row_t) && t != r->row_t) {
    row(r, r->row_t);
  }
  r->row_t = t;
  cdevs__sig_set(&r->s[col], v, t);
}

static void free_results(cdevs_results *r) {
  for (int k = 0; r->names && k < r->nports; k++) free(r->names[k]);
  free(r->names), free(r->src_atomic), free(r->src_port), free(r->rows_mem);
  free(r->s), free(r->path), free(r->part), free(r);
}

cdevs_status cdevs_results_open_ports(cdevs_sim *sim, size_t n, const cdevs_model *const *atomics,
                                      const int *ports, const char *const *names, const char *path,
                                      double step, cdevs_results **out) {
  *out = NULL;
  if (!sim || !path || !(step >= 0.0) || !isfinite(step) || n > 100000) return CDEVS_EINVAL;
  cdevs_results *r = calloc(1, sizeof *r);
  if (!r) return CDEVS_ENOMEM;
  r->sim = sim;
  r->step = step;
  r->t0 = cdevs_sim_time(sim);
  r->row_t = NAN;
  r->nports = (int)n;
  r->s = calloc(n ? n : 1, sizeof *r->s);
  r->src_atomic = calloc(n ? n : 1, sizeof *r->src_atomic);
  r->src_port = calloc(n ? n : 1, sizeof *r->src_port);
  r->names = calloc(n ? n : 1, sizeof *r->names);
  size_t len = strlen(path);
  r->path = malloc(len + 1);
  r->part = malloc(len + 6);
  if (!r->s || !r->src_atomic || !r->src_port || !r->names || !r->path || !r->part) {
    free_results(r);
    return CDEVS_ENOMEM;
  }
  for (size_t k = 0; k < n; k++) {
    if (!atomics[k]) {
      free_results(r);
      return CDEVS_EINVAL;
    }
    r->src_atomic[k] = cdevs_sim_atomic_id(sim, atomics[k]);
    r->src_port[k] = ports[k];
    const char *nm = names && names[k] ? names[k] : cdevs_port_name(atomics[k], CDEVS_OUT, ports[k]);
    r->names[k] = malloc(strlen(nm ? nm : "?") + 1);
    if (!r->names[k]) {
      free_results(r);
      return CDEVS_ENOMEM;
    }
    strcpy(r->names[k], nm ? nm : "?");
  }
  memcpy(r->path, path, len + 1);
  snprintf(r->part, len + 6, "%s.part", path);
  r->f = fopen(r->part, "wb");
  if (!r->f) {
    free_results(r);
    return CDEVS_EIO;
  }
  const char *dot = strrchr(path, '.');
  r->mat = dot && strcmp(dot, ".mat") == 0;
  if (!r->mat) {
    fputs("time", r->f);
    for (int p = 0; p < r->nports; p++) fprintf(r->f, ",%s", r->names[p]);
    fputc('\n', r->f);
  }
  r->obs.output = on_output;
  cdevs_status st = cdevs_sim_observe(sim, &r->obs, r);
  if (st) {
    fclose(r->f);
    remove(r->part);
    free_results(r);
    return st;
  }
  *out = r;
  return CDEVS_OK;
}

cdevs_status cdevs_results_open(cdevs_sim *sim, const cdevs_model *atomic, const char *path, double step,
                                cdevs_results **out) {
  *out = NULL;
  if (!atomic) return CDEVS_EINVAL;
  int n = cdevs_port_count(atomic, CDEVS_OUT);
  const cdevs_model **a = malloc((n ? (size_t)n : 1) * sizeof *a);
  int *p = malloc((n ? (size_t)n : 1) * sizeof *p);
  cdevs_status st = CDEVS_ENOMEM;
  if (a && p) {
    for (int k = 0; k < n; k++) a[k] = atomic, p[k] = k;
    st = cdevs_results_open_ports(sim, (size_t)n, a, p, NULL, path, step, out);
  }
  free(a), free(p);
  return st;
}

uint64_t cdevs_results_rows(const cdevs_results *r) { return r ? r->rows : 0; }

/* ---- MAT v4 in the Dymola / OpenModelica result layout ("binTrans") -----------------
 * Matrices, each a 20-byte header (type, rows, cols, imaginary flag, name length),
 * the name with its NUL, then the data column by column. Type 0 is double, 20 int32,
 * 51 text (one byte per character). The layout: Aclass (format identification),
 * name and description (one column per variable), dataInfo (per variable: which
 * data matrix, which row of it, 0, -1), data_1 (constant values, here time only)
 * and data_2 (time and the variables, one column per time point). */

static void mat_header(FILE *f, int32_t type, int32_t rows, int32_t cols, const char *name) {
  int32_t h[5] = {type, rows, cols, 0, (int32_t)strlen(name) + 1};
  fwrite(h, sizeof h, 1, f);
  fwrite(name, 1, strlen(name) + 1, f);
}

/* A text matrix whose columns are the strings (binTrans stores names transposed). */
static void mat_text_columns(FILE *f, const char *name, const char *const *strs, int n) {
  int32_t w = 1;
  for (int i = 0; i < n; i++)
    if ((int32_t)strlen(strs[i]) > w) w = (int32_t)strlen(strs[i]);
  mat_header(f, 51, w, n, name);
  for (int i = 0; i < n; i++) {
    int32_t len = (int32_t)strlen(strs[i]);
    fwrite(strs[i], 1, (size_t)len, f);
    for (int32_t k = len; k < w; k++) fputc(0, f);
  }
}

static void mat_write(cdevs_results *r, double t_end) {
  FILE *f = r->f;
  int nv = 1 + r->nports;
  /* Aclass: 4 rows of text, stored column by column. */
  static const char *const aclass[4] = {"Atrajectory", "1.1", "", "binTrans"};
  mat_header(f, 51, 4, 11, "Aclass");
  for (int c = 0; c < 11; c++)
    for (int l = 0; l < 4; l++) fputc(c < (int)strlen(aclass[l]) ? aclass[l][c] : ' ', f);
  const char **names = malloc((size_t)nv * sizeof *names), **descr = malloc((size_t)nv * sizeof *descr);
  if (!names || !descr) {
    free(names), free(descr);
    r->failed = 1;
    return;
  }
  names[0] = "time", descr[0] = "Time in [s]";
  for (int p = 0; p < r->nports; p++) names[1 + p] = r->names[p], descr[1 + p] = "";
  mat_text_columns(f, "name", names, nv);
  mat_text_columns(f, "description", descr, nv);
  free(names), free(descr);
  mat_header(f, 20, 4, nv, "dataInfo");
  for (int i = 0; i < nv; i++) {
    int32_t info[4] = {i == 0 ? 0 : 2, i + 1, 0, -1};
    fwrite(info, sizeof info, 1, f);
  }
  /* data_1: constants over [t0, t_end]; only time. */
  double t0 = r->nrows_mem ? r->rows_mem[0] : r->t0;
  mat_header(f, 0, 1, 2, "data_1");
  fwrite(&t0, sizeof t0, 1, f);
  fwrite(&t_end, sizeof t_end, 1, f);
  mat_header(f, 0, nv, (int32_t)r->nrows_mem, "data_2");
  fwrite(r->rows_mem, sizeof(double) * (size_t)nv, r->nrows_mem, f);
}

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
  if (ok && r->mat) mat_write(r, t_end);
  int bad = r->failed || ferror(r->f);
  bad |= fclose(r->f) != 0;
  cdevs_status st = CDEVS_OK;
  if (!ok || bad || rename(r->part, r->path) != 0) {
    remove(r->part);
    st = ok ? CDEVS_EIO : CDEVS_OK;
  }
  free_results(r);
  return st;
}
