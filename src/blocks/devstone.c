/* SPDX-License-Identifier: MIT */
/* DEVStone model builder and its atomic model. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cdevs/devstone.h"

typedef struct ds_state {
  double sigma;
  double int_delay_ms, ext_delay_ms;
  uint64_t internals, externals, events;
} ds_state;

typedef struct ds_arg {
  double int_delay_ms, ext_delay_ms;
} ds_arg;

static const cdevs_port_def ds_in[] = {{"in", CDEVS_INT}, {NULL, CDEVS_ANY}};
static const cdevs_port_def ds_out[] = {{"out", CDEVS_INT}, {NULL, CDEVS_ANY}};

/* Burns CPU for ms milliseconds, as DEVStone's Dhrystone-style busy work does. */
static void busy(double ms) {
  if (!(ms > 0.0)) return;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  volatile double sink = 0.0;
  for (;;) {
    for (int i = 0; i < 1000; i++) sink += 1e-9 * i;
    clock_gettime(CLOCK_MONOTONIC, &b);
    double el = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) * 1e-6;
    if (el >= ms) break;
  }
  (void)sink;
}

static int ds_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  const ds_arg *p = arg;
  ds_state *s = state;
  s->sigma = INFINITY;
  s->int_delay_ms = p->int_delay_ms;
  s->ext_delay_ms = p->ext_delay_ms;
  return CDEVS_OK;
}

static double ds_ta(const void *state) { return ((const ds_state *)state)->sigma; }

static void ds_output(cdevs_ctx *cx, const void *state) {
  (void)state;
  cdevs_emit_int(cx, 0, 0);
}

static void ds_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  ds_state *s = state;
  busy(s->int_delay_ms);
  s->internals++;
  s->sigma = INFINITY;
}

static void ds_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)cx;
  (void)e;
  ds_state *s = state;
  busy(s->ext_delay_ms);
  s->externals++;
  s->events += x->n;
  s->sigma = 0.0;
}

static const cdevs_atomic_ops ds_ops = {
    .type = "DEVStoneAtomic",
    .state_size = sizeof(ds_state),
    .arg_size = sizeof(ds_arg),
    .inputs = ds_in,
    .outputs = ds_out,
    .init = ds_init,
    .ta = ds_ta,
    .output = ds_output,
    .delta_int = ds_int,
    .delta_ext = ds_ext,
};

int cdevs_devstone_type_parse(const char *name) {
  static const char *const names[] = {"LI", "HI", "HO", "HOmod"};
  for (int i = 0; i < 4; i++)
    if (name && strcasecmp(name, names[i]) == 0) return i;
  return -1;
}

const char *cdevs_devstone_type_name(cdevs_devstone_type t) {
  static const char *const names[] = {"LI", "HI", "HO", "HOmod"};
  return (unsigned)t < 4 ? names[t] : "?";
}

/* "<p><a>" or, with two numbers, "<p><a>_<b>" into buf (at least 32 bytes): the
 * names of a model of 10^5 atomics, without printf's parsing for each. */
static char *put_u32(char *o, uint32_t v) {
  char d[10];
  int n = 0;
  do d[n++] = (char)('0' + v % 10), v /= 10; while (v);
  while (n) *o++ = d[--n];
  return o;
}
static const char *ds_name(char *buf, const char *p, uint32_t a, int two, uint32_t b) {
  char *o = buf;
  while (*p) *o++ = *p++;
  o = put_u32(o, a);
  if (two) *o++ = '_', o = put_u32(o, b);
  *o = '\0';
  return buf;
}

static cdevs_model *atomic(cdevs_model *parent, const char *prefix, uint32_t a, int two, uint32_t b,
                           const ds_arg *arg) {
  char name[48];
  return cdevs_atomic_add(parent, ds_name(name, prefix, a, two, b), &ds_ops, arg);
}

/* The ports of a DEVStone level (a coupled model). */
static void level_ports(cdevs_model *c, const cdevs_devstone_params *p) {
  bool ho = p->type == CDEVS_DEVSTONE_HO, homod = p->type == CDEVS_DEVSTONE_HOMOD;
  cdevs_port_add(c, CDEVS_IN, "in", CDEVS_INT);
  if (ho || homod) cdevs_port_add(c, CDEVS_IN, "in2", CDEVS_INT);
  cdevs_port_add(c, CDEVS_OUT, "out", CDEVS_INT);
  if (ho) cdevs_port_add(c, CDEVS_OUT, "out2", CDEVS_INT);
}

/* Fills coupled model c (its ports added) as a DEVStone level of depth k > 1 around
 * child, the level of depth k - 1 (its ports added, its contents not yet). */
static void level(cdevs_model *c, cdevs_model *child, const cdevs_devstone_params *p,
                  const ds_arg *arg) {
  bool ho = p->type == CDEVS_DEVSTONE_HO, homod = p->type == CDEVS_DEVSTONE_HOMOD;
  char name[32];
  cdevs_connect(c, c, "in", child, "in");
  cdevs_connect(c, child, "out", c, "out");
  uint32_t w = p->width;
  if (!homod) {
    cdevs_model *prev = NULL;
    if (ho) cdevs_connect(c, c, "in", child, "in2");
    for (uint32_t i = 0; i + 1 < w; i++) {
      cdevs_model *a = atomic(c, "a", i, 0, 0, arg);
      cdevs_connect(c, c, ho ? "in2" : "in", a, "in");
      if (prev && p->type != CDEVS_DEVSTONE_LI) cdevs_connect(c, prev, "out", a, "in");
      if (ho) cdevs_connect(c, a, "out", c, "out2");
      prev = a;
    }
    return;
  }
  /* HOmod: row 1 feeds the next level's in2; row 2 feeds every atomic of row 1;
     atomic i of row r (r >= 3) feeds atomic i+1 of row r−1; the first atomic of each
     row from 2 on, and every atomic of row 1, listen to in2. */
  if (w < 2) return;
  uint32_t n1 = w - 1;
  /* Atomics of the row above are found by name (hashed), which needs no row arrays. */
  for (uint32_t i = 0; i < n1; i++) {
    cdevs_model *a = atomic(c, "r1_", i, 0, 0, arg);
    cdevs_connect(c, c, "in2", a, "in");
    cdevs_connect(c, a, "out", child, "in2");
  }
  for (uint32_t i = 0; i < n1; i++) {
    cdevs_model *a = atomic(c, "r2_", i, 0, 0, arg);
    if (i == 0) cdevs_connect(c, c, "in2", a, "in");
    for (uint32_t j = 0; j < n1; j++) {
      ds_name(name, "r1_", j, 0, 0);
      cdevs_connect(c, a, "out", cdevs_model_child(c, name), "in");
    }
  }
  for (uint32_t r = 3; r <= w; r++) {
    uint32_t size = w - r + 1;
    for (uint32_t i = 0; i < size; i++) {
      char nm[32];
      ds_name(nm, "r", r, 1, i);
      cdevs_model *a = cdevs_atomic_add(c, nm, &ds_ops, arg);
      if (i == 0) cdevs_connect(c, c, "in2", a, "in");
      ds_name(name, "r", r - 1, 1, i + 1);
      cdevs_connect(c, a, "out", cdevs_model_child(c, name), "in");
    }
  }
}

/* Memory a built and flattened model takes, per atomic model, coupling and coupled
 * model (peak RSS measured at 1e6..2e6 atomics: 322-384 B per atomic with its share of
 * couplings, 800 B per coupled model), rounded down: a lower bound, so that a model
 * refused would certainly not have fitted. */
#define BYTES_PER_ATOMIC 300.0
#define BYTES_PER_COUPLING 16.0
#define BYTES_PER_COUPLED 600.0

/* The model's size from the published formulas, in doubles (exact up to 2^53, and no
 * overflow whatever the parameters); the byte estimate as above. */
static double estimate(const cdevs_devstone_params *p, double *atomics, double *couplings) {
  double d = p->depth, w = p->width;
  double eic, ic, eoc;
  switch (p->type) {
  case CDEVS_DEVSTONE_LI:
    *atomics = (w - 1) * (d - 1) + 1;
    eic = w * (d - 1) + 1, ic = 0, eoc = d;
    break;
  case CDEVS_DEVSTONE_HI:
    *atomics = (w - 1) * (d - 1) + 1;
    eic = w * (d - 1) + 1, ic = w > 2 ? (w - 2) * (d - 1) : 0, eoc = d;
    break;
  case CDEVS_DEVSTONE_HO:
    *atomics = (w - 1) * (d - 1) + 1;
    eic = (w + 1) * (d - 1) + 1, ic = w > 2 ? (w - 2) * (d - 1) : 0, eoc = w * (d - 1) + 1;
    break;
  default:
    *atomics = ((w - 1) + (w - 1) * w / 2) * (d - 1) + 1;
    eic = (2 * (w - 1) + 1) * (d - 1) + 1;
    ic = ((w - 2) * (w - 1) / 2 + (w - 1) * (w - 1) + (w - 1)) * (d - 1);
    eoc = d;
    break;
  }
  *couplings = eic + ic + eoc;
  return BYTES_PER_ATOMIC * *atomics + BYTES_PER_COUPLING * *couplings + BYTES_PER_COUPLED * d;
}

cdevs_model *cdevs_devstone_build(const cdevs_alloc *a, const cdevs_devstone_params *p) {
  cdevs_model *root = cdevs_root_new(a, "devstone");
  if (!root || !p) return root;
  if ((unsigned)p->type > CDEVS_DEVSTONE_HOMOD || p->depth < 1 || p->width < 1 ||
      !(p->int_delay_ms >= 0.0) || !(p->ext_delay_ms >= 0.0)) {
    cdevs_model_fail(root, CDEVS_EINVAL,
                     "DEVStone needs a type LI, HI, HO or HOmod, depth >= 1, width >= 1 and "
                     "delays >= 0 (got type %d, depth %u, width %u)",
                     (int)p->type, p->depth, p->width);
    return root;
  }
  /* Refuse before building what cannot fit: building would otherwise grow for minutes
     until the system kills the process or an allocation fails deep inside. */
  double natomic, ncoupling, bytes = estimate(p, &natomic, &ncoupling);
  double avail = cdevs_mem_available();
  if (natomic > (double)UINT32_MAX) {
    cdevs_model_fail(root, CDEVS_ENOMEM,
                     "DEVStone %s depth %u width %u has %.4g atomic models; at most %u fit in "
                     "one model",
                     cdevs_devstone_type_name(p->type), p->depth, p->width, natomic, UINT32_MAX);
    return root;
  }
  if (bytes > avail) {
    cdevs_model_fail(root, CDEVS_ENOMEM,
                     "DEVStone %s depth %u width %u needs at least %.1f GB (%.0f atomic models, "
                     "%.0f couplings) but only %.1f GB of memory is available",
                     cdevs_devstone_type_name(p->type), p->depth, p->width, bytes / 1e9, natomic,
                     ncoupling, avail / 1e9);
    return root;
  }
  ds_arg arg = {p->int_delay_ms, p->ext_delay_ms};
  /* Level by level from the outside in (a loop, not recursion: depth is unbounded);
     the innermost level holds a single atomic. */
  cdevs_model *c = root;
  level_ports(c, p);
  for (uint32_t k = p->depth; k > 1 && c; k--) {
    char name[32];
    ds_name(name, "l", k - 1, 0, 0);
    cdevs_model *child = cdevs_coupled_add(c, name);
    if (!child) break;
    level_ports(child, p);
    level(c, child, p, &arg);
    c = child;
  }
  if (c && cdevs_model_status(root) == CDEVS_OK) {
    cdevs_model *inner = atomic(c, "a", 0, 0, 0, &arg);
    cdevs_connect(c, c, "in", inner, "in");
    cdevs_connect(c, inner, "out", c, "out");
  }
  return root;
}

cdevs_status cdevs_devstone_seed(cdevs_sim *sim) {
  const cdevs_model *root = cdevs_sim_root(sim);
  if (!root) return CDEVS_EINVAL;
  cdevs_value v = cdevs_int(0);
  for (int p = 0; p < cdevs_port_count(root, CDEVS_IN); p++) {
    cdevs_status st = cdevs_sim_inject(sim, cdevs_sim_time(sim), p, &v);
    if (st) return st;
  }
  return CDEVS_OK;
}

void cdevs_devstone_counts_get(cdevs_sim *sim, cdevs_devstone_counts *c) {
  memset(c, 0, sizeof *c);
  for (uint32_t i = 0; i < cdevs_sim_atomic_count(sim); i++) {
    if (cdevs_model_ops(cdevs_sim_atomic(sim, i)) != &ds_ops) continue;
    const ds_state *s = cdevs_sim_state_at(sim, i);
    c->internals += s->internals;
    c->externals += s->externals;
    c->events += s->events;
  }
}
