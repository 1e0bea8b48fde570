/* SPDX-License-Identifier: MIT */
/* DEVStone: the synthetic benchmark models LI, HI, HO and HOmod (Wainer et al. 2011). */
#ifndef CDEVS_DEVSTONE_H
#define CDEVS_DEVSTONE_H

#include "sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum cdevs_devstone_type {
  CDEVS_DEVSTONE_LI = 0,
  CDEVS_DEVSTONE_HI,
  CDEVS_DEVSTONE_HO,
  CDEVS_DEVSTONE_HOMOD
} cdevs_devstone_type;

typedef struct cdevs_devstone_params {
  cdevs_devstone_type type;
  uint32_t depth;      /* >= 1; the innermost level holds a single atomic */
  uint32_t width;      /* >= 1 */
  double int_delay_ms; /* busy work (CPU time) in each δint */
  double ext_delay_ms; /* busy work in each δext */
} cdevs_devstone_params;

/* The type for "LI", "HI", "HO" or "HOmod" (any case), or -1. */
int cdevs_devstone_type_parse(const char *name);
const char *cdevs_devstone_type_name(cdevs_devstone_type t);

/*
 * Builds a DEVStone model as the reference implementations do (xdevs, adevs,
 * Cadmium 2): each level holds the next level plus width−1 atomics (HOmod: rows of
 * atomics), every atomic is passive until an input makes it imminent with ta = 0.
 * Returns the root (check cdevs_model_status), NULL if even that fails.
 */
cdevs_model *cdevs_devstone_build(const cdevs_alloc *a, const cdevs_devstone_params *p);

/* Injects the single starting event (int 0) at the current time into every input
   port of the root, as the reference drivers' seeder does. */
cdevs_status cdevs_devstone_seed(cdevs_sim *sim);

/* What the DEVStone atomics counted themselves, summed over the model. */
typedef struct cdevs_devstone_counts {
  uint64_t internals; /* δint, counting δconf once here */
  uint64_t externals; /* δext, counting δconf once here */
  uint64_t events;    /* messages received */
} cdevs_devstone_counts;

void cdevs_devstone_counts_get(cdevs_sim *sim, cdevs_devstone_counts *c);

#ifdef __cplusplus
}
#endif
#endif
