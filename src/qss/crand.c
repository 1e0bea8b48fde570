/* SPDX-License-Identifier: MIT */
/* The random stream of a model's rand() (see system.h for the sequence and why). */
#include "system.h"

void cdevs__crand_seed(cdevs__crand *g, uint32_t seed) {
  /* The generator keeps 31 words; the ring holds 34 so that r_{k−31} and r_{k−3} are
   * both still there when r_k is made. */
  int32_t w[34];
  w[0] = (int32_t)(seed ? seed : 1); /* seed 0 is taken as 1, as srand(0) is */
  for (int i = 1; i < 31; i++) {
    /* 16807·w mod (2³¹−1) without overflow (Schrage's method) */
    int32_t hi = w[i - 1] / 127773, lo = w[i - 1] % 127773;
    int32_t x = 16807 * lo - 2836 * hi;
    w[i] = x < 0 ? x + 2147483647 : x;
  }
  for (int i = 31; i < 34; i++) w[i] = w[i - 31];
  for (int i = 0; i < 34; i++) g->r[i] = (uint32_t)w[i];
  g->k = 0; /* the next word is r_34, which goes where r_0 was */
  for (int i = 0; i < 310; i++) (void)cdevs__crand_next(g);
}

uint32_t cdevs__crand_next(cdevs__crand *g) {
  /* ring position p holds r_j with j ≡ p (mod 34); r_k replaces r_{k−34} */
  uint32_t k = g->k;
  uint32_t v = g->r[(k + 3) % 34] + g->r[(k + 31) % 34]; /* r_{k−31} + r_{k−3} */
  g->r[k] = v;
  g->k = (k + 1) % 34;
  return v >> 1;
}

double cdevs__crand_scaled(cdevs__crand *g, double a) {
  return a * (double)cdevs__crand_next(g) / 2147483647.0;
}
