/* SPDX-License-Identifier: MIT */
/* Diagnostics with location, the offending line and a caret; name suggestions. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lang_impl.h"

/* "file:line:col: kind: message", then the source line (tabs kept so the caret
 * lines up) and a caret under the column. */
static void report(lang_diag *d, const char *kind, int line, int col, const char *fmt, va_list ap) {
  fprintf(d->out, "%s:%d:%d: %s: ", d->src->path, line, col, kind);
  vfprintf(d->out, fmt, ap);
  fputc('\n', d->out);
  const char *p = d->src->text, *end = p + d->src->len;
  for (int l = 1; l < line && p < end; p++)
    if (*p == '\n') l++;
  const char *e = p;
  while (e < end && *e != '\n') e++;
  fprintf(d->out, "  %.*s\n  ", (int)(e - p), p);
  for (int c = 1; c < col && p + c - 1 < e; c++) fputc(p[c - 1] == '\t' ? '\t' : ' ', d->out);
  fputs("^\n", d->out);
}

void lang_error(lang_diag *d, int line, int col, const char *fmt, ...) {
  d->errors++;
  if (!d->out) return;
  va_list ap;
  va_start(ap, fmt);
  report(d, "error", line, col, fmt, ap);
  va_end(ap);
}

void lang_warning(lang_diag *d, int line, int col, const char *fmt, ...) {
  d->warnings++;
  if (!d->out) return;
  va_list ap;
  va_start(ap, fmt);
  report(d, "warning", line, col, fmt, ap);
  va_end(ap);
}

static size_t min3(size_t a, size_t b, size_t c) {
  size_t m = a < b ? a : b;
  return m < c ? m : c;
}

/* Levenshtein distance, capped: names longer than 63 characters are not compared. */
static size_t distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63) return 99;
  size_t row[64];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cur = row[j];
      row[j] = min3(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] != b[j - 1]));
      prev = cur;
    }
  }
  return row[lb];
}

const char *lang_suggest(const char *name, const char *const *cands, size_t n) {
  const char *best = NULL;
  size_t bd = 3;
  for (size_t i = 0; i < n; i++) {
    size_t d = distance(name, cands[i]);
    if (d < bd) bd = d, best = cands[i];
  }
  return best;
}

char *lang_read_file(const char *path, FILE *diag, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    if (diag) fprintf(diag, "%s: cannot open: %s\n", path, strerror(errno));
    return NULL;
  }
  size_t cap = 1 << 16, n = 0, got;
  char *buf = malloc(cap + 1);
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, 2 * cap + 1);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb, cap *= 2;
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf || bad) {
    if (diag) fprintf(diag, "%s: %s\n", path, buf ? "read error" : "out of memory");
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  return buf;
}

char *lang_copy_text(const char *name, const char *text, size_t len, FILE *diag) {
  char *buf = malloc(len + 1);
  if (!buf) {
    if (diag) fprintf(diag, "%s: out of memory\n", name);
    return NULL;
  }
  memcpy(buf, text, len);
  buf[len] = 0;
  return buf;
}
