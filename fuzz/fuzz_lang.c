/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the model language's lexer, parser and checker on any bytes.
 * How to build and run it: fuzz/README.md. */
#include <stddef.h>
#include <stdint.h>

#include "cdevs/lang.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  (void)cdevs_lang_check_text("fuzz.mo", (const char *)data, size, NULL);
  return 0;
}
