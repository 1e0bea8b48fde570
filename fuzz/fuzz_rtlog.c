/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the reader of --record logs (what cdevs run --replay takes) on any
 * bytes, through cdevs_rt_new: a log is refused with a message or read whole, never a
 * crash or a leak. fuzz/README.md says how to run it. */
#define _GNU_SOURCE /* fmemopen */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cdevs/rt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (!size) return 0;
  FILE *f = fmemopen((void *)(uintptr_t)data, size, "r");
  if (!f) return 0;
  cdevs_rt_opts o = cdevs_rt_opts_default();
  o.replay = f;
  o.replay_name = "fuzz.log";
  cdevs_rt *rt = NULL;
  char msg[256];
  if (cdevs_rt_new(&o, &rt, msg, sizeof msg) == CDEVS_OK) (void)cdevs_rt_replay_end(rt);
  cdevs_rt_free(rt);
  fclose(f);
  return 0;
}
