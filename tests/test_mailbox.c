/* SPDX-License-Identifier: MIT */
/* Messages and mailboxes (DEVSLib's proposal, seed section 3.2): every operation against
 * a plain-array reference, the two-stage semantics in a simulation, a shared mailbox,
 * the seed's Figure 7 (a SIMAN single-queue system in messages) against M/M/1, and pipes
 * (mailboxes inside connectors, 3.3): requests and replies both ways at once, a
 * broadcast giving each receiver its own copy, nothing leaked at the end or when out of
 * memory. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/cdevs.h"
#include "check.h"
#include "test_util.h"
#include "proc/proc_impl.h" /* cdevs__ta_until: the Process block's rounding of ta */

/* ---- counted messages ---------------------------------------------------------------- */

/* Payload destructions, so a test sees exactly when the last reference went. */
static long destroyed;
static void count_destroy(void *payload) {
  (void)payload;
  destroyed++;
}
static const cdevs_msg_type counted = {"counted", count_destroy};

/* A counted message with tag `tag` and an int payload `v`. */
static cdevs_msg *mk(const cdevs_alloc *a, int32_t tag, int v) {
  cdevs_msg *m = cdevs_msg_new(a, &counted, sizeof(int));
  if (!m) abort();
  cdevs_msg_set_tag(m, tag);
  *(int *)cdevs_msg_data(m) = v;
  return m;
}

static int payload(cdevs_msg *m) { return m ? *(int *)cdevs_msg_data(m) : -1; }

/* ---- an allocator that counts and can be told to fail --------------------------------- */

typedef struct test_alloc {
  long live;      /* blocks allocated, not freed */
  long fail_from; /* allocations (and growths) from this one on fail; < 0: never */
  long calls;
} test_alloc;

static void *test_realloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  test_alloc *t = ud;
  (void)osize;
  if (nsize == 0) {
    if (ptr) t->live--;
    free(ptr);
    return NULL;
  }
  if (t->fail_from >= 0 && t->calls >= t->fail_from) return NULL;
  t->calls++;
  void *p = realloc(ptr, nsize);
  if (p && !ptr) t->live++;
  return p;
}

/* ---- unit tests ------------------------------------------------------------------------- */

static void test_tags(void) {
  cdevs_msg *m = cdevs_msg_new(NULL, &counted, 0); /* no payload at all: the tag is in the header */
  CHECK(m != NULL);
  CHECK_EQ_INT(cdevs_msg_tag(m), 0);
  cdevs_msg_set_tag(m, 7);
  CHECK_EQ_INT(cdevs_msg_tag(m), 7);
  cdevs_msg_set_tag(m, INT32_MIN);
  CHECK_EQ_INT(cdevs_msg_tag(m), INT32_MIN);
  CHECK_EQ_INT(cdevs_msg_tag(NULL), 0);
  cdevs_msg_set_tag(NULL, 3); /* nothing to set: no crash */
  cdevs_msg_release(m);

  /* The tag is independent of the content and of the message type (seed 4.1). */
  cdevs_msg *a = mk(NULL, 5, 0);
  memset(cdevs_msg_data(a), 0xff, sizeof(int));
  CHECK_EQ_INT(cdevs_msg_tag(a), 5);
  cdevs_msg_set_tag(a, 6);
  CHECK_EQ_INT(payload(a), -1); /* all bits set */
  CHECK(cdevs_msg_type_of(a) == &counted);
  cdevs_msg_release(a);
  cdevs_msg *arr = cdevs_array_new(NULL, 3);
  cdevs_msg_set_tag(arr, 9);
  size_t n = 0;
  CHECK(cdevs_array_data(arr, &n) != NULL);
  CHECK_EQ_INT(n, 3);
  CHECK_EQ_INT(cdevs_msg_tag(arr), 9);
  cdevs_msg_release(arr);
}

static int payload_over(cdevs_msg *m, void *ud) { return payload(m) > *(int *)ud; }

static void test_order_and_selection(void) {
  destroyed = 0;
  cdevs_mailbox mb;
  CHECK(cdevs_mailbox_init(&mb, NULL) == CDEVS_OK);
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 0);
  CHECK(cdevs_mailbox_read(&mb, NULL, NULL) == NULL);
  CHECK(cdevs_mailbox_get(&mb, NULL, NULL) == NULL);

  /* tags 1 2 1 3 2, payloads 10 11 12 13 14 */
  const int32_t tags[] = {1, 2, 1, 3, 2};
  cdevs_msg *m[5];
  for (int i = 0; i < 5; i++) {
    m[i] = mk(NULL, tags[i], 10 + i);
    CHECK(cdevs_mailbox_put(&mb, m[i]) == CDEVS_OK);
    CHECK_EQ_INT(cdevs_msg_refs(m[i]), 2); /* the caller's and the mailbox's */
    cdevs_msg_release(m[i]);              /* the mailbox keeps it alive */
  }
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 5);
  CHECK_EQ_INT(destroyed, 0);
  for (int i = 0; i < 5; i++) CHECK(cdevs_mailbox_at(&mb, (size_t)i) == m[i]);
  CHECK(cdevs_mailbox_at(&mb, 5) == NULL);

  /* read: the oldest (of a tag), borrowed, left in place */
  CHECK(cdevs_mailbox_read(&mb, NULL, NULL) == m[0]);
  int32_t want = 2;
  CHECK(cdevs_mailbox_read(&mb, cdevs_mailbox_by_tag, &want) == m[1]);
  CHECK(cdevs_mailbox_read(&mb, cdevs_mailbox_by_tag, &want) == m[1]); /* still there */
  CHECK_EQ_INT(cdevs_msg_refs(m[1]), 1);
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 5);
  want = 9;
  CHECK(cdevs_mailbox_read(&mb, cdevs_mailbox_by_tag, &want) == NULL);
  CHECK(cdevs_mailbox_get(&mb, cdevs_mailbox_by_tag, &want) == NULL);
  CHECK(cdevs_mailbox_read(&mb, cdevs_mailbox_by_tag, NULL) == NULL); /* no tag given: nothing */
  int over = 12;
  CHECK(cdevs_mailbox_read(&mb, payload_over, &over) == m[3]);

  /* get: the first of tag 2 in order of arrival, removed, the reference handed over */
  want = 2;
  cdevs_msg *g = cdevs_mailbox_get(&mb, cdevs_mailbox_by_tag, &want);
  CHECK(g == m[1]);
  CHECK_EQ_INT(cdevs_msg_refs(g), 1);
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 4);
  cdevs_msg_release(g);
  CHECK_EQ_INT(destroyed, 1);
  g = cdevs_mailbox_get(&mb, cdevs_mailbox_by_tag, &want);
  CHECK(g == m[4]);
  cdevs_msg_release(g);
  CHECK(cdevs_mailbox_get(&mb, cdevs_mailbox_by_tag, &want) == NULL);
  /* what is left keeps its order: 10, 12, 13 */
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 3);
  CHECK_EQ_INT(payload(cdevs_mailbox_at(&mb, 0)), 10);
  CHECK_EQ_INT(payload(cdevs_mailbox_at(&mb, 1)), 12);
  CHECK_EQ_INT(payload(cdevs_mailbox_at(&mb, 2)), 13);
  g = cdevs_mailbox_get(&mb, NULL, NULL);
  CHECK_EQ_INT(payload(g), 10);
  cdevs_msg_release(g);
  CHECK_EQ_INT(destroyed, 3);

  /* leftovers are released by fini, and only then */
  cdevs_mailbox_fini(&mb);
  CHECK_EQ_INT(destroyed, 5);
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 0);
  /* after fini the mailbox is empty and usable again */
  cdevs_msg *again = mk(NULL, 0, 1);
  CHECK(cdevs_mailbox_put(&mb, again) == CDEVS_OK);
  cdevs_msg_release(again);
  CHECK_EQ_INT(cdevs_mailbox_arrivals(&mb), 1);
  cdevs_mailbox_fini(&mb);
  CHECK_EQ_INT(destroyed, 6);
}

static void test_check(void) {
  cdevs_mailbox mb;
  cdevs_mailbox_init(&mb, NULL);
  CHECK_EQ_INT(cdevs_mailbox_check(&mb), 0);
  for (int i = 0; i < 2; i++) {
    cdevs_msg *m = mk(NULL, 0, i);
    cdevs_mailbox_put(&mb, m);
    cdevs_msg_release(m);
  }
  CHECK_EQ_INT(cdevs_mailbox_check(&mb), 2); /* true once after arrivals */
  CHECK_EQ_INT(cdevs_mailbox_check(&mb), 0); /* then false */
  cdevs_msg *m = mk(NULL, 0, 2);
  cdevs_mailbox_put(&mb, m);
  cdevs_msg_release(m);
  cdevs_msg_release(cdevs_mailbox_get(&mb, NULL, NULL));
  cdevs_msg_release(cdevs_mailbox_get(&mb, NULL, NULL));
  cdevs_msg_release(cdevs_mailbox_get(&mb, NULL, NULL));
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 0);
  CHECK_EQ_INT(cdevs_mailbox_check(&mb), 1); /* an arrival fetched since still counts */
  CHECK_EQ_INT(cdevs_mailbox_arrivals(&mb), 3);
  /* newmsg(): an arrival in any of a model's mailboxes, found without taking the
     mailbox's own notice */
  cdevs_mailbox other;
  cdevs_mailbox_init(&other, NULL);
  cdevs_mailbox *all[3] = {&mb, NULL, &other};
  CHECK_EQ_INT(cdevs_mailbox_new_any(all, 3), 0);
  m = mk(NULL, 0, 3);
  cdevs_mailbox_put(&other, m);
  cdevs_msg_release(m);
  CHECK_EQ_INT(cdevs_mailbox_new_any(all, 3), 3);
  CHECK_EQ_INT(cdevs_mailbox_new_any(all, 3), 3); /* still: nothing was checked */
  CHECK_EQ_INT(cdevs_mailbox_new_any(all, 2), 0); /* not among the first two */
  CHECK_EQ_INT(cdevs_mailbox_check(&other), 1);
  CHECK_EQ_INT(cdevs_mailbox_new_any(all, 3), 0);
  CHECK_EQ_INT(cdevs_mailbox_new_any(NULL, 3), 0);
  cdevs_mailbox_fini(&other);
  cdevs_mailbox_fini(&mb);
}

/* The ring wraps past its end and then grows while wrapped: the order survives. */
static void test_wrap(void) {
  cdevs_mailbox mb;
  cdevs_mailbox_init(&mb, NULL);
  int next = 0, expect = 0, bad = 0;
  for (int i = 0; i < 8; i++) { /* fills the first 8 slots */
    cdevs_msg *m = mk(NULL, 0, next++);
    cdevs_mailbox_put(&mb, m);
    cdevs_msg_release(m);
  }
  for (int i = 0; i < 5; i++) { /* the oldest five go: the rest sit in slots 5..7 */
    cdevs_msg *g = cdevs_mailbox_get(&mb, NULL, NULL);
    bad += payload(g) != expect++;
    cdevs_msg_release(g);
  }
  for (int i = 0; i < 14; i++) { /* 5 wrap into slots 0..4, then two growths */
    cdevs_msg *m = mk(NULL, 0, next++);
    cdevs_mailbox_put(&mb, m);
    cdevs_msg_release(m);
  }
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 17);
  for (size_t i = 0; i < 17; i++) bad += payload(cdevs_mailbox_at(&mb, i)) != 5 + (int)i;
  cdevs_msg *g;
  while ((g = cdevs_mailbox_get(&mb, NULL, NULL))) {
    bad += payload(g) != expect++;
    cdevs_msg_release(g);
  }
  CHECK_EQ_INT(bad, 0);
  CHECK_EQ_INT(expect, 22);
  cdevs_mailbox_fini(&mb);
}

/* Random puts, reads and gets (oldest, by tag, by index) against a plain array with
 * memmove: order, selection and counts through many growths and wrap-arounds. */
static void test_against_array(void) {
  destroyed = 0;
  test_alloc ta = {0, -1, 0};
  cdevs_alloc al = {test_realloc, &ta};
  cdevs_mailbox mb;
  cdevs_mailbox_init(&mb, &al);
  enum { CAP = 4096, OPS = 40000 };
  static cdevs_msg *ref[CAP];
  size_t n = 0;
  uint64_t x = 88172645463325252u; /* xorshift64 */
  long made = 0, bad = 0;
  for (int op = 0; op < OPS; op++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    unsigned r = (unsigned)(x % 100);
    int32_t tag = (int32_t)((x >> 20) % 4);
    if (r < 48 && n < CAP) { /* put, a bit more often than get: the ring grows and wraps */
      cdevs_msg *m = mk(&al, tag, (int)made++);
      if (cdevs_mailbox_put(&mb, m) != CDEVS_OK) bad++;
      cdevs_msg_release(m);
      ref[n++] = m;
    } else if (r < 60) { /* read by tag */
      size_t i = 0;
      while (i < n && cdevs_msg_tag(ref[i]) != tag) i++;
      if (cdevs_mailbox_read(&mb, cdevs_mailbox_by_tag, &tag) != (i < n ? ref[i] : NULL)) bad++;
    } else if (r < 80) { /* get the oldest */
      cdevs_msg *g = cdevs_mailbox_get(&mb, NULL, NULL);
      if (g != (n ? ref[0] : NULL)) bad++;
      if (n) memmove(ref, ref + 1, (n - 1) * sizeof *ref), n--;
      cdevs_msg_release(g);
    } else { /* get by tag: from anywhere, near either end */
      size_t i = 0;
      while (i < n && cdevs_msg_tag(ref[i]) != tag) i++;
      cdevs_msg *g = cdevs_mailbox_get(&mb, cdevs_mailbox_by_tag, &tag);
      if (g != (i < n ? ref[i] : NULL)) bad++;
      if (i < n) memmove(ref + i, ref + i + 1, (n - i - 1) * sizeof *ref), n--;
      cdevs_msg_release(g);
    }
    if (cdevs_mailbox_count(&mb) != n) bad++;
  }
  for (size_t i = 0; i < n; i++)
    if (cdevs_mailbox_at(&mb, i) != ref[i]) bad++;
  CHECK_EQ_INT(bad, 0);
  CHECK(n > 100); /* the walk did fill it */
  CHECK_EQ_INT(cdevs_mailbox_arrivals(&mb), made);
  CHECK_EQ_INT(destroyed, made - (long)n);
  cdevs_mailbox_fini(&mb);
  CHECK_EQ_INT(destroyed, made);
  CHECK_EQ_INT(ta.live, 0); /* every block through the given allocator, all freed */
}

/* A bag built by hand: ports 0 and 1, messages and an integer. */
static void test_take_bag(void) {
  destroyed = 0;
  cdevs_msg *a = mk(NULL, 1, 1), *b = mk(NULL, 2, 2), *c = mk(NULL, 3, 3);
  cdevs_value va = cdevs_msgval(a), vb = cdevs_msgval(b), vc = cdevs_arrayval(c), vi = cdevs_int(4);
  cdevs_event ev[] = {{0, &va}, {1, &vb}, {0, &vc}, {2, &vi}};
  cdevs_bag bag = {ev, 4};
  cdevs_mailbox mb;
  cdevs_mailbox_init(&mb, NULL);
  CHECK(cdevs_mailbox_take_bag(&mb, &bag, 0) == CDEVS_OK);
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 2);
  CHECK(cdevs_mailbox_at(&mb, 0) == a);
  CHECK(cdevs_mailbox_at(&mb, 1) == c); /* an array value carries a message too */
  CHECK_EQ_INT(cdevs_mailbox_check(&mb), 2);
  CHECK(cdevs_mailbox_take_bag(&mb, &bag, 1) == CDEVS_OK);
  CHECK(cdevs_mailbox_at(&mb, 2) == b);
  /* an integer on the port: refused, and nothing of the bag stored */
  CHECK(cdevs_mailbox_take_bag(&mb, &bag, 2) == CDEVS_EKIND);
  CHECK(cdevs_mailbox_take_bag(&mb, &bag, CDEVS_MAILBOX_ALL_PORTS) == CDEVS_EKIND);
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 3);
  cdevs_bag three = {ev, 3};
  CHECK(cdevs_mailbox_take_bag(&mb, &three, CDEVS_MAILBOX_ALL_PORTS) == CDEVS_OK);
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 6);
  CHECK(cdevs_mailbox_at(&mb, 3) == a && cdevs_mailbox_at(&mb, 4) == b && cdevs_mailbox_at(&mb, 5) == c);
  CHECK_EQ_INT(cdevs_msg_refs(a), 3);
  cdevs_bag empty = {NULL, 0};
  CHECK(cdevs_mailbox_take_bag(&mb, &empty, 0) == CDEVS_OK);
  cdevs_msg *null_msg = NULL;
  cdevs_value vnull = cdevs_msgval(null_msg);
  cdevs_event evn[] = {{0, &vnull}};
  cdevs_bag nullbag = {evn, 1};
  CHECK(cdevs_mailbox_take_bag(&mb, &nullbag, 0) == CDEVS_EKIND);
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 6);
  cdevs_msg_release(a), cdevs_msg_release(b), cdevs_msg_release(c);
  CHECK_EQ_INT(destroyed, 0);
  cdevs_mailbox_fini(&mb);
  CHECK_EQ_INT(destroyed, 3);
}

/* Out of memory: a put or a bag that cannot be stored leaves the mailbox and the
 * messages as they were. */
static void test_out_of_memory(void) {
  destroyed = 0;
  test_alloc ta = {0, 0, 0};
  cdevs_alloc al = {test_realloc, &ta};
  cdevs_mailbox mb;
  cdevs_mailbox_init(&mb, &al);
  cdevs_msg *m = mk(NULL, 0, 1);
  CHECK(cdevs_mailbox_put(&mb, m) == CDEVS_ENOMEM);
  CHECK_EQ_INT(cdevs_msg_refs(m), 1);
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 0);
  CHECK_EQ_INT(cdevs_mailbox_arrivals(&mb), 0);
  /* the first growth (8 slots) succeeds, the second fails */
  ta.fail_from = 1;
  int ok = 0;
  while (cdevs_mailbox_put(&mb, m) == CDEVS_OK) ok++;
  CHECK_EQ_INT(ok, 8);
  CHECK_EQ_INT(cdevs_msg_refs(m), 9);
  cdevs_msg_release(cdevs_mailbox_get(&mb, NULL, NULL)); /* room for one */
  cdevs_value v = cdevs_msgval(m);
  cdevs_event ev[] = {{0, &v}, {0, &v}};
  cdevs_bag two = {ev, 2}, one = {ev, 1};
  CHECK(cdevs_mailbox_take_bag(&mb, &two, 0) == CDEVS_ENOMEM); /* all or nothing */
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 7);
  CHECK(cdevs_mailbox_take_bag(&mb, &one, 0) == CDEVS_OK);
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 8);
  CHECK_EQ_INT(cdevs_msg_refs(m), 9);
  cdevs_mailbox_fini(&mb);
  CHECK_EQ_INT(cdevs_msg_refs(m), 1);
  CHECK_EQ_INT(ta.live, 0);
  cdevs_msg_release(m);
  CHECK_EQ_INT(destroyed, 1);
}

/* API misuse gets a defined answer, never a crash. */
static void test_bad_input(void) {
  cdevs_msg *m = mk(NULL, 1, 1);
  cdevs_value v = cdevs_msgval(m);
  cdevs_event ev[] = {{0, &v}};
  cdevs_bag bag = {ev, 1}, broken = {NULL, 3};
  CHECK(cdevs_mailbox_init(NULL, NULL) == CDEVS_EINVAL);
  cdevs_mailbox_fini(NULL);
  CHECK(cdevs_mailbox_put(NULL, m) == CDEVS_EINVAL);
  CHECK(cdevs_mailbox_take_bag(NULL, &bag, 0) == CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_mailbox_count(NULL), 0);
  CHECK_EQ_INT(cdevs_mailbox_arrivals(NULL), 0);
  CHECK_EQ_INT(cdevs_mailbox_check(NULL), 0);
  CHECK(cdevs_mailbox_at(NULL, 0) == NULL);
  CHECK(cdevs_mailbox_read(NULL, NULL, NULL) == NULL);
  CHECK(cdevs_mailbox_get(NULL, NULL, NULL) == NULL);
  CHECK_EQ_INT(cdevs_msg_refs(m), 1);

  /* A zeroed mailbox (as in a state the engine zeroes) is a working empty one. */
  cdevs_mailbox mb;
  memset(&mb, 0, sizeof mb);
  CHECK(cdevs_mailbox_put(&mb, NULL) == CDEVS_EINVAL);
  CHECK(cdevs_mailbox_take_bag(&mb, NULL, 0) == CDEVS_EINVAL);
  CHECK(cdevs_mailbox_take_bag(&mb, &broken, 0) == CDEVS_EINVAL);
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 0);
  CHECK(cdevs_mailbox_put(&mb, m) == CDEVS_OK);
  CHECK(cdevs_mailbox_take_bag(&mb, &bag, 7) == CDEVS_OK); /* no event on port 7: nothing */
  CHECK_EQ_INT(cdevs_mailbox_count(&mb), 1);
  CHECK(cdevs_mailbox_at(&mb, SIZE_MAX) == NULL);
  cdevs_mailbox_fini(&mb);
  cdevs_mailbox_fini(&mb); /* twice: the second has nothing to do */
  CHECK_EQ_INT(cdevs_msg_refs(m), 1);
  cdevs_msg_release(m);
}

/* ---- two stages in a simulation ----------------------------------------------------------- */

/* What the test shares with the models of one simulation. */
typedef struct post {
  uint32_t receiver;    /* atomic id, filled in once the simulator exists */
  size_t count_at_read; /* mailbox count when the receiver first read */
  uint64_t checked;     /* cdevs_mailbox_check at that time */
  int ext_calls, got[4], ngot, read_first;
} post;

typedef struct sender_arg {
  post *post;
  int32_t tag;
  int copies; /* messages sent at t = 1 */
} sender_arg;

typedef struct sender_state {
  sender_arg a;
  int sent;
} sender_state;

static int sender_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  ((sender_state *)state)->a = *(const sender_arg *)arg;
  return CDEVS_OK;
}
static double sender_ta(const void *state) { return ((const sender_state *)state)->sent ? INFINITY : 1.0; }
static void sender_out(cdevs_ctx *cx, const void *state) {
  const sender_state *s = state;
  for (int k = 0; k < s->a.copies; k++) {
    cdevs_msg *m = mk(cdevs_ctx_alloc(cx), s->a.tag, 10 * s->a.tag + k);
    cdevs_value v = cdevs_msgval(m);
    cdevs_send(cx, s->a.post->receiver, 0, &v); /* no coupling: straight to its mailbox */
    cdevs_msg_release(m);
  }
}
static void sender_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  ((sender_state *)state)->sent = 1;
}
static const cdevs_atomic_ops sender_ops = {
    .type = "sender", .state_size = sizeof(sender_state), .arg_size = sizeof(sender_arg),
    .init = sender_init, .ta = sender_ta, .output = sender_out, .delta_int = sender_int};

typedef struct receiver_state {
  post *post;
  cdevs_mailbox mb;
} receiver_state;

static const cdevs_port_def receiver_in[] = {{"in", CDEVS_MSG}, {NULL, CDEVS_ANY}};

static int receiver_init(cdevs_ctx *cx, void *state, const void *arg) {
  receiver_state *s = state;
  s->post = *(post *const *)arg;
  return cdevs_mailbox_init(&s->mb, cdevs_ctx_alloc(cx));
}
static double passive(const void *state) {
  (void)state;
  return INFINITY;
}
static void receiver_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  receiver_state *s = state;
  post *p = s->post;
  if (cdevs_mailbox_take_bag(&s->mb, x, 0) != CDEVS_OK) {
    cdevs_ctx_fail(cx, "take_bag failed");
    return;
  }
  p->ext_calls++;
  /* the first read: everything sent at this instant is already in */
  p->count_at_read = cdevs_mailbox_count(&s->mb);
  p->checked = cdevs_mailbox_check(&s->mb);
  p->read_first = cdevs_msg_tag(cdevs_mailbox_read(&s->mb, NULL, NULL));
  /* fetch tag 2 (both copies), then tag 1; tag 3 stays for fini to release */
  int32_t order[] = {2, 1};
  for (int k = 0; k < 2; k++) {
    cdevs_msg *m;
    while (p->ngot < 4 && (m = cdevs_mailbox_get(&s->mb, cdevs_mailbox_by_tag, &order[k]))) {
      p->got[p->ngot++] = payload(m);
      cdevs_msg_release(m);
    }
  }
}
static void receiver_fini(void *state) { cdevs_mailbox_fini(&((receiver_state *)state)->mb); }
static const cdevs_atomic_ops receiver_ops = {
    .type = "receiver", .state_size = sizeof(receiver_state), .arg_size = sizeof(post *),
    .inputs = receiver_in, .init = receiver_init, .ta = passive, .delta_ext = receiver_ext,
    .fini = receiver_fini};

/* Three models send to one receiver at t = 1 by cdevs_send, the second twice: the
 * receiver's one δext finds all four stored before its first read. */
static void test_simultaneous(void) {
  destroyed = 0;
  post p;
  memset(&p, 0, sizeof p);
  post *pp = &p;
  cdevs_model *root = cdevs_root_new(NULL, "post");
  sender_arg a1 = {&p, 1, 1}, a2 = {&p, 2, 2}, a3 = {&p, 3, 1};
  cdevs_atomic_add(root, "s1", &sender_ops, &a1);
  cdevs_atomic_add(root, "s2", &sender_ops, &a2);
  cdevs_atomic_add(root, "s3", &sender_ops, &a3);
  cdevs_model *r = cdevs_atomic_add(root, "r", &receiver_ops, &pp);
  cdevs_sim *sim = NULL;
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim))) {
    p.receiver = cdevs_sim_atomic_id(sim, r);
    CHECK_RUN(cdevs_sim_run(sim, 10));
    CHECK_EQ_INT(p.ext_calls, 1);
    CHECK_EQ_INT(p.count_at_read, 4);
    CHECK_EQ_INT(p.checked, 4);
    CHECK(p.read_first >= 1 && p.read_first <= 3);
    CHECK_EQ_INT(p.ngot, 3);
    CHECK_EQ_INT(p.got[0], 20); /* s2's two in the order it sent them */
    CHECK_EQ_INT(p.got[1], 21);
    CHECK_EQ_INT(p.got[2], 10);
    CHECK_EQ_INT(destroyed, 3);
    receiver_state *rs = cdevs_sim_state(sim, r);
    CHECK_EQ_INT(cdevs_mailbox_count(&rs->mb), 1);
    CHECK_EQ_INT(payload(cdevs_mailbox_read(&rs->mb, NULL, NULL)), 30);
  }
  cdevs_sim_free(sim); /* the receiver's fini releases the message left */
  CHECK_EQ_INT(destroyed, 4);
  cdevs_model_free(root);
}

/* ---- a shared mailbox ----------------------------------------------------------------------- */

/* A mailbox owned by the test, reached by three models through a pointer in their
 * parameters: a producer puts message k (tag 1 for odd k, 2 for even) at t = k,
 * k = 1..5; the "odd" consumer wakes at t = 1.25, 2.25, 3.25, 4.25, the "even" one at
 * 1.75, …, 4.75, and each fetches the messages of its tag; the odd one also reads (does
 * not fetch) the oldest message of any tag. */
typedef struct office {
  cdevs_mailbox mb;
  int got[2][8], ngot[2];
  int peeked[8], npeeked;
  uint64_t notices[2]; /* arrivals each consumer learnt of by its own counter */
} office;

typedef struct producer_state {
  office *o;
  int k;
} producer_state;

static int producer_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  ((producer_state *)state)->o = *(office *const *)arg;
  return CDEVS_OK;
}
static double producer_ta(const void *state) { return ((const producer_state *)state)->k < 5 ? 1.0 : INFINITY; }
static void producer_int(cdevs_ctx *cx, void *state) {
  producer_state *s = state;
  s->k++;
  cdevs_msg *m = mk(cdevs_ctx_alloc(cx), s->k % 2 ? 1 : 2, s->k);
  if (cdevs_mailbox_put(&s->o->mb, m) != CDEVS_OK) cdevs_ctx_fail(cx, "put failed");
  cdevs_msg_release(m);
}
static const cdevs_atomic_ops producer_ops = {
    .type = "producer", .state_size = sizeof(producer_state), .arg_size = sizeof(office *),
    .init = producer_init, .ta = producer_ta, .delta_int = producer_int};

typedef struct consumer_arg {
  office *o;
  int32_t tag;
  double first; /* the first wake; then every 1 */
} consumer_arg;

typedef struct consumer_state {
  consumer_arg a;
  int wakes;
  uint64_t seen;
} consumer_state;

static int consumer_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  ((consumer_state *)state)->a = *(const consumer_arg *)arg;
  return CDEVS_OK;
}
static double consumer_ta(const void *state) {
  const consumer_state *s = state;
  return s->wakes == 0 ? s->a.first : s->wakes < 4 ? 1.0 : INFINITY;
}
static void consumer_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  consumer_state *s = state;
  office *o = s->a.o;
  int me = s->a.tag - 1;
  s->wakes++;
  o->notices[me] += cdevs_mailbox_arrivals(&o->mb) - s->seen;
  s->seen = cdevs_mailbox_arrivals(&o->mb);
  if (me == 0 && o->npeeked < 8) o->peeked[o->npeeked++] = payload(cdevs_mailbox_read(&o->mb, NULL, NULL));
  cdevs_msg *m;
  while ((m = cdevs_mailbox_get(&o->mb, cdevs_mailbox_by_tag, &s->a.tag))) {
    if (o->ngot[me] < 8) o->got[me][o->ngot[me]++] = payload(m);
    cdevs_msg_release(m);
  }
}
static const cdevs_atomic_ops consumer_ops = {
    .type = "consumer", .state_size = sizeof(consumer_state), .arg_size = sizeof(consumer_arg),
    .init = consumer_init, .ta = consumer_ta, .delta_int = consumer_int};

static void test_shared(void) {
  destroyed = 0;
  office o;
  memset(&o, 0, sizeof o);
  cdevs_mailbox_init(&o.mb, NULL);
  office *op = &o;
  consumer_arg c1 = {&o, 1, 1.25}, c2 = {&o, 2, 1.75};
  cdevs_model *root = cdevs_root_new(NULL, "office");
  cdevs_atomic_add(root, "producer", &producer_ops, &op);
  cdevs_atomic_add(root, "odd", &consumer_ops, &c1);
  cdevs_atomic_add(root, "even", &consumer_ops, &c2);
  cdevs_sim *sim = NULL;
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim))) CHECK_RUN(cdevs_sim_run(sim, 100));
  /* each consumer fetched its own, in order; the one left over is message 5 (t = 5) */
  CHECK_EQ_INT(o.ngot[0], 2);
  CHECK_EQ_INT(o.got[0][0], 1);
  CHECK_EQ_INT(o.got[0][1], 3);
  CHECK_EQ_INT(o.ngot[1], 2);
  CHECK_EQ_INT(o.got[1][0], 2);
  CHECK_EQ_INT(o.got[1][1], 4);
  /* the oldest at 1.25 was 1; at 2.25, 2 (1 was fetched at 1.25); at 3.25, 3 (2 was
     fetched at 2.75); at 4.25, 4 */
  CHECK_EQ_INT(o.npeeked, 4);
  CHECK_EQ_INT(o.peeked[0], 1);
  CHECK_EQ_INT(o.peeked[1], 2);
  CHECK_EQ_INT(o.peeked[2], 3);
  CHECK_EQ_INT(o.peeked[3], 4);
  CHECK_EQ_INT(o.notices[0], 4); /* both learnt of the four arrivals before 4.25 */
  CHECK_EQ_INT(o.notices[1], 4);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  /* The mailbox outlives the models that shared it, and so does its message. */
  CHECK_EQ_INT(destroyed, 4);
  CHECK_EQ_INT(cdevs_mailbox_count(&o.mb), 1);
  CHECK_EQ_INT(payload(cdevs_mailbox_read(&o.mb, NULL, NULL)), 5);
  CHECK_EQ_INT(cdevs_mailbox_arrivals(&o.mb), 5);
  cdevs_mailbox_fini(&o.mb);
  CHECK_EQ_INT(destroyed, 5);
}

/* ---- the seed's Figure 7: a SIMAN single-queue system in messages ------------------------- */

/*
 * Create → Queue → Seize → Delay → Release → Dispose, each a small atomic model, the
 * entities messages (tag CUSTOMER) sent from block to block with cdevs_send, no
 * coupling. The Queue is a mailbox the Queue block fills and the Seize block fetches
 * from (a shared mailbox); the server is a message too (tag SERVER): the Seize block's
 * mailbox holds it while it is idle, a customer holds it through the Delay, and the
 * Release block sends it back, as SIMAN's Seize and Release pass a resource.
 */
enum { CUSTOMER = 1, SERVER = 2 };
enum { BINS = 20 };

typedef struct customer {
  double arrived, done;
  cdevs_msg *held; /* the server it holds, one reference */
} customer;

static void customer_destroy(void *payload_) { cdevs_msg_release(((customer *)payload_)->held); }
static const cdevs_msg_type customer_type = {"customer", customer_destroy};
static const cdevs_msg_type server_type = {"server", NULL};

typedef struct fig7 {
  uint32_t queue, seize, delay, release, dispose; /* atomic ids */
  cdevs_mailbox line;                             /* SIMAN's Queue */
  uint32_t seed[6];
  cdevs_dist interarrival, service;
  double horizon;
  /* what it measured */
  double *waits;
  size_t nwaits, capwaits;
  cdevs_tally *wait_tally;
  double busy[BINS]; /* server busy time in each twentieth of [0, horizon] */
  uint64_t created, disposed;
} fig7;

static customer *cust(cdevs_msg *m) { return cdevs_msg_data(m); }

static void fig7_fail(cdevs_ctx *cx) { cdevs_ctx_fail(cx, "out of memory"); }

/* Create: a customer every interarrival time from t = 0, sent to the Queue. */
typedef struct create_st {
  fig7 *f;
  cdevs_rng rng;
  double sigma;
} create_st;

static int f7_create_init(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  create_st *s = state;
  s->f = *(fig7 *const *)arg;
  /* the stream the Create block named "arrive" draws from */
  cdevs_rng_named(&s->rng, s->f->seed, "arrive.interarrival");
  s->sigma = 0;
  return CDEVS_OK;
}
static double f7_create_ta(const void *state) { return ((const create_st *)state)->sigma; }
static void f7_create_out(cdevs_ctx *cx, const void *state) {
  const create_st *s = state;
  cdevs_msg *m = cdevs_msg_new(cdevs_ctx_alloc(cx), &customer_type, sizeof(customer)); /* newmsg */
  if (!m) {
    fig7_fail(cx);
    return;
  }
  cdevs_msg_set_tag(m, CUSTOMER);
  cust(m)->arrived = cdevs_ctx_time(cx);
  cdevs_value v = cdevs_msgval(m);
  cdevs_send(cx, s->f->queue, 0, &v); /* putmsg(Queue) */
  cdevs_msg_release(m);
}
static void f7_create_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  create_st *s = state;
  s->f->created++;
  s->sigma = cdevs_dist_sample(&s->f->interarrival, &s->rng);
}
static const cdevs_atomic_ops f7_create = {
    .type = "Create", .state_size = sizeof(create_st), .arg_size = sizeof(fig7 *),
    .init = f7_create_init, .ta = f7_create_ta, .output = f7_create_out, .delta_int = f7_create_int};

/* Queue: stores arrivals in the line and warns the Seize block (checkmsg). */
typedef struct queue_st {
  fig7 *f;
  int warn;
} queue_st;

static const cdevs_port_def msg_in[] = {{"in", CDEVS_MSG}, {NULL, CDEVS_ANY}};

static int f7_init_f(cdevs_ctx *cx, void *state, const void *arg) {
  (void)cx;
  *(fig7 **)state = *(fig7 *const *)arg; /* every state here starts with its fig7 * */
  return CDEVS_OK;
}
static double f7_queue_ta(const void *state) { return ((const queue_st *)state)->warn ? 0 : INFINITY; }
static void f7_queue_out(cdevs_ctx *cx, const void *state) {
  cdevs_value v = cdevs_int(1);
  cdevs_send(cx, ((const queue_st *)state)->f->seize, 0, &v);
}
static void f7_queue_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  ((queue_st *)state)->warn = 0;
}
static void f7_queue_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  queue_st *s = state;
  if (cdevs_mailbox_take_bag(&s->f->line, x, 0) != CDEVS_OK) {
    fig7_fail(cx);
    return;
  }
  if (cdevs_mailbox_check(&s->f->line)) s->warn = 1;
}
static const cdevs_atomic_ops f7_queue = {
    .type = "Queue", .state_size = sizeof(queue_st), .arg_size = sizeof(fig7 *), .inputs = msg_in,
    .init = f7_init_f, .ta = f7_queue_ta, .output = f7_queue_out, .delta_int = f7_queue_int,
    .delta_ext = f7_queue_ext};

/* Seize: while the server is idle (its message in `idle`) and someone waits in the
 * line, the oldest customer takes the server and goes on to the Delay. */
typedef struct seize_st {
  fig7 *f;
  cdevs_mailbox idle, out;
} seize_st;

enum { SEIZE_WARN = 0, SEIZE_SERVER = 1 };
static const cdevs_port_def seize_in[] = {{"warn", CDEVS_INT}, {"server", CDEVS_MSG}, {NULL, CDEVS_ANY}};

static int f7_seize_init(cdevs_ctx *cx, void *state, const void *arg) {
  seize_st *s = state;
  s->f = *(fig7 *const *)arg;
  cdevs_mailbox_init(&s->idle, cdevs_ctx_alloc(cx));
  cdevs_mailbox_init(&s->out, cdevs_ctx_alloc(cx));
  cdevs_msg *server = cdevs_msg_new(cdevs_ctx_alloc(cx), &server_type, 0);
  if (!server) return CDEVS_ENOMEM;
  cdevs_msg_set_tag(server, SERVER);
  cdevs_status st = cdevs_mailbox_put(&s->idle, server);
  cdevs_msg_release(server);
  return st;
}
static void f7_seize_fini(void *state) {
  seize_st *s = state;
  cdevs_mailbox_fini(&s->idle);
  cdevs_mailbox_fini(&s->out);
}
static double f7_seize_ta(const void *state) { return cdevs_mailbox_count(&((const seize_st *)state)->out) ? 0 : INFINITY; }
static void f7_seize_out(cdevs_ctx *cx, const void *state) {
  const seize_st *s = state;
  for (size_t i = 0; i < cdevs_mailbox_count(&s->out); i++) {
    cdevs_value v = cdevs_msgval(cdevs_mailbox_at(&s->out, i));
    cdevs_send(cx, s->f->delay, 0, &v);
  }
}
static void f7_seize_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  seize_st *s = state;
  cdevs_msg *m;
  while ((m = cdevs_mailbox_get(&s->out, NULL, NULL))) cdevs_msg_release(m);
}
static void f7_seize_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  seize_st *s = state;
  fig7 *f = s->f;
  double t = cdevs_ctx_time(cx);
  if (cdevs_mailbox_take_bag(&s->idle, x, SEIZE_SERVER) != CDEVS_OK) {
    fig7_fail(cx);
    return;
  }
  int32_t server = SERVER;
  while (cdevs_mailbox_count(&f->line) && cdevs_mailbox_read(&s->idle, cdevs_mailbox_by_tag, &server)) {
    cdevs_msg *c = cdevs_mailbox_get(&f->line, NULL, NULL); /* getmsg(Queue): FIFO */
    cust(c)->held = cdevs_mailbox_get(&s->idle, cdevs_mailbox_by_tag, &server);
    double w = t - cust(c)->arrived;
    cdevs_tally_add(f->wait_tally, t, w);
    if (f->nwaits < f->capwaits) f->waits[f->nwaits++] = w;
    cdevs_status st = cdevs_mailbox_put(&s->out, c);
    cdevs_msg_release(c);
    if (st != CDEVS_OK) {
      fig7_fail(cx);
      return;
    }
  }
}
static const cdevs_atomic_ops f7_seize = {
    .type = "Seize", .state_size = sizeof(seize_st), .arg_size = sizeof(fig7 *), .inputs = seize_in,
    .init = f7_seize_init, .ta = f7_seize_ta, .output = f7_seize_out, .delta_int = f7_seize_int,
    .delta_ext = f7_seize_ext, .fini = f7_seize_fini};

/* Delay: each customer stays a service time, drawn from the stream of the Process block
 * named "serve", then goes on to the Release. */
typedef struct delay_st {
  fig7 *f;
  cdevs_mailbox busy;
  cdevs_rng rng;
  double now; /* the last transition */
} delay_st;

static int f7_delay_init(cdevs_ctx *cx, void *state, const void *arg) {
  delay_st *s = state;
  s->f = *(fig7 *const *)arg;
  cdevs_mailbox_init(&s->busy, cdevs_ctx_alloc(cx));
  cdevs_rng_named(&s->rng, s->f->seed, "serve.delay");
  s->now = cdevs_ctx_time(cx);
  return CDEVS_OK;
}
static void f7_delay_fini(void *state) { cdevs_mailbox_fini(&((delay_st *)state)->busy); }
static double f7_delay_ta(const void *state) {
  const delay_st *s = state;
  double next = INFINITY;
  for (size_t i = 0; i < cdevs_mailbox_count(&s->busy); i++) next = fmin(next, cust(cdevs_mailbox_at(&s->busy, i))->done);
  return cdevs__ta_until(s->now, next); /* as the Process block rounds it */
}
static void f7_delay_out(cdevs_ctx *cx, const void *state) {
  const delay_st *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < cdevs_mailbox_count(&s->busy); i++) {
    cdevs_msg *m = cdevs_mailbox_at(&s->busy, i);
    if (cust(m)->done > t) continue;
    cdevs_value v = cdevs_msgval(m);
    cdevs_send(cx, s->f->release, 0, &v);
  }
}
static int due(cdevs_msg *m, void *t) { return cust(m)->done <= *(double *)t; }
static void f7_delay_int(cdevs_ctx *cx, void *state) {
  delay_st *s = state;
  double t = cdevs_ctx_time(cx);
  cdevs_msg *m;
  while ((m = cdevs_mailbox_get(&s->busy, due, &t))) cdevs_msg_release(m);
  s->now = t;
}
/* Adds the busy interval [a, b] to the bins of [0, horizon] it covers. */
static void add_busy(fig7 *f, double a, double b) {
  double w = f->horizon / BINS;
  b = fmin(b, f->horizon);
  for (int k = (int)(a / w); k < BINS && a < b; k++) {
    double end = fmin(b, (k + 1) * w);
    if (end > a) f->busy[k] += end - a;
    a = fmax(a, end);
  }
}
static void f7_delay_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  delay_st *s = state;
  double t = cdevs_ctx_time(cx);
  size_t first = cdevs_mailbox_count(&s->busy);
  if (cdevs_mailbox_take_bag(&s->busy, x, 0) != CDEVS_OK) {
    fig7_fail(cx);
    return;
  }
  for (size_t i = first; i < cdevs_mailbox_count(&s->busy); i++) {
    customer *c = cust(cdevs_mailbox_at(&s->busy, i));
    c->done = t + cdevs_dist_sample(&s->f->service, &s->rng);
    add_busy(s->f, t, c->done);
  }
  s->now = t;
}
static const cdevs_atomic_ops f7_delay = {
    .type = "Delay", .state_size = sizeof(delay_st), .arg_size = sizeof(fig7 *), .inputs = msg_in,
    .init = f7_delay_init, .ta = f7_delay_ta, .output = f7_delay_out, .delta_int = f7_delay_int,
    .delta_ext = f7_delay_ext, .fini = f7_delay_fini};

/* Release: the server goes back to the Seize block, the customer on to the Dispose. */
typedef struct pass_st {
  fig7 *f;
  cdevs_mailbox mb;
} pass_st;

static void f7_pass_fini(void *state) { cdevs_mailbox_fini(&((pass_st *)state)->mb); }
static double f7_pass_ta(const void *state) { return cdevs_mailbox_count(&((const pass_st *)state)->mb) ? 0 : INFINITY; }
static void f7_pass_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  if (cdevs_mailbox_take_bag(&((pass_st *)state)->mb, x, 0) != CDEVS_OK) fig7_fail(cx);
}
static void f7_release_out(cdevs_ctx *cx, const void *state) {
  const pass_st *s = state;
  for (size_t i = 0; i < cdevs_mailbox_count(&s->mb); i++) {
    cdevs_msg *m = cdevs_mailbox_at(&s->mb, i);
    cdevs_value server = cdevs_msgval(cust(m)->held), v = cdevs_msgval(m);
    cdevs_send(cx, s->f->seize, SEIZE_SERVER, &server);
    cdevs_send(cx, s->f->dispose, 0, &v);
  }
}
static void f7_release_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  pass_st *s = state;
  cdevs_msg *m;
  while ((m = cdevs_mailbox_get(&s->mb, NULL, NULL))) {
    cdevs_msg_release(cust(m)->held); /* it is in the Seize block's bag now */
    cust(m)->held = NULL;
    cdevs_msg_release(m);
  }
}
static const cdevs_atomic_ops f7_release = {
    .type = "Release", .state_size = sizeof(pass_st), .arg_size = sizeof(fig7 *), .inputs = msg_in,
    .init = f7_init_f, .ta = f7_pass_ta, .output = f7_release_out, .delta_int = f7_release_int,
    .delta_ext = f7_pass_ext, .fini = f7_pass_fini};

/* Dispose: fetches and drops what arrives. */
static void f7_dispose_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  pass_st *s = state;
  f7_pass_ext(cx, state, e, x);
  cdevs_msg *m;
  while ((m = cdevs_mailbox_get(&s->mb, NULL, NULL))) {
    s->f->disposed++;
    cdevs_msg_release(m);
  }
}
static const cdevs_atomic_ops f7_dispose = {
    .type = "Dispose", .state_size = sizeof(pass_st), .arg_size = sizeof(fig7 *), .inputs = msg_in,
    .init = f7_init_f, .ta = passive, .delta_ext = f7_dispose_ext, .fini = f7_pass_fini};

static cdevs_dist expo(double mean) {
  cdevs_dist d;
  if (cdevs_dist_make(&d, CDEVS_DIST_EXPONENTIAL, &mean, 1, NULL, 0) != CDEVS_OK) abort();
  return d;
}

/* The mean of n batch means x and their standard error s/√n. */
static double batch_mean_se(const double *x, int n, double *se) {
  double m = 0, ss = 0;
  for (int i = 0; i < n; i++) m += x[i];
  m /= n;
  for (int i = 0; i < n; i++) ss += (x[i] - m) * (x[i] - m);
  *se = sqrt(ss / (n - 1) / n);
  return m;
}

/* Runs Figure 7 to the horizon; 0 on success. */
static int run_fig7(fig7 *f) {
  cdevs_model *root = cdevs_root_new(NULL, "fig7");
  cdevs_model *ms[6];
  const cdevs_atomic_ops *ops[6] = {&f7_create, &f7_queue, &f7_seize, &f7_delay, &f7_release, &f7_dispose};
  const char *names[6] = {"create", "queue", "seize", "delay", "release", "dispose"};
  for (int i = 0; i < 6; i++) ms[i] = cdevs_atomic_add(root, names[i], ops[i], &f);
  cdevs_sim *sim = NULL;
  int ok = CHECK_RUN(cdevs_sim_new(root, NULL, &sim));
  if (ok) {
    f->queue = cdevs_sim_atomic_id(sim, ms[1]);
    f->seize = cdevs_sim_atomic_id(sim, ms[2]);
    f->delay = cdevs_sim_atomic_id(sim, ms[3]);
    f->release = cdevs_sim_atomic_id(sim, ms[4]);
    f->dispose = cdevs_sim_atomic_id(sim, ms[5]);
    ok = CHECK_RUN(cdevs_sim_run(sim, f->horizon));
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return ok ? 0 : -1;
}

/*
 * M/M/1 with arrival rate λ = 0.8 and service rate μ = 1: ρ = λ/μ = 0.8, the mean wait
 * in queue Wq = ρ/(μ − λ) = 4, the server busy a fraction ρ of the time. Over a horizon
 * of 250,000 (about 200,000 customers), from an empty system.
 *
 * Tolerances by batch means: the waits (the first 1,000 left out as warm-up; the bias
 * of an empty start is of the order of the relaxation time, about 1/(μ(1 − √ρ)²) ≈ 90
 * time units, against a run 2,800 times as long) in 20 batches of consecutive
 * customers, and the busy time in 20 equal spans of the horizon. Each batch (12,500 time
 * units, ~10,000 customers) is over a hundred relaxation times long, so the batch means
 * are close to independent and the 99% interval is t_{0.995,19} = 2.861 standard errors.
 */
static void test_fig7_mm1(void) {
  destroyed = 0;
  fig7 f;
  memset(&f, 0, sizeof f);
  cdevs_mailbox_init(&f.line, NULL);
  cdevs_rng_package_seed(0, f.seed);
  f.interarrival = expo(1 / 0.8);
  f.service = expo(1.0);
  f.horizon = 250000;
  f.capwaits = 400000;
  f.waits = malloc(f.capwaits * sizeof *f.waits);
  f.wait_tally = cdevs_tally_new(NULL);
  if (!f.waits || !f.wait_tally) abort();
  if (run_fig7(&f)) goto done;

  CHECK(f.nwaits < f.capwaits);
  const size_t warm = 1000;
  size_t per = (f.nwaits - warm) / BINS;
  double wb[BINS], ub[BINS], wse, use;
  for (int k = 0; k < BINS; k++) {
    double sum = 0;
    for (size_t i = 0; i < per; i++) sum += f.waits[warm + (size_t)k * per + i];
    wb[k] = sum / (double)per;
    ub[k] = f.busy[k] / (f.horizon / BINS);
  }
  double wq = batch_mean_se(wb, BINS, &wse), util = batch_mean_se(ub, BINS, &use);
  const double t99 = 2.861; /* Student t, 0.995 quantile, 19 degrees of freedom */
  printf("Figure 7 (messages and mailboxes), M/M/1 rho 0.8: %zu customers served, Wq %.4f (theory 4) "
         "± %.4f, utilization %.5f (theory 0.8) ± %.5f (99%%, 20 batch means)\n",
         f.nwaits, wq, t99 * wse, util, t99 * use);
  CHECK(fabs(wq - 4) <= t99 * wse);
  CHECK(fabs(util - 0.8) <= t99 * use);
  /* The batches were long enough to matter: a standard error far above what the
     run's length allows, or none at all, would make the check empty. */
  CHECK(wse > 0.01 && wse < 0.4);
  /* About λ·horizon customers arrived: Poisson, standard deviation √200000 ≈ 447. */
  CHECK(fabs((double)f.created - 200000) < 4 * 447);
  /* Every customer is somewhere: served and gone, in service, or waiting. */
  CHECK_EQ_INT(f.created, f.nwaits + cdevs_mailbox_count(&f.line));
  CHECK(f.nwaits - f.disposed <= 1); /* one server */

  /* The same model built from the Create, Process and Dispose blocks (ARENALib's
     Process, one atomic model) on the same streams serves the same customers at the
     same instants: its mean wait must be the same number, bit for bit. */
  cdevs_proc_opts o = cdevs_proc_opts_default();
  o.span = f.horizon;
  cdevs_proc *p = cdevs_proc_new(NULL, &o);
  cdevs_model *root = cdevs_root_new(NULL, "mm1");
  if (!p || cdevs_proc_resource(p, "server", 1) < 0) abort();
  cdevs_create_params cp = {p, "Customer", f.interarrival, 1, 0, 0};
  cdevs_process_params pp = {p, CDEVS_SEIZE_DELAY_RELEASE, "server", 1, 0, f.service, CDEVS_VA, CDEVS_FIFO, NULL, 0};
  cdevs_dispose_params dp = {p};
  proc_line(root, &cp, &pp, &dp);
  cdevs_sim *sim = NULL;
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim)) && CHECK_RUN(cdevs_sim_run(sim, f.horizon))) {
    cdevs_stat_info wait, u;
    long iw = cdevs_proc_stat_find(p, "serve.Queue", "WaitTime"), iu = cdevs_proc_stat_find(p, "server", "Utilization");
    CHECK(iw >= 0 && iu >= 0);
    if (iw >= 0 && iu >= 0) {
      cdevs_proc_stat(p, (size_t)iw, f.horizon, &wait);
      cdevs_proc_stat(p, (size_t)iu, f.horizon, &u);
      cdevs_stat_summary mine;
      cdevs_tally_summary(f.wait_tally, &mine);
      printf("Figure 7 against the Process block: mean wait %.17g and %.17g, %llu and %llu waits, "
             "utilization %.17g and %.17g\n",
             mine.avg, wait.s.avg, (unsigned long long)mine.count, (unsigned long long)wait.s.count,
             util, u.s.avg);
      CHECK_EQ_INT(mine.count, wait.s.count);
      CHECK(mine.avg == wait.s.avg);
      /* the busy time summed another way: equal up to rounding */
      CHECK_NEAR(util, u.s.avg, 1e-9);
    }
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  cdevs_proc_free(p);
done:
  cdevs_mailbox_fini(&f.line);
  cdevs_tally_free(f.wait_tally);
  free(f.waits);
}

/* ---- pipes: mailboxes inside connectors ------------------------------------------------ */

/*
 * A pipe of two (S60): a client and a server, each with an end "link", exchange
 * requests and replies in both directions at the same instants. At t = k (k = 1, 2, 3)
 * both wake: the client puts two requests (tag REQ, payloads 10k + 1, 10k + 2), the
 * server a status (tag STATUS, payload 100k); both go out in the same λ, so each
 * receives the other's in a δconf while flushing its own. The server, at its first read,
 * must find both requests, and answers each (tag REPLY, payload + 1000) at once; the
 * client fetches the replies and leaves the statuses in its inbox, for fini to release.
 */
enum { REQ = 1, REPLY = 2, STATUS = 3 };

typedef struct arrival {
  double t;
  int32_t tag;
  int payload, in_conf;
} arrival;

typedef struct pipe_log {
  arrival got[2][16]; /* [0] client, [1] server */
  int ngot[2];
  size_t first_read[4]; /* server: requests in the inbox at its first read of instant k */
  long copies;          /* calls of the copy function */
  int failed;           /* a put or a take failed (out of memory) */
} pipe_log;

static const cdevs_port_def link_port[] = {{"link", CDEVS_MSG}, {NULL, CDEVS_ANY}};

typedef struct peer_arg {
  pipe_log *log;
  int server;
} peer_arg;

typedef struct peer_state {
  peer_arg a;
  cdevs_pipe_end end;
  double now, next; /* the time of the last transition; of the next wake-up */
  int k;
} peer_state;

static cdevs_msg *counted_copy(cdevs_msg *m, const cdevs_alloc *a, void *ud) {
  ((pipe_log *)ud)->copies++;
  cdevs_msg *c = cdevs_msg_new(a, &counted, sizeof(int));
  if (c) *(int *)cdevs_msg_data(c) = payload(m);
  return c;
}

static int peer_init(cdevs_ctx *cx, void *state, const void *arg) {
  peer_state *s = state;
  s->a = *(const peer_arg *)arg;
  s->next = 1.0;
  return cdevs_pipe_open(&s->end, cx, "link", counted_copy, s->a.log);
}
static double peer_ta(const void *state) {
  const peer_state *s = state;
  double own = s->next - s->now, pipe = cdevs_pipe_ta(&s->end);
  return own < pipe ? own : pipe;
}
static void peer_out(cdevs_ctx *cx, const void *state) { cdevs_pipe_flush(cx, &((const peer_state *)state)->end); }

static void peer_put(cdevs_ctx *cx, peer_state *s, int32_t tag, int v) {
  cdevs_msg *m = cdevs_msg_new(cdevs_ctx_alloc(cx), &counted, sizeof(int));
  if (!m || cdevs_pipe_put(&s->end, m) != CDEVS_OK) {
    s->a.log->failed = 1;
    cdevs_ctx_fail(cx, "out of memory");
  } else {
    cdevs_msg_set_tag(m, tag);
    *(int *)cdevs_msg_data(m) = v;
  }
  cdevs_msg_release(m);
}

static void peer_int(cdevs_ctx *cx, void *state) {
  peer_state *s = state;
  cdevs_pipe_sent(&s->end);
  s->now = cdevs_ctx_time(cx);
  if (s->now < s->next) return; /* only a flush */
  s->k++;
  if (s->a.server) {
    peer_put(cx, s, STATUS, 100 * s->k);
  } else {
    peer_put(cx, s, REQ, 10 * s->k + 1);
    peer_put(cx, s, REQ, 10 * s->k + 2);
  }
  s->next = s->k < 3 ? s->k + 1.0 : INFINITY;
}

static void peer_receive(cdevs_ctx *cx, peer_state *s, const cdevs_bag *x, int in_conf) {
  s->now = cdevs_ctx_time(cx);
  if (cdevs_pipe_take(&s->end, x) != CDEVS_OK) {
    s->a.log->failed = 1;
    cdevs_ctx_fail(cx, "take failed");
    return;
  }
  cdevs_mailbox *in = cdevs_pipe_inbox(&s->end);
  int who = s->a.server;
  pipe_log *lg = s->a.log;
  /* Log what arrived now: the newest cdevs_mailbox_check messages. */
  size_t fresh = (size_t)cdevs_mailbox_check(in), n = cdevs_mailbox_count(in);
  for (size_t i = n - fresh; i < n && lg->ngot[who] < 16; i++) {
    cdevs_msg *m = cdevs_mailbox_at(in, i);
    lg->got[who][lg->ngot[who]++] = (arrival){s->now, cdevs_msg_tag(m), payload(m), in_conf};
  }
  int32_t want = who ? REQ : REPLY;
  if (who) lg->first_read[s->k < 4 ? s->k : 0] = n;
  cdevs_msg *m;
  while ((m = cdevs_mailbox_get(in, cdevs_mailbox_by_tag, &want))) {
    if (who) peer_put(cx, s, REPLY, payload(m) + 1000);
    cdevs_msg_release(m);
  }
}
static void peer_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  peer_receive(cx, state, x, 0);
}
static void peer_conf(cdevs_ctx *cx, void *state, const cdevs_bag *x) {
  peer_int(cx, state);
  peer_receive(cx, state, x, 1);
}
static void peer_fini(void *state) { cdevs_pipe_close(&((peer_state *)state)->end); }
static const cdevs_atomic_ops peer_ops = {
    .type = "peer", .state_size = sizeof(peer_state), .arg_size = sizeof(peer_arg),
    .inputs = link_port, .outputs = link_port, .init = peer_init, .ta = peer_ta, .output = peer_out,
    .delta_int = peer_int, .delta_ext = peer_ext, .delta_conf = peer_conf, .fini = peer_fini};

static void test_pipe_request_reply(void) {
  destroyed = 0;
  pipe_log lg;
  memset(&lg, 0, sizeof lg);
  counting c = {0, 0, 0, 0, 0};
  cdevs_alloc al = {counting_realloc, &c};
  cdevs_model *root = cdevs_root_new(&al, "rr");
  peer_arg ca = {&lg, 0}, sa = {&lg, 1};
  cdevs_model *client = cdevs_atomic_add(root, "client", &peer_ops, &ca);
  cdevs_model *server = cdevs_atomic_add(root, "server", &peer_ops, &sa);
  CHECK_EQ_INT(cdevs_pipe_connect(root, client, "link", server, "link"), CDEVS_OK);
  cdevs_model_counts mc;
  cdevs_model_counts_get(root, &mc);
  CHECK_EQ_INT(mc.ic, 2); /* one coupling each way */
  cdevs_sim *sim = NULL;
  if (CHECK_RUN(cdevs_sim_new(root, NULL, &sim)) && CHECK_RUN(cdevs_sim_run(sim, 10))) {
    peer_state *cs = cdevs_sim_state(sim, client), *ss = cdevs_sim_state(sim, server);
    CHECK_EQ_INT(cdevs_pipe_receivers(&cs->end), 1);
    CHECK_EQ_INT(lg.copies, 0); /* a pipe of two hands the message itself over */
    /* The client: at each t = k, the status in a δconf (both directions in one λ),
       then the two replies at the same time. */
    CHECK_EQ_INT(lg.ngot[0], 9);
    for (int k = 1; k <= 3 && lg.ngot[0] == 9; k++) {
      const arrival *st = &lg.got[0][3 * (k - 1)], *r1 = st + 1, *r2 = st + 2;
      CHECK(st->t == k && st->tag == STATUS && st->payload == 100 * k && st->in_conf);
      CHECK(r1->t == k && r1->tag == REPLY && r1->payload == 1000 + 10 * k + 1);
      CHECK(r2->t == k && r2->tag == REPLY && r2->payload == 1000 + 10 * k + 2);
    }
    /* The server: both requests of an instant stored before its first read. */
    CHECK_EQ_INT(lg.ngot[1], 6);
    for (int k = 1; k <= 3; k++) {
      CHECK_EQ_INT(lg.first_read[k], 2);
      const arrival *q = &lg.got[1][2 * (k - 1)];
      CHECK(q[0].t == k && q[0].tag == REQ && q[0].payload == 10 * k + 1 && q[0].in_conf);
      CHECK(q[1].t == k && q[1].tag == REQ && q[1].payload == 10 * k + 2 && q[1].in_conf);
    }
    /* Left in the pipe at the end: the three statuses in the client's inbox. */
    CHECK_EQ_INT(cdevs_mailbox_count(cdevs_pipe_inbox(&cs->end)), 3);
    CHECK_EQ_INT(cdevs_mailbox_count(cdevs_pipe_inbox(&ss->end)), 0);
    CHECK_EQ_INT(cdevs_pipe_pending(&cs->end) + cdevs_pipe_pending(&ss->end), 0);
    CHECK_EQ_INT(destroyed, 12); /* the 6 requests and 6 replies, fetched and released */
  }
  cdevs_sim_free(sim);
  CHECK_EQ_INT(destroyed, 15);
  cdevs_model_free(root);
  CHECK_EQ_INT(c.blocks, 0);
  CHECK_EQ_INT(c.live, 0);
}

/*
 * A pipe of four: a broadcaster and three receivers on a bus (the third inside a
 * coupled model whose port the pipe passes through). At t = 1 the broadcaster puts one
 * note (value 42, tag 7; the note owns a heap block, so a copy must copy it too). Each
 * receiver gets its own copy and adds its number to it; receiver 1 fetches and releases
 * its copy, 2 and 3 keep theirs. At t = 2 receiver 3 puts its note (45) back on the bus:
 * the broadcaster and receivers 1 and 2 each get a copy of it, receiver 3 none. The
 * simulation ends with seven notes in the pipes: leaked by nobody.
 */
typedef struct note {
  int value;
  cdevs_alloc alloc; /* of `trail` */
  int *trail;        /* owned: the ids of the receivers that changed this copy */
} note;

static long notes_destroyed;
static void note_destroy(void *payload_) {
  note *n = payload_;
  if (n->trail) n->alloc.realloc(n->alloc.ud, n->trail, 4 * sizeof(int), 0);
  notes_destroyed++;
}
static const cdevs_msg_type note_type = {"note", note_destroy};

static cdevs_msg *note_new(const cdevs_alloc *a, int value) {
  cdevs_msg *m = cdevs_msg_new(a, &note_type, sizeof(note));
  if (!m) return NULL;
  note *n = cdevs_msg_data(m);
  n->alloc = *a;
  n->trail = a->realloc(a->ud, NULL, 0, 4 * sizeof(int));
  if (!n->trail) {
    cdevs_msg_release(m);
    return NULL;
  }
  memset(n->trail, 0, 4 * sizeof(int));
  n->value = value;
  return m;
}

/* The copy a broadcast makes: the value and a copy of the trail, not the pointer. */
static long note_copies;
static cdevs_msg *note_copy(cdevs_msg *m, const cdevs_alloc *a, void *ud) {
  (void)ud;
  note_copies++;
  const note *src = cdevs_msg_data(m);
  cdevs_msg *c = note_new(a, src->value);
  if (c) memcpy(((note *)cdevs_msg_data(c))->trail, src->trail, 4 * sizeof(int));
  return c;
}
static note *note_of(cdevs_msg *m) { return m ? cdevs_msg_data(m) : NULL; }

static const cdevs_port_def bus_port[] = {{"bus", CDEVS_MSG}, {NULL, CDEVS_ANY}};

typedef struct bus_state {
  int id;
  cdevs_pipe_end end;
  double now, next;
  cdevs_msg *original; /* the broadcaster's own reference to what it sent */
  int seen;            /* a receiver: the value of its copy when it arrived at t = 1 */
} bus_state;

static int bus_init(cdevs_ctx *cx, void *state, const void *arg) {
  bus_state *s = state;
  s->id = *(const int *)arg;
  s->next = s->id == 0 ? 1.0 : s->id == 3 ? 2.0 : INFINITY;
  return cdevs_pipe_open(&s->end, cx, "bus", note_copy, NULL);
}
static double bus_ta(const void *state) {
  const bus_state *s = state;
  double own = s->next - s->now, pipe = cdevs_pipe_ta(&s->end);
  return own < pipe ? own : pipe;
}
static void bus_out(cdevs_ctx *cx, const void *state) { cdevs_pipe_flush(cx, &((const bus_state *)state)->end); }
static void bus_int(cdevs_ctx *cx, void *state) {
  bus_state *s = state;
  cdevs_pipe_sent(&s->end);
  s->now = cdevs_ctx_time(cx);
  if (s->now < s->next) return;
  s->next = INFINITY;
  cdevs_msg *m;
  if (s->id == 0) {
    m = s->original = note_new(cdevs_ctx_alloc(cx), 42);
    if (m) cdevs_msg_set_tag(m, 7);
  } else { /* receiver 3 sends its own copy on */
    m = cdevs_msg_retain(cdevs_mailbox_read(cdevs_pipe_inbox(&s->end), NULL, NULL));
  }
  if (!m || cdevs_pipe_put(&s->end, m) != CDEVS_OK) cdevs_ctx_fail(cx, "out of memory");
  if (s->id != 0) cdevs_msg_release(m);
}
static void bus_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  bus_state *s = state;
  s->now = cdevs_ctx_time(cx);
  if (cdevs_pipe_take(&s->end, x) != CDEVS_OK) {
    cdevs_ctx_fail(cx, "take failed");
    return;
  }
  if (s->now != 1.0 || s->id == 0) return;
  cdevs_mailbox *in = cdevs_pipe_inbox(&s->end);
  note *n = note_of(cdevs_mailbox_read(in, NULL, NULL));
  if (!n) return;
  s->seen = n->value;
  n->value += s->id; /* changes this receiver's copy only */
  n->trail[s->id] = 1;
  if (s->id == 1) cdevs_msg_release(cdevs_mailbox_get(in, NULL, NULL));
}
static void bus_fini(void *state) {
  bus_state *s = state;
  cdevs_pipe_close(&s->end);
  cdevs_msg_release(s->original);
}
static const cdevs_atomic_ops bus_ops = {
    .type = "bus node", .state_size = sizeof(bus_state), .arg_size = sizeof(int), .inputs = bus_port,
    .outputs = bus_port, .init = bus_init, .ta = bus_ta, .output = bus_out, .delta_int = bus_int,
    .delta_ext = bus_ext, .fini = bus_fini};

/* What the broadcast left, read before the simulator goes. */
typedef struct bus_result {
  int receivers[4];
  int original, kept[4][3], nkept[4], trail_bits[4][3];
  int32_t tags[4][3];
  int seen[4]; /* the value each receiver found, before it changed its copy */
} bus_result;

/* Builds and runs the bus through a; fills r when the run succeeded. */
static cdevs_status bus_scenario(const cdevs_alloc *a, bus_result *r) {
  static const int ids[] = {0, 1, 2, 3};
  cdevs_model *root = cdevs_root_new(a, "bus");
  cdevs_model *ends[4];
  ends[0] = cdevs_atomic_add(root, "broadcaster", &bus_ops, &ids[0]);
  ends[1] = cdevs_atomic_add(root, "r1", &bus_ops, &ids[1]);
  ends[2] = cdevs_atomic_add(root, "r2", &bus_ops, &ids[2]);
  cdevs_model *wrap = cdevs_coupled_add(root, "wrap");
  cdevs_port_add(wrap, CDEVS_IN, "bus", CDEVS_MSG);
  cdevs_port_add(wrap, CDEVS_OUT, "bus", CDEVS_MSG);
  cdevs_model *r3 = cdevs_atomic_add(wrap, "r3", &bus_ops, &ids[3]);
  cdevs_pipe_connect(wrap, wrap, "bus", r3, "bus");
  ends[3] = wrap;
  cdevs_status st = cdevs_pipe_join(root, ends, 4, "bus");
  cdevs_sim *sim = NULL;
  if (!st) st = cdevs_sim_new(root, NULL, &sim);
  if (!st) st = cdevs_sim_run(sim, 5);
  if (!st && r) {
    memset(r, 0, sizeof *r);
    bus_state *s[4];
    for (int i = 0; i < 4; i++) s[i] = cdevs_sim_state(sim, i < 3 ? ends[i] : r3);
    for (int i = 0; i < 4; i++) {
      r->receivers[i] = (int)cdevs_pipe_receivers(&s[i]->end);
      cdevs_mailbox *in = cdevs_pipe_inbox(&s[i]->end);
      r->nkept[i] = (int)cdevs_mailbox_count(in);
      for (int k = 0; k < r->nkept[i] && k < 3; k++) {
        cdevs_msg *m = cdevs_mailbox_at(in, (size_t)k);
        r->kept[i][k] = note_of(m)->value;
        r->tags[i][k] = cdevs_msg_tag(m);
        for (int j = 1; j <= 3; j++) r->trail_bits[i][k] |= note_of(m)->trail[j] << j;
      }
    }
    r->original = s[0]->original ? note_of(s[0]->original)->value : -1;
    for (int i = 1; i < 4; i++) r->seen[i] = s[i]->seen;
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return st;
}

static void test_pipe_broadcast(void) {
  counting c = {0, 0, 0, 0, 0};
  cdevs_alloc al = {counting_realloc, &c};
  bus_result r;
  notes_destroyed = note_copies = 0;
  if (!CHECK_RUN(bus_scenario(&al, &r))) return;
  for (int i = 0; i < 4; i++) CHECK_EQ_INT(r.receivers[i], 3);
  /* Whatever order the receivers ran in, each found 42: no other's change reached it. */
  for (int i = 1; i < 4; i++) CHECK_EQ_INT(r.seen[i], 42);
  CHECK_EQ_INT(r.original, 42); /* the receivers changed their copies, not the original */
  /* t = 1: three copies; t = 2: three more of receiver 3's note (45). */
  CHECK_EQ_INT(note_copies, 6);
  CHECK_EQ_INT(r.nkept[0], 1); /* the broadcaster: 45, from receiver 3 */
  CHECK_EQ_INT(r.kept[0][0], 45);
  CHECK_EQ_INT(r.trail_bits[0][0], 1 << 3); /* changed by 3 only: the trail was copied */
  CHECK_EQ_INT(r.nkept[1], 1); /* receiver 1 fetched its 43: 45 only */
  CHECK_EQ_INT(r.kept[1][0], 45);
  CHECK_EQ_INT(r.nkept[2], 2); /* receiver 2: its 44, then 45 */
  CHECK_EQ_INT(r.kept[2][0], 44);
  CHECK_EQ_INT(r.trail_bits[2][0], 1 << 2);
  CHECK_EQ_INT(r.kept[2][1], 45);
  CHECK_EQ_INT(r.trail_bits[2][1], 1 << 3);
  CHECK_EQ_INT(r.nkept[3], 1); /* receiver 3: its own 45, not its echo */
  CHECK_EQ_INT(r.kept[3][0], 45);
  for (int i = 0; i < 4; i++)
    for (int k = 0; k < r.nkept[i]; k++) CHECK_EQ_INT(r.tags[i][k], 7); /* copies keep the tag */
  /* Made: the original and six copies; gone with the simulation, with their trails. */
  CHECK_EQ_INT(notes_destroyed, 7);
  CHECK_EQ_INT(c.blocks, 0);
  CHECK_EQ_INT(c.live, 0);
  printf("pipe broadcast: 1 note to 3 receivers and 1 back to 3: %ld copies, %ld notes freed, "
         "%ld allocations, 0 blocks left\n", note_copies, notes_destroyed, c.calls);

  /* Out of memory at each allocation in turn (building, running, a copy, a trail):
     every failure is an error of the run, and nothing is left allocated. */
  long total = c.calls, surfaced = 0, leaks = 0;
  for (long n = 1; n <= total; n++) {
    memset(&c, 0, sizeof c);
    c.fail_at = n;
    cdevs_status st = bus_scenario(&al, NULL);
    if (!c.failed) continue;
    surfaced += st != CDEVS_OK;
    if (c.blocks || c.live) {
      leaks++;
      fprintf(stderr, "pipe broadcast: allocation %ld of %ld failed: %ld blocks left\n", n, total, c.blocks);
    }
  }
  CHECK_EQ_INT(surfaced, total);
  CHECK_EQ_INT(leaks, 0);
}

/* Copies without a copy function (arrays), refusals, and misuse. */
static void test_pipe_edges(void) {
  destroyed = 0;
  /* An end taken by hand: it broadcasts (reaches two), copies arrays by value. */
  cdevs_pipe_end end;
  memset(&end, 0, sizeof end);
  end.receivers = 2;
  end.alloc = *cdevs_alloc_default();
  cdevs_msg *arr = cdevs_array_new(NULL, 3);
  double *v = cdevs_array_data(arr, NULL);
  v[0] = 1, v[1] = 2, v[2] = 3;
  cdevs_msg_set_tag(arr, 5);
  cdevs_value va = cdevs_msgval(arr), vi = cdevs_int(1);
  cdevs_event ev[] = {{0, &va}, {1, &vi}};
  cdevs_bag bag = {ev, 2};
  CHECK(cdevs_pipe_take(&end, &bag) == CDEVS_OK); /* port 1's integer is not the pipe's */
  cdevs_msg *got = cdevs_mailbox_read(cdevs_pipe_inbox(&end), NULL, NULL);
  size_t n = 0;
  double *g = cdevs_array_data(got, &n);
  CHECK(got && got != arr && n == 3 && g && g[0] == 1 && g[1] == 2 && g[2] == 3 && cdevs_msg_tag(got) == 5);
  g[1] = 20;
  CHECK(v[1] == 2); /* the copy is the receiver's */
  CHECK_EQ_INT(cdevs_msg_refs(arr), 1);
  /* A message of another type cannot be copied without a copy function: refused whole. */
  cdevs_msg *other = mk(NULL, 1, 1);
  cdevs_value vo = cdevs_msgval(other);
  cdevs_event ev2[] = {{0, &va}, {0, &vo}};
  cdevs_bag two = {ev2, 2};
  CHECK(cdevs_pipe_take(&end, &two) == CDEVS_EKIND);
  CHECK_EQ_INT(cdevs_mailbox_count(cdevs_pipe_inbox(&end)), 1);
  /* A copy that fails: nothing of the bag stored, the copies made so far released. */
  counting c = {0, 0, 0, 0, 0};
  cdevs_alloc al = {counting_realloc, &c};
  end.alloc = al;
  cdevs_event ev3[] = {{0, &va}, {0, &va}, {0, &va}};
  cdevs_bag three = {ev3, 3};
  c.fail_at = 2; /* the ring has room; the first copy is made, the second fails */
  CHECK(cdevs_pipe_take(&end, &three) == CDEVS_ENOMEM);
  CHECK_EQ_INT(cdevs_mailbox_count(cdevs_pipe_inbox(&end)), 1);
  CHECK_EQ_INT(cdevs_mailbox_arrivals(cdevs_pipe_inbox(&end)), 1);
  CHECK_EQ_INT(c.blocks, 0);
  CHECK(cdevs_pipe_take(&end, NULL) == CDEVS_EINVAL);
  CHECK(cdevs_pipe_take(NULL, &bag) == CDEVS_EINVAL);
  cdevs_pipe_close(&end);
  cdevs_pipe_close(&end); /* closed twice: nothing left to release */
  cdevs_pipe_close(NULL);
  cdevs_msg_release(arr);
  cdevs_msg_release(other);
  CHECK_EQ_INT(destroyed, 1);
  CHECK(cdevs_pipe_put(NULL, arr) == CDEVS_EINVAL);
  CHECK(cdevs_pipe_ta(NULL) == INFINITY);
  CHECK(cdevs_pipe_inbox(NULL) == NULL);
  CHECK_EQ_INT(cdevs_pipe_receivers(NULL) + cdevs_pipe_pending(NULL), 0);

  /* Building: a pipe of one; an end whose model lacks the port; an end that reaches
     nobody. */
  cdevs_model *root = cdevs_root_new(NULL, "bad");
  peer_arg pa = {NULL, 0};
  cdevs_model *lone = cdevs_atomic_add(root, "lone", &peer_ops, &pa);
  CHECK(cdevs_pipe_join(root, &lone, 1, "link") == CDEVS_EINVAL);
  CHECK(strstr(cdevs_model_errmsg(root), "a pipe joins at least two ends (got 1)") != NULL);
  cdevs_model_free(root);
  root = cdevs_root_new(NULL, "bad");
  cdevs_atomic_add(root, "lone", &peer_ops, &pa);
  cdevs_sim *sim = NULL;
  CHECK(cdevs_sim_new(root, NULL, &sim) != CDEVS_OK && sim == NULL);
  CHECK(strstr(cdevs_model_errmsg(root), "pipe 'link' reaches no other end") != NULL);
  cdevs_model_free(root);
  root = cdevs_root_new(NULL, "bad");
  int id = 1;
  cdevs_model *b1 = cdevs_atomic_add(root, "b1", &bus_ops, &id);
  cdevs_model *p1 = cdevs_atomic_add(root, "p1", &peer_ops, &pa);
  cdevs_connect(root, b1, "bus", p1, "link");
  cdevs_connect(root, p1, "link", b1, "bus");
  sim = NULL;
  CHECK(cdevs_sim_new(root, NULL, &sim) == CDEVS_OK); /* ports of other names are fine */
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  static const cdevs_port_def real_port[] = {{"link", CDEVS_REAL}, {NULL, CDEVS_ANY}};
  static const cdevs_atomic_ops wrong_ops = {
      .type = "wrong", .state_size = sizeof(peer_state), .arg_size = sizeof(peer_arg),
      .inputs = real_port, .outputs = real_port, .init = peer_init, .ta = peer_ta, .fini = peer_fini};
  root = cdevs_root_new(NULL, "bad");
  cdevs_model *w1 = cdevs_atomic_add(root, "w1", &wrong_ops, &pa), *w2 = cdevs_atomic_add(root, "w2", &wrong_ops, &pa);
  cdevs_pipe_connect(root, w1, "link", w2, "link");
  sim = NULL;
  CHECK(cdevs_sim_new(root, NULL, &sim) != CDEVS_OK);
  CHECK(strstr(cdevs_model_errmsg(root), "ports must be of kind msg or any") != NULL);
  cdevs_model_free(root);
}

int main(void) {
  test_tags();
  test_order_and_selection();
  test_check();
  test_wrap();
  test_against_array();
  test_take_bag();
  test_out_of_memory();
  test_bad_input();
  test_simultaneous();
  test_shared();
  test_fig7_mm1();
  test_pipe_request_reply();
  test_pipe_broadcast();
  test_pipe_edges();
  return check_report("test_mailbox");
}
