/* SPDX-License-Identifier: MIT */
/* Result files fed by a simulator observer (CSV or MAT v4, every change or dense on a
 * step), streamed to a temporary file beside the target and renamed into place. */
#define _POSIX_C_SOURCE 200809L
#include "cdevs/results.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "blocks/signal.h"
#include "io/numfmt.h"

typedef cdevs__sig series;

/* ---- files written beside their target and renamed into place --------------------- */

struct cdevs_results_file {
  FILE *f;
  char *tmp;    /* NULL when writing the target directly (a device or a pipe) */
  char *target; /* path with symbolic links followed */
  char *buf;    /* the stream's buffer: large, so that rows go out in few writes */
};

static char *dup_str(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* path with symbolic links followed up to the last one, so that writing the result
 * writes the link's target and keeps the link. A dangling link names a new file. */
static char *follow_links(const char *path) {
  char *p = dup_str(path);
  for (int hops = 0; p && hops < 40; hops++) {
    struct stat st;
    if (lstat(p, &st) != 0 || !S_ISLNK(st.st_mode)) return p;
    char link[4096];
    ssize_t n = readlink(p, link, sizeof link - 1);
    if (n < 0) break;
    link[n] = '\0';
    const char *slash = strrchr(p, '/');
    size_t d = link[0] == '/' || !slash ? 0 : (size_t)(slash - p) + 1;
    char *next = malloc(d + (size_t)n + 1);
    if (next) {
      memcpy(next, p, d);
      memcpy(next + d, link, (size_t)n + 1);
    }
    free(p);
    p = next;
  }
  if (p) {
    free(p);
    errno = ELOOP;
  }
  return NULL;
}

/* The directory part of path ("." when there is none). */
static char *dir_of(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return dup_str(".");
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  char *d = malloc(n + 1);
  if (d) {
    memcpy(d, path, n);
    d[n] = '\0';
  }
  return d;
}

/* 0 if target (links followed) can be written: 1 if it is an existing non-regular
 * file (a device or a pipe: written in place), -1 with errno otherwise. */
static int check_target(const char *target, struct stat *tst, int *exists) {
  *exists = stat(target, tst) == 0;
  if (*exists && S_ISDIR(tst->st_mode)) {
    errno = EISDIR;
    return -1;
  }
  if (*exists && !S_ISREG(tst->st_mode)) return 1;
  char *dir = dir_of(target);
  if (!dir) return -1;
  struct stat dst;
  int rc = stat(dir, &dst);
  if (rc == 0 && !S_ISDIR(dst.st_mode)) errno = ENOTDIR, rc = -1;
  if (rc == 0) rc = access(dir, W_OK | X_OK);
  int e = errno;
  free(dir);
  errno = e;
  return rc ? -1 : 0;
}

cdevs_status cdevs_results_check_path(const char *path) {
  if (!path || !*path) {
    errno = ENOENT;
    return CDEVS_EIO;
  }
  char *target = follow_links(path);
  if (!target) return CDEVS_EIO;
  struct stat st;
  int exists, rc = check_target(target, &st, &exists);
  int e = errno;
  free(target);
  errno = e;
  return rc < 0 ? CDEVS_EIO : CDEVS_OK;
}

static void file_free(cdevs_results_file *rf) {
  int e = errno;
  free(rf->tmp), free(rf->target), free(rf->buf), free(rf);
  errno = e;
}

cdevs_status cdevs_results_file_open(const char *path, cdevs_results_file **out) {
  *out = NULL;
  if (!path || !*path) {
    errno = ENOENT;
    return CDEVS_EIO;
  }
  cdevs_results_file *rf = calloc(1, sizeof *rf);
  if (!rf) return CDEVS_ENOMEM;
  if (!(rf->target = follow_links(path))) {
    int e = errno;
    free(rf);
    errno = e;
    return e == ENOMEM ? CDEVS_ENOMEM : CDEVS_EIO;
  }
  struct stat st;
  int exists, kind = check_target(rf->target, &st, &exists);
  if (kind < 0) {
    file_free(rf);
    return CDEVS_EIO;
  }
  int fd = -1;
  if (kind == 1) {
    fd = open(rf->target, O_WRONLY | O_CLOEXEC);
  } else {
    /* A unique name beside the target (so the rename stays within one file system):
     * created exclusively, as mkstemp does, but with mode 0666 so that the umask, not
     * the temporary name, decides who may read the result. */
    const char *slash = strrchr(rf->target, '/');
    const char *base = slash ? slash + 1 : rf->target;
    size_t dlen = slash ? (size_t)(slash - rf->target) + 1 : 0, cap = strlen(rf->target) + 64;
    if (!(rf->tmp = malloc(cap))) {
      file_free(rf);
      return CDEVS_ENOMEM;
    }
    static unsigned long counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    for (int tries = 0; tries < 100; tries++) {
      unsigned long salt = (unsigned long)ts.tv_nsec * 2654435761u + counter++;
      snprintf(rf->tmp, cap, "%.*s.%.200s.%ld.%06lx.part", (int)dlen, rf->target, base, (long)getpid(),
               salt & 0xffffffu);
      fd = open(rf->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd >= 0 || errno != EEXIST) break;
    }
    /* Replacing a file keeps its permissions. */
    if (fd >= 0 && exists) (void)fchmod(fd, st.st_mode & 07777);
  }
  if (fd < 0 || !(rf->f = fdopen(fd, "wb"))) {
    int e = errno;
    if (fd >= 0) close(fd);
    if (rf->tmp && fd >= 0) remove(rf->tmp);
    errno = e;
    file_free(rf);
    return CDEVS_EIO;
  }
  enum { BUF_BYTES = 1 << 18 };
  if ((rf->buf = malloc(BUF_BYTES))) setvbuf(rf->f, rf->buf, _IOFBF, BUF_BYTES);
  *out = rf;
  return CDEVS_OK;
}

FILE *cdevs_results_file_stream(cdevs_results_file *rf) { return rf ? rf->f : NULL; }

const char *cdevs_results_file_temp(const cdevs_results_file *rf) { return rf ? rf->tmp : NULL; }

cdevs_status cdevs_results_file_close(cdevs_results_file *rf, int keep) {
  if (!rf) return CDEVS_OK;
  int bad = ferror(rf->f) != 0, e = bad ? EIO : 0;
  if (fclose(rf->f) != 0 && !bad) bad = 1, e = errno;
  if (rf->tmp) {
    if (!keep || bad) {
      remove(rf->tmp);
    } else if (rename(rf->tmp, rf->target) != 0) { /* whole, but not in place: kept */
      bad = 1, e = errno;
    }
  }
  file_free(rf);
  if (keep && bad) {
    errno = e;
    return CDEVS_EIO;
  }
  return CDEVS_OK;
}

/* ---- the recorder ------------------------------------------------------------------ */

/* The writer thread's chunks: 16 KB, so that it starts formatting early in a short run. */
enum { CHUNK_DOUBLES = 2048, CHUNKS = 8 };

struct cdevs_results {
  cdevs_sim *sim;
  char **names;
  char **csvname; /* the names as CSV fields (quoted where needed), and their lengths */
  size_t *csvlen;
  int mat;           /* MAT v4 (Dymola layout): data_2 grows a column per row */
  double *rowbuf;    /* MAT: 1 + nports doubles */
  long off_data1;    /* MAT: where data_1's two values go */
  long off_data2;    /* MAT: where data_2's header starts (its column count at + 8) */
  double first_t;    /* the first row's time, or NaN */
  cdevs_results_file *file;
  FILE *f;
  double step, t0;
  uint64_t k; /* next dense sample */
  double row_t; /* step = 0: the instant whose row is pending, or NaN */
  int nports;
  series *s;
  uint64_t rows;
  int failed; /* the errno of the first write that failed, or 0 */
  cdevs_observer obs;
  /* Faithful rows (cdevs_results_set_accuracy; step = 0): the polynomials sampled
   * between instants, and a row of left limits before an instant's row where a
   * value jumps. left holds the values at row_t before its changes. */
  double rel, abs_tol;
  int faithful;
  double *left;
  double *cur; /* the values at row_t, evaluated once for the test and the row */
  double *scale; /* per column: the largest magnitude written so far */
  int finished;   /* cdevs_results_finish has written the last rows */
  int bad_col;    /* the first column written with a value that is not finite, or -1 */
  double bad_t, bad_v;
  /* Rows are formatted into ob and go out in large writes (the FILE's own buffer
   * then passes them through). */
  char *ob;
  size_t olen;
  /* Which column an output event is for: (atomic, port) hashed to the first column
   * that follows it, and the next column following the same port (or -1). */
  uint64_t *hkeys;
  int *hcols;
  uint32_t hmask;
  int *same_next;
  /* The long layout (cdevs_results_set_layout): a record per column and change. */
  int layout_long;
  int header_done;
  double *last_row;  /* per column: the time of its last record, NaN before the first */
  uint8_t *pending;  /* per column: changed at row_t, its record not yet written */
  int *plist, npend; /* the pending columns, in the order they changed */
  uint32_t *nsamp;   /* per column: samples of its current polynomial */
  /* Faithful long layout: each column's next sample, in a binary min-heap. */
  int *heap, *hpos, hn;
  double *hkey;
  /* The writer thread (cdevs_results_set_thread): the observer fills chunks of raw
   * values (a wide row's 1 + nports doubles, or a long record's time, column and
   * value), the thread formats them in order; between the thread's start and its join
   * only it touches f, ob and olen. */
  int want_thread, threaded;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  double *chunk[CHUNKS];
  size_t fill[CHUNKS];
  int prod, cons, queued, ending;
  uint64_t passed; /* chunks handed to the thread (cdevs__results_chunks_passed) */
  /* Another container (cdevs_results_set_sink): rows and records go to it, not to f. */
  const cdevs_results_sink *sink;
  void *sink_ud;
};


enum { OB_CAP = 1 << 18 };

static void ob_flush(cdevs_results *r) {
  if (r->olen && fwrite(r->ob, 1, r->olen, r->f) != r->olen && !r->failed) r->failed = errno ? errno : EIO;
  r->olen = 0;
}

/* Room for `need` more bytes in ob. */
static inline char *ob_room(cdevs_results *r, size_t need) {
  if (r->olen + need > OB_CAP) ob_flush(r);
  return r->ob + r->olen;
}

/* sep (if not 0) and v as the shortest text that reads back as v. */
static inline void ob_num(cdevs_results *r, char sep, double v) {
  char *p = ob_room(r, CDEVS_NUM_MAX + 1), *p0 = p;
  if (sep) *p++ = sep;
  p += cdevs__fmt_double(p, v);
  r->olen += (size_t)(p - p0);
}

static inline void ob_bytes(cdevs_results *r, const void *b, size_t n) {
  if (n > OB_CAP) {
    ob_flush(r);
    if (fwrite(b, 1, n, r->f) != n && !r->failed) r->failed = errno ? errno : EIO;
    return;
  }
  memcpy(ob_room(r, n), b, n);
  r->olen += n;
}

/* A value that is not a finite number reached the file (a state past the range of
 * doubles at the stop time, extrapolated): noted, for cdevs_results_bad_value. */
static void note_bad(cdevs_results *r, int col, double t, double v) {
  if (r->bad_col < 0) r->bad_col = col, r->bad_t = t, r->bad_v = v;
}

/* Column col's value v, written at t: its scale (faithful sampling) and its
 * finiteness. */
static inline void take_value(cdevs_results *r, int col, double t, double v) {
  if (!isfinite(v)) note_bad(r, col, t, v);
  if (r->scale && fabs(v) > r->scale[col]) r->scale[col] = fabs(v);
}

/* The CSV header, written before the first row (the layout may change until then). */
static void header(cdevs_results *r) {
  r->header_done = 1;
  if (r->sink) {
    const char *tmp = cdevs_results_file_temp(r->file);
    int e = r->sink->begin(r->sink_ud, tmp ? tmp : r->file->target, (size_t)r->nports,
                           (const char *const *)r->names, r->layout_long ? CDEVS_RESULTS_LONG : CDEVS_RESULTS_WIDE,
                           r->step);
    if (e && !r->failed) r->failed = e;
    return;
  }
  if (r->mat) return;
  if (r->layout_long) {
    ob_bytes(r, "time,variable,value\n", 20);
    return;
  }
  ob_bytes(r, "time", 4);
  for (int p = 0; p < r->nports; p++) {
    ob_bytes(r, ",", 1);
    ob_bytes(r, r->csvname[p], strlen(r->csvname[p]));
  }
  ob_bytes(r, "\n", 1);
}

/* The text of a long record. */
static void fmt_long(cdevs_results *r, double t, int c, double v) {
  ob_num(r, 0, t);
  ob_bytes(r, ",", 1);
  ob_bytes(r, r->csvname[c], r->csvlen[c]);
  ob_num(r, ',', v);
  *ob_room(r, 1) = '\n';
  r->olen++;
}

/* The text of a wide row: p[0] the time, then the columns' values. */
static void fmt_wide(cdevs_results *r, const double *p) {
  ob_num(r, 0, p[0]);
  for (int k = 0; k < r->nports; k++) ob_num(r, ',', p[1 + k]);
  *ob_room(r, 1) = '\n';
  r->olen++;
}

static void *writer_main(void *arg) {
  cdevs_results *r = arg;
  pthread_mutex_lock(&r->mu);
  for (;;) {
    while (!r->queued && !r->ending) pthread_cond_wait(&r->cv, &r->mu);
    if (!r->queued) break;
    const double *d = r->chunk[r->cons];
    size_t n = r->fill[r->cons];
    pthread_mutex_unlock(&r->mu);
    if (r->sink) { /* the sink's calls, in order, from this thread only */
      int e = 0;
      if (r->layout_long) {
        for (size_t i = 0; i + 3 <= n && !e && !r->failed; i += 3)
          e = r->sink->record(r->sink_ud, d[i], (size_t)d[i + 1], d[i + 2]);
      } else {
        size_t w = 1 + (size_t)r->nports;
        for (size_t i = 0; i + w <= n && !e && !r->failed; i += w) e = r->sink->row(r->sink_ud, d[i], d + i + 1);
      }
      if (e && !r->failed) r->failed = e;
    } else if (r->layout_long) {
      for (size_t i = 0; i + 3 <= n; i += 3) fmt_long(r, d[i], (int)d[i + 1], d[i + 2]);
    } else {
      size_t w = 1 + (size_t)r->nports;
      for (size_t i = 0; i + w <= n; i += w) fmt_wide(r, d + i);
    }
    pthread_mutex_lock(&r->mu);
    r->cons = (r->cons + 1) % CHUNKS;
    r->queued--;
    pthread_cond_signal(&r->cv);
  }
  pthread_mutex_unlock(&r->mu);
  return NULL;
}

/* Hands the filled chunk to the thread and waits for a free one. */
static void chunk_pass(cdevs_results *r) {
  r->passed++;
  pthread_mutex_lock(&r->mu);
  r->queued++;
  r->prod = (r->prod + 1) % CHUNKS;
  pthread_cond_signal(&r->cv);
  while (r->queued == CHUNKS) pthread_cond_wait(&r->cv, &r->mu);
  r->fill[r->prod] = 0;
  pthread_mutex_unlock(&r->mu);
}

/* Room for n doubles in the producer's chunk. */
static inline double *chunk_room(cdevs_results *r, size_t n) {
  if (r->fill[r->prod] + n > CHUNK_DOUBLES) chunk_pass(r);
  double *p = r->chunk[r->prod] + r->fill[r->prod];
  r->fill[r->prod] += n;
  return p;
}

/* Starts the writer thread (after the header): 0, or -1 to write in this thread. */
static int writer_start(cdevs_results *r) {
  for (int i = 0; i < CHUNKS; i++) {
    if (!(r->chunk[i] = malloc(CHUNK_DOUBLES * sizeof(double)))) return -1;
    r->fill[i] = 0;
  }
  if (pthread_mutex_init(&r->mu, NULL)) return -1;
  if (pthread_cond_init(&r->cv, NULL)) {
    pthread_mutex_destroy(&r->mu);
    return -1;
  }
  /* The thread takes no signals: they stay the application's threads' to handle. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int rc = pthread_create(&r->thread, NULL, writer_main, r);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc) {
    pthread_cond_destroy(&r->cv);
    pthread_mutex_destroy(&r->mu);
    return -1;
  }
  r->threaded = 1;
  return 0;
}

/* Everything handed over is written; the thread is gone and this one writes again. */
static void writer_stop(cdevs_results *r) {
  if (!r->threaded) return;
  pthread_mutex_lock(&r->mu);
  if (r->fill[r->prod]) r->queued++, r->prod = (r->prod + 1) % CHUNKS;
  r->ending = 1;
  pthread_cond_signal(&r->cv);
  pthread_mutex_unlock(&r->mu);
  pthread_join(r->thread, NULL);
  pthread_cond_destroy(&r->cv);
  pthread_mutex_destroy(&r->mu);
  r->threaded = 0;
}

/* Before the first row: the header, and the thread if asked for and worth it. */
static void first_row(cdevs_results *r) {
  header(r);
  /* A wide row must fit a chunk several times over; MAT needs no formatting. A sink
   * is called from the thread instead (its writes then overlap the simulation). */
  if (r->want_thread && !r->mat && !r->failed && (r->layout_long || (size_t)r->nports + 1 <= CHUNK_DOUBLES / 8))
    (void)writer_start(r); /* the header waits in ob, which the thread takes over */
}

/* Long layout: one record, column c's value v at t. */
static void long_rec(cdevs_results *r, double t, int c, double v) {
  if (!r->header_done) first_row(r);
  if (r->rows == 0) r->first_t = t;
  r->rows++;
  take_value(r, c, t, v);
  r->last_row[c] = t;
  if (r->sink && !r->threaded) {
    int e = r->failed ? 0 : r->sink->record(r->sink_ud, t, (size_t)c, v);
    if (e) r->failed = e;
    return;
  }
  if (r->threaded) {
    double *p = chunk_room(r, 3);
    p[0] = t, p[1] = (double)c, p[2] = v;
    return;
  }
  fmt_long(r, t, c, v);
}

/* A row at t: the series' values, or vals[] when given (left limits). */
static void row_of(cdevs_results *r, double t, const double *vals) {
  if (!r->header_done) first_row(r);
  if (r->layout_long) { /* dense rows in the long layout: a record per column */
    for (int k = 0; k < r->nports; k++) long_rec(r, t, k, vals ? vals[k] : cdevs__sig_eval(&r->s[k], t));
    return;
  }
  if (r->rows == 0) r->first_t = t;
  r->rows++;
  /* The values, into the thread's chunk (CSV text made there) or formatted here. */
  double *p = r->threaded ? chunk_room(r, 1 + (size_t)r->nports) : r->rowbuf;
  p[0] = t;
  for (int k = 0; k < r->nports; k++) {
    p[1 + k] = vals ? vals[k] : cdevs__sig_eval(&r->s[k], t);
    take_value(r, k, t, p[1 + k]);
  }
  if (r->threaded) return;
  if (r->sink) {
    int e = r->failed ? 0 : r->sink->row(r->sink_ud, t, p + 1);
    if (e) r->failed = e;
  } else if (r->mat)
    ob_bytes(r, p, (1 + (size_t)r->nports) * sizeof *p);
  else
    fmt_wide(r, p);
}

static void row(cdevs_results *r, double t) { row_of(r, t, NULL); }

static inline double max2(double a, double b) { return a > b ? a : b; }

/* The accuracy of column k's values near v: its quantum. */
static double quantum(const cdevs_results *r, double v) {
  double q = r->rel * fabs(v);
  return q > r->abs_tol ? q : r->abs_tol;
}

/* Faithful: the instant row_t is complete. Its left limits first, where a value
 * jumped by more than the ~2 quanta a requantization may move it (a reinit, a
 * discrete's change: the row before the event, as Modelica tools write it). */
static void finish_instant(cdevs_results *r) {
  if (r->faithful && r->left) {
    int jump = 0;
    for (int k = 0; k < r->nports; k++) {
      double v = r->cur[k] = cdevs__sig_eval(&r->s[k], r->row_t);
      jump |= fabs(v - r->left[k]) > 4.0 * quantum(r, r->left[k]);
    }
    if (jump) row_of(r, r->row_t, r->left);
    row_of(r, r->row_t, r->cur);
    return;
  }
  row(r, r->row_t);
}

/* Faithful: rows strictly between a and b, where the series are the ones set by a,
 * spaced so that joining them with straight lines stays within a quantum of every
 * polynomial: a polynomial p deviates from its chord over h by at most h²/8 max|p''|
 * (p'' of a cubic is linear: its largest size is at an end). At most 10,000 rows per
 * interval. */
static void sample_between(cdevs_results *r, double a, double b, const double *va, const double *vb) {
  if (!(b > a) || !isfinite(b)) return;
  double h = INFINITY;
  for (int k = 0; k < r->nports; k++) {
    const series *sg = &r->s[k];
    if (sg->order < 2) continue;
    /* p'' at both ends (of a quadratic: constant), and p at both ends, given or not. */
    double da = a - sg->t, db = b - sg->t;
    double p2a = 2.0 * sg->c[2], p2b = p2a;
    if (sg->order > 2) p2a += 6.0 * sg->c[3] * da, p2b += 6.0 * sg->c[3] * db;
    double p2 = max2(fabs(p2a), fabs(p2b));
    double pa = va ? va[k] : cdevs_taylor_eval(sg->c, sg->order, da);
    double pb = vb ? vb[k] : cdevs_taylor_eval(sg->c, sg->order, db);
    /* A quantum at the larger end, or a thousandth of the column's scale (below a
     * pixel of any plot) where that is larger: a relative quantum of 1e-6 near a
     * bouncing ball's floor would sample every 0.1 ms (6 MB for bball.mo). */
    double dq = max2(max2(quantum(r, pa), quantum(r, pb)), 1e-3 * max2(r->scale[k], fabs(pa)));
    if (p2 > 0.0 && dq > 0.0) h = fmin(h, sqrt(8.0 * dq / p2));
  }
  if (!(h < b - a)) return;
  double n = ceil((b - a) / h);
  if (n > 10000.0) n = 10000.0;
  for (double i = 1.0; i < n; i++) {
    double t = a + (b - a) * i / n;
    if (t >= b) break;
    row(r, t);
  }
}

/* Faithful: the values at t before the instant's changes (t > row_t). */
static void take_left(cdevs_results *r, double t) {
  for (int k = 0; k < r->nports; k++) r->left[k] = cdevs__sig_eval(&r->s[k], t);
}

/* Dense rows strictly before t (the series are valid up to t). */
static void dense_until(cdevs_results *r, double t, int inclusive) {
  for (;;) {
    double g = r->t0 + (double)r->k * r->step;
    /* The grid point that is the stop time but for rounding (6 · 0.1 =
     * 0.6000000000000001 against a stop at 0.6): its row, at the stop time. */
    if (inclusive && g > t && g - t <= 1e-9 * r->step) {
      row(r, t);
      r->k++;
      break;
    }
    if (inclusive ? g > t : g >= t) break;
    row(r, g);
    r->k++;
  }
}

/* ---- the long layout's records: each column at its own changes --------------------- */

static void heap_swap(cdevs_results *r, int i, int j) {
  int a = r->heap[i], b = r->heap[j];
  r->heap[i] = b, r->heap[j] = a;
  r->hpos[b] = i, r->hpos[a] = j;
}

static void heap_up(cdevs_results *r, int i) {
  while (i > 0) {
    int p = (i - 1) / 2;
    if (!(r->hkey[r->heap[i]] < r->hkey[r->heap[p]])) break;
    heap_swap(r, i, p);
    i = p;
  }
}

static void heap_down(cdevs_results *r, int i) {
  for (;;) {
    int l = 2 * i + 1, m = i;
    if (l < r->hn && r->hkey[r->heap[l]] < r->hkey[r->heap[m]]) m = l;
    if (l + 1 < r->hn && r->hkey[r->heap[l + 1]] < r->hkey[r->heap[m]]) m = l + 1;
    if (m == i) return;
    heap_swap(r, i, m);
    i = m;
  }
}

/* Column c's next sample at key (INFINITY: none). */
static void heap_set(cdevs_results *r, int c, double key) {
  int i = r->hpos[c];
  if (i < 0) {
    if (!(key < INFINITY)) return;
    i = r->hn++;
    r->heap[i] = c, r->hpos[c] = i;
    r->hkey[c] = key;
    heap_up(r, i);
    return;
  }
  if (!(key < INFINITY)) { /* removed: the last entry takes its place */
    int last = --r->hn;
    r->hpos[c] = -1;
    if (i != last) {
      int moved = r->heap[last];
      r->heap[i] = moved, r->hpos[moved] = i;
      heap_up(r, i);
      heap_down(r, r->hpos[moved]);
    }
    return;
  }
  double old = r->hkey[c];
  r->hkey[c] = key;
  if (key < old)
    heap_up(r, i);
  else
    heap_down(r, i);
}

/* Faithful: the time after s where column c's polynomial p next needs a sample, so
 * that straight lines through its samples stay within a quantum of it: over h its
 * chord deviates by at most h^2/8 max|p2|, with |p2| <= |p2(s)| + |p3| h there (p2,
 * p3: its second and third derivatives); half of the quantum for each term.
 * INFINITY for a line or a constant. */
static double next_sample(const cdevs_results *r, int c, double s) {
  const series *sg = &r->s[c];
  if (sg->order < 2) return INFINITY;
  double cs[4];
  cdevs__sig_at(sg, s, cs);
  double p2 = fabs(2.0 * cs[2]), p3 = sg->order > 2 ? fabs(6.0 * cs[3]) : 0.0;
  double dq = max2(quantum(r, cs[0]), 1e-3 * max2(r->scale[c], fabs(cs[0])));
  double h = INFINITY;
  if (p2 > 0.0) h = sqrt(4.0 * dq / p2);
  if (p3 > 0.0) h = fmin(h, cbrt(4.0 * dq / p3));
  return s + h > s ? s + h : INFINITY;
}

/* Faithful: every column's samples before t, in time order (at most 10,000 for one
 * polynomial). */
static void long_samples_until(cdevs_results *r, double t) {
  while (r->hn > 0) {
    int c = r->heap[0];
    double ts = r->hkey[c];
    if (!(ts < t)) break;
    long_rec(r, ts, c, cdevs__sig_eval(&r->s[c], ts));
    heap_set(r, c, ++r->nsamp[c] < 10000 ? next_sample(r, c, ts) : INFINITY);
  }
}

/* The instant row_t is complete: the records of the columns that changed at it (after
 * a left limit where one jumped), and, faithful, their first samples scheduled. */
static void long_instant(cdevs_results *r) {
  for (int i = 0; i < r->npend; i++) {
    int c = r->plist[i];
    double v = cdevs__sig_eval(&r->s[c], r->row_t);
    if (r->faithful && fabs(v - r->left[c]) > 4.0 * quantum(r, r->left[c])) long_rec(r, r->row_t, c, r->left[c]);
    long_rec(r, r->row_t, c, v);
    r->pending[c] = 0;
    if (r->faithful) {
      r->nsamp[c] = 0;
      heap_set(r, c, next_sample(r, c, r->row_t));
    }
  }
  r->npend = 0;
}

static void long_output(cdevs_results *r, double t, int col, const cdevs_value *v) {
  if (!isnan(r->row_t) && t != r->row_t) {
    long_instant(r);
    if (r->faithful) long_samples_until(r, t);
  }
  if (!r->pending[col]) {
    r->pending[col] = 1;
    r->plist[r->npend++] = col;
    if (r->faithful) r->left[col] = isnan(r->last_row[col]) ? NAN : cdevs__sig_eval(&r->s[col], t);
  }
  r->row_t = t;
  cdevs__sig_set(&r->s[col], v, t);
}

static void long_finish(cdevs_results *r, double t_end) {
  if (isnan(r->row_t)) return;
  long_instant(r);
  if (r->faithful) long_samples_until(r, t_end);
  for (int c = 0; c < r->nports; c++) /* the state at the stop time */
    if (!(r->last_row[c] >= t_end)) long_rec(r, t_end, c, cdevs__sig_eval(&r->s[c], t_end));
}

static uint32_t hash_key(uint64_t key) {
  key ^= key >> 33;
  key *= 0xff51afd7ed558ccdu;
  key ^= key >> 33;
  return (uint32_t)key;
}

/* The hash slot of (atomic, port): where it is, or the empty slot where it would go. */
static uint32_t slot_of(const cdevs_results *r, uint32_t atomic, int port, uint64_t *key) {
  *key = ((uint64_t)atomic << 32 | (uint32_t)port) + 1; /* 0: an empty slot */
  uint32_t i = hash_key(*key) & r->hmask;
  while (r->hkeys[i] != *key && r->hkeys[i] != 0) i = (i + 1) & r->hmask;
  return i;
}

/* The first column following (atomic, port), or -1. */
static int column_of(const cdevs_results *r, uint32_t atomic, int port) {
  uint64_t key;
  uint32_t i = slot_of(r, atomic, port, &key);
  return r->hkeys[i] ? r->hcols[i] : -1;
}

static void on_output(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  cdevs_results *r = ud;
  int col = column_of(r, atomic, port); /* the first of the columns that follow it */
  if (col < 0) return;
  if (r->layout_long && r->step == 0.0) {
    for (; col >= 0; col = r->same_next[col]) long_output(r, t, col, v);
    return;
  }
  if (r->step > 0.0) {
    dense_until(r, t, 0);
  } else if (!isnan(r->row_t) && t != r->row_t) {
    if (r->faithful) {
      finish_instant(r); /* cur: the values at row_t */
      take_left(r, t);   /* left: the values at t before its changes */
      sample_between(r, r->row_t, t, r->cur, r->left);
    } else {
      row(r, r->row_t);
    }
  }
  r->row_t = t;
  for (; col >= 0; col = r->same_next[col]) cdevs__sig_set(&r->s[col], v, t);
}

static void free_results(cdevs_results *r) {
  int e = errno;
  for (int k = 0; r->names && k < r->nports; k++) free(r->names[k]);
  for (int k = 0; r->csvname && k < r->nports; k++) free(r->csvname[k]);
  free(r->csvname), free(r->csvlen);
  free(r->names), free(r->rowbuf), free(r->left), free(r->cur), free(r->scale);
  free(r->s), free(r->ob), free(r->hkeys), free(r->hcols), free(r->same_next), free(r->last_row);
  free(r->pending), free(r->plist), free(r->nsamp), free(r->heap), free(r->hpos), free(r->hkey);
  for (int i = 0; i < CHUNKS; i++) free(r->chunk[i]);
  free(r);
  errno = e;
}

/* A CSV field as RFC 4180 has it: quoted, with quotes doubled, when it holds a comma,
 * a quote or a line break (an array element "u[1,2]" would otherwise be two). */
static char *csv_field(const char *s) {
  if (!strpbrk(s, ",\"\r\n")) return dup_str(s);
  size_t n = 3;
  for (const char *c = s; *c; c++) n += *c == '"' ? 2 : 1;
  char *q = malloc(n), *o = q;
  if (!q) return NULL;
  *o++ = '"';
  for (; *s; s++) {
    if (*s == '"') *o++ = '"';
    *o++ = *s;
  }
  *o++ = '"';
  *o = '\0';
  return q;
}

static int mat_begin(cdevs_results *r);

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
  r->first_t = NAN;
  r->bad_col = -1;
  r->nports = (int)n;
  r->s = calloc(n ? n : 1, sizeof *r->s);
  r->names = calloc(n ? n : 1, sizeof *r->names);
  r->csvname = calloc(n ? n : 1, sizeof *r->csvname);
  r->csvlen = calloc(n ? n : 1, sizeof *r->csvlen);
  r->rowbuf = calloc(n + 1, sizeof *r->rowbuf);
  r->ob = malloc(OB_CAP);
  uint32_t hcap = 16;
  while (hcap < 2 * n) hcap *= 2;
  r->hmask = hcap - 1;
  r->hkeys = calloc(hcap, sizeof *r->hkeys);
  r->hcols = calloc(hcap, sizeof *r->hcols);
  r->same_next = calloc(n ? n : 1, sizeof *r->same_next);
  if (!r->s || !r->names || !r->csvname || !r->csvlen || !r->rowbuf || !r->ob || !r->hkeys || !r->hcols ||
      !r->same_next) {
    free_results(r);
    return CDEVS_ENOMEM;
  }
  for (size_t k = 0; k < n; k++) {
    if (!atomics[k]) {
      free_results(r);
      return CDEVS_EINVAL;
    }
    /* The hash finds the first column of (atomic, port); the others follow it. */
    r->same_next[k] = -1;
    uint64_t key;
    uint32_t i = slot_of(r, cdevs_sim_atomic_id(sim, atomics[k]), ports[k], &key);
    if (!r->hkeys[i]) {
      r->hkeys[i] = key, r->hcols[i] = (int)k;
    } else {
      int c = r->hcols[i];
      while (r->same_next[c] >= 0) c = r->same_next[c];
      r->same_next[c] = (int)k;
    }
    const char *nm = names && names[k] ? names[k] : cdevs_port_name(atomics[k], CDEVS_OUT, ports[k]);
    if (!(r->names[k] = dup_str(nm ? nm : "?")) || !(r->csvname[k] = csv_field(r->names[k]))) {
      free_results(r);
      return CDEVS_ENOMEM;
    }
    r->csvlen[k] = strlen(r->csvname[k]);
  }
  const char *dot = strrchr(path, '.');
  r->mat = dot && strcmp(dot, ".mat") == 0;
  cdevs_status st = cdevs_results_file_open(path, &r->file);
  if (st) {
    free_results(r);
    return st;
  }
  r->f = cdevs_results_file_stream(r->file);
  if (r->mat) {
    if (mat_begin(r)) st = CDEVS_EIO;
  }
  r->obs.output = on_output;
  if (!st) st = cdevs_sim_observe(sim, &r->obs, r);
  if (st) {
    int e = errno;
    cdevs_results_file_close(r->file, 0);
    free_results(r);
    errno = e;
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

const char *cdevs_results_temp(const cdevs_results *r) { return r ? cdevs_results_file_temp(r->file) : NULL; }

cdevs_status cdevs_results_set_accuracy(cdevs_results *r, double rel, double abs_tol) {
  if (!r || r->step > 0.0 || !(rel >= 0.0) || !(abs_tol > 0.0) || !isfinite(rel) || !isfinite(abs_tol) ||
      r->rows)
    return CDEVS_EINVAL;
  size_t n = r->nports ? (size_t)r->nports : 1;
  if (!r->left && !(r->left = calloc(n, sizeof *r->left))) return CDEVS_ENOMEM;
  if (!r->scale && !(r->scale = calloc(n, sizeof *r->scale))) return CDEVS_ENOMEM;
  if (!r->cur && !(r->cur = calloc(n, sizeof *r->cur))) return CDEVS_ENOMEM;
  r->rel = rel, r->abs_tol = abs_tol, r->faithful = 1;
  for (int k = 0; k < r->nports; k++) r->left[k] = NAN; /* no jump before the first instant */
  return CDEVS_OK;
}

cdevs_status cdevs_results_set_layout(cdevs_results *r, cdevs_results_layout layout) {
  if (!r || r->rows || r->header_done || (layout != CDEVS_RESULTS_WIDE && layout != CDEVS_RESULTS_LONG) ||
      (r->mat && layout == CDEVS_RESULTS_LONG))
    return CDEVS_EINVAL;
  if (layout == CDEVS_RESULTS_WIDE) {
    r->layout_long = 0;
    return CDEVS_OK;
  }
  size_t n = r->nports ? (size_t)r->nports : 1;
  if (!r->last_row && !(r->last_row = malloc(n * sizeof *r->last_row))) return CDEVS_ENOMEM;
  if (!r->pending && !(r->pending = calloc(n, 1))) return CDEVS_ENOMEM;
  if (!r->plist && !(r->plist = calloc(n, sizeof *r->plist))) return CDEVS_ENOMEM;
  if (!r->nsamp && !(r->nsamp = calloc(n, sizeof *r->nsamp))) return CDEVS_ENOMEM;
  if (!r->heap && !(r->heap = calloc(n, sizeof *r->heap))) return CDEVS_ENOMEM;
  if (!r->hpos && !(r->hpos = malloc(n * sizeof *r->hpos))) return CDEVS_ENOMEM;
  if (!r->hkey && !(r->hkey = calloc(n, sizeof *r->hkey))) return CDEVS_ENOMEM;
  for (int k = 0; k < r->nports; k++) r->last_row[k] = NAN, r->hpos[k] = -1;
  r->layout_long = 1; /* only now: a failed allocation leaves the wide layout whole */
  return CDEVS_OK;
}

/* For the tests: how many chunks went to the writer thread (0: it never ran). */
uint64_t cdevs__results_chunks_passed(const cdevs_results *r);
uint64_t cdevs__results_chunks_passed(const cdevs_results *r) { return r ? r->passed : 0; }

cdevs_status cdevs_results_set_sink(cdevs_results *r, const cdevs_results_sink *sink, void *ud) {
  if (!r || r->rows || r->header_done || r->mat || r->sink || !sink || !sink->begin || !sink->row ||
      !sink->record || !sink->end)
    return CDEVS_EINVAL;
  r->sink = sink, r->sink_ud = ud;
  return CDEVS_OK;
}

cdevs_status cdevs_results_set_thread(cdevs_results *r, int on) {
  if (!r || r->rows || r->header_done) return CDEVS_EINVAL;
  r->want_thread = on != 0;
  return CDEVS_OK;
}

int cdevs_results_bad_value(const cdevs_results *r, double *t, double *v, const char **column) {
  if (!r || r->bad_col < 0) return 0;
  *t = r->bad_t, *v = r->bad_v, *column = r->names[r->bad_col];
  return 1;
}

/* ---- MAT v4 in the Dymola / OpenModelica result layout ("binTrans") -----------------
 * Matrices, each a 20-byte header (type, rows, cols, imaginary flag, name length),
 * the name with its NUL, then the data column by column. Type 0 is double, 20 int32,
 * 51 text (one byte per character). The layout: Aclass (format identification),
 * name and description (one column per variable), dataInfo (per variable: which
 * data matrix, which row of it, 0, -1), data_1 (constant values, here time only)
 * and data_2 (time and the variables, one column per time point). data_2 is last, so
 * each row of results is one more column at the end of the file; its column count
 * and data_1's time span are filled in at close. */

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

/* Everything up to data_2's first column; 0, or -1 with errno. */
static int mat_begin(cdevs_results *r) {
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
    errno = ENOMEM;
    return -1;
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
  double span[2] = {r->t0, r->t0};
  mat_header(f, 0, 1, 2, "data_1");
  r->off_data1 = ftell(f);
  fwrite(span, sizeof span, 1, f);
  r->off_data2 = ftell(f);
  mat_header(f, 0, nv, 0, "data_2");
  if (r->off_data1 < 0 || r->off_data2 < 0) return -1; /* not seekable: a pipe */
  return ferror(f) ? -1 : 0;
}

/* Fills in data_1's time span and data_2's column count. 0, or -1 with errno. */
static int mat_finish(cdevs_results *r, double t_end) {
  if (r->rows > INT32_MAX) {
    errno = EFBIG;
    return -1;
  }
  double span[2] = {r->rows ? r->first_t : r->t0, t_end};
  int32_t cols = (int32_t)r->rows;
  ob_flush(r);
  if (fflush(r->f) || fseek(r->f, r->off_data1, SEEK_SET) || fwrite(span, sizeof span, 1, r->f) != 1 ||
      fseek(r->f, r->off_data2 + 8, SEEK_SET) || fwrite(&cols, sizeof cols, 1, r->f) != 1 ||
      fseek(r->f, 0, SEEK_END))
    return -1;
  return 0;
}

void cdevs_results_finish(cdevs_results *r, double t_end) {
  if (!r || r->finished) return;
  r->finished = 1;
  cdevs_sim_unobserve(r->sim, &r->obs, r);
  if (r->step > 0.0) {
    dense_until(r, t_end, 1);
  } else if (r->layout_long) {
    long_finish(r, t_end);
  } else if (!isnan(r->row_t)) {
    if (r->faithful) {
      finish_instant(r);
      sample_between(r, r->row_t, t_end, r->cur, NULL);
    } else {
      row(r, r->row_t);
    }
    if (t_end > r->row_t) row(r, t_end); /* the state at the stop time */
  }
}

cdevs_status cdevs_results_close(cdevs_results *r, double t_end, int ok) {
  if (!r) return CDEVS_OK;
  if (ok) {
    cdevs_results_finish(r, t_end);
  } else if (!r->finished) {
    r->finished = 1;
    cdevs_sim_unobserve(r->sim, &r->obs, r);
  }
  writer_stop(r);
  int e = 0;
  if (ok && !r->header_done) header(r);
  if (r->sink) { /* always told the end, so that it frees what it holds */
    int se = r->sink->end(r->sink_ud, ok && r->header_done && !r->failed);
    if (ok && se && !r->failed) r->failed = se;
  }
  if (ok) ob_flush(r);
  if (ok && r->failed) e = r->failed;
  if (ok && !e && r->mat && mat_finish(r, t_end)) e = errno;
  cdevs_status st = cdevs_results_file_close(r->file, ok && !e);
  if (!st && e) st = CDEVS_EIO;
  if (st && e) errno = e;
  free_results(r);
  return ok ? st : CDEVS_OK;
}
