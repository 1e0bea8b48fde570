/* SPDX-License-Identifier: MIT */
/* SIMANLib: SIMAN's blocks as atomic models of the kernel — Queue, Seize, Delay,
 * Release, Branch, Count and Tally — beside the modules of proc.h (Create, Assign and
 * Dispose serve as SIMAN's CREATE, ASSIGN and DISPOSE). Arena's Process is Queue →
 * Seize → Delay → Release fused into one block; these are the separate pieces. */
#ifndef CDEVS_SIMAN_H
#define CDEVS_SIMAN_H

#include <stdint.h>

#include "model.h"
#include "proc.h"
#include "random.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Queue: entities arriving on "in" wait, in the order of `rule` (cdevs_queue_rule;
 * ties in order of arrival), until the Seize after it can take them. Its "out" must
 * lead to exactly one Seize and nowhere else. An arrival finding `capacity` entities
 * waiting balks: it is counted, and leaves by "balk" if that is connected, else it
 * leaves the system there. Statistics under "Queue", owner `name`: NQ (time-persistent),
 * WaitTime (tally), NumberBalked (count) — what Process keeps as "<path>.Queue".
 *
 * The Queue and its Seize act as one seize point of the resource, so that an entity
 * leaves the queue exactly when units are there for it, under the rules Process uses
 * (lowest priority value first, then the point whose first entity waited longest):
 *   1. At the start time the Queue emits on "out" a link message (not an entity); the
 *      Seize answers in it with its resource, units and priority, and joins the
 *      resource as a waiting point on the Queue's behalf. At the next step of the same
 *      instant the Queue checks the answer: without one, the run fails naming the Queue.
 *   2. The Queue keeps the point up to date (how many wait, since when, for how many
 *      units). When units are free, or were set aside for the point by a release
 *      anywhere (a Release, a Process), the Queue takes them for its first entity in
 *      that same transition — nobody can take them in between — books them on the
 *      entity and lets it go by "out" at the same instant.
 *   3. A release sets units aside for the point and wakes the Queue through the input
 *      "_wake" (input 1, as on Process: the kernel's cdevs_send; names starting with '_'
 *      are internal). The Seize passes the entity on at once, after checking it came
 *      from its Queue with units granted.
 * Entities arriving before the link is confirmed (at the start time) wait and are
 * served right after it, at the same time; a Process competing for the same free units
 * at that instant gets them first. Observers of outputs see the link as the Queue's
 * output at the start time (cdevs_entity_of gives NULL for it).
 *
 * Queue → Seize → Delay (its stream named after the Process) → Release give the
 * statistics of Process with CDEVS_SEIZE_DELAY_RELEASE bit for bit when the resource
 * has that one seize point, no warm-up is set and the span (cdevs_proc_opts) is given.
 * Process also records its NQ at each of its departures; where that leaves NQ unchanged
 * but not at its start value (units going to another point, or after a warm-up), the
 * two sum NQ's integral in different pieces and agree to rounding; with no span, the
 * first record after the start fixes NQ's batch length, and its half-width may differ.
 */
typedef struct cdevs_siman_queue_params {
  cdevs_proc *proc;
  const char *name;      /* the queue's name in statistics and reports; the block's name if NULL */
  int rule;              /* cdevs_queue_rule */
  const char *rank_attr; /* the attribute of CDEVS_LVF and CDEVS_HVF */
  uint64_t capacity;     /* waiting entities at most; 0: unlimited */
} cdevs_siman_queue_params;
extern const cdevs_atomic_ops cdevs_siman_queue_ops;

/* Seize: `units` of `resource` for each entity, with `priority` among the points
 * seizing it (lower first). It must follow a Queue (above); entities leave by "out". */
typedef struct cdevs_siman_seize_params {
  cdevs_proc *proc;
  const char *resource;
  int units;    /* 1 .. the resource's capacity */
  int priority;
} cdevs_siman_seize_params;
extern const cdevs_atomic_ops cdevs_siman_seize_ops;

/* Delay: each entity on "in" stays for a time drawn from `delay` and leaves by "out";
 * entities are ordered by leaving time, so they overtake (any number at once: an
 * infinite server). The time is added to the entity's `allocation` (cdevs_alloc_kind).
 * Its random stream is "<stream>.delay", stream the block's name if NULL: naming the
 * Process a Delay replaces gives it that Process's delays. A negative or NaN draw stops
 * the run with an error naming the block. */
typedef struct cdevs_siman_delay_params {
  cdevs_proc *proc;
  cdevs_dist delay;
  int allocation;     /* cdevs_alloc_kind */
  const char *stream; /* NULL: this block's name */
} cdevs_siman_delay_params;
extern const cdevs_atomic_ops cdevs_siman_delay_ops;

/* Release: each entity on "in" gives back `units` of `resource` and leaves by "out" at
 * once; the units go to the waiting points (Queues, Processes) as resource rules say.
 * Releasing units the entity does not hold stops the run with an error naming it. */
typedef struct cdevs_siman_release_params {
  cdevs_proc *proc;
  const char *resource;
  int units; /* >= 1 */
} cdevs_siman_release_params;
extern const cdevs_atomic_ops cdevs_siman_release_ops;

/*
 * Branch (SIMAN BRANCH): output k ("out1".."outN") is a WITH branch taken with chance
 * percent[k], an IF branch taken when its condition holds (attr[k] op[k] value[k], the
 * comparisons of Decide; attr names a variable if there is one of that name, else the
 * entity's attribute), an ELSE branch taken when no WITH or IF branch was, or an ALWAYS
 * branch always taken. One uniform draw per entity chooses among the WITH branches (at
 * most one is taken); their chances add up to at most 100, and to 100 if there is no
 * ELSE. The entity leaves by the chosen WITH or ELSE branch, else by the first IF
 * branch taken, else by the first ALWAYS branch; a duplicate — a new entity with its
 * type, attributes, creation time and accumulated times, holding no resources — leaves
 * by every other branch taken. An entity that takes no branch (IF branches only, none
 * holding) stops the run with an error. Stream "<path>.chance".
 */
typedef enum cdevs_siman_branch_kind {
  CDEVS_SIMAN_WITH = 0,
  CDEVS_SIMAN_ELSE,
  CDEVS_SIMAN_ALWAYS,
  CDEVS_SIMAN_IF
} cdevs_siman_branch_kind;
#define CDEVS_SIMAN_BRANCH_MAX 16
typedef struct cdevs_siman_branch_params {
  cdevs_proc *proc;
  int n_out;                              /* 1 .. CDEVS_SIMAN_BRANCH_MAX */
  int kind[CDEVS_SIMAN_BRANCH_MAX];       /* cdevs_siman_branch_kind per output */
  double percent[CDEVS_SIMAN_BRANCH_MAX]; /* the chance of a WITH output, 0 .. 100 */
  const char *attr[CDEVS_SIMAN_BRANCH_MAX]; /* an IF output's condition: attr op value */
  int op[CDEVS_SIMAN_BRANCH_MAX];           /* cdevs_decide_op */
  double value[CDEVS_SIMAN_BRANCH_MAX];
} cdevs_siman_branch_params;
extern const cdevs_atomic_ops cdevs_siman_branch_ops;

/* Count: adds `increment` (0 counts 1) to the counter "<name>.Count" (category "User";
 * the block's name if name is NULL) for each entity on "in", which leaves by "out" at
 * once. Blocks naming the same counter share it, as SIMAN's COUNT blocks do. */
typedef struct cdevs_siman_count_params {
  cdevs_proc *proc;
  const char *name;
  uint64_t increment;
} cdevs_siman_count_params;
extern const cdevs_atomic_ops cdevs_siman_count_ops;

/* Tally: records, for each entity on "in", its time since creation, an attribute's
 * value, or the time since an attribute's value (an interval), in the tally
 * "<name>.Value" (category "User"; shared by blocks naming it); the entity leaves by
 * "out" at once. */
typedef enum cdevs_siman_tally_kind {
  CDEVS_SIMAN_TIME_IN_SYSTEM = 0,
  CDEVS_SIMAN_ATTR,
  CDEVS_SIMAN_INTERVAL
} cdevs_siman_tally_kind;
typedef struct cdevs_siman_tally_params {
  cdevs_proc *proc;
  int kind;         /* cdevs_siman_tally_kind */
  const char *attr; /* for CDEVS_SIMAN_ATTR and CDEVS_SIMAN_INTERVAL */
  const char *name; /* NULL: the block's name */
} cdevs_siman_tally_params;
extern const cdevs_atomic_ops cdevs_siman_tally_ops;

#ifdef __cplusplus
}
#endif
#endif
