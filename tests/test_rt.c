/* SPDX-License-Identifier: MIT */
/* The real-time layer: the wire format's decoder on every malformed class, the
 * sequence check, the lateness histogram, the executive's deadlines and overrun
 * policies under a test clock (exact, never flaky), inputs to any port, record and
 * replay giving the same outputs, UDP over IPv4 and IPv6 with garbage among the
 * datagrams, bad input, and running out of memory. */
#define _POSIX_C_SOURCE 200809L
#include <arpa/inet.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cdevs/cdevs.h"
#include "check.h"
#include "rt/rt_impl.h"
#include "test_util.h"

/* ---- the wire format ------------------------------------------------------------------- */

/* The bytes of a double as IEEE 754 lays them out, least significant first: written
 * here from the bit patterns, not by the encoder. */
static void le_bits(unsigned char *p, uint64_t bits) {
  for (int i = 0; i < 8; i++) p[i] = (unsigned char)(bits >> (8 * i));
}

static void test_wire_layout(void) {
  double v[3] = {1.0, -2.0, 0.5};
  unsigned char buf[64], want[48] = {'C', 'D', 'V', 'S', 1, 0, 3, 0};
  le_bits(want + 8, 0x0102030405060708ULL);
  le_bits(want + 16, 0x4009000000000000ULL);      /* 3.125 */
  le_bits(want + 24, 0x3FF0000000000000ULL);      /* 1.0 */
  le_bits(want + 32, 0xC000000000000000ULL);      /* -2.0 */
  le_bits(want + 40, 0x3FE0000000000000ULL);      /* 0.5 */
  CHECK_EQ_INT(cdevs_udp_encode(buf, sizeof buf, 0x0102030405060708ULL, 3.125, v, 3, 0), 48);
  CHECK(memcmp(buf, want, 48) == 0);
  CHECK_EQ_INT(cdevs_udp_encode(buf, 47, 1, 0.0, v, 3, 0), 0); /* does not fit */
  CHECK_EQ_INT(cdevs_udp_encode(buf, sizeof buf, 1, 0.0, v, 0, 0), 0);
  CHECK_EQ_INT(cdevs_udp_encode(buf, sizeof buf, 1, 0.0, v, 3, 1), 24); /* raw: the doubles alone */
  CHECK(memcmp(buf, want + 24, 24) == 0);

  /* Round trips keep every bit: signed zero, the smallest subnormal, the largest. */
  double odd[5] = {-0.0, 4.9406564584124654e-324, DBL_MAX, 1.0 / 3.0, -DBL_MIN}, back[5];
  unsigned char big[CDEVS_UDP_MAX_BYTES];
  size_t len = cdevs_udp_encode(big, sizeof big, 77, -1.5, odd, 5, 0);
  cdevs_udp_header h;
  CHECK_EQ_INT(cdevs_udp_decode(big, len, 5, 0, &h, back), CDEVS_UDP_OK);
  CHECK(memcmp(odd, back, sizeof odd) == 0);
  CHECK_EQ_INT(h.seq, 77);
  CHECK(h.t == -1.5 && h.n == 5);
  /* The largest datagram, and one value more. */
  double *many = calloc(CDEVS_UDP_MAX_VALUES + 1, sizeof *many), *got = calloc(CDEVS_UDP_MAX_VALUES, sizeof *got);
  CHECK_EQ_INT(cdevs_udp_encode(big, sizeof big, 1, 0, many, CDEVS_UDP_MAX_VALUES, 0), 8216);
  CHECK_EQ_INT(cdevs_udp_decode(big, 8216, CDEVS_UDP_MAX_VALUES, 0, &h, got), CDEVS_UDP_OK);
  CHECK_EQ_INT(cdevs_udp_encode(big, sizeof big, 1, 0, many, CDEVS_UDP_MAX_VALUES + 1, 0), 0);
  free(many), free(got);
}

/* Every class of bad datagram, each made by hand from a good one. Nothing is written
 * out for a dropped datagram. */
static void test_decode_malformed(void) {
  double v[3] = {1, 2, 3}, out[4];
  unsigned char good[48], b[9000];
  cdevs_udp_header h = {99, 99, 99};
  size_t len = cdevs_udp_encode(good, sizeof good, 5, 0.25, v, 3, 0);
#define DECODE(buf, n_, exp_n, raw)                                                  \
  (out[0] = out[1] = out[2] = out[3] = -7, h.seq = 99,                               \
   cdevs_udp_decode((buf), (n_), (exp_n), (raw), &h, out))
#define UNTOUCHED() CHECK(out[0] == -7 && out[3] == -7 && h.seq == 99)
  for (size_t cut = 0; cut < len; cut++) { /* every truncation */
    cdevs_udp_verdict vd = DECODE(good, cut, 3, 0);
    CHECK(vd == CDEVS_UDP_TRUNCATED);
    UNTOUCHED();
  }
  memcpy(b, good, len);
  b[0] = 'X';
  CHECK_EQ_INT(DECODE(b, len, 3, 0), CDEVS_UDP_MALFORMED); /* magic */
  UNTOUCHED();
  for (int ver = 0; ver < 256; ver++) { /* every other version */
    memcpy(b, good, len);
    b[4] = (unsigned char)ver;
    if (ver != 1) CHECK_EQ_INT(DECODE(b, len, 3, 0), CDEVS_UDP_BADVERSION);
  }
  memcpy(b, good, len);
  b[5] = 0x80;
  CHECK_EQ_INT(DECODE(b, len, 3, 0), CDEVS_UDP_MALFORMED); /* a reserved flag */
  memcpy(b, good, len);
  b[6] = 0;
  CHECK_EQ_INT(DECODE(b, 24, 3, 0), CDEVS_UDP_MALFORMED); /* no values */
  memcpy(b, good, len);
  b[6] = 2; /* says 2 values, carries 3: bytes past them */
  CHECK_EQ_INT(DECODE(b, len, 3, 0), CDEVS_UDP_MALFORMED);
  CHECK_EQ_INT(DECODE(b, len - 8, 3, 0), CDEVS_UDP_COUNT); /* well formed, 2 values for a port of 3 */
  CHECK_EQ_INT(DECODE(b, len - 8, 2, 0), CDEVS_UDP_OK);
  memcpy(b, good, len);
  b[6] = 4;
  CHECK_EQ_INT(DECODE(b, len, 3, 0), CDEVS_UDP_TRUNCATED); /* says 4, carries 3 */
  b[6] = 0x01, b[7] = 0x04; /* 1025 values: more than the format allows */
  CHECK_EQ_INT(DECODE(b, len, 3, 0), CDEVS_UDP_OVERSIZED);
  memcpy(b, good, len);
  CHECK_EQ_INT(DECODE(b, len + 1, 3, 0), CDEVS_UDP_MALFORMED); /* one byte too many */
  /* Larger than the largest valid datagram: oversized before any byte is read (the
   * buffer is far shorter than the length claimed; ASan would see a read). */
  CHECK_EQ_INT(DECODE(good, 70000, 3, 0), CDEVS_UDP_OVERSIZED);
  CHECK_EQ_INT(DECODE(good, CDEVS_UDP_MAX_BYTES + 1, 3, 0), CDEVS_UDP_OVERSIZED);
  /* Non-finite time or values. */
  memcpy(b, good, len);
  le_bits(b + 16, 0x7FF0000000000000ULL); /* +inf */
  CHECK_EQ_INT(DECODE(b, len, 3, 0), CDEVS_UDP_NONFINITE);
  memcpy(b, good, len);
  le_bits(b + 40, 0x7FF8000000000001ULL); /* a NaN, the last value */
  CHECK_EQ_INT(DECODE(b, len, 3, 0), CDEVS_UDP_NONFINITE);
  UNTOUCHED();
  /* Raw: whole doubles, exactly n of them. */
  CHECK_EQ_INT(DECODE(good + 24, 24, 3, 1), CDEVS_UDP_OK);
  CHECK(out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == -7 && h.seq == 0 && isnan(h.t));
  CHECK_EQ_INT(DECODE(good + 24, 23, 3, 1), CDEVS_UDP_MALFORMED);
  CHECK_EQ_INT(DECODE(good + 24, 16, 3, 1), CDEVS_UDP_COUNT);
  CHECK_EQ_INT(DECODE(good + 24, 0, 3, 1), CDEVS_UDP_COUNT);
  memcpy(b, good + 24, 24);
  le_bits(b + 8, 0xFFF0000000000000ULL); /* -inf */
  CHECK_EQ_INT(DECODE(b, 24, 3, 1), CDEVS_UDP_NONFINITE);
  /* A good datagram read as raw is the wrong size (it has a header). */
  CHECK_EQ_INT(DECODE(good, len, 3, 1), CDEVS_UDP_COUNT);
#undef DECODE
#undef UNTOUCHED
  CHECK_STR(cdevs_udp_verdict_name(CDEVS_UDP_STALE), "stale");
  CHECK_STR(cdevs_udp_verdict_name(CDEVS_UDP_BADVERSION), "version");
  CHECK_STR(cdevs_udp_verdict_name(-1), "?");
}

static void test_sequence(void) {
  cdevs__seqtab tab;
  memset(&tab, 0, sizeof tab);
  unsigned char a[CDEVS__SEQ_KEY] = {2, 0, 80, 127, 0, 0, 1}, b[CDEVS__SEQ_KEY] = {2, 0, 81, 127, 0, 0, 1};
  CHECK_EQ_INT(cdevs__seq_check(&tab, a, 1), CDEVS_UDP_OK);
  CHECK_EQ_INT(cdevs__seq_check(&tab, a, 2), CDEVS_UDP_OK);
  CHECK_EQ_INT(cdevs__seq_check(&tab, a, 2), CDEVS_UDP_STALE); /* a repeat */
  CHECK_EQ_INT(cdevs__seq_check(&tab, a, 1), CDEVS_UDP_STALE); /* going back */
  CHECK_EQ_INT(cdevs__seq_check(&tab, b, 1), CDEVS_UDP_OK);    /* another sender's own sequence */
  CHECK_EQ_INT(cdevs__seq_check(&tab, a, 10), CDEVS_UDP_OK);   /* gaps are fine (lost datagrams) */
  CHECK_EQ_INT(cdevs__seq_check(&tab, a, 9), CDEVS_UDP_STALE);
  CHECK_EQ_INT(cdevs__seq_check(&tab, b, 1), CDEVS_UDP_STALE);
  /* 16 other senders push out the one heard from longest ago (b), not a. */
  CHECK_EQ_INT(cdevs__seq_check(&tab, a, 11), CDEVS_UDP_OK);
  for (int i = 0; i < CDEVS__SEQ_SOURCES - 2; i++) {
    unsigned char k[CDEVS__SEQ_KEY] = {2, 1, (unsigned char)i};
    CHECK_EQ_INT(cdevs__seq_check(&tab, k, 100), CDEVS_UDP_OK);
  }
  CHECK_EQ_INT(cdevs__seq_check(&tab, a, 11), CDEVS_UDP_STALE); /* a was kept */
  unsigned char c[CDEVS__SEQ_KEY] = {10, 0, 1};
  CHECK_EQ_INT(cdevs__seq_check(&tab, c, 1), CDEVS_UDP_OK);     /* the 17th: b goes */
  CHECK_EQ_INT(cdevs__seq_check(&tab, a, 11), CDEVS_UDP_STALE);
  CHECK_EQ_INT(cdevs__seq_check(&tab, b, 1), CDEVS_UDP_OK); /* forgotten: as documented */
}

static void test_lateness(void) {
  cdevs__late l;
  cdevs__late_init(&l, 900000); /* 0.9 ms */
  for (int k = 1; k <= 1000; k++) cdevs__late_add(&l, (int64_t)k * 1000); /* 1 µs .. 1 ms */
  CHECK_EQ_INT(l.n, 1000);
  CHECK_EQ_INT(l.max, 1000000);
  CHECK_EQ_INT(l.misses, 100); /* 901 .. 1000 µs */
  CHECK_NEAR(l.sum / 1000.0, 500500.0, 1e-6);
  /* The 500th and the 990th smallest, to the histogram's 1/32. */
  CHECK_NEAR((double)cdevs__late_quantile(&l, 0.5), 500000.0, 500000.0 / 32);
  CHECK_NEAR((double)cdevs__late_quantile(&l, 0.99), 990000.0, 990000.0 / 32);
  CHECK_EQ_INT(cdevs__late_quantile(&l, 1.0), 1000000);
  cdevs__late_init(&l, 0);
  for (int k = 0; k < 40; k++) cdevs__late_add(&l, k); /* exact below 64 ns */
  cdevs__late_add(&l, -5);                              /* early counts as on time */
  CHECK_EQ_INT(cdevs__late_quantile(&l, 0.5), 19);
  CHECK_EQ_INT(l.misses, 39);
  CHECK_EQ_INT(cdevs__late_quantile(&(cdevs__late){0}, 0.5), 0);
}

/* ---- test models ------------------------------------------------------------------------ */

/* A test clock: sleep_until jumps to the deadline (plus a fixed wake-up delay) and logs
 * it; at `arrive` it delivers an input instead (or a stop request). */
typedef struct fake_clock {
  int64_t now, oversleep;
  int64_t asked[256];
  int nasked;
  cdevs_rt *rt;
  int64_t arrive[64];
  double value[64];
  int narrive, next;
  uint32_t target;
  int port;
  int64_t stop_at; /* 0: never */
  int as_array;    /* the inputs are arrays of one value */
} fake_clock;

static int64_t fake_now(void *ud) { return ((fake_clock *)ud)->now; }

static void fake_sleep(void *ud, int64_t dl) {
  fake_clock *c = ud;
  if (c->nasked < 256) c->asked[c->nasked++] = dl;
  if (c->stop_at && dl >= c->stop_at) {
    c->now = c->stop_at;
    cdevs_rt_request_stop(c->rt);
    return;
  }
  if (c->next < c->narrive && c->arrive[c->next] < dl) {
    c->now = c->arrive[c->next];
    cdevs_value v = cdevs_real(c->value[c->next]);
    cdevs_msg *m = c->as_array ? cdevs_array_new(NULL, 1) : NULL;
    if (m) {
      cdevs_array_data(m, NULL)[0] = c->value[c->next];
      v = cdevs_arrayval(m);
    }
    (void)cdevs_rt_input(c->rt, c->target, c->port, &v); /* a refusal is in cdevs_rt_errmsg */
    cdevs_msg_release(m);
    c->next++;
    return;
  }
  c->now = dl > c->now ? dl + c->oversleep : c->now;
}

/* A ticker: an output every `period`; its k-th transition can cost wall time. */
typedef struct ticker_arg {
  double period;
  int costly_k;
  int64_t cost;
  fake_clock *clock;
} ticker_arg;
typedef struct ticker {
  ticker_arg a;
  double k;
} ticker;
static const cdevs_port_def tick_out[] = {{"out", CDEVS_REAL}, {NULL, CDEVS_ANY}};
static const cdevs_port_def none[] = {{NULL, CDEVS_ANY}};
static int tick_init(cdevs_ctx *cx, void *s, const void *arg) {
  (void)cx;
  ((ticker *)s)->a = *(const ticker_arg *)arg;
  return 0;
}
static double tick_ta(const void *s) { return ((const ticker *)s)->a.period; }
static void tick_out_fn(cdevs_ctx *cx, const void *s) { cdevs_emit_real(cx, 0, ((const ticker *)s)->k + 1); }
static void tick_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  ticker *s = state;
  s->k++;
  if (s->a.clock && (int)s->k == s->a.costly_k) s->a.clock->now += s->a.cost;
}
static const cdevs_atomic_ops ticker_ops = {"ticker", sizeof(ticker), sizeof(ticker_arg), none, tick_out, tick_init,
                                            tick_ta, tick_out_fn, tick_int, NULL, NULL, NULL, NULL};

/* A sink: keeps what reaches its input (time and value), and answers each with the
 * running sum of the reals it got, so that inputs show in its outputs. */
typedef struct sink {
  double t[64], v[64];
  int n;
  double sum;
  int answer;
} sink;
static const cdevs_port_def sink_in[] = {{"in", CDEVS_ANY}, {"real", CDEVS_REAL}, {NULL, CDEVS_ANY}};
static const cdevs_port_def sink_out[] = {{"sum", CDEVS_REAL}, {NULL, CDEVS_ANY}};
static double sink_ta(const void *s) { return ((const sink *)s)->answer ? 0.0 : INFINITY; }
static void sink_out_fn(cdevs_ctx *cx, const void *s) { cdevs_emit_real(cx, 0, ((const sink *)s)->sum); }
static void sink_int(cdevs_ctx *cx, void *s) {
  (void)cx;
  ((sink *)s)->answer = 0;
}
static void sink_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  sink *s = state;
  for (size_t k = 0; k < x->n; k++) {
    const cdevs_value *v = x->events[k].value;
    double val = v->kind == CDEVS_ARRAY ? cdevs_array_data(v->u.msg, NULL)[0] : cdevs_value_eval(v, 0);
    if (s->n < 64) s->t[s->n] = cdevs_ctx_time(cx), s->v[s->n++] = val;
    s->sum += val;
  }
  s->answer = 1;
}
static const cdevs_atomic_ops sink_ops = {"sink", sizeof(sink), 0, sink_in, sink_out, NULL,
                                          sink_ta, sink_out_fn, sink_int, sink_ext, NULL, NULL, NULL};

/* Every output of a run as text, %a: two runs compare byte for byte. */
typedef struct trace {
  char buf[1 << 16];
  size_t len;
} trace;
static void trace_out(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  trace *tr = ud;
  if (tr->len < sizeof tr->buf - 128)
    tr->len += (size_t)snprintf(tr->buf + tr->len, sizeof tr->buf - tr->len, "%a %u %d %a\n", t, atomic, port,
                                cdevs_value_eval(v, 0));
}
static const cdevs_observer trace_obs = {trace_out, NULL, NULL, NULL};

/* ---- the executive under a test clock ------------------------------------------------------ */

typedef struct world {
  cdevs_model *root;
  cdevs_sim *sim;
  cdevs_rt *rt;
  uint32_t ticker_id, sink_id;
} world;

/* A ticker and a sink under the executive: 0, or -1 (with the failure counted). */
static int world_make(world *w, const cdevs_alloc *a, const cdevs_rt_opts *o, const ticker_arg *ta) {
  memset(w, 0, sizeof *w);
  char msg[256];
  if (cdevs_rt_new(o, &w->rt, msg, sizeof msg)) return -1;
  w->root = cdevs_root_new(a, "top");
  cdevs_atomic_add(w->root, "tick", &ticker_ops, ta);
  cdevs_atomic_add(w->root, "sink", &sink_ops, NULL);
  if (cdevs_rt_attach(w->rt, w->root) || cdevs_sim_new(w->root, NULL, &w->sim)) return -1;
  w->ticker_id = cdevs_sim_atomic_id(w->sim, cdevs_model_child(w->root, "tick"));
  w->sink_id = cdevs_sim_atomic_id(w->sim, cdevs_model_child(w->root, "sink"));
  return 0;
}

static void world_free(world *w) {
  cdevs_sim_free(w->sim);
  cdevs_model_free(w->root);
  cdevs_rt_free(w->rt);
}

/* Deadlines are absolute: however late each wake-up (37 µs here), the deadline asked
 * for the k-th tick is epoch + t_k / speed, never the last one plus a period. */
static void test_deadlines(void) {
  fake_clock clk = {.now = 1000000000, .oversleep = 37000};
  cdevs_rt_clock ck = {fake_now, fake_sleep, &clk};
  cdevs_rt_opts o = cdevs_rt_opts_default();
  o.speed = 2.0;
  o.clock = &ck;
  ticker_arg ta = {0.1, 0, 0, NULL};
  world w;
  if (!CHECK_RUN(world_make(&w, NULL, &o, &ta))) return;
  double t_end = -1;
  CHECK_EQ_INT(cdevs_rt_run(w.rt, w.sim, 1.05, &t_end), CDEVS_OK);
  CHECK(t_end == 1.05);
  /* The ticks, at the times the kernel adds up (0.1 + 0.1 + ...), then the stop time. */
  double t = 0;
  int k = 0;
  for (; k < 20; k++) {
    t += 0.1;
    if (t > 1.05) break;
    CHECK_EQ_INT(clk.asked[k], 1000000000 + llround(t / 2.0 * 1e9));
  }
  CHECK_EQ_INT(k, 10);
  CHECK_EQ_INT(clk.nasked, 11);
  CHECK_EQ_INT(clk.asked[10], 1000000000 + 525000000);
  cdevs_rt_stats s;
  cdevs_rt_stats_get(w.rt, &s);
  CHECK_EQ_INT(s.events, k);
  CHECK_NEAR(s.late_max, 37e-6, 1e-15);
  CHECK_NEAR(s.late_p50, 37e-6, 37e-6 / 32);
  CHECK_EQ_INT(s.misses, 0);
  sink *sk = cdevs_sim_state_at(w.sim, w.sink_id);
  CHECK_EQ_INT(sk->n, 0);
  world_free(&w);
}

/* A transition that takes 25 ms of wall time at t = 30 ms makes the 40 and 50 ms ticks
 * late by 15 and 5 ms: catch-up runs them at once and keeps the schedule; skip moves the
 * schedule by the first miss, 15 ms; abort stops there. (Speed 1, 10 ms ticks, a 1 ms
 * threshold.) */
static void test_overrun(void) {
  static const struct {
    cdevs_rt_overrun policy;
    cdevs_status st;
    uint64_t misses;
    double max, slipped;
    int64_t asked[6]; /* ms after the epoch */
  } cases[] = {
      {CDEVS_RT_CATCHUP, CDEVS_OK, 2, 15e-3, 0, {10, 20, 30, 60, 70, 80}},
      {CDEVS_RT_SKIP, CDEVS_OK, 1, 15e-3, 15e-3, {10, 20, 30, 65, 75, 85}},
      {CDEVS_RT_ABORT, CDEVS_ETIME, 1, 15e-3, 0, {10, 20, 30, 0, 0, 0}},
  };
  for (size_t c = 0; c < COUNT(cases); c++) {
    fake_clock clk = {.now = 0};
    cdevs_rt_clock ck = {fake_now, fake_sleep, &clk};
    cdevs_rt_opts o = cdevs_rt_opts_default();
    o.speed = 1.0;
    o.clock = &ck;
    o.overrun = cases[c].policy;
    o.late_threshold = 1e-3;
    ticker_arg ta = {0.01, 3, 25000000, &clk};
    world w;
    if (!CHECK_RUN(world_make(&w, NULL, &o, &ta))) continue;
    double t_end = -1;
    CHECK_EQ_INT(cdevs_rt_run(w.rt, w.sim, 0.1, &t_end), cases[c].st);
    cdevs_rt_stats s;
    cdevs_rt_stats_get(w.rt, &s);
    CHECK_EQ_INT(s.misses, cases[c].misses);
    CHECK_NEAR(s.late_max, cases[c].max, 1e-12);
    CHECK_NEAR(s.slipped, cases[c].slipped, 1e-12);
    for (int i = 0; i < 6; i++)
      if (cases[c].asked[i]) CHECK_EQ_INT(clk.asked[i], cases[c].asked[i] * 1000000);
    if (cases[c].st) {
      CHECK_CONTAINS(cdevs_rt_errmsg(w.rt), "15.000 ms late");
      CHECK_NEAR(t_end, 0.03, 1e-12); /* the results are whole to the last instant run */
      CHECK_EQ_INT(clk.nasked, 3);
    } else {
      CHECK(t_end == 0.1);
    }
    world_free(&w);
  }
}

/* An input at wall time 123.456789 ms at speed 2 reaches the sink at simulated time
 * 0.246913578, and another at 400 ms at 0.8; both through the gateway, to a port the root
 * has no coupling to. */
static void test_inputs(void) {
  fake_clock clk = {.now = 5000, .arrive = {5000 + 123456789, 5000 + 400000000}, .value = {4.5, -1}, .narrive = 2};
  cdevs_rt_clock ck = {fake_now, fake_sleep, &clk};
  cdevs_rt_opts o = cdevs_rt_opts_default();
  o.speed = 2.0;
  o.clock = &ck;
  ticker_arg ta = {0.25, 0, 0, NULL};
  world w;
  if (!CHECK_RUN(world_make(&w, NULL, &o, &ta))) return;
  clk.rt = w.rt, clk.target = w.sink_id, clk.port = 0;
  cdevs_value v = cdevs_real(1);
  CHECK_EQ_INT(cdevs_rt_input(w.rt, w.sink_id, 0, &v), CDEVS_ESTATE); /* not running */
  double t_end;
  CHECK_EQ_INT(cdevs_rt_run(w.rt, w.sim, 1.0, &t_end), CDEVS_OK);
  sink *sk = cdevs_sim_state_at(w.sim, w.sink_id);
  CHECK_EQ_INT(sk->n, 2);
  CHECK_NEAR(sk->t[0], 0.246913578, 1e-15);
  CHECK(sk->v[0] == 4.5);
  CHECK_NEAR(sk->t[1], 0.8, 1e-15);
  CHECK(sk->v[1] == -1);
  cdevs_rt_stats s;
  cdevs_rt_stats_get(w.rt, &s);
  CHECK_EQ_INT(s.inputs, 2);
  CHECK_EQ_INT(s.events, 4); /* the ticks at 0.25, 0.5, 0.75, 1 */
  world_free(&w);

  /* Inputs that cannot be delivered are refused with the reason. */
  fake_clock c2 = {.now = 0, .arrive = {1000}, .value = {1}, .narrive = 1};
  ck.ud = &c2;
  if (!CHECK_RUN(world_make(&w, NULL, &o, &ta))) return;
  c2.rt = w.rt, c2.target = w.ticker_id, c2.port = 0; /* the ticker has no input */
  CHECK_EQ_INT(cdevs_rt_run(w.rt, w.sim, 0.1, &t_end), CDEVS_OK); /* refused: the run goes on */
  CHECK_CONTAINS(cdevs_rt_errmsg(w.rt), "has no input port 0");
  world_free(&w);
  fake_clock c3 = {.now = 0, .arrive = {1000}, .value = {1}, .narrive = 1};
  ck.ud = &c3;
  if (!CHECK_RUN(world_make(&w, NULL, &o, &ta))) return;
  c3.rt = w.rt, c3.target = 99, c3.port = 0;
  CHECK_EQ_INT(cdevs_rt_run(w.rt, w.sim, 0.1, &t_end), CDEVS_OK);
  CHECK_CONTAINS(cdevs_rt_errmsg(w.rt), "no atomic model 99");
  world_free(&w);
}

/* A stop request at wall 0.3 s (speed 1) ends the run there: whole to 0.3, not to the
 * next tick at 0.5 nor the stop time. */
static void test_stop(void) {
  fake_clock clk = {.now = 0, .stop_at = 300000000};
  cdevs_rt_clock ck = {fake_now, fake_sleep, &clk};
  cdevs_rt_opts o = cdevs_rt_opts_default();
  o.speed = 1.0;
  o.clock = &ck;
  ticker_arg ta = {0.25, 0, 0, NULL};
  world w;
  if (!CHECK_RUN(world_make(&w, NULL, &o, &ta))) return;
  clk.rt = w.rt;
  double t_end = -1;
  CHECK_EQ_INT(cdevs_rt_run(w.rt, w.sim, 10.0, &t_end), CDEVS_OK);
  CHECK_NEAR(t_end, 0.3, 1e-15);
  CHECK(cdevs_sim_time(w.sim) == 0.25);
  world_free(&w);
}

/* ---- record and replay ---------------------------------------------------------------------- */

/* A live run with 40 inputs at scattered wall times writes a log; its replay, as fast as
 * possible and then paced, gives the same outputs (every one, with its time) and ends
 * at the same time. */
static void test_record_replay(void) {
  fake_clock clk = {.now = 0};
  uint64_t x = 12345;
  int64_t at = 0;
  for (int i = 0; i < 40; i++) { /* a small LCG: arrivals 0 .. 5 ms apart, some at once */
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    at += (int64_t)(x >> 40) % 5000000 * (i % 7 != 3);
    clk.arrive[i] = at;
    clk.value[i] = (double)(x >> 44) / 7.0;
  }
  clk.narrive = 40;
  cdevs_rt_clock ck = {fake_now, fake_sleep, &clk};
  FILE *log = tmpfile();
  if (!CHECK_RUN(log == NULL)) return;
  cdevs_rt_opts o = cdevs_rt_opts_default();
  o.speed = 3.0;
  o.clock = &ck;
  o.record = log;
  o.tag = "test model";
  ticker_arg ta = {0.007, 0, 0, NULL};
  world w;
  static trace live, again, paced;
  live.len = again.len = paced.len = 0;
  if (!CHECK_RUN(world_make(&w, NULL, &o, &ta))) return;
  cdevs_sim_observe(w.sim, &trace_obs, &live);
  clk.rt = w.rt, clk.target = w.sink_id, clk.port = 1;
  double t_live, t_again, t_paced;
  CHECK_EQ_INT(cdevs_rt_run(w.rt, w.sim, 0.3, &t_live), CDEVS_OK);
  sink *sk = cdevs_sim_state_at(w.sim, w.sink_id);
  CHECK_EQ_INT(sk->n, 40);
  world_free(&w);

  rewind(log);
  o = cdevs_rt_opts_default(); /* as fast as possible */
  o.replay = log;
  o.replay_name = "log";
  o.tag = "test model";
  if (!CHECK_RUN(world_make(&w, NULL, &o, &ta))) return;
  cdevs_sim_observe(w.sim, &trace_obs, &again);
  CHECK(cdevs_rt_replaying(w.rt));
  CHECK(cdevs_rt_replay_end(w.rt) == 0.3);
  CHECK_EQ_INT(cdevs_rt_run(w.rt, w.sim, 0.3, &t_again), CDEVS_OK);
  world_free(&w);
  CHECK(t_again == t_live);
  CHECK_EQ_INT(again.len, live.len);
  CHECK(live.len > 1000 && memcmp(live.buf, again.buf, live.len) == 0);

  rewind(log);
  fake_clock c2 = {.now = 777};
  ck.ud = &c2;
  o.speed = 3.0;
  o.clock = &ck;
  if (!CHECK_RUN(world_make(&w, NULL, &o, &ta))) return;
  cdevs_sim_observe(w.sim, &trace_obs, &paced);
  CHECK_EQ_INT(cdevs_rt_run(w.rt, w.sim, 0.3, &t_paced), CDEVS_OK);
  world_free(&w);
  CHECK(t_paced == t_live);
  CHECK(paced.len == live.len && memcmp(live.buf, paced.buf, live.len) == 0);

  /* Another model's log is refused before anything runs. */
  rewind(log);
  o.tag = "another model";
  char msg[300];
  cdevs_rt *rt = NULL;
  CHECK_EQ_INT(cdevs_rt_new(&o, &rt, msg, sizeof msg), CDEVS_EINVAL);
  CHECK_CONTAINS(msg, "recorded from another run");
  CHECK(rt == NULL);
  fclose(log);
}

/* Bad logs: each refused with its line and the reason, none crashes. */
static void test_bad_logs(void) {
  static const struct {
    const char *text, *why;
  } cases[] = {
      {"", "empty"},
      {"cdevs-record 2\n", "format version"},
      {"hello\n", "not a cdevs record"},
      {"cdevs-record 1\nin 0 0.5 0 top.sink in\n", "log:2: a value"},
      {"cdevs-record 1\nin 0 0.5 0 top.sink in real\n", "log:2: a value"},
      {"cdevs-record 1\nin 0 0.5 0 top.sink in real 1 2\n", "log:2: nothing after the value"},
      {"cdevs-record 1\nin 0 0.5 0 top.sink in array 1 1 2\n", "log:2: nothing after the value"}, /* fuzz_rtlog */
      {"cdevs-record 1\nin 0 0.5 0 top.sink in array 3 1 2\n", "log:2: a value"},
      {"cdevs-record 1\nin 0 0.5 0 top.sink in array 99999999999 1\n", "log:2: a value"},
      {"cdevs-record 1\nin 0 0.5 0 top.sink in taylor 4 1 2 3 4 5\n", "log:2: a value"},
      {"cdevs-record 1\nin 0 nan 0 top.sink in real 1\n", "log:2: in WALL"},
      {"cdevs-record 1\nin 0 0.5 0 top%zzsink in real 1\n", "log:2: in WALL"},
      {"cdevs-record 1\nin 0 0.5 3 top.sink in real 1\nin 0 0.4 4 top.sink in real 1\n", "log:3: an input before"},
      {"cdevs-record 1\nin 0 0.5 3 top.sink in real 1\nend 0.4 9\n", "log:3: the end is before"},
      {"cdevs-record 1\nend 1 2\nin 0 0.5 3 top.sink in real 1\n", "log:3: a line after the end"},
      {"cdevs-record 1\nbogus\n", "log:2: a line that is not"},
      {"cdevs-record 1\nin -5 0.5 -3 top.sink in real 1\n", "log:2: in WALL"},
  };
  for (size_t i = 0; i < COUNT(cases); i++) {
    FILE *f = tmpfile();
    fputs(cases[i].text, f);
    rewind(f);
    cdevs_rt_opts o = cdevs_rt_opts_default();
    o.replay = f;
    o.replay_name = "log";
    cdevs_rt *rt = NULL;
    char msg[300] = "";
    CHECK_EQ_INT(cdevs_rt_new(&o, &rt, msg, sizeof msg), CDEVS_EINVAL);
    CHECK_CONTAINS(msg, cases[i].why);
    fclose(f);
  }
  /* Well formed, but not this run's: a model or port it does not have, an input that
   * comes before its place. Said at run time, with the line. */
  static const struct {
    const char *text, *why;
  } runtime[] = {
      {"cdevs-record 1\nin 0 0.05 0 top.nobody in real 1\n", "log:2: no atomic model 'top.nobody'"},
      {"cdevs-record 1\nin 0 0.05 0 top.sink nowhere real 1\n", "log:2: 'top.sink' has no input port 'nowhere'"},
      {"cdevs-record 1\nin 0 0.05 0 top.sink real array 1 1\n", "takes real values, not array"},
      {"cdevs-record 1\nin 0 0.01 0 top.sink in real 1\nin 0 0.05 1 top.sink in real 1\n", "does not fit this run"},
      {"cdevs-record 1\nin 0 9 500 top.sink in real 1\nend 9 501\n", "the run ended before this input"},
  };
  for (size_t i = 0; i < COUNT(runtime); i++) {
    FILE *f = tmpfile();
    fputs(runtime[i].text, f);
    rewind(f);
    cdevs_rt_opts o = cdevs_rt_opts_default();
    o.replay = f;
    o.replay_name = "log";
    ticker_arg ta = {0.1, 0, 0, NULL};
    world w;
    if (CHECK_RUN(world_make(&w, NULL, &o, &ta))) {
      double t_end;
      CHECK(cdevs_rt_run(w.rt, w.sim, 1.0, &t_end) != CDEVS_OK);
      CHECK_CONTAINS(cdevs_rt_errmsg(w.rt), runtime[i].why);
    }
    world_free(&w);
    fclose(f);
  }
}

/* ---- UDP ------------------------------------------------------------------------------------- */

/* A port nobody holds now (bound and released; another process could take it before us,
 * which the test would report as a port in use). */
static int free_port(int family) {
  int fd = socket(family, SOCK_DGRAM, 0), port = -1;
  if (fd < 0) return -1;
  struct sockaddr_storage sa = {0};
  socklen_t len;
  if (family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&sa;
    a->sin_family = AF_INET;
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    len = sizeof *a;
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&sa;
    a->sin6_family = AF_INET6;
    a->sin6_addr = in6addr_loopback;
    len = sizeof *a;
  }
  if (bind(fd, (struct sockaddr *)&sa, len) == 0 && getsockname(fd, (struct sockaddr *)&sa, &len) == 0)
    port = ntohs(family == AF_INET ? ((struct sockaddr_in *)&sa)->sin_port : ((struct sockaddr_in6 *)&sa)->sin6_port);
  close(fd);
  return port;
}

/* A source of arrays: [k, 10k, 100k] at t = 0.01 k, k = 1..5. */
typedef struct source {
  int k;
} source;
static const cdevs_port_def src_out[] = {{"out", CDEVS_ARRAY}, {NULL, CDEVS_ANY}};
static double src_ta(const void *s) { return ((const source *)s)->k < 5 ? 0.01 : INFINITY; }
static void src_out_fn(cdevs_ctx *cx, const void *state) {
  const source *s = state;
  cdevs_msg *m = cdevs_array_new(cdevs_ctx_alloc(cx), 3);
  double *a = cdevs_array_data(m, NULL);
  a[0] = s->k + 1, a[1] = 10.0 * (s->k + 1), a[2] = 100.0 * (s->k + 1);
  cdevs_value v = cdevs_arrayval(m);
  cdevs_emit(cx, 0, &v);
  cdevs_msg_release(m);
}
static void src_int(cdevs_ctx *cx, void *s) {
  (void)cx;
  ((source *)s)->k++;
}
static const cdevs_atomic_ops source_ops = {"source", sizeof(source), 0, none, src_out, NULL,
                                            src_ta, src_out_fn, src_int, NULL, NULL, NULL, NULL};

/* Sends a datagram from fd to the loopback port. */
static void send_to(int fd, int family, int port, const void *buf, size_t len) {
  struct sockaddr_storage sa = {0};
  socklen_t sl;
  if (family == AF_INET) {
    struct sockaddr_in *a = (struct sockaddr_in *)&sa;
    a->sin_family = AF_INET, a->sin_port = htons((uint16_t)port), a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sl = sizeof *a;
  } else {
    struct sockaddr_in6 *a = (struct sockaddr_in6 *)&sa;
    a->sin6_family = AF_INET6, a->sin6_port = htons((uint16_t)port), a->sin6_addr = in6addr_loopback;
    sl = sizeof *a;
  }
  if (sendto(fd, buf, len, 0, (struct sockaddr *)&sa, sl) < 0) perror("sendto");
}

/*
 * source -> UDPSend(v) -> loopback -> UDPReceive -> sink (its y1 and v), in real time at
 * speed 2 for 0.5 simulated seconds (0.25 s of wall time, whatever the load: the
 * values are checked, not when they came). Before the run, a hand-made sender queues one
 * datagram of each bad kind, two good ones and two replays: each is dropped and counted
 * under its reason, and only the good ones reach the model.
 */
static void test_udp(int family) {
  const char *host = family == AF_INET ? "127.0.0.1" : "::1";
  int raw_fd = socket(family, SOCK_DGRAM, 0), port = free_port(family);
  if (raw_fd < 0 || port < 0) {
    printf("test_rt: no %s loopback here; its UDP test is skipped\n", family == AF_INET ? "IPv4" : "IPv6");
    if (raw_fd >= 0) close(raw_fd);
    return;
  }
  cdevs_rt_opts o = cdevs_rt_opts_default();
  o.speed = 2.0;
  cdevs_rt *rt = NULL;
  if (!CHECK_RUN(cdevs_rt_new(&o, &rt, NULL, 0))) return;
  cdevs_model *root = cdevs_root_new(NULL, "top");
  cdevs_model *src = cdevs_atomic_add(root, "src", &source_ops, NULL);
  cdevs_udp_send_params sp = {rt, host, port, 3, 0, 0};
  cdevs_udp_receive_params rp = {rt, host, port, 3, 0, 0.0, 0};
  cdevs_model *tx = cdevs_atomic_add(root, "tx", &cdevs_udp_send_ops, &sp);
  cdevs_model *rx = cdevs_atomic_add(root, "rx", &cdevs_udp_receive_ops, &rp);
  cdevs_model *sk = cdevs_atomic_add(root, "sink", &sink_ops, NULL);
  cdevs_connect(root, src, "out", tx, "v");
  cdevs_connect(root, rx, "v", sk, "in");
  cdevs_model *sk2 = cdevs_atomic_add(root, "sink2", &sink_ops, NULL);
  cdevs_connect(root, rx, "y2", sk2, "in");
  cdevs_rt_attach(rt, root);
  cdevs_sim *sim = NULL;
  if (!CHECK_RUN(cdevs_sim_new(root, NULL, &sim))) {
    fprintf(stderr, "  %s\n", cdevs_model_errmsg(root));
    cdevs_model_free(root);
    cdevs_rt_free(rt);
    close(raw_fd);
    return;
  }
  /* The bad and the replayed, queued before the run. */
  double v[3] = {7, 8, 9}, nanv[3] = {1, NAN, 3};
  unsigned char d[9000] = {0}, good5[48], good6[48];
  size_t len = cdevs_udp_encode(d, sizeof d, 1, 0, v, 3, 0);
  send_to(raw_fd, family, port, d, 10);                   /* truncated */
  d[0] = 'Z';
  send_to(raw_fd, family, port, d, len);                  /* malformed */
  len = cdevs_udp_encode(d, sizeof d, 2, 0, v, 3, 0);
  d[4] = 9;
  send_to(raw_fd, family, port, d, len);                  /* version */
  send_to(raw_fd, family, port, d, cdevs_udp_encode(d, sizeof d, 3, 0, v, 2, 0)); /* count */
  memset(d, 0, sizeof d);
  send_to(raw_fd, family, port, d, 9000);                 /* oversized */
  send_to(raw_fd, family, port, d, cdevs_udp_encode(d, sizeof d, 4, 0, nanv, 3, 0)); /* nonfinite */
  double g5[3] = {-1, -2, -3}, g6[3] = {-4, -5, -6};
  size_t l5 = cdevs_udp_encode(good5, sizeof good5, 5, 0, g5, 3, 0);
  size_t l6 = cdevs_udp_encode(good6, sizeof good6, 6, 0, g6, 3, 0);
  send_to(raw_fd, family, port, good5, l5);
  send_to(raw_fd, family, port, good5, l5);               /* stale: a replay */
  send_to(raw_fd, family, port, good6, l6);
  send_to(raw_fd, family, port, good5, l5);               /* stale: going back */
  double t_end;
  CHECK_EQ_INT(cdevs_rt_run(rt, sim, 0.5, &t_end), CDEVS_OK);
  CHECK(t_end == 0.5);
  sink *s = cdevs_sim_state(sim, sk), *s2 = cdevs_sim_state(sim, sk2);
  cdevs_rt_stats st;
  cdevs_rt_stats_get(rt, &st);
  CHECK_EQ_INT(st.sent, 5);
  CHECK_EQ_INT(st.received, 7);
  CHECK_EQ_INT(st.dropped[CDEVS_UDP_TRUNCATED], 1);
  CHECK_EQ_INT(st.dropped[CDEVS_UDP_MALFORMED], 1);
  CHECK_EQ_INT(st.dropped[CDEVS_UDP_BADVERSION], 1);
  CHECK_EQ_INT(st.dropped[CDEVS_UDP_COUNT], 1);
  CHECK_EQ_INT(st.dropped[CDEVS_UDP_OVERSIZED], 1);
  CHECK_EQ_INT(st.dropped[CDEVS_UDP_NONFINITE], 1);
  CHECK_EQ_INT(st.dropped[CDEVS_UDP_STALE], 2);
  CHECK_EQ_INT(st.dropped_total, 8);
  CHECK_EQ_INT(st.kernel_dropped, 0);
  /* The two good ones first (queued before the run), then the model's own five, in order. */
  CHECK_EQ_INT(s->n, 7);
  if (s->n == 7) {
    CHECK(s->v[0] == -1 && s->v[1] == -4);
    for (int k = 1; k <= 5; k++) CHECK(s->v[1 + k] == k);
    for (int k = 1; k <= 5; k++) CHECK(s->t[1 + k] >= 0.01 * k && s->t[1 + k] <= 0.5);
  }
  CHECK_EQ_INT(s2->n, 7);
  if (s2->n == 7) CHECK(s2->v[1] == -5 && s2->v[2] == 10 && s2->v[6] == 50);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_rt_free(rt);
  close(raw_fd);
}

/* Ports in use, hosts that are no address, sends that fail: clear errors, no crash. */
static void test_udp_errors(void) {
  int port = free_port(AF_INET);
  cdevs_rt *rt = NULL;
  cdevs_rt_opts o = cdevs_rt_opts_default();
  if (port < 0 || !CHECK_RUN(cdevs_rt_new(&o, &rt, NULL, 0))) return;
  cdevs_model *root = cdevs_root_new(NULL, "top");
  cdevs_udp_receive_params rp = {rt, "127.0.0.1", port, 1, 0, 0.0, 0};
  cdevs_atomic_add(root, "a", &cdevs_udp_receive_ops, &rp);
  cdevs_atomic_add(root, "b", &cdevs_udp_receive_ops, &rp);
  cdevs_rt_attach(rt, root);
  cdevs_sim *sim = NULL;
  CHECK(cdevs_sim_new(root, NULL, &sim) != CDEVS_OK);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "top.b");
  CHECK_CONTAINS(cdevs_model_errmsg(root), "Address already in use");
  cdevs_model_free(root);
  cdevs_rt_free(rt);

  static const struct {
    const char *host;
    int port, n;
    const char *why;
  } bad[] = {{"", 5000, 1, "needs a host"},
             {"127.0.0.1", 0, 1, "port 0 is not 1 to 65535"},
             {"127.0.0.1", 5000, 0, "n = 0 values"},
             {"127.0.0.1", 5000, 2000, "n = 2000 values"}};
  for (size_t i = 0; i < COUNT(bad); i++) {
    if (!CHECK_RUN(cdevs_rt_new(&o, &rt, NULL, 0))) return;
    root = cdevs_root_new(NULL, "top");
    cdevs_udp_send_params sp = {rt, bad[i].host, bad[i].port, bad[i].n, 0, 0};
    cdevs_atomic_add(root, "tx", &cdevs_udp_send_ops, &sp);
    CHECK(cdevs_sim_new(root, NULL, &sim) != CDEVS_OK);
    CHECK_CONTAINS(cdevs_model_errmsg(root), bad[i].why);
    cdevs_model_free(root);
    cdevs_rt_free(rt);
  }
  cdevs_udp_send_params none_rt = {NULL, "127.0.0.1", 5000, 1, 0, 0};
  root = cdevs_root_new(NULL, "top");
  cdevs_atomic_add(root, "tx", &cdevs_udp_send_ops, &none_rt);
  CHECK(cdevs_sim_new(root, NULL, &sim) != CDEVS_OK);
  CHECK_CONTAINS(cdevs_model_errmsg(root), "has no executive");
  cdevs_model_free(root);

  /* A send the kernel refuses (broadcast without SO_BROADCAST: EACCES) is counted, with
   * its reason, and the run goes on. */
  if (!CHECK_RUN(cdevs_rt_new(&o, &rt, NULL, 0))) return;
  root = cdevs_root_new(NULL, "top");
  cdevs_udp_send_params bp = {rt, "255.255.255.255", 9, 3, 0, 0};
  cdevs_model *src = cdevs_atomic_add(root, "src", &source_ops, NULL);
  cdevs_model *tx = cdevs_atomic_add(root, "tx", &cdevs_udp_send_ops, &bp);
  cdevs_connect(root, src, "out", tx, "v");
  cdevs_rt_attach(rt, root);
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim))) {
    double t_end;
    CHECK_EQ_INT(cdevs_rt_run(rt, sim, 1.0, &t_end), CDEVS_OK);
    cdevs_rt_stats st;
    cdevs_rt_stats_get(rt, &st);
    CHECK_EQ_INT(st.send_errors + st.sent, 5);
    if (st.send_errors) CHECK_EQ_INT(st.send_errno, EACCES);
    cdevs_sim_free(sim);
  }
  cdevs_model_free(root);
  cdevs_rt_free(rt);

  /* The executive refuses bad options. */
  char msg[200];
  o.speed = -1;
  CHECK_EQ_INT(cdevs_rt_new(&o, &rt, msg, sizeof msg), CDEVS_EINVAL);
  CHECK_CONTAINS(msg, "speed -1");
  o.speed = 1, o.late_threshold = NAN;
  CHECK_EQ_INT(cdevs_rt_new(&o, &rt, msg, sizeof msg), CDEVS_EINVAL);
  o.late_threshold = 1e-3, o.overrun = (cdevs_rt_overrun)7;
  CHECK_EQ_INT(cdevs_rt_new(&o, &rt, msg, sizeof msg), CDEVS_EINVAL);
}

/* UDPReceive with a period (UDPLib's polling): a datagram at 0.123 comes out at 0.15, the
 * next multiple of 0.05; of two before one tick (0.31, 0.32) the last comes out at 0.35;
 * its count output counts both. (Inputs to its udp port stand for datagrams.) */
static void test_receive_period(void) {
  fake_clock clk = {.now = 0, .arrive = {123000000, 310000000, 320000000}, .value = {1, 2, 3}, .narrive = 3,
                    .as_array = 1};
  cdevs_rt_clock ck = {fake_now, fake_sleep, &clk};
  cdevs_rt_opts o = cdevs_rt_opts_default();
  o.speed = 1.0;
  o.clock = &ck;
  cdevs_rt *rt = NULL;
  int port = free_port(AF_INET);
  if (port < 0 || !CHECK_RUN(cdevs_rt_new(&o, &rt, NULL, 0))) return;
  cdevs_model *root = cdevs_root_new(NULL, "top");
  cdevs_udp_receive_params rp = {rt, "127.0.0.1", port, 1, 0, 0.05, 0};
  cdevs_model *rx = cdevs_atomic_add(root, "rx", &cdevs_udp_receive_ops, &rp);
  cdevs_model *sk = cdevs_atomic_add(root, "sink", &sink_ops, NULL);
  cdevs_connect(root, rx, "y1", sk, "in");
  cdevs_model *cnt = cdevs_atomic_add(root, "count", &sink_ops, NULL);
  cdevs_connect(root, rx, "count", cnt, "in");
  cdevs_rt_attach(rt, root);
  cdevs_sim *sim = NULL;
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim))) {
    clk.rt = rt, clk.target = cdevs_sim_atomic_id(sim, rx), clk.port = CDEVS_UDP_RX_IN;
    double t_end;
    CHECK_EQ_INT(cdevs_rt_run(rt, sim, 1.0, &t_end), CDEVS_OK);
    sink *s = cdevs_sim_state(sim, sk), *c = cdevs_sim_state(sim, cnt);
    CHECK_EQ_INT(s->n, 2);
    CHECK_NEAR(s->t[0], 0.15, 1e-12);
    CHECK(s->v[0] == 1);
    CHECK_NEAR(s->t[1], 0.35, 1e-12);
    CHECK(s->v[1] == 3);
    CHECK_EQ_INT(c->n, 2);
    CHECK(c->v[1] == 2);
    cdevs_sim_free(sim);
  }
  cdevs_model_free(root);
  cdevs_rt_free(rt);
}

/* Any file descriptor in the executive's wait: a pipe whose bytes become inputs to the
 * sink, at the simulated time they are read (the test clock's 0.2 s at speed 1: the
 * first look, before the tick at 0.5). Misuse is refused. */
static void on_pipe(cdevs_rt *rt, int fd, void *ud) {
  char c;
  while (read(fd, &c, 1) == 1) {
    cdevs_value v = cdevs_real(c - '0');
    (void)cdevs_rt_input(rt, *(uint32_t *)ud, 0, &v);
  }
}

static void test_watch(void) {
  int p[2];
  if (!CHECK_RUN(pipe(p))) return;
  fake_clock clk = {.now = 200000000};
  cdevs_rt_clock ck = {fake_now, fake_sleep, &clk};
  cdevs_rt_opts o = cdevs_rt_opts_default();
  o.speed = 1.0;
  o.clock = &ck;
  ticker_arg ta = {0.5, 0, 0, NULL};
  world w;
  if (CHECK_RUN(world_make(&w, NULL, &o, &ta))) {
    CHECK_EQ_INT(cdevs_rt_watch(w.rt, p[0], on_pipe, &w.sink_id), CDEVS_OK);
    CHECK_EQ_INT(cdevs_rt_watch(w.rt, -1, on_pipe, NULL), CDEVS_EINVAL);
    CHECK_EQ_INT(write(p[1], "37", 2), 2);
    close(p[1]);
    CHECK_EQ_INT(cdevs_rt_attach(w.rt, w.root), CDEVS_ESTATE); /* once */
    double t_end;
    CHECK_EQ_INT(cdevs_rt_run(w.rt, w.sim, 1.0, &t_end), CDEVS_OK);
    sink *sk = cdevs_sim_state_at(w.sim, w.sink_id);
    CHECK_EQ_INT(sk->n, 2);
    CHECK(sk->v[0] == 3 && sk->v[1] == 7 && sk->t[0] == 0.0 && sk->t[1] == 0.0);
  }
  /* A simulator of another root. */
  cdevs_model *other = cdevs_root_new(NULL, "other");
  cdevs_atomic_add(other, "sink", &sink_ops, NULL);
  cdevs_sim *sim = NULL;
  if (w.rt && CHECK_RUN(cdevs_sim_new(other, NULL, &sim))) {
    double t_end;
    CHECK_EQ_INT(cdevs_rt_run(w.rt, sim, 1.0, &t_end), CDEVS_ESTATE);
    CHECK_CONTAINS(cdevs_rt_errmsg(w.rt), "cdevs_rt_attach");
  }
  cdevs_sim_free(sim);
  cdevs_model_free(other);
  world_free(&w);
  close(p[0]);
}

/* Every allocation of the executive and its run failing in turn: a clean error each
 * time, nothing leaked. */
static void test_out_of_memory(void) {
  int failures = 0;
  for (long at = 1; at < 400; at++) {
    counting c = {.fail_at = at};
    cdevs_alloc a = {counting_realloc, &c};
    fake_clock clk = {.now = 0, .arrive = {1000, 2000000, 2000000}, .value = {1, 2, 3}, .narrive = 3};
    cdevs_rt_clock ck = {fake_now, fake_sleep, &clk};
    cdevs_rt_opts o = cdevs_rt_opts_default();
    o.speed = 1.0;
    o.clock = &ck;
    o.alloc = &a;
    ticker_arg ta = {0.001, 0, 0, NULL};
    world w;
    if (world_make(&w, &a, &o, &ta) == 0) {
      clk.rt = w.rt, clk.target = w.sink_id;
      double t_end;
      if (cdevs_rt_run(w.rt, w.sim, 0.01, &t_end)) failures++;
    }
    world_free(&w);
    CHECK_EQ_INT(c.live, 0);
    CHECK_EQ_INT(c.blocks, 0);
    if (!c.failed) break;
  }
  CHECK(failures > 0);
}

int main(void) {
  test_wire_layout();
  test_decode_malformed();
  test_sequence();
  test_lateness();
  test_deadlines();
  test_overrun();
  test_inputs();
  test_stop();
  test_record_replay();
  test_bad_logs();
  test_udp(AF_INET);
  test_udp(AF_INET6);
  test_udp_errors();
  test_receive_period();
  test_watch();
  test_out_of_memory();
  return check_report("test_rt");
}
