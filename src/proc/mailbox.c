/* SPDX-License-Identifier: MIT */
/* Mailboxes: a ring of message references in order of arrival, so that fetching the
 * oldest (the common case, a FIFO queue) and storing are O(1). Pipes: two mailboxes per
 * end of a bidirectional connector, with a copy per receiver when it broadcasts. */
#include <math.h>
#include <string.h>

#include "cdevs/mailbox.h"
#include "core/alloc_impl.h"

/* A zeroed mailbox has no allocator yet: it takes the C library's on first use. */
static const cdevs_alloc *alloc_of(cdevs_mailbox *mb) {
  if (!mb->alloc.realloc) mb->alloc = *cdevs_alloc_default();
  return &mb->alloc;
}

static inline uint32_t slot(const cdevs_mailbox *mb, uint32_t i) {
  uint64_t k = (uint64_t)mb->head + i; /* head < cap and i <= cap: below 2·cap */
  return (uint32_t)(k >= mb->cap ? k - mb->cap : k);
}

/* Room for `more` messages beyond those stored; -1 leaves the mailbox as it was. */
static int reserve(cdevs_mailbox *mb, size_t more) {
  if (more > UINT32_MAX - mb->n) return -1;
  uint32_t need = mb->n + (uint32_t)more, old = mb->cap;
  if (need <= old) return 0;
  if (CDEVS_GROW(alloc_of(mb), mb->ring, mb->cap, need)) return -1;
  /* The ring wrapped past the old end: its start, ring[0 .. wrapped), goes on after
     the old end (the capacity at least doubled, so it fits). */
  if (mb->head + mb->n > old) {
    uint32_t wrapped = mb->head + mb->n - old;
    memcpy(mb->ring + old, mb->ring, (size_t)wrapped * sizeof *mb->ring);
  }
  return 0;
}

static void push(cdevs_mailbox *mb, cdevs_msg *m) {
  mb->ring[slot(mb, mb->n)] = cdevs_msg_retain(m);
  mb->n++;
  mb->arrived++;
}

cdevs_status cdevs_mailbox_init(cdevs_mailbox *mb, const cdevs_alloc *a) {
  if (!mb) return CDEVS_EINVAL;
  memset(mb, 0, sizeof *mb);
  mb->alloc = a ? *a : *cdevs_alloc_default();
  return CDEVS_OK;
}

void cdevs_mailbox_fini(cdevs_mailbox *mb) {
  if (!mb) return;
  for (uint32_t i = 0; i < mb->n; i++) cdevs_msg_release(mb->ring[slot(mb, i)]);
  cdevs_alloc a = *alloc_of(mb);
  CDEVS_FREEARR(&a, mb->ring, mb->cap);
  memset(mb, 0, sizeof *mb);
  mb->alloc = a;
}

cdevs_status cdevs_mailbox_put(cdevs_mailbox *mb, cdevs_msg *m) {
  if (!mb || !m) return CDEVS_EINVAL;
  if (reserve(mb, 1)) return CDEVS_ENOMEM;
  push(mb, m);
  return CDEVS_OK;
}

static int carries_msg(const cdevs_value *v) {
  return (v->kind == CDEVS_MSG || v->kind == CDEVS_ARRAY) && v->u.msg;
}

cdevs_status cdevs_mailbox_take_bag(cdevs_mailbox *mb, const cdevs_bag *x, int port) {
  if (!mb || !x || (x->n && !x->events)) return CDEVS_EINVAL;
  /* Checked and made room for first, so that a failure stores nothing. */
  size_t k = 0;
  for (size_t i = 0; i < x->n; i++) {
    const cdevs_event *ev = &x->events[i];
    if (port != CDEVS_MAILBOX_ALL_PORTS && ev->port != port) continue;
    if (!ev->value || !carries_msg(ev->value)) return CDEVS_EKIND;
    k++;
  }
  if (reserve(mb, k)) return CDEVS_ENOMEM;
  for (size_t i = 0; i < x->n; i++)
    if (port == CDEVS_MAILBOX_ALL_PORTS || x->events[i].port == port) push(mb, x->events[i].value->u.msg);
  return CDEVS_OK;
}

size_t cdevs_mailbox_count(const cdevs_mailbox *mb) { return mb ? mb->n : 0; }

uint64_t cdevs_mailbox_arrivals(const cdevs_mailbox *mb) { return mb ? mb->arrived : 0; }

uint64_t cdevs_mailbox_check(cdevs_mailbox *mb) {
  if (!mb) return 0;
  uint64_t fresh = mb->arrived - mb->checked;
  mb->checked = mb->arrived;
  return fresh;
}

size_t cdevs_mailbox_new_any(cdevs_mailbox *const *mbs, size_t n) {
  for (size_t i = 0; mbs && i < n; i++)
    if (mbs[i] && mbs[i]->arrived != mbs[i]->checked) return i + 1;
  return 0;
}

cdevs_msg *cdevs_mailbox_at(const cdevs_mailbox *mb, size_t i) {
  if (!mb || i >= mb->n) return NULL;
  return mb->ring[slot(mb, (uint32_t)i)];
}

/* The position (from the oldest) of the first message select takes, or n. */
static uint32_t find(const cdevs_mailbox *mb, cdevs_mailbox_select select, void *ud) {
  if (!select) return 0;
  uint32_t i = 0;
  while (i < mb->n && !select(mb->ring[slot(mb, i)], ud)) i++;
  return i;
}

cdevs_msg *cdevs_mailbox_read(const cdevs_mailbox *mb, cdevs_mailbox_select select, void *ud) {
  if (!mb || !mb->n) return NULL;
  uint32_t i = find(mb, select, ud);
  return i < mb->n ? mb->ring[slot(mb, i)] : NULL;
}

cdevs_msg *cdevs_mailbox_get(cdevs_mailbox *mb, cdevs_mailbox_select select, void *ud) {
  if (!mb || !mb->n) return NULL;
  uint32_t i = find(mb, select, ud);
  if (i >= mb->n) return NULL;
  cdevs_msg *m = mb->ring[slot(mb, i)];
  /* Close the gap from the nearer end: the older ones move up, or the newer ones down. */
  if (i < mb->n / 2) {
    for (uint32_t j = i; j > 0; j--) mb->ring[slot(mb, j)] = mb->ring[slot(mb, j - 1)];
    mb->head = slot(mb, 1);
  } else {
    for (uint32_t j = i; j + 1 < mb->n; j++) mb->ring[slot(mb, j)] = mb->ring[slot(mb, j + 1)];
  }
  mb->n--;
  if (!mb->n) mb->head = 0;
  return m;
}

int cdevs_mailbox_by_tag(cdevs_msg *m, void *ud) { return ud && cdevs_msg_tag(m) == *(const int32_t *)ud; }

/* ---- pipes ----------------------------------------------------------------------------- */

/* Releases every message and keeps the storage (an outbox is refilled at once). */
static void drop_all(cdevs_mailbox *mb) {
  for (uint32_t i = 0; i < mb->n; i++) cdevs_msg_release(mb->ring[slot(mb, i)]);
  mb->n = 0;
  mb->head = 0;
}

cdevs_status cdevs_pipe_connect(cdevs_model *parent, cdevs_model *a, const char *a_port, cdevs_model *b,
                                const char *b_port) {
  cdevs_status there = cdevs_connect(parent, a, a_port, b, b_port);
  cdevs_status back = cdevs_connect(parent, b, b_port, a, a_port);
  return there ? there : back;
}

cdevs_status cdevs_pipe_join(cdevs_model *parent, cdevs_model *const *ends, size_t n, const char *port) {
  if (!parent) return CDEVS_EINVAL;
  if (!ends || !port) {
    cdevs_model_fail(parent, CDEVS_EINVAL, "cdevs_pipe_join needs the ends and a port name");
    return CDEVS_EINVAL;
  }
  if (n < 2) {
    cdevs_model_fail(parent, CDEVS_EINVAL, "pipe '%s': a pipe joins at least two ends (got %zu)", port, n);
    return CDEVS_EINVAL;
  }
  cdevs_status first = CDEVS_OK;
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < n; j++) {
      if (i == j) continue;
      cdevs_status st = cdevs_connect(parent, ends[i], port, ends[j], port);
      if (!first) first = st;
    }
  return first;
}

static int carries_msg_kind(cdevs_kind k) { return k == CDEVS_MSG || k == CDEVS_ANY; }

cdevs_status cdevs_pipe_open(cdevs_pipe_end *end, cdevs_ctx *cx, const char *port, cdevs_msg_copy_fn copy,
                             void *ud) {
  if (!cx) return CDEVS_EINVAL;
  if (!end || !port) {
    cdevs_ctx_fail(cx, "cdevs_pipe_open needs an end and a port name");
    return CDEVS_EINVAL;
  }
  const cdevs_model *m = cdevs_ctx_model(cx);
  int in = cdevs_port_find(m, CDEVS_IN, port), out = cdevs_port_find(m, CDEVS_OUT, port);
  if (in < 0 || out < 0) {
    cdevs_ctx_fail(cx, "pipe '%s' needs an input and an output port of that name", port);
    return CDEVS_ENAME;
  }
  if (!carries_msg_kind(cdevs_port_kind(m, CDEVS_IN, in)) || !carries_msg_kind(cdevs_port_kind(m, CDEVS_OUT, out))) {
    cdevs_ctx_fail(cx, "pipe '%s' carries messages: its ports must be of kind msg or any", port);
    return CDEVS_EKIND;
  }
  uint32_t receivers = cdevs_ctx_fanout(cx, out);
  if (!receivers) {
    cdevs_ctx_fail(cx, "pipe '%s' reaches no other end: what it sent would vanish", port);
    return CDEVS_ESTATE;
  }
  const cdevs_alloc *a = cdevs_ctx_alloc(cx);
  memset(end, 0, sizeof *end);
  cdevs_mailbox_init(&end->inbox, a);
  cdevs_mailbox_init(&end->outbox, a);
  end->alloc = *a;
  end->copy = copy;
  end->copy_ud = ud;
  end->in_port = in;
  end->out_port = out;
  end->receivers = receivers;
  return CDEVS_OK;
}

void cdevs_pipe_close(cdevs_pipe_end *end) {
  if (!end) return;
  cdevs_mailbox_fini(&end->inbox);
  cdevs_mailbox_fini(&end->outbox);
}

cdevs_status cdevs_pipe_put(cdevs_pipe_end *end, cdevs_msg *m) { return end ? cdevs_mailbox_put(&end->outbox, m) : CDEVS_EINVAL; }

double cdevs_pipe_ta(const cdevs_pipe_end *end) { return end && end->outbox.n ? 0.0 : INFINITY; }

void cdevs_pipe_flush(cdevs_ctx *cx, const cdevs_pipe_end *end) {
  if (!cx || !end) return;
  /* As CDEVS_MSG whatever the message: an array is a message too, and the ports say msg. */
  for (uint32_t i = 0; i < end->outbox.n; i++) {
    cdevs_value v = cdevs_msgval(end->outbox.ring[slot(&end->outbox, i)]);
    cdevs_emit(cx, end->out_port, &v);
  }
}

void cdevs_pipe_sent(cdevs_pipe_end *end) {
  if (end) drop_all(&end->outbox);
}

/* The copy a receiver of a broadcast keeps, with the original's tag; NULL if it cannot
 * be made (out of memory). */
static cdevs_msg *copy_of(cdevs_pipe_end *end, cdevs_msg *m) {
  cdevs_msg *c = NULL;
  if (end->copy) {
    c = end->copy(m, &end->alloc, end->copy_ud);
  } else {
    size_t n;
    const double *src = cdevs_array_data(m, &n);
    c = src ? cdevs_array_new(&end->alloc, n) : NULL;
    if (c && n) memcpy(cdevs_array_data(c, NULL), src, n * sizeof *src);
  }
  if (c) cdevs_msg_set_tag(c, cdevs_msg_tag(m));
  return c;
}

cdevs_status cdevs_pipe_take(cdevs_pipe_end *end, const cdevs_bag *x) {
  if (!end || !x || (x->n && !x->events)) return CDEVS_EINVAL;
  if (end->receivers <= 1) return cdevs_mailbox_take_bag(&end->inbox, x, end->in_port);
  /* A broadcast: checked and made room for first; the copies are pushed as they are
   * made and taken back off the tail if one fails, so a failure stores nothing. */
  size_t k = 0;
  for (size_t i = 0; i < x->n; i++) {
    const cdevs_event *ev = &x->events[i];
    if (ev->port != end->in_port) continue;
    if (!ev->value || !carries_msg(ev->value)) return CDEVS_EKIND;
    if (!end->copy && !cdevs_array_data(ev->value->u.msg, NULL)) return CDEVS_EKIND;
    k++;
  }
  cdevs_mailbox *mb = &end->inbox;
  if (reserve(mb, k)) return CDEVS_ENOMEM;
  uint32_t pushed = 0;
  for (size_t i = 0; i < x->n && pushed < k; i++) {
    if (x->events[i].port != end->in_port) continue;
    cdevs_msg *c = copy_of(end, x->events[i].value->u.msg);
    if (!c) {
      for (; pushed > 0; pushed--) {
        mb->n--;
        mb->arrived--;
        cdevs_msg_release(mb->ring[slot(mb, mb->n)]);
      }
      if (!mb->n) mb->head = 0;
      return CDEVS_ENOMEM;
    }
    push(mb, c);
    cdevs_msg_release(c); /* the inbox's reference is the only one */
    pushed++;
  }
  return CDEVS_OK;
}

cdevs_mailbox *cdevs_pipe_inbox(cdevs_pipe_end *end) { return end ? &end->inbox : NULL; }
uint32_t cdevs_pipe_receivers(const cdevs_pipe_end *end) { return end ? end->receivers : 0; }
size_t cdevs_pipe_pending(const cdevs_pipe_end *end) { return end ? end->outbox.n : 0; }
