/* SPDX-License-Identifier: MIT */
/*
 * Compiles a checked syntax tree into an equation system (src/qss/system.h):
 * constants and array sizes are evaluated, for loops unrolled, each scalar variable
 * classified (state: it appears in der(); algebraic: an equation defines it;
 * discrete; parameter), the initial algorithm run, the equations compiled
 * (equations.c), algebraic equations sorted by dependency, the experiment and the
 * outputs read; and the driver that loads a file.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/continuous.h"
#include "compile_impl.h"
#include "core/alloc_impl.h"

char *lang_dup(const char *s) {
  size_t n = strlen(s) + 1;
  char *r = malloc(n);
  if (r) memcpy(r, s, n);
  return r;
}

static void *xcalloc(comp *c, size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) c->oom = 1;
  return p;
}

/* ---- Symbols and constant evaluation ------------------------------------------------ */

const sym *lang_lookup(const comp *c, const char *name) {
  for (size_t i = 0; i < c->nsyms; i++)
    if (strcmp(c->syms[i].d->name, name) == 0) return &c->syms[i];
  return NULL;
}

int lang_index_of(const comp *c, const char *name, double *v) {
  for (int i = c->nidx - 1; i >= 0; i--)
    if (strcmp(c->iname[i], name) == 0) {
      *v = c->ival[i];
      return 1;
    }
  return 0;
}


int lang_builtin_const(const char *name, double *v) {
  static const struct {
    const char *name;
    double v;
  } k[] = {{"pi", 3.14159265358979323846},
           {"Modelica.Constants.pi", 3.14159265358979323846},
           {"Modelica.Constants.e", 2.71828182845904523536},
           {"Modelica.Constants.eps", 2.220446049250313e-16}, /* DBL_EPSILON, as the MSL has it */
           {"Modelica.Constants.small", 1e-60},
           {"Modelica.Constants.g_n", 9.80665}};
  for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
    if (!strcmp(name, k[i].name)) return *v = k[i].v, 1;
  return 0;
}

/* A value drawn from a distribution, or computed from one, read at n (of s): noted
 * (read_rnd), or an error where the value must be the same in every replication.
 * 1 after the error. */
static int drawn_here(comp *c, const node *n, const sym *s) {
  if (!c->fixed_what) {
    c->read_rnd = 1;
    return 0;
  }
  lang_error(c->d, n->line, n->col, "'%s' is drawn from a distribution (line %d), so it changes from one replication "
             "to the next: it cannot be used in %s", n->name, LANG_LINE(s->d->line), c->fixed_what);
  return 1;
}

/* Scalar value of a variable at compile time (constants, parameters, and during the
 * initial algorithm every variable's current value). */
static double var_value(comp *c, const node *n, int *ok) {
  double v;
  if (n->nkid == 0 && lang_index_of(c, n->name, &v)) return v;
  if (strcmp(n->name, "time") == 0) return 0.0;
  const sym *s = lang_lookup(c, n->name);
  if (!s && n->nkid == 0 && lang_builtin_const(n->name, &v)) return v;
  if (!s) {
    *ok = 0;
    return 0.0;
  }
  uint32_t f;
  if (!s->done || s->first_flat + s->size > c->nflat || !c->cval) {
    /* declared after the point being evaluated (a size using a later constant, a
       binding reading a later parameter, or its own value) */
    lang_error(c->d, n->line, n->col, "'%s' is used before its declaration", n->name);
    *ok = 0;
    return 0.0;
  }
  if (lang_flat_index(c, s, n, &f)) {
    *ok = 0;
    return 0.0;
  }
  if (!c->in_initial && s->cls != V_CONST && s->cls != V_PARAM) {
    lang_error(c->d, n->line, n->col, "'%s' is not a constant here", n->name);
    *ok = 0;
    return 0.0;
  }
  if (c->rnd && c->rnd[f] && drawn_here(c, n, s)) {
    *ok = 0;
    return 0.0;
  }
  return c->cval[f];
}

/* The built-in functions that are one op of the bytecode (besides the unary
 * cdevs_fn ones), for equations and constants alike. */
const lang_fn_op_def lang_fn_ops[] = {{"min", BC_MIN, 2},   {"max", BC_MAX, 2},     {"atan2", BC_ATAN2, 2},   {"mod", BC_MOD, 2},
              {"sign", BC_SIGN, 1}, {"floor", BC_FLOOR, 1}, {"integer", BC_FLOOR, 1}, {"ceil", BC_CEIL, 1},
              {"pow", BC_POW, 2}};

int lang_fn_op(const char *f) {
  for (int i = 0; i < 9; i++) /* the table's entries */
    if (!strcmp(f, lang_fn_ops[i].name)) return i;
  return -1;
}

void lang_arity_error(comp *c, const node *n) {
  lang_error(c->d, n->line, n->col, "%s() does not take %d argument%s", n->name, n->nkid, n->nkid == 1 ? "" : "s");
}

typedef struct {
  double acc;
  int prod, ok;
} fold_acc;

static int fold_body(comp *c, const node *e, void *ud) {
  fold_acc *a = ud;
  double v = lang_ceval(c, e, &a->ok);
  if (!a->ok) return -1;
  a->acc = a->prod ? a->acc * v : a->acc + v;
  return 0;
}

/* sum() or product() at compile time: of sum(e for i in r), or of an array of
 * constants and parameters. */
static double fold_value(comp *c, const node *n, int prod, int *ok) {
  fold_acc a = {prod ? 1.0 : 0.0, prod, 1};
  const node *x = n->kid[0];
  if (x->kind == Q_FOR) {
    if (lang_exec_for(c, x, fold_body, &a)) *ok = 0;
    return a.acc;
  }
  const sym *s = x->kind == X_REF && x->nkid == 0 ? lang_lookup(c, x->name) : NULL;
  if (!s || s->ndims == 0) {
    lang_error(c->d, n->line, n->col, "%s() takes an array variable or e for i in a:b", n->name);
    *ok = 0;
    return 0.0;
  }
  if ((s->cls != V_CONST && s->cls != V_PARAM && !c->in_initial) || !c->cval) {
    lang_error(c->d, x->line, x->col, "'%s' is not a constant here", x->name);
    *ok = 0;
    return 0.0;
  }
  for (uint32_t k = 0; k < s->size; k++) {
    if (c->rnd && c->rnd[s->first_flat + k] && drawn_here(c, x, s)) {
      *ok = 0;
      return 0.0;
    }
    a.acc = prod ? a.acc * c->cval[s->first_flat + k] : a.acc + c->cval[s->first_flat + k];
  }
  return a.acc;
}

static double call_value(comp *c, const node *n, int *ok) {
  const char *f = strncmp(n->name, "math.", 5) == 0 ? n->name + 5 : n->name;
  if ((!strcmp(f, "sum") || !strcmp(f, "product")) && n->nkid == 1) return fold_value(c, n, f[0] == 'p', ok);
  if (lang_is_dist(n->name)) {
    lang_error(c->d, n->line, n->col, "%s() draws a parameter's value: declare one (parameter Real p = %s(...);) and "
               "use it here", n->name, n->name);
    *ok = 0;
    return 0.0;
  }
  double a = n->nkid > 0 ? lang_ceval(c, n->kid[0], ok) : 0.0;
  double b = n->nkid > 1 ? lang_ceval(c, n->kid[1], ok) : 0.0;
  if (!*ok) return 0.0; /* an argument failed (reported) */
  cdevs_fn fn = cdevs_fn_parse(f);
  int k = lang_fn_op(f), arity = fn ? 1 : k >= 0 ? lang_fn_ops[k].arity : -1;
  if (arity >= 0 && n->nkid != arity) {
    lang_arity_error(c, n);
    *ok = 0;
    return 0.0;
  }
  if (arity >= 0) { /* by the evaluator of equations: one semantics for both */
    double x[2] = {a, b}, v;
    if (cdevs__bc_eval_op(fn ? (bc_ins){.op = BC_FN, .arg = (uint32_t)fn} : (bc_ins){.op = (uint8_t)lang_fn_ops[k].op}, x,
                          arity, &v)) {
      if (n->nkid > 1)
        lang_error(c->d, n->line, n->col, "%s(%g, %g) is outside the function's domain", n->name, a, b);
      else
        lang_error(c->d, n->line, n->col, "%s(%g) is outside the function's domain", n->name, a);
      *ok = 0;
      return 0.0;
    }
    return v;
  }
  int is_div = !strcmp(f, "div"), is_rand = !strcmp(f, "rand") || !strcmp(f, "random");
  int is_id = !strcmp(f, "pre") || !strcmp(f, "noEvent");
  if (!is_div && !is_rand && !is_id) {
    lang_error(c->d, n->line, n->col, "%s() cannot be evaluated here", n->name);
  } else if (n->nkid != (is_div ? 2 : 1)) {
    lang_arity_error(c, n);
  } else if (is_div && b == 0.0) {
    lang_error(c->d, n->line, n->col, "%s(%g, %g) is outside the function's domain", n->name, a, b);
  } else {
    return is_div ? trunc(a / b) : is_rand ? cdevs__crand_scaled(&c->rng, a) : a;
  }
  *ok = 0;
  return 0.0;
}

double lang_ceval(comp *c, const node *n, int *ok) {
  if (!n) return 0.0;
  switch (n->kind) {
  case X_NUM:
  case X_BOOL: return n->num;
  case X_REF: return var_value(c, n, ok);
  case X_CALL: return call_value(c, n, ok);
  case X_NEG: return -lang_ceval(c, n->kid[0], ok);
  case X_NOT: return lang_ceval(c, n->kid[0], ok) == 0.0;
  case X_IF:
    for (int i = 0; i + 1 < n->nkid; i += 2)
      if (lang_ceval(c, n->kid[i], ok) != 0.0) return lang_ceval(c, n->kid[i + 1], ok);
    return lang_ceval(c, n->kid[n->nkid - 1], ok);
  case X_BIN: {
    double a = lang_ceval(c, n->kid[0], ok), b = lang_ceval(c, n->kid[1], ok);
    switch (n->op) {
    case T_PLUS: return a + b;
    case T_MINUS: return a - b;
    case T_STAR: return a * b;
    case T_SLASH: return a / b;
    case T_CARET: return pow(a, b);
    case T_LT: return a < b;
    case T_LE: return a <= b;
    case T_GT: return a > b;
    case T_GE: return a >= b;
    case T_EQEQ: return a == b;
    case T_NE: return a != b;
    case OP_AND: return a != 0.0 && b != 0.0;
    case OP_OR: return a != 0.0 || b != 0.0;
    }
    break;
  }
  default: break;
  }
  lang_error(c->d, n->line, n->col, "expected a scalar expression");
  *ok = 0;
  return 0.0;
}

static int ceval_int(comp *c, const node *n, long *out) {
  int ok = 1;
  double v = lang_ceval(c, n, &ok);
  if (!ok) return -1;
  if (v != floor(v) || fabs(v) > 1e9) {
    lang_error(c->d, n->line, n->col, "expected an integer, got %g", v);
    return -1;
  }
  *out = (long)v;
  return 0;
}

/* The flat scalar index of ref (subscripts evaluated now); -1 after an error. */
int lang_flat_index(comp *c, const sym *s, const node *ref, uint32_t *out) {
  if (ref->nkid != s->ndims) {
    lang_error(c->d, ref->line, ref->col, "'%s' has %d subscript%s, not %d", s->d->name, s->ndims,
               s->ndims == 1 ? "" : "s", ref->nkid);
    return -1;
  }
  uint32_t off = 0;
  for (int k = 0; k < s->ndims; k++) {
    long i;
    if (ref->kid[k]->kind == X_COLON) {
      lang_error(c->d, ref->kid[k]->line, ref->kid[k]->col, "':' is allowed only in MMO_Output");
      return -1;
    }
    const char *fixed = c->fixed_what;
    c->fixed_what = "a subscript";
    int bad = ceval_int(c, ref->kid[k], &i);
    c->fixed_what = fixed;
    if (bad) return -1;
    if (i < 1 || i > s->dims[k]) {
      lang_error(c->d, ref->kid[k]->line, ref->kid[k]->col, "index %ld out of bounds 1..%d of '%s'", i,
                 s->dims[k], s->d->name);
      return -1;
    }
    off = off * (uint32_t)s->dims[k] + (uint32_t)(i - 1);
  }
  *out = s->first_flat + off;
  return 0;
}

/* ---- Pass 1: declarations, classes, sizes -------------------------------------------- */

/* Marks the states: every variable named inside der() on an equation's left side. */
static void mark_states(comp *c, const node *list, uint8_t *is_state) {
  if (!list) return;
  for (int i = 0; i < list->nkid; i++) {
    const node *n = list->kid[i];
    if (n->kind == Q_FOR && n->nkid > 1) mark_states(c, n->kid[1], is_state);
    if (n->kind == Q_IF) /* the branches of an if equation */
      for (int k = 1; k < n->nkid; k += 2) mark_states(c, n->kid[k], is_state);
    if (n->kind == Q_IF && n->has_else) mark_states(c, n->kid[n->nkid - 1], is_state);
    if (n->kind == Q_EQ && n->nkid == 2 && n->kid[0]->kind == X_CALL &&
        strcmp(n->kid[0]->name, "der") == 0 && n->kid[0]->nkid == 1 && n->kid[0]->kid[0]->kind == X_REF) {
      for (size_t k = 0; k < c->nsyms; k++)
        if (strcmp(c->syms[k].d->name, n->kid[0]->kid[0]->name) == 0) is_state[k] = 1;
    }
  }
}

static void elem_leave(comp *c, const sym *s) {
  if (s->d->elem) c->nidx--;
}

/* The expression binding flat element k of s, from e (its value or start; across:
 * see decl's value_across): an array literal's entry for it (a 2-D array's by rows,
 * {{1, 2}, {3, 4}}, or flat), or e itself. Of an array of components (d->elem) the
 * component's index is put in scope for it, and elem_leave takes it out. NULL after a
 * located error: a literal of another size (its missing entries were zeros). */
static const node *elem_enter(comp *c, const sym *s, const node *e, int across, uint32_t k) {
  const decl *d = s->d;
  uint32_t rows = s->size, cols = s->ndims == 2 ? (uint32_t)s->dims[1] : 1, per = 1;
  if (s->ndims == 2) rows = (uint32_t)s->dims[0];
  if (d->elem) {
    if (c->nidx == 32) {
      lang_error(c->d, d->line, d->col, "'%s': components and loops nested too deeply", d->name);
      return NULL;
    }
    per = s->size / (uint32_t)s->dims[0];
    c->iname[c->nidx] = d->elem;
    c->ival[c->nidx++] = (double)(k / per + 1);
    if (across) rows = (uint32_t)s->dims[0], cols = per;
    else rows = per, cols = 1, k %= per;
  }
  if (e->kind != X_ARRAY) return e;
  if ((uint32_t)e->nkid == rows * cols && (cols == 1 || e->kid[0]->kind != X_ARRAY)) return e->kid[k];
  if (cols > 1 && (uint32_t)e->nkid == rows && e->kid[k / cols]->kind == X_ARRAY &&
      (uint32_t)e->kid[k / cols]->nkid == cols)
    return e->kid[k / cols]->kid[k % cols];
  if (!d->elem)
    lang_error(c->d, e->line, e->col, "'%s' has %u elements, its value %d", d->name, s->size, e->nkid);
  else if (across)
    lang_error(c->d, e->line, e->col, "'%s' of %u components: the modifier gives %d values, not one per component "
               "('each' gives one value to all)", d->name, (unsigned)s->dims[0], e->nkid);
  else
    lang_error(c->d, e->line, e->col, "'%s' has %u element%s in each component, its value %d", d->name, per,
               per == 1 ? "" : "s", e->nkid);
  elem_leave(c, s);
  return NULL;
}

/* The name of element k of s: x, x[3], u[2,5]. */
static void flat_name(const sym *s, uint32_t k, char *buf, size_t size) {
  if (s->ndims == 0)
    snprintf(buf, size, "%s", s->d->name);
  else if (s->ndims == 1)
    snprintf(buf, size, "%s[%u]", s->d->name, k + 1);
  else
    snprintf(buf, size, "%s[%u,%u]", s->d->name, k / (uint32_t)s->dims[1] + 1, k % (uint32_t)s->dims[1] + 1);
}

static int is_dist_call(const node *e) { return e->kind == X_CALL && lang_is_dist(e->name); }

/* Flat scalar f among the parameters drawn (law NULL: computed from drawn values):
 * 0, or -1 when out of memory. */
static int note_drawn(comp *c, uint32_t f, const char *law) {
  cdevs_mo *mo = c->mo;
  uint32_t n = mo->ndrawn;
  uint32_t *nf = realloc(mo->drawn, (n + 1) * sizeof *nf);
  if (nf) mo->drawn = nf;
  double *nv = nf ? realloc(mo->drawn_val, (n + 1) * sizeof *nv) : NULL;
  if (nv) mo->drawn_val = nv;
  char **nl = nv ? realloc(mo->drawn_law, (n + 1) * sizeof *nl) : NULL;
  if (nl) mo->drawn_law = nl;
  char *copy = law ? lang_dup(law) : NULL;
  if (!nl || (law && !copy)) {
    free(copy);
    return c->oom = 1, -1;
  }
  mo->drawn[n] = f, mo->drawn_val[n] = NAN, mo->drawn_law[n] = copy; /* the value once compiled */
  mo->ndrawn = n + 1;
  return 0;
}

static int term_build(comp *c, cdevs_mo *mo, const node *v, cdevs_lang_term *t, int depth);
static void term_free(cdevs_lang_term *t);

/* Element k of parameter s drawn from the distribution e (Uniform(1, 2)), on the
 * stream of its name and the substream of the replication: its value; *ok = 0 after
 * a located error (the distribution's parameters). */
static double draw_param(comp *c, const sym *s, uint32_t k, const node *e, int *ok) {
  char name[300], msg[256] = "", law[512];
  flat_name(s, k, name, sizeof name);
  cdevs_lang_term t;
  double v = 0.0;
  int rc = term_build(c, c->mo, e, &t, 0);
  if (!rc && lang_random()->draw(&t, name, c->seed, c->rep, &v, msg, sizeof msg)) {
    lang_error(c->d, e->line, e->col, "%s of parameter '%s': %s", e->name, name, msg[0] ? msg : "not a valid distribution");
    rc = -1;
  }
  if (!rc) { /* the law as written, its arguments evaluated */
    size_t len = (size_t)snprintf(law, sizeof law, "%s(", e->name);
    for (int i = 0; i < t.n && len < sizeof law; i++)
      len += (size_t)snprintf(law + len, sizeof law - len, "%s%.10g", i ? ", " : "", t.kid[i].num);
    if (len < sizeof law) snprintf(law + len, sizeof law - len, ")");
    rc = note_drawn(c, s->first_flat + k, law);
  }
  term_free(&t);
  if (rc) *ok = 0;
  return v;
}

static int declare(comp *c) {
  const ast_model *m = c->m;
  c->syms = xcalloc(c, m->ndecls, sizeof *c->syms);
  uint8_t *is_state = xcalloc(c, m->ndecls, 1);
  if (c->oom) return -1;
  c->nsyms = m->ndecls;
  for (size_t i = 0; i < m->ndecls; i++) c->syms[i].d = &m->decls[i];
  mark_states(c, m->equations, is_state);
  /* Sizes, in declaration order (a size may use an earlier constant). */
  uint32_t flat = 0;
  int errors = c->d->errors;
  for (size_t i = 0; i < m->ndecls; i++) {
    sym *s = &c->syms[i];
    const decl *d = s->d;
    if (d->block && d->graph) { /* a DEVS graph: its ports now, the rest once the constants are known */
      mo_comp *nc = realloc(c->mo->comps, (c->mo->ncomps + 1) * sizeof *nc);
      if (!nc) {
        c->oom = 1;
        break;
      }
      c->mo->comps = nc;
      mo_comp *k = &nc[c->mo->ncomps++];
      memset(k, 0, sizeof *k);
      k->name = lang_dup(d->name);
      k->line = d->line, k->col = d->col;
      if (!k->name || lang_graph_declare(c, k, d)) {
        c->oom = 1;
        break;
      }
      s->cls = V_UNKNOWN;
      s->size = 0;
      s->first_flat = flat;
      s->done = 1;
      continue;
    }
    if (d->block) {
      const lang_block *b = strncmp(d->block, "cdevs.", 6) == 0 ? lang_block_find(d->block + 6) : NULL;
      if (!b) {
        const char *names[64];
        size_t nn = lang_block_names(names, 64);
        const char *base = strrchr(d->block, '.') ? strrchr(d->block, '.') + 1 : d->block;
        const char *hint = lang_suggest(base, names, nn);
        if (hint)
          lang_error(c->d, d->line, d->col, "unknown block type '%s'; did you mean 'cdevs.%s'?", d->block, hint);
        else
          lang_error(c->d, d->line, d->col, "unknown block type '%s' (cdevs list-blocks lists them)", d->block);
        break;
      }
      if (d->dims) {
        lang_error(c->d, d->line, d->col, "arrays of components are not supported yet");
        break;
      }
      mo_comp *nc = realloc(c->mo->comps, (c->mo->ncomps + 1) * sizeof *nc);
      if (!nc) {
        c->oom = 1;
        break;
      }
      c->mo->comps = nc;
      mo_comp *k = &nc[c->mo->ncomps++];
      memset(k, 0, sizeof *k);
      k->name = lang_dup(d->name);
      if (!k->name) {
        c->oom = 1;
        break;
      }
      k->b = b;
      k->line = d->line, k->col = d->col;
      k->arg = calloc(1, b->arg_size ? b->arg_size : 1);
      if (!k->arg) {
        c->oom = 1;
        break;
      }
      if (b->defaults) b->defaults(k->arg);
      s->cls = V_UNKNOWN;
      s->size = 0;
      s->first_flat = flat;
      s->done = 1;
      continue;
    }
    s->cls = d->kind == D_CONST ? V_CONST : d->kind == D_PARAM ? V_PARAM
             : d->kind == D_DISCRETE || d->is_integer || d->is_boolean ? V_DISC
             : is_state[i] ? V_STATE : V_ALG;
    s->size = 1;
    if (d->dims) {
      if (d->dims->nkid > 2) {
        lang_error(c->d, d->line, d->col, "'%s': at most 2 dimensions are supported", d->name);
        continue;
      }
      s->ndims = d->dims->nkid;
      int bad = 0;
      for (int k = 0; k < s->ndims && !bad; k++) {
        long n;
        c->fixed_what = "an array's size";
        bad = ceval_int(c, d->dims->kid[k], &n) != 0;
        c->fixed_what = NULL;
        if (bad) break;
        if ((bad = n < 1 || n > 10000000)) {
          lang_error(c->d, d->dims->kid[k]->line, d->dims->kid[k]->col, "size %ld of '%s' is out of range", n,
                     d->name);
          break;
        }
        s->dims[k] = (int)n;
        s->size *= (uint32_t)n;
        if ((bad = s->size > 5000000)) lang_error(c->d, d->line, d->col, "'%s' is too large", d->name);
      }
      if (bad) { /* said; the declaration is left out (its bindings would read its sizes) */
        s->cls = V_UNKNOWN;
        s->size = 0;
        s->first_flat = flat;
        s->done = 1;
        continue;
      }
    }
    s->first_flat = flat;
    flat += s->size;
    if (flat > 5000000) {
      lang_error(c->d, d->line, d->col, "the model has too many variables");
      break;
    }
    /* Constants need their values before later sizes are evaluated. */
    c->nflat = flat;
    double *nv = realloc(c->cval, (flat ? flat : 1) * sizeof *nv);
    if (!nv) {
      c->oom = 1;
      break;
    }
    c->cval = nv;
    uint8_t *nr = realloc(c->rnd, flat ? flat : 1);
    if (!nr) {
      c->oom = 1;
      break;
    }
    c->rnd = nr;
    for (uint32_t k = s->first_flat; k < flat; k++) c->cval[k] = 0.0, c->rnd[k] = 0;
    /* (An input's binding is its equation when nothing is connected to it.) */
    const node *init = d->value && d->kind != D_INPUT ? d->value : d->start;
    if (init) {
      c->in_initial = 1;
      c->read_rnd = 0;
      if (d->kind == D_CONST) c->fixed_what = "a constant's value";
      int ok = 1, param = d->kind == D_PARAM && init == d->value;
      uint32_t drawn = c->mo->ndrawn;
      if (init->kind == X_ARRAY || d->elem) { /* element by element */
        int across = init == d->value ? d->value_across : d->start_across;
        for (uint32_t k = 0; k < s->size && ok; k++) {
          const node *e = elem_enter(c, s, init, across, k);
          if (!e) break;
          c->cval[s->first_flat + k] = param && is_dist_call(e) ? draw_param(c, s, k, e, &ok) : lang_ceval(c, e, &ok);
          elem_leave(c, s);
        }
      } else if (param && is_dist_call(init)) { /* each element its own draw */
        for (uint32_t k = 0; k < s->size && ok; k++) c->cval[s->first_flat + k] = draw_param(c, s, k, init, &ok);
      } else {
        double v = lang_ceval(c, init, &ok);
        for (uint32_t k = s->first_flat; k < flat; k++) c->cval[k] = v;
      }
      c->fixed_what = NULL;
      c->in_initial = 0;
      if (ok && (c->mo->ndrawn != drawn || c->read_rnd)) { /* its value changes from one replication to the next */
        for (uint32_t k = s->first_flat; k < flat; k++) c->rnd[k] = 1;
        if (param && c->mo->ndrawn == drawn) /* computed from drawn values */
          for (uint32_t k = 0; k < s->size && ok; k++) ok = !note_drawn(c, s->first_flat + k, NULL);
        if (!ok) break;
      }
    }
    s->done = 1;
  }
  free(is_state);
  if (c->d->errors != errors || c->oom) return -1;
  c->cls = xcalloc(c, flat, sizeof *c->cls);
  c->cidx = xcalloc(c, flat, sizeof *c->cidx);
  if (c->oom) return -1;
  for (size_t i = 0; i < c->nsyms; i++) {
    sym *s = &c->syms[i];
    if (s->cls == V_UNKNOWN) continue; /* a component */
    for (uint32_t k = 0; k < s->size; k++) {
      c->cls[s->first_flat + k] = s->cls;
      c->cidx[s->first_flat + k] = c->counts[s->cls]++;
    }
  }
  return 0;
}

/* ---- Statements at initialisation ------------------------------------------------------- */

static int exec_list(comp *c, const node *list);

int lang_exec_for(comp *c, const node *n, int (*body)(comp *, const node *, void *), void *ud) {
  const node *r = n->kid[0];
  long lo, step = 1;
  double hi = 0.0;
  if (r->kind != X_RANGE) {
    lang_error(c->d, r->line, r->col, "a for loop needs a range a:b");
    return -1;
  }
  const char *fixed = c->fixed_what;
  c->fixed_what = "a loop's range";
  /* The upper bound may be real (N/3): the loop runs while i <= bound. */
  int ok = !ceval_int(c, r->kid[0], &lo);
  if (ok && r->nkid == 3) {
    ok = !ceval_int(c, r->kid[1], &step);
    if (ok) hi = lang_ceval(c, r->kid[2], &ok);
  } else if (ok) {
    hi = lang_ceval(c, r->kid[1], &ok);
  }
  c->fixed_what = fixed;
  if (!ok) return -1;
  if (step == 0) {
    lang_error(c->d, r->line, r->col, "a range step must not be 0");
    return -1;
  }
  if (!isfinite(hi) || fabs(hi) > 1e9) {
    lang_error(c->d, r->line, r->col, "the loop bound %g is out of range", hi);
    return -1;
  }
  if (c->nidx == 32) {
    lang_error(c->d, n->line, n->col, "for loops nested too deeply");
    return -1;
  }
  int k = c->nidx++;
  c->iname[k] = n->name ? n->name : "";
  int rc = 0;
  for (long i = lo; step > 0 ? (double)i <= hi : (double)i >= hi; i += step) {
    if (++c->unrolled > 50000000) {
      lang_error(c->d, n->line, n->col, "the model unrolls more than 5e7 loop iterations");
      rc = -1;
      break;
    }
    c->ival[k] = (double)i;
    if ((rc = body(c, n->kid[1], ud))) break;
  }
  c->nidx--;
  return rc;
}

static int exec_for_body(comp *c, const node *list, void *ud) {
  (void)ud;
  return exec_list(c, list);
}

static int exec_item(comp *c, const node *n) {
  switch (n->kind) {
  case Q_ASSIGN:
  case Q_EQ: {
    const node *l = n->kid[0];
    if (l->kind != X_REF) {
      lang_error(c->d, l->line, l->col, "expected a variable to assign");
      return -1;
    }
    const sym *s = lang_lookup(c, l->name);
    uint32_t f;
    if (!s || lang_flat_index(c, s, l, &f)) return -1;
    int ok = 1;
    c->read_rnd = 0;
    double v = lang_ceval(c, n->kid[1], &ok);
    if (!ok) return -1;
    c->cval[f] = v;
    if (c->read_rnd) c->rnd[f] = 1;
    return 0;
  }
  case Q_FOR: return lang_exec_for(c, n, exec_for_body, NULL);
  case Q_IF:
    for (int i = 0; i + 1 < n->nkid; i += 2) {
      int ok = 1;
      if (lang_ceval(c, n->kid[i], &ok) != 0.0) return ok ? exec_list(c, n->kid[i + 1]) : -1;
      if (!ok) return -1;
    }
    return n->has_else ? exec_list(c, n->kid[n->nkid - 1]) : 0;
  default:
    lang_error(c->d, n->line, n->col, "this statement is not supported in an initial algorithm");
    return -1;
  }
}

static int exec_list(comp *c, const node *list) {
  for (int i = 0; list && i < list->nkid; i++)
    if (exec_item(c, list->kid[i])) return -1;
  return 0;
}

/* The blocks that hold a state (an integrator, plain or with a reset input). */
int lang_is_integrator(const cdevs_atomic_ops *ops) {
  return ops == &cdevs_integrator_ops || ops == &cdevs_reset_integrator_ops;
}

/* ---- Algebraic order ----------------------------------------------------------------- */

/* fn(code, arg) on every code of a system: nd derivatives, na algebraics, and nz
 * crossings' functions and handler steps (a NULL array counts as empty). */
typedef void code_fn(bc_code *, void *);
static void walk_codes(bc_code *der, uint32_t nd, bc_code *alg, uint32_t na, sys_crossing *cross, uint32_t nz,
                       code_fn *fn, void *arg) {
  for (uint32_t k = 0; der && k < nd; k++) fn(&der[k], arg);
  for (uint32_t k = 0; alg && k < na; k++) fn(&alg[k], arg);
  for (uint32_t z = 0; cross && z < nz; z++) {
    fn(&cross[z].f, arg);
    for (uint32_t a = 0; a < cross[z].n_rise; a++) fn(&cross[z].on_rise[a].value, arg);
    for (uint32_t a = 0; a < cross[z].n_fall; a++) fn(&cross[z].on_fall[a].value, arg);
  }
}
/* The same over the codes being compiled, and over a finished spec. */
static void each_code(comp *c, code_fn *fn, void *arg) {
  walk_codes(c->der, c->counts[V_STATE], c->alg, c->counts[V_ALG], c->cross, c->ncross, fn, arg);
}
static void spec_codes(cdevs__sys_spec *sp, code_fn *fn, void *arg) {
  walk_codes(sp->der, sp->n_states, sp->alg, sp->n_algs, sp->cross, sp->n_cross, fn, arg);
}

static void renumber_algs(bc_code *code, void *rank) {
  for (uint32_t i = 0; i < code->n; i++)
    if (code->ins[i].op == BC_ALG) code->ins[i].arg = ((const uint32_t *)rank)[code->ins[i].arg];
}

/* The declaration that flat variable f belongs to. */
static const sym *sym_of_flat(const comp *c, uint32_t f) {
  for (size_t i = 0; i < c->nsyms; i++)
    if (f >= c->syms[i].first_flat && f < c->syms[i].first_flat + c->syms[i].size) return &c->syms[i];
  return NULL;
}

/* Marks in the byte array arg the algebraics a code reads. */
static void mark_algs(bc_code *code, void *arg) {
  for (uint32_t i = 0; i < code->n; i++)
    if (code->ins[i].op == BC_ALG) ((uint8_t *)arg)[code->ins[i].arg] = 1;
}

/* Orders the algebraic variables so each reads only earlier ones; a cycle is an
 * algebraic loop, reported with the variables in it. Renumbers BC_ALG operands. */
static int sort_algs(comp *c, cdevs_mo *mo) {
  uint32_t na = c->counts[V_ALG];
  uint32_t *order = xcalloc(c, na, sizeof *order), *rank = xcalloc(c, na, sizeof *rank);
  uint8_t *state = xcalloc(c, na, 1); /* 0 new, 1 on the path, 2 done */
  uint32_t *stack = xcalloc(c, na + 1, sizeof *stack), *it = xcalloc(c, na + 1, sizeof *it);
  int rc = 0;
  if (c->oom) goto out;
  uint32_t no = 0;
  for (uint32_t r = 0; r < na && !rc; r++) {
    if (state[r]) continue;
    int top = 0;
    stack[0] = r, it[0] = 0, state[r] = 1;
    while (top >= 0 && !rc) {
      uint32_t a = stack[top];
      const bc_code *code = &c->alg[a];
      int pushed = 0;
      while (it[top] < code->n) {
        const bc_ins *in = &code->ins[it[top]++];
        if (in->op != BC_ALG) continue;
        if (state[in->arg] == 1) {
          /* The cycle is the path from in->arg to a; name its variables. */
          int from = top;
          while (from > 0 && stack[from] != in->arg) from--;
          char msg[512];
          size_t ml = 0;
          for (int k = from; k <= top && ml < sizeof msg - 80; k++)
            for (uint32_t f = 0; f < c->nflat; f++)
              if (c->cls[f] == V_ALG && c->cidx[f] == stack[k]) {
                ml += (size_t)snprintf(msg + ml, sizeof msg - ml, "%s%s", k > from ? ", " : "", mo->names[f]);
                break;
              }
          lang_error(c->d, c->alg_line[in->arg], c->alg_col[in->arg], "algebraic loop between %s", msg);
          rc = -1;
          break;
        }
        if (state[in->arg] == 0) {
          state[in->arg] = 1;
          stack[++top] = in->arg;
          it[top] = 0;
          pushed = 1;
          break;
        }
      }
      if (!pushed && !rc) {
        state[a] = 2;
        rank[a] = no;
        order[no++] = a;
        top--;
      }
    }
  }
  if (!rc) {
    bc_code *sorted = xcalloc(c, na, sizeof *sorted);
    if (c->oom) {
      rc = -1;
      goto out;
    }
    for (uint32_t k = 0; k < na; k++) sorted[k] = c->alg[order[k]];
    free(c->alg);
    c->alg = sorted;
    for (uint32_t k = 0; k < na; k++) order[k] = (uint32_t)c->alg_line[order[k]]; /* lines, in the new order */
    for (uint32_t k = 0; k < na; k++) c->alg_line[k] = (int)order[k];
    /* Renumber every BC_ALG operand, and the class indices of the algebraic scalars. */
    each_code(c, renumber_algs, rank);
    for (uint32_t f = 0; f < c->nflat; f++)
      if (c->cls[f] == V_ALG) c->cidx[f] = rank[c->cidx[f]];
  }
out:
  free(order), free(rank), free(state), free(stack), free(it);
  return rc || c->oom ? -1 : 0;
}

/* ---- Experiment annotation and outputs ------------------------------------------------ */

/* The number an experiment annotation gives (the first element of {v}, as QSS
 * Solver writes them): 0, or -1 after a located error (not a number, or not finite). */
static int annot_number(comp *c, const annot *a, double *out) {
  const node *v = a->value;
  if (v->kind == X_ARRAY && v->nkid > 0) v = v->kid[0];
  if (v->kind == X_STRING) {
    lang_error(c->d, v->line, v->col, "%s needs a number, not a string", a->key);
    return -1;
  }
  int ok = 1;
  int saved = c->d->errors;
  c->fixed_what = "an experiment annotation";
  double r = lang_ceval(c, v, &ok);
  c->fixed_what = NULL;
  if (!ok) {
    /* ceval has said why, at the expression; one error, not two */
    if (c->d->errors == saved) lang_error(c->d, a->line, a->col, "%s needs a number", a->key);
    return -1;
  }
  if (!isfinite(r)) {
    lang_error(c->d, v->line, v->col, "%s is %g: it needs a finite number", a->key, r);
    return -1;
  }
  *out = r;
  return 0;
}

/* A tolerance from the annotation, held to the rule of the command line's flag:
 * Tolerance >= 0 (0: the absolute quantum alone), AbsTolerance > 0. */
static void annot_tolerance(comp *c, const annot *a, int zero_ok, double *out) {
  double v;
  if (annot_number(c, a, &v)) return;
  const node *at = a->value->kind == X_ARRAY && a->value->nkid > 0 ? a->value->kid[0] : a->value;
  if (zero_ok ? !(v >= 0) : !(v > 0))
    lang_error(c->d, at->line, at->col, "%s is %g: it needs a value %s 0", a->key, v, zero_ok ? ">=" : ">");
  else
    *out = v;
}

/* QSS Solver's solvers (the names its compiler, mmoc, accepts) that are not ours by
 * name: the same method under another name, or the nearest we have, said aloud. */
static const struct {
  const char *name;
  cdevs_qss_method method;
  int same;
} mmo_solvers[] = {{"QSS", CDEVS_QSS1, 1},        {"LIQSS", CDEVS_LIQSS1, 1},    {"CQSS", CDEVS_QSS1, 0},
                   {"QSS4", CDEVS_QSS3, 0},       {"mLIQSS", CDEVS_MLIQSS1, 1},  {"mLIQSS3", CDEVS_MLIQSS2, 0},
                   {"DASSL", CDEVS_CVODE_BDF, 0}, {"DOPRI", CDEVS_CVODE_AM, 0},
                   {"IDA", CDEVS_CVODE_BDF, 0}};
#define N_MMO_SOLVERS (sizeof mmo_solvers / sizeof mmo_solvers[0])

/* MMO_Solver = QSS3 (or method = "QSS3"): the method, or a located error naming the
 * nearest known name. */
static void annot_method(comp *c, const annot *a, cdevs_qss_method *out) {
  const node *v = a->value;
  const char *nm = (v->kind == X_REF && v->nkid == 0) || v->kind == X_STRING ? v->name : NULL;
  cdevs_qss_method qm;
  if (nm && cdevs_mo_method_parse(nm, &qm) == 0) {
    *out = qm;
    return;
  }
  for (size_t i = 0; nm && i < N_MMO_SOLVERS; i++)
    if (!strcmp(nm, mmo_solvers[i].name)) {
      *out = mmo_solvers[i].method;
      if (!mmo_solvers[i].same)
        lang_warning(c->d, a->line, a->col, "MMO_Solver %s is not available here; using %s", nm,
                     cdevs_qss_method_name(*out));
      return;
    }
  const char *names[12 + N_MMO_SOLVERS];
  size_t n = 0;
  for (int m = CDEVS_QSS1; m <= CDEVS_MLIQSS2; m++)
    if (cdevs_qss_method_name((cdevs_qss_method)m)) names[n++] = cdevs_qss_method_name((cdevs_qss_method)m);
  names[n++] = "CVODE_BDF", names[n++] = "CVODE_AM", names[n++] = "LIQSS_BDF";
  for (size_t i = 0; i < N_MMO_SOLVERS; i++) names[n++] = mmo_solvers[i].name;
  const char *hint = nm ? lang_suggest(nm, names, n) : NULL;
  if (hint)
    lang_error(c->d, v->line, v->col, "unknown %s '%s'; did you mean '%s'?", a->key, nm, hint);
  else if (nm)
    lang_error(c->d, v->line, v->col, "unknown %s '%s' (QSS1, QSS2, QSS3, LIQSS1, LIQSS2, LIQSS3, mLIQSS1, mLIQSS2, CVODE_BDF, "
               "CVODE_AM or LIQSS_BDF)", a->key, nm);
  else
    lang_error(c->d, v->line, v->col, "%s needs a method name: QSS1, QSS2, QSS3, LIQSS1, LIQSS2, LIQSS3, mLIQSS1, mLIQSS2, CVODE_BDF, "
               "CVODE_AM or LIQSS_BDF", a->key);
}

/* Room for one more output in each of the output arrays; -1 when out of memory. */
static int grow_outputs(cdevs_mo *mo) {
  uint8_t *k = realloc(mo->out_kind, (mo->n_out + 1) * sizeof *k);
  if (k) mo->out_kind = k;
  uint32_t *ix = realloc(mo->out_index, (mo->n_out + 1) * sizeof *ix);
  if (ix) mo->out_index = ix;
  const char **nm = realloc(mo->out_names, (mo->n_out + 1) * sizeof *nm);
  if (nm) mo->out_names = nm;
  uint32_t *pp = realloc(mo->out_port, (mo->n_out + 1) * sizeof *pp);
  if (pp) mo->out_port = pp;
  return k && ix && nm && pp ? 0 : -1;
}

int lang_add_output(cdevs_mo *mo, uint32_t f) {
  for (uint32_t o = 0; o < mo->n_out; o++)
    if (mo->out_names[o] == mo->names[f]) return 0;
  if (grow_outputs(mo)) return -1;
  int cls = mo->cls[f];
  if (cls != V_STATE && cls != V_ALG && cls != V_DISC) return 1;
  mo->out_kind[mo->n_out] = (uint8_t)(cls == V_STATE ? 0 : cls == V_ALG ? 1 : 2);
  mo->out_index[mo->n_out] = mo->cidx[f];
  mo->out_names[mo->n_out] = mo->names[f];
  mo->out_port[mo->n_out] = 0;
  mo->n_out++;
  return 0;
}

int lang_add_comp_output(cdevs_mo *mo, const char *name, uint32_t ci, int port) {
  char *copy = grow_outputs(mo) ? NULL : lang_dup(name);
  if (!copy) return -1;
  /* The name is owned by the model: keep it with the scalar names. */
  char **names = realloc(mo->names, (mo->nflat + 1) * sizeof *names);
  if (!names) {
    free(copy);
    return -1;
  }
  mo->names = names;
  mo->names[mo->nflat] = copy;
  int *cls = realloc(mo->cls, (mo->nflat + 1) * sizeof *cls);
  uint32_t *cidx = realloc(mo->cidx, (mo->nflat + 1) * sizeof *cidx);
  if (cls) mo->cls = cls;
  if (cidx) mo->cidx = cidx;
  if (!cls || !cidx) {
    free(copy); /* not counted in nflat yet: cdevs_mo_free would not see it */
    return -1;
  }
  mo->cls[mo->nflat] = V_UNKNOWN;
  mo->cidx[mo->nflat] = 0;
  mo->nflat++;
  mo->out_kind[mo->n_out] = 3;
  mo->out_index[mo->n_out] = ci;
  mo->out_port[mo->n_out] = (uint32_t)port;
  mo->out_names[mo->n_out] = copy;
  mo->n_out++;
  return 0;
}

/* The subscripts of an output reference r of s, each an index, ':' (all) or a range
 * a:b or a:step:b, into lo, step, hi: 0, or -1 after a located error. */
static int output_subscripts(comp *c, const sym *s, const node *r, long *lo, long *step, long *hi) {
  for (int k = 0; k < s->ndims; k++) {
    const node *x = r->kid[k];
    step[k] = 1;
    if (x->kind == X_COLON) {
      lo[k] = 1, hi[k] = s->dims[k];
      continue;
    }
    if (x->kind != X_RANGE) {
      if (ceval_int(c, x, &lo[k])) return -1;
      hi[k] = lo[k];
    } else if (ceval_int(c, x->kid[0], &lo[k]) || ceval_int(c, x->kid[x->nkid - 1], &hi[k]) ||
               (x->nkid == 3 && ceval_int(c, x->kid[1], &step[k]))) {
      return -1;
    }
    if (step[k] < 1) {
      lang_error(c->d, x->line, x->col, "an output range needs a positive step");
      return -1;
    }
    long last = lo[k] + (hi[k] - lo[k]) / step[k] * step[k]; /* the last index taken */
    if (hi[k] < lo[k]) last = lo[k] - 1;
    if (lo[k] < 1 || (last >= lo[k] && last > s->dims[k])) {
      lang_error(c->d, x->line, x->col, "index %ld out of bounds 1..%d of '%s'", lo[k] < 1 ? lo[k] : last,
                 s->dims[k], s->d->name);
      return -1;
    }
  }
  return 0;
}

/* One output reference (x, x[3], x[:], u[2, :]) from the syntax tree, in the
 * annotation key (MMO_Output, MMO_BDF_Part) for messages. */
static int output_ref(comp *c, cdevs_mo *mo, const node *r, const char *key) {
  if (r->kind != X_REF) {
    lang_error(c->d, r->line, r->col, "%s lists variables", key);
    return -1;
  }
  int ci, port;
  if (strchr(r->name, '.') && !lang_lookup(c, r->name)) {
    if ((port = lang_comp_port(c, r, CDEVS_OUT, &ci)) < 0) {
      lang_error(c->d, r->line, r->col, "'%s' is not an output port of a component", r->name);
      return -1;
    }
    return lang_add_comp_output(mo, r->name, (uint32_t)ci, port);
  }
  const sym *s = lang_lookup(c, r->name);
  if (!s) {
    lang_error(c->d, r->line, r->col, "unknown variable '%s' in %s", r->name, key);
    return -1;
  }
  if (r->nkid == 0) {
    for (uint32_t k = 0; k < s->size; k++)
      if (lang_add_output(mo, s->first_flat + k) < 0) return -1;
    return 0;
  }
  if (r->nkid != s->ndims) {
    uint32_t f;
    return lang_flat_index(c, s, r, &f); /* reports the subscript count */
  }
  long lo[2], step[2], hi[2];
  c->fixed_what = "an experiment annotation";
  int rc = output_subscripts(c, s, r, lo, step, hi);
  c->fixed_what = NULL;
  if (rc) return -1;
  long i0 = lo[0];
  for (; i0 <= hi[0]; i0 += step[0]) {
    if (s->ndims == 1) {
      if (lang_add_output(mo, s->first_flat + (uint32_t)(i0 - 1)) < 0) return -1;
      continue;
    }
    for (long i1 = lo[1]; i1 <= hi[1]; i1 += step[1])
      if (lang_add_output(mo, s->first_flat + (uint32_t)((i0 - 1) * s->dims[1] + (i1 - 1))) < 0) return -1;
  }
  return 0;
}

/* MMO_BDF_Part = {u[N/2:N], y}: the states LIQSS_BDF integrates by BDF, as a mask
 * (mo->bdf_part). Read as outputs are, before them (the list is emptied after). */
static int bdf_states(comp *c, cdevs_mo *mo, const node *v) {
  int nk = v->kind == X_ARRAY ? v->nkid : 1;
  if (nk == 0) /* (a run of LIQSS2 alone: said, as it is likely not meant) */
    lang_warning(c->d, v->line, v->col, "MMO_BDF_Part names no state: LIQSS_BDF runs as LIQSS2");
  mo->bdf_part = calloc(mo->spec.n_states + 1, 1);
  if (!mo->bdf_part) return c->oom = 1, -1;
  for (int k = 0; k < nk; k++) {
    const node *r = v->kind == X_ARRAY ? v->kid[k] : v;
    if (r->kind != X_REF || strchr(r->name, '.')) {
      lang_error(c->d, r->line, r->col, "MMO_BDF_Part lists the model's states");
      return -1;
    }
    mo->n_out = 0;
    if (output_ref(c, mo, r, "MMO_BDF_Part")) return -1;
    for (uint32_t o = 0; o < mo->n_out; o++) {
      if (mo->out_kind[o] != 0) {
        lang_error(c->d, r->line, r->col, "MMO_BDF_Part lists states: '%s' is not one", mo->out_names[o]);
        return -1;
      }
      mo->bdf_part[mo->out_index[o]] = 1;
    }
  }
  mo->n_out = 0;
  return 0;
}

/* ---- Terms: a modifier's value as written, for the blocks of other layers ---------- */

static void term_free(cdevs_lang_term *t) {
  if (!t) return;
  for (int i = 0; i < t->n; i++) term_free((cdevs_lang_term *)(uintptr_t)&t->kid[i]);
  free((void *)(uintptr_t)t->kid);
}

/* A bare name that is no variable, constant or built-in constant of the model. */
/* A name a parameter's term passes on as text: one the model does not declare (an
 * attribute), or a component's (a data module such as a cdevs.Variable). */
static int free_name(comp *c, const node *v) {
  double x;
  if (v->kind != X_REF || v->nkid != 0 || strchr(v->name, '.')) return 0;
  const sym *s = lang_lookup(c, v->name);
  if (s) return s->d && s->d->block;
  return !lang_builtin_const(v->name, &x) && strcmp(v->name, "time") != 0;
}

static const char *rel_name(int op) {
  switch (op) {
  case T_LT: return "<";
  case T_LE: return "<=";
  case T_GT: return ">";
  case T_GE: return ">=";
  case T_EQEQ: return "==";
  case T_NE: return "<>";
  }
  return NULL;
}

/* Text a parameter keeps (names of entity types, resources): owned by the model. */
static const char *mo_keep(comp *c, cdevs_mo *mo, const char *text) {
  char **ns = realloc(mo->strs, (mo->nstrs + 1) * sizeof *ns);
  if (!ns) return c->oom = 1, NULL;
  mo->strs = ns;
  if (!(ns[mo->nstrs] = lang_dup(text))) return c->oom = 1, NULL;
  return ns[mo->nstrs++];
}

/* The term of v into t (its kids malloc'd); 0, or -1 after an error was reported. */
static int term_build(comp *c, cdevs_mo *mo, const node *v, cdevs_lang_term *t, int depth) {
  memset(t, 0, sizeof *t);
  if (depth > 8) {
    lang_error(c->d, v->line, v->col, "a parameter value nested this deep means nothing here");
    return -1;
  }
  if (v->kind == X_STRING || free_name(c, v)) {
    t->kind = v->kind == X_STRING ? CDEVS_TERM_STRING : CDEVS_TERM_NAME;
    return (t->name = mo_keep(c, mo, v->name)) ? 0 : -1;
  }
  if (v->kind == X_BIN && rel_name(v->op) && free_name(c, v->kid[0])) {
    int ok = 1;
    t->kind = CDEVS_TERM_REL;
    if (!(t->name = mo_keep(c, mo, v->kid[0]->name))) return -1;
    t->op = rel_name(v->op);
    t->num = lang_ceval(c, v->kid[1], &ok);
    if (!ok) lang_error(c->d, v->kid[1]->line, v->kid[1]->col, "the right side of '%s' must be a constant", t->op);
    return ok ? 0 : -1;
  }
  const char *f = v->kind == X_CALL && !strncmp(v->name, "math.", 5) ? v->name + 5 : v->name;
  int is_call = v->kind == X_CALL && !cdevs_fn_parse(f) && lang_fn_op(f) < 0 && strcmp(f, "sum") &&
                strcmp(f, "product") && strcmp(f, "div");
  if (is_call || v->kind == X_ARRAY) {
    t->kind = is_call ? CDEVS_TERM_CALL : CDEVS_TERM_ARRAY;
    if (is_call && !(t->name = mo_keep(c, mo, v->name))) return -1;
    cdevs_lang_term *kid = calloc(v->nkid ? (size_t)v->nkid : 1, sizeof *kid);
    if (!kid) return c->oom = 1, -1;
    t->kid = kid;
    int rc = 0;
    for (int i = 0; i < v->nkid && !rc; i++) {
      rc = term_build(c, mo, v->kid[i], &kid[i], depth + 1);
      t->n = i + 1;
    }
    return rc;
  }
  int ok = 1;
  t->kind = CDEVS_TERM_NUM;
  t->num = lang_ceval(c, v, &ok);
  if (!ok && !c->d->errors) lang_error(c->d, v->line, v->col, "this value cannot be evaluated here");
  return ok ? 0 : -1;
}

/* The modifier value v of a CDEVS_LP_NAME, CDEVS_LP_REF or CDEVS_LP_TERM parameter
 * into dst: 0, or -1 after reporting. */
static int other_param(comp *c, cdevs_mo *mo, const mo_comp *k, const lang_param *lp, const node *v, unsigned char *dst) {
  if (lp->kind == LP_NAME || lp->kind == LP_REF) {
    if (v->kind != X_STRING && !(v->kind == X_REF && v->nkid == 0)) {
      lang_error(c->d, v->line, v->col, "%s needs a name%s", lp->name,
                 lp->kind == LP_REF ? "" : " (\"text\" or a bare name)");
      return -1;
    }
    if (lp->kind == LP_REF) {
      const mo_comp *to = NULL;
      for (uint32_t i = 0; i < mo->ncomps; i++)
        if (!strcmp(mo->comps[i].name, v->name)) to = &mo->comps[i];
      if (!to) {
        lang_error(c->d, v->line, v->col, "%s of %s: '%s' is not a component of this model (%s names a cdevs.%s of "
                   "this model)", lp->name, k->name, v->name, lp->name, lp->ref);
        return -1;
      }
      if (strcmp(to->b->name, lp->ref) != 0) {
        lang_error(c->d, v->line, v->col, "%s of %s: '%s' is a cdevs.%s, not a cdevs.%s", lp->name, k->name, v->name,
                   to->b->name, lp->ref);
        return -1;
      }
    }
    const char *kept = mo_keep(c, mo, v->name);
    if (!kept) return -1;
    memcpy(dst, &kept, sizeof kept);
    return 0;
  }
  cdevs_lang_term t;
  int rc = term_build(c, mo, v, &t, 0);
  char msg[256] = "";
  if (!rc && lp->convert(&t, dst, msg, sizeof msg)) {
    lang_error(c->d, v->line, v->col, "%s of %s: %s", lp->name, k->name, msg[0] ? msg : "not a valid value");
    rc = -1;
  }
  term_free(&t);
  return rc;
}

/* Evaluates every component's modifiers into its params struct. */
static int comp_params(comp *c, cdevs_mo *mo) {
  int rc = 0;
  for (uint32_t i = 0; i < mo->ncomps; i++) {
    mo_comp *k = &mo->comps[i];
    if (k->graph) { /* its modifiers are the graph's (graph.c) */
      if (lang_graph_build(c, k)) rc = -1;
      continue;
    }
    const decl *d = lang_lookup(c, k->name)->d;
    int errors = c->d->errors;
    for (int m = 0; d->mods && m < d->mods->nkid; m++) {
      const node *eq = d->mods->kid[m];
      if (eq->kind != Q_EQ) {
        lang_error(c->d, eq->line, eq->col, "%s has no component '%s' to modify", k->b->name, eq->name);
        rc = -1;
        continue;
      }
      const char *key = eq->kid[0]->name;
      const node *v = eq->kid[1];
      int pi = -1;
      for (int q = 0; k->b->params[q].name; q++)
        if (!strcmp(k->b->params[q].name, key)) pi = q;
      if (pi < 0) {
        const char *names[16];
        size_t nn = 0;
        for (int q = 0; k->b->params[q].name && nn < 16; q++) names[nn++] = k->b->params[q].name;
        const char *hint = lang_suggest(key, names, nn);
        lang_error(c->d, eq->line, eq->col, "%s has no parameter '%s'%s%s%s", k->b->name, key,
                   hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
        rc = -1;
        continue;
      }
      const lang_param *lp = &k->b->params[pi];
      unsigned char *dst = k->arg + lp->offset;
      int ok = 1;
      if (lp->kind == LP_REAL) {
        double x = lang_ceval(c, v, &ok);
        memcpy(dst, &x, sizeof x);
      } else if (lp->kind == LP_INT) {
        long x = 0;
        if (ceval_int(c, v, &x)) ok = 0;
        int xi = (int)x;
        memcpy(dst, &xi, sizeof xi);
      } else if (lp->kind == LP_METHOD) {
        cdevs_qss_method qm;
        if (v->kind != X_REF || cdevs_qss_method_parse(v->name, &qm) || cdevs_qss_method_pairs(qm)) {
          /* (mLIQSS pairs states of one equation system; a block's state is alone) */
          lang_error(c->d, v->line, v->col, "method must be QSS1, QSS2, QSS3, LIQSS1, LIQSS2 or LIQSS3%s",
                     v->kind == X_REF && !cdevs_qss_method_parse(v->name, &qm)
                         ? " (mLIQSS pairs the states of an equation system; a block integrates its own alone)"
                         : "");
          ok = 0;
        } else {
          memcpy(dst, &qm, sizeof qm);
        }
      } else if (lp->kind == LP_FN) {
        cdevs_fn fn = v->kind == X_REF ? cdevs_fn_parse(v->name) : (cdevs_fn)0;
        if (!fn) {
          lang_error(c->d, v->line, v->col, "fn must be one of sin cos tan exp log sqrt tanh atan abs");
          ok = 0;
        }
        memcpy(dst, &fn, sizeof fn);
      } else if (lp->kind == LP_NAME || lp->kind == LP_REF || lp->kind == LP_TERM) {
        if (other_param(c, mo, k, lp, v, dst)) ok = 0;
      } else { /* LP_REALS: up to 8 values, e.g. the weights of a WSum */
        if (v->kind != X_ARRAY || v->nkid < 1 || v->nkid > CDEVS_STATIC_MAX_INPUTS) {
          lang_error(c->d, v->line, v->col, "%s needs {v1, …} with 1 to %d values", key, CDEVS_STATIC_MAX_INPUTS);
          ok = 0;
        } else {
          for (int e = 0; e < v->nkid; e++) {
            double x = lang_ceval(c, v->kid[e], &ok);
            memcpy(dst + (size_t)e * sizeof x, &x, sizeof x);
          }
          if (k->b->ops == &cdevs_wsum_ops && !(k->set & 1u)) {
            int n = v->nkid; /* WSum: n defaults to the number of weights */
            memcpy(k->arg + offsetof(cdevs_wsum_params, n), &n, sizeof n);
          }
        }
      }
      if (!ok) rc = -1;
      k->set |= 1u << pi;
    }
    char msg[256] = "";
    if (c->d->errors == errors && k->b->check && k->b->check(k->arg, msg, sizeof msg)) {
      lang_error(c->d, k->line, k->col, "%s: %s", k->name, msg[0] ? msg : "invalid parameters");
      rc = -1;
    }
  }
  return rc;
}

static void fold_code(bc_code *b, void *params) { cdevs__bc_fold(b, params); }

/* ---- Driver ----------------------------------------------------------------------------- */

static void free_code(bc_code *b, void *unused) {
  (void)unused;
  free(b->ins);
}
/* A library block with signal inputs none of which anything is connected to reads 0
 * on all of them for the whole run: a forgotten connect(), most likely (a block that
 * uses some of its inputs, as UDPSend's n of eight, is left alone). A warning at the
 * component. */
static void unconnected_inputs(comp *c) {
  const cdevs_mo *mo = c->mo;
  for (uint32_t i = 0; i < mo->ncomps; i++) {
    const mo_comp *k = &mo->comps[i];
    if (k->graph) continue; /* (a DEVS graph's inputs are events it may never get) */
    int p = 0, signals = 0, fed = 0;
    const char *first = NULL;
    for (const cdevs_port_def *d = lang_block_ports(k->b, CDEVS_IN); d && d->name && !fed; d++, p++) {
      if (d->kind != CDEVS_REAL && d->kind != CDEVS_TAYLOR) continue;
      if (!signals++) first = d->name;
      for (uint32_t j = 0; j < mo->nconns && !fed; j++) fed = mo->conns[j].to == i && mo->conns[j].tport == p;
      for (uint32_t j = 0; j < mo->nlinks && !fed; j++) fed = mo->links[j].comp == i && mo->links[j].port == p;
    }
    if (signals && !fed)
      lang_warning(c->d, k->line, k->col, "nothing is connected to %s '%s' (%s.%s%s): it reads 0 for the whole run",
                   k->b->name, k->name, k->name, first, signals > 1 ? " and its other inputs" : "");
  }
}


void cdevs_mo_free(cdevs_mo *mo) {
  if (!mo) return;
  cdevs__sys_spec *sp = &mo->spec;
  spec_codes(sp, free_code, NULL);
  for (uint32_t z = 0; sp->cross && z < sp->n_cross; z++) {
    free(sp->cross[z].on_rise);
    free(sp->cross[z].on_fall);
  }
  free(sp->der), free(sp->alg), free(sp->cross), free(sp->x0), free(sp->disc0), free(sp->params);
  free(sp->state_names), free(sp->alg_names);
  free(sp->der_line), free(sp->alg_line), free(mo->file);
  for (uint32_t f = 0; mo->names && f < mo->nflat; f++) free(mo->names[f]);
  for (uint32_t i = 0; i < mo->ncomps; i++) {
    mo_comp *k = &mo->comps[i];
    free((char *)k->name), free(k->arg);
    cdevs_graph_free(k->graph), free(k->gblock), free(k->gops);
  }
  for (uint32_t i = 0; i < mo->nstrs; i++) free(mo->strs[i]);
  free(mo->strs);
  for (uint32_t k = 0; k < mo->nins; k++) free(mo->ins[k].name);
  free(mo->ins), free(mo->in0), free(mo->in_names), free(mo->links);
  free(mo->comps), free(mo->conns), free(mo->out_port);
  free(mo->sys_out_kind), free(mo->sys_out_index), free(mo->sys_out_names);
  if (mo->split_made) cdevs__sys_split_free(&mo->split);
  free(mo->bdf_part);
  free(mo->names), free(mo->cls), free(mo->cidx), free(mo->out_kind), free(mo->out_index);
  free(mo->out_names);
  for (uint32_t i = 0; i < mo->ndrawn; i++) free(mo->drawn_law[i]);
  free(mo->drawn), free(mo->drawn_val), free(mo->drawn_law);
  lang_switching_free(mo);
  for (uint32_t i = 0; i < mo->nsw; i++) {
    mo_switch *w = &mo->sw[i];
    for (uint32_t k = 0; k < w->nslots; k++) free(w->slot_name[k]);
    free(w->cls), free(w->slot_name), free(w->slot_line), free(w->slot_col), free(w->slot_state);
  }
  free(mo->sw);
  for (uint32_t i = 0; i < mo->nmodes; i++) cdevs_mo_free(mo->modes[i]);
  free(mo->modes);
  free(mo);
}

static int compile(comp *c, cdevs_mo *mo) {
  const ast_model *m = c->m;
  if (declare(c)) return -1;
  /* Names of the scalars: x, x[3], u[2,5]. */
  mo->nflat = c->nflat;
  mo->names = xcalloc(c, c->nflat, sizeof *mo->names);
  if (c->oom) return -1;
  for (size_t i = 0; i < c->nsyms; i++) {
    const sym *s = &c->syms[i];
    for (uint32_t k = 0; k < s->size; k++) {
      char buf[300];
      flat_name(s, k, buf, sizeof buf);
      mo->names[s->first_flat + k] = lang_dup(buf);
      if (!mo->names[s->first_flat + k]) return c->oom = 1, -1;
    }
  }
  /* The initial algorithm sets start values, parameters and discretes. */
  c->in_initial = 1;
  int bad = exec_list(c, m->initial);
  c->in_initial = 0;
  if (bad) return -1;
  for (uint32_t i = 0; i < mo->ndrawn; i++) mo->drawn_val[i] = c->cval[mo->drawn[i]];
  /* A parameter, constant or start value that overflowed (1e308*10, exp(1000)) or is
   * undefined would run as if nothing were wrong: an error at its declaration. */
  for (uint32_t f = 0; f < c->nflat; f++)
    if (!isfinite(c->cval[f])) {
      const sym *s = sym_of_flat(c, f);
      lang_error(c->d, s->d->line, s->d->col, "%s of '%s' is %g: not a finite number",
                 c->cls[f] == V_PARAM || c->cls[f] == V_CONST ? "the value" : "the start value",
                 mo->names[f], c->cval[f]);
      bad = 1;
    }
  if (bad) return -1;
  uint32_t ns = c->counts[V_STATE], na = c->counts[V_ALG];
  c->der = xcalloc(c, ns, sizeof *c->der);
  c->der_set = xcalloc(c, ns, 1);
  c->der_line = xcalloc(c, ns, sizeof *c->der_line);
  c->alg = xcalloc(c, na, sizeof *c->alg);
  c->alg_set = xcalloc(c, na, 1);
  c->alg_line = xcalloc(c, na, sizeof *c->alg_line);
  c->alg_col = xcalloc(c, na, sizeof *c->alg_col);
  if (c->oom) return -1;
  c->ndisc_decl = c->counts[V_DISC];
  int rc = lang_eq_list(c, m->equations, NULL);
  rc |= lang_alg_list(c, m->algorithms, NULL);
  if (rc || c->oom) return -1;
  unconnected_inputs(c);
  /* An input nothing is connected to: its binding (an array's: element by element,
   * or one value for all), before what is read is marked. */
  for (uint32_t f = 0; f < c->nflat; f++) {
    if (c->cls[f] != V_ALG || c->alg_set[c->cidx[f]]) continue;
    const sym *s = sym_of_flat(c, f);
    const node *v = s->d->value;
    if (s->d->kind != D_INPUT || !v) continue;
    const node *e = elem_enter(c, s, v, s->d->value_across, f - s->first_flat);
    if (!e) return -1;
    rc = lang_define_by(c, s->d, f, e);
    elem_leave(c, s);
    if (rc) return -1;
  }
  /* Every state needs its der() equation, every algebraic that is read its defining
   * equation. */
  uint8_t *read = xcalloc(c, na, 1);
  if (c->oom) return -1;
  each_code(c, mark_algs, read);
  for (uint32_t f = 0; f < c->nflat; f++) {
    if (c->cls[f] == V_STATE && !c->der_set[c->cidx[f]]) {
      const sym *s = sym_of_flat(c, f);
      lang_error(c->d, s->d->line, s->d->col, "no equation der(%s) = …", mo->names[f]);
      free(read);
      return -1;
    }
    if (c->cls[f] == V_ALG && !c->alg_set[c->cidx[f]]) {
      const sym *s = sym_of_flat(c, f);
      if (read[c->cidx[f]] && s->d->kind == D_INPUT) {
        /* Where it can be connected: at the component (the input's own line is in
         * its class, perhaps in another file), else at the input. */
        int inst = s->d->inst_line != 0;
        lang_error(c->d, inst ? s->d->inst_line : s->d->line, inst ? s->d->inst_col : s->d->col,
                   "input '%s'%s%s%s is not connected: connect an output to it (connect(k.y, %s)) or give it a "
                   "value (%s)", mo->names[f], inst ? " (of class " : "", inst ? s->d->inst_class : "", inst ? ")" : "",
                   mo->names[f], inst ? "a modifier of the component" : "an equation");
        free(read);
        return -1;
      }
      if (read[c->cidx[f]]) {
        lang_error(c->d, s->d->line, s->d->col,
                   "no equation defines '%s' (declare it discrete if a when clause sets it)", mo->names[f]);
        free(read);
        return -1;
      }
      /* Declared and never used, as QSS Solver's models leave some: 0 (an output of
       * it too), with a warning for each such scalar. */
      lang_warning(c->d, s->d->line, s->d->col, "no equation defines '%s' and nothing reads it: it stays 0",
                   mo->names[f]);
      bc_code *code = &c->alg[c->cidx[f]];
      if (!(code->ins = malloc(sizeof *code->ins))) return free(read), c->oom = 1, -1;
      code->ins[0] = (bc_ins){.op = BC_CONST, .k = 0.0};
      code->n = code->max_stack = 1;
      c->alg_set[c->cidx[f]] = 1;
    }
  }
  free(read);
  if (sort_algs(c, mo)) return -1;
  mo->cls = c->cls, c->cls = NULL;
  mo->cidx = c->cidx, c->cidx = NULL;
  /* The spec. */
  cdevs__sys_spec *sp = &mo->spec;
  sp->n_states = ns, sp->n_algs = na, sp->n_discs = c->counts[V_DISC], sp->n_params = c->counts[V_PARAM];
  sp->n_cross = c->ncross;
  sp->rng = c->rng;
  /* The components' outputs the equations read: the system's inputs. */
  sp->n_in = mo->nins;
  mo->in0 = xcalloc(c, mo->nins, sizeof *mo->in0);
  mo->in_names = xcalloc(c, mo->nins, sizeof *mo->in_names);
  if (c->oom) return -1;
  for (uint32_t k = 0; k < mo->nins; k++) mo->in0[k] = mo->ins[k].start, mo->in_names[k] = mo->ins[k].name;
  sp->in0 = mo->in0, sp->in_names = mo->in_names;
  sp->alg = c->alg, c->alg = NULL; /* (the loop check reads them) */
  if (lang_check_loops(c, sp)) return -1;
  sp->der = c->der, c->der = NULL;
  sp->cross = c->cross, c->cross = NULL;
  sp->x0 = xcalloc(c, ns, sizeof(double));
  sp->disc0 = xcalloc(c, sp->n_discs, sizeof(double));
  sp->params = xcalloc(c, sp->n_params, sizeof(double));
  sp->state_names = xcalloc(c, ns, sizeof(char *));
  sp->file = mo->file;
  sp->der_line = c->der_line, c->der_line = NULL;
  sp->alg_line = c->alg_line, c->alg_line = NULL;
  sp->alg_names = xcalloc(c, na, sizeof(char *));
  if (c->oom) return -1;
  for (uint32_t f = 0; f < c->nflat; f++) {
    uint32_t i = mo->cidx[f];
    switch (mo->cls[f]) {
    case V_STATE: sp->x0[i] = c->cval[f], sp->state_names[i] = mo->names[f]; break;
    case V_ALG: sp->alg_names[i] = mo->names[f]; break;
    case V_DISC: sp->disc0[i] = c->cval[f]; break;
    case V_PARAM: sp->params[i] = c->cval[f]; break;
    default: break;
    }
  }
  for (uint32_t d = c->ndisc_decl; d < sp->n_discs; d++) sp->disc0[d] = c->xdisc0[d - c->ndisc_decl];
  /* The run's messages name the model's file: a place in a class read from another
   * file is left out (line 0) rather than given as a wrong one. */
  for (uint32_t i = 0; sp->der_line && i < ns; i++)
    sp->der_line[i] = LANG_FILE(sp->der_line[i]) ? 0 : LANG_LINE(sp->der_line[i]);
  for (uint32_t i = 0; sp->alg_line && i < na; i++)
    sp->alg_line[i] = LANG_FILE(sp->alg_line[i]) ? 0 : LANG_LINE(sp->alg_line[i]);
  for (uint32_t z = 0; z < sp->n_cross; z++)
    sp->cross[z].line = LANG_FILE(sp->cross[z].line) ? 0 : LANG_LINE(sp->cross[z].line);
  /* Parameters are fixed from here on: fold them into the code. */
  spec_codes(sp, fold_code, sp->params);
  /* The experiment. */
  mo->exp = (cdevs_mo_experiment){0.0, 1.0, 1e-3, 1e-6, CDEVS_QSS3};
  const node *outputs = NULL, *bdf_part = NULL;
  const annot *start = NULL, *stop = NULL;
  mo->bdf_depth = 1;
  int bad_exp = c->d->errors;
  for (size_t i = 0; i < m->nannots; i++) {
    const annot *a = &m->annots[i];
    /* Only experiment(...)'s: a key of the same name in another annotation (a
     * Documentation, a vendor's) is not the run's. */
    if (strcmp(a->within, "experiment")) continue;
    if (!strcmp(a->key, "StartTime")) {
      if (!annot_number(c, a, &mo->exp.start)) start = a;
    } else if (!strcmp(a->key, "StopTime")) {
      if (!annot_number(c, a, &mo->exp.stop)) stop = a;
    } else if (!strcmp(a->key, "Tolerance")) {
      annot_tolerance(c, a, 1, &mo->exp.tol);
    } else if (!strcmp(a->key, "AbsTolerance")) {
      annot_tolerance(c, a, 0, &mo->exp.abstol);
    } else if (!strcmp(a->key, "MMO_Output")) {
      outputs = a->value;
    } else if (!strcmp(a->key, "MMO_Solver") || !strcmp(a->key, "method")) {
      annot_method(c, a, &mo->exp.method);
    } else if (!strcmp(a->key, "MMO_BDF_Part")) {
      bdf_part = a->value;
    } else if (!strcmp(a->key, "MMO_BDF_PDepth")) {
      double v;
      if (!annot_number(c, a, &v)) {
        if (!(v >= 0 && v <= 1000 && v == (int)v))
          lang_error(c->d, a->line, a->col, "MMO_BDF_PDepth is %g: it needs a whole number from 0 to 1000", v);
        else
          mo->bdf_depth = (int)v;
      }
    } else if (!strcmp(a->key, "MMO_BDF_Max_Step")) {
      double v;
      if (!annot_number(c, a, &v)) {
        if (!(v >= 0 && v < INFINITY)) lang_error(c->d, a->line, a->col, "MMO_BDF_Max_Step is %g: it needs a value >= 0 (0: none)", v);
        else mo->bdf_max_step = v;
      }
    }
  }
  if (c->d->errors != bad_exp) return -1;
  if (!(mo->exp.stop > mo->exp.start)) {
    const annot *at = stop ? stop : start;
    lang_error(c->d, at ? at->line : 1, at ? at->col : 1, "StopTime (%g) must be after StartTime (%g)",
               mo->exp.stop, mo->exp.start);
    return -1;
  }
  if (comp_params(c, mo) || lang_check_entity_outputs(c)) return -1;
  if (bdf_part && bdf_states(c, mo, bdf_part)) return -1;
  if (outputs) {
    if (outputs->kind == X_ARRAY) {
      for (int k = 0; k < outputs->nkid; k++)
        if (output_ref(c, mo, outputs->kid[k], "MMO_Output")) return -1;
    } else if (output_ref(c, mo, outputs, "MMO_Output")) {
      return -1;
    }
  } else {
    for (uint32_t f = 0; f < c->nflat && mo->n_out < 64; f++)
      if (mo->cls[f] == V_STATE && lang_add_output(mo, f) < 0) return -1;
    /* and the outputs of the integrators of a block diagram */
    for (uint32_t i = 0; i < mo->ncomps && mo->n_out < 64; i++) {
      const cdevs_atomic_ops *ops = mo->comps[i].b->ops;
      if (ops != &cdevs_integrator_ops && ops != &cdevs_reset_integrator_ops) continue;
      char nm[300];
      snprintf(nm, sizeof nm, "%s.y", mo->comps[i].name);
      if (lang_add_comp_output(mo, nm, i, 0)) return -1;
    }
    /* and the outputs of its DEVS graphs */
    for (uint32_t i = 0; i < mo->ncomps && mo->n_out < 64; i++) {
      const cdevs_port_def *p = mo->comps[i].graph ? lang_block_ports(mo->comps[i].b, CDEVS_OUT) : NULL;
      for (int o = 0; p && p[o].name && mo->n_out < 64; o++) {
        char nm[300];
        snprintf(nm, sizeof nm, "%s.%s", mo->comps[i].name, p[o].name);
        if (lang_add_comp_output(mo, nm, i, o)) return -1;
      }
    }
    /* Nothing integrated: the algebraics and discretes, so that a run shows what
     * the model computes. */
    if (!c->counts[V_STATE] && !mo->ncomps)
      for (uint32_t f = 0; f < c->nflat && mo->n_out < 64; f++)
        if ((mo->cls[f] == V_ALG || mo->cls[f] == V_DISC) && lang_add_output(mo, f) < 0) return -1;
  }
  return c->d->errors ? -1 : 0;
}

static int load_src(const char *path, char *buf, size_t len, FILE *diag, uint64_t seed, uint64_t rep,
                    cdevs_mo **out);

int cdevs_mo_load_text_rep(const char *name, const char *text, size_t len, FILE *diag, uint64_t seed,
                           uint64_t replication, cdevs_mo **out) {
  *out = NULL;
  char *buf = lang_copy_text(name, text, len, diag);
  return buf ? load_src(name, buf, len, diag, seed, replication, out) : -1;
}

int cdevs_mo_load_text(const char *name, const char *text, size_t len, FILE *diag, cdevs_mo **out) {
  return cdevs_mo_load_text_rep(name, text, len, diag, 0, 0, out);
}

int cdevs_mo_load(const char *path, FILE *diag, cdevs_mo **out) {
  *out = NULL;
  size_t len;
  char *buf = lang_read_file(path, diag, &len);
  return buf ? load_src(path, buf, len, diag, 0, 0, out) : -1;
}

/* One class (flattened, fm) compiled into a new model *out (NULL after errors,
 * reported on d): the drawn parameters for package seed `seed`, replication `rep`. */
typedef struct class_ctx {
  const char *path;
  lang_diag *d;
  lang_arena *a;
  uint64_t seed, rep;
} class_ctx;

static int compile_flat(const ast_model *fm, const class_ctx *x, cdevs_mo **out) {
  *out = NULL;
  cdevs_mo *mo = calloc(1, sizeof *mo);
  comp c;
  memset(&c, 0, sizeof c);
  c.m = fm;
  c.d = x->d;
  cdevs__crand_seed(&c.rng, 1);
  c.seed = x->seed, c.rep = x->rep;
  c.mo = mo;
  c.a = x->a;
  int before = x->d->errors;
  if (mo) mo->file = lang_dup(x->path);
  if (!mo || !mo->file) {
    lang_error(x->d, fm->line, fm->col, "out of memory");
  } else if (compile(&c, mo) && x->d->errors == before) {
    lang_error(x->d, 1, 1, "out of memory");
  }
  /* What compile did not hand over to mo. */
  if (c.der)
    for (uint32_t i = 0; i < c.counts[V_STATE]; i++) free(c.der[i].ins);
  if (c.alg)
    for (uint32_t i = 0; i < c.counts[V_ALG]; i++) free(c.alg[i].ins);
  free(c.der), free(c.alg);
  if (c.cross && mo) {
    mo->spec.cross = c.cross;
    mo->spec.n_cross = c.ncross;
  }
  free(c.syms), free(c.cls), free(c.cidx), free(c.cval), free(c.code), free(c.der_set), free(c.alg_set);
  free(c.alg_line), free(c.alg_col), free(c.der_line), free(c.xdisc0), free(c.relh), free(c.rnd), free(c.gseen);
  if (x->d->errors != before) {
    cdevs_mo_free(mo);
    return -1;
  }
  *out = mo;
  return 0;
}

/* A class a model switches to: flattened and compiled (lang_modes_resolve's). */
static int compile_mode(const ast_model *cls, void *ud, cdevs_mo **out) {
  const class_ctx *x = ud;
  *out = NULL;
  const ast_model *fm = lang_flatten(cls, x->path, x->d, x->a);
  return fm ? compile_flat(fm, x, out) : -1;
}

/* Parses, checks and compiles buf (NUL-terminated, taken and freed), drawing the
 * parameters that have a distribution for package seed `seed`, replication `rep`. */
static int load_src(const char *path, char *buf, size_t len, FILE *diag, uint64_t seed, uint64_t rep,
                    cdevs_mo **out) {
  lang_src src = {path, buf, len};
  lang_diag d = {.src = &src, .out = diag};
  lang_arena *a = arena_new();
  ast_model m;
  memset(&m, 0, sizeof m);
  cdevs_mo *mo = NULL;
  int errors = -1;
  if (a) {
    class_ctx x = {path, &d, a, seed, rep};
    const ast_model *fm = lang_front(&src, path, &d, a, &m);
    if (fm && !d.errors && !compile_flat(fm, &x, &mo) && mo->nsw &&
        lang_modes_resolve(mo, &m, &d, compile_mode, &x) && !d.errors)
      lang_error(&d, 1, 1, "out of memory");
    errors = d.errors;
  } else if (diag) {
    fprintf(diag, "%s: out of memory\n", path);
  }
  arena_free(a);
  free(buf);
  if (errors != 0) {
    cdevs_mo_free(mo);
    return errors ? errors : -1;
  }
  *out = mo;
  return 0;
}
