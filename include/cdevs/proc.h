/* SPDX-License-Identifier: MIT */
/* Process-oriented models (ARENALib, SIMANLib): entities flowing through Create,
 * Process, Decide, Assign, Record and Dispose blocks, sharing resources, with Arena's
 * statistics. The blocks are atomic models of the kernel. */
#ifndef CDEVS_PROC_H
#define CDEVS_PROC_H

#include <stdint.h>
#include <stdio.h>

#include "model.h"
#include "random.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The shared part of a process model, Arena's data modules: entity types, attribute
 * names, resources, the random package seed and replication, and every statistic the
 * blocks keep. Blocks name it in their parameters; it must outlive the simulators of
 * the models that use it. One replication, one cdevs_proc.
 */
typedef struct cdevs_proc cdevs_proc;

typedef struct cdevs_proc_opts {
  uint32_t seed[6];     /* the package seed (cdevs_rng_package_seed) */
  uint64_t replication; /* every random source runs on this substream */
  double start;         /* the start time of the run */
  double warmup;        /* statistics are cleared at start + warmup (0: never) */
  double span;          /* the expected length of the run, for the batch means (0: unknown) */
  int skip_levels;      /* levels below the root left out of block names in statistics and
                           stream names (1: a model file added as one coupled model) */
} cdevs_proc_opts;

/* Default options: package seed 0 (L'Ecuyer's), replication 0, no warm-up. */
cdevs_proc_opts cdevs_proc_opts_default(void);
/* NULL if out of memory or the options are invalid (a bad seed, negative warm-up). */
cdevs_proc *cdevs_proc_new(const cdevs_alloc *a, const cdevs_proc_opts *opts);
void cdevs_proc_free(cdevs_proc *p);

/* The index of an entity type or attribute by name, added if new; negative on error. */
int cdevs_proc_entity_type(cdevs_proc *p, const char *name);
int cdevs_proc_attribute(cdevs_proc *p, const char *name);
/* Adds a resource of `capacity` units (>= 1); its index, or a negative status (a
 * second resource of the same name, a bad capacity). */
int cdevs_proc_resource(cdevs_proc *p, const char *name, int capacity);
/*
 * A capacity schedule for resource r (Arena's Schedule, of type Capacity, with the rule
 * Ignore): cap[0] units for dur[0], then cap[1] for dur[1], …, over again from the start
 * time; each cap >= 0 and dur > 0 finite, some cap >= 1. When the capacity falls below
 * the units seized, those stay seized until released (they are not taken away), and no
 * unit is seized until fewer than the capacity are busy. Utilization is busy units over
 * the capacity now: above 1 while more are busy than the capacity, 1 while units are
 * busy in a break of capacity 0. The statistic "Capacity" (its time average) is added. Blocks may seize up to the schedule's largest capacity. Call it
 * before any block uses r, and add one cdevs_resource_ops model naming r: it makes the
 * changes. 0, or CDEVS_EINVAL / CDEVS_ENOMEM.
 */
int cdevs_proc_resource_schedule(cdevs_proc *p, int r, const int *cap, const double *dur, int n);

/* The model of a resource's schedule (passive for a resource without one). */
#define CDEVS_SCHEDULE_MAX 64 /* entries of a schedule in a model file */
typedef struct cdevs_resource_params {
  cdevs_proc *proc;
  const char *name; /* the resource */
  /* What a model file's cdevs.Resource declares (the model reads only proc and name). */
  int capacity;
  int nsched;
  int sched_cap[CDEVS_SCHEDULE_MAX];
  double sched_dur[CDEVS_SCHEDULE_MAX];
} cdevs_resource_params;
extern const cdevs_atomic_ops cdevs_resource_ops;

/* The index of a resource by name, or −1. */
int cdevs_proc_find_resource(const cdevs_proc *p, const char *name);
/* The first error of the process elements (a bad name, out of memory), or "". */
const char *cdevs_proc_errmsg(const cdevs_proc *p);

/* Adds a variable (Arena's Variable data module) of value v0, whose time average,
 * minimum, maximum and final value are reported (category "Variable", "<name>.Value");
 * its index, or a negative status (a second variable of that name, a name that is an
 * attribute's, a non-finite value). Assign sets or adds to it; Decide tests it. */
int cdevs_proc_variable(cdevs_proc *p, const char *name, double v0);
/* The index of a variable by name, or −1; its value now (NaN for a bad index). */
int cdevs_proc_find_variable(const cdevs_proc *p, const char *name);
double cdevs_proc_variable_value(const cdevs_proc *p, int i);

/* A random stream for the source named `name` (a block's path and a role,
 * "line.arrive.interarrival"): stream hash(name) of the package seed, on the
 * replication's substream. */
void cdevs_proc_stream(const cdevs_proc *p, const char *name, cdevs_rng *g);

/* ---- Entities ----------------------------------------------------------------------- */

/* What an entity's time is spent on, as Arena allocates it. */
typedef enum cdevs_alloc_kind {
  CDEVS_VA = 0,    /* value added */
  CDEVS_NVA,       /* non-value added */
  CDEVS_WAIT,      /* waiting in queues */
  CDEVS_TRANSFER,  /* transfer */
  CDEVS_OTHER,     /* other */
  CDEVS_ALLOC_KINDS
} cdevs_alloc_kind;

/* The resources an entity may hold at once. */
#define CDEVS_ENTITY_MAX_HELD 8

/* An entity: the payload of a reference-counted message (cdevs_entity_of). */
typedef struct cdevs_entity {
  uint64_t serial;  /* 1, 2, … in order of creation within the replication */
  int32_t type;     /* entity type index */
  uint32_t nattr;   /* attributes (the number of names the cdevs_proc had) */
  double created;   /* creation time */
  double time[CDEVS_ALLOC_KINDS];
  double since;     /* when it entered its current queue (blocks' bookkeeping) */
  int16_t entered;  /* counted in the system (at the first block it reached) */
  int16_t group;    /* a temporary batch's representative (Batch): it carries its members
                       (cdevs_entity_members) and is not counted in the system itself */
  int32_t nheld;
  struct {
    int32_t resource, units;
  } held[CDEVS_ENTITY_MAX_HELD];
  double attr[]; /* nattr values, all 0 at creation */
} cdevs_entity;

/* The entity a value carries, or NULL if it carries none. */
cdevs_entity *cdevs_entity_of(const cdevs_value *v);
/* A new entity of a type created at time t (one reference), or NULL if out of memory.
 * It counts in System.NumberIn and its type's NumberIn and work in progress when it
 * reaches its first block (cdevs_entity_enter): a Create makes the entities of an
 * arrival in the transition before it. */
cdevs_msg *cdevs_entity_new(cdevs_proc *p, int type, double t);
/* Counts e into the system at t, once (blocks call it for each entity they receive). */
void cdevs_entity_enter(cdevs_proc *p, cdevs_entity *e, double t);
/* The end of an entity's life in the system at t: its statistics are recorded (the
 * type's NumberOut, times and work in progress; System.NumberOut). The caller still
 * releases the message. */
void cdevs_entity_dispose(cdevs_proc *p, cdevs_entity *e, double t);

/* The members of a temporary batch's representative (group set), in the order they
 * joined: their number (0 for an entity that is no batch), and member i (the batch holds
 * the reference). */
size_t cdevs_entity_members(const cdevs_entity *e);
cdevs_msg *cdevs_entity_member(const cdevs_entity *e, size_t i);

/* ---- Blocks -------------------------------------------------------------------------- */

/* Create: emits entities of one type on "out": `batch` at a time, the first at `first`
 * (relative to the start), then after each interarrival time, at most max_arrivals
 * times (0: no limit). Its random stream is "<path>.interarrival". */
typedef struct cdevs_create_params {
  cdevs_proc *proc;
  const char *entity_type; /* "Entity 1" if NULL */
  cdevs_dist interarrival;
  int batch;               /* >= 1 */
  double first;
  uint64_t max_arrivals;
} cdevs_create_params;
extern const cdevs_atomic_ops cdevs_create_ops;

/* Arena's Process actions. */
typedef enum cdevs_process_action {
  CDEVS_DELAY = 0,
  CDEVS_SEIZE_DELAY,
  CDEVS_SEIZE_DELAY_RELEASE,
  CDEVS_DELAY_RELEASE
} cdevs_process_action;

/* Queue disciplines: first in first out, last in first out, lowest or highest value
 * of an attribute first (ties in order of arrival). */
typedef enum cdevs_queue_rule { CDEVS_FIFO = 0, CDEVS_LIFO, CDEVS_LVF, CDEVS_HVF } cdevs_queue_rule;

/*
 * Process: Queue, Seize, Delay and Release of SIMAN in one block (ARENALib's Process,
 * Fig. 3 of the seed). An entity arriving on "in" waits in the queue (rule, capacity:
 * an arrival finding capacity entities waiting balks: it is disposed there and counted
 * in NumberBalked; SIMAN's separate Queue, cdevs/siman.h, has a "balk" output), seizes `units` of the
 * resource, is delayed (delay time, allocated to `allocation`), releases, and leaves
 * by "out". Entities in the delay are ordered by leaving time, so they overtake.
 * Several blocks may share a resource: a released unit goes to the waiting block of
 * lowest priority value, then to the entity waiting longest. A negative or NaN delay
 * stops the run with an error naming the block and the time. Its random stream is
 * "<path>.delay".
 */
typedef struct cdevs_process_params {
  cdevs_proc *proc;
  int action;              /* cdevs_process_action */
  const char *resource;    /* the resource (for every action but CDEVS_DELAY) */
  int units;               /* >= 1 */
  int priority;            /* among blocks seizing the same resource; lower first */
  cdevs_dist delay;
  int allocation;          /* cdevs_alloc_kind of the delay (CDEVS_VA in Arena) */
  int rule;                /* cdevs_queue_rule */
  const char *rank_attr;   /* the attribute of CDEVS_LVF and CDEVS_HVF */
  uint64_t capacity;       /* the queue's; 0: unlimited */
} cdevs_process_params;
extern const cdevs_atomic_ops cdevs_process_ops;

/* Dispose: entities arriving on "in" leave the system (their statistics recorded). */
typedef struct cdevs_dispose_params {
  cdevs_proc *proc;
} cdevs_dispose_params;
extern const cdevs_atomic_ops cdevs_dispose_ops;

/*
 * Decide: each entity on "in" leaves at once by one of n_out outputs "out1".."outN":
 * by chance (percent[k] for outputs 1..n−1, the rest to the last; they must sum to at
 * most 100), or by condition (the first k whose `attr op value` holds, else the
 * last; attr names a variable if there is one of that name, else the entity's
 * attribute). Its random stream is "<path>.chance".
 */
typedef enum cdevs_decide_op { CDEVS_LT = 0, CDEVS_LE, CDEVS_GT, CDEVS_GE, CDEVS_EQ, CDEVS_NE } cdevs_decide_op;
#define CDEVS_DECIDE_MAX 16
typedef struct cdevs_decide_params {
  cdevs_proc *proc;
  int n_out;            /* 2 .. CDEVS_DECIDE_MAX */
  int by_condition;
  double percent[CDEVS_DECIDE_MAX - 1];
  const char *attr[CDEVS_DECIDE_MAX - 1];
  int op[CDEVS_DECIDE_MAX - 1];
  double value[CDEVS_DECIDE_MAX - 1];
} cdevs_decide_params;
extern const cdevs_atomic_ops cdevs_decide_ops;

/* Assign: sets an attribute of each entity on "in", or a variable (cdevs_proc_variable),
 * to a variate — or, with add, adds the variate to it — (and, if entity_type is not
 * NULL, sets its type), and passes it on at once by "out". Stream "<path>.value". */
typedef struct cdevs_assign_params {
  cdevs_proc *proc;
  const char *attr; /* NULL: no attribute */
  cdevs_dist value;
  const char *entity_type;
  const char *variable; /* instead of attr: a variable's name */
  int add;              /* adds the variate instead of setting it */
} cdevs_assign_params;
extern const cdevs_atomic_ops cdevs_assign_ops;

/* Record: counts the entities on "in" and tallies, as the kind says, an attribute, the
 * time since an attribute's value (an interval), or the time since creation; passes
 * them on at once by "out". The statistic is named `name` (the block's name if NULL). */
typedef enum cdevs_record_kind { CDEVS_RECORD_COUNT = 0, CDEVS_RECORD_ATTR, CDEVS_RECORD_INTERVAL, CDEVS_RECORD_TIME_IN_SYSTEM } cdevs_record_kind;
typedef struct cdevs_record_params {
  cdevs_proc *proc;
  int kind;
  const char *attr;
  const char *name;
} cdevs_record_params;
extern const cdevs_atomic_ops cdevs_record_ops;

/*
 * Batch (Arena): entities arriving on "in" wait in "<path>.Queue" (NQ, WaitTime) until
 * `size` of them are there — `size` with the same value of `attr` if attr is given —
 * and leave as one representative entity by "out". A Temporary batch's representative
 * carries its members (a Separate splits them again); it is not counted in the system,
 * its members stay counted in it, and the times it accumulates are added to each member
 * when it is split or disposed. A Permanent batch's members leave the system there
 * (counted out, with their times) and its representative is a new entity. The
 * representative has type entity_type (the first member's if NULL), the creation time
 * of the batch, and each attribute by `save`: the last member's value (Arena's
 * default), the first's, their sum or their product.
 */
typedef enum cdevs_batch_kind { CDEVS_BATCH_TEMPORARY = 0, CDEVS_BATCH_PERMANENT } cdevs_batch_kind;
typedef enum cdevs_batch_save { CDEVS_SAVE_LAST = 0, CDEVS_SAVE_FIRST, CDEVS_SAVE_SUM, CDEVS_SAVE_PRODUCT } cdevs_batch_save;
typedef struct cdevs_batch_params {
  cdevs_proc *proc;
  int size;                /* >= 1 */
  int kind;                /* cdevs_batch_kind */
  const char *attr;        /* batch entities of equal values of this attribute; NULL: any */
  int save;                /* cdevs_batch_save */
  const char *entity_type; /* the representative's; NULL: the first member's */
} cdevs_batch_params;
extern const cdevs_atomic_ops cdevs_batch_ops;

/*
 * Separate (Arena): splits a temporary batch, or duplicates entities. Split: a batch
 * arriving on "in" gives its members, each with the batch's accumulated times added to
 * its own and its own attributes (or, with take_attributes, the representative's),
 * out by "out" at once; an entity that is no batch passes through. A batch still
 * holding units of a resource stops the run (release them first). Duplicate: each
 * entity leaves by "out" and `duplicates` new entities of its type and attributes,
 * created now, by "dup" (a batch cannot be duplicated: split it first).
 */
typedef struct cdevs_separate_params {
  cdevs_proc *proc;
  int duplicate;       /* 0: split a batch; 1: duplicate */
  int duplicates;      /* >= 1, for duplicate */
  int take_attributes; /* split: members take the representative's attribute values */
} cdevs_separate_params;
extern const cdevs_atomic_ops cdevs_separate_ops;

/* The blocks above in model files (cdevs.Create, cdevs.Process, cdevs.Decide,
 * cdevs.Assign, cdevs.Record, cdevs.Dispose, and the data module cdevs.Resource), for
 * cdevs_lang_register; their context (cdevs_mo_set_context "proc") is a cdevs_proc. */
struct cdevs_lang_library;
extern const struct cdevs_lang_library cdevs_proc_library;
/* The distributions above for parameters of model files (parameter Real k =
 * Uniform(1, 2); cdevs_lang_register_random). */
struct cdevs_lang_random;
extern const struct cdevs_lang_random cdevs_proc_random;

/*
 * Fill: entities draw a quantity from a continuous tank (Arena's level and rate
 * variables; the seed's beverage plant fills bottles from a tank). The tank is any
 * continuous model (an equation der(level) = inflow - f.rate) whose level comes in on
 * "level" as a QSS signal; "rate" tells it how fast the block empties it: `rate` while
 * an entity fills, 0 otherwise. An entity arriving on "in" waits, first come first
 * served, until the level holds its quantity (drawn from `quantity`, stream
 * "<path>.quantity"): the time the level's polynomial reaches it is its root, so the
 * fill starts at the crossing, not at the next level event. It then draws the quantity
 * in quantity/rate (time allocated to `allocation`) and leaves by "out". Statistics:
 * NumberIn/Out and the Quantity tally (category "Process"), NQ and WaitTime of
 * "<path>.Queue". With the tank fed only by inflows, its level never falls below zero.
 */
typedef struct cdevs_fill_params {
  cdevs_proc *proc;
  cdevs_dist quantity; /* >= 0 */
  double rate;         /* > 0, quantity per time */
  int allocation;      /* cdevs_alloc_kind of the filling time */
} cdevs_fill_params;
extern const cdevs_atomic_ops cdevs_fill_ops;

/* ---- Statistics and the report ------------------------------------------------------ */

/* What a statistic is. */
typedef enum cdevs_stat_kind { CDEVS_STAT_COUNT = 0, CDEVS_STAT_TALLY, CDEVS_STAT_TIME } cdevs_stat_kind;

/* One statistic of the report: owner ("System", an entity type, a block's path, a
 * resource) and name ("NumberIn", "WaitTime", "NQ", "Utilization"). */
typedef struct cdevs_stat_info {
  const char *category; /* "System", "Entity", "Process", "Queue", "Resource", "User" */
  const char *owner;
  const char *name;
  int kind;             /* cdevs_stat_kind */
  cdevs_stat_summary s; /* for a count: avg = final = count */
  double mser5;         /* a tally's MSER-5 truncation time (cdevs_tally_mser5); NaN otherwise */
} cdevs_stat_info;

/* The number of statistics, and statistic i at the end time t_end (in the order they
 * were made: deterministic for a model). A t_end past the warm-up clears what came
 * before it, if no change after it has yet. */
size_t cdevs_proc_stat_count(const cdevs_proc *p);
void cdevs_proc_stat(cdevs_proc *p, size_t i, double t_end, cdevs_stat_info *out);
/* Statistic i's value now: a count's count, a time-persistent statistic's level, a
 * tally's last observation (NaN before the first); NaN for a bad index. Cheap: for
 * tracing trajectories after every transition. */
double cdevs_proc_stat_value(const cdevs_proc *p, size_t i);
/* The statistic with this owner and name, or −1. */
long cdevs_proc_stat_find(const cdevs_proc *p, const char *owner, const char *name);
/* The report's categories in the order it prints them, NULL-terminated: "System",
 * "Entity", "Process", "Queue", "Resource", "Variable", "User". */
extern const char *const cdevs_proc_categories[];
/* The report Arena prints (the seed's Table 1), as text. */
void cdevs_proc_report(cdevs_proc *p, double t_end, FILE *f);
/* The same as CSV: category,owner,name,avg,half_width,min,max,final,count. */
void cdevs_proc_report_csv(cdevs_proc *p, double t_end, FILE *f);

/* Entities waiting for resources, with where, for what and since when written to buf:
 * after a run that ended because nothing was scheduled, any is a deadlock (a resource
 * never released). 0 if none wait. */
uint64_t cdevs_proc_deadlock(const cdevs_proc *p, char *buf, size_t size);

/* Entities in the system now (created, not disposed). */
uint64_t cdevs_proc_wip(const cdevs_proc *p);

#ifdef __cplusplus
}
#endif
#endif
