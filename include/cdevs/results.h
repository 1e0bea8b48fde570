/* SPDX-License-Identifier: MIT */
/* Result files: the outputs of a model written as CSV or MAT v4 (or through a sink,
 * e.g. HDF5) while it runs. */
#ifndef CDEVS_RESULTS_H
#define CDEVS_RESULTS_H

#include <stdio.h>

#include "model.h"
#include "sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdevs_results cdevs_results;

/*
 * Records every output port of `atomic` (values are Taylor series, evaluated exactly)
 * into a CSV file with the header "time,<port names>" (names quoted as RFC 4180 asks
 * when they hold a comma, a quote or a line break). With step = 0 a row is written
 * for every instant at which an output changes (its values after that instant);
 * with step > 0 rows are written at t0, t0 + step, … (dense output). A path ending
 * in ".mat" gets MAT v4 in the Dymola/OpenModelica result layout instead (name,
 * description, dataInfo, data_1, data_2: what OMPlot and DyMat read).
 *
 * Rows stream to disk as they come, in bounded memory, for MAT too: data_2 is
 * written one time point (one column) at a time and its column count is filled in
 * by cdevs_results_close. The file is written under a unique temporary name in the
 * target's directory and renamed onto the target by cdevs_results_close, so a run
 * that dies leaves the previous file (if any) intact and two runs never share a
 * temporary file. A symbolic link at path is followed: its target is written, the
 * link stays. On CDEVS_EIO, errno says why (ENOENT, EACCES, EROFS, EISDIR, …).
 */
cdevs_status cdevs_results_open(cdevs_sim *sim, const cdevs_model *atomic, const char *path,
                                double step, cdevs_results **out);
/* The same for chosen output ports of several atomic models (column k follows port
 * ports[k] of atomics[k], headed names[k], or the port's name when names is NULL). */
cdevs_status cdevs_results_open_ports(cdevs_sim *sim, size_t n, const cdevs_model *const *atomics,
                                      const int *ports, const char *const *names, const char *path,
                                      double step, cdevs_results **out);
/* Writes what is pending up to t_end and renames the file into place; ok = 0
 * discards it. The file is complete and valid up to its last row whenever close
 * returns CDEVS_OK, also for a run cut short (pass the time it reached). Returns
 * CDEVS_EIO if writing failed (errno says why). Detaches from the simulator; NULL is
 * accepted. */
cdevs_status cdevs_results_close(cdevs_results *r, double t_end, int ok);
/* The temporary file being written (cdevs_results_file_temp), or NULL. */
const char *cdevs_results_temp(const cdevs_results *r);
/* Writes what is pending up to t_end and detaches from the simulator, without
 * closing the file (cdevs_results_close does this itself when it was not done). */
void cdevs_results_finish(cdevs_results *r, double t_end);
/* Faithful rows (step = 0, before the first row): besides a row per instant,
 * (1) where a value jumps at an instant by more than 4 quanta (a quantum is
 * max(rel·|v|, abs_tol): what the model's tolerance promises; a requantization moves
 * a quantized value by up to 2), a row of the values just before it, with the same
 * time (left and right limits, as Modelica tools write events); (2) between instants,
 * rows sampled so that straight lines through them stay within a quantum of the
 * polynomials, or a thousandth of the column's scale (its largest |value| so far)
 * where that is larger, below a pixel of any plot (a falling ball's parabola, not a
 * chord between its bounces; a quantum of 1e-6 near its floor would sample every
 * 0.1 ms). */
cdevs_status cdevs_results_set_accuracy(cdevs_results *r, double rel, double abs_tol);
/* 1 if a value written was not a finite number (the first: its time, value and
 * column), else 0. A run whose results hold one is not a valid run. */
int cdevs_results_bad_value(const cdevs_results *r, double *t, double *v, const char **column);

/*
 * The CSV layout, chosen before the first row (CDEVS_EINVAL after it, or for MAT):
 * - CDEVS_RESULTS_WIDE (the default): "time,<names>", a row of every column per
 *   instant: right for a few variables, or for dense rows (step > 0);
 * - CDEVS_RESULTS_LONG: "time,variable,value", a record for a column only when it
 *   changes (step = 0; with its left limit where it jumps, and, faithful, its own
 *   samples between its changes), so the file grows with the changes, not with
 *   instants × columns; at the stop time a record of every column. Records are in time
 *   order; within an instant in the order the columns changed. With step > 0, a record
 *   of every column at each step.
 */
typedef enum { CDEVS_RESULTS_WIDE = 0, CDEVS_RESULTS_LONG = 1 } cdevs_results_layout;
cdevs_status cdevs_results_set_layout(cdevs_results *r, cdevs_results_layout layout);

/* on = 1: CSV text is formatted and written (or a sink, cdevs_results_set_sink, is
 * called) by a thread of its own: the simulation
 * makes the rows (left limits, samples) and hands their values over in chunks of
 * 16 KB, waiting only when eight are queued, so formatting and writing overlap the
 * simulation on a second core. The file is byte-identical either way. Before the
 * first row; not for MAT (nothing to format) or for wide rows of more than 255 columns
 * (written in this thread). A sink is called from one thread at a time: its begin
 * and end from the caller's, rows and records from the writer's. */
cdevs_status cdevs_results_set_thread(cdevs_results *r, int on);

/*
 * Another container for the same rows and records (the command writes HDF5 through
 * one, src/io/h5out.c). Set before the first row, not for MAT: the recorder then
 * formats nothing; begin gets the file to write (the temporary name, which
 * cdevs_results_close renames onto the target as for CSV), the column names and the
 * layout; then row (wide: the time and n values) or record (long: time, column,
 * value) in the order CSV would have them; end exactly once, from
 * cdevs_results_close, also when begin never came (keep = 0: the run failed or the
 * file is discarded; free everything). Each returns 0 or an errno value; after the
 * first failure the sink is told nothing more but end, and cdevs_results_close
 * returns CDEVS_EIO with that errno.
 */
typedef struct cdevs_results_sink {
  int (*begin)(void *ud, const char *path, size_t n, const char *const *names, cdevs_results_layout layout,
               double step);
  int (*row)(void *ud, double t, const double *values);
  int (*record)(void *ud, double t, size_t column, double value);
  int (*end)(void *ud, int keep);
} cdevs_results_sink;
cdevs_status cdevs_results_set_sink(cdevs_results *r, const cdevs_results_sink *sink, void *ud);

/*
 * Whether a result file could be written at path, without writing anything: its
 * directory (after following symbolic links) exists and is writable, and path is
 * not a directory. CDEVS_OK, or CDEVS_EIO with errno set to the reason, so that a
 * command can refuse a bad path before a long run rather than after it.
 */
cdevs_status cdevs_results_check_path(const char *path);

/*
 * Any output file with the same guarantees: written under a unique temporary name
 * in the directory of path's (link-followed) target and renamed onto it by
 * cdevs_results_file_close(f, 1); cdevs_results_file_close(f, 0) removes it. The
 * FILE is the caller's to write, not to close. On CDEVS_EIO errno says why.
 */
typedef struct cdevs_results_file cdevs_results_file;
cdevs_status cdevs_results_file_open(const char *path, cdevs_results_file **out);
FILE *cdevs_results_file_stream(cdevs_results_file *f);
/* The temporary file's name (NULL when the target, a device or a pipe, is written in
 * place). When the final rename fails, close returns CDEVS_EIO and leaves the whole
 * file under this name rather than lose a finished run. */
const char *cdevs_results_file_temp(const cdevs_results_file *f);
/* Flushes, closes and renames into place (keep = 1) or removes (keep = 0). Returns
 * CDEVS_EIO if anything written was lost (the file is removed) or if the rename failed
 * (the file stays under cdevs_results_file_temp's name); NULL is accepted. */
cdevs_status cdevs_results_file_close(cdevs_results_file *f, int keep);

#ifdef __cplusplus
}
#endif
#endif
