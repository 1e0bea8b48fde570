/* SPDX-License-Identifier: MIT */
/*
 * Recursive-descent parser for the model language. On a syntax error it reports the
 * place, skips to the end of the statement (the next ';' at nesting depth 0, or a
 * section keyword) and goes on, so one run can report several errors.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "lang_impl.h"

/* ---- Arena -------------------------------------------------------------------------- */

struct lang_arena {
  struct chunk {
    struct chunk *next;
    size_t used, size;
    _Alignas(16) unsigned char data[];
  } *head;
  void *owned[LANG_MAX_FILES]; /* buffers freed with the arena (arena_own) */
  int nowned;
};

lang_arena *arena_new(void) { return calloc(1, sizeof(lang_arena)); }

int arena_own(lang_arena *a, void *p) {
  if (a->nowned == LANG_MAX_FILES) return -1;
  a->owned[a->nowned++] = p;
  return 0;
}

void arena_free(lang_arena *a) {
  if (!a) return;
  for (int i = 0; i < a->nowned; i++) free(a->owned[i]);
  struct chunk *c = a->head;
  while (c) {
    struct chunk *n = c->next;
    free(c);
    c = n;
  }
  free(a);
}

void *arena_get(lang_arena *a, size_t size) {
  size = (size + 15) & ~(size_t)15;
  if (!a->head || a->head->used + size > a->head->size) {
    size_t cs = size > 65536 ? size : 65536;
    struct chunk *c = malloc(sizeof *c + cs);
    if (!c) return NULL;
    c->next = a->head;
    c->used = 0;
    c->size = cs;
    a->head = c;
  }
  void *p = a->head->data + a->head->used;
  a->head->used += size;
  memset(p, 0, size);
  return p;
}

/* ---- Parser state ------------------------------------------------------------------ */

#define MAX_DEPTH LANG_MAX_DEPTH

typedef struct parser {
  lexer lx;
  token tok, ahead;
  int have_ahead;
  lang_diag *d;
  lang_arena *a;
  int panic; /* an error was reported in this statement: stay quiet until sync */
  int depth;
  int oom;
  int in_guard;         /* a graph's guard: p?v is an expression */
  const char *prev_end; /* where the last token taken ends (the text of a graph's labels) */
} parser;

/* Functions that hold a token or a buffer are kept out of line, so that a compiler
 * that inlines them does not put those on every frame of the recursive descent
 * (clang -O1 with ASan did: 2.4 KiB of stack per level of nesting). */
#if defined(__GNUC__)
#define OUT_OF_LINE __attribute__((noinline))
#else
#define OUT_OF_LINE
#endif

OUT_OF_LINE static void next(parser *p) {
  if (p->tok.start) p->prev_end = p->tok.start + p->tok.len;
  if (p->have_ahead) {
    p->tok = p->ahead;
    p->have_ahead = 0;
  } else {
    p->tok = lex_next(&p->lx);
  }
}

OUT_OF_LINE static const token *peek(parser *p) {
  if (!p->have_ahead) {
    p->ahead = lex_next(&p->lx);
    p->have_ahead = 1;
  }
  return &p->ahead;
}

static const char *tok_text(const token *t, char *buf, size_t n) {
  if (t->kind == T_EOF) return "end of file";
  size_t len = t->len < n - 3 ? t->len : n - 3;
  snprintf(buf, n, "'%.*s'", (int)len, t->start);
  return buf;
}

OUT_OF_LINE static void err_at(parser *p, const token *t, const char *fmt, ...) {
  if (p->panic) return;
  p->panic = 1;
  char msg[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lang_error(p->d, t->line, t->col, "%s", msg);
}

OUT_OF_LINE static void expected(parser *p, const char *what) {
  char buf[48];
  err_at(p, &p->tok, "expected %s, found %s", what, tok_text(&p->tok, buf, sizeof buf));
}

static int accept(parser *p, tok_kind k) {
  if (p->tok.kind == k) {
    next(p);
    return 1;
  }
  return 0;
}

static int accept_word(parser *p, const char *w) {
  if (tok_is(&p->tok, w)) {
    next(p);
    return 1;
  }
  return 0;
}

static int expect(parser *p, tok_kind k, const char *what) {
  if (accept(p, k)) return 1;
  expected(p, what);
  return 0;
}

OUT_OF_LINE static int expect_word(parser *p, const char *w) {
  if (accept_word(p, w)) return 1;
  char what[40];
  snprintf(what, sizeof what, "'%s'", w);
  expected(p, what);
  return 0;
}

static const char *intern(parser *p, const token *t) {
  size_t n = t->len;
  const char *s = t->start;
  if (n >= 2 && s[0] == '\'') s++, n -= 2; /* a quoted name */
  char *r = arena_get(p->a, n + 1);
  if (!r) {
    p->oom = 1;
    return "";
  }
  memcpy(r, s, n);
  r[n] = 0;
  return r;
}

OUT_OF_LINE static node *mk(parser *p, node_kind k, const token *at) {
  node *n = arena_get(p->a, sizeof *n);
  if (!n) {
    p->oom = 1;
    static node dummy;
    memset(&dummy, 0, sizeof dummy);
    return &dummy;
  }
  n->kind = k;
  n->line = at->line;
  n->col = at->col;
  return n;
}

OUT_OF_LINE static void too_deep(parser *p, int line, int col) {
  token at = p->tok;
  at.line = line, at.col = col;
  err_at(p, &at, "expression nested too deeply (more than %d levels)", MAX_DEPTH);
}

static void append(parser *p, node *n, node *kid);

OUT_OF_LINE static void add(parser *p, node *n, node *kid) {
  if (p->oom || !kid) return;
  /* Left-deep chains (a + b + c + …) are built by loops, not by recursion, so the
   * tree's height is bounded here, where every edge is made. It is reported once,
   * where it first passes the bound; a deeper tree is never walked (it is an error). */
  if (kid->height >= n->height) {
    n->height = kid->height + 1;
    if (n->height == MAX_DEPTH + 1) {
      if (n->kind == X_BIN && kid->kind == X_BIN && kid->op == n->op) { /* a long flat chain */
        token at = p->tok;
        at.line = n->line, at.col = n->col;
        err_at(p, &at, "more than %d terms in one chain of binary operators (an array and sum() takes any number)",
               MAX_DEPTH);
      } else {
        too_deep(p, n->line, n->col);
      }
    }
  }
  append(p, n, kid);
}

/* Adds kid to n without counting a level: for a section's list of statements, which
 * every walker runs through with a loop. */
static void append(parser *p, node *n, node *kid) {
  if (p->oom || !kid) return;
  if (node_append(p->a, n, kid)) p->oom = 1;
}

int node_append(lang_arena *a, node *n, node *kid) {
  if ((n->nkid & (n->nkid - 1)) == 0) { /* grow at powers of two */
    int cap = n->nkid ? 2 * n->nkid : 2;
    node **k = arena_get(a, (size_t)cap * sizeof *k);
    if (!k) return -1;
    if (n->nkid) memcpy(k, n->kid, (size_t)n->nkid * sizeof *k);
    n->kid = k;
  }
  n->kid[n->nkid++] = kid;
  return 0;
}

static int is_keyword(const token *t) {
  static const char *const kw[] = {"model", "end", "equation", "algorithm", "initial", "when",
                                   "elsewhen", "then", "else", "elseif", "if", "for", "loop",
                                   "in", "and", "or", "not", "parameter", "constant",
                                   "discrete", "annotation", "public", "protected", NULL};
  for (int i = 0; kw[i]; i++)
    if (tok_is(t, kw[i])) return 1;
  return 0;
}

/* Skips to the end of the current statement or declaration. */
static void sync(parser *p) {
  int depth = 0;
  while (p->tok.kind != T_EOF) {
    if (depth == 0) {
      if (p->tok.kind == T_SEMI) {
        next(p);
        break;
      }
      if (tok_is(&p->tok, "equation") || tok_is(&p->tok, "algorithm") ||
          tok_is(&p->tok, "initial") || tok_is(&p->tok, "end") || tok_is(&p->tok, "annotation"))
        break;
    }
    if (p->tok.kind == T_LPAREN || p->tok.kind == T_LBRACK || p->tok.kind == T_LBRACE) depth++;
    if ((p->tok.kind == T_RPAREN || p->tok.kind == T_RBRACK || p->tok.kind == T_RBRACE) && depth > 0)
      depth--;
    next(p);
  }
  p->panic = 0;
}

/* ---- Expressions ---------------------------------------------------------------------- */

static node *expr(parser *p);
static node *nested_expr(parser *p);

/* "i in range" after "for": the index into f's name, the range its first kid. */
static void loop_head(parser *p, node *f) {
  if (p->tok.kind != T_IDENT || is_keyword(&p->tok)) {
    expected(p, "a loop index");
  } else {
    f->name = intern(p, &p->tok);
    next(p);
  }
  expect_word(p, "in");
  add(p, f, expr(p));
}

/* Arguments, subscripts or array elements, each one level deeper than n. */
static node *subscripts_or_args(parser *p, node *n, tok_kind close, int allow_colon) {
  if (p->tok.kind == close) {
    next(p);
    return n;
  }
  do {
    if (allow_colon && p->tok.kind == T_COLON &&
        (peek(p)->kind == T_RBRACK || peek(p)->kind == T_COMMA)) {
      add(p, n, mk(p, X_COLON, &p->tok));
      next(p);
    } else if (close == T_RPAREN && p->tok.kind == T_IDENT && peek(p)->kind == T_EQ) {
      /* a named argument (modifier style): name = expr */
      node *eq = mk(p, Q_EQ, &p->tok);
      node *r = mk(p, X_REF, &p->tok);
      r->name = intern(p, &p->tok);
      next(p);
      next(p);
      add(p, eq, r);
      add(p, eq, nested_expr(p));
      add(p, n, eq);
    } else {
      node *e = nested_expr(p);
      if (close == T_RPAREN && n->nkid == 0 && tok_is(&p->tok, "for")) {
        /* sum(e for i in r): a Q_FOR whose body is the expression */
        node *f = mk(p, Q_FOR, &p->tok);
        next(p);
        loop_head(p, f);
        add(p, f, e);
        e = f;
      }
      add(p, n, e);
    }
  } while (accept(p, T_COMMA));
  expect(p, close, close == T_RBRACK ? "']'" : close == T_RBRACE ? "'}'" : "')'");
  return n;
}

/* A dotted name a.b.c (component ports, library names, math.sin) from the current
 * token on, in the arena. Kept out of primary() so that its buffer is not on the
 * stack of every nesting level. */
OUT_OF_LINE static const char *dotted_name(parser *p) {
  token t = p->tok;
  char name[256];
  size_t len = (size_t)snprintf(name, sizeof name, "%s", intern(p, &t));
  next(p);
  while (p->tok.kind == T_DOT && peek(p)->kind == T_IDENT) {
    next(p);
    const char *part = intern(p, &p->tok);
    if (len < sizeof name) len += (size_t)snprintf(name + len, sizeof name - len, ".%s", part);
    next(p);
  }
  if (len >= sizeof name) {
    err_at(p, &t, "name too long");
    len = sizeof name - 1;
  }
  char *nm = arena_get(p->a, len + 1);
  if (!nm) {
    p->oom = 1;
    return "";
  }
  memcpy(nm, name, len);
  nm[len] = 0;
  return nm;
}

/* The text of the current string token, without its quotes (escapes kept). */
static const char *string_text(parser *p) {
  size_t n = p->tok.len >= 2 ? p->tok.len - 2 : 0;
  char *r = arena_get(p->a, n + 1);
  if (!r) {
    p->oom = 1;
    return "";
  }
  memcpy(r, p->tok.start + 1, n);
  r[n] = 0;
  return r;
}

OUT_OF_LINE static node *not_an_expression(parser *p) {
  char buf[48];
  err_at(p, &p->tok, "expected an expression, found %s", tok_text(&p->tok, buf, sizeof buf));
  node *n = mk(p, X_NUM, &p->tok);
  if (p->tok.kind != T_EOF && p->tok.kind != T_SEMI) next(p);
  return n;
}

/* Every recursive path of the parser passes here once per level of nesting (a
 * parenthesis, an argument, a subscript, a unary operator, an exponent, a statement
 * inside another): a bound on the nesting keeps hostile input from exhausting the
 * stack. Each level costs a dozen small frames (a parenthesis goes down through
 * every precedence level), so the frames are kept lean: no token copies or buffers
 * where the recursion passes. */
static int deeper(parser *p) {
  if (p->depth >= MAX_DEPTH) {
    too_deep(p, p->tok.line, p->tok.col);
    return 0;
  }
  p->depth++;
  return 1;
}

/* expr() with one more level of nesting. */
static node *nested_expr(parser *p) {
  if (!deeper(p)) return mk(p, X_NUM, &p->tok);
  node *n = expr(p);
  p->depth--;
  return n;
}

static node *unary(parser *p);

static node *primary(parser *p) {
  node *n;
  if (p->tok.kind == T_NUM) {
    n = mk(p, X_NUM, &p->tok);
    n->num = p->tok.num;
    next(p);
  } else if (tok_is(&p->tok, "true") || tok_is(&p->tok, "false")) {
    n = mk(p, X_BOOL, &p->tok);
    n->num = tok_is(&p->tok, "true");
    next(p);
  } else if (p->tok.kind == T_STRING) {
    n = mk(p, X_STRING, &p->tok); /* annotations only: elsewhere the compiler refuses it */
    n->name = string_text(p);
    next(p);
  } else if (accept(p, T_LPAREN)) {
    n = nested_expr(p);
    expect(p, T_RPAREN, "')'");
  } else if (p->tok.kind == T_LBRACE) {
    n = mk(p, X_ARRAY, &p->tok);
    next(p);
    subscripts_or_args(p, n, T_RBRACE, 1);
  } else if (p->tok.kind == T_IDENT && !is_keyword(&p->tok)) {
    n = mk(p, X_REF, &p->tok);
    n->name = dotted_name(p);
    if (accept(p, T_LPAREN)) {
      n->kind = X_CALL;
      subscripts_or_args(p, n, T_RPAREN, 0);
    } else if (p->in_guard && p->tok.kind == T_QUEST) {
      /* p?v: an event of value v on input port p (the value a unary: p?-1, p?(k+1)) */
      node *ev = mk(p, X_EVENT, &p->tok);
      next(p);
      add(p, ev, n);
      if (deeper(p)) {
        add(p, ev, unary(p));
        p->depth--;
      }
      n = ev;
    } else if (accept(p, T_LBRACK)) {
      subscripts_or_args(p, n, T_RBRACK, 1);
      /* An element of an array of components: t[i].h[j] is t.h[i, j], the
       * component's variables being arrays over the components. */
      if (p->tok.kind == T_DOT && peek(p)->kind == T_IDENT) {
        next(p);
        const char *rest = dotted_name(p);
        size_t la = strlen(n->name), lb = strlen(rest);
        char *nm = arena_get(p->a, la + lb + 2);
        if (!nm) {
          p->oom = 1;
          return n;
        }
        memcpy(nm, n->name, la);
        nm[la] = '.';
        memcpy(nm + la + 1, rest, lb + 1);
        n->name = nm;
        if (accept(p, T_LBRACK)) subscripts_or_args(p, n, T_RBRACK, 1);
      }
    }
  } else {
    n = not_an_expression(p);
  }
  return n;
}

/* a ^ b, right-associative: the exponent is a unary (a^-b). */
static node *power(parser *p) {
  node *l = primary(p);
  if (p->tok.kind != T_CARET) return l;
  node *n = mk(p, X_BIN, &p->tok);
  n->op = T_CARET;
  next(p);
  add(p, n, l);
  if (deeper(p)) {
    add(p, n, unary(p));
    p->depth--;
  }
  return n;
}

static node *unary(parser *p) {
  if (p->tok.kind != T_MINUS && p->tok.kind != T_PLUS) return power(p);
  node *r = p->tok.kind == T_MINUS ? mk(p, X_NEG, &p->tok) : NULL;
  next(p);
  if (!deeper(p)) return mk(p, X_NUM, &p->tok);
  node *e = unary(p);
  p->depth--;
  if (!r) return e; /* unary plus */
  add(p, r, e);
  return r;
}

/* l op (operand): the node is made before the operand is parsed, so that no token
 * is held on the stack while the operand's nesting recurses. */
static node *binary(parser *p, node *l, int op) {
  node *n = mk(p, X_BIN, &p->tok);
  n->op = op;
  next(p);
  add(p, n, l);
  return n;
}

static node *term(parser *p) {
  node *l = unary(p);
  while (p->tok.kind == T_STAR || p->tok.kind == T_SLASH) {
    l = binary(p, l, (int)p->tok.kind);
    add(p, l, unary(p));
  }
  return l;
}

static node *arith(parser *p) {
  node *l = term(p);
  while (p->tok.kind == T_PLUS || p->tok.kind == T_MINUS) {
    l = binary(p, l, (int)p->tok.kind);
    add(p, l, term(p));
  }
  return l;
}

static node *relation(parser *p) {
  node *l = arith(p);
  tok_kind k = p->tok.kind;
  if (k == T_LT || k == T_LE || k == T_GT || k == T_GE || k == T_EQEQ || k == T_NE) {
    l = binary(p, l, (int)k);
    add(p, l, arith(p));
  }
  return l;
}

static node *logic_not(parser *p) {
  if (!tok_is(&p->tok, "not")) return relation(p);
  node *n = mk(p, X_NOT, &p->tok);
  next(p);
  if (!deeper(p)) return n;
  add(p, n, logic_not(p));
  p->depth--;
  return n;
}

static node *logic_and(parser *p) {
  node *l = logic_not(p);
  while (tok_is(&p->tok, "and")) {
    l = binary(p, l, OP_AND);
    add(p, l, logic_not(p));
  }
  return l;
}

static node *logic_or(parser *p) {
  node *l = logic_and(p);
  while (tok_is(&p->tok, "or")) {
    l = binary(p, l, OP_OR);
    add(p, l, logic_and(p));
  }
  return l;
}

static node *range(parser *p) {
  node *l = logic_or(p);
  if (p->tok.kind == T_COLON) {
    node *n = mk(p, X_RANGE, &p->tok);
    next(p);
    add(p, n, l);
    add(p, n, logic_or(p));
    if (accept(p, T_COLON)) add(p, n, logic_or(p)); /* a:step:b */
    return n;
  }
  return l;
}

/* An expression: if c then a elseif … else e, or a range. The branches of an if are
 * one level deeper (an if in an else is nesting, as a parenthesis is). */
static node *expr(parser *p) {
  if (!tok_is(&p->tok, "if")) return range(p);
  node *n = mk(p, X_IF, &p->tok);
  next(p);
  add(p, n, nested_expr(p));
  expect_word(p, "then");
  add(p, n, nested_expr(p));
  while (accept_word(p, "elseif")) {
    add(p, n, nested_expr(p));
    expect_word(p, "then");
    add(p, n, nested_expr(p));
  }
  expect_word(p, "else");
  add(p, n, nested_expr(p));
  n->has_else = 1;
  return n;
}

/* ---- Equations and statements ---------------------------------------------------- */

static int section_end(const parser *p) {
  return p->tok.kind == T_EOF || tok_is(&p->tok, "end") || tok_is(&p->tok, "equation") ||
         tok_is(&p->tok, "algorithm") || tok_is(&p->tok, "initial") ||
         tok_is(&p->tok, "annotation") || tok_is(&p->tok, "public") || tok_is(&p->tok, "protected");
}

static node *item(parser *p, int stmt);

/* Items until one of the words (or the end of a section), into a list. */
static node *body(parser *p, int stmt, const char *const *stop) {
  node *list = mk(p, N_LIST, &p->tok);
  for (;;) {
    for (int i = 0; stop[i]; i++)
      if (tok_is(&p->tok, stop[i])) return list;
    if (section_end(p) && !tok_is(&p->tok, "end")) return list;
    if (tok_is(&p->tok, "end") || p->tok.kind == T_EOF) return list;
    add(p, list, item(p, stmt));
  }
}

static void skip_parens(parser *p);

/* An annotation on an equation or statement (QSS Solver writes them after
 * `end when`): skipped. */
static void skip_annotation(parser *p) {
  if (tok_is(&p->tok, "annotation") && peek(p)->kind == T_LPAREN) {
    next(p);
    skip_parens(p);
  }
}

static void end_block(parser *p, const char *word) {
  if (expect_word(p, "end") && !accept_word(p, word)) {
    char what[40];
    snprintf(what, sizeof what, "'end %s'", word);
    expected(p, what);
  }
  skip_annotation(p);
  expect(p, T_SEMI, "';'");
}

static node *item_inner(parser *p, int stmt);

static node *item(parser *p, int stmt) {
  if (!deeper(p)) {
    node *n = mk(p, N_LIST, &p->tok);
    sync(p);
    return n;
  }
  node *n = item_inner(p, stmt);
  p->depth--;
  return n;
}

static node *item_inner(parser *p, int stmt) {
  token t = p->tok;
  node *n;
  if (accept_word(p, "for")) {
    /* for i in r1, j in r2 loop … is for i in r1 loop for j in r2 loop … */
    n = mk(p, Q_FOR, &t);
    node *inner = n;
    for (;;) {
      loop_head(p, inner);
      if (!accept(p, T_COMMA)) break;
      node *list = mk(p, N_LIST, &p->tok), *f = mk(p, Q_FOR, &p->tok);
      add(p, list, f);
      add(p, inner, list);
      inner = f;
    }
    expect_word(p, "loop");
    static const char *const stop[] = {NULL};
    add(p, inner, body(p, stmt, stop));
    end_block(p, "for");
  } else if (accept_word(p, "when")) {
    n = mk(p, Q_WHEN, &t);
    static const char *const stop[] = {"elsewhen", NULL};
    do {
      add(p, n, expr(p));
      expect_word(p, "then");
      add(p, n, body(p, stmt, stop));
    } while (accept_word(p, "elsewhen"));
    end_block(p, "when");
  } else if (accept_word(p, "if")) {
    n = mk(p, Q_IF, &t);
    static const char *const stop[] = {"elseif", "else", NULL};
    do {
      add(p, n, expr(p));
      expect_word(p, "then");
      add(p, n, body(p, stmt, stop));
    } while (accept_word(p, "elseif"));
    if (accept_word(p, "else")) {
      static const char *const none[] = {NULL};
      add(p, n, body(p, stmt, none));
      n->has_else = 1;
    }
    end_block(p, "if");
  } else if (tok_is(&t, "switch") && tok_is(peek(p), "to")) {
    /* switch to Name(x = e, v[2] = e, …); — a change of model class (a when clause's) */
    next(p);
    next(p);
    n = mk(p, Q_SWITCH, &t);
    if (p->tok.kind != T_IDENT) {
      expected(p, "the name of the model class to switch to");
    } else {
      n->name = intern(p, &p->tok);
      next(p);
      if (accept(p, T_LPAREN) && !accept(p, T_RPAREN)) {
        do {
          token at = p->tok;
          node *l = expr(p);
          if (l->kind != X_REF) {
            err_at(p, &at, "expected a variable of %s to hand a value over to", n->name);
            break;
          }
          node *eq = mk(p, Q_EQ, &at);
          if (!expect(p, T_EQ, "'='")) break;
          add(p, eq, l);
          add(p, eq, expr(p));
          add(p, n, eq);
        } while (accept(p, T_COMMA));
        if (!p->panic) expect(p, T_RPAREN, "')'");
      }
    }
    expect(p, T_SEMI, "';'");
  } else if (tok_is(&t, "connect") && peek(p)->kind == T_LPAREN) {
    next(p);
    next(p);
    n = mk(p, Q_CONNECT, &t);
    add(p, n, expr(p));
    expect(p, T_COMMA, "','");
    add(p, n, expr(p));
    expect(p, T_RPAREN, "')'");
    expect(p, T_SEMI, "';'");
  } else {
    node *l = expr(p);
    if (l->kind == X_CALL && p->tok.kind == T_SEMI) {
      n = mk(p, Q_CALL, &t);
      add(p, n, l);
    } else if (stmt) {
      n = mk(p, Q_ASSIGN, &t);
      if (!accept(p, T_ASSIGN)) {
        if (p->tok.kind == T_EQ)
          err_at(p, &p->tok, "use ':=' for an assignment in an algorithm section");
        else
          expected(p, "':='");
      }
      add(p, n, l);
      add(p, n, expr(p));
    } else {
      n = mk(p, Q_EQ, &t);
      if (!accept(p, T_EQ)) {
        if (p->tok.kind == T_ASSIGN)
          err_at(p, &p->tok, "use '=' in an equation section (':=' is for algorithms)");
        else
          expected(p, "'='");
      }
      add(p, n, l);
      add(p, n, expr(p));
    }
    skip_annotation(p);
    expect(p, T_SEMI, "';'");
  }
  if (p->panic) sync(p);
  return n;
}

/* ---- Declarations and annotations ----------------------------------------------- */

decl *model_new_decl(lang_arena *a, ast_model *m) {
  if (m->ndecls == m->capdecls) {
    size_t cap = m->capdecls ? 2 * m->capdecls : 16;
    decl *d = arena_get(a, cap * sizeof *d);
    if (!d) return NULL;
    if (m->ndecls) memcpy(d, m->decls, m->ndecls * sizeof *d);
    m->decls = d;
    m->capdecls = cap;
  }
  decl *d = &m->decls[m->ndecls++];
  memset(d, 0, sizeof *d);
  return d;
}

static decl *new_decl(parser *p, ast_model *m) {
  decl *d = model_new_decl(p->a, m);
  if (!d) p->oom = 1;
  return d;
}

static void skip_comment(parser *p) {
  while (p->tok.kind == T_STRING) next(p);
}

/* Skips a parenthesised annotation on a declaration. */
static void skip_parens(parser *p) {
  int depth = 0;
  do {
    if (p->tok.kind == T_LPAREN) depth++;
    if (p->tok.kind == T_RPAREN) depth--;
    if (p->tok.kind == T_EOF) return;
    next(p);
  } while (depth > 0);
}

/* (start = e, fixed = true, each x0 = 1, tank(area = 2), …) after the '(': a list
 * of Q_EQ (name = e) and, for a component's component, N_LIST nodes named after it
 * holding its own modifiers. *start: the start = e of this level. */
static node *mod_list(parser *p, node **start) {
  node *list = mk(p, N_LIST, &p->tok);
  if (accept(p, T_RPAREN)) return list;
  if (!deeper(p)) return list;
  do {
    int each = accept_word(p, "each");
    accept_word(p, "final");
    if (p->tok.kind != T_IDENT) {
      expected(p, "a modifier name");
      break;
    }
    token t = p->tok;
    next(p);
    if (accept(p, T_LPAREN)) {
      node *sub = mod_list(p, NULL);
      sub->name = intern(p, &t);
      sub->line = t.line, sub->col = t.col, sub->op = each;
      add(p, list, sub);
      if (p->panic) break;
      continue;
    }
    if (!expect(p, T_EQ, "'='")) break;
    node *e = expr(p);
    if (start && tok_is(&t, "start")) *start = e;
    node *eq = mk(p, Q_EQ, &t);
    eq->op = each;
    node *r = mk(p, X_REF, &t);
    r->name = intern(p, &t);
    add(p, eq, r);
    add(p, eq, e);
    add(p, list, eq);
  } while (accept(p, T_COMMA));
  p->depth--;
  if (!p->panic) expect(p, T_RPAREN, "')'");
  return list;
}

static void modifiers(parser *p, decl *d) { d->mods = mod_list(p, &d->start); }

static void declaration(parser *p, ast_model *m) {
  decl_kind kind = D_REAL;
  int is_discrete = 0;
  for (;;) {
    if (accept_word(p, "parameter")) kind = D_PARAM;
    else if (accept_word(p, "constant")) kind = D_CONST;
    else if (accept_word(p, "discrete")) is_discrete = 1;
    else if (accept_word(p, "input")) kind = D_INPUT;
    else if (accept_word(p, "output")) kind = D_OUTPUT;
    else if (accept_word(p, "flow") || accept_word(p, "each") || accept_word(p, "final")) continue;
    else break;
  }
  if (is_discrete && kind == D_REAL) kind = D_DISCRETE;
  if (p->tok.kind != T_IDENT || is_keyword(&p->tok)) {
    expected(p, "a type name");
    sync(p);
    return;
  }
  token type = p->tok;
  char tname[128];
  size_t tl = (size_t)snprintf(tname, sizeof tname, "%.*s", (int)type.len, type.start);
  next(p);
  while (p->tok.kind == T_DOT && peek(p)->kind == T_IDENT) {
    next(p);
    if (tl < sizeof tname)
      tl += (size_t)snprintf(tname + tl, sizeof tname - tl, ".%.*s", (int)p->tok.len, p->tok.start);
    next(p);
  }
  int is_int = !strcmp(tname, "Integer"), is_bool = !strcmp(tname, "Boolean");
  const char *block = NULL;
  if (strcmp(tname, "Real") && !is_int && !is_bool) {
    char *b = arena_get(p->a, strlen(tname) + 1);
    if (!b) {
      p->oom = 1;
      return;
    }
    strcpy(b, tname);
    block = b;
  }
  do {
    if (p->tok.kind != T_IDENT || is_keyword(&p->tok)) {
      expected(p, "a variable name");
      break;
    }
    decl *d = new_decl(p, m);
    if (!d) return;
    d->kind = kind;
    d->is_integer = is_int;
    d->is_boolean = is_bool;
    d->block = block;
    d->name = intern(p, &p->tok);
    d->line = p->tok.line;
    d->col = p->tok.col;
    next(p);
    if (accept(p, T_LBRACK)) {
      d->dims = mk(p, N_LIST, &p->tok);
      subscripts_or_args(p, d->dims, T_RBRACK, 1);
    }
    if (accept(p, T_LPAREN)) modifiers(p, d);
    if (accept(p, T_EQ)) d->value = expr(p);
    skip_comment(p);
    if (tok_is(&p->tok, "annotation")) {
      next(p);
      skip_parens(p);
    }
  } while (!p->panic && accept(p, T_COMMA));
  if (!p->panic) expect(p, T_SEMI, "';'");
  if (p->panic) sync(p);
}

static void annot_add(parser *p, ast_model *m, const char *within, const token *key, node *value) {
  if (m->nannots == m->capannots) {
    size_t cap = m->capannots ? 2 * m->capannots : 16;
    annot *a = arena_get(p->a, cap * sizeof *a);
    if (!a) {
      p->oom = 1;
      return;
    }
    if (m->nannots) memcpy(a, m->annots, m->nannots * sizeof *a);
    m->annots = a;
    m->capannots = cap;
  }
  annot *a = &m->annots[m->nannots++];
  a->key = intern(p, key);
  a->within = within;
  a->value = value;
  a->line = key->line;
  a->col = key->col;
}

/* annotation(experiment(StartTime = 0, …), …): keeps the innermost key = value pairs,
 * each with the name of the call around it ("" at the top). */
static void annotation_args(parser *p, ast_model *m, const char *within) {
  if (accept(p, T_RPAREN)) return;
  if (!deeper(p)) return;
  do {
    if (p->tok.kind != T_IDENT) {
      expected(p, "an annotation name");
      break;
    }
    token key = p->tok;
    next(p);
    if (accept(p, T_LPAREN)) {
      annotation_args(p, m, intern(p, &key));
      if (p->panic) break;
    } else if (accept(p, T_EQ)) {
      annot_add(p, m, within, &key, expr(p));
    }
  } while (accept(p, T_COMMA));
  p->depth--;
  if (!p->panic) expect(p, T_RPAREN, "')'");
}


/* ---- DEVS graphs ----------------------------------------------------------------------- */

/* The source text from start to the end of the last token taken, its blanks (line
 * breaks too) each run made one space: a label drawn beside an arc. */
static const char *span_text(parser *p, const char *start) {
  if (!start || !p->prev_end || p->prev_end < start) return "";
  size_t n = (size_t)(p->prev_end - start);
  char *r = arena_get(p->a, n + 1);
  if (!r) {
    p->oom = 1;
    return "";
  }
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char ch = start[i];
    int blank = ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
    if (blank && (k == 0 || r[k - 1] == ' ')) continue;
    r[k++] = blank ? ' ' : ch;
  }
  while (k > 0 && r[k - 1] == ' ') k--;
  r[k] = 0;
  return r;
}

/* A name for a phase or a port at the current token: interned (and taken), or NULL
 * after an error. */
static const char *graph_name(parser *p, const char *what, int *line, int *col) {
  if (p->tok.kind != T_IDENT || is_keyword(&p->tok)) {
    expected(p, what);
    return NULL;
  }
  *line = p->tok.line, *col = p->tok.col;
  const char *nm = intern(p, &p->tok);
  next(p);
  return nm;
}

/* phase A, B(lifetime = e), … ; (after 'phase') */
static void graph_phases(parser *p, ast_graph *g, int initial) {
  do {
    int line, col;
    const char *name = graph_name(p, "a phase name", &line, &col);
    if (!name) return;
    ast_phase ph = {.name = name, .line = line, .col = col, .initial = initial};
    if (accept(p, T_LPAREN)) {
      if (!tok_is(&p->tok, "lifetime")) {
        expected(p, "'lifetime = …' (a phase's one attribute)");
        return;
      }
      next(p);
      if (!expect(p, T_EQ, "'='")) return;
      const char *start = p->tok.start;
      ph.lifetime = expr(p);
      ph.life_text = span_text(p, start);
      if (!expect(p, T_RPAREN, "')'")) return;
    }
    if (g->nphases == g->capphases) {
      size_t cap = g->capphases ? 2 * g->capphases : 8;
      ast_phase *np = arena_get(p->a, cap * sizeof *np);
      if (!np) {
        p->oom = 1;
        return;
      }
      if (g->nphases) memcpy(np, g->phases, g->nphases * sizeof *np);
      g->phases = np, g->capphases = cap;
    }
    g->phases[g->nphases++] = ph;
  } while (accept(p, T_COMMA));
  expect(p, T_SEMI, "';'");
}

/* x := e, y := e, … (after 'then') into a list of Q_ASSIGN. */
static node *graph_assigns(parser *p) {
  node *list = mk(p, N_LIST, &p->tok);
  do {
    if (p->tok.kind != T_IDENT || is_keyword(&p->tok)) {
      expected(p, "an assignment 'variable := expression'");
      return list;
    }
    node *a = mk(p, Q_ASSIGN, &p->tok);
    node *r = mk(p, X_REF, &p->tok);
    r->name = intern(p, &p->tok);
    next(p);
    if (!accept(p, T_ASSIGN)) {
      if (p->tok.kind == T_EQ) err_at(p, &p->tok, "use ':=' for an assignment");
      else expected(p, "':='");
      return list;
    }
    add(p, a, r);
    add(p, a, expr(p));
    append(p, list, a);
  } while (!p->panic && accept(p, T_COMMA));
  return list;
}

/* internal A -> B output p!v, … then x := e, …;
 * external A -> B when guard then x := e, …;      (after the keyword at kw) */
static void graph_transition(parser *p, ast_graph *g, const token *kw) {
  int external = tok_is(kw, "external");
  ast_trans t = {.external = external, .line = kw->line, .col = kw->col};
  t.from = graph_name(p, "the phase the transition leaves", &t.from_line, &t.from_col);
  if (!t.from) return;
  if (!(p->tok.kind == T_MINUS && peek(p)->kind == T_GT)) {
    expected(p, "'->'");
    return;
  }
  next(p), next(p);
  t.to = graph_name(p, "the phase the transition enters", &t.to_line, &t.to_col);
  if (!t.to) return;
  const char *label = "", *start;
  if (tok_is(&p->tok, "when")) {
    if (!external) {
      err_at(p, &p->tok, "an internal transition has no guard: it fires when its phase's lifetime ends");
      return;
    }
    next(p);
    start = p->tok.start;
    p->in_guard = 1;
    t.guard = expr(p);
    p->in_guard = 0;
    label = span_text(p, start);
  }
  if (tok_is(&p->tok, "output")) {
    if (external) {
      err_at(p, &p->tok, "an external transition sends no output: outputs are λ's, on internal transitions (pass "
             "through a phase of lifetime 0 to answer at once)");
      return;
    }
    next(p);
    start = p->tok.start;
    t.emits = mk(p, N_LIST, &p->tok);
    do {
      if (p->tok.kind != T_IDENT || is_keyword(&p->tok)) {
        expected(p, "an output 'port!value'");
        return;
      }
      node *e = mk(p, Q_EMIT, &p->tok);
      node *r = mk(p, X_REF, &p->tok);
      r->name = intern(p, &p->tok);
      next(p);
      if (!expect(p, T_BANG, "'!' (port!value)")) return;
      add(p, e, r);
      add(p, e, expr(p));
      append(p, t.emits, e);
    } while (!p->panic && accept(p, T_COMMA));
    label = span_text(p, start);
  }
  if (accept_word(p, "then")) {
    start = p->tok.start;
    t.assigns = graph_assigns(p);
    const char *as = span_text(p, start);
    size_t ll = strlen(label), la = strlen(as);
    char *both = arena_get(p->a, ll + la + 4);
    if (!both) {
      p->oom = 1;
      return;
    }
    snprintf(both, ll + la + 4, "%s%s%s", label, ll ? " / " : "/ ", as);
    label = both;
  }
  t.label = label;
  if (p->panic || !expect(p, T_SEMI, "';'")) return;
  if (g->ntrans == g->captrans) {
    size_t cap = g->captrans ? 2 * g->captrans : 8;
    ast_trans *nt = arena_get(p->a, cap * sizeof *nt);
    if (!nt) {
      p->oom = 1;
      return;
    }
    if (g->ntrans) memcpy(nt, g->trans, g->ntrans * sizeof *nt);
    g->trans = nt, g->captrans = cap;
  }
  g->trans[g->ntrans++] = t;
}

/* input a, b;  output y;  (untyped: a graph's ports carry Real values) */
static void graph_ports(parser *p, ast_model *m, decl_kind kind) {
  do {
    int line, col;
    const char *name = graph_name(p, "a port name", &line, &col);
    if (!name) return;
    decl *d = new_decl(p, m);
    if (!d) return;
    d->kind = kind;
    d->name = name;
    d->line = line, d->col = col;
  } while (accept(p, T_COMMA));
  expect(p, T_SEMI, "';'");
}

/* The body of 'graph Name … end Name;': declarations (ports, parameters, variables),
 * phases, transitions, the confluence rule, annotations. */
static void graph_body(parser *p, ast_model *m) {
  ast_graph *g = m->graph;
  while (p->tok.kind != T_EOF && !p->oom && !tok_is(&p->tok, "end")) {
    token t = p->tok;
    if ((tok_is(&t, "input") || tok_is(&t, "output")) && peek(p)->kind == T_IDENT && !tok_is(peek(p), "Real") &&
        !tok_is(peek(p), "Integer") && !tok_is(peek(p), "Boolean")) {
      next(p);
      graph_ports(p, m, tok_is(&t, "input") ? D_INPUT : D_OUTPUT);
    } else if (accept_word(p, "initial")) {
      if (expect_word(p, "phase")) graph_phases(p, g, 1);
    } else if (accept_word(p, "phase")) {
      graph_phases(p, g, 0);
    } else if (accept_word(p, "internal") || accept_word(p, "external")) {
      graph_transition(p, g, &t);
    } else if (accept_word(p, "confluence")) {
      if (g->conf_line) {
        err_at(p, &t, "the confluence rule is set twice (first at line %d)", LANG_LINE(g->conf_line));
      } else if (expect_word(p, "internal")) {
        g->conf_both = accept_word(p, "external");
        g->conf_line = t.line, g->conf_col = t.col;
        expect(p, T_SEMI, "';' ('confluence internal;' or 'confluence internal external;')");
      }
    } else if (accept_word(p, "annotation")) {
      if (expect(p, T_LPAREN, "'('")) annotation_args(p, m, "");
      if (!p->panic) expect(p, T_SEMI, "';'");
    } else if (tok_is(&t, "equation") || tok_is(&t, "algorithm") || tok_is(&t, "graph") || tok_is(&t, "model")) {
      err_at(p, &t, "a graph holds declarations, phases and transitions: no '%.*s' section", (int)t.len, t.start);
      next(p);
    } else if ((t.kind == T_IDENT && !is_keyword(&t)) || tok_is(&t, "parameter") || tok_is(&t, "constant") ||
               tok_is(&t, "discrete") || tok_is(&t, "input") || tok_is(&t, "output")) {
      declaration(p, m);
    } else {
      char buf[48];
      err_at(p, &t, "expected a declaration, a phase or a transition in graph '%s', found %s", m->name,
             tok_text(&t, buf, sizeof buf));
    }
    if (p->panic) sync(p);
  }
}

static void nested_graph(parser *p, ast_model *m);

static int grow_nested(parser *p, ast_model *m) {
  size_t cap = m->capnested ? 2 * m->capnested : 4;
  ast_model **nn = arena_get(p->a, cap * sizeof *nn);
  if (!nn) return -1;
  if (m->nnested) memcpy(nn, m->nested, m->nnested * sizeof *nn);
  m->nested = nn, m->capnested = cap;
  return 0;
}

/* One class, from 'model' (or 'class', 'block', 'graph') to 'end Name;', into m. */
static void parse_class(parser *p, ast_model *m) {
  lang_diag *d = p->d;
  memset(m, 0, sizeof *m);
  accept_word(p, "partial");
  int is_graph = accept_word(p, "graph");
  if (!is_graph && !accept_word(p, "model") && !accept_word(p, "class") && !accept_word(p, "block")) {
    expected(p, "'model'");
    return;
  }
  if (p->tok.kind != T_IDENT || is_keyword(&p->tok)) {
    expected(p, "the model's name");
    return;
  }
  token name = p->tok;
  m->name = intern(p, &name);
  m->line = name.line, m->col = name.col;
  next(p);
  skip_comment(p);
  node **section = NULL;
  int stmt = 0;
  m->equations = mk(p, N_LIST, &name);
  m->algorithms = mk(p, N_LIST, &name);
  m->initial = mk(p, N_LIST, &name);
  if (is_graph) {
    if (!(m->graph = arena_get(p->a, sizeof *m->graph))) p->oom = 1;
    else graph_body(p, m);
  }
  while (p->tok.kind != T_EOF && !p->oom && !is_graph) {
    if (tok_is(&p->tok, "end")) break;
    if (tok_is(&p->tok, "graph") && peek(p)->kind == T_IDENT) { /* a graph class defined inside */
      nested_graph(p, m);
    } else if (accept_word(p, "equation")) {
      section = &m->equations, stmt = 0;
    } else if (accept_word(p, "algorithm")) {
      section = &m->algorithms, stmt = 1;
    } else if (accept_word(p, "initial")) {
      if (accept_word(p, "algorithm"))
        section = &m->initial, stmt = 1;
      else if (accept_word(p, "equation"))
        section = &m->initial, stmt = 0;
      else {
        expected(p, "'algorithm' or 'equation' after 'initial'");
        sync(p);
      }
    } else if (accept_word(p, "public") || accept_word(p, "protected")) {
      section = NULL;
    } else if (accept_word(p, "annotation")) {
      if (expect(p, T_LPAREN, "'('")) annotation_args(p, m, "");
      if (!p->panic) expect(p, T_SEMI, "';'");
      if (p->panic) sync(p);
    } else if (accept_word(p, "import")) {
      sync(p);
    } else if (accept_word(p, "function")) {
      /* Functions (external "C" ones in QSS Solver's models) are recorded by name and
       * skipped: their bodies are not part of the language yet. */
      if (p->tok.kind != T_IDENT) {
        expected(p, "a function name");
        sync(p);
        continue;
      }
      token fname = p->tok;
      if (m->nfuncs < 64) m->funcs[m->nfuncs++] = intern(p, &fname);
      next(p);
      while (p->tok.kind != T_EOF &&
             !(tok_is(&p->tok, "end") && peek(p)->kind == T_IDENT && peek(p)->len == fname.len &&
               memcmp(peek(p)->start, fname.start, fname.len) == 0))
        next(p);
      if (p->tok.kind == T_EOF) {
        err_at(p, &fname, "function '%.*s' has no 'end %.*s;'", (int)fname.len, fname.start,
               (int)fname.len, fname.start);
        break;
      }
      next(p);
      next(p);
      expect(p, T_SEMI, "';'");
      if (p->panic) sync(p);
    } else if (section) {
      append(p, *section, item(p, stmt));
    } else {
      declaration(p, m);
    }
  }
  if (p->oom) {
    lang_error(d, p->tok.line, p->tok.col, "out of memory");
    return;
  }
  if (expect_word(p, "end")) {
    if (p->tok.kind == T_IDENT) {
      if (strlen(m->name) != p->tok.len || memcmp(m->name, p->tok.start, p->tok.len) != 0) {
        char buf[48];
        err_at(p, &p->tok, "the %s is '%s' but ends with %s", is_graph ? "graph" : "model", m->name,
               tok_text(&p->tok, buf, sizeof buf));
      }
      next(p);
    } else {
      expected(p, "the model's name after 'end'");
    }
    if (!p->panic) expect(p, T_SEMI, "';'");
    p->panic = 0;
  }
}

static int starts_class(const token *t) {
  return tok_is(t, "model") || tok_is(t, "class") || tok_is(t, "block") || tok_is(t, "partial") || tok_is(t, "graph");
}

/* graph Name … end Name; inside a class: a class of its own, which the class (and the
 * classes it holds) may instantiate. */
static void nested_graph(parser *p, ast_model *m) {
  ast_model *g = arena_get(p->a, sizeof *g);
  if (!g || (m->nnested == m->capnested && grow_nested(p, m))) {
    p->oom = 1;
    return;
  }
  if (!deeper(p)) {
    sync(p);
    return;
  }
  parse_class(p, g);
  p->depth--;
  if (g->name) m->nested[m->nnested++] = g;
}

int lang_parse(const lang_src *src, lang_diag *d, lang_arena *a, int file, ast_model *m) {
  parser P;
  memset(&P, 0, sizeof P);
  parser *p = &P;
  p->d = d;
  p->a = a;
  memset(m, 0, sizeof *m);
  lex_init(&p->lx, src, d, file);
  next(p);
  int errors0 = d->errors;
  while (accept_word(p, "within")) sync(p);
  ast_model **classes = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    parse_class(p, m);
    if (d->errors != errors0 || p->oom || p->tok.kind == T_EOF) break;
    if (!starts_class(&p->tok)) {
      char buf[48];
      err_at(p, &p->tok, "unexpected %s after the end of the model", tok_text(&p->tok, buf, sizeof buf));
      break;
    }
    /* Another class follows: this one is a class the last may use. */
    if (n == cap) {
      size_t nc = cap ? 2 * cap : 8;
      ast_model **grown = arena_get(p->a, nc * sizeof *grown);
      if (!grown) {
        lang_error(d, p->tok.line, p->tok.col, "out of memory");
        break;
      }
      if (n) memcpy(grown, classes, n * sizeof *grown);
      classes = grown, cap = nc;
    }
    ast_model *keep = arena_get(p->a, sizeof *keep);
    if (!keep) {
      lang_error(d, p->tok.line, p->tok.col, "out of memory");
      break;
    }
    *keep = *m;
    classes[n++] = keep;
  }
  m->classes = classes;
  m->nclasses = n;
  m->file_top = m;
  for (size_t i = 0; i < n; i++) classes[i]->file_top = m;
  return d->errors - errors0;
}
