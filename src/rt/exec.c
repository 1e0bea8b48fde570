/* SPDX-License-Identifier: MIT */
/* The real-time executive: drives a simulator instant by instant against the wall
 * clock (or as fast as possible), turns datagrams and other external inputs into
 * events, keeps the lateness, and records or replays the inputs. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_impl.h"
#include "rt/rt_impl.h"

/* As fast as possible, the sockets are looked at no more often than this (wall ns). */
#define AFAP_LOOK_NS 100000
/* Datagrams read from one socket per look, so that a flood cannot starve the model. */
#define DRAIN_MAX 256

cdevs_rt_opts cdevs_rt_opts_default(void) {
  cdevs_rt_opts o;
  memset(&o, 0, sizeof o);
  o.overrun = CDEVS_RT_CATCHUP;
  o.late_threshold = 1e-3;
  return o;
}

void cdevs__rt_fail(cdevs_rt *rt, const char *fmt, ...) {
  if (rt->failed) return; /* the first error explains the others */
  rt->failed = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rt->errmsg, sizeof rt->errmsg, fmt, ap);
  va_end(ap);
}

const char *cdevs_rt_errmsg(const cdevs_rt *rt) { return rt ? rt->errmsg : ""; }

cdevs_status cdevs_rt_new(const cdevs_rt_opts *opts, cdevs_rt **out, char *errmsg, size_t size) {
  cdevs_rt_opts o = opts ? *opts : cdevs_rt_opts_default();
  const cdevs_alloc *a = o.alloc ? o.alloc : cdevs_alloc_default();
  char dummy[8];
  if (!errmsg || !size) errmsg = dummy, size = sizeof dummy;
  errmsg[0] = '\0';
  *out = NULL;
  if (!(o.speed >= 0) || isinf(o.speed)) {
    snprintf(errmsg, size, "speed %g is not a number >= 0 (0: as fast as possible)", o.speed);
    return CDEVS_EINVAL;
  }
  if (!(o.late_threshold >= 0) || isinf(o.late_threshold)) {
    snprintf(errmsg, size, "late threshold %g is not a time >= 0", o.late_threshold);
    return CDEVS_EINVAL;
  }
  if (o.overrun != CDEVS_RT_CATCHUP && o.overrun != CDEVS_RT_SKIP && o.overrun != CDEVS_RT_ABORT) {
    snprintf(errmsg, size, "unknown overrun policy %d", (int)o.overrun);
    return CDEVS_EINVAL;
  }
  cdevs_rt *rt = cdevs__calloc(a, 1, sizeof *rt);
  if (!rt) goto oom;
  rt->alloc = *a;
  rt->opts = o;
  rt->opts.alloc = &rt->alloc;
  rt->wake_fd = -1;
  rt->rxbuf = cdevs__calloc(a, 65536, 1);
  rt->vals = cdevs__calloc(a, CDEVS_UDP_MAX_VALUES, sizeof(double));
  if (!rt->rxbuf || !rt->vals) goto oom;
  cdevs__late_init(&rt->late, (int64_t)llround(o.late_threshold * 1e9));
  rt->wake_fd = cdevs__os_wake_open(); /* without one a signal still ends the wait (EINTR) */
  if (o.replay) {
    const char *name = o.replay_name ? o.replay_name : "replay log";
    if (cdevs__replay_read(rt, o.replay, name, errmsg, size)) {
      cdevs_rt_free(rt);
      return CDEVS_EINVAL;
    }
    if (o.tag && rt->replay.tag && strcmp(o.tag, rt->replay.tag)) {
      snprintf(errmsg, size, "%s was recorded from another run: recorded '%s', this run '%s'", name, rt->replay.tag,
               o.tag);
      cdevs_rt_free(rt);
      return CDEVS_EINVAL;
    }
    rt->replaying = 1;
  }
  *out = rt;
  return CDEVS_OK;
oom:
  snprintf(errmsg, size, "out of memory");
  cdevs_rt_free(rt);
  return CDEVS_ENOMEM;
}

void cdevs_rt_free(cdevs_rt *rt) {
  if (!rt) return;
  const cdevs_alloc *a = &rt->alloc;
  for (uint32_t i = 0; i < rt->nep; i++) cdevs__os_close(rt->ep[i].fd);
  cdevs__os_close(rt->wake_fd);
  for (uint32_t i = rt->headpend; i < rt->npend; i++)
    if (rt->pend[i].v.kind == CDEVS_MSG || rt->pend[i].v.kind == CDEVS_ARRAY) cdevs_msg_release(rt->pend[i].v.u.msg);
  CDEVS_FREEARR(a, rt->ep, rt->capep);
  CDEVS_FREEARR(a, rt->watch, rt->capwatch);
  CDEVS_FREEARR(a, rt->pend, rt->cappend);
  cdevs__replay_free(rt);
  cdevs__free(a, rt->rxbuf, 65536);
  cdevs__free(a, rt->vals, CDEVS_UDP_MAX_VALUES * sizeof(double));
  cdevs_alloc al = *a;
  cdevs__free(&al, rt, sizeof *rt);
}

cdevs_status cdevs_rt_attach(cdevs_rt *rt, cdevs_model *root) {
  if (!rt || !root || cdevs_model_parent(root)) return CDEVS_EINVAL;
  if (rt->root) return CDEVS_ESTATE;
  rt->gw_port = cdevs_port_add(root, CDEVS_IN, "_rt", CDEVS_MSG);
  rt->gateway = cdevs_atomic_add(root, "_rt", &cdevs__gateway_ops, NULL);
  cdevs_connect(root, root, "_rt", rt->gateway, "in");
  cdevs_status st = cdevs_model_status(root);
  if (st) return st;
  rt->root = root;
  return CDEVS_OK;
}

int cdevs_rt_replaying(const cdevs_rt *rt) { return rt && rt->replaying; }

double cdevs_rt_replay_end(const cdevs_rt *rt) {
  return rt && rt->replaying && rt->replay.has_end ? rt->replay.end_t : NAN;
}

void cdevs_rt_request_stop(cdevs_rt *rt) {
  if (!rt) return;
  rt->stop = 1;
  cdevs__os_wake(rt->wake_fd);
}

cdevs_status cdevs_rt_watch(cdevs_rt *rt, int fd, void (*ready)(cdevs_rt *, int, void *), void *ud) {
  if (!rt || fd < 0 || !ready) return CDEVS_EINVAL;
  if (rt->running) return CDEVS_ESTATE;
  if (rt->nwatch == rt->capwatch && CDEVS_GROW(&rt->alloc, rt->watch, rt->capwatch, rt->nwatch + 1))
    return CDEVS_ENOMEM;
  rt->watch[rt->nwatch++] = (cdevs__watch){fd, ready, ud};
  return CDEVS_OK;
}

cdevs_status cdevs__rt_queue(cdevs_rt *rt, uint32_t atomic, int port, const cdevs_value *v) {
  if (rt->headpend && rt->headpend == rt->npend) rt->headpend = rt->npend = 0;
  if (rt->npend == rt->cappend && CDEVS_GROW(&rt->alloc, rt->pend, rt->cappend, rt->npend + 1)) {
    cdevs__rt_fail(rt, "out of memory queueing an input");
    return CDEVS_ENOMEM;
  }
  rt->pend[rt->npend++] = (cdevs__input){atomic, port, *v};
  if (v->kind == CDEVS_MSG || v->kind == CDEVS_ARRAY) cdevs_msg_retain(v->u.msg);
  return CDEVS_OK;
}

/* Says why an input is refused (the caller gets the status; the run goes on). */
static void refuse(cdevs_rt *rt, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void refuse(cdevs_rt *rt, const char *fmt, ...) {
  if (rt->failed) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rt->errmsg, sizeof rt->errmsg, fmt, ap);
  va_end(ap);
}

/* Whether model `atomic` of sim takes v at input port `port`: 0, or the status with the
 * reason in rt->errmsg. */
static cdevs_status check_target(cdevs_rt *rt, uint32_t atomic, int port, const cdevs_value *v, const char *where) {
  const cdevs_model *m = cdevs_sim_atomic(rt->sim, atomic);
  if (!m) {
    refuse(rt, "%sno atomic model %u (the simulator has %u)", where, atomic, cdevs_sim_atomic_count(rt->sim));
    return CDEVS_EINVAL;
  }
  char path[256];
  cdevs_model_path(m, path, sizeof path);
  if (port < 0 || port >= cdevs_port_count(m, CDEVS_IN)) {
    refuse(rt, "%s'%s' has no input port %d", where, path, port);
    return CDEVS_EINVAL;
  }
  cdevs_kind k = cdevs_port_kind(m, CDEVS_IN, port);
  if (k != CDEVS_ANY && k != (cdevs_kind)v->kind) {
    refuse(rt, "%s'%s.%s' takes %s values, not %s", where, path, cdevs_port_name(m, CDEVS_IN, port),
                   cdevs_kind_name(k), cdevs_kind_name(v->kind));
    return CDEVS_EKIND;
  }
  if (rt->opts.record && v->kind == CDEVS_MSG) {
    refuse(rt, "%s'%s.%s': a message value cannot be recorded (reals, integers, Taylor values and arrays "
                       "can)", where, path, cdevs_port_name(m, CDEVS_IN, port));
    return CDEVS_EKIND;
  }
  return CDEVS_OK;
}

cdevs_status cdevs_rt_input(cdevs_rt *rt, uint32_t atomic, int port, const cdevs_value *v) {
  if (!rt || !v) return CDEVS_EINVAL;
  if (!rt->running) return CDEVS_ESTATE;
  cdevs_status st = check_target(rt, atomic, port, v, "cdevs_rt_input: ");
  return st ? st : cdevs__rt_queue(rt, atomic, port, v);
}

/* ---- the clock ------------------------------------------------------------------------- */

int64_t cdevs__rt_now(const cdevs_rt *rt) {
  return rt->opts.clock ? rt->opts.clock->now(rt->opts.clock->ud) : cdevs__os_now();
}

/* The wall time simulated time t is due at: absolute, from the epoch, so no error of
 * one wait carries into the next. */
static int64_t deadline(const cdevs_rt *rt, double t) {
  double d = (t - rt->t0) / rt->opts.speed * 1e9;
  return d >= 9e18 ? INT64_MAX : rt->epoch + (int64_t)llround(d);
}

/* The simulated time of wall time now. */
static double sim_of(const cdevs_rt *rt, int64_t now) {
  return rt->t0 + (double)(now - rt->epoch) * 1e-9 * rt->opts.speed;
}

/* ---- waiting and reading the sockets ---------------------------------------------------- */

typedef struct waitset {
  cdevs__pollset *ps;
  unsigned char *ready;
  uint32_t n, cap;
  int *kind;    /* 0: the wake fd; 1: an endpoint; 2: a watch */
  uint32_t *of; /* which one */
} waitset;

static void on_ready(cdevs_rt *rt, waitset *w) {
  for (uint32_t i = 0; i < w->n; i++) {
    if (!w->ready[i]) continue;
    if (w->kind[i] == 0)
      cdevs__os_wake_clear(rt->wake_fd);
    else if (w->kind[i] == 1)
      (void)cdevs__rt_drain(rt, &rt->ep[w->of[i]], DRAIN_MAX);
    else
      rt->watch[w->of[i]].ready(rt, rt->watch[w->of[i]].fd, rt->watch[w->of[i]].ud);
  }
}

/* Reads whatever waits on the sockets, without waiting. */
static void look(cdevs_rt *rt, waitset *w) {
  if (w->n && cdevs__pollset_wait(w->ps, 0, w->ready) > 0) on_ready(rt, w);
}

/* Waits until wall time dl (INT64_MAX: no limit), an input or a stop request. A test
 * clock looks at the sockets, then lets the clock move. */
static void wait_until(cdevs_rt *rt, waitset *w, int64_t dl) {
  if (rt->opts.clock) {
    look(rt, w);
    if (rt->headpend == rt->npend && !rt->stop) rt->opts.clock->sleep_until(rt->opts.clock->ud, dl);
    return;
  }
  int64_t now = cdevs__os_now();
  if (now >= dl) return;
  if (cdevs__pollset_wait(w->ps, dl == INT64_MAX ? -1 : dl - now, w->ready) > 0) on_ready(rt, w);
}

static void waitset_free(cdevs_rt *rt, waitset *w) {
  cdevs__pollset_free(&rt->alloc, w->ps);
  cdevs__free(&rt->alloc, w->ready, w->cap);
  cdevs__free(&rt->alloc, w->kind, w->cap * sizeof *w->kind);
  cdevs__free(&rt->alloc, w->of, w->cap * sizeof *w->of);
}

static int waitset_make(cdevs_rt *rt, waitset *w) {
  uint32_t cap = 1 + rt->nep + rt->nwatch, n = 0;
  int *fds = cdevs__calloc(&rt->alloc, cap, sizeof *fds);
  w->ready = cdevs__calloc(&rt->alloc, cap, 1);
  w->kind = cdevs__calloc(&rt->alloc, cap, sizeof *w->kind);
  w->of = cdevs__calloc(&rt->alloc, cap, sizeof *w->of);
  w->cap = cap;
  if (fds && w->ready && w->kind && w->of) {
    if (rt->wake_fd >= 0) fds[n] = rt->wake_fd, w->kind[n] = 0, w->of[n] = 0, n++;
    for (uint32_t i = 0; i < rt->nep; i++)
      if (rt->ep[i].kind == CDEVS__EP_RECEIVE && rt->ep[i].fd >= 0) fds[n] = rt->ep[i].fd, w->kind[n] = 1, w->of[n] = i, n++;
    for (uint32_t i = 0; i < rt->nwatch; i++) fds[n] = rt->watch[i].fd, w->kind[n] = 2, w->of[n] = i, n++;
    w->ps = cdevs__pollset_new(&rt->alloc, fds, n);
  }
  cdevs__free(&rt->alloc, fds, cap * sizeof *fds);
  if (!w->ps) {
    waitset_free(rt, w);
    return -1;
  }
  w->n = n;
  return 0;
}

/* ---- inputs ---------------------------------------------------------------------------- */

/* Injects value v for port `port` of model `atomic` at simulated time t, through the
 * gateway, and records it. */
static cdevs_status inject(cdevs_rt *rt, double t, uint64_t k, int64_t now, uint32_t atomic, int port,
                           const cdevs_value *v) {
  cdevs_msg *m = cdevs_msg_new(&rt->alloc, &cdevs__delivery_type, sizeof(cdevs__delivery));
  if (!m) {
    cdevs__rt_fail(rt, "out of memory delivering an input");
    return CDEVS_ENOMEM;
  }
  cdevs__delivery *d = cdevs_msg_data(m);
  d->atomic = atomic;
  d->port = port;
  d->v = *v;
  if (v->kind == CDEVS_MSG || v->kind == CDEVS_ARRAY) cdevs_msg_retain(v->u.msg);
  cdevs_value mv = cdevs_msgval(m);
  cdevs_status st = cdevs_sim_inject(rt->sim, t, rt->gw_port, &mv);
  cdevs_msg_release(m);
  if (st) {
    cdevs__rt_fail(rt, "t=%.17g: the input cannot be injected: %s", t, cdevs_strerror(st));
    return st;
  }
  rt->inputs++;
  cdevs__record_input(rt, (double)(now - rt->epoch) * 1e-9, t, k, atomic, port, v);
  return CDEVS_OK;
}

/* The replay's next record, resolved to a model and port of this simulator. */
static cdevs_status resolve(cdevs_rt *rt, const cdevs__record *r, uint32_t *atomic, int *port, uint32_t *cache) {
  const char *name = rt->opts.replay_name ? rt->opts.replay_name : "replay log";
  char path[512];
  uint32_t n = cdevs_sim_atomic_count(rt->sim), id = UINT32_MAX;
  if (*cache < n) {
    cdevs_model_path(cdevs_sim_atomic(rt->sim, *cache), path, sizeof path);
    if (!strcmp(path, r->path)) id = *cache;
  }
  for (uint32_t i = 0; id == UINT32_MAX && i < n; i++) {
    cdevs_model_path(cdevs_sim_atomic(rt->sim, i), path, sizeof path);
    if (!strcmp(path, r->path)) id = i;
  }
  if (id == UINT32_MAX) {
    cdevs__rt_fail(rt, "%s:%d: no atomic model '%s' in this run", name, r->line, r->path);
    return CDEVS_EINVAL;
  }
  *cache = id;
  int p = cdevs_port_find(cdevs_sim_atomic(rt->sim, id), CDEVS_IN, r->port);
  if (p < 0) {
    cdevs__rt_fail(rt, "%s:%d: '%s' has no input port '%s'", name, r->line, r->path, r->port);
    return CDEVS_EINVAL;
  }
  char where[300];
  snprintf(where, sizeof where, "%s:%d: ", name, r->line);
  cdevs_status st = check_target(rt, id, p, &r->v, where);
  *atomic = id;
  *port = p;
  return st;
}

/* ---- the run ----------------------------------------------------------------------------- */

/*
 * One turn of the loop executes at most one instant:
 *  1. A stop request ends the run; the results are whole up to where it is.
 *  2. A pending input (a datagram read, cdevs_rt_input) is injected at the simulated
 *     time of now (as fast as possible: the time reached), kept between the last
 *     instant and the next, and its instant executed. A replay injects its next record
 *     when as many instants have run as had run before it in the recorded run.
 *  3. t is the next instant's time. Past t_stop the run ends (in real time once the
 *     wall clock reaches t_stop's deadline, taking inputs until then).
 *  4. Real time: before t's deadline, wait for it in ppoll on the sockets (inputs that
 *     come are step 2's); at it, the lateness of t (once per simulated time) and, on a
 *     miss, the overrun policy.
 *  5. The instant: cdevs_sim_step.
 *  6. The sockets are looked at without waiting (real time: after every instant; as
 *     fast as possible: every 100 µs of wall time).
 * Only the rare paths allocate (an input's message), and only datagrams make system
 * calls besides the wait.
 */
cdevs_status cdevs_rt_run(cdevs_rt *rt, cdevs_sim *sim, double t_stop, double *t_end_out) {
  double t_end_dummy;
  double *t_end = t_end_out ? t_end_out : &t_end_dummy;
  if (!rt || !sim || isnan(t_stop)) return CDEVS_EINVAL;
  *t_end = cdevs_sim_time(sim);
  if (rt->running) return CDEVS_ESTATE;
  rt->failed = 0;
  rt->errmsg[0] = '\0';
  if (!rt->root || cdevs_sim_root(sim) != rt->root) {
    cdevs__rt_fail(rt, "the simulator is not built from the root the executive is attached to (cdevs_rt_attach)");
    return CDEVS_ESTATE;
  }
  for (uint32_t i = 0; i < rt->nep; i++)
    if (rt->ep[i].kind == CDEVS__EP_RECEIVE && rt->ep[i].atomic == UINT32_MAX) {
      cdevs__rt_fail(rt, "UDPReceive '%s' is in no model of this simulator", rt->ep[i].name);
      return CDEVS_ESTATE;
    }
  waitset w = {0};
  if (waitset_make(rt, &w)) {
    cdevs__rt_fail(rt, "out of memory");
    return CDEVS_ENOMEM;
  }
  rt->sim = sim;
  rt->running = 1;
  const int realtime = rt->opts.speed > 0;
  const cdevs_rt_overrun policy = rt->opts.overrun;
  cdevs__replay *rp = &rt->replay;
  int64_t slack = realtime && !rt->opts.clock ? cdevs__os_timerslack(1) : -1;
  rt->t0 = cdevs_sim_time(sim);
  rt->epoch = cdevs__rt_now(rt);
  cdevs__record_header(rt);
  cdevs_status st = CDEVS_OK;
  uint64_t k = 0;              /* instants executed in this run */
  double measured = -INFINITY; /* the last simulated time whose lateness was taken */
  int64_t last_look = rt->epoch;
  uint32_t cache = 0;
  int stopped = 0, last_look_done = 0;
  for (;;) {
    /* 1 */
    if (rt->stop) {
      stopped = 1;
      break;
    }
    double tn = cdevs_sim_next_time(sim), t_last = cdevs_sim_time(sim);
    /* 2 */
    int64_t now = rt->headpend < rt->npend ? cdevs__rt_now(rt) : 0;
    double ti = realtime && !rt->replaying ? sim_of(rt, now) : t_last;
    /* An input waits for the instants due before its time (they are late). */
    if (rt->headpend < rt->npend && !(ti > tn && tn <= t_stop)) {
      if (ti > t_stop) ti = t_stop;
      if (ti < t_last) ti = t_last;
      cdevs__input in = rt->pend[rt->headpend++];
      st = inject(rt, ti, k, now, in.atomic, in.port, &in.v);
      if (in.v.kind == CDEVS_MSG || in.v.kind == CDEVS_ARRAY) cdevs_msg_release(in.v.u.msg);
      if (st || (st = cdevs_sim_step(sim))) break;
      k++;
      if (ti > measured) measured = ti; /* an input's instants are on time by definition */
      continue;
    }
    if (rt->replaying && rp->next < rp->n && rp->recs[rp->next].k <= k) {
      const cdevs__record *r = &rp->recs[rp->next];
      uint32_t atomic;
      int port;
      if (r->k < k || !(r->t >= t_last && r->t <= tn)) {
        cdevs__rt_fail(rt, "%s:%d: the input at t=%.17g after %llu instants does not fit this run (now t=%.17g "
                           "after %llu): the model or its options differ from the recorded run's",
                       rt->opts.replay_name ? rt->opts.replay_name : "replay log", r->line, r->t,
                       (unsigned long long)r->k, t_last, (unsigned long long)k);
        st = CDEVS_EINVAL;
        break;
      }
      now = cdevs__rt_now(rt);
      if (realtime && now < deadline(rt, r->t)) { /* a paced replay waits for the input's time */
        wait_until(rt, &w, deadline(rt, r->t));
        continue;
      }
      if ((st = resolve(rt, r, &atomic, &port, &cache))) {
        rt->failed = 1;
        break;
      }
      if ((st = inject(rt, r->t, k, now, atomic, port, &r->v)) || (st = cdevs_sim_step(sim))) break;
      rp->next++;
      k++;
      if (r->t > measured) measured = r->t;
      continue;
    }
    if (rt->replaying && rp->has_end && k >= rp->end_k) {
      *t_end = rp->end_t;
      break;
    }
    /* 3 */
    if (!(tn <= t_stop)) {
      if (realtime && !rt->replaying && t_stop < INFINITY) {
        int64_t dl = deadline(rt, t_stop);
        if (cdevs__rt_now(rt) < dl) {
          wait_until(rt, &w, dl);
          continue;
        }
        if (!last_look_done) { /* what came while this process was not running: by the end */
          last_look_done = 1;
          look(rt, &w);
          if (rt->headpend < rt->npend) continue;
        }
      }
      *t_end = t_stop;
      break;
    }
    /* 4 */
    now = cdevs__rt_now(rt);
    if (realtime) {
      int64_t dl = deadline(rt, tn);
      if (now < dl) {
        wait_until(rt, &w, dl);
        continue;
      }
      if (tn > measured) {
        measured = tn;
        rt->events++;
        if (cdevs__late_add(&rt->late, now - dl)) {
          if (policy == CDEVS_RT_ABORT) {
            cdevs__rt_fail(rt, "t=%.17g ran %.3f ms late, more than the threshold (%.3f ms): the run is aborted "
                               "(--overrun skip or catchup goes on)",
                           tn, (double)(now - dl) * 1e-6, rt->opts.late_threshold * 1e3);
            st = CDEVS_ETIME;
            *t_end = t_last;
            break;
          }
          if (policy == CDEVS_RT_SKIP) { /* this instant becomes on time; the rest follow it */
            rt->epoch += now - dl;
            rt->slipped += (double)(now - dl) * 1e-9;
          }
        }
      }
    } else if (tn > measured) {
      measured = tn;
      rt->events++;
    }
    /* 5 */
    if ((st = cdevs_sim_step(sim))) break;
    k++;
    /* 6 */
    if (w.n && (realtime || now - last_look >= AFAP_LOOK_NS)) {
      look(rt, &w);
      last_look = now;
    }
  }
  if (st && !(*t_end > cdevs_sim_time(sim))) *t_end = cdevs_sim_time(sim);
  if (stopped) { /* the results are whole to now, if nothing was due before it */
    double t_last = cdevs_sim_time(sim), tn = cdevs_sim_next_time(sim), ts = t_last;
    if (realtime && !rt->replaying) {
      ts = sim_of(rt, cdevs__rt_now(rt));
      if (!(ts < tn) || ts < t_last) ts = t_last;
      if (ts > t_stop) ts = t_stop;
    }
    *t_end = ts;
  }
  if (!st && rt->failed) st = CDEVS_EINVAL; /* a failure outside the model (out of memory reading a datagram) */
  if (!st && rt->replaying && !stopped && rp->next < rp->n) {
    const cdevs__record *r = &rp->recs[rp->next];
    cdevs__rt_fail(rt, "%s:%d: the run ended before this input (t=%.17g): the model or its options differ from the "
                       "recorded run's", rt->opts.replay_name ? rt->opts.replay_name : "replay log", r->line, r->t);
    st = CDEVS_EINVAL;
  }
  cdevs__record_end(rt, *t_end, k);
  if (slack >= 0) (void)cdevs__os_timerslack(slack);
  waitset_free(rt, &w);
  rt->running = 0;
  rt->stop = 0;
  return st;
}

void cdevs_rt_stats_get(const cdevs_rt *rt, cdevs_rt_stats *st) {
  memset(st, 0, sizeof *st);
  if (!rt) return;
  st->events = rt->events;
  st->late_mean = rt->late.n ? rt->late.sum / (double)rt->late.n * 1e-9 : 0.0;
  st->late_p50 = (double)cdevs__late_quantile(&rt->late, 0.50) * 1e-9;
  st->late_p99 = (double)cdevs__late_quantile(&rt->late, 0.99) * 1e-9;
  st->late_max = (double)rt->late.max * 1e-9;
  st->misses = rt->late.misses;
  st->slipped = rt->slipped;
  st->inputs = rt->inputs;
  st->received = rt->received;
  for (int i = 0; i < CDEVS_UDP_NVERDICTS; i++) {
    st->dropped[i] = rt->dropped[i];
    st->dropped_total += rt->dropped[i];
  }
  for (uint32_t i = 0; i < rt->nep; i++)
    if (rt->ep[i].kind == CDEVS__EP_RECEIVE && rt->ep[i].fd >= 0) st->kernel_dropped += cdevs__net_drops(rt->ep[i].fd);
  st->sent = rt->sent;
  st->send_errors = rt->send_errors;
  st->send_errno = rt->send_errno;
  st->suppressed = rt->suppressed;
}
