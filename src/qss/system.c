/* SPDX-License-Identifier: MIT */
/*
 * The compiled equation system as one atomic model. Each state has its own quantizer
 * (the cdevs__qvar of the integrator block); a tournament tree orders the states'
 * requantizations and the zero-crossings' times. A step touches only what the
 * changed variable reaches: the derivatives and crossing functions that read it,
 * through incidence lists built once from the bytecode.
 *
 * One internal transition handles one item's event. When the model has output ports,
 * the transition that changes an output is followed by a zero-time one whose λ
 * emits the new values (λ precedes δint, so it cannot announce a change δint has
 * not made yet).
 */
#include "system.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/taylor.h"
#include "crossing.h"

/* ---- State ------------------------------------------------------------------------- */

typedef struct csr {
  uint32_t *start, *to;
} csr;

/* A node of the event tree (see tfix): the earliest item below it, by its time
 * (okey) and then by its number. */
typedef struct tnode {
  uint64_t k, i;
} tnode;

/* How derivative j reads state j: not at all, or it does (LIQSS then needs a =
 * ∂ẋ_j/∂q_j), or it does and its evaluation also yields a (cdevs__bc_eval_dual). */
enum { SELF_NONE, SELF_DEP, SELF_FUSED };

typedef struct sys_state {
  const cdevs__sys_spec *sp;
  const cdevs__qss_method *m;
  int secant_a; /* cdevs__sys_arg's */
  cdevs__sys_switching sw; /* cdevs__sys_arg's, and whether it has switched */
  const cdevs_alloc *alloc;
  cdevs__qvar *v;
  double (*alg)[4];
  double *disc;
  double *pre; /* the discretes before the event a handler runs for (equal to disc outside one) */
  double (*stack)[4];
  int8_t *zsign;      /* the side a crossing's function is on; 0 until it has left 0 */
  int started;        /* sys_init is done: a function leaving 0 now is a crossing's */
  uint8_t *zjump;     /* the planned event is a jump seen at once, not a root */
  uint8_t *zfired0;   /* its handler has run at the start time (an input's first event then keeps its side) */
  uint8_t *zquiet;    /* its handlers change nothing that is an output */
  double *zhyst;      /* hysteresis: leaving side s means reaching -s·h, not 0 */
  double *zlag;       /* how far x was short of the level when the crossing last fired */
  uint8_t *zself;     /* its handlers change what its function reads (an ideal diode) */
  tnode *tree;     /* 2·nitems - 1 nodes over the items: see tfix */
  uint32_t nitems; /* states, then crossings, then algebraic outputs (their refreshes) */
  csr sd, sz, dd, dz; /* state -> derivatives, state -> crossings, discrete -> … */
  /* Outputs: so and dso list those each state (or input) and discrete moves: its
   * own, and the algebraic ones that read it, directly or through other algebraics;
   * alg_out lists the algebraic ones. The changed ones wait in dirty[0..ndirty)
   * (out_dirty flags them) for the zero-time transition whose λ sends them. */
  csr so, dso;
  uint32_t *alg_out, n_alg_out, *dirty, ndirty;
  /* Algebraics are evaluated on demand, each once per change: alg[a] is current when
   * alg_stamp[a] == stamp, and stamp moves on whenever a state's q, a discrete or the
   * time changes. aa lists the algebraics each algebraic reads, da and za those each
   * derivative and crossing function reads; alg_todo is the evaluation stack. The
   * seeded copies (alg_seed, seed_stamp) hold ∂alg/∂q_j for LIQSS's Jacobian. */
  csr aa, da, za;
  uint32_t *alg_stamp, *seed_stamp, *alg_todo, stamp, seed_round;
  double (*alg_seed)[4];
  double algs_t;
  uint8_t *self_dep;  /* derivative j reads state j: SELF_*' */
  /* mLIQSS: for each state, the states coupled to it both ways (each derivative
   * reads the other's state), the candidates for a pair step (pair_step). */
  csr pc;
  /* The order each derivative, crossing function and algebraic is evaluated at: its
   * degree in τ, capped at the method's order (bc_degree). A derivative at that cap
   * has a coefficient beyond q's degree, for the refresh time. */
  uint8_t *dord, *zord, *aord;
  /* A derivative of degree m or more on the states' q and time (time under QSS1;
   * sin(time), cos(y), y·z·w under QSS3), beyond the m - 1 its state integrates:
   * evaluated again at each requantization of its state (see state_event). The
   * refresh of its extrapolation alone (xr) lets x drift a quantum each time, and
   * may never come: the coefficient it reads vanishes where cos(time) has an
   * inflection, and nothing else evaluates it while the q it reads are exact
   * (y' = 1 under QSS2 never requantizes y). */
  uint8_t *dbeyond;
  double (*ohist)[2]; /* per algebraic output: c_m and the time it was last sent */
  /* Crossing functions beyond the series they are evaluated as, on the states' q
   * (sin(time) > 0, cos(x) < 0.5): zbeyond set. While the q they read do not change
   * (x' = 1 keeps x's q exact) nothing else plans them again, so their next time is
   * capped at where the terms left out reach the tolerance, and the event there
   * (zrefresh) only plans them again; zhist is as ohist. */
  uint8_t *zbeyond, *zrefresh;
  double (*zhist)[2];
  /* Zeno watch, per crossing: the time of its last handled event and the interval
   * before it, and how many intervals in a row have been shorter than the one before. */
  cdevs__zeno *zwatch;
  int zeno_continue;
  double dqrel, dqmin; /* cdevs__sys_arg's */
  double stall_t;      /* the instant of the last state event, and how many there were */
  uint64_t stall_n;
  uint64_t zeno;
  double zeno_t;
  uint8_t *out_dirty;
  double t;
  cdevs__crand rng;
  /* What a handler's discrete assignments make stale, updated once at its end:
   * derivatives hdlist[0..nhd) and crossings hzlist[0..nhz); hdmark/hzmark
   * equal to hstamp while listed. */
  uint32_t *hdlist, *hdmark, *hzlist, *hzmark, nhd, nhz, hstamp;
  uint32_t cur_cross; /* the crossing whose handler runs; its plan was redone if touched */
  int cur_touched;
  uint64_t steps, crossings, reinits, refreshes, paired;
  double t0;        /* the start time */
  uint8_t *in_seen; /* per input: an event has come (before it, the start value) */
  size_t bytes; /* what was allocated, for fini */
  void *block;
} sys_state;

void cdevs__sys_alg_degrees(const cdevs__sys_spec *sp, int qdeg, int cap, uint8_t *deg, int *st) {
  for (int changed = 1; changed;) {
    changed = 0;
    for (uint32_t g = 0; g < sp->n_algs; g++) {
      int d = cdevs__bc_degree(&sp->alg[g], qdeg, cap, deg, st);
      if (d != deg[g]) deg[g] = (uint8_t)d, changed = 1;
    }
  }
}

/* The next array of the state's block, at offset *off from base (16-byte aligned);
 * with base NULL, only the offset moves on (layout's measuring pass). */
static void *take(unsigned char *base, size_t *off, size_t size) {
  void *r = base ? base + *off : NULL;
  *off += (size + 15) & ~(size_t)15;
  return r;
}

/* ---- The event tree ----------------------------------------------------------------- */

/* A time as an integer of the same order (NaN, never a planned time, as +inf), so
 * that (time, item) compares as integers. */
static inline uint64_t okey(double t) {
  uint64_t u;
  if (t != t) t = INFINITY;
  memcpy(&u, &t, sizeof u);
  return u ^ (-(u >> 63) | 0x8000000000000000u); /* negative: all bits flipped */
}
static inline double kval(uint64_t k) {
  k ^= ((k >> 63) - 1) | 0x8000000000000000u;
  double t;
  memcpy(&t, &k, sizeof t);
  return t;
}

/* The next event is the root of a tournament tree over the items: item i is the
 * leaf nitems - 1 + i, and every inner node holds the earlier of its two children,
 * equal times taken in item order. A new time for an item replays its path towards
 * the root, stopping where the item neither was nor becomes the winner (nothing
 * above changes). Each level is one comparison with the sibling, written as flag
 * arithmetic (k < sk + borrow, no key reaching 2^64 - 1) so that it compiles to
 * conditional moves: the outcome is a coin toss, and as a branch it cost more than
 * the rest of the step (advection: an indexed binary heap with its sifts took a
 * quarter of the run; with this tree the run takes 15-20% less time). QSS Solver
 * schedules with such a tree too. */
static void tfix(sys_state *s, uint32_t item, double k) {
  tnode *t = s->tree;
  uint32_t c = s->nitems - 1 + item;
  uint64_t ck = okey(k), ci = item;
  t[c].k = ck;
  while (c > 0) {
    uint32_t sib = c - 1 + ((c & 1) << 1), p = (c - 1) >> 1;
    uint64_t sk = t[sib].k, si = t[sib].i;
    int lt = sk < ck + (si < ci);
    ck = lt ? sk : ck, ci = lt ? si : ci;
    if ((t[p].i != item) & (ci != item)) return;
    t[p].k = ck, t[p].i = ci;
    c = p;
  }
}

/* The next event's item and time (+inf: none). */
static inline uint32_t next_item(const sys_state *s) { return (uint32_t)s->tree[0].i; }
static inline double next_time(const sys_state *s) { return s->nitems ? kval(s->tree[0].k) : INFINITY; }

/* ---- Incidence ------------------------------------------------------------------------- */

/* Scratch arrays of sys_init, through the model's allocator like everything else
 * (a failure is CDEVS_ENOMEM, and an allocator that counts sees them). */
static void *tmp_new(const sys_state *s, size_t bytes) { return s->alloc->realloc(s->alloc->ud, NULL, 0, bytes ? bytes : 1); }
static void tmp_free(const sys_state *s, void *p, size_t bytes) {
  if (p) s->alloc->realloc(s->alloc->ud, p, bytes ? bytes : 1, 0);
}

/* grow-on-demand list of (variable, code) pairs */
typedef struct pairs {
  uint32_t (*p)[2];
  size_t n, cap;
} pairs;

static int pairs_push(const sys_state *s, pairs *ps, uint32_t v, uint32_t c) {
  if (ps->n == ps->cap) {
    size_t cap = ps->cap ? 2 * ps->cap : 64;
    void *np = s->alloc->realloc(s->alloc->ud, ps->p, ps->cap * sizeof *ps->p, cap * sizeof *ps->p);
    if (!np) return -1;
    ps->p = np, ps->cap = cap;
  }
  ps->p[ps->n][0] = v, ps->p[ps->n][1] = c, ps->n++;
  return 0;
}

static void pairs_free(const sys_state *s, pairs *ps) {
  if (ps->p) s->alloc->realloc(s->alloc->ud, ps->p, ps->cap * sizeof *ps->p, 0);
}

/* The pairs (var, code) as CSR by var: for each variable, the codes. */
static int pairs_to_csr(sys_state *s, csr *out, uint32_t nvars, const pairs *ps) {
  out->start = s->alloc->realloc(s->alloc->ud, NULL, 0, (nvars + 1) * sizeof(uint32_t));
  out->to = s->alloc->realloc(s->alloc->ud, NULL, 0, (ps->n ? ps->n : 1) * sizeof(uint32_t));
  if (!out->start || !out->to) {
    if (out->start) s->alloc->realloc(s->alloc->ud, out->start, (nvars + 1) * sizeof(uint32_t), 0);
    if (out->to) s->alloc->realloc(s->alloc->ud, out->to, (ps->n ? ps->n : 1) * sizeof(uint32_t), 0);
    out->start = out->to = NULL;
    return -1;
  }
  memset(out->start, 0, (nvars + 1) * sizeof(uint32_t));
  for (size_t i = 0; i < ps->n; i++) out->start[ps->p[i][0] + 1]++;
  for (uint32_t v = 0; v < nvars; v++) out->start[v + 1] += out->start[v];
  uint32_t *fill = tmp_new(s, nvars * sizeof *fill);
  if (!fill) return -1;
  memcpy(fill, out->start, nvars * sizeof(uint32_t));
  for (size_t i = 0; i < ps->n; i++) out->to[fill[ps->p[i][0]]++] = ps->p[i][1];
  tmp_free(s, fill, nvars * sizeof *fill);
  return 0;
}

/* For each code, the algebraics it reads directly (deduplicated), as CSR by code. */
static int direct_algs(sys_state *s, csr *out, const bc_code *const *codes, uint32_t n) {
  uint32_t na = s->sp->n_algs;
  uint32_t *mark = tmp_new(s, na * sizeof *mark);
  pairs ps = {0};
  int rc = mark ? 0 : -1;
  for (uint32_t a = 0; !rc && a < na; a++) mark[a] = UINT32_MAX;
  for (uint32_t c = 0; !rc && c < n; c++)
    for (uint32_t i = 0; !rc && i < codes[c]->n; i++) {
      const bc_ins *in = &codes[c]->ins[i];
      if (in->op != BC_ALG || mark[in->arg] == c) continue;
      mark[in->arg] = c;
      rc = pairs_push(s, &ps, c, in->arg);
    }
  if (!rc) rc = pairs_to_csr(s, out, n, &ps);
  tmp_free(s, mark, na * sizeof *mark), pairs_free(s, &ps);
  return rc;
}

/* For each code c (n codes), the variables of kind `op` it reads, directly or through
 * the algebraics it reads (algs: their direct lists, closed here over s->aa),
 * inverted: for each variable, the codes that read it. */
static int build_csr(sys_state *s, csr *out, uint32_t nvars, const bc_code *const *codes, uint32_t n,
                     int op, const csr *algs) {
  const cdevs__sys_spec *sp = s->sp;
  uint32_t na = sp->n_algs;
  uint32_t *mark = tmp_new(s, nvars * sizeof *mark);
  uint32_t *amark = tmp_new(s, na * sizeof *amark);
  uint32_t *todo = tmp_new(s, na * sizeof *todo);
  pairs ps = {0};
  int rc = mark && amark && todo ? 0 : -1;
  for (uint32_t v = 0; !rc && v < nvars; v++) mark[v] = UINT32_MAX;
  for (uint32_t a = 0; !rc && a < na; a++) amark[a] = UINT32_MAX;
  for (uint32_t c = 0; !rc && c < n; c++) {
    uint32_t top = 0;
    for (uint32_t k = algs->start[c]; k < algs->start[c + 1]; k++) amark[algs->to[k]] = c, todo[top++] = algs->to[k];
    const bc_code *code = codes[c];
    for (;;) {
      for (uint32_t i = 0; !rc && i < code->n; i++) {
        uint32_t v = code->ins[i].arg;
        int is = op == BC_STATE ? BC_READS_STATE(code->ins[i].op) : code->ins[i].op == op;
        if (!is || mark[v] == c) continue;
        mark[v] = c;
        rc = pairs_push(s, &ps, v, c);
      }
      if (rc || !top) break;
      uint32_t a = todo[--top];
      for (uint32_t k = s->aa.start[a]; k < s->aa.start[a + 1]; k++)
        if (amark[s->aa.to[k]] != c) amark[s->aa.to[k]] = c, todo[top++] = s->aa.to[k];
      code = &sp->alg[a];
    }
  }
  if (!rc) rc = pairs_to_csr(s, out, nvars, &ps);
  tmp_free(s, mark, nvars * sizeof *mark), tmp_free(s, amark, na * sizeof *amark);
  tmp_free(s, todo, na * sizeof *todo), pairs_free(s, &ps);
  return rc;
}

static void free_csr(const cdevs_alloc *a, csr *c, uint32_t nvars) {
  if (c->start) {
    a->realloc(a->ud, c->to, (c->start[nvars] ? c->start[nvars] : 1) * sizeof(uint32_t), 0);
    a->realloc(a->ud, c->start, (nvars + 1) * sizeof(uint32_t), 0);
  }
}

/* ---- Steps -------------------------------------------------------------------------- */

/* A failure in the event at t. sys_int takes quiet events after the transition's own
 * (up to cdevs_ctx_horizon) without the simulator: the context's time is moved to t
 * first, so that the error says when it happened and the results reach there. */
static void sys_fail(cdevs_ctx *cx, double t, const char *fmt, ...) {
  char msg[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (t > cdevs_ctx_time(cx)) cdevs_ctx_advance(cx, t);
  cdevs_ctx_fail(cx, "%s", msg);
}

/* Every coefficient of c[0..order] is finite (one test: a NaN or an infinity in any
 * makes the sum one, and finite values that large are not met). */
static inline int finite_series(const double *c, int order) {
  double sum = c[0];
  for (int k = 1; k <= order; k++) sum += c[k];
  return isfinite(sum);
}

void cdevs__sys_name(const cdevs__sys_spec *sp, cdevs__sys_what kind, uint32_t i, char *buf, size_t n) {
  const char *nm = kind == SYS_ALG ? (sp->alg_names ? sp->alg_names[i] : "?")
                                   : (sp->state_names && kind != SYS_CROSS ? sp->state_names[i] : "?");
  const int *lines = kind == SYS_ALG ? sp->alg_line : sp->der_line;
  int line = kind == SYS_CROSS ? sp->cross[i].line : lines && kind != SYS_HANDLER ? lines[i] : 0;
  int k = 0;
  switch (kind) {
  case SYS_DER: k = snprintf(buf, n, "der(%s)", nm); break;
  case SYS_ALG: k = snprintf(buf, n, "algebraic variable '%s'", nm); break;
  case SYS_STATE: k = snprintf(buf, n, "state '%s'", nm); break;
  case SYS_HANDLER: snprintf(buf, n, "a value set in a when clause"); return;
  case SYS_CROSS:
    if (sp->file && line > 0) snprintf(buf, n, "the condition at %s:%d:%d", sp->file, line, sp->cross[i].col);
    else snprintf(buf, n, "zero-crossing %u", i);
    return;
  }
  if (sp->file && line > 0 && k > 0 && (size_t)k < n) snprintf(buf + k, n - (size_t)k, " (%s:%d)", sp->file, line);
}

uint32_t cdevs__sys_stack_depth(const cdevs__sys_spec *sp) {
  uint32_t depth = 4;
#define DEEPER(code) depth = (code).max_stack > depth ? (code).max_stack : depth
  for (uint32_t i = 0; i < sp->n_states; i++) DEEPER(sp->der[i]);
  for (uint32_t i = 0; i < sp->n_algs; i++) DEEPER(sp->alg[i]);
  for (uint32_t i = 0; i < sp->n_cross; i++) {
    DEEPER(sp->cross[i].f);
    for (uint32_t k = 0; k < sp->cross[i].n_rise; k++) DEEPER(sp->cross[i].on_rise[k].value);
    for (uint32_t k = 0; k < sp->cross[i].n_fall; k++) DEEPER(sp->cross[i].on_fall[k].value);
  }
#undef DEEPER
  return depth;
}

double cdevs__sys_first_sample(const sys_crossing *c, double t) {
  double k = c->sample_start < t ? ceil((t - c->sample_start) / c->sample_interval) : 0.0;
  return c->sample_start + k * c->sample_interval;
}

int cdevs__sys_input(const cdevs__sys_spec *sp, uint32_t k, const cdevs_value *v, double *c, int *order,
                     char *msg, size_t n) {
  const char *name = sp->in_names ? sp->in_names[k] : "?";
  c[0] = c[1] = c[2] = c[3] = 0.0;
  *order = 0;
  if (v->kind == CDEVS_TAYLOR) {
    *order = v->order;
    memcpy(c, v->u.taylor, 4 * sizeof *c);
  } else if (v->kind == CDEVS_REAL) {
    c[0] = v->u.real;
  } else if (v->kind == CDEVS_INT) {
    c[0] = (double)v->u.integer;
  } else {
    snprintf(msg, n, "input '%s' received a %s value, not a number", name, cdevs_kind_name(v->kind));
    return -1;
  }
  if (finite_series(c, *order)) return 0;
  snprintf(msg, n, "input '%s' received a value that is not finite (%g)", name, c[0]);
  return -1;
}

void cdevs__zeno_init(cdevs__zeno *w) { w->last = NAN, w->prev = INFINITY, w->shrink = 0; }

int cdevs__zeno_shrinking(cdevs__zeno *w, double t, double *dt, double *r) {
  double d = t - w->last, prev = w->prev;
  w->last = t;
  if (!(d >= 0.0)) return 0; /* the first */
  w->prev = d;
  w->shrink = d < 0.99 * prev ? w->shrink + 1 : 0;
  *dt = d, *r = d / prev;
  return w->shrink >= 4;
}

int cdevs__zeno_accumulates(cdevs__zeno *w, double t, double dt, double r, double slope, double h,
                            const char *what, double *t_acc, char *msg, size_t n) {
  if (!(h > 0.0) || !(dt * fabs(slope) < 100.0 * h)) return 0;
  w->shrink = 0;
  *t_acc = t + dt * r / (1.0 - r);
  snprintf(msg, n,
           "Zeno behaviour: %s fires at ever shorter intervals (the last %.3g, %.3g of the one before), "
           "accumulating at t = %.10g, where the model has no continuation; results are kept up to here "
           "(--zeno continue goes on regardless)",
           what, dt, r, *t_acc);
  return 1;
}

/* An evaluation failed: an argument outside a function's domain (domain), or a value
 * that is not a finite number in c[0..order] (a model's values must stay finite; a
 * derivative that overflowed while its state grew is named a finite-time blow-up).
 * Reported with the time; out of line, so the hot paths carry no message buffer. */
static __attribute__((noinline, cold)) int failed(cdevs_ctx *cx, const sys_state *s, double t, cdevs__sys_what kind,
                                                   uint32_t i, const double *c, int order, int domain) {
  char what[340], extra[160] = "";
  cdevs__sys_name(s->sp, kind, i, what, sizeof what);
  if (domain) {
    sys_fail(cx, t, "%s: argument outside the domain of a function", what);
    return -1;
  }
  int k = 0;
  while (k < order && isfinite(c[k])) k++;
  if (kind == SYS_DER && isinf(c[k])) {
    double x = cdevs__qvar_x(&s->v[i], s->m, t);
    if (fabs(x) > 1e100 || !isfinite(x))
      snprintf(extra, sizeof extra, " while %s = %g: the solution grows without bound (a finite-time blow-up)",
               s->sp->state_names ? s->sp->state_names[i] : "the state", x);
  }
  sys_fail(cx, t, "%s is %s%s; a model's values must stay finite", what, isnan(c[k]) ? "not a number" : "infinite",
           extra);
  return -1;
}


/* Something every algebraic may read changed: all of them are stale. */
static void algs_stale(sys_state *s) {
  if (++s->stamp == 0) { /* wrapped: no stale entry may look current */
    memset(s->alg_stamp, 0, s->sp->n_algs * sizeof(uint32_t));
    s->stamp = 1;
  }
}

/* Brings the algebraics in roots[0..n) and all they read up to date around t,
 * depth first without recursion (a chain of algebraics may be long). seed selects the
 * plain values (UINT32_MAX) or the seeded copies, ∂/∂q_seed. */
static int ensure_algs_of(cdevs_ctx *cx, sys_state *s, const uint32_t *roots, uint32_t n, double t,
                          uint32_t seed) {
  const cdevs__sys_spec *sp = s->sp;
  if (t != s->algs_t) s->algs_t = t, algs_stale(s);
  int seeded = seed != UINT32_MAX;
  if (seeded && ++s->seed_round == 0) {
    memset(s->seed_stamp, 0, sp->n_algs * sizeof(uint32_t));
    s->seed_round = 1;
  }
  uint32_t *mark = seeded ? s->seed_stamp : s->alg_stamp, cur = seeded ? s->seed_round : s->stamp;
  double (*val)[4] = seeded ? s->alg_seed : s->alg;
  bc_env env = {s->v, s->m, (const double (*)[4])val, s->disc, sp->params, t, NULL, seed, UINT32_MAX, NULL};
  for (uint32_t r = 0; r < n; r++) {
    uint32_t top = 0;
    if (mark[roots[r]] != cur) s->alg_todo[top++] = roots[r];
    while (top) {
      uint32_t a = s->alg_todo[top - 1], pushed = 0;
      if (mark[a] == cur) {
        top--;
        continue;
      }
      for (uint32_t k = s->aa.start[a]; k < s->aa.start[a + 1]; k++)
        if (mark[s->aa.to[k]] != cur) s->alg_todo[top++] = s->aa.to[k], pushed = 1;
      if (pushed) continue; /* its inputs first; a is met again once they are current */
      top--;
      int order = seed == SEED_X ? 0 : seeded ? 1 : s->aord[a];
      int bad = cdevs__bc_eval(&sp->alg[a], &env, order, val[a], s->stack);
      if (__builtin_expect(bad || !finite_series(val[a], order), 0))
        return failed(cx, s, t, SYS_ALG, a, val[a], order, bad);
      mark[a] = cur;
    }
  }
  return 0;
}

/* The same, inline where there is nothing to do (a code that reads no algebraic:
 * most derivatives, evaluated at every step). */
static inline int ensure_algs(cdevs_ctx *cx, sys_state *s, const uint32_t *roots, uint32_t n, double t,
                              uint32_t seed) {
  return n ? ensure_algs_of(cx, s, roots, n, t, seed) : 0;
}

/* How long the series c (order m) of a function beyond its q may be extrapolated
 * (cdevs__refresh_tau), with the quantum max(dqrel·|c0|, dqmin); h: c_m and its time. */
static double refresh_tau(const sys_state *s, const double *c, int m, double *h, double t) {
  return cdevs__refresh_tau(fmax(s->dqrel * fabs(c[0]), s->dqmin), c, m, h, t);
}

/* λ (const) emits algebraic outputs from s->alg: bring them up to date first. */
static void algs_for_outputs(cdevs_ctx *cx, sys_state *s, double t) {
  if (!s->ndirty) return;
  const cdevs__sys_spec *sp = s->sp;
  int m = s->m->order;
  for (uint32_t k = 0; k < s->n_alg_out; k++) {
    if (!s->out_dirty[s->alg_out[k]]) continue; /* not sent now: its refresh stays */
    uint32_t a = sp->out_index[s->alg_out[k]];
    if (ensure_algs(cx, s, &a, 1, t, UINT32_MAX)) return;
    /* An algebraic beyond its series (sent to order m - 1, as q): a function of
     * time, or a product or a nonlinear function of the states' q, is sent again
     * when the terms left out reach the output's quantum; otherwise, while the q it
     * reads stay as they are, it would be extrapolated from its first values for
     * ever (sqrt(0.5 - x) with x' = -1 under QSS2 went on below 0). */
    if (s->aord[a] < m) continue;
    double tn = t + refresh_tau(s, s->alg[a], m, s->ohist[k], t);
    if (tn == t) tn = nextafter(t, INFINITY);
    tfix(s, sp->n_states + sp->n_cross + k, tn);
  }
}

#define LIST(c, i) (&(c).to[(c).start[i]]), ((c).start[(i) + 1] - (c).start[i])

/* LIQSS: ∂ẋ_j/∂q_j exactly, by a seeded order-1 evaluation of the derivative (through
 * the algebraics it reads). Kept <= 0: only a stiff direction is treated implicitly.
 * Where the evaluation fails, a stays (an algebraic's failure is reported). */
static void exact_a(cdevs_ctx *cx, sys_state *s, uint32_t j, double t) {
  const cdevs__sys_spec *sp = s->sp;
  if (ensure_algs(cx, s, LIST(s->da, j), t, j)) return;
  bc_env env = {s->v, s->m, (const double (*)[4])s->alg_seed, s->disc, sp->params, t, NULL, j, UINT32_MAX, NULL};
  double d[4];
  if (cdevs__bc_eval(&sp->der[j], &env, 1, d, s->stack) || !isfinite(d[1])) return;
  s->v[j].a = d[1] < 0.0 ? d[1] : 0.0;
}

/* Derivative j's series around t into d (d[3]: its partial for a fused LIQSS a). */
static inline __attribute__((always_inline)) int eval_der(cdevs_ctx *cx, sys_state *s, uint32_t j, double t,
                                                          double *d) {
  const cdevs__sys_spec *sp = s->sp;
  if (ensure_algs(cx, s, LIST(s->da, j), t, UINT32_MAX)) return -1;
  bc_env env = {s->v, s->m, (const double (*)[4])s->alg, s->disc, sp->params, t, NULL, UINT32_MAX, j, NULL};
  int bad = (s->self_dep[j] == SELF_FUSED ? cdevs__bc_eval_dual : cdevs__bc_eval)(&sp->der[j], &env, s->dord[j],
                                                                                  d, s->stack);
  /* The value (one that is finite while a coefficient is not makes x's polynomial
   * infinite: state_event finds q so at the next requantization). */
  if (__builtin_expect(bad || !isfinite(d[0]), 0)) return failed(cx, s, t, SYS_DER, j, d, s->dord[j], bad);
  return 0;
}

/* State j's new derivative d (eval_der's) from t on: its next time. */
static inline __attribute__((always_inline)) void apply_der(sys_state *s, uint32_t j, double t, const double *d) {
  int m = s->m->order;
  /* Up to one coefficient more than x's polynomial takes, for the refresh time (see
   * xr), where the derivative has one. */
  s->v[j].xr = s->dord[j] == m && isfinite(d[m]) ? cdevs__div_small(d[m], m + 1) : 0.0;
  if (s->self_dep[j] == SELF_FUSED && isfinite(d[3])) /* as exact_a: only a stiff direction is treated implicitly */
    s->v[j].a = d[3] < 0.0 ? d[3] : 0.0;
  s->v[j].t_der = t;
  cdevs__qvar_set_derivative(&s->v[j], s->m, t, d, m - 1);
}

static int update_der(cdevs_ctx *cx, sys_state *s, uint32_t j, double t) {
  double d[4];
  if (eval_der(cx, s, j, t, d)) return -1;
  apply_der(s, j, t, d);
  tfix(s, j, s->v[j].tn);
  return 0;
}

/* The crossing function around t, order m. */
static int eval_cross(cdevs_ctx *cx, sys_state *s, uint32_t z, double t, double *f) {
  const cdevs__sys_spec *sp = s->sp;
  if (ensure_algs(cx, s, LIST(s->za, z), t, UINT32_MAX)) return -1;
  bc_env env = {s->v, s->m, (const double (*)[4])s->alg, s->disc, sp->params, t, NULL, UINT32_MAX, UINT32_MAX, NULL};
  int bad = cdevs__bc_eval(&sp->cross[z].f, &env, s->zord[z], f, s->stack);
  if (__builtin_expect(!bad && finite_series(f, s->zord[z]), 1)) return 0;
  return failed(cx, s, t, SYS_CROSS, z, f, s->zord[z], bad);
}

/* Crossing z's function at t on the states' x rather than q (its value): where the
 * states really are. Nonzero on failure (reported). */
static int cross_on_x(cdevs_ctx *cx, sys_state *s, uint32_t z, double t, double *v) {
  const cdevs__sys_spec *sp = s->sp;
  if (ensure_algs(cx, s, LIST(s->za, z), t, SEED_X)) return -1;
  bc_env env = {s->v, s->m, (const double (*)[4])s->alg_seed, s->disc, sp->params, t, NULL, SEED_X, UINT32_MAX, NULL};
  double f[4];
  int bad = cdevs__bc_eval(&sp->cross[z].f, &env, 0, f, s->stack);
  if (__builtin_expect(bad || !isfinite(f[0]), 0)) return failed(cx, s, t, SYS_CROSS, z, f, 0, bad);
  *v = f[0];
  return 0;
}

/* Crossing z's next time from its series f around t, on side zsign: the root where
 * it leaves the side (past -zsign·band: the hysteresis), or sooner, where the series of a
 * function of time runs out, an evaluation again (zrefresh). */
static inline __attribute__((always_inline)) void schedule_cross(sys_state *s, uint32_t z, double t, const double *f,
                                                                  double band) {
  int order = s->zord[z];
  double tn = s->zsign[z] == 0 ? INFINITY : t + cdevs__next_cross(f, order, -s->zsign[z] * band, s->zsign[z]);
  s->zrefresh[z] = 0;
  if (s->zbeyond[z]) {
    double tr = t + refresh_tau(s, f, order, s->zhist[z], t);
    if (tr == t) tr = nextafter(t, INFINITY);
    if (tr < tn) tn = tr, s->zrefresh[z] = 1;
  }
  tfix(s, s->sp->n_states + z, tn);
}

/* Crossing z, on no side yet (its function has been exactly 0), heads to side `now`
 * with its series f: whether that fires its handler. Only a when's crossing, whose
 * condition for that direction is strict, and which is at 0 at the start or has been
 * since (a function at f != 0 at the start is on its side: no event, as Modelica's
 * when does not fire for a condition that holds at the start). */
static int leaves_zero(const sys_state *s, uint32_t z, int now, const double *f) {
  const sys_crossing *c = &s->sp->cross[z];
  if (c->side_disc || c->sample_interval > 0.0) return 0;
  if (!(now > 0 ? c->rise_strict && c->n_rise : c->fall_strict && c->n_fall)) return 0;
  return f[0] == 0.0 || s->started;
}

/* Crossing z's plan from its function at t; requant: what moved it is a state's
 * requantization (not a reset, not a handler's assignment). */
static int plan_cross(cdevs_ctx *cx, sys_state *s, uint32_t z, double t, int requant) {
  double f[4];
  if (eval_cross(cx, s, z, t, f)) return -1;
  uint32_t item = s->sp->n_states + z;
  int order = s->zord[z], now = cdevs__side(f, order);
  s->zjump[z] = 0, s->zrefresh[z] = 0;
  if (z == s->cur_cross) {
    /* The crossing whose handler is running changed what its own function reads
     * (a diode whose resistance sets the current it watches): the new value's
     * side becomes the reference, as QSS Solver does, instead of firing again. */
    s->cur_touched = 1;
    if (now != 0) s->zsign[z] = (int8_t)now;
  }
  double h = s->zhyst[z], level = -s->zsign[z] * h;
  double g[4] = {f[0] - level, f[1], f[2], f[3]};
  int beyond = cdevs__side(g, order);
  if (s->zsign[z] != 0 && beyond == -s->zsign[z] && requant && !s->zself[z]) {
    /* Past the level only because a requantization moved q (q jumps to x; LIQSS
     * places it up to a quantum off x): a crossing only if x is past it too, by
     * more than x was short of the level when the crossing last fired on q (zlag:
     * it fired while x was still on the other side, and a handler that slowed x
     * let q run ahead). Otherwise q's jump is no crossing: the pendulum of ARGESIM
     * C7, lengthened at a crossing of its pin, found two more within a
     * microsecond. Not for a crossing whose handler changes what its function
     * reads (an ideal diode switching its own current): the side its handler
     * leaves it on is its reference (see the cur_cross case above). */
    double vx;
    if (cross_on_x(cx, s, z, t, &vx)) return -1;
    double band = fmax(h, s->zlag[z]);
    if (!(-s->zsign[z] * vx > band)) { /* not yet: q's series moved to x's value */
      double gx[4] = {vx, f[1], f[2], f[3]};
      schedule_cross(s, z, t, gx, band);
      return 0;
    }
  }
  if (s->zsign[z] != 0 && beyond == -s->zsign[z]) {
    tfix(s, item, t); /* the function jumped past the level (a discrete changed): now */
    s->zjump[z] = 1;
  } else if (s->zsign[z] == 0 && now != 0 && s->sp->cross[z].side_disc &&
             s->disc[s->sp->cross[z].side_disc - 1] != now) {
    /* A relation whose function has been exactly 0 (its side 0: a >= b held, a > b
     * did not) leaves 0: its value changes, an event now, whose handler takes the
     * new side. (It started at 0 before any slope was known, as a bob handed over
     * onto the circle of its thread: `x^2 + y^2 >= L^2` then held, and went on
     * holding inside the circle, with status 0.) */
    s->zsign[z] = (int8_t)-now;
    tfix(s, item, t);
    s->zjump[z] = 1;
  } else if (s->zsign[z] == 0 && now != 0 && leaves_zero(s, z, now, f)) {
    /* A when's function at exactly 0 at the start (or since), leaving 0 for the side
     * where its strict condition holds (s > 0 heading up): the condition becomes
     * true, an event now (Modelica; the cuk converter's diode, s = 0 at the start
     * and rising, stayed off until the switch opened, 8.6 ns late, and its currents
     * were 2 A off thereafter). */
    s->zsign[z] = (int8_t)-now;
    tfix(s, item, t);
    s->zjump[z] = 1;
  } else {
    if (s->zsign[z] == 0) s->zsign[z] = (int8_t)now;
    schedule_cross(s, z, t, f, h);
  }
  return 0;
}

static void mark_output(sys_state *s, uint32_t o) {
  if (!s->out_dirty[o]) s->out_dirty[o] = 1, s->dirty[s->ndirty++] = o;
}

/* Variable i (of the kind whose outputs `by` lists) changed: the outputs it moves
 * are to be sent. */
static void mark_outputs(sys_state *s, const csr *by, uint32_t i) {
  for (uint32_t k = by->start[i]; k < by->start[i + 1]; k++) mark_output(s, by->to[k]);
}

static int after_state_change(cdevs_ctx *cx, sys_state *s, uint32_t i, double t, int requant) {
  /* The derivatives a few at a time, then their next times: evaluations read q
   * only, which applying a derivative leaves alone, and without the tree's
   * walks in between they overlap (advection: 3% of the time). */
  for (uint32_t k = s->sd.start[i], end = s->sd.start[i + 1]; k < end;) {
    double d[4][4];
    uint32_t n = end - k < 4 ? end - k : 4;
    for (uint32_t c = 0; c < n; c++)
      if (eval_der(cx, s, s->sd.to[k + c], t, d[c])) return -1;
    for (uint32_t c = 0; c < n; c++) apply_der(s, s->sd.to[k + c], t, d[c]);
    for (uint32_t c = 0; c < n; c++) tfix(s, s->sd.to[k + c], s->v[s->sd.to[k + c]].tn);
    k += n;
  }
  for (uint32_t k = s->sz.start[i]; k < s->sz.start[i + 1]; k++)
    if (plan_cross(cx, s, s->sz.to[k], t, requant)) return -1;
  mark_outputs(s, &s->so, i);
  return 0;
}

/* after_state_change for mate, requantized with `first` (whose readers have just been
 * updated, from both new q): only what reads mate alone. */
static int after_mate_change(cdevs_ctx *cx, sys_state *s, uint32_t mate, uint32_t first, double t) {
  const csr *by[2] = {&s->sd, &s->sz};
  for (int kind = 0; kind < 2; kind++)
    for (uint32_t k = by[kind]->start[mate]; k < by[kind]->start[mate + 1]; k++) {
      uint32_t r = by[kind]->to[k], done = 0;
      for (uint32_t q = by[kind]->start[first]; q < by[kind]->start[first + 1] && !done; q++) done = by[kind]->to[q] == r;
      if (!done && (kind ? plan_cross(cx, s, r, t, 1) : update_der(cx, s, r, t))) return -1;
    }
  mark_outputs(s, &s->so, mate);
  return 0;
}

/* A handler sets discrete d to v: what reads it is listed to be updated once the
 * handler is done (hdlist, hzlist), and its outputs marked. */
static void set_disc(sys_state *s, uint32_t d, double v) {
  s->disc[d] = v;
  algs_stale(s);
  for (uint32_t k = s->dd.start[d]; k < s->dd.start[d + 1]; k++) {
    uint32_t j = s->dd.to[k];
    if (s->hdmark[j] != s->hstamp) s->hdmark[j] = s->hstamp, s->hdlist[s->nhd++] = j;
  }
  for (uint32_t k = s->dz.start[d]; k < s->dz.start[d + 1]; k++) {
    uint32_t z = s->dz.to[k];
    if (s->hzmark[z] != s->hstamp) s->hzmark[z] = s->hstamp, s->hzlist[s->nhz++] = z;
  }
  mark_outputs(s, &s->dso, d);
}

/* Discrete assignments begin: nothing listed as stale yet (set_disc lists). */
static void changes_begin(sys_state *s) {
  s->nhd = s->nhz = 0;
  if (++s->hstamp == 0) { /* marks start at 0; after 2^32 handlers, again */
    memset(s->hdmark, 0, s->sp->n_states * sizeof(uint32_t));
    memset(s->hzmark, 0, s->sp->n_cross * sizeof(uint32_t));
    s->hstamp = 1;
  }
}

static int changes_end(cdevs_ctx *cx, sys_state *s, double t);

int cdevs__sys_self_changing(const cdevs__sys_spec *sp, const cdevs_alloc *a, uint8_t *zself) {
  uint32_t na = sp->n_algs ? sp->n_algs : 1;
  uint32_t *todo = a->realloc(a->ud, NULL, 0, na * sizeof *todo);
  /* seen[a] == z + 1: algebraic a reached for crossing z (a stamp, not a clearing per
     crossing, which made this crossings x algebraics) */
  uint32_t *seen = a->realloc(a->ud, NULL, 0, na * sizeof *seen);
  int rc = todo && seen ? 0 : -1;
  if (seen) memset(seen, 0, na * sizeof *seen);
  for (uint32_t z = 0; !rc && z < sp->n_cross; z++) {
    const sys_crossing *c = &sp->cross[z];
    uint32_t top = 0;
    const bc_code *code = &c->f;
    zself[z] = 0;
    for (;;) { /* the function's code, then each algebraic it reaches, once */
      for (uint32_t i = 0; i < code->n && !zself[z]; i++) {
        const bc_ins *in = &code->ins[i];
        if (in->op == BC_ALG && seen[in->arg] != z + 1) seen[in->arg] = z + 1, todo[top++] = in->arg;
        for (int side = 0; side < 2 && !zself[z]; side++) {
          const sys_action *acts = side ? c->on_fall : c->on_rise;
          for (uint32_t k = 0; k < (side ? c->n_fall : c->n_rise); k++)
            if ((acts[k].reinit == ACT_REINIT && BC_READS_STATE(in->op) && in->arg == acts[k].target) ||
                (acts[k].reinit == ACT_ASSIGN && (in->op == BC_DISC || in->op == BC_PRE) && in->arg == acts[k].target))
              zself[z] = 1;
        }
      }
      if (!top || zself[z]) break;
      code = &sp->alg[todo[--top]];
    }
  }
  if (todo) a->realloc(a->ud, todo, na * sizeof *todo, 0);
  if (seen) a->realloc(a->ud, seen, na * sizeof *seen, 0);
  return rc;
}

int cdevs__sys_run_actions(const sys_action *acts, uint32_t n, const sys_actions_ops *ops, void *ud,
                           const double *disc, double *pre, cdevs__sys_switching *sw, cdevs_ctx *cx,
                           const void *state) {
  for (uint32_t a = 0; a < n; a++) {
    const sys_action *ac = &acts[a];
    if (ac->reinit == ACT_JUMP) {
      a = ac->target - 1;
      continue;
    }
    if (ac->reinit == ACT_SWITCH) {
      if (!sw || !sw->switch_to) { /* never go on as if it had switched */
        cdevs_ctx_fail(cx, "a 'switch to' of this model ran, but the model was not added as one that switches");
        return -1;
      }
      if (!sw->switched) { /* (one switch an instant: the first one's) */
        sw->switched = 1;
        if (sw->switch_to(cx, state, sw->ud, ac->target)) return -1;
      }
      break; /* a switch ends the handler */
    }
    double v;
    if (ops->value(ud, ac, &v)) return -1;
    if (ac->reinit == ACT_HANDOVER) {
      if (sw && sw->handover) sw->handover(sw->ud, ac->target, v);
    } else if (ac->reinit == ACT_JUMP_UNLESS) {
      if (v == 0.0) a = ac->target - 1;
    } else if (ac->reinit == ACT_REINIT) {
      ops->reinit(ud, ac->target, v);
    } else {
      ops->assign(ud, ac->target, v);
    }
  }
  /* The values before the event are those after it from here on. */
  for (uint32_t a = 0; a < n; a++)
    if (acts[a].reinit == ACT_ASSIGN) pre[acts[a].target] = disc[acts[a].target];
  return 0;
}

/* The QSS system's side of a handler (cdevs__sys_run_actions). */
typedef struct qss_handler {
  cdevs_ctx *cx;
  sys_state *s;
  double t;
} qss_handler;

static int qh_value(void *ud, const sys_action *ac, double *v) {
  qss_handler *h = ud;
  sys_state *s = h->s;
  /* A value handed over to another class is its start: taken on the states' x, not
   * on q, which lags by up to a quantum (started from q, a thread just gone slack in
   * the string pendulum carried a force of up to a quantum the wrong way, and went
   * taut again at once under QSS2). */
  uint32_t seed = ac->reinit == ACT_HANDOVER ? SEED_X : UINT32_MAX;
  for (uint32_t i = 0; ac->value.reads_alg && i < ac->value.n; i++) /* the algebraics it reads, and theirs */
    if (ac->value.ins[i].op == BC_ALG && ensure_algs(h->cx, s, &ac->value.ins[i].arg, 1, h->t, seed)) return -1;
  bc_env env = {s->v,  s->m, (const double (*)[4])(seed == SEED_X ? s->alg_seed : s->alg), s->disc, s->sp->params, h->t,
                &s->rng, seed, UINT32_MAX, s->pre};
  double val[4];
  /* Values of states inside handlers are x, not q: evaluate with order 0 on q
   * after bringing q to x for the states the action reads would be costlier; QSS
   * Solver evaluates handlers on q as well. */
  if (cdevs__bc_eval(&ac->value, &env, 0, val, s->stack)) return failed(h->cx, s, h->t, SYS_HANDLER, 0, val, 0, 1);
  if (!isfinite(val[0])) return failed(h->cx, s, h->t, SYS_HANDLER, 0, val, 0, 0);
  *v = val[0];
  return 0;
}

static void qh_reinit(void *ud, uint32_t i, double v) {
  qss_handler *h = ud;
  cdevs__qvar_reset(&h->s->v[i], h->s->m, h->t, v);
  algs_stale(h->s);
  tfix(h->s, i, h->t);
  h->s->reinits++;
}

static void qh_assign(void *ud, uint32_t d, double v) {
  qss_handler *h = ud;
  if (h->s->disc[d] != v) set_disc(h->s, d, v); /* (what reads it is updated once, at changes_end) */
}

static int run_handler(cdevs_ctx *cx, sys_state *s, const sys_action *acts, uint32_t n, double t) {
  static const sys_actions_ops ops = {qh_value, qh_reinit, qh_assign};
  qss_handler h = {cx, s, t};
  changes_begin(s);
  if (cdevs__sys_run_actions(acts, n, &ops, &h, s->disc, s->pre, &s->sw, cx, s)) return -1;
  if (s->sw.switched) return 0; /* passive until it is removed, at the end of the instant */
  return changes_end(cx, s, t);
}

/* Discrete assignments end: what they made stale is brought up to date. */
static int changes_end(cdevs_ctx *cx, sys_state *s, double t) {
  const cdevs__sys_spec *sp = s->sp;
  /* The relations of equations that read what the assignments changed take their
   * new sides now, before anything reads them (if g > 0 then x/g else 0 with g := 0
   * must not divide by the new g); a side they change may move others, which join
   * the list. */
  for (uint32_t k = 0; k < s->nhz; k++) {
    uint32_t z = s->hzlist[k], d = sp->cross[z].side_disc;
    if (!d) continue;
    double f[4];
    if (eval_cross(cx, s, z, t, f)) return -1;
    int side = cdevs__side(f, s->zord[z]);
    if (side != 0 && side != s->disc[d - 1]) {
      s->zsign[z] = (int8_t)side;
      set_disc(s, d - 1, side);
    }
  }
  /* Then what the assignments made stale, each once and with all of them made (a
   * switch that sets both a resistance and a flag is one change, not two). */
  for (uint32_t k = 0; k < s->nhd; k++) {
    uint32_t j = s->hdlist[k];
    if (update_der(cx, s, j, t)) return -1;
    /* LIQSS: a mode change (a switch's resistance) changes ∂ẋ/∂q, which the fused
     * evaluation has just taken; otherwise it is taken here (a secant across the
     * switch would measure the jump). q stays where it was placed, as in QSS
     * Solver, until x reaches it or leaves its band: requantizing at once placed
     * it, in each mode in turn, on the side of an ideal diode's threshold that
     * switches it back, a zero-time loop (QSS Solver's buck_term). */
    if (s->m->linear_implicit && s->self_dep[j] == SELF_DEP) exact_a(cx, s, j, t);
  }
  for (uint32_t k = 0; k < s->nhz; k++)
    if (plan_cross(cx, s, s->hzlist[k], t, 0)) return -1;
  return 0;
}

/* Input k (read as state n_states + k) holds the polynomial c[0..order] from t on
 * (c NULL: the constant c0), to the degree of q (the method's order - 1, as an
 * integrator block reads its input), with x equal to q: its value is what was sent. */
static void set_input(sys_state *s, uint32_t k, double c0, const double *c, int order, double t) {
  cdevs__qvar *v = &s->v[s->sp->n_states + k];
  int deg = s->m->order - 1;
  memset(v, 0, sizeof *v);
  v->q[0] = c ? c[0] : c0;
  for (int j = 1; c && j <= order && j <= deg; j++) v->q[j] = c[j];
  memcpy(v->x, v->q, sizeof v->x);
  v->tq = v->tx = t;
  v->tn = INFINITY;
}

/* ---- The atomic model ------------------------------------------------------------------ */

/*
 * The algebraic outputs each state (or input) and discrete moves, directly or through
 * other algebraics, as (variable, output) pairs into ps[0] and ps[1]. An algebraic
 * output is sent again only when something it reads has changed: re-sending every one
 * after any change sent th = theta again at each event of an input th does not read,
 * so a block between th and that input (a gain, a saturation: no instantaneous loop,
 * as lang_check_loops rightly finds) fed a zero-time loop, and a comparator on th got
 * the value at its own crossing again, off the level by the rounding of the instant.
 * 0, or -1 out of memory.
 */
static int alg_out_readers(sys_state *s, pairs *ps) {
  const cdevs__sys_spec *sp = s->sp;
  uint32_t n = s->n_alg_out, nv[3] = {sp->n_states + sp->n_in, sp->n_discs, sp->n_discs};
  static const int ops[3] = {BC_STATE, BC_DISC, BC_PRE};
  if (!n) return 0;
  const bc_code **codes = tmp_new(s, n * sizeof *codes);
  if (!codes) return -1;
  for (uint32_t k = 0; k < n; k++) codes[k] = &sp->alg[sp->out_index[s->alg_out[k]]];
  csr direct = {0}, by[3] = {{0}, {0}, {0}};
  int rc = direct_algs(s, &direct, codes, n);
  for (int w = 0; w < 3 && !rc; w++) rc = build_csr(s, &by[w], nv[w], codes, n, ops[w], &direct);
  for (int w = 0; w < 3 && !rc; w++)
    for (uint32_t v = 0; v < nv[w] && !rc; v++)
      for (uint32_t j = by[w].start[v]; j < by[w].start[v + 1] && !rc; j++)
        rc = pairs_push(s, &ps[w > 0], v, s->alg_out[by[w].to[j]]);
  for (int w = 0; w < 3; w++) free_csr(s->alloc, &by[w], nv[w]);
  free_csr(s->alloc, &direct, n);
  tmp_free(s, codes, n * sizeof *codes);
  return rc;
}

/* Points the state's arrays into the block at base, one after another; returns the
 * bytes they take. With base NULL it only measures (the tree's alignment counted at
 * its most). */
static size_t layout(sys_state *s, unsigned char *base, uint32_t depth) {
  const cdevs__sys_spec *sp = s->sp;
  uint32_t ns = sp->n_states, nz = sp->n_cross, nitems = ns + nz;
  for (uint32_t o = 0; o < sp->n_out; o++) nitems += sp->out_kind[o] == 1;
  s->nitems = nitems;
  size_t off = 0;
  s->v = take(base, &off, (ns + sp->n_in) * sizeof(cdevs__qvar)); /* the inputs after the states */
  s->alg = take(base, &off, sp->n_algs * sizeof(double[4]));
  s->disc = take(base, &off, sp->n_discs * sizeof(double));
  s->pre = take(base, &off, sp->n_discs * sizeof(double));
  s->stack = take(base, &off, depth * sizeof(double[4]));
  s->zsign = take(base, &off, nz);
  s->zjump = take(base, &off, nz);
  s->zfired0 = take(base, &off, nz);
  s->zquiet = take(base, &off, nz);
  s->zhyst = take(base, &off, nz * sizeof(double));
  s->zlag = take(base, &off, nz * sizeof(double));
  s->zself = take(base, &off, nz);
  /* Node 0 at 16 bytes past a cache line: every pair of siblings (2i+1, 2i+2, 16
   * bytes each) then shares one line, where otherwise every other pair straddles
   * two. */
  off += base ? (64 - ((uintptr_t)(base + off) + 16) % 64) % 64 : 64;
  s->tree = take(base, &off, (nitems ? 2 * (size_t)nitems - 1 : 0) * sizeof(tnode));
  s->self_dep = take(base, &off, ns);
  s->dord = take(base, &off, ns);
  s->zord = take(base, &off, nz);
  s->aord = take(base, &off, sp->n_algs);
  s->dbeyond = take(base, &off, ns);
  s->ohist = take(base, &off, (nitems - ns - nz) * sizeof(double[2]));
  s->out_dirty = take(base, &off, sp->n_out);
  s->alg_out = take(base, &off, sp->n_out * sizeof(uint32_t));
  s->dirty = take(base, &off, sp->n_out * sizeof(uint32_t));
  s->alg_stamp = take(base, &off, sp->n_algs * sizeof(uint32_t));
  s->seed_stamp = take(base, &off, sp->n_algs * sizeof(uint32_t));
  s->alg_todo = take(base, &off, sp->n_algs * sizeof(uint32_t));
  s->alg_seed = take(base, &off, sp->n_algs * sizeof(double[4]));
  s->hdlist = take(base, &off, ns * sizeof(uint32_t));
  s->hdmark = take(base, &off, ns * sizeof(uint32_t));
  s->hzlist = take(base, &off, nz * sizeof(uint32_t));
  s->hzmark = take(base, &off, nz * sizeof(uint32_t));
  s->zbeyond = take(base, &off, nz);
  s->zrefresh = take(base, &off, nz);
  s->zhist = take(base, &off, nz * sizeof(double[2]));
  s->zwatch = take(base, &off, nz * sizeof(cdevs__zeno));
  s->in_seen = take(base, &off, sp->n_in);
  return off;
}

static int sys_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs__sys_arg *a = arg;
  const cdevs__sys_spec *sp = a->spec;
  sys_state *s = state;
  s->sp = sp;
  s->m = cdevs__qss_method_get(a->method ? a->method : CDEVS_QSS3);
  s->secant_a = a->secant_a;
  s->cur_cross = UINT32_MAX; /* no handler runs during the start (plan_cross) */
  s->zeno_continue = a->zeno_continue;
  s->dqrel = a->dqrel, s->dqmin = a->dqmin;
  s->sw = a->sw, s->sw.switched = 0;
  s->stall_t = NAN;
  s->alloc = cdevs_ctx_alloc(cx);
  s->t = cdevs_ctx_time(cx);
  if (!s->m) {
    cdevs_ctx_fail(cx, "unknown QSS method %d", (int)a->method);
    return CDEVS_EINVAL;
  }
  uint32_t ns = sp->n_states, nz = sp->n_cross;
  /* The deepest stack any code needs. */
  uint32_t depth = cdevs__sys_stack_depth(sp);
  /* One block for every array: measured by a pass of layout without it, then
   * carved by a second pass over it, so the two cannot disagree. */
  size_t bytes = layout(s, NULL, depth);
  s->block = s->alloc->realloc(s->alloc->ud, NULL, 0, bytes);
  if (!s->block) return CDEVS_ENOMEM;
  memset(s->block, 0, bytes);
  s->bytes = bytes;
  (void)layout(s, s->block, depth);
  s->stamp = 1; /* alg_stamp starts at 0: every algebraic stale */
  /* The codes of the derivatives, crossing functions and algebraics, by pointer. */
  uint32_t nmax = ns > nz ? ns : nz;
  if (sp->n_algs > nmax) nmax = sp->n_algs;
  const bc_code **codes = tmp_new(s, nmax * sizeof *codes);
  if (!codes) return CDEVS_ENOMEM;
  int bad = 0;
  for (uint32_t i = 0; i < sp->n_algs; i++) codes[i] = &sp->alg[i];
  bad = bad || direct_algs(s, &s->aa, codes, sp->n_algs);
  for (uint32_t i = 0; i < ns; i++) codes[i] = &sp->der[i];
  bad = bad || direct_algs(s, &s->da, codes, ns) ||
        build_csr(s, &s->sd, ns + sp->n_in, codes, ns, BC_STATE, &s->da) ||
        build_csr(s, &s->dd, sp->n_discs, codes, ns, BC_DISC, &s->da);
  for (uint32_t z = 0; z < nz; z++) codes[z] = &sp->cross[z].f;
  bad = bad || direct_algs(s, &s->za, codes, nz) ||
        build_csr(s, &s->sz, ns + sp->n_in, codes, nz, BC_STATE, &s->za) ||
        build_csr(s, &s->dz, sp->n_discs, codes, nz, BC_DISC, &s->za);
  tmp_free(s, codes, nmax * sizeof *codes);
  if (bad) return CDEVS_ENOMEM;
  for (uint32_t i = 0; i < ns; i++)
    for (uint32_t k = s->sd.start[i]; k < s->sd.start[i + 1]; k++)
      if (s->sd.to[k] == i) s->self_dep[i] = SELF_DEP;
  if (s->m->pairs) {
    pairs pp = {0};
    int bad_pc = 0;
    for (uint32_t i = 0; i < ns && !bad_pc; i++)
      for (uint32_t k = s->sd.start[i]; k < s->sd.start[i + 1] && !bad_pc; k++) {
        uint32_t j = s->sd.to[k];
        for (uint32_t r = s->sd.start[j]; j != i && r < s->sd.start[j + 1]; r++)
          if (s->sd.to[r] == i) {
            bad_pc = pairs_push(s, &pp, i, j);
            break;
          }
      }
    bad_pc = bad_pc || pairs_to_csr(s, &s->pc, ns, &pp);
    pairs_free(s, &pp);
    if (bad_pc) return CDEVS_ENOMEM;
  }
  /* Evaluation orders (degrees in τ capped at m); for the crossings beyond degree m
   * (the series they are planned on is not their function), the degrees again,
   * capped at m + 1. */
  int *dst = tmp_new(s, depth * sizeof *dst), m = s->m->order;
  uint8_t *adeg = tmp_new(s, sp->n_algs);
  if (!dst || !adeg) return tmp_free(s, dst, depth * sizeof *dst), tmp_free(s, adeg, sp->n_algs), CDEVS_ENOMEM;
  memset(adeg, 0, sp->n_algs);
  cdevs__sys_alg_degrees(sp, m - 1, m, s->aord, dst);
  cdevs__sys_alg_degrees(sp, m - 1, m + 1, adeg, dst);
  for (uint32_t i = 0; i < ns; i++) {
    s->dord[i] = (uint8_t)cdevs__bc_degree(&sp->der[i], m - 1, m, s->aord, dst);
    s->dbeyond[i] = s->dord[i] == m;
  }
  for (uint32_t z = 0; z < nz; z++) {
    s->zord[z] = (uint8_t)cdevs__bc_degree(&sp->cross[z].f, m - 1, m, s->aord, dst);
    s->zbeyond[z] = cdevs__bc_degree(&sp->cross[z].f, m - 1, m + 1, adeg, dst) > m;
    s->zhist[z][0] = 0.0, s->zhist[z][1] = NAN;
    cdevs__zeno_init(&s->zwatch[z]);
  }
  tmp_free(s, adeg, sp->n_algs);
  tmp_free(s, dst, depth * sizeof *dst);
  /* LIQSS with the exact a: where the derivative's evaluation can carry the partial
   * (with the refresh coefficient, at most order 2), it does, and no requantization
   * needs an evaluation of its own. */
  for (uint32_t i = 0; i < ns; i++)
    if (s->self_dep[i] && s->m->linear_implicit && !s->secant_a && sp->der[i].dual_ok && s->dord[i] <= 2)
      s->self_dep[i] = SELF_FUSED;
  memcpy(s->disc, sp->disc0, sp->n_discs * sizeof(double));
  memcpy(s->pre, sp->disc0, sp->n_discs * sizeof(double));
  for (uint32_t i = 0; i < ns; i++) {
    cdevs__qvar_init(&s->v[i], s->m, a->x0 ? a->x0[i] : sp->x0[i], s->dqrel, s->dqmin, s->t);
    /* With the exact a, no step measures a secant: a state whose derivative does not
     * read it keeps a = 0 (its requantization may coincide with another state's). */
    s->v[i].a_exact = !s->secant_a;
  }
  if (a->t_end > s->t)
    for (uint32_t i = 0; i < ns; i++) s->v[i].t_end = a->t_end;
  for (uint32_t k = 0; k < sp->n_in; k++) set_input(s, k, sp->in0 ? sp->in0[k] : 0.0, NULL, 0, s->t);
  s->t0 = s->t;
  /* Every item at +inf, so each inner node holds the lower-numbered of its
   * children's items (the leaves wrap round two levels: not always the left one). */
  uint32_t nitems = s->nitems;
  for (uint32_t i = 0; i < nitems; i++) s->tree[nitems - 1 + i] = (tnode){okey(INFINITY), i};
  for (uint32_t p = nitems ? nitems - 1 : 0; p-- > 0;)
    s->tree[p] = s->tree[2 * p + 1].i < s->tree[2 * p + 2].i ? s->tree[2 * p + 1] : s->tree[2 * p + 2];
  for (uint32_t k = 0; k < nitems - ns - nz; k++) s->ohist[k][0] = 0.0, s->ohist[k][1] = NAN; /* never sent */
  /* The relations of equations start on the side their functions are on, or are
   * heading to from 0 (the crossing's own first side, as plan_cross takes it). In
   * the order they were made, so one that reads another's finds it set. */
  for (uint32_t z = 0; z < nz; z++) {
    if (!sp->cross[z].side_disc) continue;
    double f[4];
    if (eval_cross(cx, s, z, s->t, f)) return CDEVS_EMODEL;
    s->disc[sp->cross[z].side_disc - 1] = cdevs__side(f, s->zord[z]);
    algs_stale(s);
  }
  /* Derivatives and crossings from the initial values (q = x0). */
  for (uint32_t i = 0; i < ns; i++) {
    if (update_der(cx, s, i, s->t)) return CDEVS_EMODEL;
    /* The initial q already equals x0: the first event is the next requantization. */
    /* LIQSS with the secant: its first a, before any step to measure one, exact. */
    if (s->m->linear_implicit && s->secant_a && s->self_dep[i]) exact_a(cx, s, i, s->t);
  }
  /* Crossing hysteresis, as QSS Solver: a tenth of the smallest ΔQmin among the
   * states the function reads (0 for functions of time and discretes only). It
   * stops a crossing whose handler moves the function back across zero (an ideal
   * diode in a sliding regime) from firing at every round-off. */
  for (uint32_t i = 0; i < ns; i++)
    for (uint32_t k = s->sz.start[i]; k < s->sz.start[i + 1]; k++) {
      uint32_t z = s->sz.to[k];
      double h = s->dqmin / 10.0;
      if (s->zhyst[z] == 0.0 || h < s->zhyst[z]) s->zhyst[z] = h;
    }
  /* Samples start at their first instant not before now, and fire there (zsign -1:
   * f = time - next reaching 0 from below, now included). */
  for (uint32_t z = 0; z < nz; z++) {
    const sys_crossing *c = &sp->cross[z];
    if (!(c->sample_interval > 0.0)) continue;
    s->disc[c->sample_disc] = cdevs__sys_first_sample(c, s->t);
    s->zsign[z] = -1;
  }
  for (uint32_t z = 0; z < nz; z++)
    if (plan_cross(cx, s, z, s->t, 0)) return CDEVS_EMODEL;
  pairs ps[2] = {{0}, {0}};
  int bad_out = 0;
  for (uint32_t o = 0; o < sp->n_out; o++) {
    if (sp->out_kind[o] == 1) s->alg_out[s->n_alg_out++] = o;
    else bad_out |= pairs_push(s, &ps[sp->out_kind[o] == 2], sp->out_index[o], o);
    mark_output(s, o); /* every output is sent at the start */
  }
  bad_out = bad_out || alg_out_readers(s, ps) || pairs_to_csr(s, &s->so, ns + sp->n_in, &ps[0]) ||
            pairs_to_csr(s, &s->dso, sp->n_discs, &ps[1]);
  pairs_free(s, &ps[0]), pairs_free(s, &ps[1]);
  if (bad_out) return CDEVS_ENOMEM;
  /* A crossing is quiet when its handlers neither reinit a state that is an output
   * nor assign a discrete that is one (with no algebraic outputs, nothing else
   * sends): sys_int may take it without a transition of its own. */
  for (uint32_t z = 0; z < nz; z++) {
    const sys_crossing *c = &sp->cross[z];
    int quiet = 1;
    for (int side = 0; side < 2; side++) {
      const sys_action *acts = side ? c->on_fall : c->on_rise;
      for (uint32_t k = 0; k < (side ? c->n_fall : c->n_rise); k++) {
        const csr *by = acts[k].reinit == ACT_REINIT ? &s->so : &s->dso;
        uint32_t x = acts[k].target;
        if ((acts[k].reinit == ACT_REINIT || acts[k].reinit == ACT_ASSIGN) && by->start[x] != by->start[x + 1])
          quiet = 0;
        if (acts[k].reinit == ACT_SWITCH) quiet = 0; /* a change of structure: a transition of its own */
      }
    }
    s->zquiet[z] = (uint8_t)quiet;
  }
  /* Crossings whose handlers change what their function reads: see plan_cross. */
  if (cdevs__sys_self_changing(sp, s->alloc, s->zself)) return CDEVS_ENOMEM;
  algs_for_outputs(cx, s, s->t);
  s->rng = sp->rng; /* handlers go on with the initial algorithm's stream */
  s->started = 1;
  return CDEVS_OK;
}

static void sys_fini(void *state) {
  sys_state *s = state;
  if (!s->alloc) return;
  const cdevs__sys_spec *sp = s->sp;
  free_csr(s->alloc, &s->sd, sp->n_states + sp->n_in);
  free_csr(s->alloc, &s->dd, sp->n_discs);
  free_csr(s->alloc, &s->sz, sp->n_states + sp->n_in);
  free_csr(s->alloc, &s->dz, sp->n_discs);
  free_csr(s->alloc, &s->aa, sp->n_algs);
  free_csr(s->alloc, &s->da, sp->n_states);
  free_csr(s->alloc, &s->za, sp->n_cross);
  free_csr(s->alloc, &s->so, sp->n_states + sp->n_in);
  free_csr(s->alloc, &s->dso, sp->n_discs);
  free_csr(s->alloc, &s->pc, sp->n_states);
  if (s->block) s->alloc->realloc(s->alloc->ud, s->block, s->bytes, 0);
}

static double sys_ta(const void *state) {
  const sys_state *s = state;
  if (s->sw.switched) return INFINITY;
  if (s->ndirty) return 0.0;
  return next_time(s) - s->t;
}

static void sys_output(cdevs_ctx *cx, const void *state) {
  const sys_state *s = state;
  const cdevs__sys_spec *sp = s->sp;
  double t = cdevs_ctx_time(cx);
  for (uint32_t k = 0; k < s->ndirty; k++) {
    uint32_t o = s->dirty[k];
    double c[4] = {0, 0, 0, 0};
    int order = 0;
    if (sp->out_kind[o] == 0) {
      cdevs__qvar_q(&s->v[sp->out_index[o]], s->m, t, c);
      order = s->m->order - 1;
    } else if (sp->out_kind[o] == 1) {
      memcpy(c, s->alg[sp->out_index[o]], sizeof c);
      order = s->m->order - 1;
    } else {
      c[0] = s->disc[sp->out_index[o]];
    }
    cdevs_value v = cdevs_taylor(order, c);
    cdevs_emit(cx, (int)o, &v);
  }
}

/* The method stalls: a state's events repeat at one instant without time moving on
 * (its next time rounds to the present: a quantum below what t + τ can resolve, or an
 * implicit step that cannot settle). Named as such, with what to try, before the
 * simulator's guard takes it for an illegitimate model. */
/* ∂ẋ_j/∂q_i at t, by a seeded order-1 evaluation (as exact_a); 0 where it fails. */
static int partial(cdevs_ctx *cx, sys_state *s, uint32_t j, uint32_t i, double t, double *out) {
  const cdevs__sys_spec *sp = s->sp;
  *out = 0.0;
  if (ensure_algs(cx, s, LIST(s->da, j), t, i)) return -1;
  bc_env env = {s->v, s->m, (const double (*)[4])s->alg_seed, s->disc, sp->params, t, NULL, i, UINT32_MAX, NULL};
  double d[4];
  if (!cdevs__bc_eval(&sp->der[j], &env, 1, d, s->stack) && isfinite(d[1])) *out = d[1];
  return 0;
}

/* How much a change c turns a derivative d: |c| against the mean of |d| and |d + c|
 * (above 1: it reverses it, or more than triples it). */
static double turn(double d, double c) {
  double mean = 0.5 * (fabs(d) + fabs(d + c));
  return c == 0.0 ? 0.0 : mean > 0.0 ? fabs(c) / mean : INFINITY;
}

/* mLIQSS (Di Pietro, Migoni & Kofman 2019): state i has just been requantized at t
 * (its q before: qo). Among the states coupled to it both ways, the one whose
 * derivative (or its slope, at order 2) i's new q turns the most, if it turns it
 * (turn > 1); if that one's next q, a quantum ahead of it, would turn i's derivative
 * back, the two are in a stiff loop that LIQSS, placing one q at a time, resolves
 * only by alternating steps (TYSON's C2 and CP: 99,000 each): they are placed
 * together by one implicit step of their 2×2 block, and j counts as requantized
 * now. *pj: j, or UINT32_MAX when no pair was stepped. Nonzero on failure. */
static int pair_step(cdevs_ctx *cx, sys_state *s, uint32_t i, double t, const double *qo, uint32_t *pj) {
  const cdevs__qss_method *m = s->m;
  int order = m->order;
  cdevs__qvar *vi = &s->v[i];
  double dqi[2] = {vi->q[0] - qo[0], order > 1 ? vi->q[1] - qo[1] : 0.0};
  uint32_t best = UINT32_MAX;
  double best_r = 1.0, aji_best = 0.0, xb[4] = {0};
  *pj = UINT32_MAX;
  for (uint32_t k = s->pc.start[i]; k < s->pc.start[i + 1]; k++) {
    uint32_t j = s->pc.to[k];
    double aji, xj[4];
    if (s->v[j].restart) continue; /* reset at this instant: its q is to take x exactly (cdevs__qvar_reset) */
    if (partial(cx, s, j, i, t, &aji)) return -1;
    if (aji == 0.0) continue;
    memcpy(xj, s->v[j].x, sizeof xj);
    cdevs__series_shift(xj, order, t - s->v[j].tx);
    double r = turn(xj[1], aji * dqi[0]);
    if (order > 1) r = fmax(r, turn(2.0 * xj[2], aji * dqi[1]));
    if (r > best_r) best = j, best_r = r, aji_best = aji, memcpy(xb, xj, sizeof xb);
  }
  if (best == UINT32_MAX) return 0;
  uint32_t j = best;
  cdevs__qvar *vj = &s->v[j];
  double aij, aii, ajj, qoj[4];
  if (partial(cx, s, i, j, t, &aij) || partial(cx, s, i, i, t, &aii) || partial(cx, s, j, j, t, &ajj)) return -1;
  cdevs__qvar_q(vj, m, t, qoj);
  /* j's derivative and slope after i's change, and i's; j's next q: ΔQ ahead of x_j
   * where its derivative now points, with that derivative as its slope. */
  double nj0 = xb[1] + aji_best * dqi[0];
  double ni0 = vi->x[1] + aii * dqi[0], ni1 = 2.0 * vi->x[2] + aii * dqi[1];
  double sj = nj0 > 0.0 ? 1.0 : nj0 < 0.0 ? -1.0 : 0.0;
  double back = turn(ni0, aij * (xb[0] + sj * vj->dq - qoj[0]));
  if (order > 1) back = fmax(back, turn(ni1, aij * (nj0 - qoj[1])));
  if (!(back > 1.0)) return 0;
  double A[2][2] = {{aii, aij}, {aji_best, ajj}};
  double u0[2] = {vi->x[1] - aii * qo[0] - aij * qoj[0], xb[1] - aji_best * qo[0] - ajj * qoj[0]};
  double u1[2] = {2.0 * vi->x[2] - aii * qo[1] - aij * qoj[1], 2.0 * xb[2] - aji_best * qo[1] - ajj * qoj[1]};
  if (!cdevs__qvar_pair_place(vi, vj, m, t, (const double(*)[2])A, u0, u1)) return 0;
  *pj = j;
  return 0;
}

static __attribute__((noinline, cold)) int stalled(cdevs_ctx *cx, sys_state *s, uint32_t item, double t) {
  const cdevs__sys_spec *sp = s->sp;
  const cdevs__qvar *v = &s->v[item];
  char what[340];
  cdevs__sys_name(sp, SYS_STATE, item, what, sizeof what);
  sys_fail(cx, t,
           "the %s method stalled: %s had %llu events at t = %.17g without time moving on (x = %g, "
           "quantum %g, next time %.17g); the model is not at fault: try a larger AbsTolerance or Tolerance, "
           "another method (QSS3, LIQSS1, LIQSS3) or --jacobian secant",
           s->m->name, what, (unsigned long long)s->stall_n, t, cdevs__qvar_x(v, s->m, t), v->dq, v->tn);
  return -1;
}

/* State item's event at t: a refresh of its derivative, or a requantization.
 * Nonzero on failure (reported). */
static int state_event(cdevs_ctx *cx, sys_state *s, uint32_t item, double t) {
  if (t == s->stall_t) {
    if (++s->stall_n > 10000 + 100 * (uint64_t)s->sp->n_states) return stalled(cx, s, item, t);
  } else {
    s->stall_t = t, s->stall_n = 0;
  }
  if (s->v[item].refresh) { /* the derivative's extrapolation ran out: re-evaluate it */
    s->refreshes++;
    return update_der(cx, s, item, t);
  }
  int reset = s->v[item].restart; /* a reinit's: x jumped too */
  int pair = s->m->pairs && !reset && s->pc.start[item] != s->pc.start[item + 1];
  double qo[4];
  uint32_t mate = UINT32_MAX;
  if (pair) cdevs__qvar_q(&s->v[item], s->m, t, qo);
  if (s->m->linear_implicit && s->self_dep[item] == SELF_DEP && !s->secant_a)
    exact_a(cx, s, item, t);
  if (s->self_dep[item] || s->dbeyond[item]) {
    /* Its own derivative is evaluated again, and that computes the next time: doing
     * it here too would be thrown away. One that reads q is, below; one beyond x's
     * degree (der(x) = sin(time), cos(y)) here (see dbeyond). */
    (void)cdevs__qvar_place_q(&s->v[item], s->m, t);
    if (!s->self_dep[item] && update_der(cx, s, item, t)) return -1;
  } else {
    cdevs__qvar_requantize(&s->v[item], s->m, t);
    tfix(s, item, s->v[item].tn);
  }
  /* A finite derivative for so long that x overflowed. */
  if (__builtin_expect(!isfinite(s->v[item].q[0]), 0)) return failed(cx, s, t, SYS_STATE, item, s->v[item].q, 0, 0);
  /* (The derivatives of both read the other's q: each is evaluated again below.) */
  if (pair && pair_step(cx, s, item, t, qo, &mate)) return -1;
  algs_stale(s);
  s->steps++;
  if (after_state_change(cx, s, item, t, !reset)) return -1;
  if (mate != UINT32_MAX) {
    s->steps++, s->paired++;
    if (after_mate_change(cx, s, mate, item, t)) return -1;
  }
  algs_for_outputs(cx, s, t);
  return 0;
}

/* Zeno behaviour: crossing z's handled events come ever closer (a ball bouncing with
 * restitution e < 1: intervals shrinking by e, accumulating at a finite time). They
 * are not resolvable once the function's excursion between two of them, about the
 * interval times its slope at the root, is within 100 times the hysteresis: past
 * that the method misses one, and the ball falls through the floor. With at least
 * four shrinking intervals in a row before that, the sequence is taken as geometric
 * and its accumulation point t + Δ·r/(1 − r) (r: the last ratio) is reported. Only
 * for functions of states (hysteresis > 0; those of time alone are exact) whose
 * handler leaves what the function reads alone (the caller's test): one that
 * changes it, an ideal diode switching its own current, chatters in bursts in a
 * sliding mode that the hysteresis resolves (QSS Solver's cuk converter). */
static int zeno_watch(cdevs_ctx *cx, sys_state *s, uint32_t z, double t, const double *f) {
  double dt, r, t_acc;
  char what[340], msg[700];
  if (!cdevs__zeno_shrinking(&s->zwatch[z], t, &dt, &r)) return 0;
  cdevs__sys_name(s->sp, SYS_CROSS, z, what, sizeof what);
  if (!cdevs__zeno_accumulates(&s->zwatch[z], t, dt, r, f[1], s->zhyst[z], what, &t_acc, msg, sizeof msg)) return 0;
  if (s->zeno++ == 0) s->zeno_t = t_acc;
  if (s->zeno_continue) return 0;
  sys_fail(cx, t, "%s", msg);
  return -1;
}

/* Crossing z's event at t: its handler, then its next crossing. Nonzero on failure
 * (reported). */
static int cross_event(cdevs_ctx *cx, sys_state *s, uint32_t z, double t) {
  if (s->zrefresh[z]) { /* not a crossing: its function of time, evaluated again */
    s->refreshes++;
    return plan_cross(cx, s, z, t, 0);
  }
  /* Which way it goes is read from the derivatives at the root. */
  double f[4];
  if (eval_cross(cx, s, z, t, f)) return -1;
  int side = cdevs__side(f, s->zord[z]);
  int to = side != 0 && side != s->zsign[z] ? side : -s->zsign[z];
  int jumped = s->zjump[z];
  if (s->zhyst[z] > 0.0 && !s->zself[z]) { /* a function of states: where x is (see plan_cross) */
    double vx;
    if (cross_on_x(cx, s, z, t, &vx)) return -1;
    s->zlag[z] = -to * vx > 0.0 ? 2.0 * -to * vx : 0.0;
  }
  s->zsign[z] = (int8_t)to;
  const sys_crossing *c = &s->sp->cross[z];
  int handled = to > 0 ? c->n_rise != 0 : c->n_fall != 0;
  s->crossings += (uint64_t)handled;
  if (handled && t == s->t0) s->zfired0[z] = 1;
  s->cur_cross = z;
  s->cur_touched = 0;
  int rc = to > 0 ? run_handler(cx, s, c->on_rise, c->n_rise, t) : run_handler(cx, s, c->on_fall, c->n_fall, t);
  s->cur_cross = UINT32_MAX;
  if (rc) return -1;
  if (s->sw.switched) return 0;
  if (handled && !s->cur_touched && zeno_watch(cx, s, z, t, f)) return -1;
  if (!s->cur_touched && jumped) {
    if (plan_cross(cx, s, z, t, 0)) return -1; /* from the value it jumped to */
  } else if (!s->cur_touched) {
    /* The handler left the function alone (what it reads, and so f, is as before
     * the handler): plan the next crossing from the root, with the value there
     * taken as the level so round-off cannot find this one again. (When the
     * handler changed what the function reads, plan_cross has already planned it
     * from its new value, a jump included.) */
    f[0] = s->zsign[z] * s->zhyst[z]; /* at the level it just reached */
    schedule_cross(s, z, t, f, s->zhyst[z]);
  }
  algs_for_outputs(cx, s, t);
  return 0;
}

/* Algebraic output k's refresh at t: it is sent again (algs_for_outputs plans the
 * next one). */
static int output_event(cdevs_ctx *cx, sys_state *s, uint32_t k, double t) {
  s->refreshes++;
  mark_output(s, s->alg_out[k]);
  algs_for_outputs(cx, s, t);
  return 0;
}

/* The event of item (a state's, a crossing's or an algebraic output's) at t. */
static int take_event(cdevs_ctx *cx, sys_state *s, uint32_t item, double t) {
  uint32_t ns = s->sp->n_states, nz = s->sp->n_cross;
  if (item < ns) return state_event(cx, s, item, t);
  return item < ns + nz ? cross_event(cx, s, item - ns, t) : output_event(cx, s, item - ns - nz, t);
}

static void sys_int(cdevs_ctx *cx, void *state) {
  sys_state *s = state;
  double t = s->t = cdevs_ctx_time(cx);
  if (s->ndirty) {
    for (uint32_t k = 0; k < s->ndirty; k++) s->out_dirty[s->dirty[k]] = 0;
    s->ndirty = 0;
    return;
  }
  uint32_t item = next_item(s), ns = s->sp->n_states;
  if (take_event(cx, s, item, t) || s->sw.switched) return; /* (the loop below takes no switch: not quiet) */
  /* Then its events before anything else happens (cdevs_ctx_horizon), as long as
   * each sends nothing: a state without outputs or a quiet crossing, in a model
   * without algebraic outputs. A transition through the simulator for each would
   * cost more than many a requantization; the results are the same. */
  if (s->n_alg_out) return; /* (so the items below are states and crossings) */
  /* Only a handler schedules an event at its own time, so a zero-time loop runs
   * through crossings: more crossings at one time than there are items goes back to
   * the simulator, which counts the transitions of an instant. (A failure moves the
   * simulator's time to its event's: sys_fail.) */
  double h = cdevs_ctx_horizon(cx), last = t;
  uint32_t at_last = 0, taken = 0;
  while (!s->ndirty && next_time(s) < h) {
    if ((++taken & 1023) == 0 && cdevs_ctx_stopping(cx)) break; /* a stop request: seen within 1024 events */
    double tk = next_time(s);
    item = next_item(s);
    if (item < ns ? s->so.start[item] != s->so.start[item + 1] : !s->zquiet[item - ns]) break;
    if (item >= ns && (at_last = tk == last ? at_last + 1 : 1, last = tk, at_last > s->nitems)) break;
    if (take_event(cx, s, item, tk)) break;
  }
}

/* Events on the inputs: each input takes the last value its bag carries, then what
 * reads it moves on as after a requantization (the derivatives, and the crossings,
 * where a jump past the level is an event now). The first event of an input at the
 * start time replaces its start value: the crossings that read it take their side
 * from it, as they do from the start values, instead of firing. */
static void sys_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  sys_state *s = state;
  const cdevs__sys_spec *sp = s->sp;
  uint32_t ns = sp->n_states;
  double t = s->t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    uint32_t k = (uint32_t)x->events[i].port;
    const cdevs_value *v = x->events[i].value;
    if (k >= sp->n_in) continue;
    double c[4];
    int order;
    char msg[320];
    if (cdevs__sys_input(sp, k, v, c, &order, msg, sizeof msg)) {
      sys_fail(cx, t, "%s", msg);
      return;
    }
    set_input(s, k, 0.0, c, order, t);
  }
  algs_stale(s);
  changes_begin(s); /* the start's sides of the relations of if-equations (below) */
  for (size_t i = 0; i < x->n; i++) {
    uint32_t k = (uint32_t)x->events[i].port, dup = 0;
    if (k >= sp->n_in) continue;
    for (size_t j = i + 1; j < x->n && !dup; j++) dup = (uint32_t)x->events[j].port == k;
    if (dup) continue; /* (the last of its events is the one it holds) */
    if (!s->in_seen[k] && t == s->t0)
      for (uint32_t q = s->sz.start[ns + k]; q < s->sz.start[ns + k + 1]; q++) {
        uint32_t z = s->sz.to[q], d = sp->cross[z].side_disc;
        double f[4];
        if (eval_cross(cx, s, z, t, f)) return;
        int side = cdevs__side(f, s->zord[z]);
        /* (at 0: see leaves_zero; not a when that has fired at the start already) */
        s->zsign[z] = (int8_t)(f[0] == 0.0 && !d && !s->zfired0[z] ? 0 : side);
        if (d && side != 0 && side != s->disc[d - 1]) set_disc(s, d - 1, side);
      }
    s->in_seen[k] = 1;
    if (after_state_change(cx, s, ns + k, t, 0)) return;
  }
  if (changes_end(cx, s, t)) return;
  algs_for_outputs(cx, s, t);
}

void cdevs__system_stats(const void *state, cdevs__sys_stats *st) {
  const sys_state *s = state;
  st->steps = s->steps;
  st->crossings = s->crossings;
  st->reinits = s->reinits;
  st->refreshes = s->refreshes;
  st->paired = s->paired;
  st->zeno = s->zeno;
  st->zeno_t = s->zeno_t;
}

double cdevs__system_x(const void *state, uint32_t i, double t) {
  const sys_state *s = state;
  return cdevs__qvar_x(&s->v[i], s->m, t);
}

double cdevs__system_disc(const void *state, uint32_t i) { return ((const sys_state *)state)->disc[i]; }

static const cdevs_port_def no_ports[] = {{NULL, CDEVS_ANY}};

const cdevs_atomic_ops cdevs__system_ops = {
    .type = "EquationSystem",
    .state_size = sizeof(sys_state),
    .arg_size = sizeof(cdevs__sys_arg),
    .inputs = no_ports,
    .outputs = no_ports, /* output ports are added per model (cdevs_port_add) */
    .init = sys_init,
    .ta = sys_ta,
    .output = sys_output,
    .delta_int = sys_int,
    .delta_ext = sys_ext,
    .fini = sys_fini,
};
