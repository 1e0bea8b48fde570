/* SPDX-License-Identifier: MIT */
/* Building a DEVS graph, its checks (initial phase, ways out, zero-lifetime cycles,
 * decidable ambiguity, reachability), and reading it back. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/alloc_impl.h"
#include "graph_impl.h"

/* ---- Building ----------------------------------------------------------------------- */

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int fail(cdevs_graph *g, cdevs_status st, const char *fmt, ...) {
  if (g->status == CDEVS_OK) {
    g->status = st;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->errmsg, sizeof g->errmsg, fmt, ap);
    va_end(ap);
  }
  return st;
}

/* Whether g may still be built: 1, or 0 (and the status to return in *st). */
static int open_for(cdevs_graph *g, int *st) {
  if (!g) return *st = CDEVS_EINVAL, 0;
  if (g->status != CDEVS_OK) return *st = g->status, 0;
  if (g->frozen) return *st = fail(g, CDEVS_ESTATE, "graph '%s' is checked: nothing can be added", g->name), 0;
  return 1;
}

static char *dup(cdevs_graph *g, const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *r = cdevs__calloc(&g->alloc, n, 1);
  if (r) memcpy(r, s, n);
  return r;
}

static void undup(cdevs_graph *g, char *s) {
  if (s) cdevs__free(&g->alloc, s, strlen(s) + 1);
}

cdevs_graph *cdevs_graph_new(const cdevs_alloc *a, const char *name) {
  if (!a) a = cdevs_alloc_default();
  cdevs_graph *g = cdevs__calloc(a, 1, sizeof *g);
  if (!g) return NULL;
  g->alloc = *a;
  g->initial = -1;
  g->name = dup(g, name ? name : "graph");
  /* The port lists end with a NULL name from the start: the ops are valid at once. */
  g->in_defs = cdevs__calloc(a, 1, sizeof *g->in_defs);
  g->out_defs = cdevs__calloc(a, 1, sizeof *g->out_defs);
  g->capin = g->capout = 1;
  if (!g->name || !g->in_defs || !g->out_defs) {
    cdevs_graph_free(g);
    return NULL;
  }
  g->ops = cdevs__graph_ops_template;
  g->ops.type = g->name;
  g->ops.inputs = g->in_defs;
  g->ops.outputs = g->out_defs;
  return g;
}

void cdevs_graph_free(cdevs_graph *g) {
  if (!g) return;
  const cdevs_alloc *a = &g->alloc;
  for (uint32_t i = 0; i < g->nin; i++) undup(g, (char *)g->in_defs[i].name);
  for (uint32_t i = 0; i < g->nout; i++) undup(g, (char *)g->out_defs[i].name);
  for (uint32_t i = 0; i < g->nvars; i++) undup(g, g->vars[i].name);
  for (uint32_t i = 0; i < g->nphases; i++) {
    undup(g, g->phases[i].name), undup(g, g->phases[i].label), undup(g, g->phases[i].where);
  }
  for (uint32_t i = 0; i < g->ntrans; i++) undup(g, g->trans[i].label), undup(g, g->trans[i].where);
  CDEVS_FREEARR(a, g->in_defs, g->capin);
  CDEVS_FREEARR(a, g->out_defs, g->capout);
  CDEVS_FREEARR(a, g->vars, g->capvars);
  CDEVS_FREEARR(a, g->phases, g->capphases);
  CDEVS_FREEARR(a, g->trans, g->captrans);
  CDEVS_FREEARR(a, g->acts, g->capacts);
  CDEVS_FREEARR(a, g->ins, g->capins);
  cdevs__free(a, g->ext_of, (g->ntrans + 1) * sizeof *g->ext_of); /* (ntrans is fixed once checked) */
  cdevs__free(a, g->reads, g->nreads * sizeof *g->reads + sizeof *g->reads);
  undup(g, g->name);
  cdevs_alloc copy = *a;
  cdevs__free(&copy, g, sizeof *g);
}

static int add_port(cdevs_graph *g, cdevs_dir dir, const char *name) {
  int st;
  if (!open_for(g, &st)) return st;
  if (!name || !*name) return fail(g, CDEVS_EINVAL, "a port needs a name");
  cdevs_port_def **defs = dir == CDEVS_IN ? &g->in_defs : &g->out_defs;
  uint32_t *n = dir == CDEVS_IN ? &g->nin : &g->nout, *cap = dir == CDEVS_IN ? &g->capin : &g->capout;
  char *nm = dup(g, name);
  if (!nm || cdevs__grow(&g->alloc, (void **)defs, cap, *n + 2, sizeof **defs)) {
    undup(g, nm);
    return fail(g, CDEVS_ENOMEM, "out of memory");
  }
  /* Inputs take any number (ANY: real, integer and Taylor events, checked at each
   * event); outputs send piecewise-constant signals. */
  (*defs)[*n] = (cdevs_port_def){nm, dir == CDEVS_IN ? CDEVS_ANY : CDEVS_TAYLOR};
  (*defs)[*n + 1] = (cdevs_port_def){NULL, CDEVS_ANY};
  g->ops.inputs = g->in_defs, g->ops.outputs = g->out_defs;
  return (int)(*n)++;
}

int cdevs_graph_add_input(cdevs_graph *g, const char *name) { return add_port(g, CDEVS_IN, name); }
const cdevs_port_def *cdevs_graph_ports(const cdevs_graph *g, cdevs_dir dir) {
  return dir == CDEVS_IN ? g->in_defs : g->out_defs;
}
int cdevs_graph_add_output(cdevs_graph *g, const char *name) { return add_port(g, CDEVS_OUT, name); }

int cdevs_graph_add_var(cdevs_graph *g, const char *name, cdevs_graph_type type, double initial) {
  int st;
  if (!open_for(g, &st)) return st;
  if (!name || !*name || (int)type < 0 || type > CDEVS_GRAPH_BOOLEAN)
    return fail(g, CDEVS_EINVAL, "graph '%s': a variable needs a name and a type", g->name);
  char *nm = dup(g, name);
  if (!nm || CDEVS_GROW(&g->alloc, g->vars, g->capvars, g->nvars + 1)) {
    undup(g, nm);
    return fail(g, CDEVS_ENOMEM, "out of memory");
  }
  g->vars[g->nvars] = (gvar){nm, type, initial};
  return (int)g->nvars++;
}

/* Copies code into g->ins after checking it: 0, or a status (recorded). `what` says
 * where it is, for the message. */
static int add_code(cdevs_graph *g, const cdevs_graph_code *c, gcode *out, const char *what) {
  *out = (gcode){g->nins, 0};
  if (!c) return 0;
  char msg[160];
  if (!c->ins || !c->n) return fail(g, CDEVS_EINVAL, "graph '%s': %s: an empty code", g->name, what);
  if (cdevs__graph_code_check(c->ins, c->n, g->nvars, g->nin, msg, sizeof msg) < 0)
    return fail(g, CDEVS_EINVAL, "graph '%s': %s: %s", g->name, what, msg);
  if (c->n > UINT32_MAX - g->nins || CDEVS_GROW(&g->alloc, g->ins, g->capins, g->nins + c->n))
    return fail(g, CDEVS_ENOMEM, "out of memory");
  memcpy(g->ins + g->nins, c->ins, c->n * sizeof *c->ins);
  out->n = c->n;
  g->nins += c->n;
  return 0;
}

int cdevs_graph_add_phase(cdevs_graph *g, const cdevs_graph_phase_def *def) {
  int st;
  if (!open_for(g, &st)) return st;
  if (!def || !def->name || !*def->name) return fail(g, CDEVS_EINVAL, "graph '%s': a phase needs a name", g->name);
  if (CDEVS_GROW(&g->alloc, g->phases, g->capphases, g->nphases + 1)) return fail(g, CDEVS_ENOMEM, "out of memory");
  gphase *p = &g->phases[g->nphases];
  memset(p, 0, sizeof *p);
  char what[160];
  snprintf(what, sizeof what, "the lifetime of phase '%s'", def->name);
  if ((st = add_code(g, def->lifetime, &p->lifetime, what))) return st;
  p->name = dup(g, def->name), p->label = dup(g, def->label), p->where = dup(g, def->where);
  if (!p->name || (def->label && !p->label) || (def->where && !p->where)) {
    undup(g, p->name), undup(g, p->label), undup(g, p->where);
    return fail(g, CDEVS_ENOMEM, "out of memory");
  }
  p->initial = def->initial != 0;
  p->internal = -1;
  return (int)g->nphases++;
}

static int add_transition(cdevs_graph *g, const cdevs_graph_transition_def *def, int external) {
  int st;
  if (!open_for(g, &st)) return st;
  const char *kind = external ? "external" : "internal";
  if (!def || def->from < 0 || (uint32_t)def->from >= g->nphases || def->to < 0 || (uint32_t)def->to >= g->nphases)
    return fail(g, CDEVS_EINVAL, "graph '%s': an %s transition between phases that do not exist", g->name, kind);
  if (!external && def->guard)
    return fail(g, CDEVS_EINVAL, "graph '%s': an internal transition has no guard", g->name);
  if (external && def->nemits)
    return fail(g, CDEVS_EINVAL, "graph '%s': an external transition emits nothing (outputs are λ's, on internal "
                "transitions)", g->name);
  if ((def->nemits && !def->emits) || (def->nassigns && !def->assigns) || def->nemits > UINT32_MAX / 4 ||
      def->nassigns > UINT32_MAX / 4)
    return fail(g, CDEVS_EINVAL, "graph '%s': %s transition: bad lists", g->name, kind);
  uint32_t na = (uint32_t)(def->nemits + def->nassigns);
  if (CDEVS_GROW(&g->alloc, g->trans, g->captrans, g->ntrans + 1) ||
      CDEVS_GROW(&g->alloc, g->acts, g->capacts, g->nacts + na))
    return fail(g, CDEVS_ENOMEM, "out of memory");
  gtrans *t = &g->trans[g->ntrans];
  memset(t, 0, sizeof *t);
  t->external = external;
  t->from = def->from, t->to = def->to;
  char what[200];
  snprintf(what, sizeof what, "the guard of %s -> %s", g->phases[def->from].name, g->phases[def->to].name);
  if ((st = add_code(g, def->guard, &t->guard, what))) return st;
  t->act0 = g->nacts;
  for (size_t i = 0; i < def->nemits; i++) {
    const cdevs_graph_emit *e = &def->emits[i];
    if (e->port < 0 || (uint32_t)e->port >= g->nout)
      return fail(g, CDEVS_EINVAL, "graph '%s': %s -> %s emits on output %d of %u", g->name,
                  g->phases[def->from].name, g->phases[def->to].name, e->port, g->nout);
    gaction *a = &g->acts[t->act0 + i];
    a->target = (uint32_t)e->port;
    snprintf(what, sizeof what, "the output %s!… of %s -> %s", g->out_defs[e->port].name, g->phases[def->from].name,
             g->phases[def->to].name);
    if (!e->value.ins) return fail(g, CDEVS_EINVAL, "graph '%s': %s: no value", g->name, what);
    if ((st = add_code(g, &e->value, &a->value, what))) return st;
  }
  for (size_t i = 0; i < def->nassigns; i++) {
    const cdevs_graph_assign *s = &def->assigns[i];
    if (s->var < 0 || (uint32_t)s->var >= g->nvars)
      return fail(g, CDEVS_EINVAL, "graph '%s': %s -> %s assigns variable %d of %u", g->name,
                  g->phases[def->from].name, g->phases[def->to].name, s->var, g->nvars);
    gaction *a = &g->acts[t->act0 + def->nemits + i];
    a->target = (uint32_t)s->var;
    snprintf(what, sizeof what, "the assignment to %s in %s -> %s", g->vars[s->var].name, g->phases[def->from].name,
             g->phases[def->to].name);
    if (!s->value.ins) return fail(g, CDEVS_EINVAL, "graph '%s': %s: no value", g->name, what);
    if ((st = add_code(g, &s->value, &a->value, what))) return st;
  }
  t->nemits = (uint32_t)def->nemits, t->nassigns = (uint32_t)def->nassigns;
  t->label = dup(g, def->label), t->where = dup(g, def->where);
  if ((def->label && !t->label) || (def->where && !t->where)) {
    undup(g, t->label), undup(g, t->where);
    return fail(g, CDEVS_ENOMEM, "out of memory");
  }
  g->nacts += na;
  return (int)g->ntrans++;
}

int cdevs_graph_add_internal(cdevs_graph *g, const cdevs_graph_transition_def *def) {
  return add_transition(g, def, 0);
}
int cdevs_graph_add_external(cdevs_graph *g, const cdevs_graph_transition_def *def) {
  return add_transition(g, def, 1);
}

void cdevs_graph_set_confluence(cdevs_graph *g, cdevs_graph_confluence c) {
  int st;
  if (!open_for(g, &st)) return;
  if (c != CDEVS_GRAPH_CONF_INTERNAL && c != CDEVS_GRAPH_CONF_BOTH) {
    fail(g, CDEVS_EINVAL, "graph '%s': confluence %d is neither rule", g->name, (int)c);
    return;
  }
  g->conf = c;
}

const char *cdevs_graph_errmsg(const cdevs_graph *g) { return g ? g->errmsg : ""; }

/* ---- Checks ------------------------------------------------------------------------- */

typedef struct checker {
  cdevs_graph *g;
  cdevs_graph_report_fn report;
  void *ud;
  int errors;
} checker;

#if defined(__GNUC__)
__attribute__((format(printf, 6, 7)))
#endif
static void say(checker *k, int is_error, cdevs_graph_elem what, int index, int other, const char *fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (is_error) {
    if (!k->errors) fail(k->g, CDEVS_EINVAL, "graph '%s': %s", k->g->name, msg);
    k->errors++;
  }
  if (k->report) k->report(k->ud, is_error, what, index, other, msg);
}

/* A phase's lifetime as a constant: 1 and *v (INFINITY for none), or 0 if it depends
 * on the variables. */
static int const_life(const cdevs_graph *g, const gphase *p, double *v) {
  if (!p->lifetime.n) return *v = INFINITY, 1;
  return cdevs__graph_code_const(g, p->lifetime, v);
}

/* FNV-1a over a guard's instructions (opcode, argument and the constant's bits). */
static uint64_t code_hash(const cdevs_graph *g, gcode c) {
  uint64_t h = 1469598103934665603u;
  for (uint32_t i = 0; i < c.n; i++) {
    const cdevs_graph_ins *in = &g->ins[c.start + i];
    uint64_t k;
    memcpy(&k, &in->k, sizeof k);
    uint64_t w[3] = {in->op, in->arg, in->op == CDEVS_GOP_CONST ? k : 0};
    for (int j = 0; j < 3; j++) h = (h ^ w[j]) * 1099511628211u;
  }
  return h;
}

static int code_equal(const cdevs_graph *g, gcode a, gcode b) {
  if (a.n != b.n) return 0;
  for (uint32_t i = 0; i < a.n; i++) {
    const cdevs_graph_ins *x = &g->ins[a.start + i], *y = &g->ins[b.start + i];
    if (x->op != y->op || x->arg != y->arg || (x->op == CDEVS_GOP_CONST && !(x->k == y->k))) return 0;
  }
  return 1;
}

typedef struct keyed {
  uint64_t key;
  uint32_t t;
} keyed;

static int by_key(const void *a, const void *b) {
  const keyed *x = a, *y = b;
  if (x->key != y->key) return x->key < y->key ? -1 : 1;
  return x->t < y->t ? -1 : x->t > y->t;
}

/* The external transitions of each phase (ext_of, CSR in declaration order) and the
 * input ports each guard reads. 0, or -1 out of memory. */
static int index_transitions(cdevs_graph *g) {
  g->ext_of = cdevs__calloc(&g->alloc, g->ntrans + 1, sizeof *g->ext_of);
  uint32_t nreads = 0;
  for (uint32_t i = 0; i < g->nins; i++) nreads += g->ins[i].op == CDEVS_GOP_IN || g->ins[i].op == CDEVS_GOP_EVENT;
  g->reads = cdevs__calloc(&g->alloc, nreads + 1, sizeof *g->reads);
  g->nreads = nreads; /* (the size it is freed with) */
  if (!g->ext_of || !g->reads) return -1;
  for (uint32_t t = 0; t < g->ntrans; t++)
    if (g->trans[t].external) g->phases[g->trans[t].from].next++;
  uint32_t at = 0;
  for (uint32_t p = 0; p < g->nphases; p++) g->phases[p].ext0 = at, at += g->phases[p].next, g->phases[p].next = 0;
  for (uint32_t t = 0; t < g->ntrans; t++) {
    gtrans *tr = &g->trans[t];
    if (tr->external) {
      gphase *p = &g->phases[tr->from];
      g->ext_of[p->ext0 + p->next++] = t;
    }
    /* The ports the guard reads, each once. */
    tr->read0 = t ? tr[-1].read0 + tr[-1].nreads : 0;
    for (uint32_t i = 0; i < tr->guard.n; i++) {
      const cdevs_graph_ins *in = &g->ins[tr->guard.start + i];
      if (in->op != CDEVS_GOP_IN && in->op != CDEVS_GOP_EVENT) continue;
      uint32_t k = 0;
      while (k < tr->nreads && g->reads[tr->read0 + k] != in->arg) k++;
      if (k == tr->nreads) g->reads[tr->read0 + tr->nreads++] = in->arg;
    }
  }
  return 0;
}

typedef struct named {
  const char *name;
  uint32_t i;
} named;

static int by_name(const void *a, const void *b) {
  const named *x = a, *y = b;
  int c = strcmp(x->name, y->name);
  return c ? c : x->i < y->i ? -1 : x->i > y->i;
}

/* Names declared twice (sorted, so that a graph of many phases is checked in
 * n log n): ports and variables together, and phases. */
static void twice(checker *k) {
  cdevs_graph *g = k->g;
  uint32_t n = g->nin + g->nout + g->nvars;
  if (g->nphases > n) n = g->nphases;
  named *v = cdevs__calloc(&g->alloc, n + 1, sizeof *v);
  if (!v) {
    say(k, 1, CDEVS_GRAPH_WHOLE, -1, -1, "out of memory");
    return;
  }
  for (int pass = 0; pass < 2; pass++) {
    uint32_t m = 0;
    if (pass == 0) {
      for (uint32_t i = 0; i < g->nin; i++) v[m] = (named){g->in_defs[i].name, m}, m++;
      for (uint32_t i = 0; i < g->nout; i++) v[m] = (named){g->out_defs[i].name, m}, m++;
      for (uint32_t i = 0; i < g->nvars; i++) v[m] = (named){g->vars[i].name, m}, m++;
    } else {
      for (uint32_t i = 0; i < g->nphases; i++) v[m] = (named){g->phases[i].name, i}, m++;
    }
    qsort(v, m, sizeof *v, by_name);
    for (uint32_t i = 0; i + 1 < m; i++)
      if (!strcmp(v[i].name, v[i + 1].name)) {
        if (pass) say(k, 1, CDEVS_GRAPH_PHASE, (int)v[i + 1].i, (int)v[i].i, "phase '%s' is declared twice", v[i].name);
        else say(k, 1, CDEVS_GRAPH_WHOLE, -1, -1, "'%s' is declared twice (ports and variables share one name space)",
                 v[i].name);
      }
  }
  cdevs__free(&g->alloc, v, (size_t)(n + 1) * sizeof *v);
}

/* Phases of constant lifetime 0 linked by internal transitions: a cycle among them
 * makes time stand still. Each is followed along its one internal transition (a
 * functional graph), so colouring finds every cycle in linear time. */
static void zero_cycles(checker *k) {
  cdevs_graph *g = k->g;
  uint8_t *colour = cdevs__calloc(&g->alloc, g->nphases + 1, 1);
  if (!colour) {
    say(k, 1, CDEVS_GRAPH_WHOLE, -1, -1, "out of memory");
    return;
  }
  for (uint32_t s = 0; s < g->nphases; s++) {
    /* colour: 0 unseen, 1 on the current walk, 2 done */
    uint32_t p = s;
    for (;;) {
      double life;
      const gphase *ph = &g->phases[p];
      if (colour[p] || ph->internal < 0 || !const_life(g, ph, &life) || life != 0.0) break;
      colour[p] = 1;
      p = (uint32_t)g->trans[ph->internal].to;
    }
    if (colour[p] == 1) { /* back on the walk: a cycle through p */
      char path[300];
      size_t len = 0;
      uint32_t q = p;
      do {
        if (len < sizeof path)
          len += (size_t)snprintf(path + len, sizeof path - len, "%s -> ", g->phases[q].name);
        q = (uint32_t)g->trans[g->phases[q].internal].to;
      } while (q != p);
      if (len < sizeof path) snprintf(path + len, sizeof path - len, "%s", g->phases[p].name);
      say(k, 1, CDEVS_GRAPH_PHASE, (int)p, -1,
          "a cycle of internal transitions through phases of lifetime 0 (%s): time would not advance (an "
          "illegitimate model)", path);
    }
    for (p = s; colour[p] == 1;) { /* the walk is done */
      colour[p] = 2;
      if (g->phases[p].internal < 0) break;
      p = (uint32_t)g->trans[g->phases[p].internal].to;
    }
  }
  cdevs__free(&g->alloc, colour, g->nphases + 1);
}

/* Two external transitions of one phase that fire on the same bags whatever the
 * variables: the same guard, or one with none. Sorted by (phase, guard hash). */
static void ambiguous(checker *k) {
  cdevs_graph *g = k->g;
  for (uint32_t p = 0; p < g->nphases; p++) { /* no guard: it clashes with every other */
    const gphase *ph = &g->phases[p];
    for (uint32_t i = 0; i < ph->next; i++) {
      const gtrans *t = &g->trans[g->ext_of[ph->ext0 + i]];
      if (t->guard.n || ph->next < 2) continue;
      uint32_t other = g->ext_of[ph->ext0 + (i == 0 ? 1 : 0)];
      say(k, 1, CDEVS_GRAPH_TRANSITION, (int)g->ext_of[ph->ext0 + i], (int)other,
          "phase '%s' has an external transition with no guard, which every input fires, and others: they "
          "would fire together", ph->name);
      break;
    }
  }
  keyed *keys = cdevs__calloc(&g->alloc, g->ntrans + 1, sizeof *keys);
  if (!keys) {
    say(k, 1, CDEVS_GRAPH_WHOLE, -1, -1, "out of memory");
    return;
  }
  uint32_t n = 0;
  for (uint32_t t = 0; t < g->ntrans; t++)
    if (g->trans[t].external && g->trans[t].guard.n)
      keys[n++] = (keyed){code_hash(g, g->trans[t].guard) * 31u + (uint64_t)g->trans[t].from, t};
  qsort(keys, n, sizeof *keys, by_key);
  for (uint32_t i = 0; i + 1 < n; i++) {
    /* every earlier one of the same key that is truly equal */
    for (uint32_t j = i + 1; j < n && keys[j].key == keys[i].key; j++) {
      const gtrans *a = &g->trans[keys[i].t], *b = &g->trans[keys[j].t];
      if (a->from != b->from || !code_equal(g, a->guard, b->guard)) continue;
      say(k, 1, CDEVS_GRAPH_TRANSITION, (int)keys[j].t, (int)keys[i].t,
          "phase '%s' has two external transitions with the same guard (to '%s' and to '%s'): the next phase "
          "would be undefined", g->phases[a->from].name, g->phases[a->to].name, g->phases[b->to].name);
      break;
    }
  }
  cdevs__free(&g->alloc, keys, (g->ntrans + 1) * sizeof *keys);
}

/* Phases no transition reaches from the initial one (breadth first). */
static void reachable(checker *k) {
  cdevs_graph *g = k->g;
  if (g->initial < 0) return;
  uint32_t *queue = cdevs__calloc(&g->alloc, g->nphases + 1, sizeof *queue);
  uint8_t *seen = cdevs__calloc(&g->alloc, g->nphases + 1, 1);
  if (!queue || !seen) {
    cdevs__free(&g->alloc, queue, (g->nphases + 1) * sizeof *queue);
    cdevs__free(&g->alloc, seen, g->nphases + 1);
    say(k, 1, CDEVS_GRAPH_WHOLE, -1, -1, "out of memory");
    return;
  }
  uint32_t head = 0, tail = 0;
  queue[tail++] = (uint32_t)g->initial, seen[g->initial] = 1;
  while (head < tail) {
    const gphase *p = &g->phases[queue[head++]];
    if (p->internal >= 0 && !seen[g->trans[p->internal].to])
      seen[g->trans[p->internal].to] = 1, queue[tail++] = (uint32_t)g->trans[p->internal].to;
    for (uint32_t i = 0; i < p->next; i++) {
      uint32_t to = (uint32_t)g->trans[g->ext_of[p->ext0 + i]].to;
      if (!seen[to]) seen[to] = 1, queue[tail++] = to;
    }
  }
  for (uint32_t p = 0; p < g->nphases; p++)
    if (!seen[p])
      say(k, 0, CDEVS_GRAPH_PHASE, (int)p, -1, "phase '%s' is unreachable: no transition leads to it from '%s'",
          g->phases[p].name, g->phases[g->initial].name);
  cdevs__free(&g->alloc, queue, (g->nphases + 1) * sizeof *queue);
  cdevs__free(&g->alloc, seen, g->nphases + 1);
}

cdevs_status cdevs_graph_check(cdevs_graph *g, cdevs_graph_report_fn report, void *ud) {
  if (!g) return CDEVS_EINVAL;
  if (g->frozen) return g->checked_ok ? CDEVS_OK : g->status ? g->status : CDEVS_EINVAL;
  if (g->status != CDEVS_OK) {
    if (report) report(ud, 1, CDEVS_GRAPH_WHOLE, -1, -1, g->errmsg);
    g->frozen = 1;
    return g->status;
  }
  g->frozen = 1;
  checker K = {g, report, ud, 0}, *k = &K;
  /* 1. Names once, and one initial phase. */
  twice(k);
  for (uint32_t p = 0; p < g->nphases; p++) {
    if (!g->phases[p].initial) continue;
    if (g->initial < 0) {
      g->initial = (int32_t)p;
    } else {
      say(k, 1, CDEVS_GRAPH_PHASE, (int)p, g->initial, "a second initial phase ('%s' is the first): a graph "
          "starts in exactly one", g->phases[g->initial].name);
    }
  }
  if (g->initial < 0) say(k, 1, CDEVS_GRAPH_WHOLE, -1, -1, "no initial phase: a graph starts in exactly one");
  /* 2. At most one internal transition from a phase. */
  for (uint32_t t = 0; t < g->ntrans; t++) {
    gtrans *tr = &g->trans[t];
    if (tr->external) continue;
    gphase *p = &g->phases[tr->from];
    if (p->internal >= 0)
      say(k, 1, CDEVS_GRAPH_TRANSITION, (int)t, p->internal, "phase '%s' has a second internal transition: its "
          "lifetime can end in one way only", p->name);
    else
      p->internal = (int32_t)t;
  }
  if (index_transitions(g)) {
    say(k, 1, CDEVS_GRAPH_WHOLE, -1, -1, "out of memory");
    return g->status;
  }
  /* 3. Ways out of each phase. */
  for (uint32_t i = 0; i < g->nphases; i++) {
    const gphase *p = &g->phases[i];
    double life;
    int known = const_life(g, p, &life);
    if (known && (life < 0 || isnan(life)))
      say(k, 1, CDEVS_GRAPH_PHASE, (int)i, -1, "phase '%s' has lifetime %g: it must be >= 0", p->name, life);
    else if (p->internal < 0 && !(known && isinf(life)))
      say(k, 1, CDEVS_GRAPH_PHASE, (int)i, -1, "phase '%s' has a %s lifetime and no internal transition: when it "
          "ends the graph has nowhere to go (give it one, or lifetime = inf)", p->name, known ? "finite" : "variable");
    else if (p->internal >= 0 && known && isinf(life))
      say(k, 0, CDEVS_GRAPH_TRANSITION, p->internal, -1, "the internal transition from '%s' never fires: the phase "
          "is passive (lifetime = inf)", p->name);
    if (known && isinf(life) && !p->next)
      say(k, 0, CDEVS_GRAPH_PHASE, (int)i, -1, "phase '%s' is a dead end: passive (lifetime = inf) with no external "
          "transition, the graph stays there for ever", p->name);
  }
  /* 4. Zero-lifetime cycles, ambiguous guards, unreachable phases. */
  zero_cycles(k);
  ambiguous(k);
  reachable(k);
  if (k->errors) return g->status ? g->status : CDEVS_EINVAL;
  g->ops.state_size = sizeof(gstate) + (g->nvars + g->nin) * sizeof(double) + g->nin;
  g->checked_ok = 1;
  return CDEVS_OK;
}

/* ---- Models and inspection ---------------------------------------------------------- */

const cdevs_atomic_ops *cdevs_graph_ops(cdevs_graph *g) {
  return g && cdevs_graph_check(g, NULL, NULL) == CDEVS_OK ? &g->ops : NULL;
}

cdevs_model *cdevs_graph_atomic_add(cdevs_model *parent, const char *name, cdevs_graph *g) {
  const cdevs_atomic_ops *ops = cdevs_graph_ops(g);
  if (!ops) {
    if (parent) cdevs_model_fail(parent, g ? g->status : CDEVS_EINVAL, "%s", g ? g->errmsg : "no graph");
    return NULL;
  }
  return cdevs_atomic_add(parent, name, ops, &g);
}

const cdevs_graph *cdevs_graph_of(const cdevs_model *atomic) {
  const cdevs_atomic_ops *ops = atomic ? cdevs_model_ops(atomic) : NULL;
  if (!ops || ops->init != cdevs__graph_ops_template.init) return NULL;
  return (const cdevs_graph *)(const void *)ops; /* (ops is the graph's first member) */
}

const char *cdevs_graph_name(const cdevs_graph *g) { return g->name; }
int cdevs_graph_phase_count(const cdevs_graph *g) { return (int)g->nphases; }
const char *cdevs_graph_phase_name(const cdevs_graph *g, int p) {
  return p >= 0 && (uint32_t)p < g->nphases ? g->phases[p].name : NULL;
}
int cdevs_graph_phase_internal(const cdevs_graph *g, int p) {
  return p >= 0 && (uint32_t)p < g->nphases ? g->phases[p].internal : -1;
}
int cdevs_graph_transition_count(const cdevs_graph *g) { return (int)g->ntrans; }
int cdevs_graph_transition_get(const cdevs_graph *g, int t, cdevs_graph_transition_info *info) {
  if (t < 0 || (uint32_t)t >= g->ntrans) return -1;
  const gtrans *tr = &g->trans[t];
  *info = (cdevs_graph_transition_info){tr->external, tr->from, tr->to, tr->label ? tr->label : "",
                                        tr->where ? tr->where : ""};
  return 0;
}
int cdevs_graph_input_count(const cdevs_graph *g) { return (int)g->nin; }
const char *cdevs_graph_input_name(const cdevs_graph *g, int p) {
  return p >= 0 && (uint32_t)p < g->nin ? g->in_defs[p].name : NULL;
}
int cdevs_graph_var_count(const cdevs_graph *g) { return (int)g->nvars; }
const char *cdevs_graph_var_name(const cdevs_graph *g, int v) {
  return v >= 0 && (uint32_t)v < g->nvars ? g->vars[v].name : NULL;
}
cdevs_graph_confluence cdevs_graph_get_confluence(const cdevs_graph *g) { return g->conf; }
int cdevs_graph_initial(const cdevs_graph *g) { return g->checked_ok ? g->initial : -1; }

/* ---- Untimed abstraction ------------------------------------------------------------ */

int cdevs_graph_transition_possible(const cdevs_graph *g, int t) {
  if (t < 0 || (uint32_t)t >= g->ntrans) return -1;
  const gtrans *tr = &g->trans[t];
  double v;
  if (tr->external) return !(tr->guard.n && cdevs__graph_code_const(g, tr->guard, &v) && v == 0);
  return !const_life(g, &g->phases[tr->from], &v) || !isinf(v);
}

int cdevs_graph_reachable(const cdevs_graph *g, int from, int backward, int *via) {
  if (!g || !g->checked_ok || from < 0 || (uint32_t)from >= g->nphases || !via) return CDEVS_EINVAL;
  uint32_t *queue = cdevs__calloc(&g->alloc, g->nphases, sizeof *queue);
  if (!queue) return CDEVS_ENOMEM;
  for (uint32_t p = 0; p < g->nphases; p++) via[p] = -1;
  /* Each phase taken from the queue scans every transition in declaration order: the
   * graphs are small, and the order makes the paths (counterexamples) deterministic. */
  uint32_t head = 0, tail = 0;
  queue[tail++] = (uint32_t)from, via[from] = from;
  while (head < tail) {
    int32_t q = (int32_t)queue[head++];
    for (uint32_t t = 0; t < g->ntrans; t++) {
      const gtrans *tr = &g->trans[t];
      int32_t here = backward ? tr->to : tr->from, there = backward ? tr->from : tr->to;
      if (here != q || via[there] >= 0 || !cdevs_graph_transition_possible(g, (int)t)) continue;
      via[there] = q, queue[tail++] = (uint32_t)there;
    }
  }
  cdevs__free(&g->alloc, queue, g->nphases * sizeof *queue);
  return (int)tail;
}
