/* SPDX-License-Identifier: MIT */
/* Parameters of model files drawn from distributions (`parameter Real k = Uniform(1,
 * 2);`): the process layer's variates and MRG32k3a streams offered to the language
 * (cdevs_lang_register_random), which knows nothing of them. Each scalar parameter
 * draws from the stream of its hierarchical name, replication r from substream r. */
#include <stdio.h>

#include "cdevs/lang.h"
#include "cdevs/proc.h"
#include "cdevs/random.h"

static int is_dist(const char *name) { return cdevs_dist_kind_parse(name) >= 0; }

static int draw(const cdevs_lang_term *t, const char *param, uint64_t seed, uint64_t replication, double *v,
                char *msg, size_t size) {
  int kind = cdevs_dist_kind_parse(t->name);
  double p[2 * CDEVS_DIST_MAX_PAIRS];
  if (kind < 0 || t->kind != CDEVS_TERM_CALL) {
    snprintf(msg, size, "not a distribution");
    return -1;
  }
  if (t->n > 2 * CDEVS_DIST_MAX_PAIRS) {
    snprintf(msg, size, "%s takes at most %d numbers", t->name, 2 * CDEVS_DIST_MAX_PAIRS);
    return -1;
  }
  for (int i = 0; i < t->n; i++) {
    if (t->kid[i].kind != CDEVS_TERM_NUM) {
      snprintf(msg, size, "%s's parameter %d must be a number (a constant expression or a parameter)", t->name,
               i + 1);
      return -1;
    }
    p[i] = t->kid[i].num;
  }
  cdevs_dist d;
  if (cdevs_dist_make(&d, kind, p, t->n, msg, size)) return -1;
  /* (replication < 10^8 (the command's bound) is far below the 2^51 substreams) */
  uint32_t s[6];
  cdevs_rng g;
  cdevs_rng_package_seed(seed, s);
  cdevs_rng_named(&g, s, param);
  cdevs_rng_substream(&g, replication);
  *v = cdevs_dist_sample(&d, &g);
  return 0;
}

const cdevs_lang_random cdevs_proc_random = {is_dist, draw};
