/* SPDX-License-Identifier: MIT */
/*
 * Equations and when clauses into bytecode: expressions (with relations as events),
 * der() and algebraic equations, connect(), and when clauses as zero-crossing
 * functions with their handlers.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/continuous.h"
#include "compile_impl.h"
#include "core/alloc_impl.h"

/* ---- Bytecode ------------------------------------------------------------------------- */

/* A component's port that carries entities (messages) cannot be a signal of the
 * equations: 0, or -1 after saying so at `at`. */
static int signal_port(comp *c, const node *at, uint32_t ci, int port, cdevs_dir dir) {
  const cdevs_port_def *p = lang_block_ports(c->mo->comps[ci].b, dir);
  if (!p || p[port].kind != CDEVS_MSG) return 0;
  lang_error(c->d, at->line, at->col, "'%s.%s' carries entities, not a signal the equations can %s",
             c->mo->comps[ci].name, p[port].name, dir == CDEVS_OUT ? "read" : "drive");
  return -1;
}


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

/* n (t.xx) names no variable, but its prefix (t.) is a model component's: said so,
 * with the nearest of that component's variables; 0 when no variable has the prefix. */
static int class_member(comp *c, const node *n) {
  size_t pre = (size_t)(strrchr(n->name, '.') - n->name) + 1;
  const char *cands[64];
  size_t nc = 0;
  for (size_t i = 0; i < c->nsyms && nc < 64; i++)
    if (!strncmp(c->syms[i].d->name, n->name, pre) && !strchr(c->syms[i].d->name + pre, '.'))
      cands[nc++] = c->syms[i].d->name;
  if (!nc) return 0;
  const char *hint = lang_suggest(n->name, cands, nc);
  lang_error(c->d, n->line, n->col, "'%.*s' has no variable '%s'%s%s%s", (int)(pre - 1), n->name, n->name + pre,
             hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
  return 1;
}

static int gen_ref(comp *c, const node *n) {
  double v;
  if (n->nkid == 0 && lang_index_of(c, n->name, &v)) {
    emit(c, BC_CONST, 0, v, 1);
    return 0;
  }
  if (strcmp(n->name, "time") == 0) {
    emit(c, BC_TIME, 0, 0, 1);
    return 0;
  }
  const sym *s = lang_lookup(c, n->name);
  if (!s && n->nkid == 0 && lang_builtin_const(n->name, &v)) {
    emit(c, BC_CONST, 0, v, 1);
    return 0;
  }
  const char *dot = strchr(n->name, '.');
  if (dot && !s) { /* a component's output, an input of the system */
    int ci, port = lang_comp_port(c, n, CDEVS_OUT, &ci);
    if (port < 0) {
      if (lang_comp_port(c, n, CDEVS_IN, &ci) >= 0)
        lang_error(c->d, n->line, n->col, "'%s' is an input of '%s': equations read outputs (cdevs list-blocks)",
                   n->name, c->mo->comps[ci].name);
      else if (!class_member(c, n))
        lang_error(c->d, n->line, n->col, "'%s' is not an output of a component (cdevs list-blocks lists them)",
                   n->name);
      return -1;
    }
    if (n->nkid) {
      lang_error(c->d, n->line, n->col, "'%s' is a scalar: it takes no subscripts", n->name);
      return -1;
    }
    if (signal_port(c, n, (uint32_t)ci, port, CDEVS_OUT)) return -1;
    int k = lang_input(c, (uint32_t)ci, port, n->name);
    if (k < 0) return -1;
    emit(c, BC_STATE, c->counts[V_STATE] + (uint32_t)k, 0, 1);
    return 0;
  }
  uint32_t f;
  if (s && s->ndims > 0 && n->nkid == 0 && c->elem > 0) { /* an array equation: this element */
    if (s->size != c->elem_size) {
      lang_error(c->d, n->line, n->col, "'%s' has %u elements, the array equation %u", n->name, s->size,
                 c->elem_size);
      return -1;
    }
    emit_var(c, s->first_flat + c->elem - 1);
    return 0;
  }
  if (!s || lang_flat_index(c, s, n, &f)) return -1;
  emit_var(c, f);
  return 0;
}

/* sum(e for i in r): e at each i, added (multiplied for product). */
typedef struct {
  int terms, prod;
  const node *at; /* the call */
} fold_gen;

/* The terms one comprehension may put into an equation: each is evaluated at every
 * step, and 10^6 of them are 32 MB of code (10^8 were 1.6 GB before the loop limit). */
enum { MAX_FOLD_TERMS = 1000000 };

static int fold_gen_body(comp *c, const node *e, void *ud) {
  fold_gen *g = ud;
  if (g->terms == MAX_FOLD_TERMS) {
    lang_error(c->d, g->at->line, g->at->col, "%s(e for i in r) in an equation takes at most %d terms",
               g->at->name, MAX_FOLD_TERMS);
    return -1;
  }
  if (gen(c, e)) return -1;
  if (g->terms++) emit(c, g->prod ? BC_MUL : BC_ADD, 0, 0, -1);
  return 0;
}

/* Whether n's value is fixed when the model is compiled: numbers, loop indices,
 * constants and the named constants, and operations on them (not parameters, which
 * an experiment may change). */
static int fixed_expr(comp *c, const node *n) {
  double v;
  switch (n->kind) {
  case X_NUM:
  case X_BOOL: return 1;
  case X_REF: {
    if (n->nkid == 0 && lang_index_of(c, n->name, &v)) return 1;
    const sym *s = lang_lookup(c, n->name);
    if (!s) return n->nkid == 0 && lang_builtin_const(n->name, &v);
    if (s->cls != V_CONST) return 0;
    for (int i = 0; i < n->nkid; i++)
      if (!fixed_expr(c, n->kid[i])) return 0;
    return 1;
  }
  case X_NEG:
  case X_NOT:
  case X_BIN:
    for (int i = 0; i < n->nkid; i++)
      if (!fixed_expr(c, n->kid[i])) return 0;
    return 1;
  default: return 0;
  }
}

/* A condition fixed at compile time: 1 true, 0 false; -1 when it is not fixed (or
 * fails to evaluate: then it is compiled, and the failure reported there). */
static int fixed_cond(comp *c, const node *n) {
  if (!fixed_expr(c, n)) return -1;
  int ok = 1;
  double v = lang_ceval(c, n, &ok);
  return ok ? v != 0.0 : -1;
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
    const node *r = n->kid[0];
    const sym *ps = f[0] == 'p' && c->in_handler && r->kind == X_REF ? lang_lookup(c, r->name) : NULL;
    uint32_t pf;
    if (ps && ps->cls == V_DISC) { /* in a handler, the value before the event */
      if (ps->ndims > 0 && r->nkid == 0) {
        lang_error(c->d, r->line, r->col, "pre() takes one element of the array '%s'", r->name);
        return -1;
      }
      if (lang_flat_index(c, ps, r, &pf)) return -1;
      emit(c, BC_PRE, c->cidx[pf], 0, 1);
      return 0;
    }
    int events = c->rel_events;
    if (f[0] == 'n') c->rel_events = 0; /* noEvent: its relations are read as they are */
    int rc = gen(c, n->kid[0]);
    c->rel_events = events;
    return rc;
  }
  if ((!strcmp(f, "sum") || !strcmp(f, "product")) && arity == 1 && n->kid[0]->kind == Q_FOR) {
    fold_gen g = {0, f[0] == 'p', n};
    if (lang_exec_for(c, n->kid[0], fold_gen_body, &g)) return -1;
    if (!g.terms) emit(c, BC_CONST, 0, g.prod ? 1.0 : 0.0, 1); /* an empty range */
    return 0;
  }
  if (!strcmp(f, "fill") || !strcmp(f, "zeros") || !strcmp(f, "ones")) {
    /* an array of one value, as an element of an array equation */
    int ok = 1, nsize = f[0] == 'f' ? 2 : 1;
    if (arity != nsize) goto bad_arity;
    double sz = lang_ceval(c, n->kid[nsize - 1], &ok);
    if (!ok) return -1;
    if (c->elem == 0) {
      lang_error(c->d, n->line, n->col, "%s() makes an array: use it in an array equation (u = %s(…)) or a "
                 "parameter's binding", n->name, n->name);
      return -1;
    }
    if (sz != (double)c->elem_size) {
      lang_error(c->d, n->line, n->col, "%s(%s%g) has %g elements, the array equation %u", n->name,
                 nsize == 2 ? "…, " : "", sz, sz, c->elem_size);
      return -1;
    }
    if (f[0] == 'f') return gen(c, n->kid[0]);
    emit(c, BC_CONST, 0, f[0] == 'o' ? 1.0 : 0.0, 1);
    return 0;
  }
  if (!strcmp(f, "sum") || !strcmp(f, "product")) {
    /* over a whole array variable, unrolled */
    if (arity != 1 || n->kid[0]->kind != X_REF || n->kid[0]->nkid != 0 || !lang_lookup(c, n->kid[0]->name) ||
        lang_lookup(c, n->kid[0]->name)->ndims == 0) {
      lang_error(c->d, n->line, n->col, "%s() takes an array variable", n->name);
      return -1;
    }
    const sym *s = lang_lookup(c, n->kid[0]->name);
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
  int op = lang_fn_op(f);
  if (op >= 0) {
    if (arity != lang_fn_ops[op].arity) goto bad_arity;
    for (int k = 0; k < arity; k++)
      if (gen(c, n->kid[k])) return -1;
    emit(c, lang_fn_ops[op].op, 0, 0, 1 - arity);
    return 0;
  }
  if (!strcmp(f, "sample")) {
    lang_error(c->d, n->line, n->col, "sample() can only be the whole condition of a when clause (for now)");
    return -1;
  }
  lang_error(c->d, n->line, n->col, "%s() cannot be used in an equation", n->name);
  return -1;
bad_arity:
  lang_arity_error(c, n);
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
    /* if c1 then a elseif c2 then b else e = select(c1, a, select(c2, b, e)); a
     * condition fixed at compile time (a loop index, a constant) picks its branch
     * now, and a branch never taken is not compiled (x[i - 1] when i > 1). */
    int pairs = n->nkid / 2, live = 0;
    for (int i = 0; i < pairs; i++) {
      int fx = fixed_cond(c, n->kid[2 * i]);
      if (fx == 0) continue;
      if (fx == 1) {
        if (gen(c, n->kid[2 * i + 1])) return -1;
        for (int k = 0; k < live; k++) emit(c, BC_SELECT, 0, 0, -2);
        return 0;
      }
      if (gen(c, n->kid[2 * i]) || gen(c, n->kid[2 * i + 1])) return -1;
      live++;
    }
    if (gen(c, n->kid[n->nkid - 1])) return -1;
    for (int i = 0; i < live; i++) emit(c, BC_SELECT, 0, 0, -2);
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


static int comp_index(const comp *c, const char *name, size_t len) {
  for (uint32_t i = 0; i < c->mo->ncomps; i++)
    if (strlen(c->mo->comps[i].name) == len && memcmp(c->mo->comps[i].name, name, len) == 0) return (int)i;
  return -1;
}

/* "comp.port" -> component and port index in direction dir; -1 if not such a port. */
int lang_comp_port(const comp *c, const node *r, cdevs_dir dir, int *ci) {
  const char *dot = r->kind == X_REF ? strrchr(r->name, '.') : NULL; /* t1.k.y: the block t1.k */
  if (!dot || r->nkid) return -1;
  *ci = comp_index(c, r->name, (size_t)(dot - r->name));
  if (*ci < 0) return -1;
  const cdevs_port_def *ports = lang_block_ports(c->mo->comps[*ci].b, dir);
  for (int k = 0; ports && ports[k].name; k++)
    if (strcmp(ports[k].name, dot + 1) == 0) return k;
  return -1;
}

int lang_input(comp *c, uint32_t ci, int port, const char *name) {
  cdevs_mo *mo = c->mo;
  for (uint32_t k = 0; k < mo->nins; k++)
    if (mo->ins[k].comp == ci && mo->ins[k].port == port) return (int)k;
  mo_in *ni = realloc(mo->ins, (mo->nins + 1) * sizeof *ni);
  if (!ni) return c->oom = 1, -1;
  mo->ins = ni;
  char *nm = lang_dup(name);
  if (!nm) return c->oom = 1, -1;
  ni[mo->nins] = (mo_in){ci, port, nm, 0.0};
  return (int)mo->nins++;
}

/* What a variable of class cls is, for messages: "a state" (with how it is defined,
 * if how), "discrete", "a parameter or constant". */
static const char *cls_name(int cls, int how) {
  if (cls == V_STATE) return how ? "a state (its equation is der(...) = ...)" : "a state";
  return cls == V_DISC ? "discrete" : "a parameter or constant";
}

/* A variable of the model in a connect(): its flat scalar, or -1 (with no message
 * when it is no variable at all). */
static int connect_var(comp *c, const node *r, uint32_t *f) {
  if (r->kind != X_REF) return -1;
  const sym *s = lang_lookup(c, r->name);
  if (!s || s->cls == V_UNKNOWN) return -1;
  if (s->ndims > 0 && r->nkid == 0) {
    lang_error(c->d, r->line, r->col, "connect() takes one scalar of '%s' (a subscript, or a for loop)", r->name);
    return -2;
  }
  return lang_flat_index(c, s, r, f) ? -2 : 0;
}

static int define(comp *c, const node *at, int is_der, uint32_t f, const char *name, const node *rhs);

/* How deep a flat name is: the dots in it (t1.tank.h: 2). */
static int depth_of(const char *name) {
  int n = 0;
  for (; *name; name++) n += *name == '.';
  return n;
}

/* connect(a, b) between two variables (of model components, or of the model): the
 * input is defined by the other side (connect(t1.y, t2.u) is t2.u = t1.y). Between
 * two inputs, the component's input is defined by the model's it is passed on from
 * (the shallower); between two outputs, the model's output by the component's. */
static int connect_vars(comp *c, const node *n, uint32_t fa, uint32_t fb) {
  const node *a = n->kid[0], *b = n->kid[1];
  const sym *sa = lang_lookup(c, a->name), *sb = lang_lookup(c, b->name);
  int ia = sa->d->kind == D_INPUT, ib = sb->d->kind == D_INPUT;
  int oa = sa->d->kind == D_OUTPUT, ob = sb->d->kind == D_OUTPUT;
  int da = depth_of(a->name), db = depth_of(b->name);
  const node *to, *from;
  uint32_t f;
  if (ia != ib) to = ia ? a : b;
  else if (ia && da != db) to = da > db ? a : b;
  else if (oa && ob && da != db) to = da < db ? a : b;
  else {
    lang_error(c->d, n->line, n->col,
               "connect(%s, %s): %s; a connection joins an output (or a variable) to an input, a model's input "
               "to its component's, or a component's output to the model's",
               a->name, b->name,
               ia ? "both are inputs" : oa && ob ? "both are outputs" : "neither is an input");
    return -1;
  }
  from = to == a ? b : a;
  f = to == a ? fa : fb;
  if (c->cls[f] != V_ALG) {
    lang_error(c->d, to->line, to->col, "connect(%s, %s): '%s' is %s: it cannot be defined by the connection",
               a->name, b->name, to->name,
               cls_name(c->cls[f], 0));
    return -1;
  }
  return define(c, to, 0, f, to->name, from);
}

/* connect() between a component's port and a variable of the equations: the variable
 * reads the component's output (it is then defined by it: connect(k.y, u) is
 * u = k.y), or drives its input (connect(x, k.u)). 1 if neither side is a variable. */
static int connect_eq(comp *c, const node *n) {
  const node *a = n->kid[0], *b = n->kid[1];
  uint32_t f;
  int ci, port;
  const node *var = a, *other = b;
  int rc = connect_var(c, a, &f);
  if (rc == -1) var = b, other = a, rc = connect_var(c, b, &f);
  if (rc == -2) return -1;
  if (rc == -1) return 1;
  uint32_t g;
  int rc2 = var == a ? connect_var(c, b, &g) : -1;
  if (rc2 == -2) return -1;
  if (rc2 == 0) return connect_vars(c, n, f, g);
  if ((port = lang_comp_port(c, other, CDEVS_OUT, &ci)) >= 0) { /* the variable reads the output */
    if (signal_port(c, other, (uint32_t)ci, port, CDEVS_OUT)) return -1;
    if (c->cls[f] == V_ALG) {
      if (define(c, var, 0, f, var->name, other)) return -1;
      int k = lang_input(c, (uint32_t)ci, port, other->name); /* (made by define: found) */
      if (k < 0) return -1;
      c->mo->ins[k].start = c->cval[f]; /* the input starts at the variable's start value */
      return 0;
    }
    lang_error(c->d, var->line, var->col,
               "connect(%s, %s): '%s' is %s; an output of a component can define only a variable with no "
               "other equation (declare it 'input Real %s;' or 'Real %s;')",
               a->name, b->name, var->name,
               cls_name(c->cls[f], 0),
               var->name, var->name);
    return -1;
  }
  if ((port = lang_comp_port(c, other, CDEVS_IN, &ci)) >= 0) { /* the component reads the variable */
    if (signal_port(c, other, (uint32_t)ci, port, CDEVS_IN)) return -1;
    if (c->cls[f] == V_PARAM || c->cls[f] == V_CONST) {
      lang_error(c->d, var->line, var->col,
                 "connect(%s, %s): '%s' is a parameter or constant; a component's input needs a signal "
                 "(a cdevs.Constant block, or a variable of the equations)", a->name, b->name, var->name);
      return -1;
    }
    cdevs_mo *mo = c->mo;
    mo_link *nl = realloc(mo->links, (mo->nlinks + 1) * sizeof *nl);
    if (!nl) return c->oom = 1, -1;
    mo->links = nl;
    nl[mo->nlinks++] = (mo_link){f, (uint32_t)ci, port, n->line, n->col};
    return 0;
  }
  lang_error(c->d, other->line, other->col, "'%s' is not a port of a component", other->kind == X_REF ? other->name : "?");
  return -1;
}

static int connect_item(comp *c, const node *n) {
  const node *a = n->kid[0], *b = n->kid[1];
  int ca, cb, pa, pb;
  mo_conn conn;
  int eq = connect_eq(c, n);
  if (eq <= 0) return eq;
  if ((pa = lang_comp_port(c, a, CDEVS_OUT, &ca)) >= 0 && (pb = lang_comp_port(c, b, CDEVS_IN, &cb)) >= 0) {
    conn = (mo_conn){(uint32_t)ca, (uint32_t)cb, pa, pb, 0, 0};
  } else if ((pa = lang_comp_port(c, b, CDEVS_OUT, &ca)) >= 0 && (pb = lang_comp_port(c, a, CDEVS_IN, &cb)) >= 0) {
    conn = (mo_conn){(uint32_t)ca, (uint32_t)cb, pa, pb, 0, 0};
  } else {
    int a_out = lang_comp_port(c, a, CDEVS_OUT, &ca) >= 0, a_in = lang_comp_port(c, a, CDEVS_IN, &ca) >= 0;
    int b_out = lang_comp_port(c, b, CDEVS_OUT, &cb) >= 0, b_in = lang_comp_port(c, b, CDEVS_IN, &cb) >= 0;
    if (!a_out && !a_in)
      lang_error(c->d, a->line, a->col, "'%s' is not a port of a component", a->kind == X_REF ? a->name : "?");
    else if (!b_out && !b_in)
      lang_error(c->d, b->line, b->col, "'%s' is not a port of a component", b->kind == X_REF ? b->name : "?");
    else
      lang_error(c->d, n->line, n->col, "connect() needs an output and an input port: '%s' and '%s' are both %s",
                 a->name, b->name, a_in ? "inputs" : "outputs");
    return -1;
  }
  const cdevs_port_def *po = lang_block_ports(c->mo->comps[conn.from].b, CDEVS_OUT);
  const cdevs_port_def *pi = lang_block_ports(c->mo->comps[conn.to].b, CDEVS_IN);
  cdevs_kind ko = po[conn.fport].kind, ki = pi[conn.tport].kind;
  if ((ko == CDEVS_MSG) != (ki == CDEVS_MSG) && ko != CDEVS_ANY && ki != CDEVS_ANY) {
    lang_error(c->d, n->line, n->col, "connect(%s, %s): '%s.%s' %s, '%s.%s' %s", a->name, b->name,
               c->mo->comps[conn.from].name, po[conn.fport].name, ko == CDEVS_MSG ? "sends entities" : "sends a signal",
               c->mo->comps[conn.to].name, pi[conn.tport].name, ki == CDEVS_MSG ? "takes entities" : "takes a signal");
    return -1;
  }
  mo_conn *nc = realloc(c->mo->conns, (c->mo->nconns + 1) * sizeof *nc);
  if (!nc) return c->oom = 1, -1;
  c->mo->conns = nc;
  conn.line = n->line, conn.col = n->col;
  nc[c->mo->nconns++] = conn;
  return 0;
}

static int when_item(comp *c, const node *n);

/* An equation's right side: its relations are events. */
static int compile_rhs(comp *c, const node *rhs, bc_code *out) {
  c->rel_events = 1;
  int rc = compile_expr(c, rhs, out);
  c->rel_events = 0;
  return rc;
}

/* Defines der(x) (is_der) or the algebraic variable at flat index f by rhs; name and
 * at for the messages. */
static int define(comp *c, const node *at, int is_der, uint32_t f, const char *name, const node *rhs) {
  if (is_der && c->cls[f] != V_STATE) {
    lang_error(c->d, at->line, at->col, "der(%s): '%s' is not a state", name, name);
    return -1;
  }
  if (!is_der && c->cls[f] != V_ALG) {
    lang_error(c->d, at->line, at->col,
               "'%s' is %s: only an algebraic variable can be defined by an equation", name,
               cls_name(c->cls[f], 1));
    return -1;
  }
  uint32_t i = c->cidx[f];
  int8_t *set = is_der ? c->der_set : c->alg_set;
  if (set[i]) {
    lang_error(c->d, at->line, at->col, is_der ? "der(%s) is defined twice" : "'%s' is defined by two equations",
               name);
    return -1;
  }
  set[i] = 1;
  if (is_der) {
    c->der_line[i] = at->line;
  } else {
    c->alg_line[i] = at->line;
    c->alg_col[i] = at->col;
  }
  return compile_rhs(c, rhs, is_der ? &c->der[i] : &c->alg[i]);
}

/* The variable an equation's left side names: der(r) or r. */
static const node *lhs_ref(const node *l, int *is_der) {
  *is_der = l->kind == X_CALL && !strcmp(l->name, "der") && l->nkid == 1;
  const node *r = *is_der ? l->kid[0] : l;
  return r->kind == X_REF ? r : NULL;
}

/* An if equation whose condition is fixed at compile time keeps one branch; one whose
 * condition changes becomes, for each variable its branches define, one equation
 * v = if c1 then e1 elseif … else en (so it switches at the crossings of the
 * conditions, which are events). Every branch must define the same variables, and
 * there must be an else. */
static int if_equation(comp *c, const node *n) {
  int pairs = n->nkid / 2;
  for (int i = 0; i < pairs; i++) {
    int fx = fixed_cond(c, n->kid[2 * i]);
    if (fx == 1) return lang_eq_list(c, n->kid[2 * i + 1], NULL);
    if (fx < 0) break;
    if (i == pairs - 1) return n->has_else ? lang_eq_list(c, n->kid[n->nkid - 1], NULL) : 0;
  }
  if (!n->has_else) {
    lang_error(c->d, n->line, n->col, "an if equation whose condition changes needs an else branch (each branch "
               "defines the same variables)");
    return -1;
  }
  int nb = pairs + 1;
  const node *first = n->kid[1];
  for (int b = 0; b < nb; b++) {
    const node *body = b < pairs ? n->kid[2 * b + 1] : n->kid[n->nkid - 1];
    for (int k = 0; k < body->nkid; k++) {
      const node *q = body->kid[k];
      int d;
      if (q->kind != Q_EQ || !lhs_ref(q->kid[0], &d)) {
        lang_error(c->d, q->line, q->col, "in an if equation whose condition changes, each branch holds "
                   "der(x) = … and v = … equations only (put a for loop around the if)");
        return -1;
      }
    }
    if (body->nkid != first->nkid) {
      lang_error(c->d, body->nkid ? body->kid[0]->line : n->line, body->nkid ? body->kid[0]->col : n->col,
                 "the branches of an if equation must define the same variables: this one has %d equations, "
                 "the first %d", body->nkid, first->nkid);
      return -1;
    }
  }
  /* For each equation of the first branch, its counterpart in every other. */
  node **kids = calloc((size_t)(2 * pairs + 1), sizeof *kids);
  if (!kids) return c->oom = 1, -1;
  int rc = 0;
  for (int k = 0; k < first->nkid && !rc; k++) {
    const node *q0 = first->kid[k];
    int d0, d;
    const node *r0 = lhs_ref(q0->kid[0], &d0);
    const sym *s0 = lang_lookup(c, r0->name);
    uint32_t f0, f;
    if (!s0 || lang_flat_index(c, s0, r0, &f0)) {
      rc = -1;
      break;
    }
    for (int b = 0; b < nb && !rc; b++) {
      const node *body = b < pairs ? n->kid[2 * b + 1] : n->kid[n->nkid - 1];
      const node *match = NULL;
      for (int j = 0; j < body->nkid && !match; j++) {
        const node *r = lhs_ref(body->kid[j]->kid[0], &d);
        const sym *s = lang_lookup(c, r->name);
        if (d == d0 && s == s0 && !lang_flat_index(c, s, r, &f) && f == f0) match = body->kid[j];
      }
      if (!match) {
        const node *at = body->nkid ? body->kid[0] : n;
        lang_error(c->d, at->line, at->col, "the branches of an if equation must define the same variables: "
                   "%s%s%s is not defined in this branch", d0 ? "der(" : "", r0->name, d0 ? ")" : "");
        rc = -1;
        break;
      }
      if (b < pairs) kids[2 * b] = n->kid[2 * b], kids[2 * b + 1] = match->kid[1];
      else kids[2 * b] = match->kid[1];
    }
    if (rc) break;
    node sel = {.kind = X_IF, .line = n->line, .col = n->col, .kid = kids, .nkid = 2 * pairs + 1, .has_else = 1};
    rc = define(c, q0, d0, f0, r0->name, &sel);
  }
  free(kids);
  return rc;
}

int lang_define_by(comp *c, const decl *d, uint32_t f, const node *rhs) {
  return define(c, rhs, 0, f, d->name, rhs);
}

static int eq_item(comp *c, const node *n) {
  if (n->kind == Q_FOR) return lang_exec_for(c, n, lang_eq_list, NULL);
  if (n->kind == Q_CONNECT) return connect_item(c, n);
  if (n->kind == Q_WHEN) return when_item(c, n);
  if (n->kind == Q_IF) return if_equation(c, n);
  if (n->kind != Q_EQ) {
    lang_error(c->d, n->line, n->col, "this is not supported in an equation section yet");
    return -1;
  }
  int is_der;
  const node *r = lhs_ref(n->kid[0], &is_der);
  if (!r) {
    lang_error(c->d, n->line, n->col, "expected der(x) = … or an explicit equation v = …");
    return -1;
  }
  const sym *s = lang_lookup(c, r->name);
  if (!s) {
    lang_error(c->d, r->line, r->col, "unknown variable '%s'", r->name);
    return -1;
  }
  if (s->ndims > 0 && r->nkid == 0) { /* an array equation: element by element */
    if (c->elem) {
      lang_error(c->d, n->line, n->col, "an array equation inside an array equation");
      return -1;
    }
    int rc = 0;
    c->elem_size = s->size;
    for (uint32_t k = 1; k <= s->size && !rc; k++) {
      c->elem = k;
      rc = define(c, n, is_der, s->first_flat + k - 1, r->name, n->kid[1]);
    }
    c->elem = 0;
    return rc;
  }
  uint32_t f;
  if (lang_flat_index(c, s, r, &f)) return -1;
  return define(c, is_der ? n : r, is_der, f, r->name, n->kid[1]);
}

int lang_eq_list(comp *c, const node *list, void *ud) {
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

/* switch to Name(x = e, …): an ACT_HANDOVER per value (slot k: the k-th), then
 * ACT_SWITCH with the switch's number; the names are looked up in the new class
 * once it is compiled (lang_modes_resolve). */
static int switch_item(comp *c, const node *s, sys_action **acts, uint32_t *n) {
  cdevs_mo *mo = c->mo;
  if (!s->name) return -1; /* (the parser has reported it) */
  mo_switch *nsw = realloc(mo->sw, (mo->nsw + 1) * sizeof *nsw);
  if (!nsw) return c->oom = 1, -1;
  mo->sw = nsw;
  mo_switch *w = &nsw[mo->nsw++];
  memset(w, 0, sizeof *w);
  uint32_t ns = (uint32_t)s->nkid;
  w->line = s->line, w->col = s->col;
  w->cls = lang_dup(s->name);
  w->slot_name = calloc(ns + 1, sizeof *w->slot_name);
  w->slot_line = calloc(ns + 1, sizeof *w->slot_line);
  w->slot_col = calloc(ns + 1, sizeof *w->slot_col);
  w->slot_state = calloc(ns + 1, sizeof *w->slot_state);
  sys_action *na = realloc(*acts, (*n + ns + 1) * sizeof *na);
  if (!w->cls || !w->slot_name || !w->slot_line || !w->slot_col || !w->slot_state || !na) {
    if (na) *acts = na;
    return c->oom = 1, -1;
  }
  *acts = na;
  for (uint32_t k = 0; k < ns; k++) {
    const node *eq = s->kid[k], *r = eq->kid[0];
    char nm[300];
    int len = snprintf(nm, sizeof nm, "%s", r->name);
    for (int d = 0; d < r->nkid && len > 0 && (size_t)len < sizeof nm; d++) {
      int ok = 1;
      double v = lang_ceval(c, r->kid[d], &ok);
      if (!ok) return -1;
      if (v != floor(v) || fabs(v) > 1e9) {
        lang_error(c->d, r->kid[d]->line, r->kid[d]->col, "a subscript must be a whole number (it is %g)", v);
        return -1;
      }
      len += snprintf(nm + len, sizeof nm - (size_t)len, "%s%.0f%s", d ? "," : "[", v, d + 1 == r->nkid ? "]" : "");
    }
    for (uint32_t j = 0; j < k; j++)
      if (!strcmp(w->slot_name[j], nm)) {
        lang_error(c->d, r->line, r->col, "'%s' is handed a value twice in this switch", nm);
        return -1;
      }
    w->slot_name[k] = lang_dup(nm);
    if (!w->slot_name[k]) return c->oom = 1, -1;
    w->slot_line[k] = r->line, w->slot_col[k] = r->col;
    w->nslots = k + 1;
    sys_action *a = &(*acts)[(*n)++];
    memset(a, 0, sizeof *a);
    a->reinit = ACT_HANDOVER;
    a->target = k;
    c->in_handler = 1;
    int bad = compile_expr(c, eq->kid[1], &a->value);
    c->in_handler = 0;
    if (bad) return -1;
  }
  sys_action *a = &(*acts)[(*n)++];
  memset(a, 0, sizeof *a);
  a->reinit = ACT_SWITCH;
  a->target = mo->nsw - 1;
  return 0;
}

static int handler_for(comp *c, const node *list, void *ud) {
  void **p = ud;
  return handler_list(c, list, (sys_action **)p[0], (uint32_t *)p[1]);
}

static int handler_list(comp *c, const node *list, sys_action **acts, uint32_t *n) {
  for (int i = 0; list && i < list->nkid; i++) {
    const node *s = list->kid[i];
    if (s->kind == Q_FOR) {
      void *ud[2] = {acts, n};
      if (lang_exec_for(c, s, handler_for, ud)) return -1;
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
    if (s->kind == Q_SWITCH) {
      if (switch_item(c, s, acts, n)) return -1;
      if (i + 1 < list->nkid)
        lang_warning(c->d, list->kid[i + 1]->line, list->kid[i + 1]->col,
                     "this never runs: 'switch to' ends the when clause's actions");
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
    const sym *sy = lang_lookup(c, target->name);
    uint32_t f;
    if (!sy || lang_flat_index(c, sy, target, &f)) return -1;
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
static int condition(comp *c, const node *cond, bc_code *f, int *dir, int *strict) {
  c->rel_events = 1;
  int rc;
  *strict = 1; /* (a Boolean's f, b - 0.5, is never 0) */
  if (cond->kind == X_BIN && (cond->op == T_GT || cond->op == T_GE || cond->op == T_LT || cond->op == T_LE)) {
    node diff = *cond;
    diff.op = T_MINUS;
    *dir = cond->op == T_GT || cond->op == T_GE ? 1 : -1;
    *strict = cond->op == T_GT || cond->op == T_LT;
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

/* FNV-1a over a code's instructions (op, operand, constant). */
static uint32_t code_hash(const bc_code *b) {
  uint64_t h = 1469598103934665603u;
  for (uint32_t i = 0; i < b->n; i++) {
    uint64_t k;
    memcpy(&k, &b->ins[i].k, sizeof k);
    uint64_t w[3] = {b->ins[i].op, b->ins[i].arg, k};
    for (int j = 0; j < 3; j++) h = (h ^ w[j]) * 1099511628211u;
  }
  return (uint32_t)(h ^ (h >> 32));
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
  /* The relations' crossings by their codes' hash (open addressing, slots hold
   * crossing + 1): a model with 10^5 of them is not quadratic to compile. */
  if (2 * (c->nrel + 1) > c->relcap) {
    uint32_t cap = c->relcap ? 2 * c->relcap : 64, *t = calloc(cap, sizeof *t);
    if (!t) return free(f.ins), c->oom = 1, -1;
    for (uint32_t i = 0; i < c->relcap; i++)
      if (c->relh[i]) {
        uint32_t h = code_hash(&c->cross[c->relh[i] - 1].f) & (cap - 1);
        while (t[h]) h = (h + 1) & (cap - 1);
        t[h] = c->relh[i];
      }
    free(c->relh);
    c->relh = t, c->relcap = cap;
  }
  uint32_t d = UINT32_MAX, slot = code_hash(&f) & (c->relcap - 1);
  for (; c->relh[slot]; slot = (slot + 1) & (c->relcap - 1))
    if (same_code(&c->cross[c->relh[slot] - 1].f, &f)) {
      d = c->cross[c->relh[slot] - 1].side_disc - 1;
      break;
    }
  if (d == UINT32_MAX) {
    sys_crossing *z = new_cross(c);
    if (!z) return free(f.ins), -1;
    z->f = f; /* the crossing owns it from here, whatever fails next */
    c->relh[slot] = c->ncross, c->nrel++;
    if ((d = new_disc(c, 0.0)) == UINT32_MAX) return -1;
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
 * next on by interval (next is a discrete of the compiler's; the system starts it,
 * see sys_crossing). */
static int sample_item(comp *c, const node *cond, const node *body) {
  int ok = 1;
  if (cond->nkid != 2) {
    lang_arity_error(c, cond);
    return -1;
  }
  double start = lang_ceval(c, cond->kid[0], &ok), interval = ok ? lang_ceval(c, cond->kid[1], &ok) : 0.0;
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
  z->sample_start = start, z->sample_interval = interval, z->sample_disc = d;
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
    int dir, strict;
    if (condition(c, cond, &f, &dir, &strict)) {
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
    if (dir > 0) z->rise_strict = (uint8_t)strict;
    else z->fall_strict = (uint8_t)strict;
    if (dir > 0 ? handler_list(c, n->kid[i + 1], &z->on_rise, &z->n_rise)
                : handler_list(c, n->kid[i + 1], &z->on_fall, &z->n_fall))
      return -1;
  }
  return 0;
}


/* ---- Algorithm statements outside when clauses ---------------------------------- */

/* Outside when clauses an algorithm section computes algebraic variables from the
 * others, in order, as often as they are read: it is run here once, symbolically.
 * Each assignment v := e records e (with what the section has assigned so far put in
 * for the variables it reads, and loop indices as numbers); an if statement merges
 * its branches into if expressions (a variable a branch leaves alone keeps its value
 * from before the if); at the end each variable is defined by its expression, as by
 * an equation, so that each relation in a condition is an event. */
typedef struct alg_run {
  uint32_t *f;  /* flat scalars assigned, */
  node **val;   /* and their expressions */
  const node **at;
  int n, cap;
} alg_run;

/* The terms an assignment's expression may expand to: each use of a variable the
 * section assigned repeats its expression (y := y + y, 24 times, was 1 GB). */
enum { MAX_ALG_TERMS = 1000000 };

/* n's size as a tree (shared parts counted at each use), up to cap + 1. */
static size_t tree_size(const node *n, size_t cap) {
  size_t size = 1;
  for (int i = 0; i < n->nkid && size <= cap; i++) size += tree_size(n->kid[i], cap - size);
  return size;
}

static node *new_node(comp *c, const node *like) {
  node *r = arena_get(c->a, sizeof *r);
  if (!r) return c->oom = 1, NULL;
  *r = *like;
  r->kid = NULL, r->nkid = 0;
  return r;
}

static int run_find(const alg_run *r, uint32_t f) {
  for (int i = 0; i < r->n; i++)
    if (r->f[i] == f) return i;
  return -1;
}

static int run_set(comp *c, alg_run *r, uint32_t f, node *v, const node *at) {
  int i = run_find(r, f);
  if (i < 0) {
    if (r->n == r->cap) {
      int cap = r->cap ? 2 * r->cap : 16;
      uint32_t *nf = arena_get(c->a, (size_t)cap * sizeof *nf);
      node **nv = arena_get(c->a, (size_t)cap * sizeof *nv);
      const node **na = arena_get(c->a, (size_t)cap * sizeof *na);
      if (!nf || !nv || !na) return c->oom = 1, -1;
      if (r->n) {
        memcpy(nf, r->f, (size_t)r->n * sizeof *nf);
        memcpy(nv, r->val, (size_t)r->n * sizeof *nv);
        memcpy(na, r->at, (size_t)r->n * sizeof *na);
      }
      r->f = nf, r->val = nv, r->at = na, r->cap = cap;
    }
    i = r->n++;
    r->f[i] = f;
  }
  r->val[i] = v;
  r->at[i] = at;
  return 0;
}

static node *subst(comp *c, alg_run *r, const node *e);

/* The terms of a sum or product being unrolled, each substituted. */
typedef struct unroll {
  alg_run *r;
  node **t;
  size_t n, cap, size; /* size: the terms' nodes, for MAX_ALG_TERMS */
} unroll;

static int unroll_add(comp *c, unroll *u, node *t) {
  if (!t) return -1;
  if (u->n == u->cap) {
    size_t cap = u->cap ? 2 * u->cap : 16;
    node **nt = realloc(u->t, cap * sizeof *nt);
    if (!nt) return c->oom = 1, -1;
    u->t = nt, u->cap = cap;
  }
  u->t[u->n++] = t;
  u->size += tree_size(t, MAX_ALG_TERMS) + 1;
  if (u->size <= MAX_ALG_TERMS) return 0;
  lang_error(c->d, t->line, t->col, "a sum or product in an algorithm grows beyond %d terms (%zu terms unrolled): "
             "write it as an equation", MAX_ALG_TERMS, u->n);
  return -1;
}

/* sum(e for i in r)'s term for the index value in scope. */
static int unroll_term(comp *c, const node *body, void *ud) {
  unroll *u = ud;
  return unroll_add(c, u, subst(c, u->r, body));
}

/* t[lo..hi) joined by op as a balanced tree (the compiler recurses through it). */
static node *join_terms(comp *c, const node *at, int op, node **t, size_t lo, size_t hi) {
  if (hi - lo == 1) return t[lo];
  size_t mid = lo + (hi - lo) / 2;
  node *a = join_terms(c, at, op, t, lo, mid), *b = a ? join_terms(c, at, op, t, mid, hi) : NULL;
  node *n = b ? new_node(c, at) : NULL;
  node **kid = n ? arena_get(c->a, 2 * sizeof *kid) : NULL;
  if (!kid) return c->oom = 1, NULL;
  *n = (node){.kind = X_BIN, .line = at->line, .col = at->col, .op = op, .kid = kid, .nkid = 2};
  kid[0] = a, kid[1] = b;
  n->height = 1 + (a->height > b->height ? a->height : b->height);
  return n;
}

/* sum() or product() e, unrolled with each term substituted: of a comprehension,
 * each term with its own index in scope (sum(y[i] for i in 1:3) inside a for loop
 * over i reads y[1], y[2], y[3]); of a whole array, its elements. A term reads what
 * was assigned before it, not the section's final values. */
static node *subst_fold(comp *c, alg_run *r, const node *e) {
  const node *arg = e->kid[0];
  int prod = e->name[0] == 'p';
  unroll u = {r, NULL, 0, 0, 0};
  int rc = 0;
  if (arg->kind == Q_FOR) {
    rc = lang_exec_for(c, arg, unroll_term, &u);
  } else {
    const sym *s = lang_lookup(c, arg->name);
    for (uint32_t k = 0; k < s->size && !rc; k++) {
      /* element k as a reference with its subscripts (row-major) */
      node *ref = new_node(c, arg), **kid = ref ? arena_get(c->a, (size_t)s->ndims * sizeof *kid) : NULL;
      if (!kid) return c->oom = 1, free(u.t), NULL;
      uint32_t rest = k;
      for (int d = s->ndims - 1; d >= 0; d--) {
        kid[d] = new_node(c, arg);
        if (!kid[d]) return free(u.t), NULL;
        *kid[d] = (node){.kind = X_NUM, .line = arg->line, .col = arg->col, .num = rest % (uint32_t)s->dims[d] + 1};
        rest /= (uint32_t)s->dims[d];
      }
      ref->kid = kid, ref->nkid = s->ndims;
      rc = unroll_add(c, &u, subst(c, r, ref));
    }
  }
  node *out = NULL;
  if (!rc && u.n) {
    out = join_terms(c, e, prod ? T_STAR : T_PLUS, u.t, 0, u.n);
  } else if (!rc && (out = new_node(c, e))) { /* an empty range */
    *out = (node){.kind = X_NUM, .line = e->line, .col = e->col, .num = prod ? 1.0 : 0.0};
  }
  free(u.t);
  return out;
}

/* e with the loop indices in scope as numbers and the variables assigned so far as
 * their expressions (NULL on error). */
static node *subst(comp *c, alg_run *r, const node *e) {
  double v;
  if (e->kind == X_REF && e->nkid == 0 && lang_index_of(c, e->name, &v)) {
    node *k = new_node(c, e);
    if (k) k->kind = X_NUM, k->num = v, k->name = NULL, k->height = 0;
    return k;
  }
  if (e->kind == X_REF) {
    const sym *s = lang_lookup(c, e->name);
    uint32_t f;
    if (s && s->cls == V_ALG && !(s->ndims > 0 && e->nkid == 0) && !lang_flat_index(c, s, e, &f)) {
      int i = run_find(r, f);
      if (i >= 0) return r->val[i];
    }
  }
  if (e->kind == X_CALL && e->nkid == 1 && (!strcmp(e->name, "sum") || !strcmp(e->name, "product"))) {
    const node *a = e->kid[0];
    const sym *s = a->kind == X_REF && a->nkid == 0 ? lang_lookup(c, a->name) : NULL;
    if (a->kind == Q_FOR || (s && s->ndims > 0)) return subst_fold(c, r, e);
  }
  node *k = new_node(c, e);
  if (!k || !e->nkid) return k;
  k->kid = arena_get(c->a, (size_t)e->nkid * sizeof *k->kid);
  if (!k->kid) return c->oom = 1, NULL;
  k->nkid = e->nkid;
  for (int i = 0; i < e->nkid; i++)
    if (!(k->kid[i] = subst(c, r, e->kid[i]))) return NULL;
  return k;
}

static int alg_stmts(comp *c, const node *list, void *ud);

static int alg_stmt(comp *c, alg_run *r, const node *n) {
  if (n->kind == Q_FOR) return lang_exec_for(c, n, alg_stmts, r);
  if (n->kind == Q_ASSIGN) {
    const node *l = n->kid[0];
    const sym *s = l->kind == X_REF ? lang_lookup(c, l->name) : NULL;
    uint32_t f;
    if (!s) {
      lang_error(c->d, l->line, l->col, "an assignment sets a variable");
      return -1;
    }
    if (s->ndims > 0 && l->nkid == 0) {
      lang_error(c->d, l->line, l->col, "assign the elements of '%s' one by one (a for loop)", l->name);
      return -1;
    }
    if (lang_flat_index(c, s, l, &f)) return -1;
    if (c->cls[f] != V_ALG) {
      lang_error(c->d, l->line, l->col,
                 "'%s' is %s: outside a when clause an algorithm computes variables with no other equation",
                 l->name, c->cls[f] == V_DISC ? "discrete (set it in a when clause)" : cls_name(c->cls[f], 1));
      return -1;
    }
    node *v = subst(c, r, n->kid[1]);
    if (v && tree_size(v, MAX_ALG_TERMS) > MAX_ALG_TERMS) {
      lang_error(c->d, n->line, n->col,
                 "the value of '%s' grows beyond %d terms (each use of a variable assigned before repeats its "
                 "expression): write it as an equation", l->name, MAX_ALG_TERMS);
      return -1;
    }
    return v ? run_set(c, r, f, v, n) : -1;
  }
  if (n->kind == Q_IF) {
    int pairs = n->nkid / 2, nb = pairs + (n->has_else ? 1 : 0);
    /* A condition fixed at compile time (a loop index's, a parameter's) runs its
     * branch alone, as an if equation's: the others may not be valid there
     * (y[i - 1] for i = 1). */
    for (int i = 0; i < pairs; i++) {
      int fx = fixed_cond(c, n->kid[2 * i]);
      if (fx == 1) return alg_stmts(c, n->kid[2 * i + 1], r);
      if (fx < 0) break;
      if (i == pairs - 1) return n->has_else ? alg_stmts(c, n->kid[n->nkid - 1], r) : 0;
    }
    alg_run before = *r, *branch = calloc((size_t)nb, sizeof *branch);
    node **cond = calloc((size_t)pairs + 1, sizeof *cond);
    if (!branch || !cond) return free(branch), free(cond), c->oom = 1, -1;
    int rc = 0;
    for (int b = 0; b < nb && !rc; b++) {
      if (b < pairs && !(cond[b] = subst(c, &before, n->kid[2 * b]))) rc = -1;
      /* each branch from the values before the if (its own copy of the lists) */
      alg_run *br = &branch[b];
      br->n = 0, br->cap = 0;
      for (int i = 0; i < before.n && !rc; i++) rc = run_set(c, br, before.f[i], before.val[i], before.at[i]);
      if (!rc) rc = alg_stmts(c, b < pairs ? n->kid[2 * b + 1] : n->kid[n->nkid - 1], br);
    }
    /* Every variable some branch assigns (each once, in the order first assigned):
     * an if expression over the branches. */
    alg_run seen = {0};
    for (int b = 0; b < nb && !rc; b++)
      for (int i = 0; i < branch[b].n && !rc; i++) {
        uint32_t f = branch[b].f[i];
        if (run_find(&seen, f) >= 0) continue;
        int pb = run_find(&before, f);
        if (pb >= 0 && before.val[pb] == branch[b].val[i]) continue; /* left as it was, here */
        rc = run_set(c, &seen, f, NULL, branch[b].at[i]);
      }
    for (int i = 0; i < seen.n && !rc; i++) {
      uint32_t f = seen.f[i];
      node *sel = new_node(c, n);
      if (!sel) {
        rc = -1;
        break;
      }
      sel->kind = X_IF, sel->has_else = 1, sel->name = NULL;
      sel->kid = arena_get(c->a, (size_t)(2 * pairs + 1) * sizeof *sel->kid);
      if (!sel->kid) {
        c->oom = 1;
        rc = -1;
        break;
      }
      sel->nkid = 2 * pairs + 1;
      int pb = run_find(&before, f);
      for (int k = 0; k <= pairs && !rc; k++) {
        int bi = k < pairs ? k : (n->has_else ? pairs : -1);
        int at = bi >= 0 ? run_find(&branch[bi], f) : -1;
        node *v = at >= 0 ? branch[bi].val[at] : pb >= 0 ? before.val[pb] : NULL;
        if (!v) {
          lang_error(c->d, n->line, n->col,
                     "'%s' is not assigned in every branch of this if, nor before it: give it a value before the "
                     "if, or in an else branch", c->mo->names[f]);
          rc = -1;
          break;
        }
        if (k < pairs) sel->kid[2 * k] = cond[k], sel->kid[2 * k + 1] = v;
        else sel->kid[2 * k] = v;
      }
      if (!rc) rc = run_set(c, r, f, sel, seen.at[i]);
    }
    free(branch), free(cond);
    return rc;
  }
  if (n->kind == Q_WHEN) {
    lang_error(c->d, n->line, n->col, "a when clause inside a statement: write it at the top of the algorithm");
    return -1;
  }
  lang_error(c->d, n->line, n->col,
             "outside a when clause an algorithm holds assignments, if and for statements (this is neither)");
  return -1;
}

static int alg_stmts(comp *c, const node *list, void *ud) {
  for (int i = 0; list && i < list->nkid; i++)
    if (alg_stmt(c, ud, list->kid[i])) return -1;
  return 0;
}

static int alg_item(comp *c, const node *n) {
  if (n->kind == Q_WHEN) return when_item(c, n);
  /* A loop's items, each as an item of the section (when clauses in it, at any
   * depth of loops, or statements). */
  if (n->kind == Q_FOR) return lang_exec_for(c, n, lang_alg_list, NULL);
  return alg_stmt(c, c->alg_run, n);
}

int lang_alg_list(comp *c, const node *list, void *ud) {
  (void)ud;
  int rc = 0, top = c->alg_run == NULL;
  if (top && !(c->alg_run = arena_get(c->a, sizeof *c->alg_run))) return c->oom = 1, -1;
  for (int i = 0; list && i < list->nkid; i++)
    if (alg_item(c, list->kid[i])) rc = -1;
  if (top) { /* the section's variables, each by its expression */
    alg_run *run = c->alg_run;
    for (int i = 0; !rc && i < run->n; i++)
      rc = define(c, run->at[i], 0, run->f[i], c->mo->names[run->f[i]], run->val[i]);
    c->alg_run = NULL;
  }
  return rc;
}

/* ---- Instantaneous loops ------------------------------------------------------------ */

/* Which algebraics read input k, directly or through others, into reads: one pass
 * in their order, where each reads only earlier ones (sort_algs). */
static void algs_reading_input(const cdevs__sys_spec *sp, uint32_t k, uint8_t *reads) {
  for (uint32_t a = 0; a < sp->n_algs; a++) {
    const bc_code *code = &sp->alg[a];
    reads[a] = 0;
    for (uint32_t i = 0; i < code->n && !reads[a]; i++) {
      const bc_ins *in = &code->ins[i];
      reads[a] = (BC_READS_STATE(in->op) && in->arg == sp->n_states + k) || (in->op == BC_ALG && reads[in->arg]);
    }
  }
}

typedef struct loop_graph {
  /* Nodes: the components' output ports (comp_first[ci] + port), then the links. */
  uint32_t *comp_first, nnodes, nout;
  uint32_t *start, *to; /* edges, CSR */
  uint32_t *via;        /* per edge: 1 + link index, or 0x80000000 | conn index (where to report) */
} loop_graph;

int lang_check_entity_outputs(comp *c) {
  const cdevs_mo *mo = c->mo;
  int rc = 0;
  for (uint32_t i = 0; i < mo->ncomps; i++) {
    const mo_comp *k = &mo->comps[i];
    const cdevs_port_def *p = lang_block_ports(k->b, CDEVS_OUT);
    int used = k->b->used_outputs ? k->b->used_outputs(k->arg) : INT32_MAX;
    for (int o = 0; p && p[o].name && o < used; o++) {
      if (p[o].kind != CDEVS_MSG) continue;
      uint32_t n = 0;
      for (uint32_t q = 0; q < mo->nconns; q++) n += mo->conns[q].from == i && mo->conns[q].fport == o;
      if (n) continue;
      lang_error(c->d, k->line, k->col, "'%s.%s' is connected to nothing: the entities leaving by it would vanish "
                 "uncounted (connect it, to a cdevs.Dispose if they leave the system there)", k->name, p[o].name);
      rc = -1;
    }
  }
  return rc;
}

int lang_check_loops(comp *c, const cdevs__sys_spec *sp) {
  cdevs_mo *mo = c->mo;
  if (!mo->nconns && !mo->nlinks) return 0;
  loop_graph g = {0};
  int rc = 0;
  uint32_t ncomp = mo->ncomps, cap = 0, nedges = 0;
  g.comp_first = calloc(ncomp + 1, sizeof *g.comp_first);
  uint8_t *seen = calloc(sp->n_algs ? sp->n_algs : 1, 1);
  uint32_t (*edges)[3] = NULL;
  if (!g.comp_first || !seen) goto oom;
  for (uint32_t i = 0; i < ncomp; i++) {
    int n = 0;
    for (const cdevs_port_def *p = lang_block_ports(mo->comps[i].b, CDEVS_OUT); p && p->name; p++) n++;
    g.comp_first[i + 1] = g.comp_first[i] + (uint32_t)n;
  }
  g.nout = g.comp_first[ncomp];
  g.nnodes = g.nout + mo->nlinks;
  /* The edges: (from, to, via). */
#define EDGE(a, b, v)                                                                \
  do {                                                                               \
    if (nedges == cap) {                                                             \
      cap = cap ? 2 * cap : 64;                                                      \
      uint32_t(*e2)[3] = realloc(edges, cap * sizeof *edges);                        \
      if (!e2) goto oom;                                                             \
      edges = e2;                                                                    \
    }                                                                                \
    edges[nedges][0] = (a), edges[nedges][1] = (b), edges[nedges][2] = (v), nedges++; \
  } while (0)
  for (uint32_t l = 0; l < mo->nlinks; l++) { /* a variable into a block that passes it on at once */
    uint32_t ci = mo->links[l].comp;
    if (!mo->comps[ci].b->through) continue;
    for (uint32_t o = g.comp_first[ci]; o < g.comp_first[ci + 1]; o++) EDGE(g.nout + l, o, 1 + l);
  }
  for (uint32_t k = 0; k < mo->nconns; k++) { /* a block's output into one that passes it on */
    const mo_conn *cn = &mo->conns[k];
    if (!mo->comps[cn->to].b->through) continue;
    for (uint32_t o = g.comp_first[cn->to]; o < g.comp_first[cn->to + 1]; o++)
      EDGE(g.comp_first[cn->from] + (uint32_t)cn->fport, o, 0x80000000u | k);
  }
  for (uint32_t k = 0; k < mo->nins; k++) { /* a block's output read by an algebraic that is sent on */
    algs_reading_input(sp, k, seen);
    for (uint32_t l = 0; l < mo->nlinks; l++) {
      uint32_t f = mo->links[l].f;
      if (mo->cls[f] != V_ALG || !seen[mo->cidx[f]]) continue;
      EDGE(g.comp_first[mo->ins[k].comp] + (uint32_t)mo->ins[k].port, g.nout + l, 1 + l);
    }
  }
#undef EDGE
  /* CSR and a depth-first search for a cycle (colours: 0 new, 1 on the path, 2 done). */
  g.start = calloc(g.nnodes + 1, sizeof *g.start);
  g.to = malloc((nedges ? nedges : 1) * sizeof *g.to);
  g.via = malloc((nedges ? nedges : 1) * sizeof *g.via);
  uint8_t *colour = calloc(g.nnodes ? g.nnodes : 1, 1);
  uint32_t *stack = malloc((g.nnodes ? g.nnodes : 1) * sizeof *stack), *next = calloc(g.nnodes ? g.nnodes : 1, sizeof *next);
  if (!g.start || !g.to || !g.via || !colour || !stack || !next) {
    free(colour), free(stack), free(next);
    goto oom;
  }
  for (uint32_t e = 0; e < nedges; e++) g.start[edges[e][0] + 1]++;
  for (uint32_t v = 0; v < g.nnodes; v++) g.start[v + 1] += g.start[v];
  for (uint32_t e = 0; e < nedges; e++) {
    uint32_t at = g.start[edges[e][0]] + next[edges[e][0]]++;
    g.to[at] = edges[e][1], g.via[at] = edges[e][2];
  }
  for (uint32_t root = 0; root < g.nnodes && !rc; root++) {
    if (colour[root]) continue;
    uint32_t top = 0;
    stack[top++] = root, colour[root] = 1, next[root] = g.start[root];
    while (top && !rc) {
      uint32_t v = stack[top - 1];
      if (next[v] == g.start[v + 1]) {
        colour[v] = 2, top--;
        continue;
      }
      uint32_t e = next[v]++, w = g.to[e];
      if (colour[w] == 0) {
        colour[w] = 1, next[w] = g.start[w], stack[top++] = w;
      } else if (colour[w] == 1) { /* a cycle: report it at a connect() of the equations on it */
        /* The cycle is the path from w to the top of the stack: a variable on it (a
         * link) names it, else the connect() of its closing edge. */
        uint32_t via = g.via[e], pos = top;
        while (pos > 0 && stack[pos - 1] != w) pos--;
        int line = 0, col = 0;
        const char *var = NULL;
        for (uint32_t i = pos > 0 ? pos - 1 : 0; i < top && !var; i++)
          if (stack[i] >= g.nout) {
            const mo_link *lk = &mo->links[stack[i] - g.nout];
            var = mo->names[lk->f], line = lk->line, col = lk->col;
          }
        if (!var && (via & 0x80000000u)) {
          line = mo->conns[via & 0x7fffffffu].line, col = mo->conns[via & 0x7fffffffu].col;
        } else if (!var) {
          const mo_link *lk = &mo->links[via - 1];
          var = mo->names[lk->f], line = lk->line, col = lk->col;
        }
        lang_error(c->d, line, col,
                   "an instantaneous loop: %s%s%sreaches itself through blocks that pass their input on at once "
                   "(static functions) and algebraic equations, with no state on the way; put an integrator in it, "
                   "or solve the loop in the equations",
                   var ? "'" : "", var ? var : "", var ? "' " : "");
        rc = -1;
      }
    }
  }
  free(colour), free(stack), free(next);
  free(g.comp_first), free(g.start), free(g.to), free(g.via), free(edges), free(seen);
  return rc;
oom:
  free(g.comp_first), free(g.start), free(g.to), free(g.via), free(edges), free(seen);
  c->oom = 1;
  return -1;
}
