/* SPDX-License-Identifier: MIT */
/* Result files: the outputs of a model written as CSV while it runs. */
#ifndef CDEVS_RESULTS_H
#define CDEVS_RESULTS_H

#include "model.h"
#include "sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdevs_results cdevs_results;

/*
 * Records every output port of `atomic` (values are Taylor series, evaluated exactly)
 * into a CSV file with the header "time,<port names>". With step = 0 a row is written
 * for every instant at which an output changes (its values after that instant);
 * with step > 0 rows are written at t0, t0 + step, … (dense output). A path ending
 * in ".mat" gets MAT v4 in the Dymola/OpenModelica result layout instead (name,
 * description, dataInfo, data_1, data_2: what OMPlot and DyMat read), kept in
 * memory and written at close. The file is written as path.part and renamed by
 * cdevs_results_close.
 */
cdevs_status cdevs_results_open(cdevs_sim *sim, const cdevs_model *atomic, const char *path,
                                double step, cdevs_results **out);
/* The same for chosen output ports of several atomic models (column k follows port
 * ports[k] of atomics[k], headed names[k], or the port's name when names is NULL). */
cdevs_status cdevs_results_open_ports(cdevs_sim *sim, size_t n, const cdevs_model *const *atomics,
                                      const int *ports, const char *const *names, const char *path,
                                      double step, cdevs_results **out);
/* Writes what is pending up to t_end; ok = 0 discards the file. Returns CDEVS_EIO if
 * writing failed. Detaches from the simulator; NULL is accepted. */
cdevs_status cdevs_results_close(cdevs_results *r, double t_end, int ok);
/* Rows written so far. */
uint64_t cdevs_results_rows(const cdevs_results *r);

#ifdef __cplusplus
}
#endif
#endif
