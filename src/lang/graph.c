/* SPDX-License-Identifier: MIT */
/*
 * DEVS graph classes (graph Name … end Name;): their checks on the syntax tree (names,
 * types, initial phase, transitions), and each instance compiled into a graph of the
 * graph layer (cdevs/graph.h), its expressions into the graph's postfix code with the
 * instance's parameters folded in, and checked there (lifetimes, zero-lifetime
 * cycles, ambiguous guards, reachability), each finding located in the class.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/graph.h"
#include "compile_impl.h"

/* ---- Names: a small open-addressing map from names to indices ---------------------- */

typedef struct nmap {
  const char **keys;
  int *vals;
  uint32_t cap;
} nmap;

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

static int nmap_init(nmap *m, size_t n) {
  uint32_t cap = 16;
  while (cap < 2 * n + 1 && cap < (1u << 30)) cap *= 2;
  m->keys = calloc(cap, sizeof *m->keys);
  m->vals = calloc(cap, sizeof *m->vals);
  m->cap = cap;
  return m->keys && m->vals ? 0 : -1;
}

static void nmap_free(nmap *m) { free(m->keys), free(m->vals); }

/* Inserts k -> v unless k is there: -1 if inserted, else the value it has. */
static int nmap_put(nmap *m, const char *k, int v) {
  for (uint32_t i = name_hash(k) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
    if (!m->keys[i]) {
      m->keys[i] = k, m->vals[i] = v;
      return -1;
    }
    if (!strcmp(m->keys[i], k)) return m->vals[i];
  }
}

static int nmap_get(const nmap *m, const char *k) {
  for (uint32_t i = name_hash(k) & (m->cap - 1); m->keys[i]; i = (i + 1) & (m->cap - 1))
    if (!strcmp(m->keys[i], k)) return m->vals[i];
  return -1;
}

/* ---- Scope ---------------------------------------------------------------------------- */

enum { TY_ERR = 0, TY_BOOL, TY_INT, TY_REAL };
#define NUMERIC(t) ((t) == TY_INT || (t) == TY_REAL)

/* What an expression may read: CX_CONST only parameters and constants declared before
 * decl `limit` (bindings and initial values); CX_VARS the variables, time and elapsed;
 * CX_PORTS the input ports too (an external transition's guard and assignments). */
enum { CX_CONST = 1, CX_VARS = 2, CX_PORTS = 4 };

typedef struct gscope {
  const ast_model *m;
  lang_diag *d;
  nmap decls, phases;
  size_t limit;
  /* Compiling an instance: per decl, a parameter's or constant's value (NULL while
   * checking the class), a variable's or a port's index in the graph. */
  const double *pval;
  const int *index;
  cdevs_graph_ins *code;
  uint32_t n, cap;
  int sp, maxsp, oom;
} gscope;

static const char *type_name(int t) { return t == TY_BOOL ? "Boolean" : t == TY_INT ? "Integer" : "Real"; }

static int decl_type(const decl *d) { return d->is_boolean ? TY_BOOL : d->is_integer ? TY_INT : TY_REAL; }

static int is_var(const decl *d) { return d->kind == D_REAL || d->kind == D_DISCRETE; }

/* Names a graph reads besides its declarations. */
static const char *const graph_names[] = {"time", "elapsed", "inf"};

static void unknown_name(gscope *s, const node *n) {
  size_t nc = 0, cap = s->m->ndecls + 3;
  const char **c = malloc(cap * sizeof *c);
  const char *hint = NULL;
  if (c) {
    for (size_t i = 0; i < s->m->ndecls; i++) c[nc++] = s->m->decls[i].name;
    for (size_t i = 0; i < 3; i++) c[nc++] = graph_names[i];
    hint = lang_suggest(n->name, c, nc);
  }
  lang_error(s->d, n->line, n->col, "unknown name '%s' in graph '%s'%s%s%s", n->name, s->m->name,
             hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
  free(c);
}

/* The functions a graph's expressions call: its code's op and function, the number
 * of arguments, and the result's type (TY_INT: Integer when its arguments are;
 * TY_REAL: always Real; TY_BOOL used for integer(): always Integer). */
static const struct gfn {
  const char *name;
  uint8_t op;
  uint8_t fn;
  uint8_t arity;
  uint8_t result;
} gfns[] = {
    {"sin", CDEVS_GOP_FN1, CDEVS_GFN_SIN, 1, TY_REAL},     {"cos", CDEVS_GOP_FN1, CDEVS_GFN_COS, 1, TY_REAL},
    {"tan", CDEVS_GOP_FN1, CDEVS_GFN_TAN, 1, TY_REAL},     {"asin", CDEVS_GOP_FN1, CDEVS_GFN_ASIN, 1, TY_REAL},
    {"acos", CDEVS_GOP_FN1, CDEVS_GFN_ACOS, 1, TY_REAL},   {"atan", CDEVS_GOP_FN1, CDEVS_GFN_ATAN, 1, TY_REAL},
    {"sinh", CDEVS_GOP_FN1, CDEVS_GFN_SINH, 1, TY_REAL},   {"cosh", CDEVS_GOP_FN1, CDEVS_GFN_COSH, 1, TY_REAL},
    {"tanh", CDEVS_GOP_FN1, CDEVS_GFN_TANH, 1, TY_REAL},   {"exp", CDEVS_GOP_FN1, CDEVS_GFN_EXP, 1, TY_REAL},
    {"log", CDEVS_GOP_FN1, CDEVS_GFN_LOG, 1, TY_REAL},     {"log10", CDEVS_GOP_FN1, CDEVS_GFN_LOG10, 1, TY_REAL},
    {"sqrt", CDEVS_GOP_FN1, CDEVS_GFN_SQRT, 1, TY_REAL},   {"abs", CDEVS_GOP_FN1, CDEVS_GFN_ABS, 1, TY_INT},
    {"sign", CDEVS_GOP_FN1, CDEVS_GFN_SIGN, 1, TY_BOOL},   {"floor", CDEVS_GOP_FN1, CDEVS_GFN_FLOOR, 1, TY_REAL},
    {"ceil", CDEVS_GOP_FN1, CDEVS_GFN_CEIL, 1, TY_REAL},   {"integer", CDEVS_GOP_FN1, CDEVS_GFN_FLOOR, 1, TY_BOOL},
    {"min", CDEVS_GOP_FN2, CDEVS_GFN_MIN, 2, TY_INT},      {"max", CDEVS_GOP_FN2, CDEVS_GFN_MAX, 2, TY_INT},
    {"mod", CDEVS_GOP_FN2, CDEVS_GFN_MOD, 2, TY_INT},      {"rem", CDEVS_GOP_FN2, CDEVS_GFN_REM, 2, TY_INT},
    {"div", CDEVS_GOP_FN2, CDEVS_GFN_DIV, 2, TY_INT},      {"atan2", CDEVS_GOP_FN2, CDEVS_GFN_ATAN2, 2, TY_REAL},
};

static const struct gfn *find_fn(const char *name) {
  if (!strncmp(name, "math.", 5)) name += 5;
  for (size_t i = 0; i < sizeof gfns / sizeof gfns[0]; i++)
    if (!strcmp(gfns[i].name, name)) return &gfns[i];
  return NULL;
}

/* ---- Types ------------------------------------------------------------------------------ */

static int type_of(gscope *s, const node *n, int cx);

static int ref_type(gscope *s, const node *n, int cx) {
  if (n->nkid) {
    lang_error(s->d, n->line, n->col, "'%s': a graph's variables are scalars (no subscripts)", n->name);
    return TY_ERR;
  }
  int i = nmap_get(&s->decls, n->name);
  if (i < 0) {
    double v;
    int g = !strcmp(n->name, "time") || !strcmp(n->name, "elapsed");
    if (g && (cx & CX_CONST)) {
      lang_error(s->d, n->line, n->col, "'%s' changes during the run: a parameter's value or an initial value is a "
                 "constant expression", n->name);
      return TY_ERR;
    }
    if (g || !strcmp(n->name, "inf") || lang_builtin_const(n->name, &v)) return TY_REAL;
    unknown_name(s, n);
    return TY_ERR;
  }
  const decl *d = &s->m->decls[i];
  switch (d->kind) {
  case D_INPUT:
    if (cx & CX_PORTS) return TY_REAL;
    lang_error(s->d, n->line, n->col, "'%s' is an input port: its value exists only in an external transition (its "
               "guard and assignments)", n->name);
    return TY_ERR;
  case D_OUTPUT:
    lang_error(s->d, n->line, n->col, "'%s' is an output port: it has no value to read (an internal transition sends "
               "on it with %s!value)", n->name, n->name);
    return TY_ERR;
  case D_PARAM:
  case D_CONST:
    if ((cx & CX_CONST) && (size_t)i >= s->limit) {
      lang_error(s->d, n->line, n->col, "'%s' is used before its declaration (line %d)", n->name, LANG_LINE(d->line));
      return TY_ERR;
    }
    return decl_type(d);
  default:
    if (cx & CX_CONST) {
      lang_error(s->d, n->line, n->col, "'%s' is a variable: a parameter's value or an initial value is a constant "
                 "expression", n->name);
      return TY_ERR;
    }
    return decl_type(d);
  }
}

static int expect_type(gscope *s, const node *n, int t, int want_bool, const char *what) {
  if (t == TY_ERR) return TY_ERR;
  if (want_bool ? t == TY_BOOL : NUMERIC(t)) return t;
  lang_error(s->d, n->line, n->col, "%s is %s, not %s", what, type_name(t), want_bool ? "a condition (Boolean)" : "a number");
  return TY_ERR;
}

static int bin_type(gscope *s, const node *n, int cx) {
  int a = type_of(s, n->kid[0], cx), b = type_of(s, n->kid[1], cx);
  if (a == TY_ERR || b == TY_ERR) return TY_ERR;
  switch (n->op) {
  case OP_AND:
  case OP_OR:
    if (expect_type(s, n->kid[0], a, 1, "an operand of 'and'/'or'") && expect_type(s, n->kid[1], b, 1, "an operand of 'and'/'or'"))
      return TY_BOOL;
    return TY_ERR;
  case T_EQEQ:
  case T_NE:
    if ((a == TY_BOOL) == (b == TY_BOOL)) return TY_BOOL;
    lang_error(s->d, n->line, n->col, "'%s' compares a %s with a %s", n->op == T_EQEQ ? "==" : "<>", type_name(a),
               type_name(b));
    return TY_ERR;
  case T_LT: case T_LE: case T_GT: case T_GE:
    if (expect_type(s, n->kid[0], a, 0, "an operand of a comparison") && expect_type(s, n->kid[1], b, 0, "an operand of a comparison"))
      return TY_BOOL;
    return TY_ERR;
  default:
    if (!expect_type(s, n->kid[0], a, 0, "an operand of an arithmetic operator") ||
        !expect_type(s, n->kid[1], b, 0, "an operand of an arithmetic operator"))
      return TY_ERR;
    if (n->op == T_SLASH || n->op == T_CARET) return TY_REAL;
    return a == TY_INT && b == TY_INT ? TY_INT : TY_REAL;
  }
}

static int type_of(gscope *s, const node *n, int cx) {
  switch (n->kind) {
  case X_NUM: return n->num == floor(n->num) && fabs(n->num) < 9007199254740992.0 ? TY_INT : TY_REAL;
  case X_BOOL: return TY_BOOL;
  case X_REF: return ref_type(s, n, cx);
  case X_EVENT: {
    const node *p = n->kid[0];
    int i = p->kind == X_REF && !p->nkid ? nmap_get(&s->decls, p->name) : -1;
    if (i < 0 || s->m->decls[i].kind != D_INPUT) {
      lang_error(s->d, p->line, p->col, "'%s?…' needs an input port of graph '%s'%s", p->kind == X_REF ? p->name : "?",
                 s->m->name, i >= 0 ? ": this is not one" : "");
      return TY_ERR;
    }
    if (!(cx & CX_PORTS)) {
      lang_error(s->d, n->line, n->col, "'%s?…' tests an input: only an external transition's guard can", p->name);
      return TY_ERR;
    }
    return expect_type(s, n->kid[1], type_of(s, n->kid[1], cx), 0, "the value an event is compared with") ? TY_BOOL
                                                                                                          : TY_ERR;
  }
  case X_NEG: return expect_type(s, n->kid[0], type_of(s, n->kid[0], cx), 0, "the operand of '-'");
  case X_NOT: return expect_type(s, n->kid[0], type_of(s, n->kid[0], cx), 1, "the operand of 'not'");
  case X_BIN: return bin_type(s, n, cx);
  case X_IF: {
    int result = -1;
    for (int i = 0; i < n->nkid; i++) {
      int t = type_of(s, n->kid[i], cx);
      if (t == TY_ERR) return TY_ERR;
      if (i % 2 == 0 && i + 1 < n->nkid) {
        if (!expect_type(s, n->kid[i], t, 1, "the condition of an if")) return TY_ERR;
      } else if (result < 0) {
        result = t;
      } else if ((result == TY_BOOL) != (t == TY_BOOL)) {
        lang_error(s->d, n->kid[i]->line, n->kid[i]->col, "the branches of an if are a %s and a %s", type_name(result),
                   type_name(t));
        return TY_ERR;
      } else if (t == TY_REAL) {
        result = TY_REAL;
      }
    }
    return result < 0 ? TY_ERR : result;
  }
  case X_CALL: {
    const struct gfn *f = find_fn(n->name);
    if (!f) {
      const char *names[sizeof gfns / sizeof gfns[0]];
      for (size_t i = 0; i < sizeof gfns / sizeof gfns[0]; i++) names[i] = gfns[i].name;
      const char *hint = lang_suggest(n->name, names, sizeof gfns / sizeof gfns[0]);
      lang_error(s->d, n->line, n->col, "'%s' is no function a graph can call%s%s%s", n->name,
                 hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
      return TY_ERR;
    }
    if (n->nkid != f->arity) {
      lang_error(s->d, n->line, n->col, "%s() takes %d argument%s, not %d", f->name, f->arity, f->arity == 1 ? "" : "s",
                 n->nkid);
      return TY_ERR;
    }
    int all_int = 1;
    for (int i = 0; i < n->nkid; i++) {
      if (n->kid[i]->kind == Q_EQ) {
        lang_error(s->d, n->kid[i]->line, n->kid[i]->col, "%s() takes no named arguments", f->name);
        return TY_ERR;
      }
      int t = expect_type(s, n->kid[i], type_of(s, n->kid[i], cx), 0, "an argument");
      if (t == TY_ERR) return TY_ERR;
      all_int &= t == TY_INT;
    }
    return f->result == TY_BOOL ? TY_INT : f->result == TY_INT && all_int ? TY_INT : TY_REAL;
  }
  default:
    lang_error(s->d, n->line, n->col, "a graph's expressions are scalar: no arrays, ranges or strings here");
    return TY_ERR;
  }
}

/* An expression where a value of type want goes (a variable of that type, a number,
 * a condition): 0, or -1 after an error. */
static int check_value(gscope *s, const node *n, int cx, int want, const char *what) {
  int t = type_of(s, n, cx);
  if (t == TY_ERR) return -1;
  if (want == TY_BOOL ? t == TY_BOOL : want == TY_INT ? t == TY_INT : NUMERIC(t)) return 0;
  lang_error(s->d, n->line, n->col, "%s is %s, where %s goes%s", what, t == TY_BOOL ? "a condition (Boolean)" : type_name(t),
             want == TY_BOOL ? "a condition (Boolean)" : want == TY_INT ? "an Integer" : "a number",
             want == TY_INT && t == TY_REAL ? " (integer(x) rounds down)" : "");
  return -1;
}

/* ---- Checks of a class ------------------------------------------------------------------ */

static int scope_open(gscope *s, const ast_model *m, lang_diag *d) {
  memset(s, 0, sizeof *s);
  s->m = m, s->d = d;
  s->limit = m->ndecls;
  if (nmap_init(&s->decls, m->ndecls) || nmap_init(&s->phases, m->graph->nphases)) {
    lang_error(d, m->line, m->col, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < m->ndecls; i++) (void)nmap_put(&s->decls, m->decls[i].name, (int)i);
  return 0;
}

static void scope_close(gscope *s) {
  nmap_free(&s->decls), nmap_free(&s->phases);
  free(s->code);
}

/* A transition's phase, by name: its index, or -1 after an error. */
static int phase_ref(gscope *s, const char *name, int line, int col) {
  int p = nmap_get(&s->phases, name);
  if (p >= 0) return p;
  const ast_graph *g = s->m->graph;
  const char **c = malloc((g->nphases + 1) * sizeof *c);
  const char *hint = NULL;
  if (c) {
    for (size_t i = 0; i < g->nphases; i++) c[i] = g->phases[i].name;
    hint = lang_suggest(name, c, g->nphases);
  }
  lang_error(s->d, line, col, "graph '%s' has no phase '%s'%s%s%s", s->m->name, name, hint ? "; did you mean '" : "",
             hint ? hint : "", hint ? "'?" : "");
  free(c);
  return -1;
}

static void check_assigns(gscope *s, const node *list, int cx) {
  for (int i = 0; list && i < list->nkid; i++) {
    const node *a = list->kid[i], *target = a->kid[0];
    int k = nmap_get(&s->decls, target->name);
    if (k < 0) {
      unknown_name(s, target);
      continue;
    }
    const decl *d = &s->m->decls[k];
    if (!is_var(d)) {
      lang_error(s->d, target->line, target->col, "'%s' is %s: a transition assigns only the graph's variables",
                 target->name, d->kind == D_PARAM ? "a parameter" : d->kind == D_CONST ? "a constant"
                 : d->kind == D_INPUT ? "an input port" : "an output port (send on it with port!value)");
      continue;
    }
    char what[300];
    snprintf(what, sizeof what, "the value assigned to %s '%s'", type_name(decl_type(d)), target->name);
    (void)check_value(s, a->kid[1], cx, decl_type(d), what);
  }
}

int lang_graph_check(const ast_model *m, lang_diag *d) {
  int before = d->errors;
  const ast_graph *g = m->graph;
  gscope S, *s = &S;
  if (scope_open(s, m, d)) return 1;
  /* Declarations: ports, parameters, constants, variables; each value constant. */
  for (size_t i = 0; i < m->ndecls; i++) {
    const decl *x = &m->decls[i];
    int seen = nmap_get(&s->decls, x->name);
    if (seen >= 0 && (size_t)seen != i) /* (the map keeps the first) */
      lang_error(d, x->line, x->col, "'%s' is declared twice (first at line %d)", x->name,
                 LANG_LINE(m->decls[seen].line));
    if (x->block) {
      lang_error(d, x->line, x->col, "'%s' is a component (of type %s): a graph holds ports, parameters and variables "
                 "only", x->name, x->block);
      continue;
    }
    if (x->dims) {
      lang_error(d, x->line, x->col, "'%s': a graph's variables are scalars", x->name);
      continue;
    }
    if (x->mods && x->mods->nkid) {
      lang_error(d, x->mods->kid[0]->line, x->mods->kid[0]->col, "'%s': a graph's declarations take no modifiers; give "
                 "a value with '= value'", x->name);
      continue;
    }
    if (x->kind == D_INPUT || x->kind == D_OUTPUT) {
      if (x->is_integer || x->is_boolean)
        lang_error(d, x->line, x->col, "port '%s': a graph's ports carry Real values", x->name);
      else if (x->value)
        lang_error(d, x->value->line, x->value->col, "port '%s' takes no value: its events bring them", x->name);
      continue;
    }
    if (x->value) {
      s->limit = i;
      char what[300];
      snprintf(what, sizeof what, "the value of %s '%s'", type_name(decl_type(x)), x->name);
      (void)check_value(s, x->value, CX_CONST, decl_type(x), what);
      s->limit = m->ndecls;
    }
  }
  /* Phases: names, one initial phase, lifetimes. */
  int initial = -1;
  for (size_t i = 0; i < g->nphases; i++) {
    const ast_phase *p = &g->phases[i];
    int seen = nmap_put(&s->phases, p->name, (int)i);
    if (seen >= 0)
      lang_error(d, p->line, p->col, "phase '%s' is declared twice (first at line %d)", p->name,
                 LANG_LINE(g->phases[seen].line));
    if (p->initial && initial >= 0)
      lang_error(d, p->line, p->col, "a second initial phase ('%s' at line %d is the first): a graph starts in exactly "
                 "one", g->phases[initial].name, LANG_LINE(g->phases[initial].line));
    else if (p->initial)
      initial = (int)i;
    if (p->lifetime) (void)check_value(s, p->lifetime, CX_VARS, TY_REAL, "a lifetime");
  }
  if (initial < 0)
    lang_error(d, m->line, m->col, "graph '%s' has no initial phase: declare one 'initial phase Name(lifetime = …);'",
               m->name);
  /* Transitions. */
  int *internal = calloc(g->nphases + 1, sizeof *internal);
  if (!internal) {
    lang_error(d, m->line, m->col, "out of memory");
    scope_close(s);
    return d->errors - before;
  }
  for (size_t i = 0; i < g->ntrans; i++) {
    const ast_trans *t = &g->trans[i];
    int from = phase_ref(s, t->from, t->from_line, t->from_col);
    (void)phase_ref(s, t->to, t->to_line, t->to_col);
    int cx = CX_VARS | (t->external ? CX_PORTS : 0);
    if (!t->external && from >= 0) {
      if (internal[from])
        lang_error(d, t->line, t->col, "phase '%s' has a second internal transition (the first at line %d): its "
                   "lifetime can end in one way only", t->from, LANG_LINE(g->trans[internal[from] - 1].line));
      else
        internal[from] = (int)i + 1;
    }
    for (int k = 0; t->emits && k < t->emits->nkid; k++) {
      const node *e = t->emits->kid[k], *port = e->kid[0];
      int pi = nmap_get(&s->decls, port->name);
      if (pi < 0 || m->decls[pi].kind != D_OUTPUT)
        lang_error(d, port->line, port->col, "'%s!…' sends on an output port: graph '%s' has no output '%s'%s",
                   port->name, m->name, port->name, pi >= 0 && m->decls[pi].kind == D_INPUT ? " (it is an input)" : "");
      (void)check_value(s, e->kid[1], cx, TY_REAL, "an output's value");
    }
    if (t->guard) (void)check_value(s, t->guard, cx, TY_BOOL, "a guard");
    check_assigns(s, t->assigns, cx);
  }
  free(internal);
  scope_close(s);
  return d->errors - before;
}

/* ---- Code ---------------------------------------------------------------------------------- */

static void emit(gscope *s, uint8_t op, uint32_t arg, double k, int delta) {
  if (s->n == s->cap) {
    uint32_t cap = s->cap ? 2 * s->cap : 32;
    cdevs_graph_ins *c = realloc(s->code, cap * sizeof *c);
    if (!c) {
      s->oom = 1;
      return;
    }
    s->code = c, s->cap = cap;
  }
  s->code[s->n++] = (cdevs_graph_ins){op, arg, k};
  s->sp += delta;
  if (s->sp > s->maxsp) s->maxsp = s->sp;
}

/* An operator on the top `arity` values: folded into one constant when they are all
 * constants (parameters are, in an instance). */
static void emit_op(gscope *s, uint8_t op, uint32_t arg, int arity) {
  int all_const = s->n >= (uint32_t)arity && op != CDEVS_GOP_EVENT;
  for (int i = 1; i <= arity && all_const; i++) all_const = s->code[s->n - (uint32_t)i].op == CDEVS_GOP_CONST;
  emit(s, op, arg, 0.0, 1 - arity);
  if (!all_const || s->oom) return;
  uint32_t base = s->n - (uint32_t)arity - 1;
  cdevs_graph_code c = {s->code + base, (uint32_t)arity + 1};
  double v = cdevs_graph_eval(&c, NULL, 0, 0.0);
  s->n = base;
  s->code[s->n++] = (cdevs_graph_ins){CDEVS_GOP_CONST, 0, v};
}

static void gen(gscope *s, const node *n);

static void gen_ref(gscope *s, const node *n) {
  int i = nmap_get(&s->decls, n->name);
  double v;
  if (i >= 0) {
    const decl *d = &s->m->decls[i];
    if (d->kind == D_PARAM || d->kind == D_CONST) emit(s, CDEVS_GOP_CONST, 0, s->pval[i], 1);
    else if (d->kind == D_INPUT) emit(s, CDEVS_GOP_IN, (uint32_t)s->index[i], 0, 1);
    else emit(s, CDEVS_GOP_VAR, (uint32_t)s->index[i], 0, 1);
  } else if (!strcmp(n->name, "time")) {
    emit(s, CDEVS_GOP_TIME, 0, 0, 1);
  } else if (!strcmp(n->name, "elapsed")) {
    emit(s, CDEVS_GOP_ELAPSED, 0, 0, 1);
  } else if (!strcmp(n->name, "inf")) {
    emit(s, CDEVS_GOP_CONST, 0, INFINITY, 1);
  } else if (lang_builtin_const(n->name, &v)) {
    emit(s, CDEVS_GOP_CONST, 0, v, 1);
  } else {
    emit(s, CDEVS_GOP_CONST, 0, NAN, 1); /* (the class check said so) */
  }
}

static void gen(gscope *s, const node *n) {
  switch (n->kind) {
  case X_NUM:
  case X_BOOL: emit(s, CDEVS_GOP_CONST, 0, n->num, 1); return;
  case X_REF: gen_ref(s, n); return;
  case X_EVENT: {
    int i = nmap_get(&s->decls, n->kid[0]->name);
    gen(s, n->kid[1]);
    emit_op(s, CDEVS_GOP_EVENT, i >= 0 ? (uint32_t)s->index[i] : 0, 1);
    return;
  }
  case X_NEG: gen(s, n->kid[0]), emit_op(s, CDEVS_GOP_NEG, 0, 1); return;
  case X_NOT: gen(s, n->kid[0]), emit_op(s, CDEVS_GOP_NOT, 0, 1); return;
  case X_IF: /* c1 ? a1 : (c2 ? a2 : e): c1 a1 c2 a2 e SELECT SELECT */
    for (int i = 0; i < n->nkid; i++) gen(s, n->kid[i]);
    for (int i = 0; i + 1 < n->nkid; i += 2) emit_op(s, CDEVS_GOP_SELECT, 0, 3);
    return;
  case X_CALL: {
    const struct gfn *f = find_fn(n->name);
    for (int i = 0; i < n->nkid; i++) gen(s, n->kid[i]);
    if (f) emit_op(s, f->op, f->fn, f->arity);
    return;
  }
  case X_BIN: {
    static const struct { int tok; uint8_t op; } ops[] = {
        {T_PLUS, CDEVS_GOP_ADD}, {T_MINUS, CDEVS_GOP_SUB}, {T_STAR, CDEVS_GOP_MUL}, {T_SLASH, CDEVS_GOP_DIV},
        {T_CARET, CDEVS_GOP_POW}, {T_LT, CDEVS_GOP_LT},   {T_LE, CDEVS_GOP_LE},     {T_GT, CDEVS_GOP_GT},
        {T_GE, CDEVS_GOP_GE},     {T_EQEQ, CDEVS_GOP_EQ}, {T_NE, CDEVS_GOP_NE},     {OP_AND, CDEVS_GOP_AND},
        {OP_OR, CDEVS_GOP_OR}};
    gen(s, n->kid[0]), gen(s, n->kid[1]);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
      if (ops[i].tok == n->op) emit_op(s, ops[i].op, 0, 2);
    return;
  }
  default: emit(s, CDEVS_GOP_CONST, 0, NAN, 1); return; /* (refused by the class check) */
  }
}

/* n compiled into s->code (from 0): 0, or -1 after an error at n. */
static int compile_expr(gscope *s, const node *n) {
  s->n = 0, s->sp = 0, s->maxsp = 0;
  gen(s, n);
  if (s->oom) {
    lang_error(s->d, n->line, n->col, "out of memory");
    return -1;
  }
  if (s->maxsp > CDEVS_GRAPH_MAX_STACK) {
    lang_error(s->d, n->line, n->col, "this expression holds more than %d values at once: too deeply nested for a "
               "graph (split it with a variable)", CDEVS_GRAPH_MAX_STACK);
    return -1;
  }
  return 0;
}

/* A copy of the code just compiled (it lives in s->code until the next). */
static cdevs_graph_ins *code_copy(gscope *s) {
  cdevs_graph_ins *c = malloc((s->n ? s->n : 1) * sizeof *c);
  if (c) memcpy(c, s->code, s->n * sizeof *c);
  else s->oom = 1;
  return c;
}

/* ---- Instances ------------------------------------------------------------------------------ */

/* "path:line:col" of a place in the diagnostics' files. */
static void where_of(const lang_diag *d, int line, int col, char *buf, size_t size) {
  int f = LANG_FILE(line);
  const lang_src *src = f && f < d->nfiles && d->files[f] ? d->files[f] : d->src;
  snprintf(buf, size, "%s:%d:%d", src && src->path ? src->path : "model", LANG_LINE(line), col);
}

int lang_graph_declare(comp *c, mo_comp *k, const decl *d) {
  const ast_model *gm = d->graph;
  k->graph = cdevs_graph_new(NULL, gm->name);
  k->gblock = calloc(1, sizeof *k->gblock);
  k->gops = calloc(1, sizeof *k->gops);
  k->arg = calloc(1, sizeof(cdevs_graph *));
  static const lang_param no_params[] = {{NULL, 0, 0, NULL, NULL, NULL}};
  if (!k->graph || !k->gblock || !k->gops || !k->arg) return c->oom = 1, -1;
  memcpy(k->arg, &k->graph, sizeof k->graph);
  for (size_t i = 0; i < gm->ndecls; i++) {
    const decl *x = &gm->decls[i];
    if (x->kind == D_INPUT) cdevs_graph_add_input(k->graph, x->name);
    else if (x->kind == D_OUTPUT) cdevs_graph_add_output(k->graph, x->name);
  }
  if (cdevs_graph_errmsg(k->graph)[0]) return c->oom = 1, -1;
  /* Its ports are what connect() reads until the graph is built: then its model type
   * (cdevs_graph_ops) takes their place. */
  k->gops->type = gm->name;
  k->gops->inputs = cdevs_graph_ports(k->graph, CDEVS_IN);
  k->gops->outputs = cdevs_graph_ports(k->graph, CDEVS_OUT);
  k->gblock->name = gm->name;
  k->gblock->ops = k->gops;
  k->gblock->arg_size = sizeof(cdevs_graph *);
  k->gblock->params = no_params;
  k->b = k->gblock;
  k->gclass = gm;
  k->gdecl = d;
  return 0;
}

/* What cdevs_graph_check finds, located in the class; each place and message once
 * across the instances of a class. */
typedef struct report_ctx {
  comp *c;
  const ast_model *m;
  const char *inst; /* the instance, named in errors when the class has several */
  int failed;
} report_ctx;

static void report(void *ud, int is_error, cdevs_graph_elem what, int index, int other, const char *msg) {
  report_ctx *r = ud;
  const ast_graph *g = r->m->graph;
  int line = r->m->line, col = r->m->col, oline = 0;
  if (what == CDEVS_GRAPH_PHASE && index >= 0 && (size_t)index < g->nphases)
    line = g->phases[index].line, col = g->phases[index].col;
  if (what == CDEVS_GRAPH_TRANSITION && index >= 0 && (size_t)index < g->ntrans)
    line = g->trans[index].line, col = g->trans[index].col;
  if (other >= 0 && what == CDEVS_GRAPH_PHASE && (size_t)other < g->nphases) oline = g->phases[other].line;
  if (other >= 0 && what == CDEVS_GRAPH_TRANSITION && (size_t)other < g->ntrans) oline = g->trans[other].line;
  uint64_t h = 1469598103934665603u;
  for (const char *q = msg; *q; q++) h = (h ^ (unsigned char)*q) * 1099511628211u;
  h ^= ((uint64_t)(uint32_t)line << 32) ^ (uint64_t)(uint32_t)col;
  comp *c = r->c;
  r->failed |= is_error;
  for (uint32_t i = 0; i < c->ngseen; i++)
    if (c->gseen[i] == h) return; /* (said for another instance of the class) */
  if (c->ngseen == c->capgseen) {
    uint32_t cap = c->capgseen ? 2 * c->capgseen : 16;
    uint64_t *ns = realloc(c->gseen, cap * sizeof *ns);
    if (ns) c->gseen = ns, c->capgseen = cap;
  }
  if (c->ngseen < c->capgseen) c->gseen[c->ngseen++] = h;
  if (is_error)
    lang_error(c->d, line, col, "%s%s%.0d%s%s%s%s", msg, oline ? " (see line " : "", oline ? LANG_LINE(oline) : 0,
               oline ? ")" : "", r->inst ? " (in '" : "", r->inst ? r->inst : "", r->inst ? "')" : "");
  else
    lang_warning(c->d, line, col, "%s%s%.0d%s", msg, oline ? " (see line " : "", oline ? LANG_LINE(oline) : 0, oline ? ")" : "");
}

/* The modifier of the instance for the class's declaration name, or NULL. */
static const node *modifier(const decl *inst, const char *name) {
  for (int i = 0; inst->mods && i < inst->mods->nkid; i++) {
    const node *m = inst->mods->kid[i];
    const char *mn = m->kind == Q_EQ ? m->kid[0]->name : m->name;
    if (mn && !strcmp(mn, name)) return m;
  }
  return NULL;
}

/* Values of the declarations: parameters and constants (their modifiers read in the
 * enclosing model, their bindings in the graph), variables' initial values. */
static int decl_values(comp *c, gscope *s, mo_comp *k, double *pval, int *index) {
  const ast_model *m = k->gclass;
  const decl *inst = k->gdecl;
  int nin = 0, nout = 0, bad = 0;
  for (int i = 0; inst->mods && i < inst->mods->nkid; i++) { /* each modifier names a parameter or a variable */
    const node *mod = inst->mods->kid[i];
    const char *mn = mod->kind == Q_EQ ? mod->kid[0]->name : mod->name;
    int di = mn ? nmap_get(&s->decls, mn) : -1;
    const decl *x = di >= 0 ? &m->decls[di] : NULL;
    if (mod->kind != Q_EQ) {
      lang_error(c->d, mod->line, mod->col, "'%s' of graph '%s' takes a value (%s = …), not modifiers", mn ? mn : "?",
                 m->name, mn ? mn : "?");
      bad = 1;
    } else if (!x || x->kind == D_INPUT || x->kind == D_OUTPUT || x->kind == D_CONST) {
      const char *cands[64];
      size_t nc = 0;
      for (size_t j = 0; j < m->ndecls && nc < 64; j++)
        if (m->decls[j].kind != D_INPUT && m->decls[j].kind != D_OUTPUT && m->decls[j].kind != D_CONST)
          cands[nc++] = m->decls[j].name;
      const char *hint = x ? NULL : lang_suggest(mn, cands, nc);
      lang_error(c->d, mod->line, mod->col, "graph '%s' has no parameter or variable '%s'%s%s%s%s", m->name, mn,
                 x ? (x->kind == D_CONST ? ": it is a constant" : ": it is a port") : "", hint ? "; did you mean '" : "",
                 hint ? hint : "", hint ? "'?" : "");
      bad = 1;
    }
  }
  if (bad) return -1;
  for (size_t i = 0; i < m->ndecls; i++) {
    const decl *x = &m->decls[i];
    if (x->kind == D_INPUT) {
      index[i] = nin++;
      continue;
    }
    if (x->kind == D_OUTPUT) {
      index[i] = nout++;
      continue;
    }
    const node *mod = modifier(inst, x->name);
    double v = 0.0;
    int ok = 1, line = x->line, col = x->col;
    if (mod) { /* read where it is written, in the enclosing model */
      v = lang_ceval(c, mod->kid[1], &ok);
      line = mod->line, col = mod->col;
    } else if (x->value) {
      if (compile_expr(s, x->value)) return -1;
      cdevs_graph_code code = {s->code, s->n};
      v = cdevs_graph_eval(&code, NULL, 0, 0.0);
    }
    if (!ok) return -1;
    if (!isfinite(v)) {
      lang_error(c->d, line, col, "the value of '%s' in '%s' is %g: not a finite number", x->name, k->name, v);
      return -1;
    }
    if (x->is_integer && v != floor(v)) {
      lang_error(c->d, line, col, "'%s' is an Integer, given %g", x->name, v);
      return -1;
    }
    if (x->is_boolean && v != 0.0 && v != 1.0) {
      lang_error(c->d, line, col, "'%s' is a Boolean, given %g", x->name, v);
      return -1;
    }
    pval[i] = v;
    if (is_var(x)) {
      int vi = cdevs_graph_add_var(k->graph, x->name, x->is_boolean ? CDEVS_GRAPH_BOOLEAN : x->is_integer
                                   ? CDEVS_GRAPH_INTEGER : CDEVS_GRAPH_REAL, v);
      if (vi < 0) return c->oom = 1, -1;
      index[i] = vi;
    }
  }
  return 0;
}

/* A list of Q_EMIT or Q_ASSIGN compiled into actions (codes malloc'd into *codes). */
static int actions(gscope *s, const node *list, int emits, cdevs_graph_emit *e, cdevs_graph_assign *a,
                   cdevs_graph_ins **codes) {
  for (int i = 0; list && i < list->nkid; i++) {
    const node *x = list->kid[i];
    int di = nmap_get(&s->decls, x->kid[0]->name);
    if (di < 0 || compile_expr(s, x->kid[1]) || !(codes[i] = code_copy(s))) return -1;
    cdevs_graph_code code = {codes[i], s->n};
    if (emits) e[i] = (cdevs_graph_emit){s->index[di], code};
    else a[i] = (cdevs_graph_assign){s->index[di], code};
  }
  return 0;
}

static int build(comp *c, gscope *s, mo_comp *k) {
  const ast_model *m = k->gclass;
  const ast_graph *g = m->graph;
  cdevs_graph *gr = k->graph;
  char where[400];
  for (size_t i = 0; i < g->nphases; i++) {
    const ast_phase *p = &g->phases[i];
    where_of(c->d, p->line, p->col, where, sizeof where);
    cdevs_graph_phase_def def = {p->name, NULL, p->initial, p->life_text, where};
    cdevs_graph_code life;
    if (p->lifetime) {
      if (compile_expr(s, p->lifetime)) return -1;
      life = (cdevs_graph_code){s->code, s->n};
      def.lifetime = &life;
    }
    if (cdevs_graph_add_phase(gr, &def) < 0) goto failed;
  }
  if (g->conf_both) cdevs_graph_set_confluence(gr, CDEVS_GRAPH_CONF_BOTH);
  for (size_t i = 0; i < g->ntrans; i++) {
    const ast_trans *t = &g->trans[i];
    int ne = t->emits ? t->emits->nkid : 0, na = t->assigns ? t->assigns->nkid : 0;
    cdevs_graph_emit *e = calloc((size_t)ne + 1, sizeof *e);
    cdevs_graph_assign *a = calloc((size_t)na + 1, sizeof *a);
    cdevs_graph_ins **codes = calloc((size_t)(ne + na) + 1, sizeof *codes), *guard = NULL;
    int rc = -1;
    if (!e || !a || !codes) {
      c->oom = 1;
    } else if (!actions(s, t->emits, 1, e, NULL, codes) && !actions(s, t->assigns, 0, NULL, a, codes + ne) &&
               (!t->guard || (!compile_expr(s, t->guard) && (guard = code_copy(s))))) {
      cdevs_graph_code gc = {guard, guard ? s->n : 0};
      where_of(c->d, t->line, t->col, where, sizeof where);
      cdevs_graph_transition_def def = {nmap_get(&s->phases, t->from), nmap_get(&s->phases, t->to),
                                        guard ? &gc : NULL, e, (size_t)ne, a, (size_t)na, t->label, where};
      rc = t->external ? cdevs_graph_add_external(gr, &def) : cdevs_graph_add_internal(gr, &def);
      if (rc >= 0) rc = 0;
    }
    for (int j = 0; codes && j < ne + na; j++) free(codes[j]);
    free(codes), free(guard), free(e), free(a);
    if (s->oom) c->oom = 1;
    if (c->oom || c->d->errors) return -1;
    if (rc) goto failed;
  }
  return 0;
failed:
  lang_error(c->d, m->line, m->col, "graph '%s': %s", m->name, cdevs_graph_errmsg(gr));
  return -1;
}

int lang_graph_build(comp *c, mo_comp *k) {
  const ast_model *m = k->gclass;
  gscope S, *s = &S;
  if (scope_open(s, m, c->d)) return -1;
  for (size_t i = 0; i < m->graph->nphases; i++) (void)nmap_put(&s->phases, m->graph->phases[i].name, (int)i);
  double *pval = calloc(m->ndecls + 1, sizeof *pval);
  int *index = calloc(m->ndecls + 1, sizeof *index);
  int rc = -1;
  if (!pval || !index) {
    c->oom = 1;
  } else {
    s->pval = pval, s->index = index;
    if (!decl_values(c, s, k, pval, index) && !build(c, s, k)) {
      uint32_t same = 0; /* instances of the class: an error that its parameters cause names this one */
      for (uint32_t i = 0; i < c->mo->ncomps; i++) same += c->mo->comps[i].gclass == m;
      report_ctx r = {c, m, same > 1 ? k->name : NULL, 0};
      const cdevs_atomic_ops *ops = cdevs_graph_check(k->graph, report, &r) == CDEVS_OK ? cdevs_graph_ops(k->graph) : NULL;
      if (ops && !r.failed) k->gblock->ops = ops, rc = 0;
    }
  }
  free(pval), free(index);
  scope_close(s);
  return rc;
}

/* ---- The model's graphs, for tools ------------------------------------------------------- */

size_t cdevs_mo_graph_count(const cdevs_mo *mo) {
  size_t n = 0;
  for (uint32_t i = 0; i < mo->ncomps; i++) n += mo->comps[i].graph != NULL;
  return n;
}

const cdevs_graph *cdevs_mo_graph(const cdevs_mo *mo, size_t i, const char **name) {
  for (uint32_t k = 0; k < mo->ncomps; k++) {
    if (!mo->comps[k].graph) continue;
    if (i-- == 0) {
      if (name) *name = mo->comps[k].name;
      return mo->comps[k].graph;
    }
  }
  return NULL;
}
