/* SPDX-License-Identifier: MIT */
/* MPI's side of the ranks of a launch (ranks.c): the module cdevs-mpi.so, loaded
 * only under mpirun, so that no other run of the command loads OpenMPI. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "ranks.h"

static int mpi_begin(int *rank, int *size) {
  if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
    fprintf(stderr, "cdevs run: MPI_Init failed\n");
    return -1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return 0;
}

static void mpi_end(void) { MPI_Finalize(); }

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

static int mpi_share(char **text, size_t *len, int rank) {
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
}

static int mpi_go(int ok) {
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return ok;
}

static int mpi_gather(char **text, size_t *len, int *status, int rank, int size) {
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
}

static const cli_mpi_ops ops = {mpi_begin, mpi_end, mpi_share, mpi_go, mpi_gather};

const cli_mpi_ops *cdevs_mpi_ops(void) { return &ops; }
