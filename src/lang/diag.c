/* SPDX-License-Identifier: MIT */
/* Diagnostics with location, the offending line and a caret; name suggestions. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lang_impl.h"

#define DIAG_WINDOW 80 /* characters shown each side of the column on a long line */

/* "file:line:col: kind: message", then the source line (tabs kept so the caret
 * lines up) and a caret under the column. */
static void report(lang_diag *d, const char *kind, int line, int col, const char *fmt, va_list ap) {
  int file = line >= 0 ? LANG_FILE(line) : 0;
  const lang_src *src = file > 0 && file < d->nfiles && d->files[file] ? d->files[file] : d->src;
  line = line >= 0 ? LANG_LINE(line) : line;
  fprintf(d->out, "%s:%d:%d: %s: ", src->path, line, col, kind);
  vfprintf(d->out, fmt, ap);
  fputc('\n', d->out);
  const char *p = src->text, *end = p + src->len;
  for (int l = 1; l < line && p < end; p++)
    if (*p == '\n') l++;
  const char *e = p;
  while (e < end && *e != '\n') e++;
  /* A very long line (a generated model) is shown as a window around the column. */
  const char *from = p, *to = e, *at = p + (col > 1 ? col - 1 : 0);
  if (at > e) at = e;
  if (e - p > 2 * DIAG_WINDOW) {
    from = at - p > DIAG_WINDOW ? at - DIAG_WINDOW : p;
    while (from > p && from < at && ((unsigned char)*from & 0xC0) == 0x80) from++; /* not mid-character */
    to = e - from > 2 * DIAG_WINDOW ? from + 2 * DIAG_WINDOW : e;
    while (to < e && ((unsigned char)*to & 0xC0) == 0x80) to++;
  }
  const char *dots_l = from > p ? "..." : "", *dots_r = to < e ? "..." : "";
  fprintf(d->out, "  %s%.*s%s\n  %s", dots_l, (int)(to - from), from, dots_r, from > p ? "   " : "");
  for (const char *c = from; c < at; c++) fputc(*c == '\t' ? '\t' : ' ', d->out);
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
  /* Read in chunks, whatever the file is (a pipe, a device, /dev/zero), and stop one
   * byte past the limit: the size a file claims is not trusted. */
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  const char *why = buf ? NULL : "out of memory";
  int err = 0;
  while (!why) {
    size_t got = fread(buf + n, 1, cap - n, f);
    n += got;
    if (n > LANG_MAX_FILE) {
      why = "too large";
    } else if (n < cap) {
      if (ferror(f)) err = errno ? errno : EIO, why = "cannot read";
      break;
    } else {
      size_t ncap = cap > LANG_MAX_FILE / 2 ? LANG_MAX_FILE + 1 : 2 * cap;
      char *nb = realloc(buf, ncap + 1);
      if (!nb) why = "out of memory";
      else buf = nb, cap = ncap;
    }
  }
  fclose(f);
  if (why) {
    if (diag) {
      if (err)
        fprintf(diag, "%s: %s: %s\n", path, why, strerror(err));
      else if (n > LANG_MAX_FILE)
        fprintf(diag, "%s: larger than %zu MiB: not a model file\n", path, (size_t)LANG_MAX_FILE >> 20);
      else
        fprintf(diag, "%s: %s\n", path, why);
    }
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
