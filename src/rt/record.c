/* SPDX-License-Identifier: MIT */
/*
 * The record of a run's external inputs, and its replay. A text log, one line each:
 *
 *   cdevs-record 1
 *   tag TEXT                        what the run was (model, its text's hash, options)
 *   speed S                         0: as fast as possible
 *   in WALL T K MODEL PORT VALUE    an input: wall seconds since the start, the simulated
 *                                   time, the instants executed before it, the atomic
 *                                   model's path, its input port, and the value:
 *                                   real X | int I | taylor ORDER C0..  | array N V1..VN
 *   end T K                         where the run ended, after K instants
 *
 * Times and values are written with 17 significant digits, which read back to the same
 * doubles; names are %-escaped (%20 for a space). K places each input exactly among the
 * instants, so a replay executes the same instants with the same inputs in the same
 * order, and writes the same results byte for byte.
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_impl.h"
#include "rt/rt_impl.h"

#define RECORD_MAX_ARRAY (1u << 20)

static void put_name(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c <= ' ' || c == '%' || c > 126)
      fprintf(f, "%%%02X", c);
    else
      fputc(c, f);
  }
}

void cdevs__record_header(cdevs_rt *rt) {
  FILE *f = rt->opts.record;
  if (!f || rt->header_written) return;
  fprintf(f, "cdevs-record 1\ntag ");
  put_name(f, rt->opts.tag ? rt->opts.tag : "");
  fprintf(f, "\nspeed %.17g\n", rt->opts.speed);
  rt->header_written = 1;
}

void cdevs__record_input(cdevs_rt *rt, double wall, double t, uint64_t k, uint32_t atomic, int port,
                         const cdevs_value *v) {
  FILE *f = rt->opts.record;
  if (!f) return;
  const cdevs_model *m = cdevs_sim_atomic(rt->sim, atomic);
  char path[512];
  cdevs_model_path(m, path, sizeof path);
  fprintf(f, "in %.9f %.17g %" PRIu64 " ", wall, t, k);
  put_name(f, path);
  fputc(' ', f);
  put_name(f, cdevs_port_name(m, CDEVS_IN, port));
  switch (v->kind) {
  case CDEVS_REAL: fprintf(f, " real %.17g\n", v->u.real); break;
  case CDEVS_INT: fprintf(f, " int %" PRId64 "\n", v->u.integer); break;
  case CDEVS_TAYLOR:
    fprintf(f, " taylor %d", v->order);
    for (int i = 0; i <= v->order; i++) fprintf(f, " %.17g", v->u.taylor[i]);
    fputc('\n', f);
    break;
  default: { /* arrays: messages are refused before they get here */
    size_t n = 0;
    const double *a = cdevs_array_data(v->u.msg, &n);
    fprintf(f, " array %zu", n);
    for (size_t i = 0; i < n; i++) fprintf(f, " %.17g", a[i]);
    fputc('\n', f);
  }
  }
}

void cdevs__record_end(cdevs_rt *rt, double t_end, uint64_t k) {
  FILE *f = rt->opts.record;
  if (!f) return;
  fprintf(f, "end %.17g %" PRIu64 "\n", t_end, k);
  fflush(f);
}

/* ---- reading a log ----------------------------------------------------------------------- */

typedef struct cursor {
  char *p;
} cursor;

/* The next space-separated token (NUL-terminated in place), or NULL at the end. */
static char *token(cursor *c) {
  while (*c->p == ' ') c->p++;
  if (!*c->p) return NULL;
  char *s = c->p;
  while (*c->p && *c->p != ' ') c->p++;
  if (*c->p) *c->p++ = '\0';
  return s;
}

static int num(cursor *c, double *x) {
  char *s = token(c), *end;
  if (!s) return -1;
  errno = 0;
  *x = strtod(s, &end);
  return *end || errno == ERANGE ? -1 : 0;
}

static int u64(cursor *c, uint64_t *x) {
  char *s = token(c), *end;
  if (!s || *s < '0' || *s > '9') return -1;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (*end || errno) return -1;
  *x = v;
  return 0;
}

static int hexval(char c) {
  return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A %-escaped name, decoded into a new string (the C library's: the log's names are
 * only the executive's business). */
static char *name(cursor *c) {
  char *s = token(c);
  if (!s) return NULL;
  char *out = malloc(strlen(s) + 1), *o = out;
  if (!out) return NULL;
  for (; *s; s++) {
    if (*s == '%') {
      int h = hexval(s[1]), l = h < 0 ? -1 : hexval(s[2]);
      if (l < 0) {
        free(out);
        return NULL;
      }
      *o++ = (char)(h * 16 + l);
      s += 2;
    } else {
      *o++ = *s;
    }
  }
  *o = '\0';
  return out;
}

/* The value at the cursor: 0, or -1 with what is wrong in why. */
static int value(cdevs_rt *rt, cursor *c, cdevs_value *v, const char **why) {
  char *kind = token(c);
  double x;
  uint64_t n;
  *why = "a value: real X, int I, taylor ORDER C0.., or array N V1..";
  if (!kind) return -1;
  if (!strcmp(kind, "real")) {
    if (num(c, &x)) return -1;
    *v = cdevs_real(x);
  } else if (!strcmp(kind, "int")) {
    char *s = token(c), *end;
    if (!s) return -1;
    errno = 0;
    long long i = strtoll(s, &end, 10);
    if (*end || errno) return -1;
    *v = cdevs_int(i);
  } else if (!strcmp(kind, "taylor")) {
    double co[CDEVS_TAYLOR_MAX + 1] = {0};
    if (u64(c, &n) || n > CDEVS_TAYLOR_MAX) return -1;
    for (uint64_t i = 0; i <= n; i++)
      if (num(c, &co[i])) return -1;
    *v = cdevs_taylor((int)n, co);
  } else if (!strcmp(kind, "array")) {
    if (u64(c, &n) || n == 0 || n > RECORD_MAX_ARRAY) return -1;
    cdevs_msg *m = cdevs_array_new(&rt->alloc, (size_t)n);
    if (!m) {
      *why = "memory for its values";
      return -1;
    }
    double *a = cdevs_array_data(m, NULL);
    for (uint64_t i = 0; i < n; i++)
      if (num(c, &a[i])) {
        cdevs_msg_release(m);
        return -1;
      }
    *v = cdevs_arrayval(m);
  } else {
    return -1;
  }
  if (token(c)) {
    *why = "nothing after the value";
    if (v->kind == CDEVS_ARRAY) cdevs_msg_release(v->u.msg);
    *v = cdevs_real(0.0); /* nothing left for the caller to release */
    return -1;
  }
  return 0;
}

static void record_free(cdevs__record *r) {
  free(r->path);
  free(r->port);
  if (r->v.kind == CDEVS_ARRAY) cdevs_msg_release(r->v.u.msg);
}

void cdevs__replay_free(cdevs_rt *rt) {
  cdevs__replay *rp = &rt->replay;
  for (uint32_t i = 0; i < rp->n; i++) record_free(&rp->recs[i]);
  CDEVS_FREEARR(&rt->alloc, rp->recs, rp->cap);
  free(rp->tag);
  memset(rp, 0, sizeof *rp);
}

/* One line of the log into the replay (lineno for the messages): 0, or -1 with why. */
static int parse_line(cdevs_rt *rt, char *line, int lineno, int *state, const char **why) {
  cdevs__replay *rp = &rt->replay;
  cursor c = {line};
  char *kw = token(&c);
  if (*state == 0) { /* the first line says what the file is */
    *why = "not a cdevs record (its first line is not 'cdevs-record 1')";
    char *ver = kw && !strcmp(kw, "cdevs-record") ? token(&c) : NULL;
    if (!ver) return -1;
    if (strcmp(ver, "1") || token(&c)) {
      *why = "a record of another format version than 1";
      return -1;
    }
    *state = 1;
    return 0;
  }
  if (!kw) return 0; /* an empty line */
  if (*state == 2) {
    *why = "a line after the end line";
    return -1;
  }
  if (!strcmp(kw, "tag")) {
    free(rp->tag);
    cursor rest = c;
    rp->tag = *rest.p ? name(&rest) : calloc(1, 1);
    *why = "a bad tag";
    return rp->tag ? 0 : -1;
  }
  if (!strcmp(kw, "speed")) {
    double sp;
    *why = "speed S";
    return num(&c, &sp) || token(&c) ? -1 : 0;
  }
  if (!strcmp(kw, "end")) {
    *why = "end T K";
    if (num(&c, &rp->end_t) || u64(&c, &rp->end_k) || token(&c)) return -1;
    if (rp->n && (rp->end_k < rp->recs[rp->n - 1].k || rp->end_t < rp->recs[rp->n - 1].t)) {
      *why = "the end is before the last input";
      return -1;
    }
    rp->has_end = 1;
    *state = 2;
    return 0;
  }
  if (strcmp(kw, "in")) {
    *why = "a line that is not in, end, tag or speed";
    return -1;
  }
  cdevs__record r = {0};
  r.line = lineno;
  *why = "in WALL T K MODEL PORT VALUE";
  if (num(&c, &r.wall) || num(&c, &r.t) || !isfinite(r.t) || u64(&c, &r.k)) return -1;
  if (!(r.path = name(&c)) || !(r.port = name(&c)) || value(rt, &c, &r.v, why)) {
    record_free(&r);
    return -1;
  }
  if (rp->n && (r.k < rp->recs[rp->n - 1].k || r.t < rp->recs[rp->n - 1].t)) {
    *why = "an input before the one on the line above it (the log is out of order)";
    record_free(&r);
    return -1;
  }
  if (rp->n == rp->cap && CDEVS_GROW(&rt->alloc, rp->recs, rp->cap, rp->n + 1)) {
    *why = "memory for the inputs";
    record_free(&r);
    return -1;
  }
  rp->recs[rp->n++] = r;
  return 0;
}

int cdevs__replay_read(cdevs_rt *rt, FILE *f, const char *fname, char *msg, size_t size) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int lineno = 0, state = 0, rc = 0;
  const char *why = NULL;
  errno = 0;
  while ((len = getline(&line, &cap, f)) >= 0) {
    lineno++;
    if (len && line[len - 1] == '\n') line[--len] = '\0';
    if ((size_t)len != strlen(line)) {
      why = "a NUL byte in a line";
      rc = -1;
    } else {
      rc = parse_line(rt, line, lineno, &state, &why);
    }
    if (rc) break;
  }
  if (!rc && ferror(f)) {
    snprintf(msg, size, "%s: cannot read: %s", fname, strerror(errno ? errno : EIO));
    rc = -1;
  } else if (!rc && state == 0) {
    snprintf(msg, size, "%s: empty: not a cdevs record", fname);
    rc = -1;
  } else if (rc) {
    snprintf(msg, size, "%s:%d: %s", fname, lineno, why);
  }
  free(line);
  if (rc) cdevs__replay_free(rt);
  return rc;
}
