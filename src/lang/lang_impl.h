/* SPDX-License-Identifier: MIT */
/* The model language front end: tokens, the syntax tree, diagnostics. */
#ifndef CDEVS_LANG_IMPL_H
#define CDEVS_LANG_IMPL_H

#include <stddef.h>
#include <stdio.h>

#include "cdevs/lang.h"

/* ---- Diagnostics ------------------------------------------------------------------ */

typedef struct lang_src {
  const char *path;
  const char *text; /* NUL-terminated */
  size_t len;
} lang_src;

/* A model may instantiate classes of other files (a library on the search path):
 * every line number carries the index of its file in the bits from LANG_FILE_SHIFT
 * on (0: the model's own file), so that a node, a token or a declaration locates
 * itself wherever it ends up. Lines past LANG_LINE_MAX (a file of more than 64 Mi
 * lines) are reported as that line. */
#define LANG_FILE_SHIFT 26
#define LANG_LINE_MAX ((1 << LANG_FILE_SHIFT) - 1)
#define LANG_MAX_FILES 32
#define LANG_LINE(l) ((l) & LANG_LINE_MAX)
#define LANG_FILE(l) ((l) >> LANG_FILE_SHIFT)

typedef struct lang_diag {
  const lang_src *src; /* the model's file */
  FILE *out; /* NULL: count only */
  int errors, warnings;
  const lang_src *files[LANG_MAX_FILES]; /* files[k]: file k (files[0] NULL: src) */
  int nfiles;
} lang_diag;

/* "path:line:col: error: message", the source line and a caret under col. */
void lang_error(lang_diag *d, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* "path:line:col: warning: message", the source line and a caret: does not stop the run. */
void lang_warning(lang_diag *d, int line, int col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
/* A model file's text, NUL-terminated (the lexer relies on it), or NULL after a
 * message on diag (one larger than LANG_MAX_FILE bytes too). Freed with free(). */
#define LANG_MAX_FILE ((size_t)64 << 20)
char *lang_read_file(const char *path, FILE *diag, size_t *len);
/* The same for text in memory (copied, so that it ends with a NUL). */
char *lang_copy_text(const char *name, const char *text, size_t len, FILE *diag);
/* The closest of n candidate names to name (edit distance <= 2), or NULL. */
const char *lang_suggest(const char *name, const char *const *cands, size_t n);

/* ---- Tokens ----------------------------------------------------------------------- */

typedef enum tok_kind {
  T_EOF, T_IDENT, T_NUM, T_STRING,
  T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK, T_LBRACE, T_RBRACE,
  T_COMMA, T_SEMI, T_COLON, T_DOT, T_EQ, T_ASSIGN,
  T_PLUS, T_MINUS, T_STAR, T_SLASH, T_CARET,
  T_LT, T_LE, T_GT, T_GE, T_EQEQ, T_NE,
  T_BANG, T_QUEST, /* p!v and p?v, in DEVS graphs */
  T_BAD
} tok_kind;

typedef struct token {
  tok_kind kind;
  const char *start;
  size_t len;
  int line, col;
  double num;
} token;

typedef struct lexer {
  const lang_src *src;
  lang_diag *diag;
  const char *p;
  int line, col;
  int file_bits; /* the file's index << LANG_FILE_SHIFT, added to every line */
} lexer;

/* file: the index of src among the diagnostics' files (0: the model's own). */
void lex_init(lexer *lx, const lang_src *src, lang_diag *diag, int file);
token lex_next(lexer *lx);
int tok_is(const token *t, const char *word); /* an identifier or keyword spelled word */

/* ---- Syntax tree ---------------------------------------------------------------------- */

typedef enum node_kind {
  /* expressions */
  X_NUM, X_REF, X_CALL, X_BIN, X_NEG, X_NOT, X_IF, X_RANGE, X_ARRAY, X_COLON, X_BOOL,
  X_STRING, /* "text" (annotations only): name holds the text */
  X_EVENT,  /* p?v in a graph's guard: kid[0] the port (X_REF), kid[1] the value */
  /* equations and statements */
  Q_EQ,     /* a = b (equation) */
  Q_ASSIGN, /* a := b (statement) */
  Q_CALL,   /* reinit(x, e), or another call used as a statement */
  Q_FOR,    /* for i in range loop body end for */
  Q_WHEN,   /* when c then body (elsewhen c then body)* end when */
  Q_IF,     /* if c then body (elseif c then body)* (else body)? end if */
  Q_CONNECT, /* connect(a, b) */
  Q_EMIT,   /* p!v in a graph's internal transition: kid[0] the port (X_REF), kid[1] the value */
  Q_SWITCH, /* switch to Name(x = e, …) in a when clause: name the class, kids Q_EQ (a
               variable of the class = an expression of this one) */
  N_LIST    /* a sequence: equations, statements, dimensions */
} node_kind;

typedef struct node node;
struct node {
  node_kind kind;
  int line, col;
  int op;           /* X_BIN: the token kind of the operator ('and'/'or' as T_BAD+1/+2);
                       a modifier (Q_EQ, or N_LIST of a component's): 1 after 'each' */
  double num;       /* X_NUM; X_BOOL */
  const char *name; /* X_REF, X_CALL, X_STRING, Q_FOR (the index) */
  node **kid;       /* X_REF: subscripts; X_CALL: arguments; X_ARRAY: elements;
                       X_BIN, Q_EQ, Q_ASSIGN: 2 operands; X_IF, Q_WHEN, Q_IF:
                       condition, body, condition, body, …, (else body);
                       X_RANGE: 2 or 3; Q_FOR: range, then body; body: a list node */
  int nkid;
  int has_else;     /* X_IF, Q_IF */
  int height;       /* edges on the longest path down to a leaf (0 for a leaf) */
};

/* The deepest tree the parser builds, and the deepest it nests (parentheses,
 * arguments, subscripts, unary operators, exponents, statements inside statements):
 * the parser, the checker and the compiler recurse on both, so this bounds their
 * stack. Deeper input is a located error, never a stack overflow. Measured (cdevs
 * check, and fuzz_mo, under `ulimit -s`, at 10 and 1,990 levels): at most 0.36 KiB
 * of stack per level in the Release build, 0.63 KiB with ASan (gcc -O0), 1.03 KiB
 * in the fuzz build (clang -O1, ASan, UBSan), all for nested subscripts; a term of a
 * flat sum 0.1–0.34 KiB. So 2,000 levels need at most 2.1 MiB of the usual 8. QSS
 * Solver's longest model statement has 407 operators. */
#define LANG_MAX_DEPTH 2000

#define OP_AND (T_BAD + 1)
#define OP_OR (T_BAD + 2)

typedef enum decl_kind { D_PARAM, D_CONST, D_DISCRETE, D_REAL, D_INPUT, D_OUTPUT } decl_kind;

typedef struct decl {
  decl_kind kind;
  int is_integer, is_boolean;
  const char *name;
  int line, col;
  node *dims;  /* a list of dimension expressions, or NULL for a scalar */
  node *value; /* = expr */
  node *start; /* start = expr (modifier) */
  const char *block; /* a library block type name for component instances, or NULL */
  node *mods;  /* component modifiers: list of Q_EQ (name = expr) */
  /* A variable of a model component (flattened): where the outermost component is
   * declared, in the model's own file (0: a variable of the model itself). */
  int inst_line, inst_col;
  const char *inst_class; /* that component's class */
  /* A variable of an array of components: the index its value and start read for
   * the component's own (t.k[N] = 2·t.h0[#]: # = 1..N), or NULL. value_across,
   * start_across: the value, the start, is a modifier of the array of components
   * without 'each' (t[3](k = {1, 2, 3})): an array literal in it has an entry per
   * component; otherwise (the class's binding, or 'each') one per element of one. */
  const char *elem;
  uint8_t value_across, start_across;
  /* A component of a DEVS graph class (after flattening): the class. */
  const struct ast_model *graph;
} decl;

typedef struct annot {
  const char *key;
  const char *within; /* the name of the enclosing call: "experiment" in experiment(...) */
  node *value;
  int line, col;
} annot;

/* ---- DEVS graphs ------------------------------------------------------------------ */

typedef struct ast_phase {
  const char *name;
  int line, col;
  node *lifetime;        /* NULL: inf */
  const char *life_text; /* the lifetime as written, or NULL */
  int initial;
} ast_phase;

typedef struct ast_trans {
  int external;
  const char *from, *to;
  int line, col;                /* the keyword */
  int from_line, from_col, to_line, to_col;
  node *guard;   /* external: the condition, NULL for every input */
  node *emits;   /* internal: N_LIST of Q_EMIT */
  node *assigns; /* N_LIST of Q_ASSIGN */
  const char *label; /* as drawn beside the arc: the guard or the outputs, then "/ assignments" */
} ast_trans;

typedef struct ast_graph {
  ast_phase *phases;
  size_t nphases, capphases;
  ast_trans *trans;
  size_t ntrans, captrans;
  int conf_both;          /* confluence internal external; */
  int conf_line, conf_col; /* where the confluence rule is set (0: the default) */
} ast_graph;

typedef struct ast_model {
  const char *name;
  decl *decls;
  size_t ndecls, capdecls;
  node *equations; /* list nodes */
  node *algorithms;
  node *initial;
  annot *annots;
  size_t nannots, capannots;
  const char *funcs[64]; /* functions defined in the model (external "C" ones included) */
  int nfuncs;
  int line, col; /* where its name is */
  /* The classes defined before it in its file (a file's last class is its model). */
  struct ast_model **classes;
  size_t nclasses;
  const struct ast_model *file_top; /* its file's last class (whose classes are its siblings) */
  /* A DEVS graph class (graph Name ... end Name;): its phases and transitions; its
   * ports, parameters and variables are its decls. NULL for other classes. */
  ast_graph *graph;
  /* The graph classes defined inside this class. */
  struct ast_model **nested;
  size_t nnested, capnested;
} ast_model;

/* Everything parsed lives in one arena, freed at once. */
typedef struct lang_arena lang_arena;
lang_arena *arena_new(void);
void arena_free(lang_arena *a);
void *arena_get(lang_arena *a, size_t size);
/* A new declaration at the end of m's, zeroed (from a); NULL when out of memory. */
decl *model_new_decl(lang_arena *a, ast_model *m);
/* Adds kid to n's children (from a); -1 when out of memory. */
int node_append(lang_arena *a, node *n, node *kid);
/* p (malloc'd) is freed with the arena; -1 (p not taken) past LANG_MAX_FILES (one a
 * file: its text). */
int arena_own(lang_arena *a, void *p);

/* Parses src, file `file` of d's (0: the model's own), into m, its last class, with
 * the classes before it in m->classes (allocating from a); reports errors to d and
 * recovers where it can. Returns the number of errors. */
int lang_parse(const lang_src *src, lang_diag *d, lang_arena *a, int file, ast_model *m);
/* src (file `file` of d's) parsed into m, and each of its classes checked: the errors
 * it added. */
int lang_parse_checked(const lang_src *src, lang_diag *d, lang_arena *a, int file, ast_model *m);
/* The model file src (at path) parsed, checked and flattened (lang_flatten); NULL
 * after errors. */
const ast_model *lang_front(const lang_src *src, const char *path, lang_diag *d, lang_arena *a, ast_model *m);
/* m's declaration named name[0..len), or NULL. */
const decl *lang_find_decl(const ast_model *m, const char *name, size_t len);
/* Name checks: every reference names a declaration, a loop index or a built-in. */
int lang_check(const ast_model *m, lang_diag *d);
/* A graph class's checks (graph.c): declarations, phases, transitions, names, types. */
int lang_graph_check(const ast_model *m, lang_diag *d);

/* The model m (of the file at path: its folder is searched for classes, then each
 * folder of CDEVS_PATH) with its components of model classes expanded, to any depth:
 * a class's declarations and equations under the component's name ("t1.h"), its
 * parameters and start values as the modifiers set them. The model itself when it
 * has none. Classes read from other files are checked and become files of d. NULL
 * after errors. */
const ast_model *lang_flatten(const ast_model *m, const char *path, lang_diag *d, lang_arena *a);

/* The first `switch to` in class c's equations and algorithms, or NULL (flatten.c). */
const node *lang_class_switch(const ast_model *c);

/* The named constants every model can read (when it declares no variable of that
 * name): pi, and Modelica.Constants' pi, e, eps, small and g_n. 1 and *v, or 0. */
int lang_builtin_const(const char *name, double *v);

#endif
