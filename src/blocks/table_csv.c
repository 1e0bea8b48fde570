/* SPDX-License-Identifier: MIT */
/* Reading a two-column time,value CSV for the table source. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/continuous.h"

static void *grow(const cdevs_alloc *a, void *p, size_t on, size_t nn) {
  return a->realloc(a->ud, p, on * sizeof(double), nn * sizeof(double));
}

void cdevs_table_free(const cdevs_alloc *a, double *t, double *y, size_t n) {
  if (!a) a = cdevs_alloc_default();
  if (t) a->realloc(a->ud, t, n * sizeof(double), 0);
  if (y) a->realloc(a->ud, y, n * sizeof(double), 0);
}

cdevs_status cdevs_table_load_csv(const char *path, const cdevs_alloc *a, double **pt, double **py,
                                  size_t *pn, char *err, size_t errsize) {
  if (!a) a = cdevs_alloc_default();
  *pt = *py = NULL;
  *pn = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errsize, "%s: %s", path, strerror(errno));
    return CDEVS_EIO;
  }
  double *t = NULL, *y = NULL;
  size_t n = 0, cap = 0;
  char line[1024];
  int lineno = 0;
  cdevs_status st = CDEVS_OK;
  while (fgets(line, sizeof line, f)) {
    lineno++;
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '#' || *s == '\n' || *s == '\r' || *s == 0) continue;
    char *end;
    errno = 0;
    double tv = strtod(s, &end);
    if (end == s) {
      if (n == 0 && lineno == 1) continue; /* a header line */
      snprintf(err, errsize, "%s:%d: expected a number", path, lineno);
      st = CDEVS_EINVAL;
      break;
    }
    while (*end == ' ' || *end == '\t') end++;
    if (*end != ',' && *end != ';') {
      snprintf(err, errsize, "%s:%d: expected ',' after the time", path, lineno);
      st = CDEVS_EINVAL;
      break;
    }
    s = end + 1;
    double yv = strtod(s, &end);
    if (end == s || !isfinite(tv) || !isfinite(yv)) {
      snprintf(err, errsize, "%s:%d: expected a finite value", path, lineno);
      st = CDEVS_EINVAL;
      break;
    }
    if (n && !(tv > t[n - 1])) {
      snprintf(err, errsize, "%s:%d: time %g does not increase (previous %g)", path, lineno, tv, t[n - 1]);
      st = CDEVS_EINVAL;
      break;
    }
    if (n == cap) {
      size_t nc = cap ? 2 * cap : 64;
      double *nt = grow(a, t, cap, nc);
      if (!nt) { st = CDEVS_ENOMEM; break; }
      t = nt;
      double *ny = grow(a, y, cap, nc);
      if (!ny) { st = CDEVS_ENOMEM; cap = nc; t = nt; break; }
      y = ny;
      cap = nc;
    }
    t[n] = tv;
    y[n] = yv;
    n++;
  }
  fclose(f);
  if (!st && n == 0) {
    snprintf(err, errsize, "%s: no data rows", path);
    st = CDEVS_EINVAL;
  }
  if (st) {
    if (st == CDEVS_ENOMEM) snprintf(err, errsize, "%s: out of memory", path);
    /* y may still have the old capacity when its growth failed: free by capacity. */
    cdevs_table_free(a, t, NULL, cap);
    if (y) a->realloc(a->ud, y, cap * sizeof(double), 0);
    return st;
  }
  /* Shrink to n so the caller frees with n. */
  double *nt = grow(a, t, cap, n), *ny;
  if (nt) t = nt;
  ny = grow(a, y, cap, n);
  if (ny) y = ny;
  if (!nt || !ny) {
    snprintf(err, errsize, "%s: out of memory", path);
    if (t) a->realloc(a->ud, t, (nt ? n : cap) * sizeof(double), 0);
    if (y) a->realloc(a->ud, y, (ny ? n : cap) * sizeof(double), 0);
    return CDEVS_ENOMEM;
  }
  *pt = t, *py = y, *pn = n;
  return CDEVS_OK;
}
