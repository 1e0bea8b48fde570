/* SPDX-License-Identifier: MIT */
/* UDP ports: the send and receive blocks (UDPLib's outputUDPport and inputUDPport) and
 * the executive's endpoints behind them: one socket each, opened when the model is
 * built (a model file's blocks when it is added, so that a port in use is an error at
 * the block's declaration), closed with the executive. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/alloc_impl.h"
#include "rt/rt_impl.h"

/* ---- endpoints ----------------------------------------------------------------------- */

int cdevs__rt_endpoint_open(cdevs_rt *rt, int kind, const char *name, const char *host, int port, int n, int raw,
                            char *msg, size_t size) {
  const char *what = kind == CDEVS__EP_SEND ? "UDPSend" : "UDPReceive";
  if (!host || !*host) {
    snprintf(msg, size, "%s needs a host (an address such as \"127.0.0.1\" or \"::1\", or a name)", what);
    return 0;
  }
  if (port < 1 || port > 65535) {
    snprintf(msg, size, "%s: port %d is not 1 to 65535", what, port);
    return 0;
  }
  if (n < 1 || n > CDEVS_UDP_MAX_VALUES) {
    snprintf(msg, size, "%s: n = %d values per datagram; 1 to %d", what, n, CDEVS_UDP_MAX_VALUES);
    return 0;
  }
  if (rt->running) {
    snprintf(msg, size, "%s: the executive is running", what);
    return 0;
  }
  if (rt->nep == rt->capep && CDEVS_GROW(&rt->alloc, rt->ep, rt->capep, rt->nep + 1)) {
    snprintf(msg, size, "out of memory");
    return 0;
  }
  cdevs__endpoint *ep = &rt->ep[rt->nep];
  memset(ep, 0, sizeof *ep);
  ep->kind = kind;
  ep->fd = -1;
  ep->raw = raw != 0;
  ep->n = (uint32_t)n;
  ep->atomic = UINT32_MAX;
  ep->next_seq = 1;
  snprintf(ep->name, sizeof ep->name, "%s", name ? name : "?");
  if (!rt->replaying) { /* a replay opens nothing: its inputs come from the log */
    char why[256];
    ep->fd = kind == CDEVS__EP_SEND ? cdevs__net_open_send(host, port, ep->addr, &ep->addrlen, why, sizeof why)
                                    : cdevs__net_open_receive(host, port, why, sizeof why);
    if (ep->fd < 0) {
      snprintf(msg, size, "%s", why);
      return 0;
    }
  }
  return (int)++rt->nep;
}

void cdevs__rt_endpoint_bind(cdevs_rt *rt, int slot, uint32_t atomic) { rt->ep[slot - 1].atomic = atomic; }

void cdevs__rt_send(cdevs_rt *rt, int slot, double t, const double *values, size_t n) {
  cdevs__endpoint *ep = &rt->ep[slot - 1];
  if (rt->replaying) {
    rt->suppressed++;
    return;
  }
  size_t len = cdevs_udp_encode(rt->rxbuf, 65536, ep->next_seq++, t, values, n, ep->raw);
  int err = len ? cdevs__net_send(ep->fd, ep->addr, ep->addrlen, rt->rxbuf, len) : EMSGSIZE;
  if (err) {
    if (!rt->send_errors) rt->send_errno = err;
    rt->send_errors++;
  } else {
    rt->sent++;
  }
}

uint32_t cdevs__rt_drain(cdevs_rt *rt, cdevs__endpoint *ep, uint32_t max) {
  unsigned char key[CDEVS__SEQ_KEY];
  uint32_t k;
  for (k = 0; k < max; k++) {
    long len = cdevs__net_recv(ep->fd, rt->rxbuf, 65536, key);
    if (len < 0) break;
    cdevs_udp_header h;
    /* Anything longer than the largest valid datagram is oversized before it is read. */
    cdevs_udp_verdict v = cdevs_udp_decode(rt->rxbuf, (size_t)len, ep->n, ep->raw, &h, rt->vals);
    if (v == CDEVS_UDP_OK && !ep->raw) v = cdevs__seq_check(&ep->seq, key, h.seq);
    if (v != CDEVS_UDP_OK) {
      rt->dropped[v]++;
      continue;
    }
    cdevs_msg *m = cdevs_array_new(&rt->alloc, ep->n);
    if (!m) {
      cdevs__rt_fail(rt, "out of memory receiving a datagram on %s", ep->name);
      break;
    }
    memcpy(cdevs_array_data(m, NULL), rt->vals, ep->n * sizeof(double));
    cdevs_value val = cdevs_arrayval(m);
    cdevs_status st = cdevs__rt_queue(rt, ep->atomic, CDEVS_UDP_RX_IN, &val);
    cdevs_msg_release(m);
    if (st) break;
    rt->received++;
  }
  return k;
}

/* ---- the send block -------------------------------------------------------------------- */

typedef struct tx_state {
  cdevs_rt *rt;
  int slot;
  uint32_t n;
  double c;                           /* the last value of c */
  cdevs_value u[CDEVS_UDP_SIGNALS];   /* u1..u8 as last received, at tu */
  double tu[CDEVS_UDP_SIGNALS];
} tx_state;

static const cdevs_port_def tx_in[] = {{"c", CDEVS_TAYLOR},  {"u1", CDEVS_TAYLOR}, {"u2", CDEVS_TAYLOR},
                                       {"u3", CDEVS_TAYLOR}, {"u4", CDEVS_TAYLOR}, {"u5", CDEVS_TAYLOR},
                                       {"u6", CDEVS_TAYLOR}, {"u7", CDEVS_TAYLOR}, {"u8", CDEVS_TAYLOR},
                                       {"v", CDEVS_ARRAY},   {NULL, CDEVS_ANY}};
static const cdevs_port_def no_ports[] = {{NULL, CDEVS_ANY}};
static const unsigned char tx_drivers[] = {CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL,
                                           CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL,
                                           CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL, CDEVS_DRIVERS_OPTIONAL,
                                           CDEVS_DRIVERS_ANY};

/* The block's slot: the one opened for a model file's declaration, or a new one. */
static int open_slot(cdevs_ctx *cx, cdevs_rt *rt, int slot, int kind, const char *host, int port, int n, int raw) {
  const char *what = kind == CDEVS__EP_SEND ? "UDPSend" : "UDPReceive";
  if (!rt) {
    cdevs_ctx_fail(cx, "%s has no executive (its params' rt: cdevs_rt_new)", what);
    return 0;
  }
  if (slot > 0 && (uint32_t)slot <= rt->nep) return slot;
  char msg[300], path[200];
  cdevs_model_path(cdevs_ctx_model(cx), path, sizeof path);
  slot = cdevs__rt_endpoint_open(rt, kind, path, host, port, n, raw, msg, sizeof msg);
  if (!slot) cdevs_ctx_fail(cx, "%s", msg);
  return slot;
}

static int tx_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_udp_send_params *p = arg;
  tx_state *s = state;
  s->rt = p->rt;
  s->n = (uint32_t)p->n;
  s->slot = open_slot(cx, p->rt, p->slot, CDEVS__EP_SEND, p->host, p->port, p->n, p->raw);
  if (!s->slot) return CDEVS_EINVAL;
  for (int i = 0; i < CDEVS_UDP_SIGNALS; i++) s->u[i] = cdevs_real(0.0);
  return CDEVS_OK;
}

static double tx_ta(const void *state) {
  (void)state;
  return INFINITY;
}

static void tx_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  tx_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t k = 0; k < x->n; k++) { /* the values first: a change of c sends them as of now */
    int port = x->events[k].port;
    if (port >= CDEVS_UDP_IN_U1 && port < CDEVS_UDP_IN_U1 + CDEVS_UDP_SIGNALS) {
      s->u[port - CDEVS_UDP_IN_U1] = *x->events[k].value;
      s->tu[port - CDEVS_UDP_IN_U1] = t;
    }
  }
  for (size_t k = 0; k < x->n; k++) {
    const cdevs_value *v = x->events[k].value;
    if (x->events[k].port == CDEVS_UDP_IN_C) {
      double c = cdevs_value_eval(v, 0.0);
      if (c == s->c) continue; /* UDPLib sends on a change of c, either way */
      s->c = c;
      if (s->n > CDEVS_UDP_SIGNALS) {
        cdevs_ctx_fail(cx, "UDPSend: c sends u1..u%d, and n = %u: send longer datagrams through v",
                       CDEVS_UDP_SIGNALS, s->n);
        return;
      }
      double vals[CDEVS_UDP_SIGNALS];
      for (uint32_t i = 0; i < s->n; i++) vals[i] = cdevs_value_eval(&s->u[i], t - s->tu[i]);
      cdevs__rt_send(s->rt, s->slot, t, vals, s->n);
    } else if (x->events[k].port == CDEVS_UDP_IN_V) {
      size_t n = 0;
      const double *a = cdevs_array_data(v->u.msg, &n);
      if (n != s->n) {
        cdevs_ctx_fail(cx, "UDPSend: an array of %zu values on v, and n = %u", n, s->n);
        return;
      }
      cdevs__rt_send(s->rt, s->slot, t, a, n);
    }
  }
}

const cdevs_atomic_ops cdevs_udp_send_ops = {
    .type = "UDPSend",
    .state_size = sizeof(tx_state),
    .arg_size = sizeof(cdevs_udp_send_params),
    .inputs = tx_in,
    .outputs = no_ports,
    .init = tx_init,
    .ta = tx_ta,
    .delta_ext = tx_ext,
    .in_drivers = tx_drivers,
};

/* ---- the receive block ----------------------------------------------------------------- */

typedef struct rx_state {
  uint32_t n;
  double period;
  double sigma;       /* time to the next output: 0 or to the next multiple of the period */
  cdevs_msg *pending; /* the datagram's values to emit */
  double c;
  double count;
} rx_state;

static const cdevs_port_def rx_in[] = {{"udp", CDEVS_ARRAY}, {NULL, CDEVS_ANY}};
static const cdevs_port_def rx_out[] = {{"c", CDEVS_TAYLOR},  {"count", CDEVS_TAYLOR}, {"y1", CDEVS_TAYLOR},
                                        {"y2", CDEVS_TAYLOR}, {"y3", CDEVS_TAYLOR},    {"y4", CDEVS_TAYLOR},
                                        {"y5", CDEVS_TAYLOR}, {"y6", CDEVS_TAYLOR},    {"y7", CDEVS_TAYLOR},
                                        {"y8", CDEVS_TAYLOR}, {"v", CDEVS_ARRAY},      {NULL, CDEVS_ANY}};

static int rx_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_udp_receive_params *p = arg;
  rx_state *s = state;
  s->n = (uint32_t)p->n;
  s->period = p->period;
  s->sigma = INFINITY;
  if (!(p->period >= 0) || isinf(p->period)) {
    cdevs_ctx_fail(cx, "UDPReceive: period %g is not a time >= 0", p->period);
    return CDEVS_EINVAL;
  }
  int slot = open_slot(cx, p->rt, p->slot, CDEVS__EP_RECEIVE, p->host, p->port, p->n, p->raw);
  if (!slot) return CDEVS_EINVAL;
  if (p->rt->ep[slot - 1].atomic != UINT32_MAX) {
    cdevs_ctx_fail(cx, "UDPReceive: its socket already delivers to another model (one simulator per executive)");
    return CDEVS_EINVAL;
  }
  cdevs__rt_endpoint_bind(p->rt, slot, cdevs_ctx_self(cx));
  return CDEVS_OK;
}

static double rx_ta(const void *state) { return ((const rx_state *)state)->sigma; }

static void rx_output(cdevs_ctx *cx, const void *state) {
  const rx_state *s = state;
  if (!s->pending) return;
  size_t n = 0;
  const double *a = cdevs_array_data(s->pending, &n);
  double c = 1.0 - s->c, count = s->count + 1;
  cdevs_value v = cdevs_taylor(0, &c);
  cdevs_emit(cx, CDEVS_UDP_OUT_C, &v);
  v = cdevs_taylor(0, &count);
  cdevs_emit(cx, CDEVS_UDP_OUT_COUNT, &v);
  for (size_t i = 0; i < n && i < CDEVS_UDP_SIGNALS; i++) {
    v = cdevs_taylor(0, &a[i]);
    cdevs_emit(cx, CDEVS_UDP_OUT_Y1 + (int)i, &v);
  }
  if (cdevs_ctx_fanout(cx, CDEVS_UDP_OUT_V)) {
    v = cdevs_arrayval(s->pending);
    cdevs_emit(cx, CDEVS_UDP_OUT_V, &v);
  }
}

static void rx_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  rx_state *s = state;
  if (s->pending) {
    s->c = 1.0 - s->c;
    s->count++;
    cdevs_msg_release(s->pending);
    s->pending = NULL;
  }
  s->sigma = INFINITY;
}

static void rx_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  rx_state *s = state;
  int waiting = s->pending != NULL;
  for (size_t k = 0; k < x->n; k++) {
    cdevs_msg *m = x->events[k].value->u.msg;
    size_t n = 0;
    cdevs_array_data(m, &n);
    if (n != s->n) {
      cdevs_ctx_fail(cx, "UDPReceive: an array of %zu values on udp, and n = %u", n, s->n);
      return;
    }
    cdevs_msg_release(s->pending); /* with a period, the last datagram before the tick wins */
    s->pending = cdevs_msg_retain(m);
  }
  if (!s->pending) return;
  if (s->period == 0.0) {
    s->sigma = 0.0;
  } else if (waiting) {
    s->sigma = s->sigma - e > 0.0 ? s->sigma - e : 0.0;
  } else { /* the next multiple of the period, this instant if it is one */
    double t = cdevs_ctx_time(cx), tick = ceil(t / s->period) * s->period;
    if (tick < t) tick += s->period;
    s->sigma = tick - t;
  }
}

static void rx_fini(void *state) {
  rx_state *s = state;
  cdevs_msg_release(s->pending);
  s->pending = NULL;
}

const cdevs_atomic_ops cdevs_udp_receive_ops = {
    .type = "UDPReceive",
    .state_size = sizeof(rx_state),
    .arg_size = sizeof(cdevs_udp_receive_params),
    .inputs = rx_in,
    .outputs = rx_out,
    .init = rx_init,
    .ta = rx_ta,
    .output = rx_output,
    .delta_int = rx_int,
    .delta_ext = rx_ext,
    .fini = rx_fini,
};
