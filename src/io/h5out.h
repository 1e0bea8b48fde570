/* SPDX-License-Identifier: MIT */
/* Result files as HDF5 (Debian libhdf5-dev), through the recorder's sink
 * (cdevs_results_set_sink). Linked into the command, not into libcdevs: HDF5 brings
 * libcurl and OpenSSL with it, which an embedded kernel should not carry.
 *
 * The file (readable by h5py, MATLAB's h5read, Julia's HDF5.jl, h5dump):
 * - attributes on the root group: layout ("wide" or "long"), step (0: a row or record
 *   per change), generator ("cdevs <version>");
 * - names: the variables' names (variable-length UTF-8 strings), n of them;
 * - wide: time[N] and values[N][n] (row i: the values at time[i]);
 * - long: time[N], variable[N] (int32, an index into names) and value[N]: one record
 *   per variable and change, in the order of the CSV long layout.
 * Datasets are chunked (8 Ki elements) and grow as the run goes; a run cut short
 * leaves a complete file up to its last record, as CSV does. */
#ifndef CDEVS_IO_H5OUT_H
#define CDEVS_IO_H5OUT_H

#include <cdevs/results.h>

/* The sink, and a new writer for one result file (NULL without memory); the writer is
 * freed by the sink's end. */
const cdevs_results_sink *cdevs_hdf5_sink(void);
void *cdevs_hdf5_new(void);

#endif
