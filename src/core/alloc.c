/* SPDX-License-Identifier: MIT */
/* The default allocator and the small helpers the library allocates through. */
#include "alloc_impl.h"

#include <stdlib.h>
#include <string.h>

static void *libc_realloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  return realloc(ptr, nsize);
}

static const cdevs_alloc libc_alloc = {libc_realloc, NULL};

const cdevs_alloc *cdevs_alloc_default(void) { return &libc_alloc; }

void *cdevs__calloc(const cdevs_alloc *a, size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) return NULL;
  size_t bytes = n * size;
  if (bytes == 0) bytes = 1;
  void *p = a->realloc(a->ud, NULL, 0, bytes);
  if (p) memset(p, 0, bytes);
  return p;
}

void cdevs__free(const cdevs_alloc *a, void *p, size_t size) {
  if (p) a->realloc(a->ud, p, size == 0 ? 1 : size, 0);
}

int cdevs__grow(const cdevs_alloc *a, void **p, uint32_t *cap, uint32_t need, size_t elem) {
  if (need <= *cap) return 0;
  uint64_t ncap = *cap ? (uint64_t)*cap : 8;
  while (ncap < need) ncap *= 2;
  if (ncap > UINT32_MAX || ncap > SIZE_MAX / elem) return -1;
  size_t osize = (size_t)*cap * elem;
  void *np = a->realloc(a->ud, *p, *p ? (osize ? osize : 1) : 0, (size_t)ncap * elem);
  if (!np) return -1;
  *p = np;
  *cap = (uint32_t)ncap;
  return 0;
}
