/* SPDX-License-Identifier: MIT */
/*
 * Models that switch their class during a run (`when c then switch to Free(x = …);`,
 * README "Variable-structure models"): the structural change of Mosilab's statecharts
 * (SNE 18/2, Zauner, Judex & Schwarz §3: `remove(L); add(K)`), on the kernel's
 * structure changes.
 *
 * Each class the model can be in (its modes: the file's model, and every class it
 * switches to, directly or through others) is compiled whole, with its own states.
 * An instance is a coupled model holding the running mode's equation system and a
 * relay ("results") that passes each result on: at a switch the running system
 * hands the values over (evaluated at the event, in its own variables), asks for its
 * own removal and for the new class's system, started from those values (the rest
 * from its start values), and for its couplings to the relay; the kernel applies
 * them at the end of the instant. The relay keeps the results' sources fixed for
 * writers and for models outside, whichever class runs.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compile_impl.h"

typedef struct mo_vs_mode {
  struct mo_vs *vs;
  cdevs_mo *mo; /* its compiled class (the model itself for mode 0) */
  const char *cls;
  cdevs__sys_arg arg;
  cdevs_atomic_ops ops; /* the equation system's, with this class's result ports */
  cdevs_port_def *outs;
  double *x0; /* the states it starts from when switched to */
} mo_vs_mode;

struct mo_vs {
  struct mo_vs *next;
  uint32_t nmodes, n_out;
  mo_vs_mode *modes;
  cdevs_atomic_ops relay_ops;
  cdevs_port_def *relay_in, *relay_out;
  char **port_names; /* per result: its port's name (relay, holder and modes alike) */
  cdevs_model *holder, *relay, *cur;
  double *pend; /* the values of the switch under way, by slot */
  uint64_t switches;
  cdevs_mo_stats acc; /* the counters of the systems removed */
  void (*stats)(const void *state, cdevs_mo_stats *st); /* the running system's (QSS or CVODE) */
};

/* ---- Compiling the modes ------------------------------------------------------------ */

/* Mode k of the model: 0 its own class, k the (k-1)-th it switches to. */
static cdevs_mo *mode_of(const cdevs_mo *top, uint32_t k) { return k ? top->modes[k - 1] : (cdevs_mo *)top; }

/* The flat scalar called name in m, or UINT32_MAX. */
static uint32_t flat_named(const cdevs_mo *m, const char *name) {
  for (uint32_t f = 0; f < m->nflat; f++)
    if (!strcmp(m->names[f], name)) return f;
  return UINT32_MAX;
}

/* Whether flat scalar f of m can be a result (a state, an algebraic or a discrete). */
static int result_ok(const cdevs_mo *m, uint32_t f) {
  return f != UINT32_MAX && (m->cls[f] == V_STATE || m->cls[f] == V_ALG || m->cls[f] == V_DISC);
}

int lang_modes_resolve(cdevs_mo *top, const ast_model *file_top, lang_diag *d, lang_compile_class_fn *compile_class,
                       void *ud) {
  /* Every class reachable by switches, each compiled once, in the order first met. */
  if (!top->sw_cls && !(top->sw_cls = lang_dup(file_top->name))) return -1;
  for (uint32_t mi = 0; mi <= top->nmodes; mi++) {
    cdevs_mo *mo = mode_of(top, mi);
    for (uint32_t i = 0; i < mo->nsw; i++) {
      mo_switch *w = &mo->sw[i];
      uint32_t k;
      for (k = 0; k <= top->nmodes; k++)
        if (!strcmp(mode_of(top, k)->sw_cls, w->cls)) break;
      if (k <= top->nmodes) {
        w->mode = k;
        continue;
      }
      const ast_model *cls = NULL;
      for (size_t j = 0; j < file_top->nclasses && !cls; j++)
        if (!strcmp(file_top->classes[j]->name, w->cls)) cls = file_top->classes[j];
      if (!cls || cls->graph) {
        const char *cands[64];
        size_t nc = 0;
        for (size_t j = 0; j < file_top->nclasses && nc < 63; j++) cands[nc++] = file_top->classes[j]->name;
        cands[nc++] = file_top->name;
        const char *hint = cls ? NULL : lang_suggest(w->cls, cands, nc);
        if (cls)
          lang_error(d, w->line, w->col, "'%s' is a DEVS graph: a model switches to an equation model class", w->cls);
        else if (hint)
          lang_error(d, w->line, w->col, "switch to '%s': no class of that name in this file; did you mean '%s'?",
                     w->cls, hint);
        else
          lang_error(d, w->line, w->col,
                     "switch to '%s': no class of that name in this file (the classes a model switches to are "
                     "defined in its file, before it)", w->cls);
        return -1;
      }
      cdevs_mo **nm = realloc(top->modes, (top->nmodes + 1) * sizeof *nm);
      if (!nm) return -1;
      top->modes = nm;
      cdevs_mo *m = NULL;
      if (compile_class(cls, ud, &m)) return -1;
      m->sw_cls = lang_dup(cls->name);
      nm[top->nmodes++] = m;
      if (!m->sw_cls) return -1;
      if (m->ncomps) {
        lang_error(d, cls->line, cls->col,
                   "class %s, which this model switches to, has library blocks or graphs as components: a class "
                   "switched to is an equation model of its own", cls->name);
        return -1;
      }
      w->mode = top->nmodes;
    }
  }
  if (top->ncomps) {
    lang_error(d, top->sw[0].line, top->sw[0].col,
               "a model that switches its class cannot have library blocks or graphs as components (yet): put the "
               "switching model in a file of its own");
    return -1;
  }
  /* The values handed over go to states of the new class; every result is a
   * variable of every class. */
  for (uint32_t mi = 0; mi <= top->nmodes; mi++) {
    cdevs_mo *mo = mode_of(top, mi);
    for (uint32_t i = 0; i < mo->nsw; i++) {
      mo_switch *w = &mo->sw[i];
      cdevs_mo *to = mode_of(top, w->mode);
      const char *tn = to->sw_cls;
      for (uint32_t s = 0; s < w->nslots; s++) {
        uint32_t f = flat_named(to, w->slot_name[s]);
        if (f == UINT32_MAX) {
          lang_error(d, w->slot_line[s], w->slot_col[s], "'%s' is not a variable of %s", w->slot_name[s], tn);
          return -1;
        }
        if (to->cls[f] != V_STATE) {
          lang_error(d, w->slot_line[s], w->slot_col[s],
                     "'%s' is not a state of %s: a switch hands values over to states (the other variables "
                     "follow from them)", w->slot_name[s], tn);
          return -1;
        }
        w->slot_state[s] = to->cidx[f];
      }
      for (uint32_t o = 0; o < top->n_out; o++) {
        if (top->out_kind[o] > 2 || !result_ok(to, flat_named(to, top->out_names[o]))) {
          lang_error(d, w->line, w->col,
                     "'%s', a result of this model, is not a variable of %s, which it switches to: each result "
                     "(MMO_Output) must be one of every class the model switches between",
                     top->out_names[o], tn);
          return -1;
        }
      }
    }
  }
  return 0;
}

/* ---- The relay of the results ------------------------------------------------------ */

typedef struct relay_state {
  const cdevs_alloc *alloc;
  uint32_t n, ndirty;
  cdevs_value *v;
  uint32_t *dirty;
  uint8_t *is_dirty;
} relay_state;

static int relay_init(cdevs_ctx *cx, void *state, const void *arg) {
  relay_state *s = state;
  const mo_vs *vs = *(mo_vs *const *)arg;
  s->alloc = cdevs_ctx_alloc(cx);
  s->n = vs->n_out;
  size_t n = s->n ? s->n : 1;
  s->v = s->alloc->realloc(s->alloc->ud, NULL, 0, n * sizeof *s->v);
  s->dirty = s->alloc->realloc(s->alloc->ud, NULL, 0, n * sizeof *s->dirty);
  s->is_dirty = s->alloc->realloc(s->alloc->ud, NULL, 0, n);
  if (!s->v || !s->dirty || !s->is_dirty) {
    cdevs_ctx_fail(cx, "out of memory");
    return CDEVS_ENOMEM;
  }
  memset(s->is_dirty, 0, n);
  return CDEVS_OK;
}

static void relay_fini(void *state) {
  relay_state *s = state;
  size_t n = s->n ? s->n : 1;
  if (s->v) s->alloc->realloc(s->alloc->ud, s->v, n * sizeof *s->v, 0);
  if (s->dirty) s->alloc->realloc(s->alloc->ud, s->dirty, n * sizeof *s->dirty, 0);
  if (s->is_dirty) s->alloc->realloc(s->alloc->ud, s->is_dirty, n, 0);
}

static double relay_ta(const void *state) { return ((const relay_state *)state)->ndirty ? 0.0 : INFINITY; }

static void relay_output(cdevs_ctx *cx, const void *state) {
  const relay_state *s = state;
  for (uint32_t k = 0; k < s->ndirty; k++) cdevs_emit(cx, (int)s->dirty[k], &s->v[s->dirty[k]]);
}

static void relay_int(cdevs_ctx *cx, void *state) {
  (void)cx;
  relay_state *s = state;
  for (uint32_t k = 0; k < s->ndirty; k++) s->is_dirty[s->dirty[k]] = 0;
  s->ndirty = 0;
}

static void relay_ext(cdevs_ctx *cx, void *state, double e, const cdevs_bag *x) {
  (void)cx, (void)e;
  relay_state *s = state;
  for (size_t i = 0; i < x->n; i++) {
    uint32_t p = (uint32_t)x->events[i].port;
    if (p >= s->n) continue;
    s->v[p] = *x->events[i].value; /* (Taylor values: no reference to take) */
    if (!s->is_dirty[p]) s->is_dirty[p] = 1, s->dirty[s->ndirty++] = p;
  }
}

static void relay_conf(cdevs_ctx *cx, void *state, const cdevs_bag *x) {
  relay_int(cx, state);
  relay_ext(cx, state, 0.0, x);
}

/* ---- A run's switches ----------------------------------------------------------------- */

static void vs_handover(void *ud, uint32_t slot, double v) {
  mo_vs_mode *from = ud;
  from->vs->pend[slot] = v;
}

static void stats_add(cdevs_mo_stats *a, const cdevs_mo_stats *b) {
  a->steps += b->steps, a->crossings += b->crossings, a->reinits += b->reinits, a->refreshes += b->refreshes;
  if (b->zeno && !a->zeno) a->zeno_t = b->zeno_t;
  a->zeno += b->zeno, a->paired += b->paired;
}

static int vs_switch(cdevs_ctx *cx, const void *state, void *ud, uint32_t sw) {
  mo_vs_mode *from = ud;
  mo_vs *vs = from->vs;
  const mo_switch *w = &from->mo->sw[sw];
  mo_vs_mode *to = &vs->modes[w->mode];
  const cdevs__sys_spec *tsp = &to->mo->spec;
  memcpy(to->x0, tsp->x0, tsp->n_states * sizeof *to->x0);
  for (uint32_t k = 0; k < w->nslots; k++) to->x0[w->slot_state[k]] = vs->pend[k];
  cdevs_mo_stats st;
  vs->stats(state, &st);
  stats_add(&vs->acc, &st);
  cdevs__sys_arg a = to->arg;
  a.x0 = to->x0;
  /* The new system and its couplings first (a model's requests after its own
   * removal would be refused), under its class's name, or with a '_' while the
   * running one has that name (a class switching to itself). */
  char nm[300];
  const char *cur = cdevs_model_name(vs->cur);
  snprintf(nm, sizeof nm, "%s%s", to->cls, strcmp(cur, to->cls) ? "" : "_");
  cdevs_model *m = cdevs_ctx_add_atomic(cx, vs->holder, nm, &to->ops, &a);
  if (!m) return -1; /* (the run has failed with the kernel's message) */
  for (uint32_t o = 0; o < vs->n_out; o++)
    cdevs_ctx_connect(cx, vs->holder, m, vs->port_names[o], vs->relay, vs->port_names[o]);
  cdevs_ctx_remove(cx, vs->cur);
  vs->cur = m;
  vs->switches++;
  return 0;
}

static void vs_free(mo_vs *vs) {
  for (uint32_t k = 0; k < vs->nmodes; k++) {
    free(vs->modes[k].outs);
    free(vs->modes[k].x0);
  }
  for (uint32_t o = 0; vs->port_names && o < vs->n_out; o++) free(vs->port_names[o]);
  free(vs->port_names), free(vs->modes), free(vs->relay_in), free(vs->relay_out), free(vs->pend);
  free(vs);
}

void lang_switching_free(cdevs_mo *mo) {
  while (mo->vs_list) {
    mo_vs *n = mo->vs_list->next;
    vs_free(mo->vs_list);
    mo->vs_list = n;
  }
  free(mo->sw_cls);
}

/* Mode m's results: the model's, by name (lang_modes_resolve checked that it has
 * each), as its system's output ports. */
static int mode_outputs(const cdevs_mo *top, cdevs_mo *m) {
  uint32_t n = top->n_out ? top->n_out : 1;
  free(m->sys_out_kind), free(m->sys_out_index), free(m->sys_out_names);
  m->sys_out_kind = malloc(n * sizeof *m->sys_out_kind);
  m->sys_out_index = malloc(n * sizeof *m->sys_out_index);
  m->sys_out_names = malloc(n * sizeof *m->sys_out_names);
  if (!m->sys_out_kind || !m->sys_out_index || !m->sys_out_names) return -1;
  for (uint32_t o = 0; o < top->n_out; o++) {
    uint32_t f = flat_named(m, top->out_names[o]);
    if (top->out_kind[o] > 2 || !result_ok(m, f)) return -2; /* (another --vars since the model was checked) */
    int cls = m->cls[f];
    m->sys_out_kind[o] = (uint8_t)(cls == V_STATE ? 0 : cls == V_ALG ? 1 : 2);
    m->sys_out_index[o] = m->cidx[f];
    m->sys_out_names[o] = m->names[f];
  }
  m->spec.n_out = top->n_out;
  m->spec.out_kind = m->sys_out_kind, m->spec.out_index = m->sys_out_index, m->spec.out_names = m->sys_out_names;
  return 0;
}

cdevs_model *lang_switching_add(cdevs_model *parent, const char *name, cdevs_mo *mo, cdevs_qss_method method,
                                double tol, double abstol) {
  int classical = method == CDEVS_CVODE_BDF || method == CDEVS_CVODE_AM;
  if (method == CDEVS_LIQSS_BDF) {
    cdevs_model_fail(parent, CDEVS_EINVAL,
                     "%s: a model that switches its class (switch to) runs under QSS1-3, LIQSS1-3, mLIQSS2, CVODE_BDF "
                     "or CVODE_AM, not LIQSS_BDF", mo->file ? mo->file : name);
    return NULL;
  }
  if (classical && !mo->ode) {
    cdevs_model_fail(parent, CDEVS_EINVAL,
                     "method %s integrates the equations with SUNDIALS CVODE, which this program was built "
                     "without (libcdevs_ode, Debian libsundials-dev)", cdevs_qss_method_name(method));
    return NULL;
  }
  mo_vs *vs = calloc(1, sizeof *vs);
  if (!vs) goto oom;
  vs->next = mo->vs_list, mo->vs_list = vs;
  vs->stats = classical ? mo->ode->stats : cdevs_mo_stats_get; /* (of a running class's state) */
  vs->nmodes = mo->nmodes + 1, vs->n_out = mo->n_out;
  uint32_t no = vs->n_out;
  vs->modes = calloc(vs->nmodes, sizeof *vs->modes);
  vs->port_names = calloc(no + 1, sizeof *vs->port_names);
  vs->relay_in = calloc(no + 1, sizeof *vs->relay_in);
  vs->relay_out = calloc(no + 1, sizeof *vs->relay_out);
  if (!vs->modes || !vs->port_names || !vs->relay_in || !vs->relay_out) goto oom;
  for (uint32_t o = 0; o < no; o++) {
    char kn[300];
    if (!(vs->port_names[o] = lang_dup(lang_kernel_name(kn, sizeof kn, mo->out_names[o])))) goto oom;
    vs->relay_in[o] = vs->relay_out[o] = (cdevs_port_def){vs->port_names[o], CDEVS_TAYLOR};
  }
  vs->relay_in[no] = vs->relay_out[no] = (cdevs_port_def){NULL, CDEVS_ANY};
  uint32_t npend = 1;
  for (uint32_t k = 0; k < vs->nmodes; k++) {
    mo_vs_mode *md = &vs->modes[k];
    md->vs = vs;
    md->mo = mode_of(mo, k);
    md->cls = k ? md->mo->sw_cls : name; /* (the model's own: named as added) */
    int rc = mode_outputs(mo, md->mo);
    if (rc == -2) {
      cdevs_model_fail(parent, CDEVS_EINVAL, "%s: a result of the model is not a variable of %s, which it switches to",
                       mo->file ? mo->file : name, md->cls);
      return NULL;
    }
    md->outs = calloc(no + 1, sizeof *md->outs);
    md->x0 = malloc((md->mo->spec.n_states + 1) * sizeof *md->x0);
    if (rc || !md->outs || !md->x0) goto oom;
    memcpy(md->outs, vs->relay_out, (no + 1) * sizeof *md->outs);
    md->ops = classical ? *mo->ode->ops : cdevs__system_ops;
    md->ops.outputs = md->outs;
    md->arg = lang_sys_arg(mo, &md->mo->spec, method, tol, abstol); /* (the run's settings: the model's) */
    md->arg.sw = (cdevs__sys_switching){.handover = vs_handover, .switch_to = vs_switch, .ud = md};
    for (uint32_t i = 0; i < md->mo->nsw; i++)
      if (md->mo->sw[i].nslots > npend) npend = md->mo->sw[i].nslots;
  }
  if (!(vs->pend = calloc(npend, sizeof *vs->pend))) goto oom;
  vs->relay_ops = (cdevs_atomic_ops){.type = "SwitchResults",
                                     .state_size = sizeof(relay_state),
                                     .arg_size = sizeof(mo_vs *),
                                     .inputs = vs->relay_in,
                                     .outputs = vs->relay_out,
                                     .init = relay_init,
                                     .ta = relay_ta,
                                     .output = relay_output,
                                     .delta_int = relay_int,
                                     .delta_ext = relay_ext,
                                     .delta_conf = relay_conf,
                                     .fini = relay_fini};
  /* The relay's name is no class's. */
  const char *rname = "results";
  for (uint32_t k = 0; k < vs->nmodes; k++)
    if (!strcmp(vs->modes[k].cls, rname)) rname = "results_";
  vs->holder = cdevs_coupled_add(parent, name);
  for (uint32_t o = 0; vs->holder && o < no; o++) cdevs_port_add(vs->holder, CDEVS_OUT, vs->port_names[o], CDEVS_TAYLOR);
  mo_vs *self = vs;
  vs->relay = cdevs_atomic_add(vs->holder, rname, &vs->relay_ops, &self);
  /* The model's own class runs first, from its start values. */
  vs->cur = cdevs_atomic_add(vs->holder, name, &vs->modes[0].ops, &vs->modes[0].arg);
  for (uint32_t o = 0; vs->cur && o < no; o++) {
    cdevs_connect(vs->holder, vs->cur, vs->port_names[o], vs->relay, vs->port_names[o]);
    cdevs_connect(vs->holder, vs->relay, vs->port_names[o], vs->holder, vs->port_names[o]);
  }
  mo->vs_last = vs;
  mo->system = NULL;
  return vs->cur ? vs->holder : NULL;
oom:
  cdevs_model_fail(parent, CDEVS_ENOMEM, "out of memory");
  return NULL;
}

int lang_switching_output_source(const cdevs_mo *mo, size_t i, const cdevs_model **atomic, int *port) {
  if (!mo->vs_last || i >= mo->vs_last->n_out || !mo->vs_last->relay) return -1;
  *atomic = mo->vs_last->relay;
  *port = (int)i;
  return 0;
}

void lang_switching_stats(const cdevs_mo *mo, cdevs_sim *sim, cdevs_mo_stats *st) {
  const mo_vs *vs = mo->vs_last;
  *st = vs->acc;
  const void *state = vs->cur ? cdevs_sim_state(sim, vs->cur) : NULL;
  if (state) {
    cdevs_mo_stats c;
    vs->stats(state, &c);
    stats_add(st, &c);
  }
  st->switches = vs->switches;
}
