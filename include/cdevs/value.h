/* SPDX-License-Identifier: MIT */
/* Values carried by events: reals, Taylor polynomials, integers, real arrays, messages. */
#ifndef CDEVS_VALUE_H
#define CDEVS_VALUE_H

#include <stddef.h>
#include <stdint.h>

#include "alloc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The kind of a value, and of a port. A port of kind CDEVS_ANY accepts every kind. */
typedef enum cdevs_kind {
  CDEVS_ANY = 0,
  CDEVS_REAL,   /* u.real */
  CDEVS_TAYLOR, /* u.taylor[0..order]: value, slope, curvature/2, third coefficient */
  CDEVS_INT,    /* u.integer */
  CDEVS_ARRAY,  /* u.msg, a reference-counted array of reals (cdevs_array_*) */
  CDEVS_MSG     /* u.msg, a reference-counted user message */
} cdevs_kind;

#define CDEVS_TAYLOR_MAX 3

typedef struct cdevs_msg cdevs_msg;

/*
 * A small tagged value, copied by value. Only CDEVS_ARRAY and CDEVS_MSG refer to
 * heap objects; copying such a value does not take a reference (see cdevs_msg_retain).
 */
typedef struct cdevs_value {
  uint8_t kind;  /* cdevs_kind */
  uint8_t order; /* CDEVS_TAYLOR: index of the highest coefficient (0..3) */
  union {
    double real;
    double taylor[CDEVS_TAYLOR_MAX + 1];
    int64_t integer;
    cdevs_msg *msg;
  } u;
} cdevs_value;

static inline cdevs_value cdevs_real(double x) {
  cdevs_value v;
  v.kind = CDEVS_REAL;
  v.order = 0;
  v.u.taylor[1] = v.u.taylor[2] = v.u.taylor[3] = 0.0;
  v.u.real = x;
  return v;
}

static inline cdevs_value cdevs_int(int64_t i) {
  cdevs_value v;
  v.kind = CDEVS_INT;
  v.order = 0;
  v.u.taylor[1] = v.u.taylor[2] = v.u.taylor[3] = 0.0;
  v.u.integer = i;
  return v;
}

/* A Taylor polynomial c[0] + c[1]·τ + c[2]·τ² + c[3]·τ³; order is clamped to 0..3. */
cdevs_value cdevs_taylor(int order, const double *c);

/* Evaluates a REAL, INT or TAYLOR value τ time units after its event; NaN otherwise. */
double cdevs_value_eval(const cdevs_value *v, double tau);

/* The name of a kind ("real", "taylor", "int", "array", "msg", "any"). */
const char *cdevs_kind_name(int kind);

/* ---- Reference-counted messages ------------------------------------------------ */

/* What a message payload is. destroy (may be NULL) releases what the payload owns. */
typedef struct cdevs_msg_type {
  const char *name;
  void (*destroy)(void *payload);
} cdevs_msg_type;

/* A new message with `size` zeroed payload bytes and one reference; NULL if out of memory.
   The message keeps a copy of *a (a may be NULL: the C library), so it may outlive the
   simulator whose allocator it was made with (cdevs_ctx_alloc); whatever a->ud points
   to must live until the last reference is released. */
cdevs_msg *cdevs_msg_new(const cdevs_alloc *a, const cdevs_msg_type *type, size_t size);
cdevs_msg *cdevs_msg_retain(cdevs_msg *m);
/* Drops one reference; the last one destroys the payload and frees it. NULL is ignored. */
void cdevs_msg_release(cdevs_msg *m);
void *cdevs_msg_data(cdevs_msg *m);
const cdevs_msg_type *cdevs_msg_type_of(const cdevs_msg *m);
size_t cdevs_msg_refs(const cdevs_msg *m);
/* A message's tag: an integer of the user's (DEVSLib's message type: gettype/settype),
   independent of its payload and its cdevs_msg_type, 0 at creation. Mailboxes select
   by it (cdevs_mailbox_by_tag). cdevs_msg_tag(NULL) is 0; setting it on NULL does
   nothing. */
int32_t cdevs_msg_tag(const cdevs_msg *m);
void cdevs_msg_set_tag(cdevs_msg *m, int32_t tag);

/* A value holding a message; the value borrows the caller's reference. */
static inline cdevs_value cdevs_msgval(cdevs_msg *m) {
  cdevs_value v;
  v.kind = CDEVS_MSG;
  v.order = 0;
  v.u.taylor[1] = v.u.taylor[2] = v.u.taylor[3] = 0.0;
  v.u.msg = m;
  return v;
}

/* ---- Arrays of reals (UDP ports and other vector signals) ---------------------- */

/* A new array message of n reals, zeroed, one reference. */
cdevs_msg *cdevs_array_new(const cdevs_alloc *a, size_t n);
/* The array's elements and count; NULL (and *n = 0) if m is not an array. */
double *cdevs_array_data(cdevs_msg *m, size_t *n);

static inline cdevs_value cdevs_arrayval(cdevs_msg *m) {
  cdevs_value v = cdevs_msgval(m);
  v.kind = CDEVS_ARRAY;
  return v;
}

#ifdef __cplusplus
}
#endif
#endif
