/* SPDX-License-Identifier: MIT */
/* libFuzzer target: the UDP wire format's decoder (cdevs_udp_decode) on any bytes, for a
 * port of 1 to 16 values (or the maximum) in either mode, with the property that
 * whatever it accepts encodes back to the very same bytes, and the sequence check on
 * the sender keys and numbers the input makes up. fuzz/README.md says how to run it. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cdevs/udp.h"
#include "rt/rt_impl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static double vals[CDEVS_UDP_MAX_VALUES];
  static unsigned char back[CDEVS_UDP_MAX_BYTES];
  static cdevs__seqtab tab;
  if (size < 2) return 0;
  size_t n = data[0] == 255 ? CDEVS_UDP_MAX_VALUES : 1 + data[0] % 16;
  int raw = data[1] & 1;
  cdevs_udp_header h;
  cdevs_udp_verdict v = cdevs_udp_decode(data + 2, size - 2, n, raw, &h, vals);
  if (v < CDEVS_UDP_OK || v >= CDEVS_UDP_NVERDICTS || v == CDEVS_UDP_STALE) __builtin_trap();
  if (v != CDEVS_UDP_OK) return 0;
  size_t len = cdevs_udp_encode(back, sizeof back, h.seq, h.t, vals, n, raw);
  if (len != size - 2 || memcmp(back, data + 2, len)) __builtin_trap();
  if (!raw) { /* the sender: made-up key from the datagram's first bytes */
    unsigned char key[CDEVS__SEQ_KEY] = {0};
    memcpy(key, data + 2, size - 2 < 4 ? size - 2 : 4);
    key[0] &= 3;
    (void)cdevs__seq_check(&tab, key, h.seq);
  }
  return 0;
}
