/* SPDX-License-Identifier: MIT */
/* Internal allocation helpers over a cdevs_alloc. */
#ifndef CDEVS_ALLOC_IMPL_H
#define CDEVS_ALLOC_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "cdevs/alloc.h"

/* n*size zeroed bytes (at least 1), NULL on failure or overflow. */
void *cdevs__calloc(const cdevs_alloc *a, size_t n, size_t size);
/* Frees a block obtained from cdevs__calloc(…, size) or cdevs__grow. */
void cdevs__free(const cdevs_alloc *a, void *p, size_t size);
/* Grows the array *p of *cap elements to hold at least `need`; -1 leaves it as it was. */
int cdevs__grow(const cdevs_alloc *a, void **p, uint32_t *cap, uint32_t need, size_t elem);

#define CDEVS_GROW(a, arr, cap, need) \
  cdevs__grow((a), (void **)&(arr), &(cap), (need), sizeof *(arr))
#define CDEVS_FREEARR(a, arr, cap) cdevs__free((a), (arr), (size_t)(cap) * sizeof *(arr))

#endif
