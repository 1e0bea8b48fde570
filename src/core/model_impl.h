/* SPDX-License-Identifier: MIT */
/* The hierarchical model tree as the builder keeps it (flattened by sim_new). */
#ifndef CDEVS_MODEL_IMPL_H
#define CDEVS_MODEL_IMPL_H

#include <stdatomic.h>
#include <stdbool.h>

#include "cdevs/model.h"

/* Ports are cdevs_port_def: names live in the root's name arena, or are borrowed
   from an ops table's static lists until a port is added to that model. */

/* A coupling inside a coupled model; child index -1 is the coupled model itself. */
typedef struct coupling {
  int32_t src, src_port, dst, dst_port;
} coupling;

/* The root's arena: names, nodes and atomic arguments live here until the tree is
   freed, which saves a heap block (and its overhead) per model. */
typedef struct arena_chunk {
  struct arena_chunk *next;
  size_t size, used;
  _Alignas(16) unsigned char data[];
} arena_chunk;

/* Root-only data: allocator, sticky error, the arena of names. */
typedef struct root_info {
  cdevs_alloc alloc;
  cdevs_status status;
  char errmsg[512];
  arena_chunk *arena;
  cdevs_model *root;
  uint32_t n_atomic;   /* atomics in the tree, for sizing the flattened arrays */
  uint64_t n_eic, n_ic, n_eoc; /* couplings in the tree, by kind */
  uint64_t n_coupled;
  /* live simulators built from this tree, which freezes it; atomic because replications
     may be built and freed from several threads */
  atomic_uint_least32_t nsims;
} root_info;

/* An open-addressed index of a list's names (slot: list position, or -1), built
   once the list reaches 16 names; shorter lists are scanned. */
typedef struct name_index {
  int32_t *slot;
  uint32_t cap;
} name_index;

/* What only coupled models have; atomic models point at a shared empty one. */
typedef struct coupled_part {
  cdevs_model **children;
  uint32_t nchildren, capchildren;
  name_index ix; /* of the children's names */
  coupling *couplings;
  uint32_t ncouplings, capcouplings;
} coupled_part;

struct cdevs_model {
  cdevs_model *parent;
  root_info *ri; /* same pointer in every node of a tree */
  const char *name;
  cdevs_port_def *ports[2];
  uint32_t nports[2], capports[2];
  int32_t index; /* position among the parent's children */
  int32_t priority;
  bool atomic;
  bool own_ports; /* ports[] is an allocated copy rather than the ops lists */
  name_index *port_ix; /* [2], of the port names, once a list of own ports grows */
  const cdevs_atomic_ops *ops; /* atomic */
  void *arg;                   /* atomic, in the arena */
  coupled_part *cp;
};

/* An error of the model tree (a bad coupling, an unconnected input): sticky, every
 * later build call and cdevs_sim_new return it. */
void cdevs__model_error(cdevs_model *m, cdevs_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Why a cdevs_sim_new failed where the tree is not at fault (options, memory, a
 * model's init): cdevs_model_errmsg says it, and the next cdevs_sim_new may succeed. */
void cdevs__model_note(cdevs_model *m, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Changes of the tree during a run (structure.c), each error said into msg (n bytes)
 * rather than made sticky:
 * - node_new: a model for parent, detached (index -1) until node_attach; ops NULL
 *   makes a coupled one;
 * - node_attach: into its parent's children (a duplicate name is refused);
 * - node_attached: m is in its parent's children (the root is);
 * - coupling_add / coupling_remove: checked as cdevs_connect does; a duplicate, or
 *   no such coupling, refused;
 * - node_detach: out of its parent's children with every coupling of the parent
 *   that touches it, the others renumbered, the tree's counts lowered;
 * - node_release: what a detached subtree holds outside the arena, freed. */
cdevs_model *cdevs__node_new(cdevs_model *parent, const char *name, const cdevs_atomic_ops *ops, const void *arg,
                             char *msg, size_t n);
cdevs_status cdevs__node_attach(cdevs_model *m, char *msg, size_t n);
int cdevs__node_attached(const cdevs_model *m);
cdevs_status cdevs__coupling_add(cdevs_model *parent, cdevs_model *from, int fp, cdevs_model *to, int tp, char *msg,
                                 size_t n);
cdevs_status cdevs__coupling_remove(cdevs_model *parent, cdevs_model *from, int fp, cdevs_model *to, int tp,
                                    char *msg, size_t n);
void cdevs__node_detach(cdevs_model *m);
void cdevs__node_release(cdevs_model *m);

#endif
