/* SPDX-License-Identifier: MIT */
/*
 * One equation system split in two by its states (cdevs__sys_split): the part a
 * classical integrator takes (the stiff states of a mixed-mode run, LIQSS_BDF) and
 * the QSS part with everything else, each a spec of its own, exchanging values
 * through ports as any two atomic models do. A state one part reads of the other's
 * is one of its inputs; so is a discrete the classical part reads (the QSS part owns
 * the discretes, the crossings and their handlers). Each part keeps the algebraics it
 * needs, evaluated in its own codes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "system.h"

enum { NONE = UINT32_MAX };

/* What a code reads: each state, input, algebraic and discrete it loads, marked. */
static void mark_reads(const cdevs__sys_spec *sp, const bc_code *c, uint8_t *var, uint8_t *alg, uint8_t *disc) {
  for (uint32_t i = 0; i < c->n; i++) {
    const bc_ins *in = &c->ins[i];
    if (BC_READS_STATE(in->op)) var[in->arg] = 1;
    else if (in->op == BC_ALG) alg[in->arg] = 1;
    else if (in->op == BC_DISC || in->op == BC_PRE) disc[in->arg] = 1;
  }
  (void)sp;
}

/* The algebraics the marked ones read, in turn (an algebraic reads only earlier
 * ones: one pass from the last), and what those read. */
static void close_algs(const cdevs__sys_spec *sp, uint8_t *var, uint8_t *alg, uint8_t *disc) {
  for (uint32_t a = sp->n_algs; a-- > 0;)
    if (alg[a]) mark_reads(sp, &sp->alg[a], var, alg, disc);
}

/* A copy of code c with its loads renumbered (var: state or input → the part's
 * variable; alg; disc → the part's discrete, or, with disc_in, an input variable),
 * folded again (reuse flags, fusions of what became a state). */
static int remap(const bc_code *c, bc_code *out, const uint32_t *var, const uint32_t *alg, const uint32_t *disc,
                 const uint32_t *disc_in, const double *params) {
  *out = *c;
  out->ins = malloc((c->n ? c->n : 1) * sizeof *out->ins);
  if (!out->ins) return -1;
  for (uint32_t i = 0; i < c->n; i++) {
    bc_ins in = c->ins[i];
    if (BC_READS_STATE(in.op)) in.arg = var[in.arg];
    else if (in.op == BC_ALG) in.arg = alg[in.arg];
    else if ((in.op == BC_DISC || in.op == BC_PRE) && disc_in && disc_in[in.arg] != NONE)
      in.op = BC_STATE, in.arg = disc_in[in.arg], in.k = 0.0;
    else if (in.op == BC_DISC || in.op == BC_PRE) in.arg = disc[in.arg];
    in.reuse = 0;
    out->ins[i] = in;
  }
  cdevs__bc_fold(out, params);
  return 0;
}

static void free_part(cdevs__sys_spec *p) {
  for (uint32_t i = 0; p->der && i < p->n_states; i++) free(p->der[i].ins);
  for (uint32_t a = 0; p->alg && a < p->n_algs; a++) free(p->alg[a].ins);
  for (uint32_t z = 0; p->cross && z < p->n_cross; z++) {
    sys_crossing *c = &p->cross[z];
    free(c->f.ins);
    for (uint32_t k = 0; c->on_rise && k < c->n_rise; k++) free(c->on_rise[k].value.ins);
    for (uint32_t k = 0; c->on_fall && k < c->n_fall; k++) free(c->on_fall[k].value.ins);
    free(c->on_rise), free(c->on_fall);
  }
  free(p->der), free(p->alg), free(p->cross), free(p->x0), free(p->disc0);
  free(p->state_names), free(p->alg_names), free(p->der_line), free(p->alg_line);
  free(p->out_kind), free(p->out_index), free(p->out_names);
  free(p->in_names), free((double *)p->in0), free((uint8_t *)p->in_soft);
  memset(p, 0, sizeof *p);
}

void cdevs__sys_split_free(cdevs__sys_split *s) {
  if (!s) return;
  free_part(&s->q), free_part(&s->c);
  free(s->links), free(s->out_side), free(s->out_port), free(s->in_q), free(s->in_c);
  memset(s, 0, sizeof *s);
}

/* Handler actions, remapped for the QSS part. */
static int remap_actions(const sys_action *a, uint32_t n, sys_action **out, const uint32_t *var, const uint32_t *alg,
                         const uint32_t *disc, const double *params) {
  *out = NULL;
  if (!n) return 0;
  sys_action *r = calloc(n, sizeof *r);
  if (!r) return -1;
  *out = r;
  for (uint32_t k = 0; k < n; k++) {
    r[k] = a[k];
    r[k].value = (bc_code){0};
    if (a[k].reinit == ACT_REINIT) r[k].target = var[a[k].target];
    if (remap(&a[k].value, &r[k].value, var, alg, disc, NULL, params)) return -1;
  }
  return 0;
}

int cdevs__sys_split_make(const cdevs__sys_spec *sp, const uint8_t *classical, cdevs__sys_split *s, char *err,
                          size_t n) {
  memset(s, 0, sizeof *s);
  const uint32_t ns = sp->n_states, nv = ns + sp->n_in, na = sp->n_algs, nd = sp->n_discs;
  int rc = -1;
  /* Per part (0: QSS, 1: classical): what it reads, and the new numbers. */
  uint8_t *rv[2], *ra[2], *rd[2];
  uint32_t *mv[2], *ma[2], *md = NULL, *din = NULL;
  uint8_t *reinit = calloc(ns + 1, 1); /* states a handler reinits: their q jumps, an input that is not soft */
  for (int p = 0; p < 2; p++) {
    rv[p] = calloc(nv + 1, 1), ra[p] = calloc(na + 1, 1), rd[p] = calloc(nd + 1, 1);
    mv[p] = malloc((nv + 1) * sizeof(uint32_t)), ma[p] = malloc((na + 1) * sizeof(uint32_t));
  }
  md = malloc((nd + 1) * sizeof *md), din = malloc((nd + 1) * sizeof *din);
  for (int p = 0; p < 2; p++)
    if (!rv[p] || !ra[p] || !rd[p] || !mv[p] || !ma[p]) goto oom;
  if (!md || !din || !reinit) goto oom;

  /* What each part reads. The QSS part: its derivatives, every algebraic (its
   * outputs, crossings and handlers read them as they need), the crossings and the
   * handlers. The classical part: its derivatives and the algebraics they need. */
  for (uint32_t i = 0; i < ns; i++) mark_reads(sp, &sp->der[i], rv[classical[i]], ra[classical[i]], rd[classical[i]]);
  for (uint32_t a = 0; a < na; a++) ra[0][a] = 1;
  for (uint32_t z = 0; z < sp->n_cross; z++) {
    const sys_crossing *c = &sp->cross[z];
    mark_reads(sp, &c->f, rv[0], ra[0], rd[0]);
    for (int side = 0; side < 2; side++) {
      const sys_action *acts = side ? c->on_fall : c->on_rise;
      for (uint32_t k = 0; k < (side ? c->n_fall : c->n_rise); k++) {
        mark_reads(sp, &acts[k].value, rv[0], ra[0], rd[0]);
        if (acts[k].reinit == ACT_REINIT) reinit[acts[k].target] = 1;
        if (acts[k].reinit == ACT_REINIT && classical[acts[k].target]) {
          snprintf(err, n, "the when clause at %s:%d:%d reinits '%s', a state of the classical part "
                   "(MMO_BDF_Part): leave it to QSS", sp->file ? sp->file : "model", c->line, c->col,
                   sp->state_names[acts[k].target]);
          rc = -2;
          goto out;
        }
      }
    }
  }
  for (int p = 0; p < 2; p++) close_algs(sp, rv[p], ra[p], rd[p]);

  /* Numbering. Each part: its own states, then its inputs: the system's inputs it
   * reads, then the other part's states it reads, then (classical) the discretes. */
  cdevs__sys_spec *part[2] = {&s->q, &s->c};
  uint32_t nin[2] = {0, 0}, own[2] = {0, 0};
  for (uint32_t i = 0; i < ns; i++) mv[classical[i]][i] = own[classical[i]]++;
  for (int p = 0; p < 2; p++) {
    for (uint32_t i = 0; i < ns; i++)
      if ((uint32_t)classical[i] != (uint32_t)p) mv[p][i] = NONE;
    for (uint32_t k = 0; k < sp->n_in; k++) mv[p][ns + k] = rv[p][ns + k] ? own[p] + nin[p]++ : NONE;
    for (uint32_t i = 0; i < ns; i++)
      if ((uint32_t)classical[i] != (uint32_t)p && rv[p][i]) mv[p][i] = own[p] + nin[p]++;
    uint32_t k = 0;
    for (uint32_t a = 0; a < na; a++) ma[p][a] = ra[p][a] ? k++ : NONE;
    part[p]->n_algs = k;
  }
  for (uint32_t d = 0; d < nd; d++) md[d] = d, din[d] = rd[1][d] ? own[1] + nin[1]++ : NONE;

  /* The links: a port of one part feeding an input of the other. */
  s->links = calloc(2 * ns + nd + 1, sizeof *s->links);
  s->out_side = calloc(sp->n_out + 1, 1);
  s->out_port = calloc(sp->n_out + 1, sizeof *s->out_port);
  s->in_q = malloc((sp->n_in + 1) * sizeof *s->in_q);
  s->in_c = malloc((sp->n_in + 1) * sizeof *s->in_c);
  if (!s->links || !s->out_side || !s->out_port || !s->in_q || !s->in_c) goto oom;
  for (uint32_t k = 0; k < sp->n_in; k++) s->in_q[k] = mv[0][ns + k], s->in_c[k] = mv[1][ns + k];
  for (uint32_t k = 0; k < sp->n_in; k++) {
    if (s->in_q[k] != NONE) s->in_q[k] -= own[0];
    if (s->in_c[k] != NONE) s->in_c[k] -= own[1];
  }

  for (int p = 0; p < 2; p++) {
    cdevs__sys_spec *t = part[p];
    t->n_states = own[p];
    t->n_params = sp->n_params, t->params = sp->params;
    t->file = sp->file;
    t->rng = sp->rng;
    t->n_in = nin[p];
    t->x0 = malloc((own[p] + 1) * sizeof *t->x0);
    t->der = calloc(own[p] + 1, sizeof *t->der);
    t->state_names = malloc((own[p] + 1) * sizeof *t->state_names);
    t->der_line = malloc((own[p] + 1) * sizeof *t->der_line);
    t->alg = calloc(t->n_algs + 1, sizeof *t->alg);
    t->alg_names = malloc((t->n_algs + 1) * sizeof *t->alg_names);
    t->alg_line = malloc((t->n_algs + 1) * sizeof *t->alg_line);
    t->in_names = malloc((nin[p] + 1) * sizeof *t->in_names);
    double *in0 = malloc((nin[p] + 1) * sizeof *in0);
    uint8_t *soft = calloc(nin[p] + 1, 1);
    t->in0 = in0, t->in_soft = soft;
    /* Ports: the outputs of the system this part holds, then the links it feeds. */
    t->out_kind = malloc((sp->n_out + ns + nd + 1) * sizeof *t->out_kind);
    t->out_index = malloc((sp->n_out + ns + nd + 1) * sizeof *t->out_index);
    t->out_names = malloc((sp->n_out + ns + nd + 1) * sizeof *t->out_names);
    if (!t->x0 || !t->der || !t->state_names || !t->der_line || !t->alg || !t->alg_names || !t->alg_line ||
        !t->in_names || !in0 || !soft || !t->out_kind || !t->out_index || !t->out_names)
      goto oom;
    for (uint32_t i = 0; i < ns; i++) {
      if (classical[i] != p) continue;
      uint32_t j = mv[p][i];
      t->x0[j] = sp->x0[i];
      t->state_names[j] = sp->state_names[i];
      t->der_line[j] = sp->der_line ? sp->der_line[i] : 0;
      if (remap(&sp->der[i], &t->der[j], mv[p], ma[p], md, p ? din : NULL, sp->params)) goto oom;
    }
    for (uint32_t a = 0; a < na; a++) {
      if (ma[p][a] == NONE) continue;
      uint32_t j = ma[p][a];
      t->alg_names[j] = sp->alg_names[a];
      t->alg_line[j] = sp->alg_line ? sp->alg_line[a] : 0;
      if (remap(&sp->alg[a], &t->alg[j], mv[p], ma[p], md, p ? din : NULL, sp->params)) goto oom;
    }
    for (uint32_t k = 0; k < sp->n_in; k++)
      if (mv[p][ns + k] != NONE) t->in_names[mv[p][ns + k] - own[p]] = sp->in_names[k], in0[mv[p][ns + k] - own[p]] = sp->in0 ? sp->in0[k] : 0.0;
    for (uint32_t i = 0; i < ns; i++)
      if (classical[i] != p && rv[p][i]) {
        uint32_t k = mv[p][i] - own[p];
        t->in_names[k] = sp->state_names[i], in0[k] = sp->x0[i], soft[k] = !reinit[i];
      }
    if (p)
      for (uint32_t d = 0; d < nd; d++)
        if (din[d] != NONE) t->in_names[din[d] - own[p]] = "discrete", in0[din[d] - own[p]] = sp->disc0[d];
    for (uint32_t o = 0; o < sp->n_out; o++) {
      int side = sp->out_kind[o] == 0 && classical[sp->out_index[o]];
      if (side != p) continue;
      s->out_side[o] = (uint8_t)p, s->out_port[o] = t->n_out;
      t->out_kind[t->n_out] = sp->out_kind[o];
      t->out_index[t->n_out] = sp->out_kind[o] == 0 ? mv[p][sp->out_index[o]]
                               : sp->out_kind[o] == 1 ? ma[p][sp->out_index[o]]
                                                      : sp->out_index[o];
      t->out_names[t->n_out++] = sp->out_names[o];
    }
  }
  /* The discretes, the crossings and their handlers: the QSS part's. */
  s->q.n_discs = nd;
  s->q.disc0 = malloc((nd + 1) * sizeof *s->q.disc0);
  s->q.cross = calloc(sp->n_cross + 1, sizeof *s->q.cross);
  if (!s->q.disc0 || !s->q.cross) goto oom;
  if (nd) memcpy(s->q.disc0, sp->disc0, nd * sizeof *s->q.disc0);
  s->c.disc0 = calloc(1, sizeof *s->c.disc0);
  if (!s->c.disc0) goto oom;
  for (uint32_t z = 0; z < sp->n_cross; z++) {
    const sys_crossing *c = &sp->cross[z];
    sys_crossing *t = &s->q.cross[s->q.n_cross++];
    *t = *c;
    t->f = (bc_code){0}, t->on_rise = t->on_fall = NULL;
    if (remap(&c->f, &t->f, mv[0], ma[0], md, NULL, sp->params) ||
        remap_actions(c->on_rise, c->n_rise, &t->on_rise, mv[0], ma[0], md, sp->params) ||
        remap_actions(c->on_fall, c->n_fall, &t->on_fall, mv[0], ma[0], md, sp->params))
      goto oom;
  }
  /* The links, each a port of its source part (added after its outputs). */
  for (int p = 0; p < 2; p++) {
    cdevs__sys_spec *from = part[p];
    for (uint32_t i = 0; i < ns; i++) {
      if (classical[i] != p || !rv[1 - p][i]) continue;
      cdevs__sys_split_link *l = &s->links[s->n_links++];
      l->from = (uint8_t)p;
      l->port = from->n_out;
      l->input = mv[1 - p][i] - own[1 - p];
      from->out_kind[from->n_out] = 0, from->out_index[from->n_out] = mv[p][i];
      from->out_names[from->n_out++] = sp->state_names[i];
    }
  }
  for (uint32_t d = 0; d < nd; d++) {
    if (din[d] == NONE) continue;
    cdevs__sys_split_link *l = &s->links[s->n_links++];
    l->from = 0, l->port = s->q.n_out, l->input = din[d] - own[1];
    s->q.out_kind[s->q.n_out] = 2, s->q.out_index[s->q.n_out] = d;
    s->q.out_names[s->q.n_out++] = "discrete";
  }
  rc = 0;
  goto out;
oom:
  snprintf(err, n, "out of memory");
out:
  for (int p = 0; p < 2; p++) free(rv[p]), free(ra[p]), free(rd[p]), free(mv[p]), free(ma[p]);
  free(md), free(din), free(reinit);
  if (rc) cdevs__sys_split_free(s);
  return rc;
}
