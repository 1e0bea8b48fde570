/* SPDX-License-Identifier: MIT */
/* Result files as HDF5: the layout is in h5out.h. Rows and records are buffered a
 * chunk at a time and each full buffer goes out in one H5Dwrite per dataset, the
 * dataset grown to take it. */
#include "h5out.h"

#include <errno.h>
#include <hdf5.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cdevs/version.h>

enum { CHUNK_ELEMS = 1 << 16, CHUNK_FILE = 1 << 13 };

typedef struct h5w {
  hid_t file;
  hid_t time, values, var; /* wide: time, values; long: time, values (= value), var */
  int is_long;
  size_t n;
  size_t cap, len; /* buffered rows or records */
  double *bt, *bv;
  int32_t *bc;
  hsize_t done; /* rows or records written */
} h5w;

/* errno after a failed HDF5 call, or EIO when the library left none. */
static int h5_errno(void) { return errno ? errno : EIO; }

static hid_t grow_dataset(hid_t file, const char *name, hid_t type, int rank, hsize_t cols, hsize_t chunk_rows) {
  hsize_t dims[2] = {0, cols}, maxd[2] = {H5S_UNLIMITED, cols}, chunk[2] = {chunk_rows, cols};
  hid_t space = H5Screate_simple(rank, dims, maxd), plist = H5Pcreate(H5P_DATASET_CREATE), d = -1;
  if (space >= 0 && plist >= 0 && H5Pset_chunk(plist, rank, chunk) >= 0)
    d = H5Dcreate2(file, name, type, space, H5P_DEFAULT, plist, H5P_DEFAULT);
  if (plist >= 0) H5Pclose(plist);
  if (space >= 0) H5Sclose(space);
  return d;
}

/* A scalar attribute of the root group: a string, or a double when s is NULL. */
static int root_attr(hid_t file, const char *name, const char *s, double v) {
  hid_t space = H5Screate(H5S_SCALAR), type = -1, a = -1;
  int ok = 0;
  if (space >= 0) {
    if (s) {
      type = H5Tcopy(H5T_C_S1);
      if (type >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 && H5Tset_cset(type, H5T_CSET_UTF8) >= 0 &&
          (a = H5Acreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
        ok = H5Awrite(a, type, &s) >= 0;
    } else if ((a = H5Acreate2(file, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT)) >= 0) {
      ok = H5Awrite(a, H5T_NATIVE_DOUBLE, &v) >= 0;
    }
  }
  if (a >= 0) H5Aclose(a);
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
  return ok ? 0 : -1;
}

static int write_names(hid_t file, size_t n, const char *const *names) {
  hsize_t dims[1] = {n};
  hid_t space = H5Screate_simple(1, dims, NULL), type = H5Tcopy(H5T_C_S1), d = -1;
  int ok = 0;
  if (space >= 0 && type >= 0 && H5Tset_size(type, H5T_VARIABLE) >= 0 && H5Tset_cset(type, H5T_CSET_UTF8) >= 0 &&
      (d = H5Dcreate2(file, "names", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) >= 0)
    ok = n == 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, names) >= 0;
  if (d >= 0) H5Dclose(d);
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
  return ok ? 0 : -1;
}

/* Appends rows [done, done + k) of a dataset of `cols` columns (cols = 0: rank 1). */
static int append(hid_t d, hid_t mtype, hsize_t done, hsize_t k, hsize_t cols, const void *buf) {
  int rank = cols ? 2 : 1;
  hsize_t size[2] = {done + k, cols}, start[2] = {done, 0}, count[2] = {k, cols};
  if (H5Dset_extent(d, size) < 0) return -1;
  hid_t fs = H5Dget_space(d), ms = H5Screate_simple(rank, count, NULL);
  int ok = fs >= 0 && ms >= 0 && H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0 &&
           H5Dwrite(d, mtype, ms, fs, H5P_DEFAULT, buf) >= 0;
  if (ms >= 0) H5Sclose(ms);
  if (fs >= 0) H5Sclose(fs);
  return ok ? 0 : -1;
}

static int flush(h5w *w) {
  if (!w->len) return 0;
  errno = 0;
  hsize_t k = w->len;
  int bad = append(w->time, H5T_NATIVE_DOUBLE, w->done, k, 0, w->bt) < 0;
  if (w->is_long) {
    bad = bad || append(w->var, H5T_NATIVE_INT32, w->done, k, 0, w->bc) < 0 ||
          append(w->values, H5T_NATIVE_DOUBLE, w->done, k, 0, w->bv) < 0;
  } else if (w->n) {
    bad = bad || append(w->values, H5T_NATIVE_DOUBLE, w->done, k, w->n, w->bv) < 0;
  }
  if (bad) return h5_errno();
  w->done += k;
  w->len = 0;
  return 0;
}

static int h5_begin(void *ud, const char *path, size_t n, const char *const *names, cdevs_results_layout layout,
                    double step) {
  h5w *w = ud;
  /* Failures are reported through errno and the recorder, not HDF5's error stack
   * printed on stderr. */
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
  errno = 0;
  w->is_long = layout == CDEVS_RESULTS_LONG;
  w->n = n;
  /* Chunks of 8 Ki elements (64 KB) in the file: a short run's file stays small. The
   * buffer holds 8 chunks' rows (64 Ki records, or the wide rows of 8 chunks), so that
   * every write fills whole chunks (a partly written chunk is read back and rewritten). */
  hsize_t rows = w->is_long || n <= 1 ? CHUNK_FILE : (CHUNK_FILE / n ? CHUNK_FILE / n : 1);
  w->cap = (size_t)rows * (CHUNK_ELEMS / CHUNK_FILE);
  w->bt = malloc(w->cap * sizeof *w->bt);
  w->bv = malloc(w->cap * (w->is_long ? 1 : (n ? n : 1)) * sizeof *w->bv);
  if (w->is_long) w->bc = malloc(w->cap * sizeof *w->bc);
  if (!w->bt || !w->bv || (w->is_long && !w->bc)) return ENOMEM;
  /* Truncates the temporary file the recorder created (the same inode: its name and
   * permissions stay the recorder's). */
  w->file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (w->file < 0) return h5_errno();
  if (root_attr(w->file, "layout", w->is_long ? "long" : "wide", 0) ||
      root_attr(w->file, "generator", "cdevs " CDEVS_VERSION_STRING, 0) || root_attr(w->file, "step", NULL, step) ||
      write_names(w->file, n, names))
    return h5_errno();
  w->time = grow_dataset(w->file, "time", H5T_IEEE_F64LE, 1, 0, rows);
  if (w->is_long) {
    w->var = grow_dataset(w->file, "variable", H5T_STD_I32LE, 1, 0, rows);
    w->values = grow_dataset(w->file, "value", H5T_IEEE_F64LE, 1, 0, rows);
  } else {
    w->var = 0;
    w->values = n ? grow_dataset(w->file, "values", H5T_IEEE_F64LE, 2, n, rows) : 0;
  }
  if (w->time < 0 || w->var < 0 || w->values < 0) return h5_errno();
  return 0;
}

static int h5_row(void *ud, double t, const double *values) {
  h5w *w = ud;
  w->bt[w->len] = t;
  if (w->n) memcpy(w->bv + w->len * w->n, values, w->n * sizeof *values);
  return ++w->len == w->cap ? flush(w) : 0;
}

static int h5_record(void *ud, double t, size_t column, double value) {
  h5w *w = ud;
  w->bt[w->len] = t;
  w->bc[w->len] = (int32_t)column;
  w->bv[w->len] = value;
  return ++w->len == w->cap ? flush(w) : 0;
}

static int h5_end(void *ud, int keep) {
  h5w *w = ud;
  int e = keep ? flush(w) : 0;
  errno = 0;
  if (w->time > 0) H5Dclose(w->time);
  if (w->var > 0) H5Dclose(w->var);
  if (w->values > 0) H5Dclose(w->values);
  if (w->file > 0 && H5Fclose(w->file) < 0 && !e) e = h5_errno();
  free(w->bt), free(w->bv), free(w->bc), free(w);
  return keep ? e : 0;
}

static const cdevs_results_sink sink = {h5_begin, h5_row, h5_record, h5_end};

const cdevs_results_sink *cdevs_hdf5_sink(void) { return &sink; }

void *cdevs_hdf5_new(void) {
  h5w *w = calloc(1, sizeof *w);
  if (w) w->file = w->time = w->values = w->var = -1;
  return w;
}
