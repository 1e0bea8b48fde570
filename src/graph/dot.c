/* SPDX-License-Identifier: MIT */
/* A DEVS graph in Graphviz DOT, drawn as the seed's figures are: bubbles with their
 * name and lifetime (the initial one doubled), internal transitions dotted with their
 * outputs, external transitions solid with their guards. */
#include <math.h>
#include <stdio.h>

#include "graph_impl.h"

/* Text inside a DOT string: quotes and backslashes escaped, line breaks as spaces
 * (the labels come from model files, where a guard may span lines). */
static void esc(FILE *f, const char *s) {
  for (; *s; s++) {
    if (*s == '"' || *s == '\\') fputc('\\', f);
    fputc(*s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s, f);
  }
}

static void quoted(FILE *f, const char *s) {
  fputc('"', f);
  esc(f, s ? s : "");
  fputc('"', f);
}

/* A node's id: the phase's name, after "Graph." inside a cluster (a drawing of
 * several graphs needs ids that differ across them). */
static void node_id(FILE *f, const cdevs_graph *g, const gphase *p, int cluster) {
  fputc('"', f);
  if (cluster) esc(f, g->name), fputc('.', f);
  esc(f, p->name);
  fputc('"', f);
}

static int write_dot(const cdevs_graph *g, FILE *f, int cluster) {
  const char *in = cluster ? "    " : "  ";
  if (cluster) {
    fputs("  subgraph \"cluster_", f);
    esc(f, g->name);
    fputs("\" {\n    label=", f);
    quoted(f, g->name);
    fputs(";\n", f);
  } else {
    fputs("digraph ", f);
    quoted(f, g->name);
    fputs(" {\n  rankdir=LR;\n  node [shape=circle, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\"];\n", f);
  }
  for (uint32_t i = 0; i < g->nphases; i++) {
    const gphase *p = &g->phases[i];
    char life[64];
    double v;
    if (p->label) snprintf(life, sizeof life, "%s", p->label);
    else if (!p->lifetime.n) snprintf(life, sizeof life, "inf");
    else if (cdevs__graph_code_const(g, p->lifetime, &v)) snprintf(life, sizeof life, "%g", v);
    else snprintf(life, sizeof life, "(expression)");
    fputs(in, f);
    node_id(f, g, p, cluster);
    fputs(p->initial ? " [shape=doublecircle, label=" : " [label=", f);
    /* The name and the lifetime on two lines: \n inside the DOT string. */
    fputc('"', f);
    esc(f, p->name);
    fputs("\\n", f);
    esc(f, life);
    fputs("\"];\n", f);
  }
  for (uint32_t i = 0; i < g->ntrans; i++) {
    const gtrans *t = &g->trans[i];
    fputs(in, f);
    node_id(f, g, &g->phases[t->from], cluster);
    fputs(" -> ", f);
    node_id(f, g, &g->phases[t->to], cluster);
    fputs(t->external ? " [style=solid, label=" : " [style=dotted, label=", f);
    quoted(f, t->label ? t->label : "");
    fputs("];\n", f);
  }
  fputs(cluster ? "  }\n" : "}\n", f);
  return ferror(f) ? -1 : 0;
}

int cdevs_graph_write_dot(const cdevs_graph *g, FILE *f) { return write_dot(g, f, 0); }
int cdevs_graph_write_dot_cluster(const cdevs_graph *g, FILE *f) { return write_dot(g, f, 1); }
