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
  cdevs_model **children; /* NULL: the slot of a child removed during a run */
  uint32_t nchildren, capchildren;
  name_index ix; /* of the children's names */
  coupling *couplings;
  uint32_t ncouplings, capcouplings;
  /* The couplings indexed by their ends (coupling_index.c): built when a structure
   * change during a run first touches the model, NULL in a tree that never changed. */
  struct coupling_index *cix;
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
  uint32_t id;    /* atomic: its id in the simulators of this tree (set by flattening) */
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
 *   no such coupling, refused (they index the parent's couplings: cix_build);
 * - node_detach: out of its parent's children with every coupling of the parent
 *   that touches it, the tree's counts lowered; its slot in children[] stays, NULL,
 *   so no other child is renumbered (every walk over children skips NULL slots);
 *   the parent's couplings must be indexed (cix_build);
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

/* coupling_index.c: the couplings of a coupled model by their ends, for changes
 * during a run.
 * - cix_build: the index of cp's couplings, if it has none; -1 out of memory;
 * - cix_reserve: room for n couplings in it (before a push); -1 out of memory, the
 *   index as it was;
 * - cix_insert: coupling i, just pushed, into the index;
 * - cix_erase: coupling i out of the index and of the array, the last coupling
 *   moving into its place (the array's order means nothing to routes: a source's
 *   chain is kept in destination order, and duplicates are refused);
 * - cix_from / cix_from_next: the couplings leaving end (src, port) (src -1: the
 *   model's input), by destination child then port; cix_to / cix_to_next: those
 *   reaching end (dst, port) (dst -1: its output), in no order. CDEVS_CIX_NONE ends
 *   a chain. */
typedef struct coupling_index coupling_index;
#define CDEVS_CIX_NONE UINT32_MAX
/* A coupling with its position, sorted by its ends (source, then destination; then
 * position, so that equals keep their order): for qsort, which needs no global state
 * this way (coupling_index.c, flatten.c). */
typedef struct cdevs__ckey {
  coupling c;
  uint32_t i;
} cdevs__ckey;
int cdevs__cmp_ckey(const void *pa, const void *pb);
/* Backward-shift deletion in a linearly probed table (the name index, the end maps):
 * the entry at j, whose hash puts it at home, may fill the hole at h when home is not
 * in (h, j] (cyclically). */
static inline int cdevs__probe_movable(uint32_t h, uint32_t j, uint32_t home) {
  return (j > h && (home <= h || home > j)) || (j < h && home <= h && home > j);
}
int cdevs__cix_build(const cdevs_alloc *a, coupled_part *cp);
void cdevs__cix_free(const cdevs_alloc *a, coupled_part *cp);
int cdevs__cix_reserve(const cdevs_alloc *a, coupled_part *cp, uint32_t n);
void cdevs__cix_insert(coupled_part *cp, uint32_t i);
void cdevs__cix_erase(coupled_part *cp, uint32_t i);
uint32_t cdevs__cix_from(const coupled_part *cp, int32_t src, int32_t port);
uint32_t cdevs__cix_from_next(const coupled_part *cp, uint32_t i);
uint32_t cdevs__cix_to(const coupled_part *cp, int32_t dst, int32_t port);
uint32_t cdevs__cix_to_next(const coupled_part *cp, uint32_t i);

#endif
