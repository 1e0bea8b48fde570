/* SPDX-License-Identifier: MIT */
/* The ranks of an MPI launch: replications across machines (DESIGN §8). MPI is
 * optional at build time (CDEVS_HAVE_MPI: Debian libopenmpi-dev) and started only
 * under mpirun. Ranks hold no shared state: rank 0 sends the model text, each rank
 * runs its replications (on its own --jobs workers), and sends their records back as
 * text, which rank 0 merges in replication order as it merges its workers'. */
#define _POSIX_C_SOURCE 200809L /* O_CLOEXEC */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef CDEVS_HAVE_MPI
#include <mpi.h>
#endif

#include "cli.h"
#include "ranks.h"

static int rank, size = 1, begun;
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
  if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
    fprintf(stderr, "cdevs run: MPI_Init failed\n");
    return -1;
  }
  begun = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
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
#ifdef CDEVS_HAVE_MPI
  if (begun) MPI_Finalize();
#endif
  begun = 0;
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

#ifdef CDEVS_HAVE_MPI
/* MPI counts are ints: texts go in pieces of at most 1 GiB. */
#define PIECE ((size_t)1 << 30)

static void send_text(const char *text, size_t len, int to) {
  for (size_t at = 0; at < len; at += PIECE)
    MPI_Send(text + at, (int)(len - at < PIECE ? len - at : PIECE), MPI_CHAR, to, 2, MPI_COMM_WORLD);
}

static void recv_text(char *text, size_t len, int from) {
  for (size_t at = 0; at < len; at += PIECE)
    MPI_Recv(text + at, (int)(len - at < PIECE ? len - at : PIECE), MPI_CHAR, from, 2, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
}
#endif

int cli_ranks_share(char **text, size_t *len) {
  if (size == 1) return *text ? 0 : -1;
#ifdef CDEVS_HAVE_MPI
  /* (MPI's errors abort every rank, the default handler: no rank waits forever) */
  uint64_t n = rank == 0 ? (*text ? (uint64_t)*len : UINT64_MAX) : 0;
  MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (n == UINT64_MAX) return -1;
  if (rank > 0) {
    *len = (size_t)n;
    *text = malloc(*len + 1);
    if (!*text) { /* nothing else can go on: every rank stops */
      fprintf(stderr, "cdevs run: rank %d: out of memory for the model text\n", rank);
      MPI_Abort(MPI_COMM_WORLD, CLI_FAIL);
    }
    (*text)[*len] = 0;
  }
  for (size_t at = 0; at < *len; at += PIECE)
    MPI_Bcast(*text + at, (int)(*len - at < PIECE ? *len - at : PIECE), MPI_CHAR, 0, MPI_COMM_WORLD);
  return 0;
#else
  (void)len;
  return -1;
#endif
}

int cli_ranks_go(int ok) {
#ifdef CDEVS_HAVE_MPI
  if (size > 1) MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  return ok;
}

int cli_ranks_gather(char **text, size_t *len, int *status) {
  if (size == 1) return 0;
#ifdef CDEVS_HAVE_MPI
  if (rank > 0) {
    uint64_t head[2] = {(uint64_t)*status, *text ? (uint64_t)*len : 0};
    MPI_Send(head, 2, MPI_UINT64_T, 0, 1, MPI_COMM_WORLD);
    send_text(*text, (size_t)head[1], 0);
    free(*text);
    *text = NULL, *len = 0;
    return 0;
  }
  /* Rank by rank, in order: the records are merged by replication afterwards, so
   * the order they come in does not matter, only that all come. */
  for (int from = 1; from < size; from++) {
    uint64_t head[2];
    MPI_Recv(head, 2, MPI_UINT64_T, from, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    size_t have = *text ? *len : 0, n = (size_t)head[1];
    char *t = realloc(*text, have + n + 1);
    if (!t) { /* the others' sends would never be received */
      fprintf(stderr, "cdevs run: out of memory for the records of rank %d\n", from);
      MPI_Abort(MPI_COMM_WORLD, CLI_FAIL);
      return -1;
    }
    recv_text(t + have, n, from);
    t[have + n] = 0;
    *text = t, *len = have + n;
    int st = (int)head[0];
    if (st == CLI_FAIL || (st != CLI_OK && *status == CLI_OK)) *status = st;
  }
  return 0;
#else
  (void)text, (void)len, (void)status;
  return -1;
#endif
}
