/* SPDX-License-Identifier: MIT */
/*
 * Model classes as components: `Tank t1(area = 2);` in a model expands, before
 * compilation, into the class's declarations and equations under the component's
 * name (t1.h, der(t1.h) = …), nested to any depth, as a Modelica compiler flattens a
 * model. The classes come from the model's own file (every class before its last)
 * or from files named after them (Tank.mo, or Lib/Tank.mo for Lib.Tank) in the
 * model's folder and then in each folder of CDEVS_PATH.
 *
 * Modifiers: a parameter's binding (area = 2), a variable's attributes (h(start =
 * 1)), an input's binding (u = 3: its value when nothing is connected to it), and a
 * component's own modifiers (tank(area = 3)), which override those its class gives.
 * Their expressions are read where they are written: in the enclosing model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lang_impl.h"

#define MAX_NESTING 64            /* components inside components */
#define MAX_FLAT_DECLS 5000000    /* as many as the compiler takes variables */

typedef struct flat {
  const ast_model *top;
  const char *path;
  lang_diag *d;
  lang_arena *a;
  ast_model *out;
  /* Classes read from other files, by the type name they were read for (Lib.Tank:
   * Lib/Tank.mo's class); the other classes of such a file are found only from it. */
  const ast_model *lib[LANG_MAX_FILES]; /* the class each file read defines */
  const char *lib_name[LANG_MAX_FILES];
  int nlib;
  const ast_model *stack[MAX_NESTING]; /* the classes being expanded, outermost first */
  int depth;
  const char *idx[32]; /* loop indices in scope while rewriting */
  int nidx;
  int oom, failed;
  const decl *inst; /* the model's own component being expanded */
} flat;

/* ---- Helpers ------------------------------------------------------------------------ */

static const char *join(flat *f, const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *r = arena_get(f->a, la + lb + 1);
  if (!r) {
    f->oom = 1;
    return "";
  }
  memcpy(r, a, la);
  memcpy(r + la, b, lb + 1);
  return r;
}

static int is_class_type(const decl *d) { return d->block && strncmp(d->block, "cdevs.", 6) != 0; }

/* A copy of n with every reference to a declaration of class k under prefix (loop
 * indices, time and the named constants are left alone); n itself when the prefix
 * is empty. */
static node *rewrite_at(flat *f, const ast_model *k, const char *prefix, const char *elem, const node *n);

static node *rewrite(flat *f, const ast_model *k, const char *prefix, const node *n) {
  return rewrite_at(f, k, prefix, NULL, n);
}

/* rewrite, for an element of an array of components: a reference to a declaration of
 * k takes the element's index (the loop variable elem) as its first subscript. */
static node *rewrite_at(flat *f, const ast_model *k, const char *prefix, const char *elem, const node *n) {
  if (!n) return NULL;
  if (!*prefix) return (node *)(uintptr_t)n;
  node *r = arena_get(f->a, sizeof *r);
  if (!r) {
    f->oom = 1;
    return (node *)(uintptr_t)n;
  }
  *r = *n;
  if (n->nkid) {
    r->kid = arena_get(f->a, (size_t)n->nkid * sizeof *r->kid);
    if (!r->kid) {
      f->oom = 1;
      r->kid = n->kid;
      return r;
    }
  }
  int shift = 0; /* the element's index, put first */
  if (n->kind == X_REF) {
    const char *dot = strchr(n->name, '.');
    size_t head = dot ? (size_t)(dot - n->name) : strlen(n->name);
    int index = 0;
    for (int i = 0; i < f->nidx && !dot; i++) index |= !strcmp(f->idx[i], n->name);
    if (!index && lang_find_decl(k, n->name, head)) {
      r->name = join(f, prefix, n->name);
      if (elem) {
        node **kid = arena_get(f->a, (size_t)(n->nkid + 1) * sizeof *kid);
        node *ix = arena_get(f->a, sizeof *ix);
        if (!kid || !ix) {
          f->oom = 1;
          return r;
        }
        *ix = (node){.kind = X_REF, .line = n->line, .col = n->col, .name = elem};
        kid[0] = ix;
        r->kid = kid, r->nkid = n->nkid + 1, shift = 1;
      }
    }
  }
  if (n->kind == Q_FOR) { /* the range outside the index's scope, the body inside */
    if (n->nkid > 0) r->kid[0] = rewrite_at(f, k, prefix, elem, n->kid[0]);
    if (f->nidx == 32) return r; /* (the checker has reported it) */
    f->idx[f->nidx++] = n->name ? n->name : "";
    for (int i = 1; i < n->nkid; i++) r->kid[i] = rewrite_at(f, k, prefix, elem, n->kid[i]);
    f->nidx--;
    return r;
  }
  for (int i = 0; i < n->nkid; i++) r->kid[i + shift] = rewrite_at(f, k, prefix, elem, n->kid[i]);
  return r;
}

static void add_item(flat *f, node *list, node *item);

/* A modifier list of class k's declaration under prefix: the values rewritten, the
 * names (what they modify, in the component's class) left alone. */
static node *rewrite_mods(flat *f, const ast_model *k, const char *prefix, const node *mods) {
  if (!mods || !*prefix) return (node *)(uintptr_t)mods;
  node *r = arena_get(f->a, sizeof *r);
  if (!r) {
    f->oom = 1;
    return (node *)(uintptr_t)mods;
  }
  *r = *mods;
  r->kid = NULL, r->nkid = 0;
  for (int i = 0; i < mods->nkid; i++) {
    const node *m = mods->kid[i];
    if (m->kind == N_LIST) {
      add_item(f, r, rewrite_mods(f, k, prefix, m));
      continue;
    }
    node *eq = arena_get(f->a, sizeof *eq);
    node **kid = arena_get(f->a, 2 * sizeof *kid);
    if (!eq || !kid || m->nkid != 2) {
      f->oom = f->oom || !eq || !kid;
      add_item(f, r, (node *)(uintptr_t)m);
      continue;
    }
    *eq = *m;
    eq->kid = kid;
    kid[0] = m->kid[0];
    kid[1] = rewrite(f, k, prefix, m->kid[1]);
    add_item(f, r, eq);
  }
  return r;
}

static void add_item(flat *f, node *list, node *item) {
  if (node_append(f->a, list, item)) f->oom = 1;
}

static decl *new_decl(flat *f) {
  ast_model *m = f->out;
  if (m->ndecls == MAX_FLAT_DECLS) {
    lang_error(f->d, f->top->line, f->top->col, "the model has too many variables (more than %d after "
               "expanding its components)", MAX_FLAT_DECLS);
    f->failed = 1;
    return NULL;
  }
  decl *d = model_new_decl(f->a, m);
  if (!d) f->oom = 1;
  return d;
}

/* ---- Finding classes -------------------------------------------------------------- */

static const ast_model *class_in(const ast_model *const *list, size_t n, const char *name) {
  for (size_t i = 0; i < n; i++)
    if (!strcmp(list[i]->name, name)) return list[i];
  return NULL;
}

/* Reads dir/Name.mo (dir/Lib/Name.mo for Lib.Name) as a file of d, its classes
 * checked and added to the library: the class, NULL if there is no such file, or
 * (after a message) fail set. */
static const ast_model *load_class(flat *f, const char *dir, size_t dirlen, const char *type, const decl *at) {
  size_t tl = strlen(type);
  char *path = malloc(dirlen + tl + 5);
  if (!path) return f->oom = 1, NULL;
  memcpy(path, dir, dirlen);
  path[dirlen] = '/';
  for (size_t i = 0; i < tl; i++) path[dirlen + 1 + i] = type[i] == '.' ? '/' : type[i];
  memcpy(path + dirlen + 1 + tl, ".mo", 4);
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) { /* (a folder of that name is not the class) */
    free(path);
    return NULL;
  }
  if (f->d->nfiles == 0) f->d->nfiles = 1; /* file 0 is the model's own */
  if (f->d->nfiles == LANG_MAX_FILES) {
    lang_error(f->d, at->line, at->col, "'%s': a model may read classes from at most %d files", type,
               LANG_MAX_FILES - 1);
    free(path);
    f->failed = 1;
    return NULL;
  }
  size_t len;
  char *text = lang_read_file(path, f->d->out, &len);
  lang_src *src = arena_get(f->a, sizeof *src);
  char *kept = src ? arena_get(f->a, strlen(path) + 1) : NULL;
  if (!text || !kept || arena_own(f->a, text)) { /* (the arena owns as many buffers as there are files) */
    if (text) f->oom = 1;
    else f->d->errors++; /* (lang_read_file has said why) */
    free(text), free(path);
    f->failed = 1;
    return NULL;
  }
  strcpy(kept, path);
  free(path);
  path = kept;
  *src = (lang_src){path, text, len};
  int file = f->d->nfiles++;
  f->d->files[file] = src;
  ast_model *m = arena_get(f->a, sizeof *m);
  if (!m) return f->oom = 1, NULL;
  if (lang_parse_checked(src, f->d, f->a, file, m)) {
    f->failed = 1;
    return NULL;
  }
  const char *base = strrchr(type, '.') ? strrchr(type, '.') + 1 : type;
  if (strcmp(m->name, base) != 0) {
    const lang_src *from = LANG_FILE(at->line) ? f->d->files[LANG_FILE(at->line)] : f->d->src;
    lang_error(f->d, m->line, m->col, "this file is read for the class '%s' (line %d of %s) but defines '%s'", base,
               LANG_LINE(at->line), from->path, m->name);
    f->failed = 1;
    return NULL;
  }
  f->lib_name[f->nlib] = type, f->lib[f->nlib++] = m; /* (one per file: room for all) */
  return m;
}

/* The class named type, for the component declared at `at` in class from: the
 * classes of from's own file first, then those of the model's file, then the classes
 * read for that same name, then a file on the search path; NULL after a message. */
static const ast_model *find_class(flat *f, const ast_model *from, const char *type, const decl *at) {
  const ast_model *top = from->file_top ? from->file_top : from, *k = NULL;
  /* The graph classes defined inside the class, then inside the model. */
  k = class_in((const ast_model *const *)from->nested, from->nnested, type);
  if (!k) k = class_in((const ast_model *const *)f->top->nested, f->top->nnested, type);
  if (!k && !strcmp(top->name, type) && top != f->top) k = top;
  if (!k) k = class_in((const ast_model *const *)top->classes, top->nclasses, type);
  if (!k) k = class_in((const ast_model *const *)f->top->classes, f->top->nclasses, type);
  for (int i = 0; !k && i < f->nlib; i++)
    if (!strcmp(f->lib_name[i], type)) k = f->lib[i];
  if (k) return k;
  /* The model's folder, then CDEVS_PATH's. */
  const char *slash = strrchr(f->path, '/');
  if (strcmp(f->path, "-") != 0) {
    if (slash) k = load_class(f, f->path, (size_t)(slash - f->path), type, at);
    else k = load_class(f, ".", 1, type, at);
  }
  const char *env = getenv("CDEVS_PATH");
  for (const char *p = env; !k && !f->failed && !f->oom && p && *p;) {
    const char *e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n) k = load_class(f, p, n, type, at);
    p = e ? e + 1 : p + n;
  }
  if (k || f->failed || f->oom) return k;
  if (!strcmp(type, f->top->name)) { /* (no other class of that name) */
    lang_error(f->d, at->line, at->col, "'%s' is of the model's own class '%s': a class cannot contain itself",
               at->name, type);
    f->failed = 1;
    return NULL;
  }
  const char *cands[64];
  size_t nc = 0;
  cands[nc++] = "Real", cands[nc++] = "Integer", cands[nc++] = "Boolean";
  for (size_t i = 0; i < f->top->nclasses && nc < 64; i++) cands[nc++] = f->top->classes[i]->name;
  const char *hint = lang_suggest(type, cands, nc);
  if (hint)
    lang_error(f->d, at->line, at->col, "unknown type '%s' of '%s'; did you mean '%s'?", type, at->name, hint);
  else
    lang_error(f->d, at->line, at->col,
               "unknown type '%s' of '%s': no class of that name in this file, no %s.mo beside it or in "
               "CDEVS_PATH, and no library block (cdevs.%s: cdevs list-blocks lists them)",
               type, at->name, type, type);
  f->failed = 1;
  return NULL;
}

/* ---- Expansion -------------------------------------------------------------------- */

static const char *mod_name(const node *m) { return m->kind == Q_EQ ? m->kid[0]->name : m->name; }

/* The modifier of mods (a list of name = e and name(…)) for name, or NULL. */
static const node *find_mod(const node *mods, const char *name, int *index) {
  for (int i = 0; mods && i < mods->nkid; i++) {
    const node *m = mods->kid[i];
    const char *n = mod_name(m);
    if (n && !strcmp(n, name)) {
      *index = i;
      return m;
    }
  }
  return NULL;
}

/* outer's modifiers, then those of inner that outer does not set (outer wins: the
 * component's modifier over its class's). */
static node *merge_mods(flat *f, const node *outer, node *inner) {
  if (!outer || !outer->nkid) return inner;
  if (!inner || !inner->nkid) return (node *)(uintptr_t)outer;
  node *r = arena_get(f->a, sizeof *r);
  if (!r) return f->oom = 1, inner;
  *r = *outer;
  r->kid = NULL, r->nkid = 0;
  /* Outer's entries, each merged with inner's of the same name when both modify a
   * component (tank(area = 9) over tank(k = 7): both), then inner's others. */
  for (int i = 0; i < outer->nkid; i++) {
    const node *o = outer->kid[i];
    int at;
    const node *m = o->kind == N_LIST ? find_mod(inner, o->name, &at) : NULL;
    add_item(f, r, m && m->kind == N_LIST ? merge_mods(f, o, (node *)(uintptr_t)m) : (node *)(uintptr_t)o);
  }
  for (int i = 0; i < inner->nkid; i++) {
    const node *m = inner->kid[i];
    int at;
    if (!find_mod(outer, mod_name(m), &at)) add_item(f, r, inner->kid[i]);
  }
  return r;
}

/* Class c's modifiers from outside, once the declarations have taken theirs (used):
 * each names an element of c, once. Located errors; 0 if all is well. */
static int check_mods(flat *f, const ast_model *c, const node *mods, const uint8_t *used) {
  for (int i = 0; mods && i < mods->nkid && i < 256; i++) {
    const node *m = mods->kid[i];
    const char *n = mod_name(m);
    for (int j = 0; j < i; j++)
      if (!strcmp(mod_name(mods->kid[j]), n)) {
        lang_error(f->d, m->line, m->col, "'%s' is modified twice", n);
        return f->failed = 1, -1;
      }
    if (used[i]) continue;
    const char *cands[64];
    size_t nc = 0;
    for (size_t j = 0; j < c->ndecls && nc < 64; j++) cands[nc++] = c->decls[j].name;
    const char *hint = lang_suggest(n, cands, nc);
    lang_error(f->d, m->line, m->col, "class '%s' has no element '%s'%s%s%s", c->name, n,
               hint ? "; did you mean '" : "", hint ? hint : "", hint ? "'?" : "");
    return f->failed = 1, -1;
  }
  return 0;
}

/* A component of class or block type d takes modifiers, not a value: 0, or -1 after a
 * located error. */
static int component_ok(flat *f, const decl *d, const node *mod) {
  if (!d->value && !(mod && mod->kind == Q_EQ)) return 0;
  int line = mod && mod->kind == Q_EQ ? mod->line : d->line, col = mod && mod->kind == Q_EQ ? mod->col : d->col;
  lang_error(f->d, line, col, "'%s' is a component: give it modifiers, %s(name = value), not a value", d->name,
             d->name);
  f->failed = 1;
  return -1;
}

/* The first `switch to` in n (a list or a statement), or NULL. */
static const node *first_switch(const node *n) {
  if (!n || n->kind == Q_SWITCH) return n;
  if (n->kind != N_LIST && n->kind != Q_WHEN && n->kind != Q_IF && n->kind != Q_FOR) return NULL;
  for (int i = 0; i < n->nkid; i++) {
    const node *r = first_switch(n->kid[i]);
    if (r) return r;
  }
  return NULL;
}

const node *lang_class_switch(const ast_model *c) {
  const node *r = first_switch(c->equations);
  return r ? r : first_switch(c->algorithms);
}

static void expand(flat *f, const ast_model *k, const char *prefix, const node *mods);
static void expand_array(flat *f, const ast_model *k, const char *prefix, const decl *d, const ast_model *c,
                         const node *mod);
static void apply_mod(flat *f, const decl *d, decl *nd, const node *mod, int array);

/* Declaration d of class k under prefix, with its modifier from outside (mod: name
 * = e or name(…), already in the flat model's names), or NULL. */
static void expand_decl(flat *f, const ast_model *k, const char *prefix, const decl *d, const node *mod) {
  if (is_class_type(d)) {
    const ast_model *c = find_class(f, k, d->block, d);
    if (!c || component_ok(f, d, mod)) return;
    const node *sw = lang_class_switch(c);
    if (sw) { /* its switch would replace the model it is part of */
      lang_error(f->d, d->line, d->col,
                 "'%s' is of class %s, which switches to another class (switch to %s, line %d): such a class "
                 "is a model, or a mode a model switches to, not a component", d->name, c->name,
                 sw->name ? sw->name : "?", LANG_LINE(sw->line));
      f->failed = 1;
      return;
    }
    if (c->graph) { /* a DEVS graph: one component, compiled whole (graph.c) */
      if (d->dims) {
        lang_error(f->d, d->line, d->col, "'%s': arrays of graphs are not supported; declare each", d->name);
        f->failed = 1;
        return;
      }
      decl *nd = new_decl(f);
      if (!nd) return;
      *nd = *d;
      if (f->inst) nd->inst_line = f->inst->line, nd->inst_col = f->inst->col, nd->inst_class = f->inst->block;
      nd->name = join(f, prefix, d->name);
      nd->mods = merge_mods(f, mod, rewrite_mods(f, k, prefix, d->mods));
      nd->graph = c;
      return;
    }
    if (d->dims) {
      expand_array(f, k, prefix, d, c, mod);
      return;
    }
    node *own = rewrite_mods(f, k, prefix, d->mods);
    const decl *outer = f->inst;
    if (!outer) f->inst = d;
    expand(f, c, join(f, join(f, prefix, d->name), "."), merge_mods(f, mod, own));
    f->inst = outer;
    return;
  }
  decl *nd = new_decl(f);
  if (!nd) return;
  *nd = *d;
  if (f->inst) nd->inst_line = f->inst->line, nd->inst_col = f->inst->col, nd->inst_class = f->inst->block;
  nd->name = join(f, prefix, d->name);
  nd->dims = rewrite(f, k, prefix, d->dims);
  nd->value = rewrite(f, k, prefix, d->value);
  nd->start = rewrite(f, k, prefix, d->start);
  nd->mods = rewrite_mods(f, k, prefix, d->mods);
  if (!mod) return;
  if (d->block) { /* a library block: its parameters */
    if (component_ok(f, d, mod)) return;
    nd->mods = merge_mods(f, mod, nd->mods);
    return;
  }
  apply_mod(f, d, nd, mod, 0);
}

/* A variable's modifier from outside (name = e, or name(start = e, …)) onto its flat
 * declaration nd; array: of an array of components (see decl's value_across). */
static void apply_mod(flat *f, const decl *d, decl *nd, const node *mod, int array) {
  if (mod->kind == Q_EQ) { /* name = e */
    if (d->kind == D_REAL || d->kind == D_OUTPUT) {
      lang_error(f->d, mod->line, mod->col,
                 "'%s' is a variable of the class: its equations define it; set its start value with "
                 "%s(start = …)", d->name, d->name);
      f->failed = 1;
      return;
    }
    nd->value = mod->kid[1];
    nd->value_across = array && !mod->op;
    return;
  }
  for (int i = 0; i < mod->nkid; i++) { /* name(start = e, …) */
    const node *a = mod->kid[i];
    const char *an = a->kind == Q_EQ ? a->kid[0]->name : a->name;
    if (a->kind == Q_EQ && !strcmp(an, "start")) {
      nd->start = a->kid[1];
      nd->start_across = array && !mod->op && !a->op;
      if (d->kind == D_REAL || d->kind == D_DISCRETE) nd->value = NULL; /* the start is the start */
    } else if (a->kind == Q_EQ && (!strcmp(an, "fixed") || !strcmp(an, "nominal") || !strcmp(an, "min") ||
                                   !strcmp(an, "max") || !strcmp(an, "unit"))) {
      continue; /* attributes with no effect here */
    } else {
      lang_error(f->d, a->line, a->col, "'%s' of '%s' is not an attribute a variable can be given (start)", an,
                 d->name);
      f->failed = 1;
    }
  }
}

/* An array of components, C t[N] (d, declared in class k under prefix), as arrays:
 * each variable v of C becomes t.v[N] (t.v[N, M] for an array v[M]); each equation,
 * algorithm and initial statement of C runs in a loop over the components, its
 * references taking the component's index first; t[i].v, as written, is t.v[i]. A
 * modifier sets the whole array ({1, 2, 3}) or every element (2, or each 2). The
 * class may not hold components of its own (arrays of those: not yet). */
static void expand_array(flat *f, const ast_model *k, const char *prefix, const decl *d, const ast_model *c,
                         const node *mod) {
  if (d->dims->nkid != 1) {
    lang_error(f->d, d->line, d->col, "'%s': an array of components has one dimension", d->name);
    f->failed = 1;
    return;
  }
  for (size_t i = 0; i < c->ndecls; i++)
    if (c->decls[i].block || (c->decls[i].dims && c->decls[i].dims->nkid > 1)) {
      lang_error(f->d, d->line, d->col,
                 "'%s': an array of components of '%s', which holds %s, is not supported yet", d->name, c->name,
                 c->decls[i].block ? "components" : "a two-dimensional array");
      f->failed = 1;
      return;
    }
  const char *p = join(f, join(f, prefix, d->name), ".");
  const char *elem = join(f, "#", p); /* the loop index: no name a model can write */
  node *n = rewrite(f, k, prefix, d->dims->kid[0]);
  node *mods = merge_mods(f, mod, rewrite_mods(f, k, prefix, d->mods));
  uint8_t used[256] = {0};
  for (size_t i = 0; i < c->ndecls && !f->failed && !f->oom; i++) {
    const decl *v = &c->decls[i];
    decl *nd = new_decl(f);
    if (!nd) return;
    *nd = *v;
    const decl *owner = f->inst ? f->inst : d;
    nd->inst_line = owner->line, nd->inst_col = owner->col, nd->inst_class = owner->block;
    nd->name = join(f, p, v->name);
    nd->dims = arena_get(f->a, sizeof *nd->dims);
    if (!nd->dims) {
      f->oom = 1;
      return;
    }
    *nd->dims = (node){.kind = N_LIST, .line = d->line, .col = d->col};
    add_item(f, nd->dims, n);
    for (int j = 0; v->dims && j < v->dims->nkid; j++) add_item(f, nd->dims, rewrite(f, c, p, v->dims->kid[j]));
    nd->value = rewrite_at(f, c, p, elem, v->value);
    nd->start = rewrite_at(f, c, p, elem, v->start);
    nd->elem = elem;
    int at = -1;
    const node *m = find_mod(mods, v->name, &at);
    if (at >= 0 && at < 256) used[at] = 1;
    if (m) apply_mod(f, v, nd, m, 1);
  }
  if (!f->failed) (void)check_mods(f, c, mods, used);
  for (int sec = 0; sec < 3 && !f->failed && !f->oom; sec++) {
    const node *from = sec == 0 ? c->equations : sec == 1 ? c->algorithms : c->initial;
    node *to = sec == 0 ? f->out->equations : sec == 1 ? f->out->algorithms : f->out->initial;
    for (int i = 0; from && i < from->nkid; i++) {
      /* for #t. in 1:N loop <item> end for */
      node *loop = arena_get(f->a, sizeof *loop), *range = arena_get(f->a, sizeof *range);
      node *one = arena_get(f->a, sizeof *one), *body = arena_get(f->a, sizeof *body);
      if (!loop || !range || !one || !body) {
        f->oom = 1;
        return;
      }
      const node *item = from->kid[i];
      *one = (node){.kind = X_NUM, .line = item->line, .col = item->col, .num = 1};
      *range = (node){.kind = X_RANGE, .line = item->line, .col = item->col};
      *body = (node){.kind = N_LIST, .line = item->line, .col = item->col};
      *loop = (node){.kind = Q_FOR, .line = item->line, .col = item->col, .name = elem};
      add_item(f, range, one);
      add_item(f, range, n);
      add_item(f, body, rewrite_at(f, c, p, elem, item));
      add_item(f, loop, range);
      add_item(f, loop, body);
      add_item(f, to, loop);
    }
  }
}

/* Class k under prefix ("" for the model), with modifiers mods from outside. */
static void expand(flat *f, const ast_model *k, const char *prefix, const node *mods) {
  for (int i = 0; i < f->depth; i++)
    if (f->stack[i] == k) {
      lang_error(f->d, k->line, k->col, "class '%s' contains itself (through '%.*s')", k->name,
                 (int)(strlen(prefix) ? strlen(prefix) - 1 : 0), prefix);
      f->failed = 1;
      return;
    }
  if (f->depth == MAX_NESTING) {
    lang_error(f->d, k->line, k->col, "components nested more than %d deep", MAX_NESTING);
    f->failed = 1;
    return;
  }
  f->stack[f->depth++] = k;
  uint8_t used[256] = {0};
  for (size_t i = 0; i < k->ndecls && !f->failed && !f->oom; i++) {
    int at = -1;
    const node *mod = find_mod(mods, k->decls[i].name, &at);
    if (at >= 0 && at < 256) used[at] = 1;
    expand_decl(f, k, prefix, &k->decls[i], mod);
  }
  if (!f->failed) (void)check_mods(f, k, mods, used);
  for (int s = 0; s < 3 && !f->failed && !f->oom; s++) {
    const node *from = s == 0 ? k->equations : s == 1 ? k->algorithms : k->initial;
    node *to = s == 0 ? f->out->equations : s == 1 ? f->out->algorithms : f->out->initial;
    for (int i = 0; from && i < from->nkid; i++) add_item(f, to, rewrite(f, k, prefix, from->kid[i]));
  }
  f->depth--;
}

/* A file whose model is a graph: a model holding one instance of it, of its name. */
static const ast_model *graph_alone(const ast_model *m, lang_diag *d, lang_arena *a) {
  ast_model *out = arena_get(a, sizeof *out);
  node *lists = arena_get(a, 3 * sizeof *lists);
  decl *inst = out ? model_new_decl(a, out) : NULL;
  if (!out || !lists || !inst) {
    lang_error(d, m->line, m->col, "out of memory");
    return NULL;
  }
  out->name = m->name, out->line = m->line, out->col = m->col;
  out->annots = m->annots, out->nannots = m->nannots, out->capannots = m->capannots;
  for (int s = 0; s < 3; s++) lists[s] = (node){.kind = N_LIST, .line = m->line, .col = m->col};
  out->equations = &lists[0], out->algorithms = &lists[1], out->initial = &lists[2];
  *inst = (decl){.kind = D_REAL, .name = m->name, .line = m->line, .col = m->col, .block = m->name, .graph = m};
  return out;
}

const ast_model *lang_flatten(const ast_model *m, const char *path, lang_diag *d, lang_arena *a) {
  if (m->graph) return graph_alone(m, d, a);
  int any = 0;
  for (size_t i = 0; i < m->ndecls; i++) any |= is_class_type(&m->decls[i]);
  if (!any) return m;
  flat F;
  memset(&F, 0, sizeof F);
  F.top = m, F.path = path ? path : "-", F.d = d, F.a = a;
  ast_model *out = arena_get(a, sizeof *out);
  node *lists = arena_get(a, 3 * sizeof *lists);
  if (!out || !lists) {
    lang_error(d, m->line, m->col, "out of memory");
    return NULL;
  }
  *out = *m;
  out->decls = NULL, out->ndecls = out->capdecls = 0; /* (functions: checked per class already) */
  for (int s = 0; s < 3; s++) lists[s] = (node){.kind = N_LIST, .line = m->line, .col = m->col};
  out->equations = &lists[0], out->algorithms = &lists[1], out->initial = &lists[2];
  F.out = out;
  int errors = d->errors;
  expand(&F, m, "", NULL);
  if (F.oom) lang_error(d, m->line, m->col, "out of memory");
  if ((F.failed || F.oom) && d->errors == errors) d->errors++; /* NULL always comes with an error counted */
  return F.failed || F.oom || d->errors != errors ? NULL : out;
}

const ast_model *lang_front(const lang_src *src, const char *path, lang_diag *d, lang_arena *a, ast_model *m) {
  if (lang_parse_checked(src, d, a, 0, m)) return NULL;
  return lang_flatten(m, path, d, a);
}
