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

/* Reads one line into buf; a line longer than the buffer is consumed whole and
 * reported with *toolong (comments may be long; data lines may not). 0 at the end. */
static int read_line(FILE *f, char *buf, size_t size, int *toolong) {
  *toolong = 0;
  if (!fgets(buf, (int)size, f)) return 0;
  if (!strchr(buf, '\n') && !feof(f)) {
    *toolong = 1;
    int ch;
    while ((ch = fgetc(f)) != EOF && ch != '\n') {
    }
  }
  return 1;
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
  int lineno = 0, seen_content = 0, toolong;
  cdevs_status st = CDEVS_OK;
  while (read_line(f, line, sizeof line, &toolong)) {
    lineno++;
    char *s = line;
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '#' || *s == '\n' || *s == '\r' || *s == 0) continue;
    if (toolong) {
      snprintf(err, errsize, "%s:%d: line longer than %zu characters", path, lineno, sizeof line - 2);
      st = CDEVS_EINVAL;
      break;
    }
    char *end;
    double tv = strtod(s, &end);
    if (end == s) {
      if (!seen_content) { /* a header: the first line that is not a comment */
        seen_content = 1;
        continue;
      }
      snprintf(err, errsize, "%s:%d: expected a number", path, lineno);
      st = CDEVS_EINVAL;
      break;
    }
    seen_content = 1;
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
      /* Grow both arrays to the same capacity, or neither. */
      size_t nc = cap ? 2 * cap : 64;
      double *nt = grow(a, t, cap, nc);
      if (!nt) {
        st = CDEVS_ENOMEM;
        break;
      }
      double *ny = grow(a, y, cap, nc);
      if (!ny) { /* t has grown, y has not: free each by its own size */
        cdevs_table_free(a, nt, NULL, nc);
        cdevs_table_free(a, NULL, y, cap);
        t = y = NULL;
        st = CDEVS_ENOMEM;
        break;
      }
      t = nt, y = ny, cap = nc;
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
    cdevs_table_free(a, t, y, cap);
    return st;
  }
  /* Shrink to n so the caller frees with n (shrinking is not expected to fail; if it
   * does, keep the larger block and report out of memory). */
  double *nt = grow(a, t, cap, n);
  if (!nt) {
    cdevs_table_free(a, t, y, cap);
    snprintf(err, errsize, "%s: out of memory", path);
    return CDEVS_ENOMEM;
  }
  double *ny = grow(a, y, cap, n);
  if (!ny) {
    cdevs_table_free(a, nt, NULL, n);
    cdevs_table_free(a, NULL, y, cap);
    snprintf(err, errsize, "%s: out of memory", path);
    return CDEVS_ENOMEM;
  }
  *pt = nt, *py = ny, *pn = n;
  return CDEVS_OK;
}
