/* SPDX-License-Identifier: MIT */
/*
 * The couplings of a coupled model that changes during a run, indexed by their ends:
 * a hash map from each source end (child, port) to the chain of the couplings leaving
 * it, in the order routes collect them (destination child, then port), and from each
 * destination end to the chain of the couplings reaching it. Built when a structure
 * change first touches the model (a static tree never builds one) and kept by every
 * later change, so that a coupling costs its source's fan-out to add and O(1) to
 * remove, and a child its own couplings to remove, however many siblings it has.
 */
#include <stdlib.h>
#include <string.h>

#include "alloc_impl.h"
#include "model_impl.h"

#define EMPTY UINT64_MAX

/* Open addressing with linear probing, at most half full; keys are ends. */
typedef struct end_map {
  uint64_t *key;
  uint32_t *head; /* the first coupling of the end's chain */
  uint32_t cap, n;
} end_map;

/* One side's chains (of the sources, or of the destinations): each end's head in the
 * map, and per coupling its neighbours in its end's chain. */
typedef struct chains {
  end_map map;
  uint32_t *next, *prev;
} chains;

struct coupling_index {
  chains src, dst;
  uint32_t cap; /* of the link arrays */
};

static uint64_t end_key(int32_t model, int32_t port) {
  return (uint64_t)(uint32_t)(model + 1) << 32 | (uint32_t)port;
}
static uint32_t key_hash(uint64_t k) { return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 32); }

static uint32_t map_get(const end_map *m, uint64_t k) {
  if (!m->cap) return CDEVS_CIX_NONE;
  uint32_t mask = m->cap - 1;
  for (uint32_t h = key_hash(k) & mask;; h = (h + 1) & mask) {
    if (m->key[h] == k) return m->head[h];
    if (m->key[h] == EMPTY) return CDEVS_CIX_NONE;
  }
}

/* Sets k's head (the map has room: map_reserve). */
static void map_set(end_map *m, uint64_t k, uint32_t head) {
  uint32_t mask = m->cap - 1, h = key_hash(k) & mask;
  while (m->key[h] != EMPTY && m->key[h] != k) h = (h + 1) & mask;
  if (m->key[h] == EMPTY) m->n++;
  m->key[h] = k;
  m->head[h] = head;
}

/* Removes k, moving back the entries after it that their hash placed earlier. */
static void map_del(end_map *m, uint64_t k) {
  uint32_t mask = m->cap - 1, h = key_hash(k) & mask;
  while (m->key[h] != k) {
    if (m->key[h] == EMPTY) return;
    h = (h + 1) & mask;
  }
  for (uint32_t j = (h + 1) & mask; m->key[j] != EMPTY; j = (j + 1) & mask) {
    if (cdevs__probe_movable(h, j, key_hash(m->key[j]) & mask)) {
      m->key[h] = m->key[j];
      m->head[h] = m->head[j];
      h = j;
    }
  }
  m->key[h] = EMPTY;
  m->n--;
}

static void map_free(const cdevs_alloc *a, end_map *m) {
  cdevs__free(a, m->key, (size_t)m->cap * sizeof *m->key);
  cdevs__free(a, m->head, (size_t)m->cap * sizeof *m->head);
  memset(m, 0, sizeof *m);
}

/* Room for n keys; -1 out of memory, the map as it was. */
static int map_reserve(const cdevs_alloc *a, end_map *m, uint32_t n) {
  if ((uint64_t)n * 2 <= m->cap) return 0;
  uint64_t cap = 16;
  while (cap < (uint64_t)n * 2) cap *= 2;
  if (cap > UINT32_MAX) return -1;
  end_map g = {cdevs__calloc(a, (size_t)cap, sizeof *g.key), cdevs__calloc(a, (size_t)cap, sizeof *g.head),
               (uint32_t)cap, 0};
  if (!g.key || !g.head) {
    map_free(a, &g);
    return -1;
  }
  memset(g.key, 0xff, (size_t)cap * sizeof *g.key);
  for (uint32_t i = 0; i < m->cap; i++)
    if (m->key[i] != EMPTY) map_set(&g, m->key[i], m->head[i]);
  map_free(a, m);
  *m = g;
  return 0;
}

/* The link arrays for n couplings; -1 out of memory, as they were. */
static int links_reserve(const cdevs_alloc *a, coupling_index *x, uint32_t n) {
  if (n <= x->cap) return 0;
  uint64_t cap = x->cap ? x->cap : 16;
  while (cap < n) cap *= 2;
  if (cap > UINT32_MAX) return -1;
  uint32_t *l[4] = {NULL, NULL, NULL, NULL}, **old[4] = {&x->src.next, &x->src.prev, &x->dst.next, &x->dst.prev};
  for (int k = 0; k < 4; k++) {
    l[k] = cdevs__calloc(a, (size_t)cap, sizeof *l[k]);
    if (!l[k]) {
      for (int j = 0; j < k; j++) cdevs__free(a, l[j], (size_t)cap * sizeof *l[j]);
      return -1;
    }
  }
  for (int k = 0; k < 4; k++) {
    if (x->cap) memcpy(l[k], *old[k], x->cap * sizeof *l[k]);
    cdevs__free(a, *old[k], x->cap * sizeof **old[k]);
    *old[k] = l[k];
  }
  x->cap = (uint32_t)cap;
  return 0;
}

static void chains_free(const cdevs_alloc *a, chains *ch, uint32_t cap) {
  map_free(a, &ch->map);
  cdevs__free(a, ch->next, cap * sizeof *ch->next);
  cdevs__free(a, ch->prev, cap * sizeof *ch->prev);
}

void cdevs__cix_free(const cdevs_alloc *a, coupled_part *cp) {
  coupling_index *x = cp->cix;
  if (!x) return;
  chains_free(a, &x->src, x->cap);
  chains_free(a, &x->dst, x->cap);
  cdevs__free(a, x, sizeof *x);
  cp->cix = NULL;
}

int cdevs__cix_reserve(const cdevs_alloc *a, coupled_part *cp, uint32_t n) {
  coupling_index *x = cp->cix;
  return links_reserve(a, x, n) || map_reserve(a, &x->src.map, n) || map_reserve(a, &x->dst.map, n) ? -1 : 0;
}

static uint64_t src_key(const coupling *c) { return end_key(c->src, c->src_port); }
static uint64_t dst_key(const coupling *c) { return end_key(c->dst, c->dst_port); }

/* Coupling i into end k's chain after prev (CDEVS_CIX_NONE: at its head), before next. */
static void chain_link(chains *ch, uint64_t k, uint32_t i, uint32_t prev, uint32_t next) {
  ch->prev[i] = prev;
  ch->next[i] = next;
  if (next != CDEVS_CIX_NONE) ch->prev[next] = i;
  if (prev != CDEVS_CIX_NONE)
    ch->next[prev] = i;
  else
    map_set(&ch->map, k, i);
}

/* Coupling i out of end k's chain. */
static void chain_unlink(chains *ch, uint64_t k, uint32_t i) {
  uint32_t p = ch->prev[i], n = ch->next[i];
  if (n != CDEVS_CIX_NONE) ch->prev[n] = p;
  if (p != CDEVS_CIX_NONE)
    ch->next[p] = n;
  else if (n != CDEVS_CIX_NONE)
    map_set(&ch->map, k, n);
  else
    map_del(&ch->map, k);
}

/* Coupling c before coupling d in a source's chain: by destination child, then port. */
static int chain_before(const coupling *c, const coupling *d) {
  return c->dst != d->dst ? c->dst < d->dst : c->dst_port < d->dst_port;
}

void cdevs__cix_insert(coupled_part *cp, uint32_t i) {
  coupling_index *x = cp->cix;
  const coupling *c = &cp->couplings[i];
  /* into its source's chain, in place; at the front of its destination's */
  uint32_t prev = CDEVS_CIX_NONE, next = map_get(&x->src.map, src_key(c));
  while (next != CDEVS_CIX_NONE && chain_before(&cp->couplings[next], c)) prev = next, next = x->src.next[next];
  chain_link(&x->src, src_key(c), i, prev, next);
  chain_link(&x->dst, dst_key(c), i, CDEVS_CIX_NONE, map_get(&x->dst.map, dst_key(c)));
}

void cdevs__cix_erase(coupled_part *cp, uint32_t i) {
  coupling_index *x = cp->cix;
  chain_unlink(&x->src, src_key(&cp->couplings[i]), i);
  chain_unlink(&x->dst, dst_key(&cp->couplings[i]), i);
  uint32_t last = --cp->ncouplings;
  if (i == last) return;
  /* the last coupling moves into the hole: unlinked from where it was, linked again
   * between the same neighbours */
  const coupling *c = &cp->couplings[last];
  uint32_t sp = x->src.prev[last], sn = x->src.next[last], dp = x->dst.prev[last], dn = x->dst.next[last];
  cp->couplings[i] = *c;
  chain_link(&x->src, src_key(c), i, sp, sn);
  chain_link(&x->dst, dst_key(c), i, dp, dn);
}

int cdevs__cmp_ckey(const void *pa, const void *pb) {
  const cdevs__ckey *x = pa, *y = pb;
  const coupling *a = &x->c, *b = &y->c;
  if (a->src != b->src) return a->src < b->src ? -1 : 1;
  if (a->src_port != b->src_port) return a->src_port < b->src_port ? -1 : 1;
  if (a->dst != b->dst) return a->dst < b->dst ? -1 : 1;
  if (a->dst_port != b->dst_port) return a->dst_port < b->dst_port ? -1 : 1;
  return x->i < y->i ? -1 : (x->i > y->i);
}

int cdevs__cix_build(const cdevs_alloc *a, coupled_part *cp) {
  if (cp->cix) return 0;
  uint32_t n = cp->ncouplings;
  coupling_index *x = cdevs__calloc(a, 1, sizeof *x);
  cdevs__ckey *keys = n ? cdevs__calloc(a, n, sizeof *keys) : NULL;
  if (!x || (n && !keys)) {
    cdevs__free(a, x, sizeof *x);
    cdevs__free(a, keys, (size_t)n * sizeof *keys);
    return -1;
  }
  cp->cix = x;
  if (cdevs__cix_reserve(a, cp, n ? n : 1)) {
    cdevs__free(a, keys, (size_t)n * sizeof *keys);
    cdevs__cix_free(a, cp);
    return -1;
  }
  /* Sorted once, the chains are linked in order (inserting one by one would walk a
   * chain per coupling: quadratic in a large fan-out). Walked backwards, each
   * coupling goes to the front of its chains. */
  for (uint32_t i = 0; i < n; i++) keys[i] = (cdevs__ckey){cp->couplings[i], i};
  if (n) qsort(keys, n, sizeof *keys, cdevs__cmp_ckey);
  for (uint32_t k = n; k-- > 0;) {
    uint32_t i = keys[k].i;
    const coupling *c = &cp->couplings[i];
    chain_link(&x->src, src_key(c), i, CDEVS_CIX_NONE, map_get(&x->src.map, src_key(c)));
    chain_link(&x->dst, dst_key(c), i, CDEVS_CIX_NONE, map_get(&x->dst.map, dst_key(c)));
  }
  cdevs__free(a, keys, (size_t)n * sizeof *keys);
  return 0;
}

uint32_t cdevs__cix_from(const coupled_part *cp, int32_t src, int32_t port) {
  return map_get(&cp->cix->src.map, end_key(src, port));
}
uint32_t cdevs__cix_from_next(const coupled_part *cp, uint32_t i) { return cp->cix->src.next[i]; }
uint32_t cdevs__cix_to(const coupled_part *cp, int32_t dst, int32_t port) {
  return map_get(&cp->cix->dst.map, end_key(dst, port));
}
uint32_t cdevs__cix_to_next(const coupled_part *cp, uint32_t i) { return cp->cix->dst.next[i]; }
