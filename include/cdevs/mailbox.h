/* SPDX-License-Identifier: MIT */
/* Mailboxes (DEVSLib's messages proposal, seed section 3.2): stores of reference-counted
 * messages that persist across instants, read or fetched by a selection predicate; and
 * pipes, mailboxes inside connectors (3.3), bidirectional, copying on broadcast. */
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

/* DEVSLib's newmsg(): whether any of a model's n mailboxes had arrivals since its last
 * check: 1 + the index of the first that did, 0 if none (NULL entries are skipped). It
 * takes no notice: cdevs_mailbox_check on that mailbox still reports its arrivals. */
size_t cdevs_mailbox_new_any(cdevs_mailbox *const *mbs, size_t n);

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

/* ---- Pipes: mailboxes inside connectors ------------------------------------------- */

/*
 * DEVSLib's mailboxes inside connectors (seed 3.3): "two mailboxes, inside connectors,
 * connected using a connect equation represent a bidirectional message communication
 * pipe ... A message sent to one end of the pipe will be transported to the opposite
 * end, and vice-versa. If more than two models are connected to the same pipe, a copy
 * of the message will be transported to each receiver."
 *
 * A pipe end is a connector of an atomic model: an input port and an output port of the
 * same name (kind CDEVS_MSG or CDEVS_ANY), and a cdevs_pipe_end in its state holding an
 * inbox (what the other ends sent) and an outbox (what it puts, until it is sent). The
 * connect equation is cdevs_pipe_connect or cdevs_pipe_join: couplings from every end
 * to every other, so a pipe is ordinary DEVS couplings (traced, flattened, one-to-many)
 * and an end may be a coupled model's port passed on inward. The model's part:
 *
 *   init    cdevs_pipe_open(&s->end, cx, "link", copy, ud)
 *   ta      min(its own, cdevs_pipe_ta(&s->end))      0 while something waits to go
 *   λ       cdevs_pipe_flush(cx, &s->end)            emits the outbox
 *   δint    cdevs_pipe_sent(&s->end) first            (δconf too) drops what λ emitted
 *   δext    cdevs_pipe_take(&s->end, x)               (δconf too) stores the arrivals
 *   any δ   cdevs_pipe_put(&s->end, m); cdevs_mailbox_get(cdevs_pipe_inbox(&s->end), …)
 *   fini    cdevs_pipe_close(&s->end)
 *
 * Timing: a message put in a transition at time t goes out at the next λ, at the same
 * time t, and is in the receivers' inboxes before any of them runs a transition at that
 * instant: everything sent through a pipe at an instant is stored before the first read,
 * in both directions at once.
 *
 * Copies: in a pipe of two, the receiving end stores the message itself, shared with the
 * sender as cdevs_mailbox_put shares it (change a message before putting it, not after).
 * In a pipe of three or more every message is a broadcast, and each receiving end stores
 * its own copy, so what one receiver changes, fetches or releases no other sees; the
 * sender's original is released when the instant ends. An end tells the two apart by its
 * own output's reach (cdevs_pipe_receivers): in a pipe every end reaches all the others,
 * so it reaches more than one exactly when the senders do. A copy is made by the end's
 * copy function, given the message and the simulation's allocator, and gets the
 * original's tag (cdevs_msg_tag). Without one, arrays of reals (cdevs_array_new) are
 * copied element by element, and any other message cannot be received by copy
 * (cdevs_pipe_take fails with CDEVS_EKIND).
 *
 * Ownership: the end holds one reference per message in its inbox and outbox and
 * releases them at cdevs_pipe_close, so a simulation ending (cdevs_sim_free runs fini)
 * with messages in its pipes leaks nothing.
 */

/* A copy of message m: a new message, one reference, allocated through a (keep a copy of
 * *a, not the pointer), whose payload equals m's and owns copies of what m's owns. NULL
 * if out of memory. The pipe sets the copy's tag. */
typedef cdevs_msg *(*cdevs_msg_copy_fn)(cdevs_msg *m, const cdevs_alloc *a, void *ud);

/* Public to be embedded in a model's state (zeroed there: closing it is then safe);
 * its fields are private. */
typedef struct cdevs_pipe_end {
  cdevs_mailbox inbox;  /* arrivals, in order */
  cdevs_mailbox outbox; /* put since the last λ */
  cdevs_msg_copy_fn copy;
  void *copy_ud;
  cdevs_alloc alloc;  /* the simulation's, for copies */
  int in_port, out_port;
  uint32_t receivers; /* input ports the output reaches */
} cdevs_pipe_end;

/* The connect equation of a pipe between a.a_port and b.b_port inside parent: couplings
 * a→b and b→a (each of a, b a child of parent or parent itself, whose port is then
 * passed on inward: an input feeding the child, the child feeding an output). Building
 * errors are recorded on the tree as cdevs_connect records them; the first is returned. */
cdevs_status cdevs_pipe_connect(cdevs_model *parent, cdevs_model *a, const char *a_port,
                                cdevs_model *b, const char *b_port);
/* A pipe joining n ends, all on a port called `port`: each end coupled to every other
 * (n·(n − 1) couplings), DEVSLib's connect of several connectors to one pipe. n >= 2
 * (CDEVS_EINVAL, recorded on parent, otherwise). */
cdevs_status cdevs_pipe_join(cdevs_model *parent, cdevs_model *const *ends, size_t n, const char *port);

/* In init: makes *end the end of the pipe on `port` of the model being initialised
 * (input and output ports of that name), with empty inbox and outbox on the simulation's
 * allocator; copy (NULL: arrays only) and ud make the copies of a broadcast.
 * CDEVS_ENAME if either port is missing, CDEVS_ESTATE if the output reaches no other
 * end (what it sent would vanish), CDEVS_EINVAL for NULL arguments; each with a message
 * on the simulation (cdevs_ctx_fail). Allocates nothing. */
cdevs_status cdevs_pipe_open(cdevs_pipe_end *end, cdevs_ctx *cx, const char *port, cdevs_msg_copy_fn copy,
                             void *ud);
/* Releases every message in the inbox and outbox and their storage. NULL is accepted;
 * so is an end that was zeroed and never opened. */
void cdevs_pipe_close(cdevs_pipe_end *end);

/* DEVSLib's putmsg at this end: m goes to the other ends at the next λ (the end takes a
 * reference; the caller keeps its own). CDEVS_EINVAL for NULL, CDEVS_ENOMEM (nothing
 * stored or retained). */
cdevs_status cdevs_pipe_put(cdevs_pipe_end *end, cdevs_msg *m);
/* 0 while messages wait in the outbox, INFINITY otherwise: take the minimum with the
 * model's own time advance. */
double cdevs_pipe_ta(const cdevs_pipe_end *end);
/* In λ: emits every message of the outbox, in the order put. */
void cdevs_pipe_flush(cdevs_ctx *cx, const cdevs_pipe_end *end);
/* In δint and δconf, before anything is put: releases the messages λ emitted. */
void cdevs_pipe_sent(cdevs_pipe_end *end);
/* In δext and δconf: stores the messages of bag x that arrived on the end's input port,
 * in bag order, each copied if the pipe broadcasts (above). All or nothing: CDEVS_EKIND
 * if a value there carries no message or cannot be copied, CDEVS_ENOMEM if storage or a
 * copy cannot be made, CDEVS_EINVAL for NULL; then nothing is stored. */
cdevs_status cdevs_pipe_take(cdevs_pipe_end *end, const cdevs_bag *x);

/* The inbox, for cdevs_mailbox_check, _count, _read, _get. */
cdevs_mailbox *cdevs_pipe_inbox(cdevs_pipe_end *end);
/* How many ends the output reaches (1 in a pipe of two); the end copies when > 1. */
uint32_t cdevs_pipe_receivers(const cdevs_pipe_end *end);
/* Messages put and not yet released by cdevs_pipe_sent. */
size_t cdevs_pipe_pending(const cdevs_pipe_end *end);

#ifdef __cplusplus
}
#endif
#endif
