/* SPDX-License-Identifier: MIT */
/* UDP ports (UDPLib): the wire format of their datagrams, and the blocks that send a
 * datagram when they receive an event and emit an event when a datagram arrives. */
#ifndef CDEVS_UDP_H
#define CDEVS_UDP_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The wire format, version 1. Every field is little-endian, whatever the machine:
 *
 *   offset  bytes  field
 *        0      4  magic: the ASCII bytes 'C' 'D' 'V' 'S'
 *        4      1  version: 1
 *        5      1  flags: 0 (the others are reserved: a datagram with one set is malformed)
 *        6      2  n, the number of values (1 .. CDEVS_UDP_MAX_VALUES)
 *        8      8  sequence number: 1, 2, 3 ... for each sending port (socket)
 *       16      8  the sender's simulated time when it sent (IEEE 754 double)
 *       24     8n  the values (IEEE 754 doubles)
 *
 * A datagram is exactly 24 + 8n bytes. Raw mode (UDPLib's, for peers that know no
 * header) is the n doubles alone, little-endian, exactly 8n bytes, with no sequence
 * number, so that nothing can be said about its order.
 */
#define CDEVS_UDP_MAGIC "CDVS"
#define CDEVS_UDP_VERSION 1
#define CDEVS_UDP_HEADER 24
#define CDEVS_UDP_MAX_VALUES 1024
/* The largest valid datagram: 8,216 bytes. */
#define CDEVS_UDP_MAX_BYTES (CDEVS_UDP_HEADER + 8 * CDEVS_UDP_MAX_VALUES)

/* What a received datagram is. Every reason but OK drops it, counted by reason. One
 * list generates the enum and cdevs_udp_verdict_name(). */
#define CDEVS_UDP_VERDICT_LIST(X)                                                        \
  X(CDEVS_UDP_OK, "ok")               /* accepted */                                      \
  X(CDEVS_UDP_TRUNCATED, "truncated") /* shorter than its header, or than its n values */ \
  X(CDEVS_UDP_MALFORMED, "malformed") /* wrong magic, a reserved flag, bytes past its values, \
                                         raw: not a whole number of doubles */            \
  X(CDEVS_UDP_BADVERSION, "version")  /* another version of the format */                 \
  X(CDEVS_UDP_COUNT, "count")         /* well formed, but not the n values this port takes */ \
  X(CDEVS_UDP_OVERSIZED, "oversized") /* more than CDEVS_UDP_MAX_VALUES values or bytes */ \
  X(CDEVS_UDP_NONFINITE, "nonfinite") /* a value or the time is NaN or infinite */       \
  X(CDEVS_UDP_STALE, "stale")         /* its sequence number is not above the last accepted \
                                         from the same sender: a repeat or a replay */

typedef enum cdevs_udp_verdict {
#define CDEVS_UDP_VERDICT_ENUM(name, text) name,
  CDEVS_UDP_VERDICT_LIST(CDEVS_UDP_VERDICT_ENUM)
#undef CDEVS_UDP_VERDICT_ENUM
  CDEVS_UDP_NVERDICTS
} cdevs_udp_verdict;

/* "ok", "truncated", ...; "?" for a bad value. */
const char *cdevs_udp_verdict_name(int verdict);

typedef struct cdevs_udp_header {
  uint64_t seq; /* 0 in raw mode */
  double t;     /* the sender's simulated time (NaN in raw mode) */
  uint32_t n;
} cdevs_udp_header;

/*
 * Decodes the len bytes of a datagram for a port that takes n values (raw: bare
 * doubles). A pure function of its arguments: it reads buf[0 .. len-1] only, and
 * writes h and values[0 .. n-1] only when the verdict is CDEVS_UDP_OK. It never
 * returns CDEVS_UDP_STALE (the sequence is the receiver's business).
 */
cdevs_udp_verdict cdevs_udp_decode(const void *buf, size_t len, size_t n, int raw, cdevs_udp_header *h,
                                   double *values);

/* Encodes a datagram of n values into buf: its length, or 0 when it does not fit in
 * size bytes or n is 0 or above CDEVS_UDP_MAX_VALUES. */
size_t cdevs_udp_encode(void *buf, size_t size, uint64_t seq, double t, const double *values, size_t n, int raw);

/* ---- The blocks ------------------------------------------------------------------ */

typedef struct cdevs_rt cdevs_rt; /* cdevs/rt.h */

/*
 * cdevs.UDPSend(host, port, n): sends a datagram of n values when it receives an
 * event. Inputs:
 *   c        taylor  a send each time its value changes (UDPLib's c, both edges; it
 *                    starts at 0), of u1..un as they are at that instant;
 *   u1..u8   taylor  the values sent, held between their events (read at the send
 *                    time: a Taylor value is evaluated there);
 *   v        array   sends its values at once (n of them: another count is an error
 *                    of the run).
 * Inputs of one instant are taken together: the u's first, then c and v.
 */
typedef struct cdevs_udp_send_params {
  cdevs_rt *rt;     /* the executive the block sends through (required) */
  const char *host; /* IPv4 or IPv6 address, or a host name (borrowed until init) */
  int port;         /* 1 .. 65535 */
  int n;            /* values per datagram, 1 .. CDEVS_UDP_MAX_VALUES */
  int raw;          /* 1: bare doubles (UDPLib's datagrams) */
  int slot;         /* 0; the executive's endpoint once opened (model files open it early) */
} cdevs_udp_send_params;

/*
 * cdevs.UDPReceive(port, n): an event per datagram. Its socket is bound to host:port;
 * the executive (cdevs_rt_run) reads it, drops what is not a valid datagram of n
 * values (counted by reason, cdevs_rt_stats) and delivers the values to its input
 * `udp` at the simulated time they arrive. Outputs, at that time (or, with a period,
 * at the next multiple of the period, UDPLib's polling, the last datagram then):
 *   c        taylor  toggles between 0 and 1 (UDPLib's c);
 *   count    taylor  the number of datagrams delivered so far;
 *   y1..y8   taylor  the values (those up to n);
 *   v        array   all n values.
 */
typedef struct cdevs_udp_receive_params {
  cdevs_rt *rt;     /* the executive that reads the socket (required) */
  const char *host; /* the local address to bind: "127.0.0.1", "::1", "0.0.0.0", "::" */
  int port;         /* 1 .. 65535 */
  int n;            /* values per datagram, 1 .. CDEVS_UDP_MAX_VALUES */
  int raw;          /* 1: bare doubles, no sequence numbers */
  double period;    /* 0: an event as each datagram arrives; > 0: at multiples of it */
  int slot;         /* 0; the executive's endpoint once opened */
} cdevs_udp_receive_params;

extern const cdevs_atomic_ops cdevs_udp_send_ops;
extern const cdevs_atomic_ops cdevs_udp_receive_ops;

/* The port numbers of the blocks' ports, for cdevs_connect_i and cdevs_rt_input. */
enum { CDEVS_UDP_IN_C = 0, CDEVS_UDP_IN_U1 = 1, CDEVS_UDP_IN_V = 9 };
enum { CDEVS_UDP_RX_IN = 0 };
enum { CDEVS_UDP_OUT_C = 0, CDEVS_UDP_OUT_COUNT = 1, CDEVS_UDP_OUT_Y1 = 2, CDEVS_UDP_OUT_V = 10 };
#define CDEVS_UDP_SIGNALS 8 /* u1..u8, y1..y8 */

#ifdef __cplusplus
}
#endif
#endif
