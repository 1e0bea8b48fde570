/* SPDX-License-Identifier: MIT */
/* The caller-supplied allocator every cdevs object allocates through. */
#ifndef CDEVS_ALLOC_H
#define CDEVS_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One function does everything, as Lua's lua_Alloc does:
 *   nsize == 0          free ptr (of size osize), return NULL;
 *   ptr == NULL         allocate nsize bytes;
 *   otherwise           resize ptr from osize to nsize bytes.
 * Returning NULL for nsize > 0 means failure, and ptr must then be left untouched.
 * Blocks must be aligned for any C object (max_align_t).
 */
typedef void *(*cdevs_realloc_fn)(void *ud, void *ptr, size_t osize, size_t nsize);

typedef struct cdevs_alloc {
  cdevs_realloc_fn realloc;
  void *ud;
} cdevs_alloc;

/* The allocator used when NULL is passed: the C library's realloc/free. */
const cdevs_alloc *cdevs_alloc_default(void);

/* Bytes the system can still give this process, as far as it tells: the memory
 * available without swapping (Linux MemAvailable; elsewhere the physical memory), or
 * less what remains under an address-space limit (ulimit -v). INFINITY if unknown.
 * Builders of large models compare their estimate with it before they start. */
double cdevs_mem_available(void);

#ifdef __cplusplus
}
#endif
#endif
