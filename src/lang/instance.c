/* SPDX-License-Identifier: MIT */
/*
 * A compiled model's API: its experiment and outputs, the --vars selection, and its
 * instances in a model tree (cdevs_mo_add) with their statistics.
 */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cdevs/continuous.h"
#include "compile_impl.h"

void cdevs_mo_experiment_get(const cdevs_mo *mo, cdevs_mo_experiment *e) { *e = mo->exp; }
void cdevs_mo_set_stop(cdevs_mo *mo, double stop) {
  if (!mo) return;
  mo->t_end = stop;
  mo->t_end_set = 1;
}
void cdevs_mo_set_zeno(cdevs_mo *mo, cdevs_mo_zeno z) { mo->zeno = z; }
void cdevs_mo_set_ode(cdevs_mo *mo, const cdevs_mo_ode *ode) {
  if (mo) mo->ode = ode;
}

int cdevs_mo_method_parse(const char *name, cdevs_qss_method *m) {
  if (!name) return -1;
  if (!strcasecmp(name, "CVODE_BDF")) return *m = CDEVS_CVODE_BDF, 0; /* (any case, as the QSS methods) */
  if (!strcasecmp(name, "CVODE_AM")) return *m = CDEVS_CVODE_AM, 0;
  if (!strcasecmp(name, "LIQSS_BDF")) return *m = CDEVS_LIQSS_BDF, 0;
  return cdevs_qss_method_parse(name, m);
}

static int is_classical(cdevs_qss_method m) { return m == CDEVS_CVODE_BDF || m == CDEVS_CVODE_AM; }
void cdevs_mo_set_jacobian(cdevs_mo *mo, cdevs_mo_jacobian j) {
  if (mo) mo->jacobian = j;
}
size_t cdevs_mo_random_count(const cdevs_mo *mo) { return mo->ndrawn; }
const char *cdevs_mo_random_name(const cdevs_mo *mo, size_t i) {
  return i < mo->ndrawn ? mo->names[mo->drawn[i]] : NULL;
}
double cdevs_mo_random_value(const cdevs_mo *mo, size_t i) { return i < mo->ndrawn ? mo->drawn_val[i] : NAN; }
const char *cdevs_mo_random_law(const cdevs_mo *mo, size_t i) {
  return i >= mo->ndrawn ? NULL : mo->drawn_law[i] ? mo->drawn_law[i] : "(from drawn values)";
}
size_t cdevs_mo_output_count(const cdevs_mo *mo) { return mo->n_out; }
const char *cdevs_mo_output_name(const cdevs_mo *mo, size_t i) { return i < mo->n_out ? mo->out_names[i] : NULL; }
size_t cdevs_mo_state_count(const cdevs_mo *mo) {
  size_t n = mo->spec.n_states;
  for (uint32_t i = 0; i < mo->ncomps; i++)
    if (lang_is_integrator(mo->comps[i].b->ops)) n++;
  return n;
}

/* One --vars subscript, q[0..len): an index, ':' (all), lo:hi or lo:step:hi. The
 * range it stands for goes to lo, step, hi; -1 if it is none of these. */
static int vars_range(const char *q, size_t len, long *lo, long *step, long *hi) {
  long v[3];
  int n = 0;
  size_t i = 0;
  while (i < len && q[i] == ' ') i++;
  if (i < len && q[i] == ':') {
    for (i++; i < len && q[i] == ' ';) i++;
    if (i != len) return -1;
    *lo = 1, *step = 1, *hi = LONG_MAX;
    return 0;
  }
  for (;;) {
    char *end;
    const char *at = q + i;
    if (n == 3 || i >= len || !(isdigit((unsigned char)*at) || *at == '-')) return -1;
    v[n] = strtol(at, &end, 10);
    if (v[n] < -INT32_MAX || v[n] > INT32_MAX) return -1; /* beyond any index; k - lo cannot overflow */
    n++;
    i = (size_t)(end - q);
    while (i < len && q[i] == ' ') i++;
    if (i == len) break;
    if (q[i++] != ':') return -1;
    while (i < len && q[i] == ' ') i++;
  }
  *lo = v[0], *hi = v[n - 1], *step = n == 3 ? v[1] : 1;
  return *step >= 1 ? 0 : -1;
}

/* Does flat variable name nm ("x", "x[3]" or "m[2,1]") fall under the --vars entry
 * p[0..len)? The entry is a name, matching the variable or every element of the
 * array, or a name with subscripts (see vars_range), one per dimension. -1 if a
 * subscript is malformed. */
static int vars_match(const char *nm, const char *p, size_t len) {
  const char *br = memchr(p, '[', len);
  size_t base = br ? (size_t)(br - p) : len;
  if (strncmp(nm, p, base) != 0 || (nm[base] != '\0' && nm[base] != '[')) return 0;
  if (!br) return 1;
  if (nm[base] != '[' || p[len - 1] != ']') return p[len - 1] != ']' ? -1 : 0;
  const char *q = br + 1, *qend = p + len - 1, *ix = nm + base + 1;
  for (;;) {
    const char *comma = memchr(q, ',', (size_t)(qend - q));
    const char *sub_end = comma ? comma : qend;
    long lo, step, hi;
    if (vars_range(q, (size_t)(sub_end - q), &lo, &step, &hi)) return -1;
    char *after;
    long k = strtol(ix, &after, 10);
    if (k < lo || k > hi || (k - lo) % step != 0) return 0;
    if (!comma) return *after == ']';
    if (*after != ',') return 0;
    q = comma + 1, ix = after + 1;
  }
}

int cdevs_mo_select_outputs(cdevs_mo *mo, const char *list, FILE *diag) {
  mo->n_out = 0;
  const char *p = list;
  while (*p) {
    const char *e = p;
    int depth = 0;
    while (*e && (depth || *e != ',')) {
      if (*e == '[') depth++;
      if (*e == ']') depth--;
      e++;
    }
    while (p < e && *p == ' ') p++; /* "x, y" as well as "x,y" */
    size_t len = (size_t)(e - p);
    while (len > 0 && p[len - 1] == ' ') len--;
    int found = 0;
    const char *dot = NULL; /* comp.port: the last dot (t1.k.y: the block t1.k) */
    for (size_t q = 0; q < len; q++)
      if (p[q] == '.') dot = p + q;
    if (dot) { /* comp.port */
      for (uint32_t i = 0; i < mo->ncomps && !found; i++) {
        size_t cl = strlen(mo->comps[i].name);
        if (cl != (size_t)(dot - p) || memcmp(mo->comps[i].name, p, cl)) continue;
        const cdevs_port_def *ports = lang_block_ports(mo->comps[i].b, CDEVS_OUT);
        for (int k = 0; ports && ports[k].name; k++)
          if (strlen(ports[k].name) == len - cl - 1 && !memcmp(ports[k].name, dot + 1, len - cl - 1)) {
            if (ports[k].kind == CDEVS_MSG) {
              if (diag) fprintf(diag, "--vars: '%.*s' carries entities, not a variable to write\n", (int)len, p);
              return -1;
            }
            char nm[300];
            snprintf(nm, sizeof nm, "%.*s", (int)len, p);
            if (lang_add_comp_output(mo, nm, i, k)) return -1;
            found = 1;
          }
      }
    }
    /* A variable, or the elements an array name or subscripts with ranges select. */
    for (uint32_t f = 0, by_port = (uint32_t)found; f < mo->nflat && !by_port; f++) {
      if (mo->cls[f] == V_UNKNOWN) continue;
      int m = vars_match(mo->names[f], p, len);
      if (m < 0) {
        if (diag) fprintf(diag, "--vars: bad subscript in '%.*s' (an index, ':', lo:hi or lo:step:hi)\n", (int)len, p);
        return -1;
      }
      if (!m) continue;
      int rc = lang_add_output(mo, f);
      if (rc) {
        if (diag && rc > 0) fprintf(diag, "--vars: '%s' is a parameter, not a variable\n", mo->names[f]);
        if (diag && rc < 0) fprintf(diag, "--vars: out of memory\n");
        return -1;
      }
      found = 1;
    }
    if (!found) {
      if (diag) fprintf(diag, "--vars: unknown variable '%.*s'\n", (int)len, p);
      return -1;
    }
    p = *e ? e + 1 : e;
  }
  if (!mo->n_out) {
    if (diag) fprintf(diag, "--vars: no variables named\n");
    return -1;
  }
  return 0;
}

/* A model or port name of the kernel for a name of the model file: t1.k (the block k
 * of the component t1) as t1:k, a dot being what separates the levels of a path. */
const char *lang_kernel_name(char *buf, size_t n, const char *name) {
  snprintf(buf, n, "%s", name);
  for (char *q = buf; *q; q++)
    if (*q == '.') *q = ':';
  return buf;
}

/* LIQSS_BDF's classical part, per state, when the model names none (MMO_BDF_Part),
 * as QSS Solver chooses it: every state but those an event touches (whose derivative
 * reads a discrete a handler assigns, or that a handler reinits), and, for a depth
 * d > 1, the states whose derivatives read those, d - 1 rings out. 0, or -1 out of
 * memory. */
static int mixed_part(const cdevs__sys_spec *sp, int depth, uint8_t *classical) {
  uint32_t ns = sp->n_states, na = sp->n_algs, nd = sp->n_discs;
  uint8_t *hd = calloc(nd + 1, 1), *ad = calloc(na + 1, 1), *next = calloc(ns + 1, 1);
  uint8_t *ring = calloc(ns + 1, 1);
  if (!hd || !ad || !next || !ring) return free(hd), free(ad), free(next), free(ring), -1;
  for (uint32_t i = 0; i < ns; i++) classical[i] = 1;
  for (uint32_t z = 0; z < sp->n_cross; z++)
    for (int side = 0; side < 2; side++) {
      const sys_crossing *c = &sp->cross[z];
      const sys_action *acts = side ? c->on_fall : c->on_rise;
      for (uint32_t k = 0; k < (side ? c->n_fall : c->n_rise); k++) {
        if (acts[k].reinit == ACT_ASSIGN) hd[acts[k].target] = 1;
        if (acts[k].reinit == ACT_REINIT) classical[acts[k].target] = 0;
      }
    }
  /* Algebraics that read such a discrete (in order: each reads only earlier ones). */
  for (uint32_t a = 0; a < na; a++)
    for (uint32_t i = 0; i < sp->alg[a].n; i++) {
      const bc_ins *in = &sp->alg[a].ins[i];
      if ((in->op == BC_DISC && hd[in->arg]) || (in->op == BC_ALG && ad[in->arg])) ad[a] = 1;
    }
  for (uint32_t j = 0; j < ns; j++)
    for (uint32_t i = 0; i < sp->der[j].n; i++) {
      const bc_ins *in = &sp->der[j].ins[i];
      if ((in->op == BC_DISC && hd[in->arg]) || (in->op == BC_ALG && ad[in->arg])) classical[j] = 0;
    }
  /* The rings: states whose derivative reads a state of the last ring (through
   * algebraics too). */
  for (uint32_t i = 0; i < ns; i++) ring[i] = !classical[i];
  for (int d = 1; d < depth; d++) {
    memset(ad, 0, na + 1);
    for (uint32_t a = 0; a < na; a++)
      for (uint32_t i = 0; i < sp->alg[a].n; i++) {
        const bc_ins *in = &sp->alg[a].ins[i];
        if ((BC_READS_STATE(in->op) && in->arg < ns && ring[in->arg]) || (in->op == BC_ALG && ad[in->arg])) ad[a] = 1;
      }
    memset(next, 0, ns + 1);
    for (uint32_t j = 0; j < ns; j++)
      for (uint32_t i = 0; i < sp->der[j].n && classical[j]; i++) {
        const bc_ins *in = &sp->der[j].ins[i];
        if ((BC_READS_STATE(in->op) && in->arg < ns && ring[in->arg]) || (in->op == BC_ALG && ad[in->arg])) next[j] = 1;
      }
    for (uint32_t j = 0; j < ns; j++)
      if (next[j]) classical[j] = 0;
    memcpy(ring, next, ns);
  }
  free(hd), free(ad), free(next), free(ring);
  return 0;
}

/* LIQSS_BDF: the system split (mo->split) into its QSS part, the "equations" atomic
 * model (LIQSS2) in holder, and its classical part, "bdf" (CVODE's BDF, lagging),
 * linked. The outputs' ports (mo->out_port, link_port) are then the parts'. 0, or -1
 * (the reason on parent). */
static int add_mixed(cdevs_model *parent, cdevs_model *holder, cdevs_mo *mo, uint8_t *cl, uint32_t *link_port) {
  cdevs__sys_spec *sp = &mo->spec;
  char err[400];
  if (mo->split_made) cdevs__sys_split_free(&mo->split), mo->split_made = 0;
  int rc = cdevs__sys_split_make(sp, cl, &mo->split, err, sizeof err);
  if (rc) return cdevs_model_fail(parent, rc == -1 ? CDEVS_ENOMEM : CDEVS_EINVAL, "LIQSS_BDF: %s", err), -1;
  mo->split_made = 1;
  cdevs__sys_split *s = &mo->split;
  mo->arg.spec = &s->q;
  mo->arg.method = CDEVS_LIQSS2;
  mo->bdf_arg = mo->arg;
  mo->bdf_arg.spec = &s->c;
  mo->bdf_arg.method = CDEVS_CVODE_BDF;
  mo->bdf_arg.lagging = 1;
  mo->bdf_arg.max_step = mo->bdf_max_step;
  mo->system = cdevs_atomic_add(holder, "equations", &cdevs__system_ops, &mo->arg);
  mo->bdf = cdevs_atomic_add(holder, "bdf", mo->ode->ops, &mo->bdf_arg);
  char kn[300];
  const cdevs__sys_spec *part[2] = {&s->q, &s->c};
  cdevs_model *atom[2] = {mo->system, mo->bdf};
  for (int p = 0; p < 2; p++) {
    uint32_t held = 0; /* the system's outputs this part holds (its first ports; links follow) */
    for (uint32_t o = 0; o < sp->n_out; o++) held += s->out_side[o] == p;
    for (uint32_t o = 0; atom[p] && o < part[p]->n_out; o++) {
      snprintf(kn, sizeof kn, "%s%s", part[p]->out_names[o], o >= held ? "~link" : "");
      for (char *q = kn; *q; q++) if (*q == '.') *q = ':';
      cdevs_port_add(atom[p], CDEVS_OUT, kn, CDEVS_TAYLOR);
    }
    for (uint32_t k = 0; atom[p] && k < part[p]->n_in; k++) {
      snprintf(kn, sizeof kn, "in%u:%s", k, part[p]->in_names[k]);
      for (char *q = kn; *q; q++) if (*q == '.') *q = ':';
      cdevs_port_add(atom[p], CDEVS_IN, kn, CDEVS_TAYLOR);
    }
  }
  /* Output port numbers: each of the system's outputs where its part has it. */
  for (uint32_t o = 0; o < mo->n_out; o++)
    if (mo->out_kind[o] < 3) {
      uint32_t k = mo->out_port[o];
      mo->out_port[o] = s->out_port[k] | (s->out_side[k] ? 0x80000000u : 0u);
    }
  for (uint32_t l = 0; l < mo->nlinks; l++)
    link_port[l] = s->out_port[link_port[l]] | (s->out_side[link_port[l]] ? 0x80000000u : 0u);
  for (uint32_t l = 0; l < s->n_links; l++) {
    const cdevs__sys_split_link *k = &s->links[l];
    cdevs_connect_i(holder, atom[k->from], (int)k->port, atom[1 - k->from], (int)k->input);
  }
  return mo->system && mo->bdf ? 0 : -1;
}

/* ---- Contexts of other layers' blocks ----------------------------------------------- */

static void **context_slot(cdevs_mo *mo, const char *kind, int add) {
  for (int i = 0; i < MO_MAX_CONTEXTS && mo->ctx[i].kind; i++)
    if (!strcmp(mo->ctx[i].kind, kind)) return &mo->ctx[i].ctx;
  for (int i = 0; add && i < MO_MAX_CONTEXTS; i++)
    if (!mo->ctx[i].kind) {
      mo->ctx[i].kind = kind;
      return &mo->ctx[i].ctx;
    }
  return NULL;
}

int cdevs_mo_uses(const cdevs_mo *mo, const char *context) {
  for (uint32_t i = 0; i < mo->ncomps; i++) {
    const char *k = lang_block_context(mo->comps[i].b);
    if (k && !strcmp(k, context)) return 1;
  }
  return 0;
}

void cdevs_mo_set_context(cdevs_mo *mo, const char *context, void *ctx) {
  void **slot = context_slot(mo, context, 1);
  if (slot) *slot = ctx;
}

/* Each component of another layer gets its library's context in its params; the data
 * modules are declared in it. 0, or -1 with the error on parent. */
static int bind_contexts(cdevs_model *parent, cdevs_mo *mo) {
  for (uint32_t i = 0; i < mo->ncomps; i++) {
    mo_comp *k = &mo->comps[i];
    const char *kind = lang_block_context(k->b);
    if (!kind) continue;
    void **slot = context_slot(mo, kind, 0);
    if (!slot || !*slot) {
      cdevs_model_fail(parent, CDEVS_EINVAL, "%s (cdevs.%s) needs a %s context: cdevs_mo_set_context before cdevs_mo_add",
                       k->name, k->b->name, kind);
      return -1;
    }
    memcpy(k->arg + k->b->context_offset, slot, sizeof *slot);
    char msg[256] = "";
    if (k->b->declare && k->b->declare(*slot, k->name, k->arg, msg, sizeof msg)) {
      cdevs_model_fail(parent, CDEVS_EINVAL, "%s:%d:%d: %s: %s", mo->file ? mo->file : "model", k->line, k->col,
                       k->name, msg[0] ? msg : "cannot be declared");
      return -1;
    }
  }
  return 0;
}

cdevs__sys_arg lang_sys_arg(const cdevs_mo *mo, const cdevs__sys_spec *sp, cdevs_qss_method method, double tol,
                            double abstol) {
  return (cdevs__sys_arg){.spec = sp,
                          .method = method,
                          .t_end = mo->t_end_set ? mo->t_end : mo->exp.stop,
                          .secant_a = mo->jacobian == CDEVS_JAC_SECANT,
                          .zeno_continue = mo->zeno == CDEVS_ZENO_CONTINUE,
                          .dqrel = tol,
                          .dqmin = abstol};
}

cdevs_model *cdevs_mo_add(cdevs_model *parent, const char *name, cdevs_mo *mo, cdevs_qss_method method,
                          double tol, double abstol) {
  cdevs__sys_spec *sp = &mo->spec;
  if (mo->nsw) return lang_switching_add(parent, name, mo, method, tol, abstol);
  if ((is_classical(method) || method == CDEVS_LIQSS_BDF) && !mo->ode) {
    cdevs_model_fail(parent, CDEVS_EINVAL,
                     "method %s integrates the equations with SUNDIALS CVODE, which this program was built "
                     "without (libcdevs_ode, Debian libsundials-dev)", cdevs_qss_method_name(method));
    return NULL;
  }
  if (bind_contexts(parent, mo)) return NULL;
  mo->in_use = is_classical(method) ? mo->ode : NULL;
  /* The tolerances go in the argument, which the kernel copies: each instance keeps
   * its own. */
  mo->arg = lang_sys_arg(mo, sp, method, tol, abstol);
  /* The equation system's ports are the outputs that are its variables. */
  free(mo->sys_out_kind), free(mo->sys_out_index), free(mo->sys_out_names);
  /* The equation system's ports: the outputs that are its variables, then the
   * variables components read (connect(x, k.u)) that are not among them, each once. */
  size_t cap = (size_t)mo->n_out + mo->nlinks + 1;
  mo->sys_out_kind = malloc(cap * sizeof *mo->sys_out_kind);
  mo->sys_out_index = malloc(cap * sizeof *mo->sys_out_index);
  mo->sys_out_names = malloc(cap * sizeof *mo->sys_out_names);
  uint32_t *link_port = malloc((mo->nlinks ? mo->nlinks : 1) * sizeof *link_port);
  if (!mo->sys_out_kind || !mo->sys_out_index || !mo->sys_out_names || !link_port) {
    free(link_port);
    cdevs_model_fail(parent, CDEVS_ENOMEM, "out of memory");
    return NULL;
  }
  uint32_t ns = 0;
  for (uint32_t o = 0; o < mo->n_out; o++)
    if (mo->out_kind[o] < 3) {
      mo->sys_out_kind[ns] = mo->out_kind[o];
      mo->sys_out_index[ns] = mo->out_index[o];
      mo->sys_out_names[ns] = mo->out_names[o];
      mo->out_port[o] = ns++;
    }
  for (uint32_t l = 0; l < mo->nlinks; l++) {
    uint32_t f = mo->links[l].f, kind = mo->cls[f] == V_STATE ? 0 : mo->cls[f] == V_ALG ? 1 : 2, p;
    for (p = 0; p < ns; p++)
      if (mo->sys_out_kind[p] == kind && mo->sys_out_index[p] == mo->cidx[f]) break;
    if (p == ns) {
      mo->sys_out_kind[ns] = (uint8_t)kind, mo->sys_out_index[ns] = mo->cidx[f], mo->sys_out_names[ns] = mo->names[f];
      ns++;
    }
    link_port[l] = p;
  }
  sp->n_out = ns;
  sp->out_kind = mo->sys_out_kind;
  sp->out_index = mo->sys_out_index;
  sp->out_names = mo->sys_out_names;
  int has_eqs = sp->n_states || sp->n_discs || sp->n_cross || sp->n_algs || sp->n_in || mo->nlinks;
  cdevs_model *holder = parent, *result;
  mo->system = mo->bdf = NULL;
  const cdevs_atomic_ops *sys_ops = mo->in_use ? mo->in_use->ops : &cdevs__system_ops;
  /* LIQSS_BDF: the classical part's states; with none, the run is LIQSS2's. */
  int mixed = 0;
  uint8_t *cl = NULL;
  mo->bdf_states = 0;
  if (method == CDEVS_LIQSS_BDF) {
    cl = malloc(sp->n_states + 1);
    if (!cl || (!mo->bdf_part && mixed_part(sp, mo->bdf_depth, cl))) {
      free(cl), free(link_port);
      cdevs_model_fail(parent, CDEVS_ENOMEM, "out of memory");
      return NULL;
    }
    if (mo->bdf_part) memcpy(cl, mo->bdf_part, sp->n_states);
    for (uint32_t i = 0; i < sp->n_states; i++) mo->bdf_states += cl[i];
    mixed = mo->bdf_states > 0;
    if (!mixed) mo->arg.method = CDEVS_LIQSS2, free(cl), cl = NULL;
  }
  if (mixed) {
    holder = result = cdevs_coupled_add(parent, name);
    int bad = !holder || add_mixed(parent, holder, mo, cl, link_port);
    free(cl);
    if (bad) {
      free(link_port);
      return NULL;
    }
  } else if (mo->ncomps) {
    holder = result = cdevs_coupled_add(parent, name);
    if (has_eqs) mo->system = cdevs_atomic_add(holder, "equations", sys_ops, &mo->arg);
  } else {
    result = mo->system = cdevs_atomic_add(holder, name, sys_ops, &mo->arg);
  }
  char kn[300];
  for (uint32_t o = 0; !mixed && mo->system && o < ns; o++)
    cdevs_port_add(mo->system, CDEVS_OUT, lang_kernel_name(kn, sizeof kn, mo->sys_out_names[o]), CDEVS_TAYLOR);
  for (uint32_t k = 0; !mixed && mo->system && k < mo->nins; k++)
    cdevs_port_add(mo->system, CDEVS_IN, lang_kernel_name(kn, sizeof kn, mo->ins[k].name), CDEVS_TAYLOR);
  for (uint32_t i = 0; i < mo->ncomps; i++) {
    mo_comp *k = &mo->comps[i];
    /* Integrators take the run's method, and every block with a quantum (dqrel,
     * dqmin: integrators, nonlinear functions) the run's tolerances, unless the model
     * set them. */
    if (lang_is_integrator(k->b->ops) && !(k->set & 1u)) {
      cdevs_integrator_params *ip = (cdevs_integrator_params *)(void *)k->arg;
      ip->method = is_classical(method) ? CDEVS_QSS3 : method == CDEVS_LIQSS_BDF ? CDEVS_LIQSS2 : method; /* blocks are QSS */
    }
    for (int pi = 0; k->b->params[pi].name; pi++) {
      const lang_param *lp = &k->b->params[pi];
      int rel = !strcmp(lp->name, "dqrel");
      if ((rel || !strcmp(lp->name, "dqmin")) && !(k->set & (1u << pi)))
        memcpy(k->arg + lp->offset, rel ? &tol : &abstol, sizeof(double));
    }
    if (!k->b->ops) continue; /* a data module: declared in its context */
    k->model = cdevs_atomic_add(holder, lang_kernel_name(kn, sizeof kn, k->name), k->b->ops, k->b->arg_size ? k->arg : NULL);
  }
  for (uint32_t i = 0; i < mo->nconns; i++) {
    const mo_conn *cn = &mo->conns[i];
    cdevs_connect_i(holder, mo->comps[cn->from].model, cn->fport, mo->comps[cn->to].model, cn->tport);
  }
  for (uint32_t k = 0; !mixed && mo->system && k < mo->nins; k++)
    cdevs_connect_i(holder, mo->comps[mo->ins[k].comp].model, mo->ins[k].port, mo->system, (int)k);
  for (uint32_t l = 0; !mixed && mo->system && l < mo->nlinks; l++)
    cdevs_connect_i(holder, mo->system, (int)link_port[l], mo->comps[mo->links[l].comp].model, mo->links[l].port);
  for (uint32_t k = 0; mixed && k < mo->nins; k++) { /* each part that reads the input */
    const cdevs_model *from = mo->comps[mo->ins[k].comp].model;
    if (mo->split.in_q[k] != UINT32_MAX)
      cdevs_connect_i(holder, (cdevs_model *)from, mo->ins[k].port, mo->system, (int)mo->split.in_q[k]);
    if (mo->split.in_c[k] != UINT32_MAX)
      cdevs_connect_i(holder, (cdevs_model *)from, mo->ins[k].port, mo->bdf, (int)mo->split.in_c[k]);
  }
  for (uint32_t l = 0; mixed && l < mo->nlinks; l++)
    cdevs_connect_i(holder, link_port[l] >> 31 ? mo->bdf : mo->system, (int)(link_port[l] & 0x7fffffffu),
                    mo->comps[mo->links[l].comp].model, mo->links[l].port);
  free(link_port);
  return result;
}

int cdevs_mo_output_source(const cdevs_mo *mo, size_t i, const cdevs_model **atomic, int *port) {
  if (i >= mo->n_out) return -1;
  if (mo->nsw) return lang_switching_output_source(mo, i, atomic, port);
  if (mo->out_kind[i] == 3) {
    *atomic = mo->comps[mo->out_index[i]].model;
    *port = (int)mo->out_port[i];
  } else if (mo->bdf) { /* LIQSS_BDF: the part that has it (add_mixed) */
    *atomic = mo->out_port[i] >> 31 ? mo->bdf : mo->system;
    *port = (int)(mo->out_port[i] & 0x7fffffffu);
  } else {
    *atomic = mo->system;
    *port = (int)mo->out_port[i];
  }
  return *atomic ? 0 : -1;
}

void cdevs_mo_stats_sim(const cdevs_mo *mo, cdevs_sim *sim, cdevs_mo_stats *st) {
  memset(st, 0, sizeof *st);
  if (mo->nsw && mo->vs_last) {
    lang_switching_stats(mo, sim, st);
    return;
  }
  if (mo->system && mo->in_use) mo->in_use->stats(cdevs_sim_state(sim, mo->system), st);
  else if (mo->system) cdevs_mo_stats_get(cdevs_sim_state(sim, mo->system), st);
  if (mo->bdf && mo->ode) { /* LIQSS_BDF's classical part: its CVODE steps, and its synchronizations */
    cdevs_mo_stats c;
    mo->ode->stats(cdevs_sim_state(sim, mo->bdf), &c);
    st->steps += c.steps, st->syncs += c.syncs, st->bdf_steps += c.steps, st->bdf_states = mo->bdf_states;
  }
  for (uint32_t i = 0; i < mo->ncomps; i++) {
    const cdevs_atomic_ops *ops = mo->comps[i].b->ops;
    if (lang_is_integrator(ops) && mo->comps[i].model)
      st->steps += cdevs_integrator_steps(cdevs_sim_state(sim, mo->comps[i].model));
  }
}

void cdevs_mo_stats_get(const void *state, cdevs_mo_stats *st) {
  cdevs__sys_stats s;
  cdevs__system_stats(state, &s);
  st->steps = s.steps;
  st->crossings = s.crossings;
  st->refreshes = s.refreshes;
  st->reinits = s.reinits;
  st->paired = s.paired;
  st->zeno = s.zeno;
  st->zeno_t = s.zeno_t;
}
