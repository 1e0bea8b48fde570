/* SPDX-License-Identifier: MIT */
/* The default allocator, the small helpers the library allocates through, and how much
   memory the system has left for it. */
#define _DEFAULT_SOURCE
#include "alloc_impl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* A block of 4 MiB or more is asked to be backed by huge pages where the system
 * does that on request (transparent huge pages in "madvise" mode, Debian's default):
 * building a DEVStone LI 400x400 tree (57 MB) otherwise takes some 14,000 page faults,
 * half of its building time on a virtual machine. */
#define HUGE_PAGE ((uintptr_t)2 << 20)
static void advise_huge(void *p, size_t n) {
#ifdef MADV_HUGEPAGE
  if (!p || n < 2 * HUGE_PAGE) return;
  uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), e = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);
  if (e > a) (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
  (void)p, (void)n;
#endif
}

static void *libc_realloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (nsize > osize) advise_huge(p, nsize);
  return p;
}

static const cdevs_alloc libc_alloc = {libc_realloc, NULL};

const cdevs_alloc *cdevs_alloc_default(void) { return &libc_alloc; }

void *cdevs__calloc(const cdevs_alloc *a, size_t n, size_t size) {
  if (size != 0 && n > SIZE_MAX / size) return NULL;
  size_t bytes = n * size;
  if (bytes == 0) bytes = 1;
  /* A large block of the C library's is mapped fresh from the system, zero already:
   * calloc does not write it (a large tree's arrays are then touched once, not twice). */
  if (a->realloc == libc_realloc && bytes >= ((size_t)1 << 20)) {
    void *p = calloc(1, bytes);
    advise_huge(p, bytes);
    return p;
  }
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

/* The first number after `key` in a /proc text file, or -1. */
static double proc_number(const char *path, const char *key) {
  FILE *f = fopen(path, "r");
  if (!f) return -1.0;
  char line[256];
  double v = -1.0;
  size_t klen = strlen(key);
  while (fgets(line, sizeof line, f))
    if (strncmp(line, key, klen) == 0) {
      unsigned long long x;
      if (sscanf(line + klen, "%llu", &x) == 1) v = (double)x;
      break;
    }
  fclose(f);
  return v;
}

double cdevs_mem_available(void) {
  double avail = INFINITY;
  double kb = proc_number("/proc/meminfo", "MemAvailable:");
  if (kb >= 0) {
    avail = kb * 1024.0;
  } else {
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psize > 0) avail = (double)pages * (double)psize;
  }
  /* An address-space limit (ulimit -v) counts what the process has mapped already. */
  struct rlimit rl;
  if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
    double used = proc_number("/proc/self/statm", "");
    long psize = sysconf(_SC_PAGESIZE);
    double left = (double)rl.rlim_cur - (used > 0 && psize > 0 ? used * (double)psize : 0.0);
    if (left < avail) avail = left > 0 ? left : 0;
  }
  return avail;
}
