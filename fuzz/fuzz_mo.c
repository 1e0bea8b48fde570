/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the whole model compiler (parse, check, classify, unroll,
 * bytecode, constant folding, algebraic order, when clauses) on any bytes, and then
 * the first steps of the compiled model (incidence, on-demand algebraics, the
 * quantizers, crossings and handlers), bounded so that a slow model is no hang.
 * fuzz/README.md says how to build and run it. */
#include <stddef.h>
#include <stdint.h>

#include "cdevs/cdevs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cdevs_mo *mo = NULL;
  if (cdevs_mo_load_text("fuzz.mo", (const char *)data, size, NULL, &mo) != 0) return 0;
  cdevs_mo_experiment e;
  cdevs_mo_experiment_get(mo, &e);
  cdevs_model *root = cdevs_root_new(NULL, "fuzz");
  if (root) {
    cdevs_mo_set_stop(mo, e.stop);
    (void)cdevs_mo_add(root, "model", mo, e.method, e.tol, e.abstol);
    cdevs_sim_opts so = cdevs_sim_opts_default();
    so.t0 = e.start;
    cdevs_sim *sim = NULL;
    if (cdevs_sim_new(root, &so, &sim) == CDEVS_OK) {
      for (int k = 0; k < 2000 && cdevs_sim_next_time(sim) <= e.stop; k++)
        if (cdevs_sim_step(sim) != CDEVS_OK) break;
      cdevs_sim_free(sim);
    }
    cdevs_model_free(root);
  }
  cdevs_mo_free(mo);
  return 0;
}
