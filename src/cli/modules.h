/* SPDX-License-Identifier: MIT */
/* The command's optional parts that bring large libraries with them, HDF5 result
 * files (cdevs-hdf5.so: HDF5, and through it libcurl and OpenSSL) and MPI ranks
 * (cdevs-mpi.so: OpenMPI), are modules loaded only when a run needs them. Linked in,
 * they cost every run of the command about 8 ms of start-up and 7 MB of memory for
 * some 40 shared libraries, as much as a whole DEVStone HOmod 20x20. */
#ifndef CDEVS_CLI_MODULES_H
#define CDEVS_CLI_MODULES_H

#include <stddef.h>

/* The address of symbol `sym` of module `name` ("cdevs-hdf5.so"), loaded once: from
 * $CDEVS_MODULE_DIR when it is set, else from the command's own folder (a build
 * tree), else from BIN/../LIBDIR/cdevs (an installed tree, wherever it was moved),
 * else from the folder `cmake --install` was configured to put them in. NULL after writing why
 * into err (n bytes). */
void *cli_module_sym(const char *name, const char *sym, char *err, size_t n);

#endif
