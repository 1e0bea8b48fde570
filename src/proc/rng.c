/* SPDX-License-Identifier: MIT */
/* MRG32k3a (L'Ecuyer 1999) with streams and substreams reached by matrix powers
 * (L'Ecuyer, Simard, Chen & Kelton 2002), written from the papers. */
#include <assert.h>
#include <string.h>

#include "cdevs/random.h"

#define M1 4294967087LL /* 2^32 − 209 */
#define M2 4294944443LL /* 2^32 − 22853 */

/* A 3×3 matrix modulo m: entries below 2^32, so a product of two fits in 64 bits
 * unsigned and each is reduced before the next is added. */
typedef struct mat3 {
  uint64_t a[3][3];
} mat3;

static mat3 mat_mul(const mat3 *x, const mat3 *y, uint64_t m) {
  mat3 r;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      uint64_t s = 0;
      for (int k = 0; k < 3; k++) s = (s + (x->a[i][k] * y->a[k][j]) % m) % m;
      r.a[i][j] = s;
    }
  return r;
}

static void mat_vec(const mat3 *x, int64_t v[3], uint64_t m) {
  uint64_t r[3];
  for (int i = 0; i < 3; i++) {
    uint64_t s = 0;
    for (int k = 0; k < 3; k++) s = (s + (x->a[i][k] * (uint64_t)v[k]) % m) % m;
    r[i] = s;
  }
  for (int i = 0; i < 3; i++) v[i] = (int64_t)r[i];
}

/* The one-step transition matrices on (x[n−3], x[n−2], x[n−1]). */
static mat3 a1_step(void) {
  mat3 r = {{{0, 1, 0}, {0, 0, 1}, {(uint64_t)(M1 - 810728), 1403580, 0}}};
  return r;
}
static mat3 a2_step(void) {
  mat3 r = {{{0, 1, 0}, {0, 0, 1}, {(uint64_t)(M2 - 1370589), 0, 527612}}};
  return r;
}

/* x squared e times: x^(2^e). */
static mat3 mat_pow2(mat3 x, int e, uint64_t m) {
  for (int i = 0; i < e; i++) x = mat_mul(&x, &x, m);
  return x;
}

/* v ← (base)^n · v for both components, base_k = A_k^(2^e). */
static void jump(int64_t v[6], int e, uint64_t n) {
  mat3 b1 = mat_pow2(a1_step(), e, (uint64_t)M1), b2 = mat_pow2(a2_step(), e, (uint64_t)M2);
  while (n) {
    if (n & 1) {
      mat_vec(&b1, v, (uint64_t)M1);
      mat_vec(&b2, v + 3, (uint64_t)M2);
    }
    n >>= 1;
    if (n) {
      b1 = mat_mul(&b1, &b1, (uint64_t)M1);
      b2 = mat_mul(&b2, &b2, (uint64_t)M2);
    }
  }
}

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

void cdevs_rng_package_seed(uint64_t n, uint32_t seed[6]) {
  if (n == 0) {
    for (int i = 0; i < 6; i++) seed[i] = CDEVS_RNG_DEFAULT_SEED;
    return;
  }
  uint64_t x = n;
  for (int i = 0; i < 6; i++) seed[i] = (uint32_t)(splitmix64(&x) % (uint64_t)(i < 3 ? M1 : M2));
  for (int h = 0; h < 6; h += 3)
    if (!seed[h] && !seed[h + 1] && !seed[h + 2]) seed[h] = seed[h + 1] = seed[h + 2] = 1;
}

cdevs_status cdevs_rng_check_seed(const uint32_t seed[6]) {
  for (int i = 0; i < 6; i++)
    if ((int64_t)seed[i] >= (i < 3 ? M1 : M2)) return CDEVS_EINVAL;
  if (!seed[0] && !seed[1] && !seed[2]) return CDEVS_EINVAL;
  if (!seed[3] && !seed[4] && !seed[5]) return CDEVS_EINVAL;
  return CDEVS_OK;
}

void cdevs_rng_stream(cdevs_rng *g, const uint32_t seed[6], uint64_t index) {
  assert(cdevs_rng_check_seed(seed) == CDEVS_OK);
  int64_t v[6];
  for (int i = 0; i < 6; i++) v[i] = seed[i];
  jump(v, 127, index);
  memcpy(g->stream, v, sizeof v);
  memcpy(g->sub, v, sizeof v);
  memcpy(g->s, v, sizeof v);
  g->antithetic = 0;
}

uint64_t cdevs_rng_name_hash(const char *name) {
  uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a's offset basis and prime */
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * 0x100000001b3ULL;
  /* FNV-1a alone leaves similar names ("m1", "m2") close in the low bits; the
   * finaliser spreads them over all 64. */
  uint64_t x = h - 0x9e3779b97f4a7c15ULL;
  return splitmix64(&x);
}

void cdevs_rng_named(cdevs_rng *g, const uint32_t seed[6], const char *name) {
  cdevs_rng_stream(g, seed, cdevs_rng_name_hash(name));
}

void cdevs_rng_substream(cdevs_rng *g, uint64_t r) {
  memcpy(g->sub, g->stream, sizeof g->sub);
  jump(g->sub, 76, r);
  memcpy(g->s, g->sub, sizeof g->s);
}

void cdevs_rng_next_substream(cdevs_rng *g) {
  jump(g->sub, 76, 1);
  memcpy(g->s, g->sub, sizeof g->s);
}

void cdevs_rng_reset_substream(cdevs_rng *g) { memcpy(g->s, g->sub, sizeof g->s); }

void cdevs_rng_advance(cdevs_rng *g, uint64_t n) { jump(g->s, 0, n); }

double cdevs_rng_u01(cdevs_rng *g) {
  int64_t *s = g->s;
  /* Each product is below 2^53, so 64-bit integers hold the recurrence exactly. */
  int64_t p1 = (1403580 * s[1] - 810728 * s[0]) % M1;
  if (p1 < 0) p1 += M1;
  s[0] = s[1], s[1] = s[2], s[2] = p1;
  int64_t p2 = (527612 * s[5] - 1370589 * s[3]) % M2;
  if (p2 < 0) p2 += M2;
  s[3] = s[4], s[4] = s[5], s[5] = p2;
  int64_t z = p1 > p2 ? p1 - p2 : p1 - p2 + M1;
  /* z is in 1..m1 (z = m1 stands for the 0 the paper maps to m1) */
  double u = (double)z * (1.0 / (double)(M1 + 1));
  return g->antithetic ? 1.0 - u : u;
}
