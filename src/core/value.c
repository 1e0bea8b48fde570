/* SPDX-License-Identifier: MIT */
/* Event values and reference-counted messages (user payloads and real arrays). */
#include <math.h>
#include <stdalign.h>
#include <string.h>

#include "alloc_impl.h"
#include "cdevs/value.h"

struct cdevs_msg {
  size_t refs;
  size_t size; /* payload bytes */
  const cdevs_msg_type *type;
  /* A copy, not a pointer: the allocator passed in may live in a simulator (or on the
     caller's stack) that goes away while the message is still held. */
  cdevs_alloc alloc;
  /* On LP64 it fills padding before the payload's alignment: the header stays 48 bytes. */
  int32_t tag;
  alignas(max_align_t) unsigned char data[];
};

cdevs_value cdevs_taylor(int order, const double *c) {
  cdevs_value v;
  memset(&v, 0, sizeof v);
  if (order < 0) order = 0;
  if (order > CDEVS_TAYLOR_MAX) order = CDEVS_TAYLOR_MAX;
  v.kind = CDEVS_TAYLOR;
  v.order = (uint8_t)order;
  for (int i = 0; i <= order; i++) v.u.taylor[i] = c[i];
  return v;
}

double cdevs_value_eval(const cdevs_value *v, double tau) {
  switch (v->kind) {
  case CDEVS_REAL:
    return v->u.real;
  case CDEVS_INT:
    return (double)v->u.integer;
  case CDEVS_TAYLOR: {
    double r = 0.0;
    for (int i = v->order; i >= 0; i--) r = r * tau + v->u.taylor[i];
    return r;
  }
  default:
    return NAN;
  }
}

const char *cdevs_kind_name(int kind) {
  switch (kind) {
  case CDEVS_ANY: return "any";
  case CDEVS_REAL: return "real";
  case CDEVS_TAYLOR: return "taylor";
  case CDEVS_INT: return "int";
  case CDEVS_ARRAY: return "array";
  case CDEVS_MSG: return "msg";
  default: return "?";
  }
}

cdevs_msg *cdevs_msg_new(const cdevs_alloc *a, const cdevs_msg_type *type, size_t size) {
  if (!a) a = cdevs_alloc_default();
  if (size > SIZE_MAX - sizeof(cdevs_msg)) return NULL;
  cdevs_msg *m = cdevs__calloc(a, 1, sizeof(cdevs_msg) + size);
  if (!m) return NULL;
  m->refs = 1;
  m->size = size;
  m->type = type;
  m->alloc = *a;
  return m;
}

cdevs_msg *cdevs_msg_retain(cdevs_msg *m) {
  if (m) m->refs++;
  return m;
}

void cdevs_msg_release(cdevs_msg *m) {
  if (!m || --m->refs > 0) return;
  if (m->type && m->type->destroy) m->type->destroy(m->data);
  cdevs_alloc a = m->alloc;
  cdevs__free(&a, m, sizeof(cdevs_msg) + m->size);
}

void *cdevs_msg_data(cdevs_msg *m) { return m ? m->data : NULL; }
const cdevs_msg_type *cdevs_msg_type_of(const cdevs_msg *m) { return m ? m->type : NULL; }
size_t cdevs_msg_refs(const cdevs_msg *m) { return m ? m->refs : 0; }
int32_t cdevs_msg_tag(const cdevs_msg *m) { return m ? m->tag : 0; }

void cdevs_msg_set_tag(cdevs_msg *m, int32_t tag) {
  if (m) m->tag = tag;
}

static const cdevs_msg_type array_type = {"real array", NULL};

typedef struct array_payload {
  size_t n;
  double v[];
} array_payload;

cdevs_msg *cdevs_array_new(const cdevs_alloc *a, size_t n) {
  if (n > (SIZE_MAX - sizeof(array_payload)) / sizeof(double)) return NULL;
  cdevs_msg *m = cdevs_msg_new(a, &array_type, sizeof(array_payload) + n * sizeof(double));
  if (m) ((array_payload *)(void *)m->data)->n = n;
  return m;
}

double *cdevs_array_data(cdevs_msg *m, size_t *n) {
  if (!m || m->type != &array_type) {
    if (n) *n = 0;
    return NULL;
  }
  array_payload *p = (array_payload *)(void *)m->data;
  if (n) *n = p->n;
  return p->v;
}
