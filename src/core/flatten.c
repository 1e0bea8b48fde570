/* SPDX-License-Identifier: MIT */
/* Flattening: the hierarchy becomes atomic ids in select order and, for every output
   port, the direct list of input ports it reaches through any chain of couplings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_impl.h"
#include "sim_impl.h"

/* For each coupled model, its couplings sorted by source, so that the couplings leaving
   one (child, port) are a contiguous run found by binary search. */
typedef struct cindex {
  const cdevs_model *m;
  uint32_t *order; /* coupling indices sorted by (src, src_port) */
} cindex;

typedef struct flat {
  cdevs_sim *s;
  const cdevs_alloc *a;
  bool live;           /* routes of a running simulator's changed tree: the tree's own sorted couplings */
  const cdevs_model **coupled;
  cindex *idx;
  uint32_t ncoupled;
  dest *out;           /* destinations being collected */
  uint32_t nout, capout;
  struct fframe *fstack; /* follow's stack */
  uint32_t nfstack, capfstack;
  uint32_t owner; /* visit_out's: the owner of the last port visited (they come in order) */
  bool oom;
} flat;

/* Children of m in select order: (priority, creation index). */
static int cmp_child(const void *pa, const void *pb) {
  const cdevs_model *a = *(const cdevs_model *const *)pa, *b = *(const cdevs_model *const *)pb;
  if (!a || !b) return !a - !b; /* (empty slots last) */
  if (a->priority != b->priority) return a->priority < b->priority ? -1 : 1;
  return a->index < b->index ? -1 : (a->index > b->index);
}

/* A coupled model being walked: its children in select order and the next to visit. */
typedef struct wframe {
  const cdevs_model *m;
  cdevs_model *const *kids; /* the children array, or a sorted copy (owned) */
  uint32_t i;
  bool owned;
} wframe;

/* Gives every atomic its id in depth-first select order and records the coupled models,
 * with an explicit stack of coupled models (trees may be deeper than the C stack). */
static cdevs_status walk(flat *f, const cdevs_model *root) {
  cdevs_sim *s = f->s;
  wframe *stack = NULL;
  uint32_t depth = 0, cap = 0;
  cdevs_status st = CDEVS_OK;
  const cdevs_model *m = root; /* the next model to enter */
  for (;;) {
    if (m && m->atomic) {
      uint32_t id = s->n++;
      ((cdevs_model *)(uintptr_t)m)->id = id; /* (the same in every simulator of the tree) */
      s->model[id] = m;
      s->ops[id] = m->ops;
      uint32_t base = s->out_base[id], np = m->nports[CDEVS_OUT];
      if (base > UINT32_MAX - np) {
        cdevs__model_error((cdevs_model *)(uintptr_t)root, CDEVS_ENOMEM,
                           "more than %u output ports of atomic models", UINT32_MAX);
        st = CDEVS_ENOMEM;
        break;
      }
      s->out_base[id + 1] = base + np;
    } else if (m) {
      f->coupled[f->ncoupled++] = m;
      if (CDEVS_GROW(f->a, stack, cap, depth + 1)) {
        st = CDEVS_ENOMEM;
        break;
      }
      wframe *w = &stack[depth++];
      w->m = m;
      w->kids = m->cp->children;
      w->i = 0;
      w->owned = false;
      uint32_t nk = m->cp->nchildren;
      for (uint32_t i = 0; i < nk; i++)
        if (m->cp->children[i] && m->cp->children[i]->priority != 0) w->owned = true;
      if (w->owned) {
        cdevs_model **kids = cdevs__calloc(f->a, nk, sizeof *kids);
        if (!kids) {
          w->owned = false;
          st = CDEVS_ENOMEM;
          break;
        }
        memcpy(kids, m->cp->children, nk * sizeof *kids);
        qsort(kids, nk, sizeof *kids, cmp_child);
        w->kids = kids;
      }
    }
    /* the next child of the innermost coupled model not yet finished */
    m = NULL;
    while (depth && !m) {
      wframe *w = &stack[depth - 1];
      if (w->i < w->m->cp->nchildren) {
        m = w->kids[w->i++]; /* (NULL, a removed child's slot: the loop goes on) */
      } else {
        if (w->owned) cdevs__free(f->a, (void *)(uintptr_t)w->kids, w->m->cp->nchildren * sizeof *w->kids);
        depth--;
      }
    }
    if (!m) break;
  }
  while (depth) { /* after a failure */
    wframe *w = &stack[--depth];
    if (w->owned) cdevs__free(f->a, (void *)(uintptr_t)w->kids, w->m->cp->nchildren * sizeof *w->kids);
  }
  CDEVS_FREEARR(f->a, stack, cap);
  return st;
}

static cdevs_status index_couplings(flat *f, cindex *ci, const cdevs_model *m) {
  ci->m = m;
  if (!m->cp->ncouplings) return CDEVS_OK;
  ci->order = cdevs__calloc(f->a, m->cp->ncouplings, sizeof *ci->order);
  cdevs__ckey *keys = cdevs__calloc(f->a, m->cp->ncouplings, sizeof *keys);
  if (!ci->order || !keys) {
    cdevs__free(f->a, keys, m->cp->ncouplings * sizeof *keys);
    return CDEVS_ENOMEM;
  }
  for (uint32_t i = 0; i < m->cp->ncouplings; i++) {
    keys[i].c = m->cp->couplings[i];
    keys[i].i = i;
  }
  qsort(keys, m->cp->ncouplings, sizeof *keys, cdevs__cmp_ckey);
  for (uint32_t i = 0; i < m->cp->ncouplings; i++) ci->order[i] = keys[i].i;
  cdevs__free(f->a, keys, m->cp->ncouplings * sizeof *keys);
  for (uint32_t i = 1; i < m->cp->ncouplings; i++) {
    const coupling *a = &m->cp->couplings[ci->order[i - 1]], *b = &m->cp->couplings[ci->order[i]];
    if (a->src == b->src && a->src_port == b->src_port && a->dst == b->dst &&
        a->dst_port == b->dst_port) {
      const cdevs_model *from = a->src < 0 ? m : m->cp->children[a->src];
      const cdevs_model *to = a->dst < 0 ? m : m->cp->children[a->dst];
      cdevs__model_error((cdevs_model *)(uintptr_t)m, CDEVS_ECOUPLING,
                         "duplicate coupling '%s.%s' -> '%s.%s'", from->name,
                         from->ports[a->src < 0 ? CDEVS_IN : CDEVS_OUT][a->src_port].name,
                         to->name, to->ports[a->dst < 0 ? CDEVS_OUT : CDEVS_IN][a->dst_port].name);
      return CDEVS_ECOUPLING;
    }
  }
  return CDEVS_OK;
}

/* The coupling index of a coupled model; idx is sorted by model address. */
static const cindex *find_index(const flat *f, const cdevs_model *m) {
  uint32_t lo = 0, hi = f->ncoupled;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if ((uintptr_t)f->idx[mid].m < (uintptr_t)m)
      lo = mid + 1;
    else
      hi = mid;
  }
  return &f->idx[lo];
}

static int cmp_cindex(const void *pa, const void *pb) {
  uintptr_t a = (uintptr_t)((const cindex *)pa)->m, b = (uintptr_t)((const cindex *)pb)->m;
  return a < b ? -1 : (a > b);
}

static void add_dest(flat *f, uint32_t model, uint32_t port) {
  if (CDEVS_GROW(f->a, f->out, f->capout, f->nout + 1)) {
    f->oom = true;
    return;
  }
  f->out[f->nout].model = model;
  f->out[f->nout].port = port;
  f->nout++;
}

/* Where a chain of couplings is being followed: the couplings of m leaving (src, port)
   are order[pos .. ) while they still match. */
typedef struct fframe {
  const cdevs_model *m;
  const uint32_t *order; /* its couplings sorted by source (cindex; not live) */
  uint32_t pos;          /* in order[]; live, the next coupling of the source's chain */
  int32_t src, port;
} fframe;

/* Pushes the couplings of m leaving (src, port): a binary search for the first one. */
static void push_follow(flat *f, const cdevs_model *m, int32_t src, int32_t port) {
  if (CDEVS_GROW(f->a, f->fstack, f->capfstack, f->nfstack + 1)) {
    f->oom = true;
    return;
  }
  fframe *w = &f->fstack[f->nfstack];
  w->m = m;
  w->src = src;
  w->port = port;
  if (f->live) { /* the tree's own index of the model's couplings by their ends */
    if (cdevs__cix_build(f->a, m->cp)) {
      f->oom = true;
      return;
    }
    w->order = NULL;
    w->pos = cdevs__cix_from(m->cp, src, port);
    f->nfstack++;
    return;
  }
  const uint32_t *order = find_index(f, m)->order;
  uint32_t lo = 0, hi = m->cp->ncouplings;
  while (lo < hi) { /* first coupling with source >= (src, port) */
    uint32_t mid = lo + (hi - lo) / 2;
    const coupling *c = &m->cp->couplings[order[mid]];
    if (c->src < src || (c->src == src && c->src_port < port))
      lo = mid + 1;
    else
      hi = mid;
  }
  w->order = order;
  w->pos = lo;
  f->nfstack++;
}

/* Collects, in coupling order depth first, the atomic input ports (and root output
 * ports) that (src, port) of m reaches through any chain of couplings. The chain goes
 * up through EOCs, then down through ICs and EICs, so it is at most twice the depth
 * of the tree; it is kept on an explicit stack all the same. */
static void follow(flat *f, const cdevs_model *m, int32_t src, int32_t port) {
  uint32_t base = f->nfstack;
  push_follow(f, m, src, port);
  while (f->nfstack > base && !f->oom) {
    fframe *w = &f->fstack[f->nfstack - 1];
    const cdevs_model *cm = w->m;
    const coupling *c;
    if (f->live) {
      if (w->pos == CDEVS_CIX_NONE) {
        f->nfstack--;
        continue;
      }
      c = &cm->cp->couplings[w->pos];
      w->pos = cdevs__cix_from_next(cm->cp, w->pos);
    } else {
      if (w->pos >= cm->cp->ncouplings) {
        f->nfstack--;
        continue;
      }
      c = &cm->cp->couplings[w->order[w->pos]];
      if (c->src != w->src || c->src_port != w->port) {
        f->nfstack--;
        continue;
      }
      w->pos++;
    }
    if (c->dst < 0) { /* EOC: leave cm by its output port */
      if (!cm->parent)
        add_dest(f, ROOT_OUT, (uint32_t)c->dst_port);
      else
        push_follow(f, cm->parent, cm->index, c->dst_port);
      continue;
    }
    const cdevs_model *child = cm->cp->children[c->dst];
    if (child->atomic)
      add_dest(f, child->id, (uint32_t)c->dst_port); /* (walk gave the ids) */
    else
      push_follow(f, child, -1, c->dst_port); /* EIC of the child */
  }
  f->nfstack = base;
}

/* Moves the collected destinations into a CSR array (start offsets, dests). */
static cdevs_status collect_csr(flat *f, uint32_t nports, uint32_t *start, dest **arr,
                                void (*visit)(flat *, uint32_t)) {
  f->nout = 0;
  for (uint32_t g = 0; g < nports; g++) {
    start[g] = f->nout;
    visit(f, g);
    if (f->oom) return CDEVS_ENOMEM;
  }
  start[nports] = f->nout;
  *arr = cdevs__calloc(f->a, f->nout, sizeof **arr);
  if (!*arr) return CDEVS_ENOMEM;
  if (f->nout) memcpy(*arr, f->out, f->nout * sizeof **arr);
  return CDEVS_OK;
}

/* The atomic owning global output port g (out_base is non-decreasing). */
static uint32_t owner_of(const cdevs_sim *s, uint32_t g) {
  uint32_t lo = 0, hi = s->n;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (s->out_base[mid] <= g)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

static void visit_out(flat *f, uint32_t g) {
  cdevs_sim *s = f->s;
  /* The ports come in order (collect_csr): the owner moves on from the last one's,
   * the same as owner_of's (the last atomic whose first port is at or before g). */
  uint32_t lo = f->owner;
  if (lo >= s->n || s->out_base[lo] > g) lo = owner_of(s, g);
  while (lo + 1 < s->n && s->out_base[lo + 1] <= g) lo++;
  f->owner = lo;
  if (s->dead && s->dead[lo]) return; /* a removed model's ports route nowhere */
  const cdevs_model *m = s->model[lo];
  int32_t p = (int32_t)(g - s->out_base[lo]);
  s->out_kind[g] = (uint8_t)m->ports[CDEVS_OUT][p].kind;
  follow(f, m->parent, m->index, p);
}

static void visit_root_in(flat *f, uint32_t p) { follow(f, f->s->root, -1, (int32_t)p); }

/* What input p of atomic m declares (cdevs_drivers). */
static unsigned in_drivers(const cdevs_model *m, uint32_t p) {
  const cdevs_atomic_ops *ops = m->ops;
  if (!ops->in_drivers) return CDEVS_DRIVERS_ANY;
  for (uint32_t i = 0; i <= p; i++) /* only the ops table's own inputs declare it */
    if (!ops->inputs || !ops->inputs[i].name) return CDEVS_DRIVERS_ANY;
  return ops->in_drivers[p];
}

/* The name of a driver: global output port g of an atomic, or root input port g - nout. */
static void driver_name(const cdevs_sim *s, uint32_t g, char *buf, size_t size) {
  uint32_t nout = s->out_base[s->n];
  if (g >= nout) {
    size_t n = cdevs_model_path(s->root, buf, size);
    if (n < size) snprintf(buf + n, size - n, ".%s (an input of the root)",
                           s->root->ports[CDEVS_IN][g - nout].name);
    return;
  }
  uint32_t lo = owner_of(s, g);
  size_t n = cdevs_model_path(s->model[lo], buf, size);
  if (n < size) snprintf(buf + n, size - n, ".%s", s->model[lo]->ports[CDEVS_OUT][g - s->out_base[lo]].name);
}

/* Inputs declared to take one signal (cdevs_drivers) must have one driver, or at most
 * one: two would silently keep the last value, none would silently read 0. Counted
 * over the flattened fan-out, so chains through coupled models count as one. */
static cdevs_status check_drivers(cdevs_sim *s, const cdevs_alloc *a) {
  uint32_t n = s->n, nin = 0;
  bool any = false;
  for (uint32_t i = 0; i < n; i++) {
    const cdevs_model *m = s->model[i];
    if (s->dead && s->dead[i]) continue;
    if (m->ops->in_drivers)
      for (uint32_t p = 0; p < m->nports[CDEVS_IN]; p++) any |= in_drivers(m, p) != CDEVS_DRIVERS_ANY;
    nin += m->nports[CDEVS_IN]; /* bounded by the 32-bit output total's kind of limit */
  }
  s->drivers_declared = any;
  if (!any) return CDEVS_OK;
  uint32_t *in_base = cdevs__calloc(a, (size_t)n + 1, sizeof *in_base);
  uint32_t *count = cdevs__calloc(a, nin, sizeof *count);
  uint32_t *first = cdevs__calloc(a, (size_t)nin * 2, sizeof *first); /* two drivers each */
  cdevs_status st = CDEVS_ENOMEM;
  if (!in_base || !count || !first) goto done;
  for (uint32_t i = 0; i < n; i++) in_base[i + 1] = in_base[i] + s->model[i]->nports[CDEVS_IN];
  uint32_t nout = s->out_base[n];
  for (uint32_t g = 0; g < nout + s->n_root_in; g++) {
    const dest *d0, *d1;
    if (g < nout)
      cdevs__routes(s, g, &d0, &d1);
    else
      cdevs__root_routes(s, g - nout, &d0, &d1);
    for (const dest *d = d0; d < d1; d++) {
      if (d->model == ROOT_OUT) continue;
      uint32_t k = in_base[d->model] + d->port;
      if (count[k] < 2) first[2 * k + count[k]] = g;
      count[k]++;
    }
  }
  st = CDEVS_OK;
  for (uint32_t i = 0; i < n && !st; i++) {
    const cdevs_model *m = s->model[i];
    if (s->dead && s->dead[i]) continue;
    for (uint32_t p = 0; p < m->nports[CDEVS_IN] && !st; p++) {
      unsigned want = in_drivers(m, p);
      uint32_t k = in_base[i] + p, c = count[k];
      if (want == CDEVS_DRIVERS_ANY || c == 1 || (c == 0 && want == CDEVS_DRIVERS_OPTIONAL)) continue;
      st = CDEVS_ECOUPLING;
      cdevs_model *mm = (cdevs_model *)(uintptr_t)m;
      if (c == 0) {
        cdevs__model_error(mm, st, "input '%s' is not connected (it takes one signal and has no default)",
                           m->ports[CDEVS_IN][p].name);
      } else {
        char d0[160], d1[160];
        driver_name(s, first[2 * k], d0, sizeof d0);
        driver_name(s, first[2 * k + 1], d1, sizeof d1);
        cdevs__model_error(mm, st, "input '%s' takes one signal but %u outputs drive it: '%s', '%s'%s "
                           "(only the last value would be kept; add them with a WSum block)",
                           m->ports[CDEVS_IN][p].name, c, d0, d1, c > 2 ? " and more" : "");
      }
    }
  }
done:
  cdevs__free(a, in_base, ((size_t)n + 1) * sizeof *in_base);
  cdevs__free(a, count, nin * sizeof *count);
  cdevs__free(a, first, (size_t)nin * 2 * sizeof *first);
  return st;
}

cdevs_status cdevs__flatten(cdevs_sim *s) {
  const cdevs_model *root = s->root;
  const cdevs_alloc *a = &s->alloc;
  uint32_t n = root->ri->n_atomic;
  flat f;
  memset(&f, 0, sizeof f);
  f.s = s;
  f.a = a;
  s->cap = n;
  s->n_static = n;
  cdevs_status st = CDEVS_ENOMEM;

  s->model = cdevs__calloc(a, n, sizeof *s->model);
  s->ops = cdevs__calloc(a, n, sizeof *s->ops);
  s->out_base = cdevs__calloc(a, (size_t)n + 1, sizeof *s->out_base);
  uint32_t ncoupled = (uint32_t)root->ri->n_coupled;
  f.coupled = cdevs__calloc(a, ncoupled, sizeof *f.coupled);
  f.idx = cdevs__calloc(a, ncoupled, sizeof *f.idx);
  if (!s->model || !s->ops || !s->out_base || !f.coupled || !f.idx) goto done;

  st = walk(&f, root);
  if (st) goto done;
  for (uint32_t i = 0; i < f.ncoupled; i++) {
    st = index_couplings(&f, &f.idx[i], f.coupled[i]);
    if (st) goto done;
  }
  qsort(f.idx, f.ncoupled, sizeof *f.idx, cmp_cindex);

  st = CDEVS_ENOMEM;
  uint32_t nout = s->out_base[n];
  s->fo_start = cdevs__calloc(a, (size_t)nout + 1, sizeof *s->fo_start);
  s->out_kind = cdevs__calloc(a, nout, sizeof *s->out_kind);
  s->nout_routed = nout;
  s->n_root_in = root->nports[CDEVS_IN];
  s->in_start = cdevs__calloc(a, (size_t)s->n_root_in + 1, sizeof *s->in_start);
  if (!s->fo_start || !s->out_kind || !s->in_start) goto done;
  st = collect_csr(&f, nout, s->fo_start, &s->fo, visit_out);
  if (st) goto done;
  st = collect_csr(&f, s->n_root_in, s->in_start, &s->in_fo, visit_root_in);
  if (st) goto done;
  s->st.fanout_edges = s->fo_start[nout];
  s->st.couplings = root->ri->n_eic + root->ri->n_ic + root->ri->n_eoc;
  st = check_drivers(s, a);

done:
  if (f.idx)
    for (uint32_t i = 0; i < f.ncoupled; i++)
      if (f.idx[i].order) cdevs__free(a, f.idx[i].order, f.idx[i].m->cp->ncouplings * sizeof(uint32_t));
  cdevs__free(a, f.idx, ncoupled * sizeof *f.idx);
  cdevs__free(a, f.coupled, ncoupled * sizeof *f.coupled);
  CDEVS_FREEARR(a, f.out, f.capout);
  CDEVS_FREEARR(a, f.fstack, f.capfstack);
  return st;
}

/* The sources whose routes pass through end (src, port) of coupled model m (src a
 * child's index and one of its output ports, or -1 and an input port of m): the
 * chains of couplings followed backwards, down through EOCs and up through EICs, to
 * atomic output ports and root inputs, noted with cdevs__dirty. Dead models are skipped. There are no cycles to fear: a coupling never
 * joins a model to itself, so every chain through a coupled model meets an atomic
 * one. The couplings reaching an end are a chain of the model's coupling index. */
typedef struct uframe {
  const cdevs_model *m;
  int32_t src, port;
} uframe;

int cdevs__upstream(cdevs_sim *s, const cdevs_model *m, int32_t src, int32_t port) {
  const cdevs_alloc *a = &s->alloc;
  uframe *st = NULL;
  uint32_t n = 0, cap = 0;
  int r = 0;
  if (CDEVS_GROW(a, st, cap, 1)) return -1;
  st[n++] = (uframe){m, src, port};
  while (n && !r) {
    uframe u = st[--n];
    const cdevs_model *at; /* the coupled model whose couplings end there */
    int32_t end;           /* and the end: a child, or -1 for at's own output */
    if (u.src >= 0) {
      const cdevs_model *child = u.m->cp->children[u.src];
      if (child->atomic) {
        if (!(s->dead && s->dead[child->id])) r = cdevs__dirty(s, s->out_base[child->id] + (uint32_t)u.port);
        continue;
      }
      at = child, end = -1;
    } else if (!u.m->parent) {
      r = cdevs__dirty(s, CDEVS_DIRTY_ROOT_IN | (uint32_t)u.port);
      continue;
    } else {
      at = u.m->parent, end = u.m->index;
    }
    if (cdevs__cix_build(a, at->cp)) {
      r = -1;
      break;
    }
    for (uint32_t i = cdevs__cix_to(at->cp, end, u.port); i != CDEVS_CIX_NONE && !r;
         i = cdevs__cix_to_next(at->cp, i)) {
      const coupling *c = &at->cp->couplings[i];
      if (CDEVS_GROW(a, st, cap, n + 1))
        r = -1;
      else
        st[n++] = (uframe){at, c->src, c->src_port};
    }
  }
  CDEVS_FREEARR(a, st, cap);
  return r;
}

/* Replaces the routes of global output port g (g < nout) or root input g - nout in
 * the simulator's overlay with the n destinations at d; -1 out of memory. */
static int set_routes(cdevs_sim *s, uint32_t g, const dest *d, uint32_t n) {
  const cdevs_alloc *a = &s->alloc;
  uint32_t nout = s->out_base[s->n];
  dest **slot = g < nout ? &s->xfo[g] : &s->xin[g - nout];
  uint32_t *cnt = g < nout ? &s->xn[g] : &s->xinn[g - nout];
  dest *list = n ? cdevs__calloc(a, n, sizeof *list) : &s->xnone;
  if (!list) return -1;
  if (n) memcpy(list, d, n * sizeof *list);
  uint32_t old = *slot ? *cnt : g < s->nout_routed ? s->fo_start[g + 1] - s->fo_start[g] : 0;
  if (g < nout) s->st.fanout_edges = s->st.fanout_edges - old + n;
  if (*slot && *slot != &s->xnone) cdevs__free(a, *slot, *cnt * sizeof **slot);
  *slot = list, *cnt = n;
  return 0;
}

void cdevs__overlay_free(cdevs_sim *s) {
  const cdevs_alloc *a = &s->alloc;
  for (uint32_t g = 0; g < s->xcap; g++)
    if (s->xfo[g] && s->xfo[g] != &s->xnone) cdevs__free(a, s->xfo[g], s->xn[g] * sizeof *s->xfo[g]);
  if (s->xin)
    for (uint32_t p = 0; p < s->n_root_in; p++)
      if (s->xin[p] && s->xin[p] != &s->xnone) cdevs__free(a, s->xin[p], s->xinn[p] * sizeof *s->xin[p]);
  cdevs__free(a, s->xfo, (size_t)s->xcap * sizeof *s->xfo);
  cdevs__free(a, s->xn, (size_t)s->xcap * sizeof *s->xn);
  cdevs__free(a, s->xkind, s->xcap);
  cdevs__free(a, s->xin, (size_t)s->n_root_in * sizeof *s->xin);
  cdevs__free(a, s->xinn, (size_t)s->n_root_in * sizeof *s->xinn);
  CDEVS_FREEARR(a, s->dirty, s->capdirty);
  s->xfo = s->xin = NULL, s->xn = s->xinn = NULL, s->xkind = NULL, s->xcap = 0;
}

cdevs_status cdevs__reroute(cdevs_sim *s, const uint32_t *ports, uint32_t nports) {
  const cdevs_alloc *a = &s->alloc;
  flat f;
  memset(&f, 0, sizeof f);
  f.s = s;
  f.a = a;
  f.live = true;
  uint32_t nout = s->out_base[s->n];
  cdevs_status st = CDEVS_OK;
  /* the overlay, sized for every output port (and the root's inputs) */
  if (nout > s->xcap) {
    uint32_t cap = s->xcap ? s->xcap : 64;
    while (cap < nout) cap = cap > UINT32_MAX / 2 ? nout : cap * 2;
    dest **x = cdevs__calloc(a, cap, sizeof *x);
    uint32_t *xn = cdevs__calloc(a, cap, sizeof *xn);
    uint8_t *xk = cdevs__calloc(a, cap, 1);
    if (!x || !xn || !xk) {
      cdevs__free(a, x, (size_t)cap * sizeof *x);
      cdevs__free(a, xn, (size_t)cap * sizeof *xn);
      cdevs__free(a, xk, cap);
      st = CDEVS_ENOMEM;
      goto done;
    }
    if (s->xcap) {
      memcpy(x, s->xfo, s->xcap * sizeof *x);
      memcpy(xn, s->xn, s->xcap * sizeof *xn);
      memcpy(xk, s->xkind, s->xcap);
    }
    cdevs__free(a, s->xfo, (size_t)s->xcap * sizeof *s->xfo);
    cdevs__free(a, s->xn, (size_t)s->xcap * sizeof *s->xn);
    cdevs__free(a, s->xkind, s->xcap);
    s->xfo = x, s->xn = xn, s->xkind = xk, s->xcap = cap;
  }
  if (!s->xin && s->n_root_in) {
    s->xin = cdevs__calloc(a, s->n_root_in, sizeof *s->xin);
    s->xinn = cdevs__calloc(a, s->n_root_in, sizeof *s->xinn);
    if (!s->xin || !s->xinn) {
      st = CDEVS_ENOMEM;
      goto done;
    }
  }
  for (uint32_t k = 0; k < nports && !st; k++) {
    uint32_t g = ports[k];
    f.nout = 0;
    if (g < nout) {
      uint32_t lo = owner_of(s, g);
      const cdevs_model *m = s->model[lo];
      int32_t p = (int32_t)(g - s->out_base[lo]);
      if (!(s->dead && s->dead[lo])) {
        s->xkind[g] = (uint8_t)m->ports[CDEVS_OUT][p].kind;
        follow(&f, m->parent, m->index, p);
      }
    } else {
      follow(&f, s->root, -1, (int32_t)(g - nout));
    }
    if (f.oom || set_routes(s, g, f.out, f.nout)) st = CDEVS_ENOMEM;
  }
  if (st) goto done;
  for (uint32_t k = 0; k < s->ninj; k++) { /* inputs injected for later follow the new routes */
    uint32_t p = s->inj[k].port;
    if (s->xin && s->xin[p]) s->inj[k].d0 = s->xin[p], s->inj[k].d1 = s->xin[p] + s->xinn[p];
  }
  s->st.couplings = s->root->ri->n_eic + s->root->ri->n_ic + s->root->ri->n_eoc;
  if (s->drivers_declared) {
    st = check_drivers(s, a);
    if (st) cdevs__sim_error(s, st, "t=%.17g: after a structure change: %s", s->cx.t, cdevs_model_errmsg(s->root));
  }
done:
  if (st == CDEVS_ENOMEM) cdevs__sim_error(s, st, "t=%.17g: out of memory routing after a structure change", s->cx.t);
  CDEVS_FREEARR(a, f.out, f.capout);
  CDEVS_FREEARR(a, f.fstack, f.capfstack);
  return st;
}
