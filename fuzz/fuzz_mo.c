/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the whole model compiler (parse, check, classify, unroll,
 * bytecode, algebraic order, when clauses) on any bytes. fuzz/README.md says how to
 * build and run it. */
#include <stddef.h>
#include <stdint.h>

#include "cdevs/lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  cdevs_mo *mo = NULL;
  if (cdevs_mo_load_text("fuzz.mo", (const char *)data, size, NULL, &mo) == 0) cdevs_mo_free(mo);
  return 0;
}
