/* SPDX-License-Identifier: MIT */
/* Fixtures more than one test binary uses (each test is one .c file: static is fine). */
#ifndef CDEVS_TESTS_TEST_UTIL_H
#define CDEVS_TESTS_TEST_UTIL_H

#include <stdlib.h>

#include "cdevs/cdevs.h"

/* An allocator that counts what is outstanding and can refuse its fail_at-th call. */
typedef struct counting {
  long calls;     /* calls that allocate or grow */
  long fail_at;   /* the call that fails (1-based), 0 for none */
  int failed;     /* whether it happened */
  long long live; /* bytes outstanding */
  long blocks;    /* blocks outstanding */
} counting;

static inline void *counting_realloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  counting *c = ud;
  if (nsize == 0) {
    if (ptr) {
      c->live -= (long long)osize;
      c->blocks--;
    }
    free(ptr);
    return NULL;
  }
  if (++c->calls == c->fail_at) {
    c->failed = 1;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (!p) return NULL;
  if (ptr) {
    c->live += (long long)nsize - (long long)osize;
  } else {
    c->live += (long long)nsize;
    c->blocks++;
  }
  return p;
}

/* The line most process tests build under root: Create "arrive" -> Process "serve" ->
 * Dispose "leave". */
static inline void proc_line(cdevs_model *root, const cdevs_create_params *cp, const cdevs_process_params *pp,
                             const cdevs_dispose_params *dp) {
  cdevs_model *arrive = cdevs_atomic_add(root, "arrive", &cdevs_create_ops, cp);
  cdevs_model *serve = cdevs_atomic_add(root, "serve", &cdevs_process_ops, pp);
  cdevs_model *leave = cdevs_atomic_add(root, "leave", &cdevs_dispose_ops, dp);
  cdevs_connect(root, arrive, "out", serve, "in");
  cdevs_connect(root, serve, "out", leave, "in");
}

#endif
