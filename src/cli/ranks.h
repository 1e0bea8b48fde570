/* SPDX-License-Identifier: MIT */
/* The ranks of an MPI launch (`mpirun -np N cdevs run M.mo --reps K`): the model text
 * shared from rank 0, replications split across the ranks, every rank's records
 * gathered at rank 0, which alone reports (ranks.c). Without MPI in the build, or
 * outside mpirun, there is one rank and nothing here costs anything. */
#ifndef CDEVS_CLI_RANKS_H
#define CDEVS_CLI_RANKS_H

#include <stddef.h>

/* MPI_Init when launched by mpirun (its environment: OMPI_COMM_WORLD_SIZE, PMIX_RANK,
 * PMI_RANK), so that a plain run never starts MPI nor needs a launcher. 0; -1 after
 * saying why (a launch of several ranks of a cdevs built without MPI: each would run
 * the whole set and write the same files). */
int cli_ranks_begin(void);
/* MPI_Finalize when begun; returns rc. */
int cli_ranks_end(int rc);
int cli_ranks_rank(void);
int cli_ranks_size(void);
/* Rank 0's standard output and error only (on = 1, on the other ranks) while every
 * rank repeats the same steps (reading the options, compiling the model) and rank 0
 * says what they find; on = 0 gives them back (each rank's replications report their
 * own failures). */
void cli_ranks_mute(int on);
/* Rank 0's model text to every rank (the others need no copy of the file, nor the
 * same working directory): on rank 0 *text and *len are its own, NULL if it could
 * not be read (said there); on the others they are set (malloc'd). 0, or -1 on every
 * rank when rank 0 had none. */
int cli_ranks_share(char **text, size_t *len);
/* Rank 0's ok (its own checks before the replications: the report's path), on every
 * rank. */
int cli_ranks_go(int ok);
/* This rank's records (*text, *len: malloc'd or NULL, taken) and exit status to rank
 * 0: there *text becomes every rank's records, rank by rank, and *status the worst
 * (CLI_FAIL, then CLI_INTERRUPTED); on the others *text is freed and NULL. 0, or -1
 * after saying why (out of memory at rank 0). */
int cli_ranks_gather(char **text, size_t *len, int *status);

/* What the module cdevs-mpi.so gives (cdevs_mpi_ops): MPI_Init with this process's
 * rank and the number of ranks (-1 after saying why), MPI_Finalize, and the bodies of
 * cli_ranks_share, _go and _gather for more than one rank. */
typedef struct cli_mpi_ops {
  int (*begin)(int *rank, int *size);
  void (*end)(void);
  int (*share)(char **text, size_t *len, int rank);
  int (*go)(int ok);
  int (*gather)(char **text, size_t *len, int *status, int rank, int size);
} cli_mpi_ops;
const cli_mpi_ops *cdevs_mpi_ops(void);

#endif
