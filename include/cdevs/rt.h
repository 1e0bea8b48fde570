/* SPDX-License-Identifier: MIT */
/* Real-time execution: a wall-clock executive over the step API, external inputs to any
 * port of any model, UDP ports (cdevs/udp.h), and the record and replay of a run. */
#ifndef CDEVS_RT_H
#define CDEVS_RT_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "sim.h"
#include "status.h"
#include "udp.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The executive drives a simulator with cdevs_sim_step, one instant at a time.
 *
 * Real time (speed > 0): the simulated time t is due at the wall time
 *     epoch + (t - t0) / speed
 * of CLOCK_MONOTONIC, an absolute deadline computed afresh for each instant, so no
 * drift accumulates however long the run. Between instants it waits in ppoll on its
 * sockets with the next deadline as timeout: a datagram wakes it at once and becomes an
 * input at the simulated time of its arrival, (now - epoch) * speed + t0. Lateness, how
 * long after its deadline an instant starts, is kept for every simulated time executed.
 *
 * As fast as possible (speed 0): no deadlines; the sockets are polled without waiting
 * between instants (at most every 100 µs of wall time), and a datagram becomes an input
 * at the simulated time the run has reached. What the model receives then depends on
 * the machine's speed; the run does not wait for datagrams after its last event.
 *
 * Inputs of any origin (datagrams, cdevs_rt_input, a replayed log) are delivered one
 * per instant, through a small gateway model (cdevs_rt_attach) that passes each to its
 * port with cdevs_send, so they can reach any input port of any atomic model (the
 * kernel's cdevs_sim_inject reaches only the root's input ports).
 */
typedef struct cdevs_rt cdevs_rt;

/* What a late instant does when its lateness passes the threshold (a miss). */
typedef enum cdevs_rt_overrun {
  CDEVS_RT_CATCHUP = 0, /* keep the schedule: late instants run at once until caught up */
  CDEVS_RT_SKIP = 1,    /* move the schedule: the epoch jumps forward by the lateness, so
                           this instant is on time and the simulated clock loses that
                           stretch of wall time (cdevs_rt_stats.slipped) */
  CDEVS_RT_ABORT = 2    /* stop the run with CDEVS_ETIME and a message */
} cdevs_rt_overrun;

/* A clock for the executive. The default reads CLOCK_MONOTONIC and waits in ppoll; a
 * test clock makes deadlines exact and runs instantly: the executive polls its sockets
 * without waiting and then calls sleep_until, which may move the clock to the deadline
 * (or to an earlier time, after calling cdevs_rt_input). */
typedef struct cdevs_rt_clock {
  int64_t (*now)(void *ud); /* nanoseconds, never decreasing */
  void (*sleep_until)(void *ud, int64_t deadline);
  void *ud;
} cdevs_rt_clock;

typedef struct cdevs_rt_opts {
  double speed;             /* simulated seconds per wall second; 0: as fast as possible */
  cdevs_rt_overrun overrun; /* default CDEVS_RT_CATCHUP */
  double late_threshold;    /* wall seconds: an instant later than this is a miss (default 1e-3) */
  const cdevs_rt_clock *clock; /* NULL: the system's (borrowed) */
  /* Record: every input is written to it as it is delivered (borrowed; flushed at the
   * end of cdevs_rt_run). tag (may be NULL) identifies the model; a replay checks it. */
  FILE *record;
  const char *tag;
  /* Replay: the inputs come from this log instead of the sockets, which are not
   * opened; UDPSend blocks send nothing (counted as suppressed). replay_name names it
   * in messages. */
  FILE *replay;
  const char *replay_name;
  const cdevs_alloc *alloc; /* NULL: the C library's */
} cdevs_rt_opts;

cdevs_rt_opts cdevs_rt_opts_default(void);

/* A new executive. With a replay log, its header is read and checked here (against
 * opts->tag when both have one): a failure is CDEVS_EINVAL or CDEVS_EIO with the reason
 * in *errmsg (size bytes), and *out NULL. */
cdevs_status cdevs_rt_new(const cdevs_rt_opts *opts, cdevs_rt **out, char *errmsg, size_t size);
/* Closes its sockets and frees it. Free it after the simulators that use it. NULL is
 * accepted. */
void cdevs_rt_free(cdevs_rt *rt);

/* Adds the gateway to root (an atomic model "_rt" and a root input port "_rt"): call it
 * once, after the model is built and before cdevs_sim_new. */
cdevs_status cdevs_rt_attach(cdevs_rt *rt, cdevs_model *root);

/*
 * Runs sim (built from the root given to cdevs_rt_attach) up to t_stop: in real time,
 * until the wall clock reaches t_stop's deadline, every event and input up to then
 * taken; as fast as possible, until no instant is left before t_stop; in a replay,
 * until the recorded run ended. *t_end is where the results are whole to (t_stop, or
 * where a stop request or an error left them). CDEVS_OK also after a stop request;
 * otherwise the status of the failure, explained by cdevs_rt_errmsg (or
 * cdevs_sim_errmsg for the model's own failures, CDEVS_EMODEL and the like).
 */
cdevs_status cdevs_rt_run(cdevs_rt *rt, cdevs_sim *sim, double t_stop, double *t_end);

/* Ends the current cdevs_rt_run after the instant it is in, waking it from a wait.
 * Async-signal-safe. */
void cdevs_rt_request_stop(cdevs_rt *rt);

/* Delivers value v to input port `port` of atomic model `atomic` (its id: cdevs_sim_atomic_id)
 * at the simulated time of now: queued, injected at the next turn of the executive's
 * loop. Call it during cdevs_rt_run from a watch callback or a test clock. A message
 * value is retained. CDEVS_EINVAL for a model or port that does not exist, CDEVS_EKIND
 * for a value the port does not take, CDEVS_ESTATE outside a run. */
cdevs_status cdevs_rt_input(cdevs_rt *rt, uint32_t atomic, int port, const cdevs_value *v);

/* Adds a file descriptor to the executive's wait: ready(rt, fd, ud) is called when it
 * is readable (it reads what is there and may call cdevs_rt_input). Before cdevs_rt_run. */
cdevs_status cdevs_rt_watch(cdevs_rt *rt, int fd, void (*ready)(cdevs_rt *rt, int fd, void *ud), void *ud);

/* The last error of the executive, or "". */
const char *cdevs_rt_errmsg(const cdevs_rt *rt);

/* Whether the executive replays a log, and the time its recorded run ended (NaN when it
 * has no end line: that run did not end cleanly). */
int cdevs_rt_replaying(const cdevs_rt *rt);
double cdevs_rt_replay_end(const cdevs_rt *rt);

typedef struct cdevs_rt_stats {
  uint64_t events;   /* simulated times executed (a cascade of instants at one time is one) */
  double late_mean;  /* lateness in wall seconds: mean, median, 99th percentile (to 3%), max */
  double late_p50, late_p99, late_max;
  uint64_t misses;   /* instants later than the threshold */
  double slipped;    /* CDEVS_RT_SKIP: wall seconds the schedule was moved */
  uint64_t inputs;   /* inputs delivered (datagrams, cdevs_rt_input, replayed) */
  uint64_t received; /* datagrams accepted */
  uint64_t dropped[CDEVS_UDP_NVERDICTS]; /* datagrams dropped, by verdict ([CDEVS_UDP_OK] is 0) */
  uint64_t dropped_total;
  uint64_t kernel_dropped; /* datagrams the kernel dropped (receive buffer full; Linux SO_RXQ_OVFL) */
  uint64_t sent;           /* datagrams sent */
  uint64_t send_errors;    /* sends that failed (the run goes on); send_errno the first one's errno */
  int send_errno;
  uint64_t suppressed;     /* sends a replay did not make */
} cdevs_rt_stats;

void cdevs_rt_stats_get(const cdevs_rt *rt, cdevs_rt_stats *st);

/* The UDP blocks for model files (cdevs.UDPSend, cdevs.UDPReceive), context kind "rt":
 * cdevs_lang_register(&cdevs_rt_library), then cdevs_mo_set_context(mo, "rt", rt). */
struct cdevs_lang_library;
extern const struct cdevs_lang_library cdevs_rt_library;

#ifdef __cplusplus
}
#endif
#endif
