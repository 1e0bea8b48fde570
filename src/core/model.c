/* SPDX-License-Identifier: MIT */
/* Building the hierarchical model: nodes, ports, couplings, and sticky build errors. */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "alloc_impl.h"
#include "model_impl.h"

/* ---- the arena ---------------------------------------------------------------- */

#define ARENA_CHUNK 32768u

/* size bytes, 16-aligned and zeroed, freed with the whole tree. */
static void *arena_alloc(root_info *ri, size_t size) {
  size = (size + 15u) & ~(size_t)15u;
  arena_chunk *c = ri->arena;
  if (!c || c->size - c->used < size) {
    /* Chunks grow with the tree (each as large as the last, doubled, up to 8 MiB):
     * a large tree takes a few large blocks, which the allocator maps whole. Each
     * piece is zeroed as it is handed out, so the unused end of the last chunk is
     * never touched (no memory for it). */
    size_t csize = c ? (c->size < ((size_t)8 << 20) ? 2 * c->size : c->size) : ARENA_CHUNK;
    if (csize < size) csize = size;
    c = ri->alloc.realloc(ri->alloc.ud, NULL, 0, sizeof(arena_chunk) + csize);
    if (!c) return NULL;
    c->size = csize;
    c->used = 0;
    c->next = ri->arena;
    ri->arena = c;
  }
  void *p = c->data + c->used;
  c->used += size;
  memset(p, 0, size);
  return p;
}

static const char *name_dup(root_info *ri, const char *s) {
  size_t len = strlen(s) + 1;
  char *d = arena_alloc(ri, len);
  if (d) memcpy(d, s, len);
  return d;
}

static bool name_ok(const char *s) {
  if (!s || !*s) return false;
  for (; *s; s++)
    if (*s == '.' || *s == ' ' || *s == '\t' || *s == '\n') return false;
  return true;
}

/* ---- errors ----------------------------------------------------------------------- */

static void model_msg(cdevs_model *m, const char *fmt, va_list ap) {
  root_info *ri = m->ri;
  char path[256];
  cdevs_model_path(m, path, sizeof path);
  int n = snprintf(ri->errmsg, sizeof ri->errmsg, "model '%s': ", path);
  if (n < 0 || (size_t)n >= sizeof ri->errmsg) return;
  vsnprintf(ri->errmsg + n, sizeof ri->errmsg - (size_t)n, fmt, ap);
}

void cdevs__model_error(cdevs_model *m, cdevs_status st, const char *fmt, ...) {
  root_info *ri = m->ri;
  if (ri->status != CDEVS_OK) return;
  ri->status = st;
  va_list ap;
  va_start(ap, fmt);
  model_msg(m, fmt, ap);
  va_end(ap);
}

void cdevs__model_note(cdevs_model *m, const char *fmt, ...) {
  if (m->ri->status != CDEVS_OK) return; /* the tree's own error stays the one said */
  va_list ap;
  va_start(ap, fmt);
  model_msg(m, fmt, ap);
  va_end(ap);
}

void cdevs_model_fail(cdevs_model *m, cdevs_status st, const char *fmt, ...) {
  if (!m || m->ri->status != CDEVS_OK) return;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  cdevs__model_error(m, st < 0 ? st : CDEVS_EINVAL, "%s", msg);
}

static bool usable(const cdevs_model *m) { return m && m->ri->status == CDEVS_OK; }

/* Usable, and not frozen: a simulator holds arrays sized and indexed by the tree as it
 * was flattened, so while one lives the tree must not change (the change is refused as
 * a building error, and the tree stays as the simulator knows it). */
static bool editable(cdevs_model *m, const char *action, const char *name) {
  if (!usable(m)) return false;
  uint32_t n = atomic_load(&m->ri->nsims);
  if (n == 0) return true;
  cdevs__model_error(m, CDEVS_ESTATE,
                     "cannot %s '%s': the model tree is in use by %u simulator%s "
                     "(cdevs_sim_new); free %s first",
                     action, name ? name : "(null)", n, n == 1 ? "" : "s", n == 1 ? "it" : "them");
  return false;
}

cdevs_status cdevs_model_status(const cdevs_model *m) {
  return m ? m->ri->status : CDEVS_EINVAL;
}

const char *cdevs_model_errmsg(const cdevs_model *m) {
  return m ? m->ri->errmsg : "no model";
}

/* ---- tree ------------------------------------------------------------------------- */

/* Shared by every atomic model, so that child loops see an empty family. */
static coupled_part no_children;

cdevs_model *cdevs_root_new(const cdevs_alloc *a, const char *name) {
  if (!a) a = cdevs_alloc_default();
  if (!name_ok(name)) return NULL;
  root_info *ri = cdevs__calloc(a, 1, sizeof *ri);
  if (!ri) return NULL;
  ri->alloc = *a;
  cdevs_model *m = arena_alloc(ri, sizeof *m);
  coupled_part *cp = arena_alloc(ri, sizeof *cp);
  const char *nm = m && cp ? name_dup(ri, name) : NULL;
  if (!nm) {
    for (arena_chunk *c = ri->arena, *next; c; c = next) {
      next = c->next;
      cdevs__free(a, c, sizeof(arena_chunk) + c->size);
    }
    cdevs__free(a, ri, sizeof *ri);
    return NULL;
  }
  m->ri = ri;
  m->index = -1;
  m->name = nm;
  m->cp = cp;
  ri->root = m;
  ri->n_coupled = 1;
  return m;
}

/* Frees what one node allocated outside the arena (its children's are freed already). */
static void node_free(const cdevs_alloc *a, cdevs_model *m) {
  coupled_part *cp = m->cp;
  if (!m->atomic) {
    CDEVS_FREEARR(a, cp->children, cp->capchildren);
    CDEVS_FREEARR(a, cp->ix.slot, cp->ix.cap);
    CDEVS_FREEARR(a, cp->couplings, cp->capcouplings);
    cdevs__cix_free(a, cp);
  }
  if (m->own_ports) {
    CDEVS_FREEARR(a, m->ports[0], m->capports[0]);
    CDEVS_FREEARR(a, m->ports[1], m->capports[1]);
  }
  if (m->port_ix) {
    for (int d = 0; d < 2; d++) CDEVS_FREEARR(a, m->port_ix[d].slot, m->port_ix[d].cap);
    cdevs__free(a, m->port_ix, 2 * sizeof *m->port_ix);
  }
}

/* Frees every node below and including root in post-order, without recursion (a tree
 * may be deeper than the stack): each coupled node's child count serves as the cursor,
 * and the walk climbs back by the parent links. */
static void tree_free(const cdevs_alloc *a, cdevs_model *root) {
  cdevs_model *m = root;
  while (m) {
    if (!m->atomic && m->cp->nchildren) {
      cdevs_model *c = m->cp->children[--m->cp->nchildren];
      if (c) m = c; /* (a slot emptied by a removal during a run stays NULL) */
      continue;
    }
    node_free(a, m);
    m = m == root ? NULL : m->parent;
  }
}

void cdevs_model_free(cdevs_model *root) {
  if (!root) return;
  root_info *ri = root->ri;
  /* A simulator reads the tree (names, arguments, ports) until it is freed, and a
   * part of a tree belongs to its root: freeing either would leave dangling pointers.
   * Refused, as a sticky error; the memory stays. */
  uint32_t live = atomic_load(&ri->nsims);
  if (root->parent || live) {
    if (root->parent)
      cdevs__model_error(root, CDEVS_EINVAL, "cdevs_model_free takes a root (cdevs_root_new), not a part");
    else
      cdevs__model_error(root, CDEVS_ESTATE, "cannot free the model tree: %u simulator%s still use%s it", live,
                         live == 1 ? "" : "s", live == 1 ? "s" : "");
    return;
  }
  cdevs_alloc a = ri->alloc;
  tree_free(&a, root);
  for (arena_chunk *c = ri->arena, *next; c; c = next) {
    next = c->next;
    cdevs__free(&a, c, sizeof(arena_chunk) + c->size);
  }
  cdevs__free(&a, ri, sizeof *ri);
}

static uint32_t name_hash(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

/* The i-th name of an indexed list: the children of a coupled model, or a port list;
 * NULL for the slot of a child removed during a run. */
typedef const char *(*name_at)(const void *list, uint32_t i);
static const char *child_name_at(const void *list, uint32_t i) {
  const cdevs_model *m = ((cdevs_model *const *)list)[i];
  return m ? m->name : NULL;
}
static const char *port_name_at(const void *list, uint32_t i) { return ((const cdevs_port_def *)list)[i].name; }

/* Position of name in the list of n names, or -1: scanned while the list is short,
 * hashed once it has an index. */
static int32_t index_find(const name_index *x, const void *list, uint32_t n, name_at at, const char *name) {
  if (!x || !x->slot) {
    for (uint32_t i = 0; i < n; i++) {
      const char *s = at(list, i);
      if (s && strcmp(s, name) == 0) return (int32_t)i;
    }
    return -1;
  }
  uint32_t mask = x->cap - 1;
  for (uint32_t h = name_hash(name) & mask;; h = (h + 1) & mask) {
    int32_t i = x->slot[h];
    if (i < 0 || strcmp(at(list, (uint32_t)i), name) == 0) return i;
  }
}

/* Records that the list's i-th name is at position i (the index has room). */
static void index_put(name_index *x, const void *list, name_at at, int32_t i) {
  if (!x->slot) return;
  uint32_t mask = x->cap - 1;
  uint32_t h = name_hash(at(list, (uint32_t)i)) & mask;
  while (x->slot[h] >= 0) h = (h + 1) & mask;
  x->slot[h] = i;
}

/* Forgets position i (its name still readable), moving back the entries after it
 * that their hash placed earlier, so that every probe sequence stays unbroken. */
static void index_del(name_index *x, const void *list, name_at at, int32_t i) {
  if (!x->slot) return;
  uint32_t mask = x->cap - 1, h = name_hash(at(list, (uint32_t)i)) & mask;
  while (x->slot[h] != i) h = (h + 1) & mask;
  for (uint32_t j = (h + 1) & mask; x->slot[j] >= 0; j = (j + 1) & mask) {
    if (cdevs__probe_movable(h, j, name_hash(at(list, (uint32_t)x->slot[j])) & mask)) {
      x->slot[h] = x->slot[j];
      h = j;
    }
  }
  x->slot[h] = -1;
}

/* Lists shorter than this are searched in order, without an index. */
#define NAME_INDEX_MIN 16

/* Makes room in the index for a list about to hold n names, of which the first
 * n - 1 exist, keeping it at most half full; -1 if out of memory (the index is
 * left valid). */
static int index_reserve(const cdevs_alloc *a, name_index *x, const void *list, name_at at, uint32_t n) {
  if (n < NAME_INDEX_MIN || (x->slot && n * 2 <= x->cap)) return 0;
  uint32_t cap = 64;
  while (cap < n * 2) cap *= 2;
  int32_t *h = cdevs__calloc(a, cap, sizeof *h);
  if (!h) return -1;
  CDEVS_FREEARR(a, x->slot, x->cap);
  x->slot = h;
  x->cap = cap;
  memset(h, 0xff, (size_t)cap * sizeof *h);
  for (uint32_t i = 0; i + 1 < n; i++)
    if (at(list, i)) index_put(x, list, at, (int32_t)i);
  return 0;
}

/* Index of the child called name, or -1. */
static int32_t child_find(const cdevs_model *m, const char *name) {
  return index_find(&m->cp->ix, m->cp->children, m->cp->nchildren, child_name_at, name);
}

static cdevs_model *child_new(cdevs_model *parent, const char *name, bool atomic) {
  if (!editable(parent, "add model", name)) return NULL;
  root_info *ri = parent->ri;
  if (parent->atomic) {
    cdevs__model_error(parent, CDEVS_EINVAL, "an atomic model cannot hold '%s'",
                       name ? name : "(null)");
    return NULL;
  }
  if (!name_ok(name)) {
    cdevs__model_error(parent, CDEVS_ENAME,
                       "invalid child name '%s' (non-empty, no dots or spaces)",
                       name ? name : "(null)");
    return NULL;
  }
  if (child_find(parent, name) >= 0) {
    cdevs__model_error(parent, CDEVS_ENAME, "duplicate child name '%s'", name);
    return NULL;
  }
  if (parent->cp->nchildren == INT32_MAX ||
      CDEVS_GROW(&ri->alloc, parent->cp->children, parent->cp->capchildren, parent->cp->nchildren + 1) ||
      index_reserve(&ri->alloc, &parent->cp->ix, parent->cp->children, child_name_at,
                    parent->cp->nchildren + 1)) {
    cdevs__model_error(parent, CDEVS_ENOMEM, "out of memory adding '%s'", name);
    return NULL;
  }
  cdevs_model *m = arena_alloc(ri, sizeof *m);
  coupled_part *cp = !m ? NULL : atomic ? &no_children : arena_alloc(ri, sizeof *cp);
  const char *nm = cp ? name_dup(ri, name) : NULL;
  if (!nm) {
    cdevs__model_error(parent, CDEVS_ENOMEM, "out of memory adding '%s'", name);
    return NULL;
  }
  m->parent = parent;
  m->ri = ri;
  m->name = nm;
  m->atomic = atomic;
  m->cp = cp;
  m->index = (int32_t)parent->cp->nchildren;
  parent->cp->children[parent->cp->nchildren++] = m;
  index_put(&parent->cp->ix, parent->cp->children, child_name_at, m->index);
  return m;
}

cdevs_model *cdevs_coupled_add(cdevs_model *parent, const char *name) {
  if (usable(parent) && parent->ri->n_coupled >= UINT32_MAX) { /* flattening counts them in 32 bits */
    cdevs__model_error(parent, CDEVS_ENOMEM, "cannot add '%s': a tree holds at most %u coupled models",
                       name ? name : "(null)", UINT32_MAX);
    return NULL;
  }
  cdevs_model *m = child_new(parent, name, false);
  if (m) m->ri->n_coupled++;
  return m;
}

static uint32_t port_list_len(const cdevs_port_def *p) {
  uint32_t n = 0;
  while (p && p[n].name) n++;
  return n;
}

cdevs_model *cdevs_atomic_add(cdevs_model *parent, const char *name,
                              const cdevs_atomic_ops *ops, const void *arg) {
  if (!editable(parent, "add model", name)) return NULL;
  if (!ops || !ops->ta) {
    cdevs__model_error(parent, CDEVS_EINVAL, "atomic '%s' needs an ops table with ta",
                       name ? name : "(null)");
    return NULL;
  }
  if (ops->arg_size && !arg) {
    cdevs__model_error(parent, CDEVS_EINVAL, "atomic '%s' of type %s needs an argument",
                       name ? name : "(null)", ops->type ? ops->type : "?");
    return NULL;
  }
  if (parent->ri->n_atomic == UINT32_MAX) { /* atomic ids are 32-bit */
    cdevs__model_error(parent, CDEVS_ENOMEM, "cannot add '%s': a tree holds at most %u atomic models",
                       name ? name : "(null)", UINT32_MAX);
    return NULL;
  }
  cdevs_model *m = child_new(parent, name, true);
  if (!m) return NULL;
  if (ops->arg_size) {
    m->arg = arena_alloc(m->ri, ops->arg_size);
    if (!m->arg) {
      /* the child stays, without its argument; the tree is unusable anyway */
      m->ops = ops;
      cdevs__model_error(parent, CDEVS_ENOMEM, "out of memory adding '%s'", name);
      return NULL;
    }
    memcpy(m->arg, arg, ops->arg_size);
  }
  m->ops = ops;
  m->ports[CDEVS_IN] = (cdevs_port_def *)(uintptr_t)ops->inputs;
  m->ports[CDEVS_OUT] = (cdevs_port_def *)(uintptr_t)ops->outputs;
  m->nports[CDEVS_IN] = port_list_len(ops->inputs);
  m->nports[CDEVS_OUT] = port_list_len(ops->outputs);
  m->ri->n_atomic++;
  return m;
}

/* ---- ports ------------------------------------------------------------------------- */

int cdevs_port_find(const cdevs_model *m, cdevs_dir dir, const char *name) {
  if (!m || (dir != CDEVS_IN && dir != CDEVS_OUT) || !name) return CDEVS_EINVAL;
  int32_t i = index_find(m->port_ix ? &m->port_ix[dir] : NULL, m->ports[dir], m->nports[dir], port_name_at, name);
  return i >= 0 ? (int)i : CDEVS_ENAME;
}

int cdevs_port_count(const cdevs_model *m, cdevs_dir dir) {
  return m && (dir == CDEVS_IN || dir == CDEVS_OUT) ? (int)m->nports[dir] : 0;
}

const char *cdevs_port_name(const cdevs_model *m, cdevs_dir dir, int p) {
  if (!m || (dir != CDEVS_IN && dir != CDEVS_OUT) || p < 0 || (uint32_t)p >= m->nports[dir])
    return NULL;
  return m->ports[dir][p].name;
}

cdevs_kind cdevs_port_kind(const cdevs_model *m, cdevs_dir dir, int p) {
  if (!cdevs_port_name(m, dir, p)) return CDEVS_ANY;
  return m->ports[dir][p].kind;
}

/* Makes the port lists of m its own (copy-on-write from the ops lists). */
static int own_ports(cdevs_model *m) {
  if (m->own_ports) return 0;
  const cdevs_alloc *a = &m->ri->alloc;
  cdevs_port_def *copy[2] = {NULL, NULL};
  uint32_t cap[2] = {0, 0};
  for (int d = 0; d < 2; d++) {
    if (m->nports[d] && CDEVS_GROW(a, copy[d], cap[d], m->nports[d])) {
      CDEVS_FREEARR(a, copy[0], cap[0]);
      return -1;
    }
    if (m->nports[d]) memcpy(copy[d], m->ports[d], m->nports[d] * sizeof(cdevs_port_def));
  }
  for (int d = 0; d < 2; d++) {
    m->ports[d] = copy[d];
    m->capports[d] = cap[d];
  }
  m->own_ports = true;
  return 0;
}

int cdevs_port_add(cdevs_model *m, cdevs_dir dir, const char *name, cdevs_kind kind) {
  if (!editable(m, "add port", name)) return m ? m->ri->status : CDEVS_EINVAL;
  if (dir != CDEVS_IN && dir != CDEVS_OUT) {
    cdevs__model_error(m, CDEVS_EINVAL, "port direction must be CDEVS_IN or CDEVS_OUT");
    return CDEVS_EINVAL;
  }
  if (!name_ok(name)) {
    cdevs__model_error(m, CDEVS_ENAME, "invalid port name '%s'", name ? name : "(null)");
    return CDEVS_ENAME;
  }
  if ((int)kind < CDEVS_ANY || kind > CDEVS_MSG) {
    cdevs__model_error(m, CDEVS_EINVAL, "port '%s' has an invalid kind %d", name, (int)kind);
    return CDEVS_EINVAL;
  }
  if (cdevs_port_find(m, dir, name) >= 0) {
    cdevs__model_error(m, CDEVS_ENAME, "duplicate %s port '%s'",
                       dir == CDEVS_IN ? "input" : "output", name);
    return CDEVS_ENAME;
  }
  const char *nm = NULL;
  const cdevs_alloc *a = &m->ri->alloc;
  uint32_t n = m->nports[dir];
  if (own_ports(m) || n >= INT32_MAX || CDEVS_GROW(a, m->ports[dir], m->capports[dir], n + 1) ||
      (n + 1 >= NAME_INDEX_MIN && !m->port_ix && !(m->port_ix = cdevs__calloc(a, 2, sizeof *m->port_ix))) ||
      (m->port_ix && index_reserve(a, &m->port_ix[dir], m->ports[dir], port_name_at, n + 1)) ||
      !(nm = name_dup(m->ri, name))) {
    cdevs__model_error(m, CDEVS_ENOMEM, "out of memory adding port '%s'", name);
    return CDEVS_ENOMEM;
  }
  m->ports[dir][n].name = nm;
  m->ports[dir][n].kind = kind;
  if (m->port_ix) index_put(&m->port_ix[dir], m->ports[dir], port_name_at, (int32_t)n);
  return (int)m->nports[dir]++;
}

/* ---- couplings ----------------------------------------------------------------------- */

/* Whether a coupling parent: from.fp -> to.tp may exist: 0, or a status with msg
 * (n bytes) saying why. */
static cdevs_status coupling_check(const cdevs_model *parent, const cdevs_model *from, int fp, const cdevs_model *to,
                                   int tp, char *msg, size_t n) {
  if (parent->atomic) {
    snprintf(msg, n, "couplings belong to coupled models");
    return CDEVS_ECOUPLING;
  }
  if (!from || !to || (from != parent && from->parent != parent) || (to != parent && to->parent != parent)) {
    snprintf(msg, n, "coupling '%s' -> '%s': both ends must be this model or its children",
             from ? from->name : "(null)", to ? to->name : "(null)");
    return CDEVS_ECOUPLING;
  }
  if (from == to) {
    snprintf(msg, n, "coupling '%s' -> '%s' feeds a model into itself", from->name, to->name);
    return CDEVS_ECOUPLING;
  }
  /* The parent's end of an EIC is its input; of an EOC, its output. */
  cdevs_dir fd = from == parent ? CDEVS_IN : CDEVS_OUT;
  cdevs_dir td = to == parent ? CDEVS_OUT : CDEVS_IN;
  if (fp < 0 || (uint32_t)fp >= from->nports[fd] || tp < 0 || (uint32_t)tp >= to->nports[td]) {
    snprintf(msg, n, "coupling '%s' -> '%s': no such port (%d -> %d)", from->name, to->name, fp, tp);
    return CDEVS_ENAME;
  }
  uint8_t fk = (uint8_t)from->ports[fd][fp].kind, tk = (uint8_t)to->ports[td][tp].kind;
  if (fk != CDEVS_ANY && tk != CDEVS_ANY && fk != tk) {
    snprintf(msg, n, "coupling '%s.%s' -> '%s.%s': %s port feeds %s port", from->name, from->ports[fd][fp].name,
             to->name, to->ports[td][tp].name, cdevs_kind_name(fk), cdevs_kind_name(tk));
    return CDEVS_EKIND;
  }
  return CDEVS_OK;
}

/* Appends the coupling (checked); CDEVS_ENOMEM leaves the list as it was. */
static cdevs_status coupling_push(cdevs_model *parent, const cdevs_model *from, int fp, const cdevs_model *to, int tp) {
  if (CDEVS_GROW(&parent->ri->alloc, parent->cp->couplings, parent->cp->capcouplings, parent->cp->ncouplings + 1))
    return CDEVS_ENOMEM;
  coupled_part *cp = parent->cp;
  if (cp->cix && cdevs__cix_reserve(&parent->ri->alloc, cp, cp->ncouplings + 1)) return CDEVS_ENOMEM;
  coupling *c = &cp->couplings[cp->ncouplings++];
  c->src = from == parent ? -1 : from->index;
  c->src_port = fp;
  c->dst = to == parent ? -1 : to->index;
  c->dst_port = tp;
  if (cp->cix) cdevs__cix_insert(cp, cp->ncouplings - 1);
  if (from == parent)
    parent->ri->n_eic++;
  else if (to == parent)
    parent->ri->n_eoc++;
  else
    parent->ri->n_ic++;
  return CDEVS_OK;
}

cdevs_status cdevs_connect_i(cdevs_model *parent, cdevs_model *from, int fp, cdevs_model *to,
                             int tp) {
  if (!editable(parent, "add a coupling from", from ? from->name : NULL))
    return parent ? parent->ri->status : CDEVS_EINVAL;
  char msg[400];
  cdevs_status st = coupling_check(parent, from, fp, to, tp, msg, sizeof msg);
  if (st) {
    cdevs__model_error(parent, st, "%s", msg);
    return st;
  }
  if (coupling_push(parent, from, fp, to, tp)) {
    cdevs__model_error(parent, CDEVS_ENOMEM, "out of memory adding a coupling");
    return CDEVS_ENOMEM;
  }
  return CDEVS_OK;
}

cdevs_status cdevs_connect(cdevs_model *parent, cdevs_model *from, const char *from_port,
                           cdevs_model *to, const char *to_port) {
  if (!editable(parent, "add a coupling from", from ? from->name : NULL))
    return parent ? parent->ri->status : CDEVS_EINVAL;
  if (!from || !to || !from_port || !to_port) {
    cdevs__model_error(parent, CDEVS_EINVAL, "cdevs_connect: NULL model or port name");
    return CDEVS_EINVAL;
  }
  cdevs_dir fd = from == parent ? CDEVS_IN : CDEVS_OUT;
  cdevs_dir td = to == parent ? CDEVS_OUT : CDEVS_IN;
  int fp = cdevs_port_find(from, fd, from_port);
  int tp = cdevs_port_find(to, td, to_port);
  if (fp < 0 || tp < 0) {
    bool bad_from = fp < 0;
    cdevs_model *m = bad_from ? from : to;
    cdevs_dir d = bad_from ? fd : td;
    cdevs__model_error(parent, CDEVS_ENAME, "coupling '%s.%s' -> '%s.%s': '%s' has no %s port '%s'",
                       from->name, from_port, to->name, to_port, m->name,
                       d == CDEVS_IN ? "input" : "output", bad_from ? from_port : to_port);
    return CDEVS_ENAME;
  }
  return cdevs_connect_i(parent, from, fp, to, tp);
}

/* ---- inspection ------------------------------------------------------------------------ */

void cdevs_model_counts_get(const cdevs_model *m, cdevs_model_counts *c) {
  if (!c) return;
  if (!m) {
    memset(c, 0, sizeof *c);
    return;
  }
  const root_info *ri = m->ri;
  c->atomics = ri->n_atomic;
  c->coupled = ri->n_coupled;
  c->eic = ri->n_eic;
  c->ic = ri->n_ic;
  c->eoc = ri->n_eoc;
}

void cdevs_model_set_priority(cdevs_model *m, int priority) {
  if (m && (!m->parent || editable(m->parent, "set the priority of", m->name))) m->priority = priority;
}

const char *cdevs_model_name(const cdevs_model *m) { return m ? m->name : NULL; }
cdevs_model *cdevs_model_parent(const cdevs_model *m) { return m ? m->parent : NULL; }
int cdevs_model_is_atomic(const cdevs_model *m) { return m && m->atomic; }
const cdevs_atomic_ops *cdevs_model_ops(const cdevs_model *m) { return m ? m->ops : NULL; }

cdevs_model *cdevs_model_child(const cdevs_model *m, const char *name) {
  if (!m || !name) return NULL;
  int32_t i = child_find(m, name);
  return i < 0 ? NULL : m->cp->children[i];
}

size_t cdevs_model_path(const cdevs_model *m, char *buf, size_t size) {
  if (!m) {
    if (size) buf[0] = '\0';
    return 0;
  }
  /* The whole length first, then the names from the last back to the root, each
     copied only as far as it fits (no recursion: trees may be very deep). */
  size_t n = 0;
  for (const cdevs_model *p = m; p; p = p->parent) n += strlen(p->name) + (p->parent ? 1 : 0);
  size_t end = n;
  for (const cdevs_model *p = m; p; p = p->parent) {
    size_t len = strlen(p->name);
    end -= len;
    for (size_t i = 0; i < len && end + i + 1 < size; i++) buf[end + i] = p->name[i];
    if (p->parent) {
      end--;
      if (end + 1 < size) buf[end] = '.';
    }
  }
  if (size) buf[n < size ? n : size - 1] = '\0';
  return n;
}

/* ---- changes during a run (structure.c) -------------------------------------------- */

cdevs_model *cdevs__node_new(cdevs_model *parent, const char *name, const cdevs_atomic_ops *ops, const void *arg,
                             char *msg, size_t n) {
  root_info *ri = parent->ri;
  if (!name_ok(name)) {
    snprintf(msg, n, "invalid model name '%s' (non-empty, no dots or spaces)", name ? name : "(null)");
    return NULL;
  }
  cdevs_model *m = arena_alloc(ri, sizeof *m);
  coupled_part *cp = !m ? NULL : ops ? &no_children : arena_alloc(ri, sizeof *cp);
  const char *nm = cp ? name_dup(ri, name) : NULL;
  void *a = nm && ops && ops->arg_size ? arena_alloc(ri, ops->arg_size) : NULL;
  if (!nm || (ops && ops->arg_size && !a)) {
    snprintf(msg, n, "out of memory adding '%s'", name);
    return NULL;
  }
  m->parent = parent;
  m->ri = ri;
  m->name = nm;
  m->atomic = ops != NULL;
  m->cp = cp;
  m->index = -1; /* detached */
  if (ops) {
    if (a) memcpy(a, arg, ops->arg_size);
    m->arg = a;
    m->ops = ops;
    m->ports[CDEVS_IN] = (cdevs_port_def *)(uintptr_t)ops->inputs;
    m->ports[CDEVS_OUT] = (cdevs_port_def *)(uintptr_t)ops->outputs;
    m->nports[CDEVS_IN] = port_list_len(ops->inputs);
    m->nports[CDEVS_OUT] = port_list_len(ops->outputs);
  }
  return m;
}

int cdevs__node_attached(const cdevs_model *m) {
  return m && (!m->parent || (m->index >= 0 && (uint32_t)m->index < m->parent->cp->nchildren &&
                              m->parent->cp->children[m->index] == m));
}

cdevs_status cdevs__node_attach(cdevs_model *m, char *msg, size_t n) {
  cdevs_model *parent = m->parent;
  const cdevs_alloc *a = &m->ri->alloc;
  if (child_find(parent, m->name) >= 0) {
    snprintf(msg, n, "'%s' already has a model called '%s'", parent->name, m->name);
    return CDEVS_ENAME;
  }
  if (parent->cp->nchildren == INT32_MAX ||
      CDEVS_GROW(a, parent->cp->children, parent->cp->capchildren, parent->cp->nchildren + 1) ||
      index_reserve(a, &parent->cp->ix, parent->cp->children, child_name_at, parent->cp->nchildren + 1)) {
    snprintf(msg, n, "out of memory adding '%s'", m->name);
    return CDEVS_ENOMEM;
  }
  m->index = (int32_t)parent->cp->nchildren;
  parent->cp->children[parent->cp->nchildren++] = m;
  index_put(&parent->cp->ix, parent->cp->children, child_name_at, m->index);
  if (m->atomic)
    m->ri->n_atomic++;
  else
    m->ri->n_coupled++;
  return CDEVS_OK;
}

/* The couplings of kind counted by from/to being the parent (-1). */
static void count_coupling(root_info *ri, const coupling *c, int64_t d) {
  uint64_t *k = c->src < 0 ? &ri->n_eic : c->dst < 0 ? &ri->n_eoc : &ri->n_ic;
  *k = (uint64_t)((int64_t)*k + d);
}

cdevs_status cdevs__coupling_add(cdevs_model *parent, cdevs_model *from, int fp, cdevs_model *to, int tp, char *msg,
                                 size_t n) {
  cdevs_status st = coupling_check(parent, from, fp, to, tp, msg, n);
  if (st) return st;
  if (cdevs__cix_build(&parent->ri->alloc, parent->cp)) {
    snprintf(msg, n, "out of memory adding a coupling");
    return CDEVS_ENOMEM;
  }
  int32_t src = from == parent ? -1 : from->index, dst = to == parent ? -1 : to->index;
  const coupled_part *cp = parent->cp;
  for (uint32_t i = cdevs__cix_from(cp, src, fp); i != CDEVS_CIX_NONE; i = cdevs__cix_from_next(cp, i)) {
    const coupling *c = &cp->couplings[i];
    if (c->dst == dst && c->dst_port == tp) {
      snprintf(msg, n, "the coupling '%s.%s' -> '%s.%s' exists already", from->name,
               from->ports[from == parent ? CDEVS_IN : CDEVS_OUT][fp].name, to->name,
               to->ports[to == parent ? CDEVS_OUT : CDEVS_IN][tp].name);
      return CDEVS_ECOUPLING;
    }
  }
  if (coupling_push(parent, from, fp, to, tp)) {
    snprintf(msg, n, "out of memory adding a coupling");
    return CDEVS_ENOMEM;
  }
  return CDEVS_OK;
}

cdevs_status cdevs__coupling_remove(cdevs_model *parent, cdevs_model *from, int fp, cdevs_model *to, int tp,
                                    char *msg, size_t n) {
  int32_t src = from == parent ? -1 : from->index, dst = to == parent ? -1 : to->index;
  coupled_part *cp = parent->cp;
  if (cdevs__cix_build(&parent->ri->alloc, cp)) {
    snprintf(msg, n, "out of memory removing a coupling");
    return CDEVS_ENOMEM;
  }
  for (uint32_t i = cdevs__cix_from(cp, src, fp); i != CDEVS_CIX_NONE; i = cdevs__cix_from_next(cp, i)) {
    const coupling *c = &cp->couplings[i];
    if (c->dst == dst && c->dst_port == tp) {
      count_coupling(parent->ri, c, -1);
      cdevs__cix_erase(cp, i);
      return CDEVS_OK;
    }
  }
  snprintf(msg, n, "there is no coupling '%s' port %d -> '%s' port %d in '%s'", from->name, fp, to->name, tp,
           parent->name);
  return CDEVS_ECOUPLING;
}

/* Counts the atomic and coupled models of the subtree of m into *na, *nc. */
static void subtree_counts(const cdevs_model *m, uint64_t *na, uint64_t *nc) {
  if (m->atomic) {
    (*na)++;
    return;
  }
  (*nc)++;
  for (uint32_t i = 0; i < m->cp->nchildren; i++)
    if (m->cp->children[i]) subtree_counts(m->cp->children[i], na, nc);
}

void cdevs__node_detach(cdevs_model *m) {
  cdevs_model *parent = m->parent;
  coupled_part *cp = parent->cp;
  int32_t k = m->index;
  assert(cp->cix);
  /* Its couplings go, found by its ports; its slot stays, empty, so that no other
   * child is renumbered and no coupling rewritten. */
  for (uint32_t p = 0; p < m->nports[CDEVS_OUT]; p++)
    for (uint32_t i; (i = cdevs__cix_from(cp, k, (int32_t)p)) != CDEVS_CIX_NONE;) {
      count_coupling(parent->ri, &cp->couplings[i], -1);
      cdevs__cix_erase(cp, i);
    }
  for (uint32_t p = 0; p < m->nports[CDEVS_IN]; p++)
    for (uint32_t i; (i = cdevs__cix_to(cp, k, (int32_t)p)) != CDEVS_CIX_NONE;) {
      count_coupling(parent->ri, &cp->couplings[i], -1);
      cdevs__cix_erase(cp, i);
    }
  index_del(&cp->ix, cp->children, child_name_at, k);
  cp->children[k] = NULL;
  m->index = -1;
  uint64_t na = 0, nc = 0;
  subtree_counts(m, &na, &nc);
  m->ri->n_atomic -= (uint32_t)na;
  m->ri->n_coupled -= nc;
}

void cdevs__node_release(cdevs_model *m) {
  /* What the subtree holds outside the arena; the nodes themselves stay in the arena
   * (freed with the tree). The couplings inside it leave the counts. */
  const cdevs_alloc *a = &m->ri->alloc;
  if (!m->atomic) {
    for (uint32_t i = 0; i < m->cp->nchildren; i++)
      if (m->cp->children[i]) cdevs__node_release(m->cp->children[i]);
    for (uint32_t i = 0; i < m->cp->ncouplings; i++) count_coupling(m->ri, &m->cp->couplings[i], -1);
    m->cp->nchildren = 0, m->cp->ncouplings = 0;
  }
  node_free(a, m);
  if (!m->atomic) memset(m->cp, 0, sizeof *m->cp);
  m->own_ports = false, m->port_ix = NULL;
}

