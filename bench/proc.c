/* SPDX-License-Identifier: MIT */
/* bench/proc.sh's driver: process models built from C, timed in this process.
 *   proc_bench mm1 N      M/M/1 (λ = 0.8, μ = 1) until N customers have left
 *   proc_bench create N   Create → Dispose (JaamSim's first micro-benchmark)
 *   proc_bench delay N    Create → Process(Delay, zero delay) → Dispose
 *   proc_bench seize N    Create → Process(Seize-Delay-Release, zero delay) → Dispose
 * (both with a constant zero delay, so that seize − delay is the Seize/Release pair and
 * no variate's cost)
 *   proc_bench queue N    N arrivals 10⁻⁹ apart (the kernel allows 10⁶ transitions at
 *                         one instant) into a Process whose first entity holds the
 *                         resource for 10⁹: N − 1 wait in its queue when the run stops
 *                         at time 1 (memory per entity; N < 10⁹)
 * Prints one line: `bench name=proc model=… n=… sim_s=… ns_per_entity=… per_s=… cpu_s=…`,
 * for queue also the peak resident set (`peak_rss_kb`, getrusage) and the resident set
 * at the end of the run with every entity still alive (`rss_kb`, /proc/self/statm).
 * sim_s is wall time; cpu_s the process's CPU time over the same run, which other
 * programs on a shared machine disturb less (it does not count the time they ran). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "cdevs/cdevs.h"

static double clock_s(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The resident set now, in KiB (0 where /proc is missing). */
static long rss_kb(void) {
  long pages = 0, resident = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f) return 0;
  if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
  fclose(f);
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static cdevs_dist dist(int kind, double x) {
  cdevs_dist d;
  if (cdevs_dist_make(&d, kind, &x, 1, NULL, 0) != CDEVS_OK) exit(2);
  return d;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: proc_bench mm1|create|delay|seize|queue N\n");
    return 2;
  }
  const char *model = argv[1];
  uint64_t n = strtoull(argv[2], NULL, 10);
  if (!strcmp(model, "queue") && n >= 1000000000) {
    fprintf(stderr, "proc_bench: queue takes N < 10^9 (arrivals 1e-9 apart before time 1)\n");
    return 2;
  }
  cdevs_proc *p = cdevs_proc_new(NULL, NULL);
  if (!p || cdevs_proc_resource(p, "server", 1) < 0) return 1;
  cdevs_model *root = cdevs_root_new(NULL, "bench");
  int mm1 = !strcmp(model, "mm1"), queue = !strcmp(model, "queue");
  cdevs_create_params cp = {p, "Customer", dist(CDEVS_DIST_EXPONENTIAL, 1.25), 1, 0, n};
  cdevs_process_params pp = {p, CDEVS_SEIZE_DELAY_RELEASE, "server", 1, 0, dist(CDEVS_DIST_EXPONENTIAL, 1.0),
                             CDEVS_VA, CDEVS_FIFO, NULL, 0};
  if (!strcmp(model, "delay")) pp.action = CDEVS_DELAY;
  if (!strcmp(model, "delay") || !strcmp(model, "seize")) pp.delay = dist(CDEVS_DIST_CONSTANT, 0);
  if (queue) {
    cp.interarrival = dist(CDEVS_DIST_CONSTANT, 1e-9);
    pp.delay = dist(CDEVS_DIST_CONSTANT, 1e9);
  }
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
  if (!mm1 && !queue && strcmp(model, "create") && strcmp(model, "delay") && strcmp(model, "seize")) return 2;
  cdevs_sim *sim = NULL;
  if (cdevs_sim_new(root, NULL, &sim)) {
    fprintf(stderr, "%s\n", cdevs_model_errmsg(root));
    return 1;
  }
  double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  cdevs_status st = cdevs_sim_run(sim, queue ? 1.0 : INFINITY);
  double dt = clock_s(CLOCK_MONOTONIC) - t0, dc = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
  /* How many customers the run dealt with: those that left, or for queue those still
     in the system (and the memory they take, before anything is freed). */
  uint64_t dealt;
  long peak_kb = 0, end_kb = 0;
  if (queue) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    peak_kb = ru.ru_maxrss, end_kb = rss_kb();
    dealt = cdevs_proc_wip(p);
  } else {
    cdevs_stat_info out;
    cdevs_proc_stat(p, (size_t)cdevs_proc_stat_find(p, "System", "NumberOut"), cdevs_sim_time(sim), &out);
    dealt = out.s.count;
  }
  if (st != CDEVS_OK || dealt != n) {
    fprintf(stderr, "proc_bench: %s (%llu of %llu %s)\n", cdevs_sim_errmsg(sim), (unsigned long long)dealt,
            (unsigned long long)n, queue ? "in the system" : "left");
    return 1;
  }
  printf("bench name=proc model=%s n=%llu sim_s=%.6f ns_per_entity=%.1f per_s=%.4g cpu_s=%.6f", model,
         (unsigned long long)n, dt, dt / (double)n * 1e9, (double)n / dt, dc);
  if (queue) printf(" peak_rss_kb=%ld rss_kb=%ld", peak_kb, end_kb);
  printf("\n");
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
  return 0;
}
