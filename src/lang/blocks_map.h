/* SPDX-License-Identifier: MIT */
/* Library blocks by name, for component declarations in model files: the blocks layer's
 * own, and those other layers register (cdevs_lang_register); and the distributions
 * parameters may be drawn from (cdevs_lang_register_random). */
#ifndef CDEVS_LANG_BLOCKS_MAP_H
#define CDEVS_LANG_BLOCKS_MAP_H

#include <stddef.h>

#include "cdevs/lang.h"
#include "cdevs/model.h"

enum {
  LP_REAL = CDEVS_LP_REAL,
  LP_INT = CDEVS_LP_INT,
  LP_METHOD = CDEVS_LP_METHOD,
  LP_FN = CDEVS_LP_FN,
  LP_REALS = CDEVS_LP_REALS,
  LP_NAME = CDEVS_LP_NAME,
  LP_REF = CDEVS_LP_REF,
  LP_TERM = CDEVS_LP_TERM
};

typedef cdevs_lang_param lang_param;
typedef cdevs_lang_block lang_block;

const lang_block *lang_block_find(const char *name);
size_t lang_block_names(const char **out, size_t max);
/* The context kind a block's library shares ("proc"), or NULL. */
const char *lang_block_context(const lang_block *b);
/* A block's ports in a direction (NULL: none, as for a data module). */
const cdevs_port_def *lang_block_ports(const lang_block *b, cdevs_dir dir);
/* The distributions registered for parameters (NULL: none), and whether name(...)
 * is one of them. */
const cdevs_lang_random *lang_random(void);
int lang_is_dist(const char *name);

#endif
