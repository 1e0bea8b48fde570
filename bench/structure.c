/* SPDX-License-Identifier: MIT */
/*
 * Structure changes (bench/structure.sh): a birth-death population of cells in one
 * coupled model ("dish"), each living an exponential time (rate 1) at whose end it
 * divides (a new cell beside it, coupled to the dish's output) or dies (removes
 * itself), with probability 1/2 each: a critical branching process, so the
 * population wanders around its start N0. Every cell emits at each transition; the
 * emissions reach a counter through the dish's port. Almost every instant holds one
 * change, the hard case for route updates.
 *   structure_bench N0 CHANGES  ->  one line: n0, changes, events, wall_s,
 *   us_per_change, ns_per_event, final population.
 * Deterministic: each cell draws from its own 64-bit LCG seeded by its serial number.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "cdevs/cdevs.h"

typedef struct world {
  cdevs_model *dish;
  uint64_t serial, changes, limit;
  long live;
} world;

typedef struct cell_arg {
  world *w;
  uint64_t seed;
} cell_arg;
typedef struct cell {
  world *w;
  uint64_t rng;
  double life;
} cell;

static double draw(uint64_t *r) { /* uniform in (0, 1) */
  *r = *r * 6364136223846793005ull + 1442695040888963407ull;
  return ((double)(*r >> 11) + 0.5) / 9007199254740992.0;
}

static const cdevs_port_def cell_out[] = {{"out", CDEVS_INT}, {NULL, CDEVS_ANY}};
static const cdevs_port_def count_in[] = {{"in", CDEVS_INT}, {NULL, CDEVS_ANY}};
static const cdevs_atomic_ops cell_ops;

static int cell_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  const cell_arg *a = arg;
  cell *c = state;
  c->w = a->w;
  c->rng = a->seed * 0x9e3779b97f4a7c15ull + 1;
  c->life = -log(draw(&c->rng));
  a->w->live++;
  return 0;
}
static double cell_ta(const void *state) { return ((const cell *)state)->life; }
static void cell_output(cdevs_ctx *cx, const void *state) {
  (void)state;
  cdevs_emit_int(cx, 0, 1);
}
static void cell_int(cdevs_ctx *cx, void *state) {
  cell *c = state;
  world *w = c->w;
  c->life = -log(draw(&c->rng));
  if (w->changes >= w->limit) return; /* (enough: the cells live on, unchanged) */
  w->changes++;
  if (draw(&c->rng) < 0.5 && w->live > 1) {
    cdevs_ctx_remove(cx, (cdevs_model *)(uintptr_t)cdevs_ctx_model(cx));
    return;
  }
  char name[32];
  snprintf(name, sizeof name, "c%llu", (unsigned long long)++w->serial);
  cell_arg a = {w, w->serial};
  cdevs_model *m = cdevs_ctx_add_atomic(cx, w->dish, name, &cell_ops, &a);
  if (m) cdevs_ctx_connect(cx, w->dish, m, "out", w->dish, "out");
}
static void cell_fini(void *state) { ((cell *)state)->w->live--; }
static const cdevs_atomic_ops cell_ops = {.type = "Cell", .state_size = sizeof(cell), .arg_size = sizeof(cell_arg),
                                          .outputs = cell_out, .init = cell_init, .ta = cell_ta,
                                          .output = cell_output, .delta_int = cell_int, .fini = cell_fini};

static double passive(const void *s) {
  (void)s;
  return INFINITY;
}
static void count_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)cx, (void)e;
  *(uint64_t *)state += x->n;
}
static const cdevs_atomic_ops counter_ops = {.type = "Counter", .state_size = sizeof(uint64_t), .inputs = count_in,
                                             .ta = passive, .delta_ext = count_ext};

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: structure_bench N0 CHANGES\n");
    return 2;
  }
  long n0 = atol(argv[1]);
  world w = {0};
  w.limit = (uint64_t)atoll(argv[2]);
  cdevs_model *root = cdevs_root_new(NULL, "top");
  w.dish = cdevs_coupled_add(root, "dish");
  cdevs_port_add(w.dish, CDEVS_OUT, "out", CDEVS_INT);
  cdevs_model *counter = cdevs_atomic_add(root, "counter", &counter_ops, NULL);
  cdevs_connect(root, w.dish, "out", counter, "in");
  for (long i = 0; i < n0; i++) {
    char name[32];
    snprintf(name, sizeof name, "c%llu", (unsigned long long)++w.serial);
    cell_arg a = {&w, w.serial};
    cdevs_model *m = cdevs_atomic_add(w.dish, name, &cell_ops, &a);
    cdevs_connect(w.dish, m, "out", w.dish, "out");
  }
  cdevs_sim *sim = NULL;
  if (cdevs_sim_new(root, NULL, &sim)) {
    fprintf(stderr, "%s\n", cdevs_model_errmsg(root));
    return 1;
  }
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  cdevs_status st = CDEVS_OK;
  while (!st && w.changes < w.limit && cdevs_sim_next_time(sim) < INFINITY) st = cdevs_sim_step(sim);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (st) {
    fprintf(stderr, "%s\n", cdevs_sim_errmsg(sim));
    return 1;
  }
  double wall = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  cdevs_stats s;
  cdevs_sim_stats(sim, &s);
  uint64_t events = s.internals + s.externals + s.confluents;
  printf("bench name=structure n0=%ld changes=%llu events=%llu wall_s=%.6f us_per_change=%.3f ns_per_event=%.1f "
         "final_population=%ld\n", n0, (unsigned long long)w.changes, (unsigned long long)events, wall,
         w.changes ? 1e6 * wall / (double)w.changes : 0.0, events ? 1e9 * wall / (double)events : 0.0, w.live);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return 0;
}
