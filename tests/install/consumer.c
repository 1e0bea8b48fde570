/* SPDX-License-Identifier: MIT */
/* An embedder of the installed library: builds and runs a one-atomic model. */
#include <stdio.h>

#include <cdevs/cdevs.h>

int main(void) {
  cdevs_model *root = cdevs_root_new(NULL, "root");
  cdevs_sim *sim = NULL;
  if (!root || cdevs_sim_new(root, NULL, &sim)) return 1;
  printf("cdevs %s\n", cdevs_version());
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return 0;
}
