/* SPDX-License-Identifier: MIT */
/* The ranks of an MPI launch: replications across machines (DESIGN §8). MPI is
 * optional at build time (CDEVS_HAVE_MPI: Debian libopenmpi-dev), lives in the
 * module cdevs-mpi.so (ranks_mpi.c) and is loaded and started only under mpirun.
 * Ranks hold no shared state: rank 0 sends the model text, each rank runs its
 * replications (on its own --jobs workers), and sends their records back as text,
 * which rank 0 merges in replication order as it merges its workers'. */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "modules.h"
#include "ranks.h"

static int rank, size = 1;
static const cli_mpi_ops *mpi; /* once begun */
static int saved_fd[2] = {-1, -1}; /* stdout and stderr while muted */

/* The launcher's word for this process's rank and the number of ranks, from the
 * environment (OpenMPI's, PMIx's, MPICH's): 0 if it was not launched by one. */
static int launched(int *r, int *n) {
  const char *vr = getenv("OMPI_COMM_WORLD_RANK"), *vn = getenv("OMPI_COMM_WORLD_SIZE");
  if (!vr) vr = getenv("PMIX_RANK");
  if (!vr) vr = getenv("PMI_RANK");
  if (!vn) vn = getenv("PMI_SIZE");
  if (!vr && !vn) return 0;
  *r = vr ? atoi(vr) : 0;
  *n = vn ? atoi(vn) : 0;
  return 1;
}

int cli_ranks_begin(void) {
  int r, n;
  if (!launched(&r, &n)) return 0;
#ifdef CDEVS_HAVE_MPI
  char err[1200];
  void *sym = cli_module_sym("cdevs-mpi.so", "cdevs_mpi_ops", err, sizeof err);
  if (!sym) {
    fprintf(stderr, "cdevs run: launched by mpirun, but %s\n", err);
    return -1;
  }
  const cli_mpi_ops *(*get)(void);
  memcpy(&get, &sym, sizeof get); /* (a data pointer to a function pointer, as POSIX allows) */
  const cli_mpi_ops *ops = get();
  if (ops->begin(&rank, &size)) return -1;
  mpi = ops;
  return 0;
#else
  if (n > 1 || r > 0) {
    if (r == 0)
      fprintf(stderr, "cdevs run: launched by mpirun as %d ranks, but this cdevs was built without MPI (Debian "
                      "openmpi-bin and libopenmpi-dev, which tools/deps.sh installs; then rebuild): each rank would "
                      "run the whole set of replications and write the same files\n", n);
    return -1;
  }
  return 0;
#endif
}

int cli_ranks_end(int rc) {
  if (mpi) mpi->end();
  mpi = NULL;
  return rc;
}

int cli_ranks_rank(void) { return rank; }
int cli_ranks_size(void) { return size; }

void cli_ranks_mute(int on) {
  fflush(stdout);
  fflush(stderr);
  if (on && saved_fd[0] < 0) {
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null < 0) return;
    saved_fd[0] = dup(1), saved_fd[1] = dup(2);
    dup2(null, 1), dup2(null, 2);
    close(null);
  } else if (!on && saved_fd[0] >= 0) {
    dup2(saved_fd[0], 1), dup2(saved_fd[1], 2);
    close(saved_fd[0]), close(saved_fd[1]);
    saved_fd[0] = saved_fd[1] = -1;
  }
}

int cli_ranks_share(char **text, size_t *len) {
  if (size == 1) return *text ? 0 : -1;
  return mpi ? mpi->share(text, len, rank) : -1;
}

int cli_ranks_go(int ok) { return size > 1 && mpi ? mpi->go(ok) : ok; }

int cli_ranks_gather(char **text, size_t *len, int *status) {
  if (size == 1) return 0;
  return mpi ? mpi->gather(text, len, status, rank, size) : -1;
}
