/* SPDX-License-Identifier: MIT */
/* Mailboxes (DEVSLib's messages proposal, seed section 3.2): stores of reference-counted
 * messages that persist across instants, read or fetched by a selection predicate. */
#ifndef CDEVS_MAILBOX_H
#define CDEVS_MAILBOX_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"
#include "model.h"
#include "status.h"
#include "value.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A mailbox holds messages in order of arrival until they are fetched. A bag lives only
 * for one δext; a mailbox keeps what it was given across instants, which is what the
 * seed's mailbox is: "received messages have to be stored temporarily in the mailbox,
 * until they are read".
 *
 * The structure is public so it can be embedded (in a model's state, or in a struct
 * several models share); its fields are private. A zeroed cdevs_mailbox is an empty
 * mailbox on the C library's allocator, so one in a model's state (which the engine
 * zeroes) works without cdevs_mailbox_init; call init to choose the allocator.
 *
 * Ownership: the mailbox holds one reference to each message it stores and releases
 * them at cdevs_mailbox_fini, whoever still holds others. Whoever embeds the mailbox
 * calls fini: a model in its fini, or, for a mailbox shared by several models (a
 * pointer to it in their parameters), its owner after the last simulator using it is
 * freed. Messages carry their own allocator, so they may outlive the simulator that
 * made them, and the mailbox may too.
 *
 * Two stages: messages sent at one instant (by couplings or cdevs_send) are all in the
 * receiver's bag before any transition runs; cdevs_mailbox_take_bag stores a whole bag
 * at once, so everything sent to a model at an instant is in its mailbox before it
 * reads the first one. A shared mailbox that models fill directly in their transitions
 * (cdevs_mailbox_put) has no such guarantee within an instant: the transitions of one
 * instant run in an order the model must not depend on.
 *
 * Not thread-safe: one simulator (or one thread) at a time.
 */
typedef struct cdevs_mailbox {
  cdevs_alloc alloc;
  cdevs_msg **ring; /* cap slots; message i (0 = oldest) is ring[(head + i) % cap] */
  uint32_t head, n, cap;
  uint64_t arrived; /* messages ever stored */
  uint64_t checked; /* `arrived` at the last cdevs_mailbox_check */
} cdevs_mailbox;

/* A selection predicate: nonzero for a message wanted. It must not change the mailbox. */
typedef int (*cdevs_mailbox_select)(cdevs_msg *m, void *ud);

/* Makes mb an empty mailbox allocating through a (copied; NULL: the C library).
 * Allocates nothing. CDEVS_EINVAL if mb is NULL. */
cdevs_status cdevs_mailbox_init(cdevs_mailbox *mb, const cdevs_alloc *a);
/* Releases every message left and frees the storage; mb is then an empty mailbox on the
 * same allocator (its arrival count restarts at 0). NULL is accepted. */
void cdevs_mailbox_fini(cdevs_mailbox *mb);

/* DEVSLib's putmsg: stores m after the others and takes a reference to it (the caller
 * keeps its own). O(1) amortized. CDEVS_EINVAL if mb or m is NULL, CDEVS_ENOMEM if the
 * storage cannot grow (m is then neither stored nor retained). */
cdevs_status cdevs_mailbox_put(cdevs_mailbox *mb, cdevs_msg *m);

/* Every port: the port argument of cdevs_mailbox_take_bag. */
#define CDEVS_MAILBOX_ALL_PORTS (-1)

/* Stores, in bag order, every message of the δext bag x that arrived on input `port`
 * (CDEVS_MAILBOX_ALL_PORTS: on any port); values of kind CDEVS_MSG and CDEVS_ARRAY
 * carry messages. All or nothing: CDEVS_EKIND if a value on that port carries no
 * message, CDEVS_ENOMEM if the storage cannot grow, CDEVS_EINVAL for a NULL mailbox
 * or bag; then nothing is stored. */
cdevs_status cdevs_mailbox_take_bag(cdevs_mailbox *mb, const cdevs_bag *x, int port);

/* DEVSLib's nummsg: the messages waiting (0 for NULL). */
size_t cdevs_mailbox_count(const cdevs_mailbox *mb);
/* Messages ever stored since init (or fini); it never decreases. A model sharing a
 * mailbox keeps its own copy of it to learn of arrivals without taking the others'. */
uint64_t cdevs_mailbox_arrivals(const cdevs_mailbox *mb);
/* DEVSLib's checkmsg: the messages that arrived since the previous check (since init
 * for the first), 0 if none. So it is true once after arrivals, then false until the
 * next; messages fetched meanwhile still count as arrivals. One notice per mailbox: of
 * several models sharing it, the first to check takes it (see cdevs_mailbox_arrivals).
 * 0 for NULL. */
uint64_t cdevs_mailbox_check(cdevs_mailbox *mb);

/* The i-th waiting message in order of arrival (0 is the oldest), borrowed, or NULL if
 * i >= count. */
cdevs_msg *cdevs_mailbox_at(const cdevs_mailbox *mb, size_t i);
/* DEVSLib's readmsg: the oldest message for which select(m, ud) holds (select NULL: the
 * oldest of all), left in the mailbox, borrowed: valid while it stays there (retain it
 * to keep it longer). NULL if none matches or mb is NULL. */
cdevs_msg *cdevs_mailbox_read(const cdevs_mailbox *mb, cdevs_mailbox_select select, void *ud);
/* DEVSLib's getmsg: as cdevs_mailbox_read, but the message is removed and the caller
 * owns the mailbox's reference (release it). Fetching the oldest is O(1); another one,
 * O(distance to the nearer end). */
cdevs_msg *cdevs_mailbox_get(cdevs_mailbox *mb, cdevs_mailbox_select select, void *ud);

/* A predicate selecting by tag (cdevs_msg_tag): ud points to the int32_t wanted.
 *   int32_t want = ORDER;  m = cdevs_mailbox_get(&mb, cdevs_mailbox_by_tag, &want); */
int cdevs_mailbox_by_tag(cdevs_msg *m, void *ud);

#ifdef __cplusplus
}
#endif
#endif
