/* SPDX-License-Identifier: MIT */
/*
 * Name and role checks on the syntax tree: every reference names a declaration, a
 * loop index in scope, `time` or a built-in function; der() applies to continuous
 * states; algorithms assign only discrete variables (or, at initialisation,
 * anything). Unknown names get a "did you mean" from the names in scope.
 */
#include <stdlib.h>
#include <string.h>

#include "blocks_map.h"
#include "lang_impl.h"

static const char *const builtins[] = {
    "der", "reinit", "pre", "edge", "change", "initial", "terminal", "sample", "noEvent",
    "smooth", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
    "exp", "log", "log10", "sqrt", "abs", "sign", "floor", "ceil", "integer", "min", "max",
    "mod", "rem", "div", "pow", "rand", "random", "assert", "terminate", "sum", "product", "size",
    "fill", "zeros", "ones"};
#define NBUILTINS (sizeof builtins / sizeof builtins[0])

typedef struct scope {
  const ast_model *m;
  lang_diag *d;
  const char *idx[32]; /* loop indices, innermost last */
  int nidx;
  int initial;
  int in_when; /* statements inside a when clause (outside one, an algorithm computes variables) */
} scope;

const decl *lang_find_decl(const ast_model *m, const char *name, size_t len) {
  for (size_t i = 0; i < m->ndecls; i++)
    if (strlen(m->decls[i].name) == len && memcmp(m->decls[i].name, name, len) == 0)
      return &m->decls[i];
  return NULL;
}

static const char *strip_math(const char *name) {
  return strncmp(name, "math.", 5) == 0 ? name + 5 : name;
}

static int is_builtin(const char *name) {
  name = strip_math(name);
  for (size_t i = 0; i < NBUILTINS; i++)
    if (strcmp(builtins[i], name) == 0) return 1;
  return 0;
}

static void unknown(scope *s, const node *n, const char *what, int functions) {
  /* Candidates: declarations and loop indices, or the built-in functions. */
  size_t nc = 0, cap = s->m->ndecls + (size_t)s->nidx + NBUILTINS + 1;
  const char **c = malloc(cap * sizeof *c);
  const char *hint = NULL;
  if (c) {
    if (functions) {
      for (size_t i = 0; i < NBUILTINS; i++) c[nc++] = builtins[i];
    } else {
      for (size_t i = 0; i < s->m->ndecls; i++) c[nc++] = s->m->decls[i].name;
      for (int i = 0; i < s->nidx; i++) c[nc++] = s->idx[i];
      c[nc++] = "time";
    }
    hint = lang_suggest(n->name, c, nc);
  }
  if (hint)
    lang_error(s->d, n->line, n->col, "unknown %s '%s'; did you mean '%s'?", what, n->name, hint);
  else
    lang_error(s->d, n->line, n->col, "unknown %s '%s'", what, n->name);
  free(c);
}

static void check_expr(scope *s, const node *n);

static void check_ref(scope *s, const node *n) {
  const char *dot = strchr(n->name, '.');
  size_t len = dot ? (size_t)(dot - n->name) : strlen(n->name);
  double cv;
  int found = (len == 4 && memcmp(n->name, "time", 4) == 0 && !dot) ||
              (lang_builtin_const(n->name, &cv) && !lang_find_decl(s->m, n->name, strlen(n->name)) && !n->nkid);
  for (int i = 0; i < s->nidx && !found; i++)
    if (strlen(s->idx[i]) == len && memcmp(s->idx[i], n->name, len) == 0) found = 1;
  if (!found) {
    const decl *d = lang_find_decl(s->m, n->name, len);
    if (!d) {
      unknown(s, n, "variable", 0);
    } else if (dot && !d->block) {
      lang_error(s->d, n->line, n->col, "'%.*s' is a variable, not a component: '%s' has no fields",
                 (int)len, n->name, n->name);
    }
  }
  for (int i = 0; i < n->nkid; i++)
    if (n->kid[i]->kind != X_COLON) check_expr(s, n->kid[i]);
}

static void check_expr(scope *s, const node *n) {
  if (!n) return;
  switch (n->kind) {
  case Q_FOR: /* sum(e for i in r): the index is in scope in e */
    if (n->nkid > 0) check_expr(s, n->kid[0]);
    if (s->nidx == 32) {
      lang_error(s->d, n->line, n->col, "for loops nested more than 32 deep");
      return;
    }
    s->idx[s->nidx++] = n->name ? n->name : "";
    if (n->nkid > 1) check_expr(s, n->kid[1]);
    s->nidx--;
    return;
  case X_REF:
    check_ref(s, n);
    return;
  case X_CALL: {
    const char *f = strip_math(n->name);
    int user = 0;
    for (int i = 0; i < s->m->nfuncs; i++)
      if (strcmp(s->m->funcs[i], n->name) == 0) user = 1;
    if (!user && !is_builtin(n->name) && lang_is_dist(n->name)) {
      lang_error(s->d, n->line, n->col, "%s() draws a parameter's value: it can only be a parameter's binding "
                 "(parameter Real p = %s(...);), and p used here", n->name, n->name);
    } else if (!user && !is_builtin(n->name)) {
      unknown(s, n, "function", 1);
    } else if (strcmp(f, "der") == 0) {
      if (n->nkid != 1 || n->kid[0]->kind != X_REF) {
        lang_error(s->d, n->line, n->col, "der() takes one variable");
      } else {
        const node *r = n->kid[0];
        const decl *d = lang_find_decl(s->m, r->name, strlen(r->name));
        if (d && d->kind != D_REAL)
          lang_error(s->d, r->line, r->col, "der() of '%s', which is %s", r->name,
                     d->kind == D_PARAM ? "a parameter" : d->kind == D_CONST ? "a constant"
                     : "a discrete variable");
      }
    }
    break;
  }
  default:
    break;
  }
  for (int i = 0; i < n->nkid; i++) check_expr(s, n->kid[i]);
}

/* A parameter's binding: a distribution (Uniform(1, 2)), or an array literal of
 * them and expressions, draws its value; only the arguments are expressions. */
static void check_binding(scope *s, const node *n) {
  if (n && n->kind == X_CALL && lang_is_dist(n->name)) {
    for (int i = 0; i < n->nkid; i++) check_expr(s, n->kid[i]);
  } else if (n && n->kind == X_ARRAY) {
    for (int i = 0; i < n->nkid; i++) check_binding(s, n->kid[i]);
  } else {
    check_expr(s, n);
  }
}

static void check_items(scope *s, const node *list, int stmt);

static void check_item(scope *s, const node *n, int stmt) {
  switch (n->kind) {
  case Q_FOR:
    if (n->nkid > 0) check_expr(s, n->kid[0]);
    if (s->nidx == 32) {
      lang_error(s->d, n->line, n->col, "for loops nested more than 32 deep");
      return;
    }
    s->idx[s->nidx++] = n->name ? n->name : "";
    if (n->nkid > 1) check_items(s, n->kid[1], stmt);
    s->nidx--;
    return;
  case Q_WHEN:
  case Q_IF:
    s->in_when += n->kind == Q_WHEN;
    for (int i = 0; i < n->nkid; i++) {
      if (n->kid[i]->kind == N_LIST)
        check_items(s, n->kid[i], stmt);
      else
        check_expr(s, n->kid[i]);
    }
    s->in_when -= n->kind == Q_WHEN;
    return;
  case Q_ASSIGN:
    if (n->nkid == 2) {
      const node *l = n->kid[0];
      check_expr(s, l);
      if (l->kind == X_REF && !s->initial) {
        const decl *d = lang_find_decl(s->m, l->name, strlen(l->name));
        if (d && (d->kind == D_PARAM || d->kind == D_CONST))
          lang_error(s->d, l->line, l->col, "'%s' is a %s: it can only be set in an initial algorithm",
                     l->name, d->kind == D_PARAM ? "parameter" : "constant");
        else if (d && d->kind == D_REAL && s->in_when)
          lang_error(s->d, l->line, l->col,
                     "'%s' is continuous: change it with reinit() in a when clause", l->name);
      }
      check_expr(s, n->kid[1]);
    }
    return;
  case Q_SWITCH:
    if (!s->in_when)
      lang_error(s->d, n->line, n->col, "'switch to' belongs in a when clause: the class changes at an event");
    /* The names on the left are the new class's (checked when it is compiled); the
     * values are this class's expressions. */
    for (int i = 0; i < n->nkid; i++)
      if (n->kid[i]->nkid == 2) check_expr(s, n->kid[i]->kid[1]);
    return;
  default:
    for (int i = 0; i < n->nkid; i++) check_expr(s, n->kid[i]);
  }
}

static void check_items(scope *s, const node *list, int stmt) {
  if (!list) return;
  for (int i = 0; i < list->nkid; i++) check_item(s, list->kid[i], stmt);
}

/* The keys of experiment(...) that mean something: Modelica's, ours (method), and
 * every model annotation QSS Solver's compiler knows (src/mmoc/ir/annotation.cpp in
 * CIFASIS/qss-solver), so that its models run unchanged. Only StartTime, StopTime,
 * Tolerance, AbsTolerance, MMO_Solver, method and MMO_Output are used here. */
static const char *const experiment_keys[] = {
    "StartTime", "StopTime", "Interval", "Tolerance", "AbsTolerance", "method",
    "MMO_Description", "MMO_Solver", "MMO_Output", "MMO_OutputType", "MMO_Period",
    "MMO_Weight", "MMO_MinStep", "MMO_ZCHyst", "MMO_DerDelta", "MMO_LPS", "MMO_NodeSize",
    "Jacobian", "MMO_SymDiff", "MMO_Scheduler", "MMO_StoreData", "MMO_PartitionMethod",
    "MMO_Parallel", "MMO_DT_Min", "MMO_DT_Synch", "MMO_PatohSettings", "MMO_MetisSettings",
    "MMO_ScotchSettings", "MMO_BDF_Part", "MMO_BDF_PDepth", "MMO_BDF_Max_Step", "MMO_Event_Id",
    "MMO_HD", "MMO_HZ", "MMO_HH", "MMO_LHS_ST", "MMO_LHS_DSC", "MMO_RHS_ST", "MMO_SD", "MMO_SZ",
    "MMO_RandomSeed"};
#define N_EXPERIMENT_KEYS (sizeof experiment_keys / sizeof experiment_keys[0])

/* An unknown key in experiment(...) is a warning: it is ignored, and a misspelt
 * StopTime would otherwise pass in silence. Vendor keys (__Name) are not ours to judge. */
static void check_experiment(const ast_model *m, lang_diag *d) {
  for (size_t i = 0; i < m->nannots; i++) {
    const annot *a = &m->annots[i];
    if (!a->within || strcmp(a->within, "experiment") != 0 || strncmp(a->key, "__", 2) == 0) continue;
    size_t k = 0;
    while (k < N_EXPERIMENT_KEYS && strcmp(experiment_keys[k], a->key) != 0) k++;
    if (k < N_EXPERIMENT_KEYS) continue;
    const char *hint = lang_suggest(a->key, experiment_keys, N_EXPERIMENT_KEYS);
    if (hint)
      lang_warning(d, a->line, a->col, "unknown experiment annotation '%s' is ignored; did you mean '%s'?", a->key,
                   hint);
    else
      lang_warning(d, a->line, a->col, "unknown experiment annotation '%s' is ignored", a->key);
  }
}

int lang_parse_checked(const lang_src *src, lang_diag *d, lang_arena *a, int file, ast_model *m) {
  int before = d->errors;
  lang_parse(src, d, a, file, m);
  for (size_t i = 0; i < m->nclasses && d->errors == before; i++) lang_check(m->classes[i], d);
  if (d->errors == before) lang_check(m, d);
  return d->errors - before;
}

int lang_check(const ast_model *m, lang_diag *d) {
  int before = d->errors;
  for (size_t i = 0; i < m->nnested; i++) lang_check(m->nested[i], d);
  if (m->graph) {
    lang_graph_check(m, d);
    check_experiment(m, d);
    return d->errors - before;
  }
  scope s;
  memset(&s, 0, sizeof s);
  s.m = m;
  s.d = d;
  for (size_t i = 0; i < m->ndecls; i++) {
    const decl *a = &m->decls[i];
    for (size_t j = 0; j < i; j++)
      if (strcmp(m->decls[j].name, a->name) == 0) {
        lang_error(d, a->line, a->col, "'%s' is declared twice (first at line %d)", a->name,
                   LANG_LINE(m->decls[j].line));
        break;
      }
    if (a->dims)
      for (int k = 0; k < a->dims->nkid; k++) check_expr(&s, a->dims->kid[k]);
    if (a->kind == D_PARAM)
      check_binding(&s, a->value);
    else
      check_expr(&s, a->value);
    if (!a->block) check_expr(&s, a->start);
  }
  check_items(&s, m->equations, 0);
  check_items(&s, m->algorithms, 1);
  s.initial = 1;
  check_items(&s, m->initial, 1);
  check_experiment(m, d);
  return d->errors - before;
}

/* ---- Public entry points --------------------------------------------------------- */

/* Parses and checks buf (NUL-terminated, len bytes); returns the error count. */
static int check_buffer(const char *name, const char *buf, size_t len, FILE *diag) {
  lang_src src = {name, buf, len};
  lang_diag d = {.src = &src, .out = diag};
  lang_arena *a = arena_new();
  if (!a) {
    if (diag) fprintf(diag, "%s: out of memory\n", name);
    return -1;
  }
  ast_model m;
  (void)lang_front(&src, name, &d, a, &m);
  arena_free(a);
  return d.errors;
}

int cdevs_lang_check_text(const char *name, const char *text, size_t len, FILE *diag) {
  char *buf = lang_copy_text(name, text, len, diag);
  if (!buf) return -1;
  int n = check_buffer(name, buf, len, diag);
  free(buf);
  return n;
}

int cdevs_lang_check_file(const char *path, FILE *diag) {
  size_t len;
  char *buf = lang_read_file(path, diag, &len);
  if (!buf) return -1;
  int n = check_buffer(path, buf, len, diag);
  free(buf);
  return n;
}
