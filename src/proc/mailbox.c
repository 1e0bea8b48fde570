/* SPDX-License-Identifier: MIT */
/* Mailboxes: a ring of message references in order of arrival, so that fetching the
 * oldest (the common case, a FIFO queue) and storing are O(1). */
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
