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

struct coupling_index {
  end_map src, dst;
  uint32_t *snext, *sprev, *dnext, *dprev; /* the chains' links, per coupling */
  uint32_t cap;                            /* of the link arrays */
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
    uint32_t home = key_hash(m->key[j]) & mask;
    if ((j > h && (home <= h || home > j)) || (j < h && home <= h && home > j)) {
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
  uint32_t *l[4] = {NULL, NULL, NULL, NULL}, **old[4] = {&x->snext, &x->sprev, &x->dnext, &x->dprev};
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

void cdevs__cix_free(const cdevs_alloc *a, coupled_part *cp) {
  coupling_index *x = cp->cix;
  if (!x) return;
  map_free(a, &x->src);
  map_free(a, &x->dst);
  cdevs__free(a, x->snext, x->cap * sizeof *x->snext);
  cdevs__free(a, x->sprev, x->cap * sizeof *x->sprev);
  cdevs__free(a, x->dnext, x->cap * sizeof *x->dnext);
  cdevs__free(a, x->dprev, x->cap * sizeof *x->dprev);
  cdevs__free(a, x, sizeof *x);
  cp->cix = NULL;
}

int cdevs__cix_reserve(const cdevs_alloc *a, coupled_part *cp, uint32_t n) {
  coupling_index *x = cp->cix;
  return links_reserve(a, x, n) || map_reserve(a, &x->src, n) || map_reserve(a, &x->dst, n) ? -1 : 0;
}

/* Coupling c before coupling d in a source's chain: by destination child, then port. */
static int chain_before(const coupling *c, const coupling *d) {
  return c->dst != d->dst ? c->dst < d->dst : c->dst_port < d->dst_port;
}

void cdevs__cix_insert(coupled_part *cp, uint32_t i) {
  coupling_index *x = cp->cix;
  const coupling *c = &cp->couplings[i];
  /* into its source's chain, in place */
  uint64_t ks = end_key(c->src, c->src_port);
  uint32_t prev = CDEVS_CIX_NONE, next = map_get(&x->src, ks);
  while (next != CDEVS_CIX_NONE && chain_before(&cp->couplings[next], c)) prev = next, next = x->snext[next];
  x->sprev[i] = prev;
  x->snext[i] = next;
  if (next != CDEVS_CIX_NONE) x->sprev[next] = i;
  if (prev != CDEVS_CIX_NONE)
    x->snext[prev] = i;
  else
    map_set(&x->src, ks, i);
  /* at the front of its destination's */
  uint64_t kd = end_key(c->dst, c->dst_port);
  uint32_t head = map_get(&x->dst, kd);
  x->dprev[i] = CDEVS_CIX_NONE;
  x->dnext[i] = head;
  if (head != CDEVS_CIX_NONE) x->dprev[head] = i;
  map_set(&x->dst, kd, i);
}

/* Takes coupling i out of both chains. */
static void unlink_coupling(coupling_index *x, const coupling *c, uint32_t i) {
  uint32_t p = x->sprev[i], n = x->snext[i];
  if (n != CDEVS_CIX_NONE) x->sprev[n] = p;
  if (p != CDEVS_CIX_NONE)
    x->snext[p] = n;
  else if (n != CDEVS_CIX_NONE)
    map_set(&x->src, end_key(c->src, c->src_port), n);
  else
    map_del(&x->src, end_key(c->src, c->src_port));
  p = x->dprev[i], n = x->dnext[i];
  if (n != CDEVS_CIX_NONE) x->dprev[n] = p;
  if (p != CDEVS_CIX_NONE)
    x->dnext[p] = n;
  else if (n != CDEVS_CIX_NONE)
    map_set(&x->dst, end_key(c->dst, c->dst_port), n);
  else
    map_del(&x->dst, end_key(c->dst, c->dst_port));
}

void cdevs__cix_erase(coupled_part *cp, uint32_t i) {
  coupling_index *x = cp->cix;
  unlink_coupling(x, &cp->couplings[i], i);
  uint32_t last = --cp->ncouplings;
  if (i == last) return;
  /* the last coupling moves into the hole: its neighbours and heads follow it */
  const coupling *c = &cp->couplings[last];
  cp->couplings[i] = *c;
  x->snext[i] = x->snext[last], x->sprev[i] = x->sprev[last];
  x->dnext[i] = x->dnext[last], x->dprev[i] = x->dprev[last];
  if (x->snext[i] != CDEVS_CIX_NONE) x->sprev[x->snext[i]] = i;
  if (x->sprev[i] != CDEVS_CIX_NONE)
    x->snext[x->sprev[i]] = i;
  else
    map_set(&x->src, end_key(c->src, c->src_port), i);
  if (x->dnext[i] != CDEVS_CIX_NONE) x->dprev[x->dnext[i]] = i;
  if (x->dprev[i] != CDEVS_CIX_NONE)
    x->dnext[x->dprev[i]] = i;
  else
    map_set(&x->dst, end_key(c->dst, c->dst_port), i);
}

/* A coupling's sort key with its position (qsort needs no global state this way). */
typedef struct skey {
  coupling c;
  uint32_t i;
} skey;
static int cmp_skey(const void *pa, const void *pb) {
  const coupling *a = &((const skey *)pa)->c, *b = &((const skey *)pb)->c;
  if (a->src != b->src) return a->src < b->src ? -1 : 1;
  if (a->src_port != b->src_port) return a->src_port < b->src_port ? -1 : 1;
  if (a->dst != b->dst) return a->dst < b->dst ? -1 : 1;
  return a->dst_port < b->dst_port ? -1 : (a->dst_port > b->dst_port);
}

int cdevs__cix_build(const cdevs_alloc *a, coupled_part *cp) {
  if (cp->cix) return 0;
  uint32_t n = cp->ncouplings;
  coupling_index *x = cdevs__calloc(a, 1, sizeof *x);
  skey *keys = n ? cdevs__calloc(a, n, sizeof *keys) : NULL;
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
  for (uint32_t i = 0; i < n; i++) keys[i] = (skey){cp->couplings[i], i};
  if (n) qsort(keys, n, sizeof *keys, cmp_skey);
  for (uint32_t k = n; k-- > 0;) {
    uint32_t i = keys[k].i;
    const coupling *c = &cp->couplings[i];
    uint64_t ks = end_key(c->src, c->src_port), kd = end_key(c->dst, c->dst_port);
    uint32_t hs = map_get(&x->src, ks), hd = map_get(&x->dst, kd);
    x->sprev[i] = x->dprev[i] = CDEVS_CIX_NONE;
    x->snext[i] = hs, x->dnext[i] = hd;
    if (hs != CDEVS_CIX_NONE) x->sprev[hs] = i;
    if (hd != CDEVS_CIX_NONE) x->dprev[hd] = i;
    map_set(&x->src, ks, i);
    map_set(&x->dst, kd, i);
  }
  cdevs__free(a, keys, (size_t)n * sizeof *keys);
  return 0;
}

uint32_t cdevs__cix_from(const coupled_part *cp, int32_t src, int32_t port) {
  return map_get(&cp->cix->src, end_key(src, port));
}
uint32_t cdevs__cix_from_next(const coupled_part *cp, uint32_t i) { return cp->cix->snext[i]; }
uint32_t cdevs__cix_to(const coupled_part *cp, int32_t dst, int32_t port) {
  return map_get(&cp->cix->dst, end_key(dst, port));
}
uint32_t cdevs__cix_to_next(const coupled_part *cp, uint32_t i) { return cp->cix->dnext[i]; }
