/* SPDX-License-Identifier: MIT */
/*
 * Compiles a checked syntax tree into an equation system (src/qss/system.h):
 * constants and array sizes are evaluated, for loops unrolled, each scalar variable
 * classified (state: it appears in der(); algebraic: an equation defines it;
 * discrete; parameter), the initial algorithm run, expressions turned into bytecode,
 * algebraic equations sorted by dependency, and when clauses turned into
 * zero-crossing functions with handlers.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "blocks_map.h"
#include "cdevs/continuous.h"
#include "cdevs/lang.h"
#include "core/alloc_impl.h"
#include "lang_impl.h"
#include "qss/system.h"

enum vclass { V_CONST, V_PARAM, V_STATE, V_ALG, V_DISC, V_UNKNOWN };

typedef struct sym {
  const decl *d;
  int cls;
  int dims[2], ndims; /* sizes; 0 dims: scalar */
  uint32_t size;
  uint32_t first_flat; /* index into the per-scalar classification arrays */
} sym;

typedef struct comp {
  const ast_model *m;
  lang_diag *d;
  sym *syms;
  size_t nsyms;
  /* per flat scalar: class and class index (classes are decided per scalar) */
  int *cls;
  uint32_t *cidx;
  uint32_t nflat;
  double *cval; /* values of constants and parameters, initial values of the rest */
  uint32_t counts[V_UNKNOWN];
  /* loop indices in scope */
  const char *iname[32];
  double ival[32];
  int nidx;
  cdevs__crand rng; /* rand() in start values and the initial algorithm */
  /* bytecode under construction */
  bc_ins *code;
  uint32_t ncode, capcode;
  int sp, maxsp;
  int oom;
  /* equation bookkeeping */
  bc_code *der;
  int8_t *der_set;
  bc_code *alg;     /* by algebraic index, before sorting */
  int8_t *alg_set;
  int *alg_line, *alg_col;
  int *der_line;
  /* Discretes the compiler adds (relations, sample()) after the declared ones,
   * from index ndisc_decl on, with their first values. */
  uint32_t ndisc_decl;
  double *xdisc0;
  uint32_t capxdisc;
  sys_crossing *cross;
  uint32_t ncross, capcross;
  int in_initial;
  int in_handler;
  /* Relations in the code being compiled are events (equations and crossing
   * functions, outside noEvent()); in handlers they are plain comparisons. */
  int rel_events;
  uint64_t unrolled; /* loop iterations so far: a bound keeps hostile input finite */
  cdevs_mo *mo;
} comp;

/* A library block instance (cdevs.Integrator x(...)) and a connect() between two. */
typedef struct mo_comp {
  const char *name;
  const lang_block *b;
  _Alignas(16) unsigned char arg[256];
  unsigned set; /* bit i: params[i] was given a value */
  cdevs_model *model;
} mo_comp;

typedef struct mo_conn {
  uint32_t from, to;
  int fport, tport;
} mo_conn;

struct cdevs_mo {
  char *file; /* the model's path, for the run's messages */
  mo_comp *comps;
  uint32_t ncomps;
  mo_conn *conns;
  uint32_t nconns;
  uint32_t *out_port; /* per output: the component port (kind 3) */
  cdevs_model *system;
  uint8_t *sys_out_kind;
  uint32_t *sys_out_index;
  const char **sys_out_names;
  cdevs__sys_spec spec;
  cdevs_mo_experiment exp;
  double t_end; /* cdevs_mo_set_stop's, when t_end_set */
  int t_end_set;
  cdevs_mo_jacobian jacobian; /* cdevs_mo_set_jacobian's */
  cdevs_mo_zeno zeno;         /* cdevs_mo_set_zeno's */
  char **names;   /* per flat scalar: "x[3]" */
  uint32_t nflat;
  int *cls;
  uint32_t *cidx;
  /* outputs */
  uint8_t *out_kind;
  uint32_t *out_index;
  const char **out_names;
  uint32_t n_out;
  cdevs__sys_arg arg;
};

static char *dup(const char *s) {
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

static const sym *lookup(const comp *c, const char *name) {
  for (size_t i = 0; i < c->nsyms; i++)
    if (strcmp(c->syms[i].d->name, name) == 0) return &c->syms[i];
  return NULL;
}

static int index_of(const comp *c, const char *name, double *v) {
  for (int i = c->nidx - 1; i >= 0; i--)
    if (strcmp(c->iname[i], name) == 0) {
      *v = c->ival[i];
      return 1;
    }
  return 0;
}

static int flat_index(comp *c, const sym *s, const node *ref, uint32_t *out);
static double ceval(comp *c, const node *n, int *ok);

/* Scalar value of a variable at compile time (constants, parameters, and during the
 * initial algorithm every variable's current value). */
static double var_value(comp *c, const node *n, int *ok) {
  double v;
  if (n->nkid == 0 && index_of(c, n->name, &v)) return v;
  if (strcmp(n->name, "time") == 0) return 0.0;
  const sym *s = lookup(c, n->name);
  if (!s) {
    *ok = 0;
    return 0.0;
  }
  uint32_t f;
  if (s->first_flat + s->size > c->nflat || !c->cval) {
    /* declared after the point being evaluated (a size using a later constant) */
    lang_error(c->d, n->line, n->col, "'%s' is used before its declaration", n->name);
    *ok = 0;
    return 0.0;
  }
  if (flat_index(c, s, n, &f)) {
    *ok = 0;
    return 0.0;
  }
  if (!c->in_initial && s->cls != V_CONST && s->cls != V_PARAM) {
    lang_error(c->d, n->line, n->col, "'%s' is not a constant here", n->name);
    *ok = 0;
    return 0.0;
  }
  return c->cval[f];
}

/* The built-in functions that are one op of the bytecode (besides the unary
 * cdevs_fn ones), for equations and constants alike. */
static const struct {
  const char *name;
  bc_op op;
  int arity;
} fn_ops[] = {{"min", BC_MIN, 2},   {"max", BC_MAX, 2},     {"atan2", BC_ATAN2, 2},   {"mod", BC_MOD, 2},
              {"sign", BC_SIGN, 1}, {"floor", BC_FLOOR, 1}, {"integer", BC_FLOOR, 1}, {"ceil", BC_CEIL, 1},
              {"pow", BC_POW, 2}};

static int fn_op(const char *f) {
  for (int i = 0; i < (int)(sizeof fn_ops / sizeof fn_ops[0]); i++)
    if (!strcmp(f, fn_ops[i].name)) return i;
  return -1;
}

static void arity_error(comp *c, const node *n) {
  lang_error(c->d, n->line, n->col, "%s() does not take %d argument%s", n->name, n->nkid, n->nkid == 1 ? "" : "s");
}

static double call_value(comp *c, const node *n, int *ok) {
  const char *f = strncmp(n->name, "math.", 5) == 0 ? n->name + 5 : n->name;
  double a = n->nkid > 0 ? ceval(c, n->kid[0], ok) : 0.0;
  double b = n->nkid > 1 ? ceval(c, n->kid[1], ok) : 0.0;
  if (!*ok) return 0.0; /* an argument failed (reported) */
  cdevs_fn fn = cdevs_fn_parse(f);
  int k = fn_op(f), arity = fn ? 1 : k >= 0 ? fn_ops[k].arity : -1;
  if (arity >= 0 && n->nkid != arity) {
    arity_error(c, n);
    *ok = 0;
    return 0.0;
  }
  if (arity >= 0) { /* by the evaluator of equations: one semantics for both */
    double x[2] = {a, b}, v;
    if (cdevs__bc_eval_op(fn ? (bc_ins){.op = BC_FN, .arg = (uint32_t)fn} : (bc_ins){.op = (uint8_t)fn_ops[k].op}, x,
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
    arity_error(c, n);
  } else if (is_div && b == 0.0) {
    lang_error(c->d, n->line, n->col, "%s(%g, %g) is outside the function's domain", n->name, a, b);
  } else {
    return is_div ? trunc(a / b) : is_rand ? cdevs__crand_scaled(&c->rng, a) : a;
  }
  *ok = 0;
  return 0.0;
}

static double ceval(comp *c, const node *n, int *ok) {
  if (!n) return 0.0;
  switch (n->kind) {
  case X_NUM:
  case X_BOOL: return n->num;
  case X_REF: return var_value(c, n, ok);
  case X_CALL: return call_value(c, n, ok);
  case X_NEG: return -ceval(c, n->kid[0], ok);
  case X_NOT: return ceval(c, n->kid[0], ok) == 0.0;
  case X_IF:
    for (int i = 0; i + 1 < n->nkid; i += 2)
      if (ceval(c, n->kid[i], ok) != 0.0) return ceval(c, n->kid[i + 1], ok);
    return ceval(c, n->kid[n->nkid - 1], ok);
  case X_BIN: {
    double a = ceval(c, n->kid[0], ok), b = ceval(c, n->kid[1], ok);
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
  double v = ceval(c, n, &ok);
  if (!ok) return -1;
  if (v != floor(v) || fabs(v) > 1e9) {
    lang_error(c->d, n->line, n->col, "expected an integer, got %g", v);
    return -1;
  }
  *out = (long)v;
  return 0;
}

/* The flat scalar index of ref (subscripts evaluated now); -1 after an error. */
static int flat_index(comp *c, const sym *s, const node *ref, uint32_t *out) {
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
    if (ceval_int(c, ref->kid[k], &i)) return -1;
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
    if (n->kind == Q_EQ && n->nkid == 2 && n->kid[0]->kind == X_CALL &&
        strcmp(n->kid[0]->name, "der") == 0 && n->kid[0]->nkid == 1 && n->kid[0]->kid[0]->kind == X_REF) {
      for (size_t k = 0; k < c->nsyms; k++)
        if (strcmp(c->syms[k].d->name, n->kid[0]->kid[0]->name) == 0) is_state[k] = 1;
    }
  }
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
      k->name = dup(d->name);
      if (!k->name) {
        c->oom = 1;
        break;
      }
      k->b = b;
      s->cls = V_UNKNOWN;
      s->size = 0;
      s->first_flat = flat;
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
      for (int k = 0; k < s->ndims; k++) {
        long n;
        if (ceval_int(c, d->dims->kid[k], &n)) break;
        if (n < 1 || n > 10000000) {
          lang_error(c->d, d->dims->kid[k]->line, d->dims->kid[k]->col, "size %ld of '%s' is out of range", n,
                     d->name);
          break;
        }
        s->dims[k] = (int)n;
        s->size *= (uint32_t)n;
        if (s->size > 5000000) {
          lang_error(c->d, d->line, d->col, "'%s' is too large", d->name);
          break;
        }
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
    for (uint32_t k = s->first_flat; k < flat; k++) c->cval[k] = 0.0;
    const node *init = d->value ? d->value : d->start;
    if (init) {
      c->in_initial = 1;
      int ok = 1;
      if (init->kind == X_ARRAY) {
        for (int k = 0; k < init->nkid && (uint32_t)k < s->size; k++)
          c->cval[s->first_flat + k] = ceval(c, init->kid[k], &ok);
      } else {
        double v = ceval(c, init, &ok);
        for (uint32_t k = s->first_flat; k < flat; k++) c->cval[k] = v;
      }
      c->in_initial = 0;
    }
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

static int exec_for(comp *c, const node *n, int (*body)(comp *, const node *, void *), void *ud) {
  const node *r = n->kid[0];
  long lo, step = 1;
  double hi;
  if (r->kind != X_RANGE) {
    lang_error(c->d, r->line, r->col, "a for loop needs a range a:b");
    return -1;
  }
  if (ceval_int(c, r->kid[0], &lo)) return -1;
  /* The upper bound may be real (N/3): the loop runs while i <= bound. */
  int ok = 1;
  if (r->nkid == 3) {
    if (ceval_int(c, r->kid[1], &step)) return -1;
    hi = ceval(c, r->kid[2], &ok);
    if (step == 0) {
      lang_error(c->d, r->line, r->col, "a range step must not be 0");
      return -1;
    }
  } else {
    hi = ceval(c, r->kid[1], &ok);
  }
  if (!ok) return -1;
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
    const sym *s = lookup(c, l->name);
    uint32_t f;
    if (!s || flat_index(c, s, l, &f)) return -1;
    int ok = 1;
    double v = ceval(c, n->kid[1], &ok);
    if (!ok) return -1;
    c->cval[f] = v;
    return 0;
  }
  case Q_FOR: return exec_for(c, n, exec_for_body, NULL);
  case Q_IF:
    for (int i = 0; i + 1 < n->nkid; i += 2) {
      int ok = 1;
      if (ceval(c, n->kid[i], &ok) != 0.0) return ok ? exec_list(c, n->kid[i + 1]) : -1;
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
static int is_integrator(const cdevs_atomic_ops *ops) {
  return ops == &cdevs_integrator_ops || ops == &cdevs_reset_integrator_ops;
}

/* ---- Bytecode ------------------------------------------------------------------------- */

static void emit(comp *c, bc_op op, uint32_t arg, double k, int delta) {
  /* the default allocator is malloc's, so these arrays are freed with free() */
  if (CDEVS_GROW(cdevs_alloc_default(), c->code, c->capcode, c->ncode + 1)) {
    c->oom = 1;
    return;
  }
  c->code[c->ncode++] = (bc_ins){.op = (uint8_t)op, .arg = arg, .k = k};
  c->sp += delta;
  if (c->sp > c->maxsp) c->maxsp = c->sp;
}

static int gen(comp *c, const node *n);
static int rel_event(comp *c, const node *n);

/* Pushes flat scalar f: constants inline, the rest by class and index. */
static void emit_var(comp *c, uint32_t f) {
  switch (c->cls[f]) {
  case V_CONST: emit(c, BC_CONST, 0, c->cval[f], 1); break;
  case V_PARAM: emit(c, BC_PARAM, c->cidx[f], 0, 1); break;
  case V_STATE: emit(c, BC_STATE, c->cidx[f], 0, 1); break;
  case V_ALG: emit(c, BC_ALG, c->cidx[f], 0, 1); break;
  default: emit(c, BC_DISC, c->cidx[f], 0, 1); break;
  }
}

static int gen_ref(comp *c, const node *n) {
  double v;
  if (n->nkid == 0 && index_of(c, n->name, &v)) {
    emit(c, BC_CONST, 0, v, 1);
    return 0;
  }
  if (strcmp(n->name, "time") == 0) {
    emit(c, BC_TIME, 0, 0, 1);
    return 0;
  }
  const char *dot = strchr(n->name, '.');
  if (dot) {
    lang_error(c->d, n->line, n->col, "'%s': block outputs cannot be read by equations yet", n->name);
    return -1;
  }
  const sym *s = lookup(c, n->name);
  uint32_t f;
  if (!s || flat_index(c, s, n, &f)) return -1;
  emit_var(c, f);
  return 0;
}

static int gen_call(comp *c, const node *n) {
  const char *f = strncmp(n->name, "math.", 5) == 0 ? n->name + 5 : n->name;
  int arity = n->nkid;
  cdevs_fn fn = cdevs_fn_parse(f);
  if (fn) {
    if (arity != 1) goto bad_arity;
    if (gen(c, n->kid[0])) return -1;
    emit(c, BC_FN, (uint32_t)fn, 0, 0);
    return 0;
  }
  if (!strcmp(f, "rand") || !strcmp(f, "random")) {
    if (arity != 1) goto bad_arity;
    if (!c->in_handler) {
      lang_error(c->d, n->line, n->col, "%s() can only be used in a when clause or the initial algorithm",
                 n->name);
      return -1;
    }
    if (gen(c, n->kid[0])) return -1;
    emit(c, BC_RAND, 0, 0, 0);
    return 0;
  }
  if (!strcmp(f, "pre") || !strcmp(f, "noEvent")) {
    if (arity != 1) goto bad_arity;
    int events = c->rel_events;
    if (f[0] == 'n') c->rel_events = 0; /* noEvent: its relations are read as they are */
    int rc = gen(c, n->kid[0]);
    c->rel_events = events;
    return rc;
  }
  if (!strcmp(f, "sum") || !strcmp(f, "product")) {
    /* over a whole array variable, unrolled */
    if (arity != 1 || n->kid[0]->kind != X_REF || n->kid[0]->nkid != 0 || !lookup(c, n->kid[0]->name) ||
        lookup(c, n->kid[0]->name)->ndims == 0) {
      lang_error(c->d, n->line, n->col, "%s() takes an array variable", n->name);
      return -1;
    }
    const sym *s = lookup(c, n->kid[0]->name);
    for (uint32_t k = 0; k < s->size; k++) {
      emit_var(c, s->first_flat + k);
      if (k) emit(c, f[0] == 's' ? BC_ADD : BC_MUL, 0, 0, -1);
    }
    return 0;
  }
  if (!strcmp(f, "smooth")) {
    if (arity != 2) goto bad_arity;
    return gen(c, n->kid[1]);
  }
  int op = fn_op(f);
  if (op >= 0) {
    if (arity != fn_ops[op].arity) goto bad_arity;
    for (int k = 0; k < arity; k++)
      if (gen(c, n->kid[k])) return -1;
    emit(c, fn_ops[op].op, 0, 0, 1 - arity);
    return 0;
  }
  lang_error(c->d, n->line, n->col, "%s() cannot be used in an equation", n->name);
  return -1;
bad_arity:
  arity_error(c, n);
  return -1;
}

static int gen(comp *c, const node *n) {
  switch (n->kind) {
  case X_NUM:
  case X_BOOL: emit(c, BC_CONST, 0, n->num, 1); return 0;
  case X_REF: return gen_ref(c, n);
  case X_CALL: return gen_call(c, n);
  case X_NEG:
    if (gen(c, n->kid[0])) return -1;
    emit(c, BC_NEG, 0, 0, 0);
    return 0;
  case X_NOT:
    if (gen(c, n->kid[0])) return -1;
    emit(c, BC_NOT, 0, 0, 0);
    return 0;
  case X_BIN: {
    if (c->rel_events && (n->op == T_LT || n->op == T_LE || n->op == T_GT || n->op == T_GE))
      return rel_event(c, n);
    /* a^k with a constant k (a literal, a parameter, an expression of them) becomes
     * BC_POWK when cdevs__bc_fold has folded k: one semantics for what is constant. */
    if (gen(c, n->kid[0]) || gen(c, n->kid[1])) return -1;
    bc_op op;
    switch (n->op) {
    case T_PLUS: op = BC_ADD; break;
    case T_MINUS: op = BC_SUB; break;
    case T_STAR: op = BC_MUL; break;
    case T_SLASH: op = BC_DIV; break;
    case T_CARET: op = BC_POW; break;
    case T_LT: op = BC_LT; break;
    case T_LE: op = BC_LE; break;
    case T_GT: op = BC_GT; break;
    case T_GE: op = BC_GE; break;
    case T_EQEQ: op = BC_EQ; break;
    case T_NE: op = BC_NE; break;
    case OP_AND: op = BC_AND; break;
    default: op = BC_OR; break;
    }
    emit(c, op, 0, 0, -1);
    return 0;
  }
  case X_IF: {
    /* if c1 then a elseif c2 then b else e = select(c1, a, select(c2, b, e)) */
    int pairs = n->nkid / 2;
    for (int i = 0; i < pairs; i++)
      if (gen(c, n->kid[2 * i]) || gen(c, n->kid[2 * i + 1])) return -1;
    if (gen(c, n->kid[n->nkid - 1])) return -1;
    for (int i = 0; i < pairs; i++) emit(c, BC_SELECT, 0, 0, -2);
    return 0;
  }
  default:
    lang_error(c->d, n->line, n->col, "expected a scalar expression");
    return -1;
  }
}

/* Compiles n into a fresh code block. */
static int compile_expr(comp *c, const node *n, bc_code *out) {
  c->ncode = 0;
  c->sp = c->maxsp = 0;
  if (gen(c, n) || c->oom) return -1;
  out->ins = malloc(c->ncode * sizeof *out->ins);
  if (!out->ins) {
    c->oom = 1;
    return -1;
  }
  memcpy(out->ins, c->code, c->ncode * sizeof *out->ins);
  out->n = c->ncode;
  out->max_stack = (uint32_t)c->maxsp + 1;
  return 0;
}

/* ---- Equations ------------------------------------------------------------------------- */

static int eq_list(comp *c, const node *list, void *ud);

static int comp_index(const comp *c, const char *name, size_t len) {
  for (uint32_t i = 0; i < c->mo->ncomps; i++)
    if (strlen(c->mo->comps[i].name) == len && memcmp(c->mo->comps[i].name, name, len) == 0) return (int)i;
  return -1;
}

/* "comp.port" -> component and port index in direction dir; -1 if not such a port. */
static int comp_port(const comp *c, const node *r, cdevs_dir dir, int *ci) {
  const char *dot = r->kind == X_REF ? strchr(r->name, '.') : NULL;
  if (!dot || r->nkid) return -1;
  *ci = comp_index(c, r->name, (size_t)(dot - r->name));
  if (*ci < 0) return -1;
  const cdevs_port_def *ports = dir == CDEVS_OUT ? c->mo->comps[*ci].b->ops->outputs : c->mo->comps[*ci].b->ops->inputs;
  for (int k = 0; ports && ports[k].name; k++)
    if (strcmp(ports[k].name, dot + 1) == 0) return k;
  return -1;
}

static int connect_item(comp *c, const node *n) {
  const node *a = n->kid[0], *b = n->kid[1];
  int ca, cb, pa, pb;
  mo_conn conn;
  if ((pa = comp_port(c, a, CDEVS_OUT, &ca)) >= 0 && (pb = comp_port(c, b, CDEVS_IN, &cb)) >= 0) {
    conn = (mo_conn){(uint32_t)ca, (uint32_t)cb, pa, pb};
  } else if ((pa = comp_port(c, b, CDEVS_OUT, &ca)) >= 0 && (pb = comp_port(c, a, CDEVS_IN, &cb)) >= 0) {
    conn = (mo_conn){(uint32_t)ca, (uint32_t)cb, pa, pb};
  } else {
    int a_out = comp_port(c, a, CDEVS_OUT, &ca) >= 0, a_in = comp_port(c, a, CDEVS_IN, &ca) >= 0;
    int b_out = comp_port(c, b, CDEVS_OUT, &cb) >= 0, b_in = comp_port(c, b, CDEVS_IN, &cb) >= 0;
    if (!a_out && !a_in)
      lang_error(c->d, a->line, a->col, "'%s' is not a port of a component", a->kind == X_REF ? a->name : "?");
    else if (!b_out && !b_in)
      lang_error(c->d, b->line, b->col, "'%s' is not a port of a component", b->kind == X_REF ? b->name : "?");
    else
      lang_error(c->d, n->line, n->col, "connect() needs an output and an input port: '%s' and '%s' are both %s",
                 a->name, b->name, a_in ? "inputs" : "outputs");
    return -1;
  }
  mo_conn *nc = realloc(c->mo->conns, (c->mo->nconns + 1) * sizeof *nc);
  if (!nc) return c->oom = 1, -1;
  c->mo->conns = nc;
  nc[c->mo->nconns++] = conn;
  return 0;
}

static int when_item(comp *c, const node *n);

static int eq_item(comp *c, const node *n) {
  if (n->kind == Q_FOR) return exec_for(c, n, eq_list, NULL);
  if (n->kind == Q_CONNECT) return connect_item(c, n);
  if (n->kind == Q_WHEN) return when_item(c, n);
  if (n->kind != Q_EQ) {
    lang_error(c->d, n->line, n->col, "%s is not supported in an equation section yet",
               n->kind == Q_IF ? "an if equation" : "this");
    return -1;
  }
  const node *l = n->kid[0];
  if (l->kind == X_CALL && strcmp(l->name, "der") == 0) {
    const node *r = l->kid[0];
    const sym *s = lookup(c, r->name);
    uint32_t f;
    if (!s || flat_index(c, s, r, &f)) return -1;
    uint32_t i = c->cidx[f];
    if (c->der_set[i]) {
      lang_error(c->d, n->line, n->col, "der(%s) is defined twice", r->name);
      return -1;
    }
    c->der_set[i] = 1;
    c->der_line[i] = n->line;
    c->rel_events = 1;
    int rc = compile_expr(c, n->kid[1], &c->der[i]);
    c->rel_events = 0;
    return rc;
  }
  if (l->kind == X_REF) {
    const sym *s = lookup(c, l->name);
    uint32_t f;
    if (!s || flat_index(c, s, l, &f)) return -1;
    if (c->cls[f] != V_ALG) {
      lang_error(c->d, l->line, l->col,
                 "'%s' is %s: only an algebraic variable can be defined by an equation", l->name,
                 c->cls[f] == V_STATE ? "a state (its equation is der(...) = ...)"
                 : c->cls[f] == V_DISC ? "discrete" : "a parameter or constant");
      return -1;
    }
    uint32_t a = c->cidx[f];
    if (c->alg_set[a]) {
      lang_error(c->d, l->line, l->col, "'%s' is defined by two equations", l->name);
      return -1;
    }
    c->alg_set[a] = 1;
    c->alg_line[a] = n->line;
    c->alg_col[a] = n->col;
    c->rel_events = 1;
    int rc = compile_expr(c, n->kid[1], &c->alg[a]);
    c->rel_events = 0;
    return rc;
  }
  lang_error(c->d, n->line, n->col, "expected der(x) = … or an explicit equation v = …");
  return -1;
}

static int eq_list(comp *c, const node *list, void *ud) {
  (void)ud;
  int rc = 0;
  for (int i = 0; list && i < list->nkid; i++)
    if (eq_item(c, list->kid[i])) rc = -1;
  return rc;
}

/* ---- When clauses ----------------------------------------------------------------------- */

static sys_crossing *new_cross(comp *c) {
  if (CDEVS_GROW(cdevs_alloc_default(), c->cross, c->capcross, c->ncross + 1)) {
    c->oom = 1;
    return NULL;
  }
  sys_crossing *z = &c->cross[c->ncross++];
  memset(z, 0, sizeof *z);
  return z;
}

static int handler_list(comp *c, const node *list, sys_action **acts, uint32_t *n);

static int handler_for(comp *c, const node *list, void *ud) {
  void **p = ud;
  return handler_list(c, list, (sys_action **)p[0], (uint32_t *)p[1]);
}

static int handler_list(comp *c, const node *list, sys_action **acts, uint32_t *n) {
  for (int i = 0; list && i < list->nkid; i++) {
    const node *s = list->kid[i];
    if (s->kind == Q_FOR) {
      void *ud[2] = {acts, n};
      if (exec_for(c, s, handler_for, ud)) return -1;
      continue;
    }
    if (s->kind == Q_IF) {
      /* if c1 then A elseif c2 then B else E end if: jump-unless c1 to the next
       * branch, A, jump to the end, … — the conditions are evaluated in order, once. */
      uint32_t ends[64];
      int nends = 0;
      int pairs = s->nkid / 2;
      for (int k = 0; k < pairs; k++) {
        sys_action *na = realloc(*acts, (*n + 1) * sizeof *na);
        if (!na) return c->oom = 1, -1;
        *acts = na;
        uint32_t test = (*n)++;
        memset(&na[test], 0, sizeof na[test]);
        na[test].reinit = ACT_JUMP_UNLESS;
        c->in_handler = 1;
        int bad = compile_expr(c, s->kid[2 * k], &na[test].value);
        c->in_handler = 0;
        if (bad || handler_list(c, s->kid[2 * k + 1], acts, n)) return -1;
        if (nends == 64) {
          lang_error(c->d, s->line, s->col, "too many elseif branches");
          return -1;
        }
        na = realloc(*acts, (*n + 1) * sizeof *na);
        if (!na) return c->oom = 1, -1;
        *acts = na;
        ends[nends++] = *n;
        memset(&na[*n], 0, sizeof na[*n]);
        na[(*n)++].reinit = ACT_JUMP;
        (*acts)[test].target = *n; /* a false condition goes to the next branch */
      }
      if (s->has_else && handler_list(c, s->kid[s->nkid - 1], acts, n)) return -1;
      for (int k = 0; k < nends; k++) (*acts)[ends[k]].target = *n;
      continue;
    }
    const node *target, *value;
    int reinit = 0;
    if (s->kind == Q_CALL && strcmp(s->kid[0]->name, "reinit") == 0 && s->kid[0]->nkid == 2) {
      target = s->kid[0]->kid[0], value = s->kid[0]->kid[1], reinit = 1;
    } else if ((s->kind == Q_ASSIGN || s->kind == Q_EQ) && s->kid[0]->kind == X_REF) {
      target = s->kid[0], value = s->kid[1];
    } else {
      lang_error(c->d, s->line, s->col, "only assignments, reinit() and if are supported in a when clause yet");
      return -1;
    }
    if (target->kind != X_REF) {
      lang_error(c->d, target->line, target->col, "reinit() needs a state variable");
      return -1;
    }
    const sym *sy = lookup(c, target->name);
    uint32_t f;
    if (!sy || flat_index(c, sy, target, &f)) return -1;
    if (reinit && c->cls[f] != V_STATE) {
      lang_error(c->d, target->line, target->col, "reinit() of '%s', which is not a state", target->name);
      return -1;
    }
    if (!reinit && c->cls[f] != V_DISC) {
      lang_error(c->d, target->line, target->col, "'%s' is not discrete: it cannot be assigned in a when clause",
                 target->name);
      return -1;
    }
    sys_action *na = realloc(*acts, (*n + 1) * sizeof *na);
    if (!na) {
      c->oom = 1;
      return -1;
    }
    *acts = na;
    sys_action *a = &na[(*n)++];
    memset(a, 0, sizeof *a);
    a->reinit = reinit ? ACT_REINIT : ACT_ASSIGN;
    a->target = c->cidx[f];
    c->in_handler = 1;
    int bad = compile_expr(c, value, &a->value);
    c->in_handler = 0;
    if (bad) return -1;
  }
  return 0;
}

/* A when condition as a crossing function f and the direction that fires it: a
 * relation a > b (>=, <, <=) is f = a - b, rising (falling for < and <=); any other
 * Boolean expression g (and, or, not, relations of relations) is f = g - 1/2, rising,
 * with its relations as events, so that g changes only at their crossings and f then
 * jumps. sample(start, interval) is handled by the caller. */
static int condition(comp *c, const node *cond, bc_code *f, int *dir) {
  c->rel_events = 1;
  int rc;
  if (cond->kind == X_BIN && (cond->op == T_GT || cond->op == T_GE || cond->op == T_LT || cond->op == T_LE)) {
    node diff = *cond;
    diff.op = T_MINUS;
    *dir = cond->op == T_GT || cond->op == T_GE ? 1 : -1;
    rc = compile_expr(c, &diff, f);
  } else {
    *dir = 1;
    rc = compile_expr(c, cond, f);
    if (!rc) {
      bc_ins *ins = realloc(f->ins, (f->n + 2) * sizeof *ins);
      if (!ins) {
        c->oom = 1, rc = -1;
      } else {
        f->ins = ins;
        ins[f->n++] = (bc_ins){.op = BC_CONST, .k = 0.5};
        ins[f->n++] = (bc_ins){.op = BC_SUB};
        if (f->max_stack < 3) f->max_stack = 3;
      }
    }
  }
  c->rel_events = 0;
  return rc;
}

static int same_code(const bc_code *a, const bc_code *b) {
  if (a->n != b->n) return 0;
  for (uint32_t i = 0; i < a->n; i++)
    if (a->ins[i].op != b->ins[i].op || a->ins[i].arg != b->ins[i].arg || a->ins[i].k != b->ins[i].k)
      return 0;
  return 1;
}

/* A discrete of the compiler's own, first value v: its index, or UINT32_MAX. */
static uint32_t new_disc(comp *c, double v) {
  uint32_t d = c->counts[V_DISC], k = d - c->ndisc_decl;
  if (CDEVS_GROW(cdevs_alloc_default(), c->xdisc0, c->capxdisc, k + 1)) return c->oom = 1, UINT32_MAX;
  c->xdisc0[k] = v;
  c->counts[V_DISC]++;
  return d;
}

/* A one-action handler: discrete d := k. */
static int set_disc(comp *c, sys_action **acts, uint32_t *n, uint32_t d, double k) {
  sys_action *a = realloc(*acts, (*n + 1) * sizeof *a);
  bc_ins *ins = malloc(sizeof *ins);
  if (a) *acts = a;
  if (!a || !ins) return free(ins), c->oom = 1, -1;
  a[*n] = (sys_action){.reinit = ACT_ASSIGN, .target = d, .value = {.ins = ins, .n = 1, .max_stack = 1}};
  ins[0] = (bc_ins){.op = BC_CONST, .k = k};
  (*n)++;
  return 0;
}

/* A relation a < b (<=, >, >=) read by an equation or a crossing function is an
 * event, as in Modelica: a new discrete holds the side of 0 that f = a - b is on
 * (+1, -1), kept by a crossing of f whose handlers set it, and the relation reads that
 * discrete. Between crossings the value cannot change, however rarely the code is
 * evaluated; at a crossing what reads it is evaluated again. The system sets the
 * discrete's first value from f at the start (cdevs__sys_spec's side_disc). One
 * discrete and crossing serve every relation with the same f. */
static int rel_event(comp *c, const node *n) {
  /* f into its own code: the caller's code under construction is put aside. */
  bc_ins *code = c->code;
  uint32_t ncode = c->ncode, capcode = c->capcode;
  int sp = c->sp, maxsp = c->maxsp;
  c->code = NULL, c->ncode = c->capcode = 0;
  node diff = *n;
  diff.op = T_MINUS;
  bc_code f = {0};
  int bad = compile_expr(c, &diff, &f);
  free(c->code);
  c->code = code, c->ncode = ncode, c->capcode = capcode, c->sp = sp, c->maxsp = maxsp;
  if (bad) return free(f.ins), -1;
  /* Of discretes and parameters only, it can change only at another event, where
   * it is read anew: a plain comparison. */
  int moves = 0;
  for (uint32_t i = 0; i < f.n; i++)
    moves |= f.ins[i].op == BC_STATE || f.ins[i].op == BC_TIME || f.ins[i].op == BC_ALG;
  if (!moves) {
    free(f.ins);
    c->rel_events = 0;
    int rc = gen(c, n);
    c->rel_events = 1;
    return rc;
  }
  uint32_t d = UINT32_MAX;
  for (uint32_t z = 0; z < c->ncross && d == UINT32_MAX; z++)
    if (c->cross[z].side_disc && same_code(&c->cross[z].f, &f)) d = c->cross[z].side_disc - 1;
  if (d == UINT32_MAX) {
    sys_crossing *z = new_cross(c);
    if (!z) return free(f.ins), -1;
    if ((d = new_disc(c, 0.0)) == UINT32_MAX) return -1;
    z->f = f;
    z->side_disc = d + 1;
    z->line = n->line, z->col = n->col;
    if (set_disc(c, &z->on_rise, &z->n_rise, d, 1.0) || set_disc(c, &z->on_fall, &z->n_fall, d, -1.0)) return -1;
  } else {
    free(f.ins);
  }
  emit(c, BC_DISC, d, 0, 1);
  emit(c, BC_CONST, 0, 0.0, 1);
  emit(c, n->op == T_LT ? BC_LT : n->op == T_LE ? BC_LE : n->op == T_GT ? BC_GT : BC_GE, 0, 0, -1);
  return 0;
}

/* when sample(start, interval): a crossing of time - next, whose handler first moves
 * next on by interval (next is a discrete of the compiler's, starting at start). */
static int sample_item(comp *c, const node *cond, const node *body) {
  int ok = 1;
  if (cond->nkid != 2) {
    arity_error(c, cond);
    return -1;
  }
  double start = ceval(c, cond->kid[0], &ok), interval = ok ? ceval(c, cond->kid[1], &ok) : 0.0;
  if (!ok) return -1;
  if (!isfinite(start) || !(interval > 0.0) || !isfinite(interval)) {
    lang_error(c->d, cond->line, cond->col, "sample(%g, %g): the start must be finite and the interval > 0",
               start, interval);
    return -1;
  }
  uint32_t d = new_disc(c, start);
  sys_crossing *z = d == UINT32_MAX ? NULL : new_cross(c);
  bc_ins *f = malloc(3 * sizeof *f), *step = malloc(3 * sizeof *step);
  sys_action *a = malloc(sizeof *a);
  if (!z || !f || !step || !a) return free(f), free(step), free(a), c->oom = 1, -1;
  f[0] = (bc_ins){.op = BC_TIME}, f[1] = (bc_ins){.op = BC_DISC, .arg = d}, f[2] = (bc_ins){.op = BC_SUB};
  step[0] = (bc_ins){.op = BC_DISC, .arg = d}, step[1] = (bc_ins){.op = BC_CONST, .k = interval};
  step[2] = (bc_ins){.op = BC_ADD};
  z->f = (bc_code){.ins = f, .n = 3, .max_stack = 3};
  z->line = cond->line, z->col = cond->col;
  a[0] = (sys_action){.reinit = ACT_ASSIGN, .target = d, .value = {.ins = step, .n = 3, .max_stack = 3}};
  z->on_rise = a, z->n_rise = 1;
  return handler_list(c, body, &z->on_rise, &z->n_rise);
}

static int when_item(comp *c, const node *n) {
  uint32_t first = UINT32_MAX; /* the clause's first crossing (an index: new_cross reallocates) */
  for (int i = 0; i + 1 < n->nkid; i += 2) {
    const node *cond = n->kid[i];
    if (cond->kind == X_CALL && !strcmp(cond->name, "sample")) {
      if (sample_item(c, cond, n->kid[i + 1])) return -1;
      continue;
    }
    bc_code f = {0};
    int dir;
    if (condition(c, cond, &f, &dir)) {
      free(f.ins);
      return -1;
    }
    /* "when y < s … elsewhen y > s": one crossing, one handler per direction. */
    sys_crossing *z = first != UINT32_MAX ? &c->cross[first] : NULL;
    if (z && same_code(&z->f, &f) && (dir > 0 ? z->n_rise == 0 : z->n_fall == 0)) {
      free(f.ins);
    } else {
      z = new_cross(c);
      if (!z) {
        free(f.ins);
        return -1;
      }
      z->f = f;
      z->line = cond->line, z->col = cond->col;
      if (first == UINT32_MAX) first = c->ncross - 1;
    }
    if (dir > 0 ? handler_list(c, n->kid[i + 1], &z->on_rise, &z->n_rise)
                : handler_list(c, n->kid[i + 1], &z->on_fall, &z->n_fall))
      return -1;
  }
  return 0;
}

static int alg_list(comp *c, const node *list, void *ud);

static int alg_item(comp *c, const node *n) {
  switch (n->kind) {
  case Q_FOR: return exec_for(c, n, alg_list, NULL);
  case Q_WHEN: return when_item(c, n);
  default:
    lang_error(c->d, n->line, n->col, "only when clauses are supported in an algorithm section yet");
    return -1;
  }
}

static int alg_list(comp *c, const node *list, void *ud) {
  (void)ud;
  int rc = 0;
  for (int i = 0; list && i < list->nkid; i++)
    if (alg_item(c, list->kid[i])) rc = -1;
  return rc;
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
  double r = ceval(c, v, &ok);
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
                   {"QSS4", CDEVS_QSS3, 0},       {"mLIQSS", CDEVS_LIQSS1, 0},   {"mLIQSS2", CDEVS_LIQSS2, 0},
                   {"LIQSS_BDF", CDEVS_LIQSS2, 0}, {"DASSL", CDEVS_QSS3, 0},     {"DOPRI", CDEVS_QSS3, 0},
                   {"CVODE_AM", CDEVS_QSS3, 0},   {"CVODE_BDF", CDEVS_QSS3, 0},  {"IDA", CDEVS_QSS3, 0}};
#define N_MMO_SOLVERS (sizeof mmo_solvers / sizeof mmo_solvers[0])

/* MMO_Solver = QSS3 (or method = "QSS3"): the method, or a located error naming the
 * nearest known name. */
static void annot_method(comp *c, const annot *a, cdevs_qss_method *out) {
  const node *v = a->value;
  const char *nm = (v->kind == X_REF && v->nkid == 0) || v->kind == X_STRING ? v->name : NULL;
  cdevs_qss_method qm;
  if (nm && cdevs_qss_method_parse(nm, &qm) == 0) {
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
  const char *names[6 + N_MMO_SOLVERS];
  size_t n = 0;
  for (int m = CDEVS_QSS1; m <= CDEVS_LIQSS3; m++)
    if (cdevs_qss_method_name((cdevs_qss_method)m)) names[n++] = cdevs_qss_method_name((cdevs_qss_method)m);
  for (size_t i = 0; i < N_MMO_SOLVERS; i++) names[n++] = mmo_solvers[i].name;
  const char *hint = nm ? lang_suggest(nm, names, n) : NULL;
  if (hint)
    lang_error(c->d, v->line, v->col, "unknown %s '%s'; did you mean '%s'?", a->key, nm, hint);
  else if (nm)
    lang_error(c->d, v->line, v->col, "unknown %s '%s' (QSS1, QSS2, QSS3, LIQSS1, LIQSS2 or LIQSS3)", a->key, nm);
  else
    lang_error(c->d, v->line, v->col, "%s needs a method name: QSS1, QSS2, QSS3, LIQSS1, LIQSS2 or LIQSS3", a->key);
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

static int add_output(cdevs_mo *mo, uint32_t f) {
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

static int add_comp_output(cdevs_mo *mo, const char *name, uint32_t ci, int port) {
  char *copy = grow_outputs(mo) ? NULL : dup(name);
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

/* One output reference (x, x[3], x[:], u[2, :]) from the syntax tree. */
static int output_ref(comp *c, cdevs_mo *mo, const node *r) {
  if (r->kind != X_REF) {
    lang_error(c->d, r->line, r->col, "MMO_Output lists variables");
    return -1;
  }
  int ci, port;
  if (strchr(r->name, '.')) {
    if ((port = comp_port(c, r, CDEVS_OUT, &ci)) < 0) {
      lang_error(c->d, r->line, r->col, "'%s' is not an output port of a component", r->name);
      return -1;
    }
    return add_comp_output(mo, r->name, (uint32_t)ci, port);
  }
  const sym *s = lookup(c, r->name);
  if (!s) {
    lang_error(c->d, r->line, r->col, "unknown variable '%s' in MMO_Output", r->name);
    return -1;
  }
  if (r->nkid == 0) {
    for (uint32_t k = 0; k < s->size; k++)
      if (add_output(mo, s->first_flat + k) < 0) return -1;
    return 0;
  }
  if (r->nkid != s->ndims) {
    uint32_t f;
    return flat_index(c, s, r, &f); /* reports the subscript count */
  }
  /* Each subscript is an index, ':' (all) or a range a:b or a:step:b. */
  long lo[2], step[2], hi[2];
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
  long i0 = lo[0];
  for (; i0 <= hi[0]; i0 += step[0]) {
    if (s->ndims == 1) {
      if (add_output(mo, s->first_flat + (uint32_t)(i0 - 1)) < 0) return -1;
      continue;
    }
    for (long i1 = lo[1]; i1 <= hi[1]; i1 += step[1])
      if (add_output(mo, s->first_flat + (uint32_t)((i0 - 1) * s->dims[1] + (i1 - 1))) < 0) return -1;
  }
  return 0;
}

/* Evaluates every component's modifiers into its params struct. */
static int comp_params(comp *c, cdevs_mo *mo) {
  int rc = 0;
  for (uint32_t i = 0; i < mo->ncomps; i++) {
    mo_comp *k = &mo->comps[i];
    const decl *d = lookup(c, k->name)->d;
    for (int m = 0; d->mods && m < d->mods->nkid; m++) {
      const node *eq = d->mods->kid[m];
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
        double x = ceval(c, v, &ok);
        memcpy(dst, &x, sizeof x);
      } else if (lp->kind == LP_INT) {
        long x = 0;
        if (ceval_int(c, v, &x)) ok = 0;
        int xi = (int)x;
        memcpy(dst, &xi, sizeof xi);
      } else if (lp->kind == LP_METHOD) {
        cdevs_qss_method qm;
        if (v->kind != X_REF || cdevs_qss_method_parse(v->name, &qm)) {
          lang_error(c->d, v->line, v->col, "method must be QSS1, QSS2, QSS3, LIQSS1, LIQSS2 or LIQSS3");
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
      } else { /* LP_REALS: up to 8 values, e.g. the weights of a WSum */
        if (v->kind != X_ARRAY || v->nkid < 1 || v->nkid > CDEVS_STATIC_MAX_INPUTS) {
          lang_error(c->d, v->line, v->col, "%s needs {v1, …} with 1 to %d values", key, CDEVS_STATIC_MAX_INPUTS);
          ok = 0;
        } else {
          for (int e = 0; e < v->nkid; e++) {
            double x = ceval(c, v->kid[e], &ok);
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
  }
  return rc;
}

static void fold_code(bc_code *b, void *params) { cdevs__bc_fold(b, params); }

/* ---- Driver ----------------------------------------------------------------------------- */

static void free_code(bc_code *b, void *unused) {
  (void)unused;
  free(b->ins);
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
  for (uint32_t i = 0; i < mo->ncomps; i++) free((char *)mo->comps[i].name);
  free(mo->comps), free(mo->conns), free(mo->out_port);
  free(mo->sys_out_kind), free(mo->sys_out_index), free(mo->sys_out_names);
  free(mo->names), free(mo->cls), free(mo->cidx), free(mo->out_kind), free(mo->out_index);
  free(mo->out_names);
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
      if (s->ndims == 0)
        snprintf(buf, sizeof buf, "%s", s->d->name);
      else if (s->ndims == 1)
        snprintf(buf, sizeof buf, "%s[%u]", s->d->name, k + 1);
      else
        snprintf(buf, sizeof buf, "%s[%u,%u]", s->d->name, k / (uint32_t)s->dims[1] + 1,
                 k % (uint32_t)s->dims[1] + 1);
      mo->names[s->first_flat + k] = dup(buf);
      if (!mo->names[s->first_flat + k]) return c->oom = 1, -1;
    }
  }
  /* The initial algorithm sets start values, parameters and discretes. */
  c->in_initial = 1;
  int bad = exec_list(c, m->initial);
  c->in_initial = 0;
  if (bad) return -1;
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
  int rc = eq_list(c, m->equations, NULL);
  rc |= alg_list(c, m->algorithms, NULL);
  if (rc || c->oom) return -1;
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
  sp->der = c->der, c->der = NULL;
  sp->alg = c->alg, c->alg = NULL;
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
  /* Parameters are fixed from here on: fold them into the code. */
  spec_codes(sp, fold_code, sp->params);
  /* The experiment. */
  mo->exp = (cdevs_mo_experiment){0.0, 1.0, 1e-3, 1e-6, CDEVS_QSS3};
  const node *outputs = NULL;
  const annot *start = NULL, *stop = NULL;
  int bad_exp = c->d->errors;
  for (size_t i = 0; i < m->nannots; i++) {
    const annot *a = &m->annots[i];
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
    }
  }
  if (c->d->errors != bad_exp) return -1;
  if (!(mo->exp.stop > mo->exp.start)) {
    const annot *at = stop ? stop : start;
    lang_error(c->d, at ? at->line : 1, at ? at->col : 1, "StopTime (%g) must be after StartTime (%g)",
               mo->exp.stop, mo->exp.start);
    return -1;
  }
  if (comp_params(c, mo)) return -1;
  if (outputs) {
    if (outputs->kind == X_ARRAY) {
      for (int k = 0; k < outputs->nkid; k++)
        if (output_ref(c, mo, outputs->kid[k])) return -1;
    } else if (output_ref(c, mo, outputs)) {
      return -1;
    }
  } else {
    for (uint32_t f = 0; f < c->nflat && mo->n_out < 64; f++)
      if (mo->cls[f] == V_STATE && add_output(mo, f) < 0) return -1;
    /* and the outputs of the integrators of a block diagram */
    for (uint32_t i = 0; i < mo->ncomps && mo->n_out < 64; i++) {
      const cdevs_atomic_ops *ops = mo->comps[i].b->ops;
      if (ops != &cdevs_integrator_ops && ops != &cdevs_reset_integrator_ops) continue;
      char nm[300];
      snprintf(nm, sizeof nm, "%s.y", mo->comps[i].name);
      if (add_comp_output(mo, nm, i, 0)) return -1;
    }
    /* Nothing integrated: the algebraics and discretes, so that a run shows what
     * the model computes. */
    if (!c->counts[V_STATE] && !mo->ncomps)
      for (uint32_t f = 0; f < c->nflat && mo->n_out < 64; f++)
        if ((mo->cls[f] == V_ALG || mo->cls[f] == V_DISC) && add_output(mo, f) < 0) return -1;
  }
  return c->d->errors ? -1 : 0;
}

static int load_src(const char *path, char *buf, size_t len, FILE *diag, cdevs_mo **out);

int cdevs_mo_load_text(const char *name, const char *text, size_t len, FILE *diag, cdevs_mo **out) {
  *out = NULL;
  char *buf = lang_copy_text(name, text, len, diag);
  return buf ? load_src(name, buf, len, diag, out) : -1;
}

int cdevs_mo_load(const char *path, FILE *diag, cdevs_mo **out) {
  *out = NULL;
  size_t len;
  char *buf = lang_read_file(path, diag, &len);
  return buf ? load_src(path, buf, len, diag, out) : -1;
}

/* Parses, checks and compiles buf (NUL-terminated, taken and freed). */
static int load_src(const char *path, char *buf, size_t len, FILE *diag, cdevs_mo **out) {
  lang_src src = {path, buf, len};
  lang_diag d = {&src, diag, 0, 0};
  lang_arena *a = arena_new();
  ast_model m;
  cdevs_mo *mo = calloc(1, sizeof *mo);
  comp c;
  memset(&c, 0, sizeof c);
  c.m = &m;
  c.d = &d;
  cdevs__crand_seed(&c.rng, 1);
  c.mo = mo;
  int errors = -1;
  if (mo) mo->file = dup(path);
  if (a && mo && mo->file) {
    lang_parse(&src, &d, a, &m);
    if (!d.errors) lang_check(&m, &d);
    if (!d.errors && compile(&c, mo) && !d.errors) lang_error(&d, 1, 1, "out of memory");
    errors = d.errors;
  } else if (diag) {
    fprintf(diag, "%s: out of memory\n", path);
  }
  /* What compile did not hand over to mo. */
  if (c.der)
    for (uint32_t i = 0; i < c.counts[V_STATE]; i++) free(c.der[i].ins);
  if (c.alg)
    for (uint32_t i = 0; i < c.counts[V_ALG]; i++) free(c.alg[i].ins);
  free(c.der), free(c.alg);
  if (c.cross) {
    mo->spec.cross = c.cross;
    mo->spec.n_cross = c.ncross;
  }
  free(c.syms), free(c.cls), free(c.cidx), free(c.cval), free(c.code), free(c.der_set), free(c.alg_set);
  free(c.alg_line), free(c.alg_col), free(c.der_line), free(c.xdisc0);
  arena_free(a);
  free(buf);
  if (errors != 0) {
    cdevs_mo_free(mo);
    return errors;
  }
  *out = mo;
  return 0;
}

void cdevs_mo_experiment_get(const cdevs_mo *mo, cdevs_mo_experiment *e) { *e = mo->exp; }
void cdevs_mo_set_stop(cdevs_mo *mo, double stop) {
  if (!mo) return;
  mo->t_end = stop;
  mo->t_end_set = 1;
}
void cdevs_mo_set_zeno(cdevs_mo *mo, cdevs_mo_zeno z) { mo->zeno = z; }
void cdevs_mo_set_jacobian(cdevs_mo *mo, cdevs_mo_jacobian j) {
  if (mo) mo->jacobian = j;
}
size_t cdevs_mo_output_count(const cdevs_mo *mo) { return mo->n_out; }
const char *cdevs_mo_output_name(const cdevs_mo *mo, size_t i) { return i < mo->n_out ? mo->out_names[i] : NULL; }
size_t cdevs_mo_state_count(const cdevs_mo *mo) {
  size_t n = mo->spec.n_states;
  for (uint32_t i = 0; i < mo->ncomps; i++)
    if (is_integrator(mo->comps[i].b->ops)) n++;
  return n;
}

/* One --vars subscript, q[0..len): an index, ':' (all), lo:hi or lo:step:hi. The
 * range it stands for goes to lo, step, hi; -1 if it is none of these. */
static int vars_range(const char *q, size_t len, long *lo, long *step, long *hi) {
  long v[3];
  int n = 0;
  size_t i = 0;
  while (i < len && q[i] == ' ') i++;
  if (i < len && q[i] == ':') {
    for (i++; i < len && q[i] == ' ';) i++;
    if (i != len) return -1;
    *lo = 1, *step = 1, *hi = LONG_MAX;
    return 0;
  }
  for (;;) {
    char *end;
    const char *at = q + i;
    if (n == 3 || i >= len || !(isdigit((unsigned char)*at) || *at == '-')) return -1;
    v[n] = strtol(at, &end, 10);
    if (v[n] < -INT32_MAX || v[n] > INT32_MAX) return -1; /* beyond any index; k - lo cannot overflow */
    n++;
    i = (size_t)(end - q);
    while (i < len && q[i] == ' ') i++;
    if (i == len) break;
    if (q[i++] != ':') return -1;
    while (i < len && q[i] == ' ') i++;
  }
  *lo = v[0], *hi = v[n - 1], *step = n == 3 ? v[1] : 1;
  return *step >= 1 ? 0 : -1;
}

/* Does flat variable name nm ("x", "x[3]" or "m[2,1]") fall under the --vars entry
 * p[0..len)? The entry is a name, matching the variable or every element of the
 * array, or a name with subscripts (see vars_range), one per dimension. -1 if a
 * subscript is malformed. */
static int vars_match(const char *nm, const char *p, size_t len) {
  const char *br = memchr(p, '[', len);
  size_t base = br ? (size_t)(br - p) : len;
  if (strncmp(nm, p, base) != 0 || (nm[base] != '\0' && nm[base] != '[')) return 0;
  if (!br) return 1;
  if (nm[base] != '[' || p[len - 1] != ']') return p[len - 1] != ']' ? -1 : 0;
  const char *q = br + 1, *qend = p + len - 1, *ix = nm + base + 1;
  for (;;) {
    const char *comma = memchr(q, ',', (size_t)(qend - q));
    const char *sub_end = comma ? comma : qend;
    long lo, step, hi;
    if (vars_range(q, (size_t)(sub_end - q), &lo, &step, &hi)) return -1;
    char *after;
    long k = strtol(ix, &after, 10);
    if (k < lo || k > hi || (k - lo) % step != 0) return 0;
    if (!comma) return *after == ']';
    if (*after != ',') return 0;
    q = comma + 1, ix = after + 1;
  }
}

int cdevs_mo_select_outputs(cdevs_mo *mo, const char *list, FILE *diag) {
  mo->n_out = 0;
  const char *p = list;
  while (*p) {
    const char *e = p;
    int depth = 0;
    while (*e && (depth || *e != ',')) {
      if (*e == '[') depth++;
      if (*e == ']') depth--;
      e++;
    }
    while (p < e && *p == ' ') p++; /* "x, y" as well as "x,y" */
    size_t len = (size_t)(e - p);
    while (len > 0 && p[len - 1] == ' ') len--;
    int found = 0;
    const char *dot = memchr(p, '.', len);
    if (dot) { /* comp.port */
      for (uint32_t i = 0; i < mo->ncomps && !found; i++) {
        size_t cl = strlen(mo->comps[i].name);
        if (cl != (size_t)(dot - p) || memcmp(mo->comps[i].name, p, cl)) continue;
        const cdevs_port_def *ports = mo->comps[i].b->ops->outputs;
        for (int k = 0; ports && ports[k].name; k++)
          if (strlen(ports[k].name) == len - cl - 1 && !memcmp(ports[k].name, dot + 1, len - cl - 1)) {
            char nm[300];
            snprintf(nm, sizeof nm, "%.*s", (int)len, p);
            if (add_comp_output(mo, nm, i, k)) return -1;
            found = 1;
          }
      }
    }
    /* A variable, or the elements an array name or subscripts with ranges select. */
    for (uint32_t f = 0, by_port = (uint32_t)found; f < mo->nflat && !by_port; f++) {
      if (mo->cls[f] == V_UNKNOWN) continue;
      int m = vars_match(mo->names[f], p, len);
      if (m < 0) {
        if (diag) fprintf(diag, "--vars: bad subscript in '%.*s' (an index, ':', lo:hi or lo:step:hi)\n", (int)len, p);
        return -1;
      }
      if (!m) continue;
      int rc = add_output(mo, f);
      if (rc) {
        if (diag && rc > 0) fprintf(diag, "--vars: '%s' is a parameter, not a variable\n", mo->names[f]);
        if (diag && rc < 0) fprintf(diag, "--vars: out of memory\n");
        return -1;
      }
      found = 1;
    }
    if (!found) {
      if (diag) fprintf(diag, "--vars: unknown variable '%.*s'\n", (int)len, p);
      return -1;
    }
    p = *e ? e + 1 : e;
  }
  if (!mo->n_out) {
    if (diag) fprintf(diag, "--vars: no variables named\n");
    return -1;
  }
  return 0;
}

cdevs_model *cdevs_mo_add(cdevs_model *parent, const char *name, cdevs_mo *mo, cdevs_qss_method method,
                          double tol, double abstol) {
  cdevs__sys_spec *sp = &mo->spec;
  /* The tolerances go in the argument, which the kernel copies: each instance keeps
   * its own. */
  mo->arg.dqrel = tol, mo->arg.dqmin = abstol;
  /* The equation system's ports are the outputs that are its variables. */
  free(mo->sys_out_kind), free(mo->sys_out_index), free(mo->sys_out_names);
  mo->sys_out_kind = malloc((mo->n_out ? mo->n_out : 1) * sizeof *mo->sys_out_kind);
  mo->sys_out_index = malloc((mo->n_out ? mo->n_out : 1) * sizeof *mo->sys_out_index);
  mo->sys_out_names = malloc((mo->n_out ? mo->n_out : 1) * sizeof *mo->sys_out_names);
  if (!mo->sys_out_kind || !mo->sys_out_index || !mo->sys_out_names) {
    cdevs_model_fail(parent, CDEVS_ENOMEM, "out of memory");
    return NULL;
  }
  uint32_t ns = 0;
  for (uint32_t o = 0; o < mo->n_out; o++)
    if (mo->out_kind[o] < 3) {
      mo->sys_out_kind[ns] = mo->out_kind[o];
      mo->sys_out_index[ns] = mo->out_index[o];
      mo->sys_out_names[ns] = mo->out_names[o];
      mo->out_port[o] = ns++;
    }
  sp->n_out = ns;
  sp->out_kind = mo->sys_out_kind;
  sp->out_index = mo->sys_out_index;
  sp->out_names = mo->sys_out_names;
  mo->arg.spec = sp;
  mo->arg.method = method;
  mo->arg.t_end = mo->t_end_set ? mo->t_end : mo->exp.stop;
  mo->arg.secant_a = mo->jacobian == CDEVS_JAC_SECANT;
  mo->arg.zeno_continue = mo->zeno == CDEVS_ZENO_CONTINUE;
  int has_eqs = sp->n_states || sp->n_discs || sp->n_cross;
  cdevs_model *holder = parent, *result;
  mo->system = NULL;
  if (mo->ncomps) {
    holder = result = cdevs_coupled_add(parent, name);
    if (has_eqs) mo->system = cdevs_atomic_add(holder, "equations", &cdevs__system_ops, &mo->arg);
  } else {
    result = mo->system = cdevs_atomic_add(holder, name, &cdevs__system_ops, &mo->arg);
  }
  for (uint32_t o = 0; mo->system && o < ns; o++)
    cdevs_port_add(mo->system, CDEVS_OUT, mo->sys_out_names[o], CDEVS_TAYLOR);
  for (uint32_t i = 0; i < mo->ncomps; i++) {
    mo_comp *k = &mo->comps[i];
    /* Integrators take the run's method and quanta unless the model set them. */
    if (is_integrator(k->b->ops)) {
      cdevs_integrator_params *ip = (cdevs_integrator_params *)(void *)k->arg;
      if (!(k->set & 1u)) ip->method = method;
      if (!(k->set & 4u)) ip->dqrel = tol;
      if (!(k->set & 8u)) ip->dqmin = abstol;
    }
    k->model = cdevs_atomic_add(holder, k->name, k->b->ops, k->b->arg_size ? k->arg : NULL);
  }
  for (uint32_t i = 0; i < mo->nconns; i++) {
    const mo_conn *cn = &mo->conns[i];
    cdevs_connect_i(holder, mo->comps[cn->from].model, cn->fport, mo->comps[cn->to].model, cn->tport);
  }
  return result;
}

int cdevs_mo_output_source(const cdevs_mo *mo, size_t i, const cdevs_model **atomic, int *port) {
  if (i >= mo->n_out) return -1;
  if (mo->out_kind[i] == 3) {
    *atomic = mo->comps[mo->out_index[i]].model;
    *port = (int)mo->out_port[i];
  } else {
    *atomic = mo->system;
    *port = (int)mo->out_port[i];
  }
  return *atomic ? 0 : -1;
}

void cdevs_mo_stats_sim(const cdevs_mo *mo, cdevs_sim *sim, cdevs_mo_stats *st) {
  memset(st, 0, sizeof *st);
  if (mo->system) cdevs_mo_stats_get(cdevs_sim_state(sim, mo->system), st);
  for (uint32_t i = 0; i < mo->ncomps; i++) {
    const cdevs_atomic_ops *ops = mo->comps[i].b->ops;
    if (is_integrator(ops) && mo->comps[i].model)
      st->steps += cdevs_integrator_steps(cdevs_sim_state(sim, mo->comps[i].model));
  }
}

void cdevs_mo_stats_get(const void *state, cdevs_mo_stats *st) {
  cdevs__sys_stats s;
  cdevs__system_stats(state, &s);
  st->steps = s.steps;
  st->crossings = s.crossings;
  st->refreshes = s.refreshes;
  st->reinits = s.reinits;
  st->zeno = s.zeno;
  st->zeno_t = s.zeno_t;
}
