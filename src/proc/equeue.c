/* SPDX-License-Identifier: MIT */
/* The entity stores the blocks share: a heap by key (queues, delays) and a list of
 * entities passed on at the next output of the same instant. */
#include "proc_impl.h"

static inline int before(const eitem *x, const eitem *y) {
  return x->key < y->key || (x->key == y->key && x->seq < y->seq);
}

int heap_push(const cdevs_alloc *al, eheap *h, const eitem *it) {
  /* The item is read one field at a time: callers fill it one field at a time just
     before, and a 16-byte load spanning two of those stores cannot be forwarded from
     them: it waited for them to reach the cache, half of the push's time in an M/M/1.
     The fields are read on both sides of the call that may grow the array, so that the
     compiler does not pair them into such loads either. */
  const double key = it->key, arrived = it->arrived;
  const uint64_t seq = it->seq;
  if (h->n == h->cap && CDEVS_GROW(al, h->a, h->cap, h->n + 1)) return -1;
  const double start = it->start;
  uint32_t i = h->n++;
  while (i > 0) {
    uint32_t up = (i - 1) / 2;
    const eitem *u = &h->a[up];
    if (!(key < u->key || (key == u->key && seq < u->seq))) break; /* before(), on the fields read */
    h->a[i] = *u;
    i = up;
  }
  eitem *slot = &h->a[i];
  slot->key = key;
  slot->seq = seq;
  slot->arrived = arrived;
  slot->start = start;
  slot->m = it->m;
  return 0;
}

eitem heap_pop(eheap *h) {
  eitem top = h->a[0], last = h->a[--h->n];
  uint32_t i = 0;
  for (;;) {
    uint32_t c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && before(&h->a[c + 1], &h->a[c])) c++;
    if (!before(&h->a[c], &last)) break;
    h->a[i] = h->a[c];
    i = c;
  }
  if (h->n) h->a[i] = last;
  return top;
}

static void emit_from(cdevs_ctx *cx, const eheap *h, uint32_t i, int port, double t) {
  if (i >= h->n || h->a[i].key > t) return;
  cdevs_value v = cdevs_msgval(h->a[i].m);
  cdevs_emit(cx, port, &v);
  emit_from(cx, h, 2 * i + 1, port, t);
  emit_from(cx, h, 2 * i + 2, port, t);
}

void heap_emit_due(cdevs_ctx *cx, const eheap *h, int port, double t) { emit_from(cx, h, 0, port, t); }

void heap_free(const cdevs_alloc *al, eheap *h) {
  for (uint32_t i = 0; i < h->n; i++) cdevs_msg_release(h->a[i].m);
  CDEVS_FREEARR(al, h->a, h->cap);
}

int pass_push(cdevs_ctx *cx, const cdevs_alloc *al, pass *q, cdevs_msg *m, int port) {
  if (q->n == q->cap && CDEVS_GROW(al, q->a, q->cap, q->n + 1)) {
    cdevs_ctx_fail(cx, "out of memory");
    return -1;
  }
  q->a[q->n].m = cdevs_msg_retain(m);
  q->a[q->n].port = port;
  q->n++;
  return 0;
}

void pass_emit(cdevs_ctx *cx, const pass *q) {
  for (uint32_t i = 0; i < q->n; i++) {
    cdevs_value v = cdevs_msgval(q->a[i].m);
    cdevs_emit(cx, q->a[i].port, &v);
  }
}

void pass_clear(pass *q) {
  for (uint32_t i = 0; i < q->n; i++) cdevs_msg_release(q->a[i].m);
  q->n = 0;
}

void pass_free(const cdevs_alloc *al, pass *q) {
  pass_clear(q);
  CDEVS_FREEARR(al, q->a, q->cap);
}
