/* SPDX-License-Identifier: MIT */
/* The process blocks in model files: cdevs.Create, cdevs.Process, cdevs.Resource, …
 * described for the language (cdevs_lang_register), which knows nothing of them: it
 * hands each modifier's value as written to the converters here, and the run's
 * cdevs_proc to every block as its context. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cdevs/lang.h"
#include "cdevs/proc.h"
#include "cdevs/siman.h"

/* ---- Converters --------------------------------------------------------------------- */

static int conv_rel(const cdevs_lang_term *e, const char **attr, int *op, double *value);

/* A distribution: Exponential(1.25), Triangular(1, 2, 4), DISC(0.3, 1, 1.0, 2), or a
 * number (a constant). */
static int conv_dist(const cdevs_lang_term *t, void *field, char *msg, size_t size) {
  cdevs_dist *d = field;
  if (t->kind == CDEVS_TERM_NUM) return cdevs_dist_make(d, CDEVS_DIST_CONSTANT, &t->num, 1, msg, size) ? -1 : 0;
  if (t->kind != CDEVS_TERM_CALL) {
    snprintf(msg, size, "a distribution such as Exponential(1.25) or Triangular(1, 2, 4), or a number");
    return -1;
  }
  int kind = cdevs_dist_kind_parse(t->name);
  if (kind < 0) {
    snprintf(msg, size, "no distribution '%s' (Constant, Uniform, Exponential, Normal, Lognormal, Triangular, Erlang, "
                        "Gamma, Beta, Weibull, Poisson, Bernoulli, Discrete, Continuous)", t->name);
    return -1;
  }
  double p[(2 * CDEVS_DIST_MAX_PAIRS)];
  if (t->n > (2 * CDEVS_DIST_MAX_PAIRS)) {
    snprintf(msg, size, "%s takes at most %d numbers", t->name, (2 * CDEVS_DIST_MAX_PAIRS));
    return -1;
  }
  for (int i = 0; i < t->n; i++) {
    if (t->kid[i].kind != CDEVS_TERM_NUM) {
      snprintf(msg, size, "%s's parameter %d must be a number (a constant expression)", t->name, i + 1);
      return -1;
    }
    p[i] = t->kid[i].num;
  }
  return cdevs_dist_make(d, kind, p, t->n, msg, size) ? -1 : 0;
}

/* One of names (matched without case), its index into an int field. */
static int conv_enum(const cdevs_lang_term *t, void *field, char *msg, size_t size, const char *what,
                     const char *const *names) {
  if (t->kind == CDEVS_TERM_NAME || t->kind == CDEVS_TERM_STRING)
    for (int i = 0; names[i]; i++) {
      size_t n = strlen(names[i]), k;
      for (k = 0; k < n && t->name[k] && ((t->name[k] | 32) == (names[i][k] | 32)); k++) continue;
      if (k == n && !t->name[k]) {
        memcpy(field, &i, sizeof i);
        return 0;
      }
    }
  size_t len = (size_t)snprintf(msg, size, "%s is one of", what);
  for (int i = 0; names[i] && len < size; i++) len += (size_t)snprintf(msg + len, size - len, "%s %s", i ? "," : "", names[i]);
  return -1;
}

/* A converter of one of a list of names (for a CDEVS_LP_TERM parameter). */
#define ENUM_CONV(fn, what, names) \
  static int fn(const cdevs_lang_term *t, void *f, char *m, size_t n) { return conv_enum(t, f, m, n, what, names); }

static const char *const action_names[] = {"Delay", "SeizeDelay", "SeizeDelayRelease", "DelayRelease", NULL};
static const char *const alloc_names[] = {"ValueAdded", "NonValueAdded", "Wait", "Transfer", "Other", NULL};
static const char *const rule_names[] = {"FIFO", "LIFO", "LowestValueFirst", "HighestValueFirst", NULL};
static const char *const record_names[] = {"Count", "Attribute", "Interval", "TimeInSystem", NULL};
static const char *const batch_kind_names[] = {"Temporary", "Permanent", NULL};
static const char *const save_names[] = {"Last", "First", "Sum", "Product", NULL};
static const char *const mode_names[] = {"Split", "Duplicate", NULL};
static const char *const attributes_names[] = {"Retain", "Take", NULL};
static const char *const assign_mode_names[] = {"Set", "Add", NULL};

ENUM_CONV(conv_action, "action", action_names)
ENUM_CONV(conv_alloc, "allocation", alloc_names)
ENUM_CONV(conv_rule, "rule", rule_names)
ENUM_CONV(conv_record, "kind", record_names)
ENUM_CONV(conv_batch_kind, "kind", batch_kind_names)
ENUM_CONV(conv_save, "save", save_names)
ENUM_CONV(conv_mode, "mode", mode_names)
ENUM_CONV(conv_assign_mode, "mode", assign_mode_names)
ENUM_CONV(conv_attributes, "attributes", attributes_names)

/* A count (uint64_t): a whole number >= 0. */
static int conv_count(const cdevs_lang_term *t, void *field, char *msg, size_t size) {
  if (t->kind != CDEVS_TERM_NUM || !(t->num >= 0) || t->num != floor(t->num) || t->num > 9007199254740992.0) {
    snprintf(msg, size, "a whole number >= 0");
    return -1;
  }
  uint64_t v = (uint64_t)t->num;
  memcpy(field, &v, sizeof v);
  return 0;
}

/* Decide's chances: {p1, …, pn−1} in percent (the rest to the last output), or one
 * number (a 2-way Decide). */
static int conv_chance(const cdevs_lang_term *t, void *field, char *msg, size_t size) {
  cdevs_decide_params *a = (cdevs_decide_params *)(void *)((char *)field - offsetof(cdevs_decide_params, percent));
  int n = t->kind == CDEVS_TERM_ARRAY ? t->n : 1;
  if (a->by_condition) {
    snprintf(msg, size, "a Decide goes by chance or by condition, not both");
    return -1;
  }
  if (n < 1 || n > CDEVS_DECIDE_MAX - 1) {
    snprintf(msg, size, "1 to %d percentages, for all outputs but the last", CDEVS_DECIDE_MAX - 1);
    return -1;
  }
  for (int k = 0; k < n; k++) {
    const cdevs_lang_term *e = t->kind == CDEVS_TERM_ARRAY ? &t->kid[k] : t;
    if (e->kind != CDEVS_TERM_NUM) {
      snprintf(msg, size, "percentages are numbers ({30, 20} sends 30%% to out1, 20%% to out2, the rest to out3)");
      return -1;
    }
    a->percent[k] = e->num;
  }
  a->n_out = n + 1;
  return 0;
}

/* Decide's conditions: {size > 3, kind == 2}: the first that holds chooses its output,
 * none the last. */
static int conv_condition(const cdevs_lang_term *t, void *field, char *msg, size_t size) {
  cdevs_decide_params *a = (cdevs_decide_params *)(void *)((char *)field - offsetof(cdevs_decide_params, attr));
  int n = t->kind == CDEVS_TERM_ARRAY ? t->n : 1;
  if (a->n_out && !a->by_condition) {
    snprintf(msg, size, "a Decide goes by chance or by condition, not both");
    return -1;
  }
  if (n < 1 || n > CDEVS_DECIDE_MAX - 1) {
    snprintf(msg, size, "1 to %d conditions, for all outputs but the last", CDEVS_DECIDE_MAX - 1);
    return -1;
  }
  for (int k = 0; k < n; k++) {
    const cdevs_lang_term *e = t->kind == CDEVS_TERM_ARRAY ? &t->kid[k] : t;
    if (conv_rel(e, &a->attr[k], &a->op[k], &a->value[k])) {
      snprintf(msg, size, "a condition compares an attribute or a variable with a constant (size > 3)");
      return -1;
    }
  }
  a->n_out = n + 1;
  a->by_condition = 1;
  return 0;
}

/* A relation term (size > 3) into attr, op, value: 0, or -1 (not a relation). */
static int conv_rel(const cdevs_lang_term *e, const char **attr, int *op, double *value) {
  static const char *const ops[] = {"<", "<=", ">", ">=", "==", "<>"};
  if (e->kind != CDEVS_TERM_REL) return -1;
  *attr = e->name; /* the model keeps the text */
  for (int o = 0; o < 6; o++)
    if (!strcmp(e->op, ops[o])) *op = o;
  *value = e->num;
  return 0;
}

/* SIMAN's BRANCH: {With(30), With(20), If(size > 3), Else, Always}. */
static int conv_branches(const cdevs_lang_term *t, void *field, char *msg, size_t size) {
  cdevs_siman_branch_params *a = (cdevs_siman_branch_params *)(void *)((char *)field -
                                                                       offsetof(cdevs_siman_branch_params, n_out));
  int n = t->kind == CDEVS_TERM_ARRAY ? t->n : 1;
  if (n < 1 || n > CDEVS_SIMAN_BRANCH_MAX) {
    snprintf(msg, size, "1 to %d branches, one per output", CDEVS_SIMAN_BRANCH_MAX);
    return -1;
  }
  for (int k = 0; k < n; k++) {
    const cdevs_lang_term *e = t->kind == CDEVS_TERM_ARRAY ? &t->kid[k] : t;
    const char *name = e->kind == CDEVS_TERM_NAME || e->kind == CDEVS_TERM_CALL ? e->name : "";
    if (e->kind == CDEVS_TERM_CALL && !strcmp(name, "With") && e->n == 1 && e->kid[0].kind == CDEVS_TERM_NUM) {
      a->kind[k] = CDEVS_SIMAN_WITH;
      a->percent[k] = e->kid[0].num;
    } else if (e->kind == CDEVS_TERM_CALL && !strcmp(name, "If") && e->n == 1 &&
               !conv_rel(&e->kid[0], &a->attr[k], &a->op[k], &a->value[k])) {
      a->kind[k] = CDEVS_SIMAN_IF;
    } else if (e->kind == CDEVS_TERM_NAME && !strcmp(name, "Else")) {
      a->kind[k] = CDEVS_SIMAN_ELSE;
    } else if (e->kind == CDEVS_TERM_NAME && !strcmp(name, "Always")) {
      a->kind[k] = CDEVS_SIMAN_ALWAYS;
    } else {
      snprintf(msg, size, "branch %d must be With(percent), If(attr > value), Else or Always", k + 1);
      return -1;
    }
  }
  a->n_out = n;
  return 0;
}

/* ---- Blocks ------------------------------------------------------------------------- */

#define PR(type, field, kind_, help_) {.name = #field, .offset = offsetof(type, field), .kind = kind_, .help = help_}
#define PT(type, name_, field, conv, help_) \
  {.name = name_, .offset = offsetof(type, field), .kind = CDEVS_LP_TERM, .convert = conv, .help = help_}
#define END {NULL, 0, 0, NULL, NULL, NULL}

static void create_defaults(void *arg) {
  cdevs_create_params *a = arg;
  double one = 1.0;
  (void)cdevs_dist_make(&a->interarrival, CDEVS_DIST_EXPONENTIAL, &one, 1, NULL, 0);
  a->batch = 1;
}
static const cdevs_lang_param create_p[] = {
    PT(cdevs_create_params, "interarrival", interarrival, conv_dist, "a distribution; Exponential(1) if not given"),
    PR(cdevs_create_params, entity_type, CDEVS_LP_NAME, "\"Entity 1\" if not given"),
    PR(cdevs_create_params, batch, CDEVS_LP_INT, "entities per arrival, 1"),
    PR(cdevs_create_params, first, CDEVS_LP_REAL, "the first arrival's time, 0"),
    PT(cdevs_create_params, "max_arrivals", max_arrivals, conv_count, "0: no limit"),
    END};
static int create_check(void *arg, char *msg, size_t size) {
  const cdevs_create_params *a = arg;
  if (a->batch < 1 || !(a->first >= 0) || isinf(a->first)) {
    snprintf(msg, size, "batch must be >= 1 (is %d) and first a finite time >= 0 (is %g)", a->batch, a->first);
    return -1;
  }
  return 0;
}

static void process_defaults(void *arg) {
  cdevs_process_params *a = arg;
  double tri[3] = {0.5, 1.0, 1.5}; /* Arena's default */
  (void)cdevs_dist_make(&a->delay, CDEVS_DIST_TRIANGULAR, tri, 3, NULL, 0);
  a->action = -1; /* chosen by check: with a resource, Seize-Delay-Release */
  a->units = 1;
}
static const cdevs_lang_param process_p[] = {
    {.name = "resource", .offset = offsetof(cdevs_process_params, resource), .kind = CDEVS_LP_REF, .ref = "Resource"},
    PT(cdevs_process_params, "delay", delay, conv_dist, "a distribution; Triangular(0.5, 1, 1.5) if not given"),
    PT(cdevs_process_params, "action", action, conv_action,
       "Delay, SeizeDelay, SeizeDelayRelease, DelayRelease; SeizeDelayRelease with a resource, else Delay"),
    PR(cdevs_process_params, units, CDEVS_LP_INT, "seized and released, 1"),
    PR(cdevs_process_params, priority, CDEVS_LP_INT, "among blocks seizing one resource, lower first; 0"),
    PT(cdevs_process_params, "allocation", allocation, conv_alloc, "ValueAdded, NonValueAdded, Wait, Transfer, Other"),
    PT(cdevs_process_params, "rule", rule, conv_rule, "FIFO, LIFO, LowestValueFirst, HighestValueFirst"),
    PR(cdevs_process_params, rank_attr, CDEVS_LP_NAME, "the attribute the rule ranks by"),
    PT(cdevs_process_params, "capacity", capacity, conv_count, "of the queue; 0: unlimited; arrivals beyond balk"),
    END};
static int process_check(void *arg, char *msg, size_t size) {
  cdevs_process_params *a = arg;
  if (a->action < 0) a->action = a->resource ? CDEVS_SEIZE_DELAY_RELEASE : CDEVS_DELAY;
  int needs = a->action != CDEVS_DELAY;
  if (needs && !a->resource) {
    snprintf(msg, size, "action %s needs a resource (resource = name of a cdevs.Resource)", action_names[a->action]);
    return -1;
  }
  if (!needs && a->resource) {
    snprintf(msg, size, "action Delay seizes nothing, yet a resource is given (SeizeDelayRelease uses it)");
    return -1;
  }
  if (a->units < 1) {
    snprintf(msg, size, "units must be >= 1 (is %d)", a->units);
    return -1;
  }
  if ((a->rule == CDEVS_LVF || a->rule == CDEVS_HVF) != (a->rank_attr != NULL)) {
    snprintf(msg, size, a->rank_attr ? "rank_attr is only for the rules LowestValueFirst and HighestValueFirst"
                                     : "the rule ranks by an attribute: rank_attr names it");
    return -1;
  }
  return 0;
}

static const cdevs_lang_param none_p[] = {END};

static void decide_defaults(void *arg) {
  cdevs_decide_params *a = arg;
  a->n_out = 0;
}
static const cdevs_lang_param decide_p[] = {
    PT(cdevs_decide_params, "chance", percent, conv_chance,
       "{p1, ...}: p1% to out1, ..., the rest to the last output"),
    PT(cdevs_decide_params, "condition", attr, conv_condition,
       "{attr > v, ...}: the first that holds chooses out1, ...; none the last"),
    END};
static int decide_check(void *arg, char *msg, size_t size) {
  const cdevs_decide_params *a = arg;
  if (a->n_out < 2) {
    snprintf(msg, size, "a Decide needs its chances (chance = {30}) or its conditions (condition = {size > 3})");
    return -1;
  }
  double sum = 0;
  for (int k = 0; !a->by_condition && k < a->n_out - 1; k++) {
    if (!(a->percent[k] >= 0 && a->percent[k] <= 100)) {
      snprintf(msg, size, "chance %d must be a percentage from 0 to 100 (is %g)", k + 1, a->percent[k]);
      return -1;
    }
    sum += a->percent[k];
  }
  if (sum > 100 + 1e-9) {
    snprintf(msg, size, "the chances add up to %g%%, more than 100", sum);
    return -1;
  }
  return 0;
}

static int decide_outputs(const void *arg) { return ((const cdevs_decide_params *)arg)->n_out; }

static const cdevs_lang_param assign_p[] = {
    PR(cdevs_assign_params, attr, CDEVS_LP_NAME, "the attribute set"),
    PT(cdevs_assign_params, "value", value, conv_dist, "a number or a distribution"),
    PR(cdevs_assign_params, entity_type, CDEVS_LP_NAME, "the new entity type"),
    {.name = "variable", .offset = offsetof(cdevs_assign_params, variable), .kind = CDEVS_LP_REF, .ref = "Variable",
     .help = "a cdevs.Variable set instead of an attribute"},
    PT(cdevs_assign_params, "mode", add, conv_assign_mode, "Set the value, or Add it"),
    END};
static void assign_defaults(void *arg) {
  cdevs_assign_params *a = arg;
  double zero = 0.0;
  (void)cdevs_dist_make(&a->value, CDEVS_DIST_CONSTANT, &zero, 1, NULL, 0);
}
static int assign_check(void *arg, char *msg, size_t size) {
  const cdevs_assign_params *a = arg;
  if (!a->attr && !a->variable && !a->entity_type) {
    snprintf(msg, size, "an Assign needs an attribute to set (attr = name, value = ...), a variable (variable = name),"
                        " or an entity_type");
    return -1;
  }
  if (a->attr && a->variable) {
    snprintf(msg, size, "an Assign sets an attribute or a variable, not both");
    return -1;
  }
  return 0;
}

static const cdevs_lang_param record_p[] = {
    PT(cdevs_record_params, "kind", kind, conv_record, "Count, Attribute, Interval, TimeInSystem"),
    PR(cdevs_record_params, attr, CDEVS_LP_NAME, "the attribute of Attribute and Interval"),
    PR(cdevs_record_params, name, CDEVS_LP_NAME, "the statistic's name; the block's if not given"),
    END};
static int record_check(void *arg, char *msg, size_t size) {
  const cdevs_record_params *a = arg;
  if ((a->kind == CDEVS_RECORD_ATTR || a->kind == CDEVS_RECORD_INTERVAL) && !a->attr) {
    snprintf(msg, size, "kind %s needs attr, the attribute", record_names[a->kind]);
    return -1;
  }
  return 0;
}

static void fill_defaults(void *arg) {
  cdevs_fill_params *a = arg;
  double one = 1.0;
  (void)cdevs_dist_make(&a->quantity, CDEVS_DIST_CONSTANT, &one, 1, NULL, 0);
  a->rate = 1.0;
}
static const cdevs_lang_param fill_p[] = {
    PT(cdevs_fill_params, "quantity", quantity, conv_dist, "drawn by each entity, a number or a distribution; 1"),
    PR(cdevs_fill_params, rate, CDEVS_LP_REAL, "quantity per time while filling; 1"),
    PT(cdevs_fill_params, "allocation", allocation, conv_alloc, "of the filling time"),
    END};
static int fill_check(void *arg, char *msg, size_t size) {
  const cdevs_fill_params *a = arg;
  if (!(a->rate > 0) || isinf(a->rate)) {
    snprintf(msg, size, "rate must be finite and > 0 (is %g)", a->rate);
    return -1;
  }
  return 0;
}

static void batch_defaults(void *arg) { ((cdevs_batch_params *)arg)->size = 2; /* Arena's */ }
static const cdevs_lang_param batch_p[] = {
    PR(cdevs_batch_params, size, CDEVS_LP_INT, "entities per batch, 2"),
    PT(cdevs_batch_params, "kind", kind, conv_batch_kind, "Temporary (a Separate splits it) or Permanent"),
    PR(cdevs_batch_params, attr, CDEVS_LP_NAME, "batch only entities with equal values of this attribute"),
    PT(cdevs_batch_params, "save", save, conv_save, "the batch's attributes: the Last member's, First, Sum, Product"),
    PR(cdevs_batch_params, entity_type, CDEVS_LP_NAME, "the batch's type; the first member's if not given"),
    END};
static int batch_check(void *arg, char *msg, size_t size) {
  const cdevs_batch_params *a = arg;
  if (a->size < 1) {
    snprintf(msg, size, "size must be >= 1 (is %d)", a->size);
    return -1;
  }
  return 0;
}

static void separate_defaults(void *arg) { ((cdevs_separate_params *)arg)->duplicates = 1; }
static const cdevs_lang_param separate_p[] = {
    PT(cdevs_separate_params, "mode", duplicate, conv_mode,
       "Split (a temporary batch's members leave by out) or Duplicate (the entity by out, copies by dup)"),
    PR(cdevs_separate_params, duplicates, CDEVS_LP_INT, "copies per entity in Duplicate mode, 1"),
    PT(cdevs_separate_params, "attributes", take_attributes, conv_attributes,
       "split members Retain their attributes or Take the batch's"),
    END};
static int separate_check(void *arg, char *msg, size_t size) {
  const cdevs_separate_params *a = arg;
  if (a->duplicates < 1) {
    snprintf(msg, size, "duplicates must be >= 1 (is %d)", a->duplicates);
    return -1;
  }
  if (a->duplicate && a->take_attributes) {
    snprintf(msg, size, "attributes = Take is for splitting batches, not for mode = Duplicate");
    return -1;
  }
  return 0;
}
static int separate_outputs(const void *arg) { return ((const cdevs_separate_params *)arg)->duplicate ? 2 : 1; }

/* A resource: declared in the run's cdevs_proc; its model makes a schedule's changes. */
static void resource_defaults(void *arg) { ((cdevs_resource_params *)arg)->capacity = -1; /* not given */ }

/* A capacity schedule: {{units, duration}, ...}, repeated. */
static int conv_schedule(const cdevs_lang_term *t, void *field, char *msg, size_t size) {
  cdevs_resource_params *a = (cdevs_resource_params *)(void *)((char *)field - offsetof(cdevs_resource_params, nsched));
  if (t->kind != CDEVS_TERM_ARRAY || t->n < 1 || t->n > CDEVS_SCHEDULE_MAX) {
    snprintf(msg, size, "a schedule is {{units, duration}, ...}: 1 to %d pairs, repeated from the start",
             CDEVS_SCHEDULE_MAX);
    return -1;
  }
  int most = 0;
  for (int k = 0; k < t->n; k++) {
    const cdevs_lang_term *e = &t->kid[k];
    if (e->kind != CDEVS_TERM_ARRAY || e->n != 2 || e->kid[0].kind != CDEVS_TERM_NUM ||
        e->kid[1].kind != CDEVS_TERM_NUM) {
      snprintf(msg, size, "entry %d of the schedule must be {units, duration}", k + 1);
      return -1;
    }
    double u = e->kid[0].num, d = e->kid[1].num;
    if (!(u >= 0) || u != floor(u) || u > 1e9 || !(d > 0) || isinf(d)) {
      snprintf(msg, size, "entry %d of the schedule needs whole units >= 0 and a finite duration > 0 (is {%g, %g})",
               k + 1, u, d);
      return -1;
    }
    a->sched_cap[k] = (int)u;
    a->sched_dur[k] = d;
    if (a->sched_cap[k] > most) most = a->sched_cap[k];
  }
  if (most < 1) {
    snprintf(msg, size, "the schedule never has a unit: entities would wait forever");
    return -1;
  }
  a->nsched = t->n;
  return 0;
}

static const cdevs_lang_param resource_p[] = {
    PR(cdevs_resource_params, capacity, CDEVS_LP_INT, "units, 1"),
    PT(cdevs_resource_params, "schedule", nsched, conv_schedule,
       "{{units, duration}, ...}: the capacity over time, repeated (instead of capacity)"),
    END};
static int resource_check(void *arg, char *msg, size_t size) {
  cdevs_resource_params *a = arg;
  if (a->nsched && a->capacity != -1) {
    snprintf(msg, size, "a resource has a capacity or a schedule, not both");
    return -1;
  }
  if (a->capacity == -1) a->capacity = 1;
  if (!a->nsched && a->capacity < 1) {
    snprintf(msg, size, "capacity must be >= 1 (is %d)", a->capacity);
    return -1;
  }
  return 0;
}
static int resource_declare(void *ctx, const char *name, void *arg, char *msg, size_t size) {
  cdevs_resource_params *a = arg;
  int most = a->capacity;
  for (int k = 0; k < a->nsched; k++)
    if (a->sched_cap[k] > most) most = a->sched_cap[k];
  int r = cdevs_proc_resource(ctx, name, most);
  if (r < 0) {
    snprintf(msg, size, "%s", cdevs_proc_errmsg(ctx));
    return -1;
  }
  if (a->nsched && cdevs_proc_resource_schedule(ctx, r, a->sched_cap, a->sched_dur, a->nsched)) {
    snprintf(msg, size, "out of memory for its schedule");
    return -1;
  }
  a->name = name; /* for its model */
  return 0;
}

/* ---- SIMAN's blocks ---------------------------------------------------------------- */

static const char *const tally_names[] = {"TimeInSystem", "Attribute", "Interval", NULL};
ENUM_CONV(conv_tally, "kind", tally_names)

static const cdevs_lang_param queue_p[] = {
    PR(cdevs_siman_queue_params, name, CDEVS_LP_NAME, "the queue's name in the report; the block's if not given"),
    PT(cdevs_siman_queue_params, "rule", rule, conv_rule, "FIFO, LIFO, LowestValueFirst, HighestValueFirst"),
    PR(cdevs_siman_queue_params, rank_attr, CDEVS_LP_NAME, "the attribute the rule ranks by"),
    PT(cdevs_siman_queue_params, "capacity", capacity, conv_count, "0: unlimited; arrivals beyond balk (by balk, "
                                                                   "or leave the system if balk is not connected)"),
    END};
static int queue_check(void *arg, char *msg, size_t size) {
  const cdevs_siman_queue_params *a = arg;
  if ((a->rule == CDEVS_LVF || a->rule == CDEVS_HVF) != (a->rank_attr != NULL)) {
    snprintf(msg, size, a->rank_attr ? "rank_attr is only for the rules LowestValueFirst and HighestValueFirst"
                                     : "the rule ranks by an attribute: rank_attr names it");
    return -1;
  }
  return 0;
}
static int first_output(const void *arg) {
  (void)arg;
  return 1;
}

static void units_defaults(void *arg) { ((cdevs_siman_seize_params *)arg)->units = 1; }
static const cdevs_lang_param seize_p[] = {
    {.name = "resource", .offset = offsetof(cdevs_siman_seize_params, resource), .kind = CDEVS_LP_REF,
     .ref = "Resource", .help = "the cdevs.Resource seized"},
    PR(cdevs_siman_seize_params, units, CDEVS_LP_INT, "1"),
    PR(cdevs_siman_seize_params, priority, CDEVS_LP_INT, "among the blocks seizing the resource, lower first; 0"),
    END};
static int seize_check(void *arg, char *msg, size_t size) {
  const cdevs_siman_seize_params *a = arg;
  if (!a->resource || a->units < 1) {
    snprintf(msg, size, !a->resource ? "a Seize needs resource = the name of a cdevs.Resource"
                                     : "units must be >= 1 (is %d)", a->units);
    return -1;
  }
  return 0;
}

static void delay_defaults(void *arg) {
  cdevs_siman_delay_params *a = arg;
  double one = 1.0;
  (void)cdevs_dist_make(&a->delay, CDEVS_DIST_CONSTANT, &one, 1, NULL, 0);
}
static const cdevs_lang_param delay_p[] = {
    PT(cdevs_siman_delay_params, "delay", delay, conv_dist, "a distribution or a number; 1"),
    PT(cdevs_siman_delay_params, "allocation", allocation, conv_alloc, "ValueAdded, NonValueAdded, Wait, Transfer, Other"),
    PR(cdevs_siman_delay_params, stream, CDEVS_LP_NAME, "the random stream's owner; the block if not given"),
    END};

static void release_defaults(void *arg) { ((cdevs_siman_release_params *)arg)->units = 1; }
static const cdevs_lang_param release_p[] = {
    {.name = "resource", .offset = offsetof(cdevs_siman_release_params, resource), .kind = CDEVS_LP_REF,
     .ref = "Resource", .help = "the cdevs.Resource released"},
    PR(cdevs_siman_release_params, units, CDEVS_LP_INT, "1"),
    END};
static int release_check(void *arg, char *msg, size_t size) {
  const cdevs_siman_release_params *a = arg;
  if (!a->resource || a->units < 1) {
    snprintf(msg, size, !a->resource ? "a Release needs resource = the name of a cdevs.Resource"
                                     : "units must be >= 1 (is %d)", a->units);
    return -1;
  }
  return 0;
}

static const cdevs_lang_param branch_p[] = {
    PT(cdevs_siman_branch_params, "branches", n_out, conv_branches,
       "{With(30), With(70)}, {If(size > 3), Else}, Always: one per output out1, out2, ..."),
    END};
static int branch_check(void *arg, char *msg, size_t size) {
  const cdevs_siman_branch_params *a = arg;
  if (a->n_out < 1) {
    snprintf(msg, size, "a Branch needs its branches (branches = {With(30), Else})");
    return -1;
  }
  double sum = 0;
  int nelse = 0, nwith = 0;
  for (int k = 0; k < a->n_out; k++) {
    if (a->kind[k] == CDEVS_SIMAN_WITH) {
      if (!(a->percent[k] >= 0 && a->percent[k] <= 100)) {
        snprintf(msg, size, "With(%g): a percentage from 0 to 100", a->percent[k]);
        return -1;
      }
      sum += a->percent[k], nwith++;
    }
    nelse += a->kind[k] == CDEVS_SIMAN_ELSE;
  }
  if (nelse > 1) {
    snprintf(msg, size, "a Branch has one Else at most (it has %d)", nelse);
    return -1;
  }
  if (sum > 100 + 1e-9 || (nwith && !nelse && sum < 100 - 1e-9)) {
    snprintf(msg, size, "the With chances add up to %g%%: at most 100, and 100 without an Else", sum);
    return -1;
  }
  return 0;
}
static int branch_outputs(const void *arg) { return ((const cdevs_siman_branch_params *)arg)->n_out; }

static const cdevs_lang_param count_p[] = {
    PR(cdevs_siman_count_params, name, CDEVS_LP_NAME, "the counter (shared by Counts naming it); the block's if not given"),
    PT(cdevs_siman_count_params, "increment", increment, conv_count, "added per entity; 1"),
    END};

static const cdevs_lang_param tally_p[] = {
    PT(cdevs_siman_tally_params, "kind", kind, conv_tally, "TimeInSystem, Attribute, Interval"),
    PR(cdevs_siman_tally_params, attr, CDEVS_LP_NAME, "the attribute of Attribute and Interval"),
    PR(cdevs_siman_tally_params, name, CDEVS_LP_NAME, "the tally (shared by Tallies naming it); the block's if not given"),
    END};
static int tally_check(void *arg, char *msg, size_t size) {
  const cdevs_siman_tally_params *a = arg;
  if ((a->kind == CDEVS_SIMAN_ATTR || a->kind == CDEVS_SIMAN_INTERVAL) != (a->attr != NULL)) {
    snprintf(msg, size, a->attr ? "attr is for the kinds Attribute and Interval" : "kind %s needs attr, the attribute",
             tally_names[a->kind]);
    return -1;
  }
  return 0;
}

/* An entity type: a data module (Arena's Entity), so that its statistics are reported,
 * in the order of the declarations, even if none is made. */
typedef struct entity_params {
  cdevs_proc *proc;
} entity_params;
static int entity_declare(void *ctx, const char *name, void *arg, char *msg, size_t size) {
  (void)arg;
  if (cdevs_proc_entity_type(ctx, name) < 0) {
    snprintf(msg, size, "%s", cdevs_proc_errmsg(ctx));
    return -1;
  }
  return 0;
}

/* A variable: a data module. */
typedef struct variable_params {
  cdevs_proc *proc;
  double value;
} variable_params;
static const cdevs_lang_param variable_p[] = {PR(variable_params, value, CDEVS_LP_REAL, "its initial value, 0"), END};
static int variable_check(void *arg, char *msg, size_t size) {
  const variable_params *a = arg;
  if (!isfinite(a->value)) {
    snprintf(msg, size, "value must be finite (is %g)", a->value);
    return -1;
  }
  return 0;
}
static int variable_declare(void *ctx, const char *name, void *arg, char *msg, size_t size) {
  if (cdevs_proc_variable(ctx, name, ((const variable_params *)arg)->value) < 0) {
    snprintf(msg, size, "%s", cdevs_proc_errmsg(ctx));
    return -1;
  }
  return 0;
}

#define BLOCK(name_, ops_, type, params_, defaults_, check_, help_)                                                \
  {.name = name_, .ops = ops_, .arg_size = sizeof(type), .params = params_, .defaults = defaults_, .check = check_, \
   .context_offset = offsetof(type, proc), .help = help_}

static const cdevs_lang_block blocks[] = {
    BLOCK("Create", &cdevs_create_ops, cdevs_create_params, create_p, create_defaults, create_check,
          "entities arrive (Arena's Create)"),
    BLOCK("Process", &cdevs_process_ops, cdevs_process_params, process_p, process_defaults, process_check,
          "queue, seize, delay, release (Arena's Process)"),
    {.name = "Decide", .ops = &cdevs_decide_ops, .arg_size = sizeof(cdevs_decide_params), .params = decide_p,
     .used_outputs = decide_outputs, .defaults = decide_defaults, .check = decide_check,
     .context_offset = offsetof(cdevs_decide_params, proc),
     .help = "each entity leaves by one output, by chance or condition"},
    BLOCK("Assign", &cdevs_assign_ops, cdevs_assign_params, assign_p, assign_defaults, assign_check,
          "sets an attribute or the entity type"),
    BLOCK("Record", &cdevs_record_ops, cdevs_record_params, record_p, NULL, record_check,
          "counts entities or tallies an attribute, an interval or the time in system"),
    BLOCK("Fill", &cdevs_fill_ops, cdevs_fill_params, fill_p, fill_defaults, fill_check,
          "entities draw a quantity from a continuous tank: connect(level, f.level); der(level) = ... - f.rate"),
    BLOCK("Batch", &cdevs_batch_ops, cdevs_batch_params, batch_p, batch_defaults, batch_check,
          "entities wait until size of them form one batch (Arena's Batch)"),
    {.name = "Separate", .ops = &cdevs_separate_ops, .arg_size = sizeof(cdevs_separate_params), .params = separate_p,
     .used_outputs = separate_outputs, .defaults = separate_defaults, .check = separate_check,
     .context_offset = offsetof(cdevs_separate_params, proc),
     .help = "splits a temporary batch into its members, or duplicates entities (Arena's Separate)"},
    {.name = "Queue", .ops = &cdevs_siman_queue_ops, .arg_size = sizeof(cdevs_siman_queue_params), .params = queue_p,
     .used_outputs = first_output, .check = queue_check, .context_offset = offsetof(cdevs_siman_queue_params, proc),
     .help = "SIMAN's QUEUE: entities wait for the Seize its out leads to; balk: those refused"},
    BLOCK("Seize", &cdevs_siman_seize_ops, cdevs_siman_seize_params, seize_p, units_defaults, seize_check,
          "SIMAN's SEIZE: takes units for the entity its Queue lets go"),
    BLOCK("Delay", &cdevs_siman_delay_ops, cdevs_siman_delay_params, delay_p, delay_defaults, NULL,
          "SIMAN's DELAY: entities stay for a drawn time, any number at once, overtaking"),
    BLOCK("Release", &cdevs_siman_release_ops, cdevs_siman_release_params, release_p, release_defaults, release_check,
          "SIMAN's RELEASE: gives units back"),
    {.name = "Branch", .ops = &cdevs_siman_branch_ops, .arg_size = sizeof(cdevs_siman_branch_params),
     .params = branch_p, .used_outputs = branch_outputs, .check = branch_check,
     .context_offset = offsetof(cdevs_siman_branch_params, proc),
     .help = "SIMAN's BRANCH: With, If, Else and Always branches, duplicates on the extra ones taken"},
    BLOCK("Count", &cdevs_siman_count_ops, cdevs_siman_count_params, count_p, NULL, NULL,
          "SIMAN's COUNT: adds to a counter"),
    BLOCK("Tally", &cdevs_siman_tally_ops, cdevs_siman_tally_params, tally_p, NULL, tally_check,
          "SIMAN's TALLY: records the time in system, an attribute or an interval"),
    BLOCK("Dispose", &cdevs_dispose_ops, cdevs_dispose_params, none_p, NULL, NULL, "entities leave the system"),
    {.name = "Resource", .ops = &cdevs_resource_ops, .arg_size = sizeof(cdevs_resource_params), .params = resource_p,
     .defaults = resource_defaults, .check = resource_check, .context_offset = offsetof(cdevs_resource_params, proc),
     .declare = resource_declare,
     .help = "units the Process blocks seize, with a capacity or a schedule (Arena's Resource data module)"},
    {.name = "Entity", .ops = NULL, .arg_size = sizeof(entity_params), .params = none_p,
     .context_offset = offsetof(entity_params, proc), .declare = entity_declare,
     .help = "an entity type (Arena's Entity data module), named as the component: entity_type = Part names it"},
    {.name = "Variable", .ops = NULL, .arg_size = sizeof(variable_params), .params = variable_p,
     .check = variable_check, .context_offset = offsetof(variable_params, proc), .declare = variable_declare,
     .help = "a number Assign sets or adds to and Decide tests; its time average is reported (Arena's Variable)"},
};

const cdevs_lang_library cdevs_proc_library = {"proc", blocks, sizeof blocks / sizeof blocks[0]};
