/* SPDX-License-Identifier: MIT */
/* The flowchart modules that take no time: Create (arrivals), Dispose, Decide, Assign
 * and Record. The ones entities pass through send them on at the same instant. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "proc_impl.h"

cdevs_entity *cdevs__entity_at(cdevs_ctx *cx, const cdevs_bag *x, size_t i) {
  cdevs_entity *e = cdevs_entity_of(x->events[i].value);
  if (!e) cdevs_ctx_fail(cx, "received a %s that is not an entity", cdevs_kind_name(x->events[i].value->kind));
  return e;
}

int cdevs__need_proc(cdevs_ctx *cx, const cdevs_proc *p, const char *what) {
  if (p) return 0;
  cdevs_ctx_fail(cx, "%s needs its process elements (proc)", what);
  return -1;
}

double cdevs__pass_ta(const void *state) { return ((const passer *)state)->out.n ? 0 : INFINITY; }
void cdevs__pass_output(cdevs_ctx *cx, const void *state) { pass_emit(cx, &((const passer *)state)->out); }
void cdevs__pass_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  pass_clear(&((passer *)state)->out);
}

#define entity_at cdevs__entity_at
#define need_proc cdevs__need_proc

/* ---- Create ------------------------------------------------------------------------------- */

typedef struct create_state {
  cdevs_proc *p;
  int type, batch;
  cdevs_dist interarrival;
  cdevs_rng rng;
  uint64_t left; /* arrivals still to make (UINT64_MAX: no limit) */
  double sigma;
  double first;     /* the first arrival's delay, until the start transition made it */
  int started;
  cdevs_msg **made; /* the entities of the coming arrival, made in the transition before */
  uint32_t nmade, capmade;
  cdevs_alloc al;
} create_state;

static const cdevs_port_def create_out[] = {{"out", CDEVS_MSG}, {NULL, CDEVS_ANY}};

static int make_batch(cdevs_ctx *cx, create_state *s, double t) {
  if (s->capmade < (uint32_t)s->batch && CDEVS_GROW(&s->al, s->made, s->capmade, (uint32_t)s->batch)) goto oom;
  for (int i = 0; i < s->batch; i++) {
    s->made[i] = cdevs_entity_new(s->p, s->type, t);
    if (!s->made[i]) goto oom;
    s->nmade = (uint32_t)i + 1;
  }
  return 0;
oom:
  cdevs_ctx_fail(cx, "out of memory for entities");
  return -1;
}

static int create_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_create_params *a = arg;
  create_state *s = state;
  if (need_proc(cx, a->proc, "Create") || cdevs__proc_needs_out(cx, 0, "out")) return CDEVS_EINVAL;
  s->p = a->proc;
  s->al = a->proc->alloc;
  if (cdevs__proc_dist(cx, &a->interarrival, "interarrival")) return CDEVS_EINVAL;
  s->interarrival = a->interarrival;
  if (a->batch < 1 || !(a->first >= 0) || !isfinite(a->first)) {
    cdevs_ctx_fail(cx, "Create needs batch >= 1 (got %d) and a first creation time >= 0 (got %g)", a->batch,
                   a->first);
    return CDEVS_EINVAL;
  }
  s->batch = a->batch;
  s->type = cdevs_proc_entity_type(s->p, a->entity_type ? a->entity_type : "Entity 1");
  if (s->type < 0) {
    cdevs_ctx_fail(cx, "%s", s->p->err);
    return CDEVS_EINVAL;
  }
  cdevs__proc_stream(cx, s->p, "interarrival", &s->rng);
  s->left = a->max_arrivals ? a->max_arrivals : UINT64_MAX;
  /* The entities of an arrival are made in the transition before it, with the
     arrival's time as their creation time; they enter the system's counts at the first
     block they reach (cdevs__entity_enter). The first arrival's are made by a start
     transition at the start time, not here: every block has declared its attributes
     by then (in their inits), and an entity has room for all of them. */
  s->first = a->first;
  return CDEVS_OK;
}

static void create_fini(void *state) {
  create_state *s = state;
  for (uint32_t i = 0; i < s->nmade; i++) cdevs_msg_release(s->made[i]);
  CDEVS_FREEARR(&s->al, s->made, s->capmade);
}

static double create_ta(const void *state) {
  const create_state *s = state;
  if (!s->started) return 0;
  return s->left ? s->sigma : INFINITY;
}

static void create_output(cdevs_ctx *cx, const void *state) {
  const create_state *s = state;
  for (uint32_t i = 0; i < s->nmade; i++) {
    cdevs_value v = cdevs_msgval(s->made[i]);
    cdevs_emit(cx, 0, &v);
  }
}

static void create_int(cdevs_ctx *cx, void *state) {
  create_state *s = state;
  double t = cdevs_ctx_time(cx);
  if (!s->started) { /* the start transition: the first arrival's entities */
    s->started = 1;
    s->sigma = s->first;
    make_batch(cx, s, t + s->first);
    return;
  }
  for (uint32_t i = 0; i < s->nmade; i++) cdevs_msg_release(s->made[i]);
  s->nmade = 0;
  if (s->left != UINT64_MAX) s->left--;
  if (!s->left) return;
  double d;
  if (cdevs__proc_draw_time(cx, &s->interarrival, &s->rng, "interarrival time", &d)) return;
  s->sigma = d;
  make_batch(cx, s, t + d);
}

const cdevs_atomic_ops cdevs_create_ops = {
    .type = "Create",
    .state_size = sizeof(create_state),
    .arg_size = sizeof(cdevs_create_params),
    .outputs = create_out,
    .init = create_init,
    .ta = create_ta,
    .output = create_output,
    .delta_int = create_int,
    .fini = create_fini,
};

/* ---- Dispose -------------------------------------------------------------------------------- */

typedef struct dispose_state {
  cdevs_proc *p;
} dispose_state;

static const cdevs_port_def entity_in[] = {{"in", CDEVS_MSG}, {NULL, CDEVS_ANY}};

static int dispose_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_dispose_params *a = arg;
  if (need_proc(cx, a->proc, "Dispose")) return CDEVS_EINVAL;
  ((dispose_state *)state)->p = a->proc;
  return CDEVS_OK;
}

static double passive_ta(const void *state) {
  (void)state;
  return INFINITY;
}

static void dispose_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  dispose_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    cdevs_entity *en = entity_at(cx, x, i);
    if (!en) return;
    if (cdevs__entity_leave(cx, s->p, en, t, "is disposed")) return;
  }
}

const cdevs_atomic_ops cdevs_dispose_ops = {
    .type = "Dispose",
    .state_size = sizeof(dispose_state),
    .arg_size = sizeof(cdevs_dispose_params),
    .inputs = entity_in,
    .init = dispose_init,
    .ta = passive_ta,
    .delta_ext = dispose_ext,
};

/* ---- Decide, Assign, Record: one state shape, entities passed on at once ----------------- */

typedef struct flow_state {
  passer b;
  cdevs_rng rng;
  /* Decide */
  int n_out, by_condition;
  double cum[CDEVS_DECIDE_MAX]; /* cumulative chance of outputs 1..k */
  int attr[CDEVS_DECIDE_MAX], op[CDEVS_DECIDE_MAX];
  int var[CDEVS_DECIDE_MAX]; /* a condition's variable, or −1 (it tests attr) */
  double value[CDEVS_DECIDE_MAX];
  /* Assign */
  int set_attr, set_type, set_var, add;
  cdevs_dist dist;
  /* Record */
  int kind;
  long st_count, st_tally;
} flow_state;

/* The part of every flow block's init that names its process elements. */
static int flow_begin(cdevs_ctx *cx, flow_state *s, cdevs_proc *p, const char *what) {
  if (need_proc(cx, p, what)) return -1;
  s->b.p = p;
  s->b.al = p->alloc;
  s->set_attr = s->set_type = s->set_var = -1;
  return 0;
}

static void flow_fini(void *state) {
  flow_state *s = state;
  pass_free(&s->b.al, &s->b.out);
}

static const cdevs_port_def entity_out[] = {{"out", CDEVS_MSG}, {NULL, CDEVS_ANY}};

static int decide_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_decide_params *a = arg;
  flow_state *s = state;
  if (flow_begin(cx, s, a->proc, "Decide")) return CDEVS_EINVAL;
  s->n_out = a->n_out;
  s->by_condition = a->by_condition;
  if (a->n_out < 2 || a->n_out > CDEVS_DECIDE_MAX) {
    cdevs_ctx_fail(cx, "Decide needs 2 to %d outputs (got %d)", CDEVS_DECIDE_MAX, a->n_out);
    return CDEVS_EINVAL;
  }
  double sum = 0;
  for (int k = 0; k < a->n_out - 1; k++) {
    if (a->by_condition) {
      s->var[k] = a->attr[k] ? cdevs_proc_find_variable(s->b.p, a->attr[k]) : -1;
      if (!a->attr[k] || (s->var[k] < 0 && (s->attr[k] = cdevs_proc_attribute(s->b.p, a->attr[k])) < 0) ||
          a->op[k] < CDEVS_LT ||
          a->op[k] > CDEVS_NE || !isfinite(a->value[k])) {
        cdevs_ctx_fail(cx, "Decide's condition %d needs an attribute, a comparison and a finite value", k + 1);
        return CDEVS_EINVAL;
      }
      s->op[k] = a->op[k];
      s->value[k] = a->value[k];
    } else {
      if (!(a->percent[k] >= 0 && a->percent[k] <= 100)) {
        cdevs_ctx_fail(cx, "Decide's chance %d must be a percentage from 0 to 100 (got %g)", k + 1, a->percent[k]);
        return CDEVS_EINVAL;
      }
      sum += a->percent[k];
      s->cum[k] = sum / 100;
    }
  }
  if (!a->by_condition && sum > 100 + 1e-9) {
    cdevs_ctx_fail(cx, "Decide's chances add up to %g%%, more than 100", sum);
    return CDEVS_EINVAL;
  }
  for (int k = 0; k < a->n_out; k++) {
    char name[16];
    snprintf(name, sizeof name, "out%d", k + 1);
    if (cdevs__proc_needs_out(cx, k, name)) return CDEVS_EINVAL;
  }
  cdevs__proc_stream(cx, s->b.p, "chance", &s->rng);
  return CDEVS_OK;
}

int cdevs__holds(double x, int op, double v) {
  switch (op) {
  case CDEVS_LT: return x < v;
  case CDEVS_LE: return x <= v;
  case CDEVS_GT: return x > v;
  case CDEVS_GE: return x >= v;
  case CDEVS_EQ: return x == v;
  default: return x != v;
  }
}

static void decide_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  flow_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    cdevs_entity *en = entity_at(cx, x, i);
    if (!en) return;
    cdevs_entity_enter(s->b.p, en, t);
    int k = 0;
    if (s->by_condition) {
      while (k < s->n_out - 1 &&
             !cdevs__holds(s->var[k] >= 0 ? s->b.p->vars[s->var[k]].v : cdevs__entity_attr(en, s->attr[k]), s->op[k],
                    s->value[k]))
        k++;
    } else {
      double u = cdevs_rng_u01(&s->rng);
      while (k < s->n_out - 1 && u > s->cum[k]) k++;
    }
    if (pass_push(cx, &s->b.al, &s->b.out, x->events[i].value->u.msg, k)) return;
  }
}

static const cdevs_port_def decide_out[] = {{"out1", CDEVS_MSG}, {"out2", CDEVS_MSG}, {"out3", CDEVS_MSG},
                                            {"out4", CDEVS_MSG}, {"out5", CDEVS_MSG}, {"out6", CDEVS_MSG},
                                            {"out7", CDEVS_MSG}, {"out8", CDEVS_MSG}, {"out9", CDEVS_MSG},
                                            {"out10", CDEVS_MSG}, {"out11", CDEVS_MSG}, {"out12", CDEVS_MSG},
                                            {"out13", CDEVS_MSG}, {"out14", CDEVS_MSG}, {"out15", CDEVS_MSG},
                                            {"out16", CDEVS_MSG}, {NULL, CDEVS_ANY}};

const cdevs_atomic_ops cdevs_decide_ops = {
    .type = "Decide",
    .state_size = sizeof(flow_state),
    .arg_size = sizeof(cdevs_decide_params),
    .inputs = entity_in,
    .outputs = decide_out,
    .init = decide_init,
    .ta = cdevs__pass_ta,
    .output = cdevs__pass_output,
    .delta_int = cdevs__pass_int,
    .delta_ext = decide_ext,
    .fini = flow_fini,
};

static int assign_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_assign_params *a = arg;
  flow_state *s = state;
  if (flow_begin(cx, s, a->proc, "Assign") || cdevs__proc_needs_out(cx, 0, "out")) return CDEVS_EINVAL;
  if (a->attr && a->variable) {
    cdevs_ctx_fail(cx, "Assign sets an attribute or a variable, not both");
    return CDEVS_EINVAL;
  }
  if (a->variable && (s->set_var = cdevs_proc_find_variable(s->b.p, a->variable)) < 0) {
    cdevs_ctx_fail(cx, "Assign: no variable '%s'", a->variable);
    return CDEVS_EINVAL;
  }
  if (a->attr && (s->set_attr = cdevs_proc_attribute(s->b.p, a->attr)) < 0) {
    cdevs_ctx_fail(cx, "%s", s->b.p->err);
    return CDEVS_EINVAL;
  }
  if (a->attr || a->variable) {
    if (cdevs__proc_dist(cx, &a->value, a->attr ? a->attr : a->variable)) return CDEVS_EINVAL;
    s->dist = a->value;
    s->add = a->add != 0;
  }
  if (a->entity_type && (s->set_type = cdevs_proc_entity_type(s->b.p, a->entity_type)) < 0) {
    cdevs_ctx_fail(cx, "%s", s->b.p->err);
    return CDEVS_EINVAL;
  }
  cdevs__proc_stream(cx, s->b.p, "value", &s->rng);
  return CDEVS_OK;
}

static void assign_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  flow_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    cdevs_entity *en = entity_at(cx, x, i);
    if (!en) return;
    cdevs_entity_enter(s->b.p, en, t);
    if (s->set_attr >= 0) {
      if ((uint32_t)s->set_attr >= en->nattr) {
        cdevs_ctx_fail(cx, "entity %llu was made before attribute %d existed", (unsigned long long)en->serial,
                       s->set_attr);
        return;
      }
      double v = cdevs_dist_sample(&s->dist, &s->rng);
      en->attr[s->set_attr] = s->add ? en->attr[s->set_attr] + v : v;
    }
    if (s->set_var >= 0) {
      double v = cdevs_dist_sample(&s->dist, &s->rng);
      double nv = s->add ? s->b.p->vars[s->set_var].v + v : v;
      if (!isfinite(nv)) {
        cdevs_ctx_fail(cx, "variable '%s' would become %g", s->b.p->vars[s->set_var].name, nv);
        return;
      }
      cdevs__proc_var_set(s->b.p, s->set_var, t, nv);
    }
    if (s->set_type >= 0 && s->set_type != en->type) {
      /* its work in progress moves from the old type to the new */
      long from = s->b.p->type_stats[en->type] + TS_WIP, to = s->b.p->type_stats[s->set_type] + TS_WIP;
      cdevs__proc_level(s->b.p, from, t, cdevs__proc_level_of(s->b.p, from) - 1);
      cdevs__proc_level(s->b.p, to, t, cdevs__proc_level_of(s->b.p, to) + 1);
      en->type = s->set_type;
    }
    if (pass_push(cx, &s->b.al, &s->b.out, x->events[i].value->u.msg, 0)) return;
  }
}

const cdevs_atomic_ops cdevs_assign_ops = {
    .type = "Assign",
    .state_size = sizeof(flow_state),
    .arg_size = sizeof(cdevs_assign_params),
    .inputs = entity_in,
    .outputs = entity_out,
    .init = assign_init,
    .ta = cdevs__pass_ta,
    .output = cdevs__pass_output,
    .delta_int = cdevs__pass_int,
    .delta_ext = assign_ext,
    .fini = flow_fini,
};

static int record_init(cdevs_ctx *cx, void *state, const void *arg) {
  const cdevs_record_params *a = arg;
  flow_state *s = state;
  if (flow_begin(cx, s, a->proc, "Record") || cdevs__proc_needs_out(cx, 0, "out")) return CDEVS_EINVAL;
  s->kind = a->kind;
  if (a->kind < CDEVS_RECORD_COUNT || a->kind > CDEVS_RECORD_TIME_IN_SYSTEM) {
    cdevs_ctx_fail(cx, "Record has no kind %d", a->kind);
    return CDEVS_EINVAL;
  }
  if ((a->kind == CDEVS_RECORD_ATTR || a->kind == CDEVS_RECORD_INTERVAL) &&
      (!a->attr || (s->set_attr = cdevs_proc_attribute(s->b.p, a->attr)) < 0)) {
    cdevs_ctx_fail(cx, "Record of an attribute needs the attribute's name");
    return CDEVS_EINVAL;
  }
  s->st_count = cdevs__proc_user_stat(cx, s->b.p, a->name, "Count", CDEVS_STAT_COUNT);
  s->st_tally = a->kind == CDEVS_RECORD_COUNT ? 0 : cdevs__proc_user_stat(cx, s->b.p, a->name, "Value", CDEVS_STAT_TALLY);
  if (s->st_count < 0 || s->st_tally < 0) return CDEVS_EINVAL;
  if (a->kind == CDEVS_RECORD_COUNT) s->st_tally = -1;
  return CDEVS_OK;
}

static void record_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)e;
  flow_state *s = state;
  double t = cdevs_ctx_time(cx);
  for (size_t i = 0; i < x->n; i++) {
    cdevs_entity *en = entity_at(cx, x, i);
    if (!en) return;
    cdevs_entity_enter(s->b.p, en, t);
    cdevs__proc_count(s->b.p, s->st_count, t, 1);
    double v = NAN;
    if (s->kind == CDEVS_RECORD_ATTR) v = cdevs__entity_attr(en, s->set_attr);
    if (s->kind == CDEVS_RECORD_INTERVAL) v = t - cdevs__entity_attr(en, s->set_attr);
    if (s->kind == CDEVS_RECORD_TIME_IN_SYSTEM) v = t - en->created;
    if (s->st_tally >= 0) cdevs__proc_tally(s->b.p, s->st_tally, t, v);
    if (pass_push(cx, &s->b.al, &s->b.out, x->events[i].value->u.msg, 0)) return;
  }
}

const cdevs_atomic_ops cdevs_record_ops = {
    .type = "Record",
    .state_size = sizeof(flow_state),
    .arg_size = sizeof(cdevs_record_params),
    .inputs = entity_in,
    .outputs = entity_out,
    .init = record_init,
    .ta = cdevs__pass_ta,
    .output = cdevs__pass_output,
    .delta_int = cdevs__pass_int,
    .delta_ext = record_ext,
    .fini = flow_fini,
};
