/* SPDX-License-Identifier: MIT */
/* Inside the real-time layer: the executive's state, its UDP endpoints, the lateness
 * histogram, the sequence check, the record/replay log, and the OS calls it needs
 * (src/rt/posix/). */
#ifndef CDEVS_RT_IMPL_H
#define CDEVS_RT_IMPL_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "cdevs/rt.h"
#include "cdevs/udp.h"

/* ---- sequence check (wire.c) ------------------------------------------------------------ */

#define CDEVS__SEQ_SOURCES 16
#define CDEVS__SEQ_KEY 20 /* address family (1), port (2), address (16), 0 (1) */

typedef struct cdevs__seqsrc {
  unsigned char key[CDEVS__SEQ_KEY];
  uint64_t last; /* the last sequence number accepted */
  uint64_t used; /* when it was last heard from (0: a free slot) */
} cdevs__seqsrc;

typedef struct cdevs__seqtab {
  cdevs__seqsrc src[CDEVS__SEQ_SOURCES];
  uint64_t clock;
} cdevs__seqtab;

/* CDEVS_UDP_OK (and the number is remembered) or CDEVS_UDP_STALE. */
cdevs_udp_verdict cdevs__seq_check(cdevs__seqtab *tab, const unsigned char key[CDEVS__SEQ_KEY], uint64_t seq);

/* ---- lateness (lateness.c) -------------------------------------------------------------- */

#define CDEVS__LATE_BUCKETS (64 + 58 * 32)

typedef struct cdevs__late {
  uint64_t n, misses, max;
  double sum;
  int64_t threshold;
  uint64_t bucket[CDEVS__LATE_BUCKETS];
} cdevs__late;

void cdevs__late_init(cdevs__late *l, int64_t threshold_ns);
/* Adds one instant's lateness (ns; negative counts as 0); 1 if it is a miss. */
int cdevs__late_add(cdevs__late *l, int64_t ns);
uint64_t cdevs__late_quantile(const cdevs__late *l, double q);

/* ---- endpoints (udp.c) ------------------------------------------------------------------ */

enum { CDEVS__EP_SEND = 0, CDEVS__EP_RECEIVE = 1 };

typedef struct cdevs__endpoint {
  int kind;
  int fd;     /* -1 in a replay: nothing is opened */
  int raw;
  uint32_t n;
  char name[96];             /* the block's name, for messages */
  unsigned char addr[128];   /* CDEVS__EP_SEND: the destination */
  uint32_t addrlen;
  uint32_t atomic;           /* CDEVS__EP_RECEIVE: the model datagrams go to (UINT32_MAX: none yet) */
  cdevs__seqtab seq;         /* CDEVS__EP_RECEIVE */
  uint64_t next_seq;         /* CDEVS__EP_SEND */
} cdevs__endpoint;

/* Opens the endpoint of a block (a socket, unless the executive replays): its slot
 * (1-based), or 0 with the reason in msg. */
int cdevs__rt_endpoint_open(cdevs_rt *rt, int kind, const char *name, const char *host, int port, int n, int raw,
                            char *msg, size_t size);
/* The receive endpoint `slot` delivers to atomic model `atomic`. */
void cdevs__rt_endpoint_bind(cdevs_rt *rt, int slot, uint32_t atomic);
/* Sends n values from endpoint `slot` at simulated time t (counted; a replay only counts). */
void cdevs__rt_send(cdevs_rt *rt, int slot, double t, const double *values, size_t n);
/* Reads what waits on a receive endpoint's socket, queueing each valid datagram as an
 * input; at most `max` datagrams. The number read. */
uint32_t cdevs__rt_drain(cdevs_rt *rt, cdevs__endpoint *ep, uint32_t max);

/* ---- the gateway (gateway.c) ------------------------------------------------------------ */

/* The payload of the messages injected at the root's "_rt" port: where to, and what. */
typedef struct cdevs__delivery {
  uint32_t atomic;
  int port;
  cdevs_value v; /* holds a reference when it is a message */
} cdevs__delivery;

extern const cdevs_msg_type cdevs__delivery_type;
extern const cdevs_atomic_ops cdevs__gateway_ops;

/* ---- record and replay (record.c) -------------------------------------------------------- */

typedef struct cdevs__record {
  double wall, t;
  uint64_t k;      /* instants executed in the run before it */
  char *path;      /* the atomic model's path */
  char *port;      /* its input port's name */
  cdevs_value v;   /* holds a reference to an array */
  int line;
} cdevs__record;

typedef struct cdevs__replay {
  cdevs__record *recs;
  uint32_t n, cap, next;
  int has_end;
  double end_t;
  uint64_t end_k;
  char *tag;
} cdevs__replay;

/* Reads a whole log: 0, or -1 with "NAME:LINE: why" in msg. */
int cdevs__replay_read(cdevs_rt *rt, FILE *f, const char *name, char *msg, size_t size);
void cdevs__replay_free(cdevs_rt *rt);
void cdevs__record_header(cdevs_rt *rt);
void cdevs__record_input(cdevs_rt *rt, double wall, double t, uint64_t k, uint32_t atomic, int port,
                         const cdevs_value *v);
void cdevs__record_end(cdevs_rt *rt, double t_end, uint64_t k);

/* ---- the executive (exec.c) -------------------------------------------------------------- */

typedef struct cdevs__input {
  uint32_t atomic;
  int port;
  cdevs_value v; /* holds a reference when it is a message */
} cdevs__input;

typedef struct cdevs__watch {
  int fd;
  void (*ready)(cdevs_rt *rt, int fd, void *ud);
  void *ud;
} cdevs__watch;

typedef struct cdevs__pollset cdevs__pollset;

struct cdevs_rt {
  cdevs_alloc alloc;
  cdevs_rt_opts opts;
  char errmsg[512];
  cdevs__endpoint *ep;
  uint32_t nep, capep;
  cdevs__watch *watch;
  uint32_t nwatch, capwatch;
  cdevs__input *pend; /* inputs waiting for the next turn, oldest first */
  uint32_t npend, cappend, headpend;
  cdevs_model *root, *gateway;
  int gw_port;
  cdevs_sim *sim; /* during cdevs_rt_run */
  int running;
  int failed;     /* the run failed outside the model: errmsg says why */
  int64_t epoch;  /* the wall time (ns) of simulated time t0 */
  double t0;
  int wake_fd;
  volatile sig_atomic_t stop;
  cdevs__late late;
  double slipped;
  uint64_t events, inputs, received, dropped[CDEVS_UDP_NVERDICTS], kernel_dropped;
  uint64_t sent, send_errors, suppressed;
  int send_errno;
  unsigned char *rxbuf; /* a datagram, received or to send (65536 bytes) */
  double *vals;         /* its values (CDEVS_UDP_MAX_VALUES) */
  int header_written;
  cdevs__replay replay;
  int replaying;
};

/* The wall clock of the executive, ns. */
int64_t cdevs__rt_now(const cdevs_rt *rt);
/* Queues an input (cdevs_rt_input without the checks). */
cdevs_status cdevs__rt_queue(cdevs_rt *rt, uint32_t atomic, int port, const cdevs_value *v);
void cdevs__rt_fail(cdevs_rt *rt, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- the operating system (posix/) ------------------------------------------------------- */

int64_t cdevs__os_now(void); /* CLOCK_MONOTONIC, ns */
/* The timer slack of the calling thread (how late the kernel may wake it), set to ns;
 * the old value, or -1 where it cannot be set. */
int64_t cdevs__os_timerslack(int64_t ns);
int cdevs__os_wake_open(void); /* an eventfd; -1 on failure */
void cdevs__os_wake(int fd);   /* async-signal-safe */
void cdevs__os_wake_clear(int fd);
void cdevs__os_close(int fd);

/* Waiting on file descriptors with a timeout. */
cdevs__pollset *cdevs__pollset_new(const cdevs_alloc *a, const int *fds, uint32_t n);
void cdevs__pollset_free(const cdevs_alloc *a, cdevs__pollset *p);
/* Waits until one of the descriptors is readable or timeout_ns passed (< 0: no limit;
 * 0: only looks); ready[i] says which. The number ready (0 on a timeout or a signal). */
int cdevs__pollset_wait(cdevs__pollset *p, int64_t timeout_ns, unsigned char *ready);

/* A bound, non-blocking UDP socket for receiving (kernel drops counted), or -1 with
 * the reason in msg. */
int cdevs__net_open_receive(const char *host, int port, char *msg, size_t size);
/* A non-blocking UDP socket for sending to host:port (resolved into addr), or -1. */
int cdevs__net_open_send(const char *host, int port, unsigned char addr[128], uint32_t *addrlen, char *msg,
                         size_t size);
/* The next datagram on fd: its full length (it may be longer than cap, then cut) and
 * its sender as a key. -1: none left. */
long cdevs__net_recv(int fd, void *buf, size_t cap, unsigned char key[CDEVS__SEQ_KEY]);
/* The datagrams the kernel dropped on this socket (its buffer full), or 0 if unknown. */
uint64_t cdevs__net_drops(int fd);
/* 0, or the errno of a failed send. */
int cdevs__net_send(int fd, const unsigned char *addr, uint32_t addrlen, const void *buf, size_t len);
/* The local port a socket is bound to, or -1. */
int cdevs__net_local_port(int fd);

#endif
