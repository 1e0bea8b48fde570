/* SPDX-License-Identifier: MIT */
/* bench/proc.sh's driver: process models built from C, timed in this process.
 *   proc_bench mm1 N      M/M/1 (λ = 0.8, μ = 1) until N customers have left
 *   proc_bench create N   Create → Dispose (JaamSim's first micro-benchmark)
 *   proc_bench delay N    Create → Process(Delay, zero delay) → Dispose
 *   proc_bench seize N    Create → Process(Seize-Delay-Release, zero delay) → Dispose
 * (both with a constant zero delay, so that seize − delay is the Seize/Release pair and
 * no variate's cost)
 * Prints one line: `bench name=proc model=… n=… sim_s=… ns_per_entity=… per_s=…`. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cdevs/cdevs.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static cdevs_dist dist(int kind, double x) {
  cdevs_dist d;
  if (cdevs_dist_make(&d, kind, &x, 1, NULL, 0) != CDEVS_OK) exit(2);
  return d;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: proc_bench mm1|create|delay|seize N\n");
    return 2;
  }
  const char *model = argv[1];
  uint64_t n = strtoull(argv[2], NULL, 10);
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  if (!p || cdevs_proc_resource(p, "server", 1) < 0) return 1;
  cdevs_model *root = cdevs_root_new(NULL, "bench");
  int mm1 = !strcmp(model, "mm1");
  cdevs_create_params cp = {p, "Customer", dist(CDEVS_DIST_EXPONENTIAL, 1.25), 1, 0, n};
  cdevs_process_params pp = {p, CDEVS_SEIZE_DELAY_RELEASE, "server", 1, 0, dist(CDEVS_DIST_EXPONENTIAL, 1.0),
                             CDEVS_VA, CDEVS_FIFO, NULL, 0};
  if (!strcmp(model, "delay")) pp.action = CDEVS_DELAY;
  if (!strcmp(model, "delay") || !strcmp(model, "seize")) pp.delay = dist(CDEVS_DIST_CONSTANT, 0);
  cdevs_dispose_params dp = {p};
  cdevs_model *c = cdevs_atomic_add(root, "arrive", &cdevs_create_ops, &cp);
  cdevs_model *d = cdevs_atomic_add(root, "leave", &cdevs_dispose_ops, &dp);
  if (strcmp(model, "create")) {
    cdevs_model *q = cdevs_atomic_add(root, "serve", &cdevs_process_ops, &pp);
    cdevs_connect(root, c, "out", q, "in");
    cdevs_connect(root, q, "out", d, "in");
  } else {
    cdevs_connect(root, c, "out", d, "in");
  }
  if (!mm1 && strcmp(model, "create") && strcmp(model, "delay") && strcmp(model, "seize")) return 2;
  cdevs_sim *sim = NULL;
  if (cdevs_sim_new(root, NULL, &sim)) {
    fprintf(stderr, "%s\n", cdevs_model_errmsg(root));
    return 1;
  }
  double t0 = now();
  cdevs_status st = cdevs_sim_run(sim, INFINITY);
  double dt = now() - t0;
  long out = cdevs_proc_stat_find(p, "System", "NumberOut");
  cdevs_stat_info in;
  cdevs_proc_stat(p, (size_t)out, cdevs_sim_time(sim), &in);
  if (st != CDEVS_OK || in.s.count != n) {
    fprintf(stderr, "proc_bench: %s (%llu of %llu left)\n", cdevs_sim_errmsg(sim), (unsigned long long)in.s.count,
            (unsigned long long)n);
    return 1;
  }
  printf("bench name=proc model=%s n=%llu sim_s=%.6f ns_per_entity=%.1f per_s=%.4g\n", model, (unsigned long long)n,
         dt, dt / (double)n * 1e9, (double)n / dt);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
  return 0;
}
