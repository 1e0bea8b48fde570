/* SPDX-License-Identifier: MIT */
/* Library blocks by name, for component declarations in model files. */
#ifndef CDEVS_LANG_BLOCKS_MAP_H
#define CDEVS_LANG_BLOCKS_MAP_H

#include <stddef.h>

#include "cdevs/model.h"

enum { LP_REAL = 1, LP_INT, LP_METHOD, LP_FN, LP_REALS };

typedef struct lang_param {
  const char *name;
  size_t offset;
  int kind;
} lang_param;

typedef struct lang_block {
  const char *name;
  const cdevs_atomic_ops *ops;
  size_t arg_size;
  const lang_param *params; /* ends with a NULL name */
  /* The block computes its outputs from its inputs at once (a static function, a
   * saturation, a switch): a loop through it and the equations' algebraic variables
   * has no delay in it. */
  int through;
} lang_block;

const lang_block *lang_block_find(const char *name);
size_t lang_block_names(const char **out, size_t max);

#endif
