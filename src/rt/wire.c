/* SPDX-License-Identifier: MIT */
/* The UDP wire format (cdevs/udp.h): encoding, the pure decoder that never trusts a
 * datagram, and the per-sender sequence check that drops repeats and replays. */
#include <math.h>
#include <string.h>

#include "rt/rt_impl.h"

const char *cdevs_udp_verdict_name(int verdict) {
  switch (verdict) {
#define CDEVS_UDP_VERDICT_CASE(name, text) \
  case name: return text;
    CDEVS_UDP_VERDICT_LIST(CDEVS_UDP_VERDICT_CASE)
#undef CDEVS_UDP_VERDICT_CASE
  default: return "?";
  }
}

/* Little-endian fields, assembled byte by byte: the same on every machine. */
static uint64_t get64(const unsigned char *p) {
  uint64_t x = 0;
  for (int i = 7; i >= 0; i--) x = x << 8 | p[i];
  return x;
}

static void put64(unsigned char *p, uint64_t x) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(x >> (8 * i));
}

static double get_double(const unsigned char *p) {
  uint64_t bits = get64(p);
  double d;
  memcpy(&d, &bits, sizeof d);
  return d;
}

static void put_double(unsigned char *p, double d) {
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  put64(p, bits);
}

size_t cdevs_udp_encode(void *buf, size_t size, uint64_t seq, double t, const double *values, size_t n, int raw) {
  size_t len = (raw ? 0 : CDEVS_UDP_HEADER) + 8 * n;
  if (!buf || n == 0 || n > CDEVS_UDP_MAX_VALUES || len > size) return 0;
  unsigned char *p = buf;
  if (!raw) {
    memcpy(p, CDEVS_UDP_MAGIC, 4);
    p[4] = CDEVS_UDP_VERSION;
    p[5] = 0;
    p[6] = (unsigned char)(n & 0xff);
    p[7] = (unsigned char)(n >> 8);
    put64(p + 8, seq);
    put_double(p + 16, t);
    p += CDEVS_UDP_HEADER;
  }
  for (size_t i = 0; i < n; i++) put_double(p + 8 * i, values[i]);
  return len;
}

/* The checks go from the cheapest and most telling (the size, the magic) to the
 * values, and nothing is written out before all of them passed. */
cdevs_udp_verdict cdevs_udp_decode(const void *buf, size_t len, size_t n, int raw, cdevs_udp_header *h,
                                   double *values) {
  const unsigned char *p = buf;
  size_t count;
  double t = NAN;
  uint64_t seq = 0;
  if (len > CDEVS_UDP_MAX_BYTES) return CDEVS_UDP_OVERSIZED;
  if (raw) {
    if (len % 8) return CDEVS_UDP_MALFORMED;
    count = len / 8;
    if (count != n) return CDEVS_UDP_COUNT;
  } else {
    if (len < CDEVS_UDP_HEADER) return CDEVS_UDP_TRUNCATED;
    if (memcmp(p, CDEVS_UDP_MAGIC, 4)) return CDEVS_UDP_MALFORMED;
    if (p[4] != CDEVS_UDP_VERSION) return CDEVS_UDP_BADVERSION;
    if (p[5]) return CDEVS_UDP_MALFORMED;
    count = (size_t)p[6] | (size_t)p[7] << 8;
    if (count > CDEVS_UDP_MAX_VALUES) return CDEVS_UDP_OVERSIZED;
    if (count == 0) return CDEVS_UDP_MALFORMED;
    size_t want = CDEVS_UDP_HEADER + 8 * count;
    if (len < want) return CDEVS_UDP_TRUNCATED;
    if (len > want) return CDEVS_UDP_MALFORMED;
    if (count != n) return CDEVS_UDP_COUNT;
    seq = get64(p + 8);
    t = get_double(p + 16);
    if (!isfinite(t)) return CDEVS_UDP_NONFINITE;
    p += CDEVS_UDP_HEADER;
  }
  for (size_t i = 0; i < count; i++)
    if (!isfinite(get_double(p + 8 * i))) return CDEVS_UDP_NONFINITE;
  for (size_t i = 0; i < count; i++) values[i] = get_double(p + 8 * i);
  if (h) {
    h->seq = seq;
    h->t = t;
    h->n = (uint32_t)count;
  }
  return CDEVS_UDP_OK;
}

/* ---- the sequence check --------------------------------------------------------------- */

/* A sender is its address and port; its sequence must rise. The table keeps the
 * CDEVS__SEQ_SOURCES senders heard from most recently: a new one takes the slot of the
 * one heard from longest ago (whose repeats could then pass once). */
cdevs_udp_verdict cdevs__seq_check(cdevs__seqtab *tab, const unsigned char key[CDEVS__SEQ_KEY], uint64_t seq) {
  tab->clock++;
  cdevs__seqsrc *oldest = &tab->src[0];
  for (int i = 0; i < CDEVS__SEQ_SOURCES; i++) {
    cdevs__seqsrc *s = &tab->src[i];
    if (s->used && !memcmp(s->key, key, CDEVS__SEQ_KEY)) {
      if (seq <= s->last) return CDEVS_UDP_STALE;
      s->last = seq;
      s->used = tab->clock;
      return CDEVS_UDP_OK;
    }
    if (s->used < oldest->used) oldest = s;
  }
  memcpy(oldest->key, key, CDEVS__SEQ_KEY);
  oldest->last = seq;
  oldest->used = tab->clock;
  return CDEVS_UDP_OK;
}
