/* SPDX-License-Identifier: MIT */
/* The indexed binary heap of next-event times; slots live in the engine, not in models. */
#ifndef CDEVS_HEAP_H
#define CDEVS_HEAP_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#define HEAP_NONE UINT32_MAX
#define HEAP_NOW (UINT32_MAX - 1) /* pos[id]: in the simulator's batch of one time (sim_impl.h) */

/* Keys are (t, id): equal times are ordered by model id, which is the select order,
   so the same model gives the same event order on every run (libuv does the same). */
typedef struct heap_entry {
  double t;
  uint32_t id;
} heap_entry;

typedef struct heap {
  heap_entry *e; /* capacity: number of models */
  uint32_t *pos; /* pos[id]: slot of id, or HEAP_NONE when passive */
  uint32_t n;
} heap;

static inline bool heap_less(const heap_entry *a, const heap_entry *b) {
  return a->t < b->t || (a->t == b->t && a->id < b->id);
}

static inline void heap_place(heap *h, uint32_t i, heap_entry x) {
  h->e[i] = x;
  h->pos[x.id] = i;
}

static inline void heap_sift_up(heap *h, uint32_t i, heap_entry x) {
  while (i > 0) {
    uint32_t p = (i - 1) / 2;
    if (!heap_less(&x, &h->e[p])) break;
    heap_place(h, i, h->e[p]);
    i = p;
  }
  heap_place(h, i, x);
}

static inline void heap_sift_down(heap *h, uint32_t i, heap_entry x) {
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && heap_less(&h->e[c + 1], &h->e[c])) c++;
    if (!heap_less(&h->e[c], &x)) break;
    heap_place(h, i, h->e[c]);
    i = c;
  }
  heap_place(h, i, x);
}

static inline void heap_remove_at(heap *h, uint32_t i) {
  uint32_t id = h->e[i].id;
  h->pos[id] = HEAP_NONE;
  if (--h->n == i) return;
  heap_entry last = h->e[h->n];
  if (i > 0 && heap_less(&last, &h->e[(i - 1) / 2]))
    heap_sift_up(h, i, last);
  else
    heap_sift_down(h, i, last);
}

/* Sets the next-event time of id: inserts, moves, or (t = INFINITY) removes it. */
static inline void heap_set(heap *h, uint32_t id, double t) {
  uint32_t i = h->pos[id];
  if (t == INFINITY) {
    if (i != HEAP_NONE) heap_remove_at(h, i);
    return;
  }
  heap_entry x = {t, id};
  if (i == HEAP_NONE) {
    heap_sift_up(h, h->n++, x);
  } else if (i > 0 && heap_less(&x, &h->e[(i - 1) / 2])) {
    heap_sift_up(h, i, x);
  } else {
    heap_sift_down(h, i, x);
  }
}

static inline double heap_min_time(const heap *h) { return h->n ? h->e[0].t : INFINITY; }

/* Removes and returns the id of the earliest entry (the heap must not be empty). */
static inline uint32_t heap_pop(heap *h) {
  uint32_t id = h->e[0].id;
  heap_remove_at(h, 0);
  return id;
}

#endif
