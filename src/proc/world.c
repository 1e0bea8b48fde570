/* SPDX-License-Identifier: MIT */
/* A process model's shared elements (Arena's data modules): entity types, attribute
 * names, resources and the registry of statistics, with the warm-up that clears them. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "proc_impl.h"

static void fail(cdevs_proc *p, const char *fmt, ...) {
  if (p->err[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(p->err, sizeof p->err, fmt, ap);
  va_end(ap);
}

static char *dup(cdevs_proc *p, const char *s) {
  size_t n = strlen(s) + 1;
  char *d = cdevs__calloc(&p->alloc, n, 1);
  if (d) memcpy(d, s, n);
  return d;
}

static void undup(cdevs_proc *p, char *s) {
  if (s) cdevs__free(&p->alloc, s, strlen(s) + 1);
}

cdevs_proc_opts cdevs_proc_opts_default(void) {
  cdevs_proc_opts o;
  memset(&o, 0, sizeof o);
  cdevs_rng_package_seed(0, o.seed);
  return o;
}

cdevs_proc *cdevs_proc_new(const cdevs_alloc *a, const cdevs_proc_opts *opts) {
  cdevs_proc_opts o = opts ? *opts : cdevs_proc_opts_default();
  if (cdevs_rng_check_seed(o.seed) != CDEVS_OK || !(o.warmup >= 0) || !isfinite(o.start) || !(o.span >= 0))
    return NULL;
  cdevs_alloc al = a ? *a : *cdevs_alloc_default();
  cdevs_proc *p = cdevs__calloc(&al, 1, sizeof *p);
  if (!p) return NULL;
  p->alloc = al;
  p->o = o;
  p->warm_t = o.warmup > 0 ? o.start + o.warmup : INFINITY;
  p->sys_in = cdevs__proc_stat_add(p, "System", "System", "NumberIn", CDEVS_STAT_COUNT, 0);
  p->sys_out = cdevs__proc_stat_add(p, "System", "System", "NumberOut", CDEVS_STAT_COUNT, 0);
  if (p->stat_fails) {
    cdevs_proc_free(p);
    return NULL;
  }
  return p;
}

void cdevs_proc_free(cdevs_proc *p) {
  if (!p) return;
  cdevs_alloc al = p->alloc;
  for (uint32_t i = 0; i < p->ntypes; i++) undup(p, p->types[i]);
  for (uint32_t i = 0; i < p->nattrs; i++) undup(p, p->attrs[i]);
  for (uint32_t i = 0; i < p->nres; i++) {
    undup(p, p->res[i].name);
    CDEVS_FREEARR(&al, p->res[i].sched_cap, p->res[i].nsched);
    CDEVS_FREEARR(&al, p->res[i].sched_dur, p->res[i].nsched);
    CDEVS_FREEARR(&al, p->res[i].points, p->res[i].cappoints);
  }
  for (uint32_t i = 0; i < p->nvars; i++) undup(p, p->vars[i].name);
  CDEVS_FREEARR(&al, p->vars, p->capvars);
  for (uint32_t i = 0; i < p->nstats; i++) {
    proc_stat *s = &p->stats[i];
    undup(p, s->category), undup(p, s->owner), undup(p, s->name);
    cdevs_tally_free(s->tally);
    cdevs_tpstat_free(s->tp);
  }
  CDEVS_FREEARR(&al, p->types, p->captypes);
  cdevs__free(&al, p->type_stats, (size_t)p->captypes * sizeof *p->type_stats);
  CDEVS_FREEARR(&al, p->attrs, p->capattrs);
  CDEVS_FREEARR(&al, p->res, p->capres);
  CDEVS_FREEARR(&al, p->stats, p->capstats);
  cdevs__free(&al, p, sizeof *p);
}

const char *cdevs_proc_errmsg(const cdevs_proc *p) { return p ? p->err : "no process elements"; }

static int find(char **names, uint32_t n, const char *name) {
  for (uint32_t i = 0; i < n; i++)
    if (!strcmp(names[i], name)) return (int)i;
  return -1;
}

int cdevs_proc_entity_type(cdevs_proc *p, const char *name) {
  if (!name || !*name) {
    fail(p, "an entity type needs a name");
    return CDEVS_EINVAL;
  }
  int i = find(p->types, p->ntypes, name);
  if (i >= 0) return i;
  uint32_t cap = p->captypes;
  if (p->ntypes == p->captypes && CDEVS_GROW(&p->alloc, p->types, p->captypes, p->ntypes + 1)) goto oom;
  if (cap != p->captypes) {
    long *ts = cdevs__calloc(&p->alloc, p->captypes, sizeof *ts);
    if (!ts) goto oom;
    if (p->type_stats) memcpy(ts, p->type_stats, p->ntypes * sizeof *ts);
    cdevs__free(&p->alloc, p->type_stats, (size_t)cap * sizeof *ts);
    p->type_stats = ts;
  }
  char *d = dup(p, name);
  if (!d) goto oom;
  p->types[p->ntypes] = d;
  static const char *names[TYPE_STATS] = {"NumberIn", "NumberOut", "VATime", "NVATime", "WaitTime",
                                          "TranTime", "OtherTime", "TotalTime", "WIP"};
  long first = -1;
  int bad = 0;
  for (int k = 0; k < TYPE_STATS; k++) {
    int kind = k <= TS_OUT ? CDEVS_STAT_COUNT : k == TS_WIP ? CDEVS_STAT_TIME : CDEVS_STAT_TALLY;
    long st = cdevs__proc_stat_add(p, "Entity", name, names[k], kind, 0);
    bad |= st < 0;
    if (k == 0) first = st;
  }
  if (bad) { /* (said by cdevs__proc_stat_add) */
    undup(p, d);
    return CDEVS_ENOMEM;
  }
  p->type_stats[p->ntypes] = first;
  return (int)p->ntypes++;
oom:
  fail(p, "out of memory for entity type '%s'", name);
  return CDEVS_ENOMEM;
}

int cdevs_proc_attribute(cdevs_proc *p, const char *name) {
  if (!name || !*name) {
    fail(p, "an attribute needs a name");
    return CDEVS_EINVAL;
  }
  int i = find(p->attrs, p->nattrs, name);
  if (i >= 0) return i;
  if (cdevs_proc_find_variable(p, name) >= 0) {
    fail(p, "'%s' is a variable, not an attribute", name);
    return CDEVS_EINVAL;
  }
  if (p->nattrs == p->capattrs && CDEVS_GROW(&p->alloc, p->attrs, p->capattrs, p->nattrs + 1)) goto oom;
  char *d = dup(p, name);
  if (!d) goto oom;
  p->attrs[p->nattrs] = d;
  return (int)p->nattrs++;
oom:
  fail(p, "out of memory for attribute '%s'", name);
  return CDEVS_ENOMEM;
}

int cdevs_proc_find_resource(const cdevs_proc *p, const char *name) {
  for (uint32_t i = 0; i < p->nres; i++)
    if (!strcmp(p->res[i].name, name)) return (int)i;
  return -1;
}

int cdevs_proc_resource(cdevs_proc *p, const char *name, int capacity) {
  if (!name || !*name) {
    fail(p, "a resource needs a name");
    return CDEVS_EINVAL;
  }
  if (cdevs_proc_find_resource(p, name) >= 0) {
    fail(p, "resource '%s' is defined twice", name);
    return CDEVS_EINVAL;
  }
  if (capacity < 1) {
    fail(p, "resource '%s' needs a capacity >= 1 (got %d)", name, capacity);
    return CDEVS_EINVAL;
  }
  if (p->nres == p->capres && CDEVS_GROW(&p->alloc, p->res, p->capres, p->nres + 1)) goto oom;
  proc_resource *r = &p->res[p->nres];
  memset(r, 0, sizeof *r);
  r->name = dup(p, name);
  if (!r->name) goto oom;
  r->capacity = r->cap_now = capacity;
  r->st_cap = -1;
  r->st_busy = cdevs__proc_stat_add(p, "Resource", name, "NumberBusy", CDEVS_STAT_TIME, 0);
  r->st_util = cdevs__proc_stat_add(p, "Resource", name, "Utilization", CDEVS_STAT_TIME, 0);
  r->st_seized = cdevs__proc_stat_add(p, "Resource", name, "NumberSeized", CDEVS_STAT_COUNT, 0);
  if (r->st_busy < 0 || r->st_util < 0 || r->st_seized < 0) { /* (said by cdevs__proc_stat_add) */
    undup(p, r->name);
    r->name = NULL;
    return CDEVS_ENOMEM;
  }
  return (int)p->nres++;
oom:
  fail(p, "out of memory for resource '%s'", name);
  return CDEVS_ENOMEM;
}

int cdevs_proc_find_variable(const cdevs_proc *p, const char *name) {
  for (uint32_t i = 0; i < p->nvars; i++)
    if (!strcmp(p->vars[i].name, name)) return (int)i;
  return -1;
}

int cdevs_proc_variable(cdevs_proc *p, const char *name, double v0) {
  if (!name || !*name) {
    fail(p, "a variable needs a name");
    return CDEVS_EINVAL;
  }
  if (cdevs_proc_find_variable(p, name) >= 0 || find(p->attrs, p->nattrs, name) >= 0) {
    fail(p, "variable '%s' is defined twice, or is also an attribute's name", name);
    return CDEVS_EINVAL;
  }
  if (!isfinite(v0)) {
    fail(p, "variable '%s' needs a finite value (got %g)", name, v0);
    return CDEVS_EINVAL;
  }
  if (p->nvars == p->capvars && CDEVS_GROW(&p->alloc, p->vars, p->capvars, p->nvars + 1)) goto oom;
  proc_var *v = &p->vars[p->nvars];
  if (!(v->name = dup(p, name))) goto oom;
  v->v = v0;
  if ((v->st = cdevs__proc_stat_add(p, "Variable", name, "Value", CDEVS_STAT_TIME, v0)) < 0) {
    undup(p, v->name);
    return CDEVS_ENOMEM;
  }
  return (int)p->nvars++;
oom:
  fail(p, "out of memory for variable '%s'", name);
  return CDEVS_ENOMEM;
}

double cdevs_proc_variable_value(const cdevs_proc *p, int i) {
  return i >= 0 && (uint32_t)i < p->nvars ? p->vars[i].v : NAN;
}

void cdevs__proc_var_set(cdevs_proc *p, int i, double t, double v) {
  p->vars[i].v = v;
  cdevs__proc_level(p, p->vars[i].st, t, v);
}

void cdevs_proc_stream(const cdevs_proc *p, const char *name, cdevs_rng *g) {
  cdevs_rng_named(g, p->o.seed, name);
  if (p->o.replication) cdevs_rng_substream(g, p->o.replication);
}

uint64_t cdevs_proc_wip(const cdevs_proc *p) { return p->wip; }

void cdevs__proc_block_name(cdevs_ctx *cx, const cdevs_proc *p, char *buf, size_t size) {
  char path[256];
  cdevs_model_path(cdevs_ctx_model(cx), path, sizeof path);
  const char *name = path;
  for (int lv = 0, skip = 1 + (p ? p->o.skip_levels : 0); lv < skip; lv++) { /* the root, and skip_levels more */
    const char *dot = strchr(name, '.');
    if (!dot) break;
    name = dot + 1;
  }
  snprintf(buf, size, "%s", name);
}

int cdevs__proc_needs_out(cdevs_ctx *cx, int port, const char *name) {
  if (cdevs_ctx_fanout(cx, port)) return 0;
  cdevs_ctx_fail(cx, "its output '%s' is connected to nothing: the entities leaving by it would vanish uncounted "
                     "(connect it, to a Dispose if they leave the system there)", name);
  return -1;
}

void cdevs__proc_stream(cdevs_ctx *cx, const cdevs_proc *p, const char *role, cdevs_rng *g) {
  char path[200], name[240];
  cdevs__proc_block_name(cx, p, path, sizeof path);
  snprintf(name, sizeof name, "%s.%s", path, role);
  cdevs_proc_stream(p, name, g);
}

int cdevs__proc_dist(cdevs_ctx *cx, const cdevs_dist *d, const char *what) {
  char why[200];
  if (cdevs_dist_check(d, why, sizeof why) == CDEVS_OK) return 0;
  cdevs_ctx_fail(cx, "%s: %s", what, why);
  return -1;
}

int cdevs__entity_leave(cdevs_ctx *cx, cdevs_proc *p, cdevs_entity *e, double t, const char *how) {
  const cdevs_entity *h = e->nheld ? e : cdevs__group_holder(e);
  if (h) {
    char in[64] = "";
    if (h != e) snprintf(in, sizeof in, " (in batch %llu)", (unsigned long long)e->serial);
    cdevs_ctx_fail(cx, "entity %llu%s %s while it holds %d units of '%s'", (unsigned long long)h->serial, in, how,
                   h->held[0].units, p->res[h->held[0].resource].name);
    return -1;
  }
  cdevs_entity_dispose(p, e, t);
  return 0;
}

int cdevs__proc_draw_time(cdevs_ctx *cx, const cdevs_dist *d, cdevs_rng *g, const char *what, double *out) {
  double x = cdevs_dist_sample(d, g);
  if (x >= 0 && isfinite(x)) {
    *out = x;
    return 0;
  }
  char dist[160];
  cdevs_dist_format(d, dist, sizeof dist);
  cdevs_ctx_fail(cx, "the %s %s drew %g: it must be finite and >= 0", what, dist, x);
  return -1;
}

/* ---- statistics ----------------------------------------------------------------------- */

long cdevs__proc_stat_add(cdevs_proc *p, const char *category, const char *owner, const char *name, int kind,
                          double v0) {
  if (p->nstats == p->capstats && CDEVS_GROW(&p->alloc, p->stats, p->capstats, p->nstats + 1)) goto oom;
  proc_stat *s = &p->stats[p->nstats];
  memset(s, 0, sizeof *s);
  s->kind = kind;
  s->category = dup(p, category), s->owner = dup(p, owner), s->name = dup(p, name);
  if (kind == CDEVS_STAT_TALLY) s->tally = cdevs_tally_new(&p->alloc);
  if (kind == CDEVS_STAT_TIME) s->tp = cdevs_tpstat_new(&p->alloc, p->o.start, v0, p->o.span);
  p->nstats++; /* counted now, so that free releases what was made */
  if (!s->category || !s->owner || !s->name || (kind == CDEVS_STAT_TALLY && !s->tally) ||
      (kind == CDEVS_STAT_TIME && !s->tp))
    goto oom;
  return (long)p->nstats - 1;
oom:
  p->stat_fails++;
  fail(p, "out of memory for statistic %s.%s", owner, name);
  return -1;
}

/* The user statistic <name>.<what> of this kind: the one blocks naming it share. */
long cdevs__proc_user_stat(cdevs_ctx *cx, cdevs_proc *p, const char *name, const char *what, int kind) {
  char path[200];
  if (!name) {
    cdevs__proc_block_name(cx, p, path, sizeof path);
    name = path;
  }
  long st = cdevs_proc_stat_find(p, name, what);
  if (st >= 0 && (strcmp(p->stats[st].category, "User") || p->stats[st].kind != kind)) {
    cdevs_ctx_fail(cx, "the statistic '%s.%s' exists already and is not a %s of the user's", name, what,
                   kind == CDEVS_STAT_COUNT ? "counter" : "tally");
    return -1;
  }
  if (st < 0 && (st = cdevs__proc_stat_add(p, "User", name, what, kind, 0)) < 0) cdevs_ctx_fail(cx, "out of memory for statistic %s.%s", name, what);
  return st;
}

static void warm_up(cdevs_proc *p) {
  p->warmed = 1;
  for (uint32_t i = 0; i < p->nstats; i++) {
    proc_stat *s = &p->stats[i];
    s->count = 0;
    if (s->tally) cdevs_tally_reset(s->tally);
    if (s->tp) cdevs_tpstat_reset(s->tp, p->warm_t);
  }
}

static inline void tick(cdevs_proc *p, double t) {
  if (p->warm_t < INFINITY && t >= p->warm_t && !p->warmed) warm_up(p); /* (no warm-up: never, even at t = ∞) */
}

void cdevs__proc_count(cdevs_proc *p, long st, double t, uint64_t n) {
  tick(p, t);
  if (st >= 0) p->stats[st].count += n;
}

void cdevs__proc_tally(cdevs_proc *p, long st, double t, double x) {
  tick(p, t);
  if (st >= 0) cdevs_tally_add(p->stats[st].tally, t, x);
}

void cdevs__proc_level(cdevs_proc *p, long st, double t, double v) {
  tick(p, t);
  if (st >= 0) cdevs_tpstat_set(p->stats[st].tp, t, v);
}

double cdevs__proc_level_of(const cdevs_proc *p, long st) {
  return st >= 0 ? cdevs_tpstat_value(p->stats[st].tp) : 0;
}

size_t cdevs_proc_stat_count(const cdevs_proc *p) { return p->nstats; }

double cdevs_proc_stat_value(const cdevs_proc *p, size_t i) {
  if (i >= p->nstats) return NAN;
  const proc_stat *s = &p->stats[i];
  if (s->kind == CDEVS_STAT_COUNT) return (double)s->count;
  if (s->kind == CDEVS_STAT_TIME) return cdevs__proc_level_of(p, (long)i);
  cdevs_stat_summary sum;
  cdevs_tally_summary(s->tally, &sum);
  return sum.count ? sum.final : NAN;
}

long cdevs_proc_stat_find(const cdevs_proc *p, const char *owner, const char *name) {
  for (uint32_t i = 0; i < p->nstats; i++)
    if (!strcmp(p->stats[i].owner, owner) && !strcmp(p->stats[i].name, name)) return (long)i;
  return -1;
}

void cdevs_proc_stat(cdevs_proc *p, size_t i, double t_end, cdevs_stat_info *out) {
  memset(out, 0, sizeof *out);
  if (i >= p->nstats) return;
  tick(p, t_end); /* the warm-up clears what came before even if nothing changed after it */
  const proc_stat *s = &p->stats[i];
  out->category = s->category, out->owner = s->owner, out->name = s->name, out->kind = s->kind;
  out->mser5 = s->kind == CDEVS_STAT_TALLY ? cdevs_tally_mser5(s->tally) : NAN;
  if (s->kind == CDEVS_STAT_COUNT) {
    out->s.avg = out->s.final = out->s.min = out->s.max = (double)s->count;
    out->s.count = s->count;
    out->s.stddev = out->s.half_width = NAN;
    out->s.hw_status = CDEVS_HW_INSUFFICIENT;
  } else if (s->kind == CDEVS_STAT_TALLY) {
    cdevs_tally_summary(s->tally, &out->s);
  } else {
    cdevs_tpstat_summary(s->tp, t_end, &out->s);
  }
}

/* ---- the report ------------------------------------------------------------------------- */

static void half_width(char *buf, size_t n, const cdevs_stat_summary *s) {
  if (s->hw_status == CDEVS_HW_OK) snprintf(buf, n, "%.6g", s->half_width);
  else snprintf(buf, n, "%s", s->hw_status == CDEVS_HW_CORRELATED ? "(Correlated)" : "(Insufficient)");
}

const char *const cdevs_proc_categories[] = {"System", "Entity", "Process", "Queue", "Resource", "Variable", "User",
                                             NULL};

void cdevs_proc_report(cdevs_proc *p, double t_end, FILE *f) {
  const char *const *order = cdevs_proc_categories;
  fprintf(f, "Process statistics at t = %.10g", t_end);
  if (p->o.warmup > 0) fprintf(f, " (warm-up %.10g)", p->o.warmup);
  fprintf(f, ", replication %llu\n", (unsigned long long)p->o.replication + 1);
  for (size_t c = 0; order[c]; c++) {
    int header = 0;
    for (uint32_t i = 0; i < p->nstats; i++) {
      if (strcmp(p->stats[i].category, order[c])) continue;
      if (!header) {
        fprintf(f, "%s\n  %-34s %12s %14s %12s %12s %12s %10s\n", order[c], "statistic", "average", "half width",
                "minimum", "maximum", "final", "count");
        header = 1;
      }
      cdevs_stat_info in;
      cdevs_proc_stat(p, i, t_end, &in);
      char name[160], hw[32];
      snprintf(name, sizeof name, "%s.%s", in.owner, in.name);
      if (in.kind == CDEVS_STAT_COUNT) {
        fprintf(f, "  %-34s %12s %14s %12s %12s %12s %10llu\n", name, "", "", "", "", "",
                (unsigned long long)in.s.count);
        continue;
      }
      half_width(hw, sizeof hw, &in.s);
      fprintf(f, "  %-34s %12.6g %14s %12.6g %12.6g %12.6g %10llu\n", name, in.s.avg, hw, in.s.min, in.s.max,
              in.s.final, (unsigned long long)in.s.count);
    }
  }
}

void cdevs_proc_report_csv(cdevs_proc *p, double t_end, FILE *f) {
  fprintf(f, "category,owner,name,kind,avg,half_width,min,max,final,count\n");
  for (uint32_t i = 0; i < p->nstats; i++) {
    cdevs_stat_info in;
    cdevs_proc_stat(p, i, t_end, &in);
    static const char *kinds[] = {"count", "tally", "time"};
    fprintf(f, "%s,\"%s\",%s,%s,%.17g,%.17g,%.17g,%.17g,%.17g,%llu\n", in.category, in.owner, in.name,
            kinds[in.kind], in.s.avg, in.s.half_width, in.s.min, in.s.max, in.s.final,
            (unsigned long long)in.s.count);
  }
}
