/* SPDX-License-Identifier: MIT */
/* cdevs graph: a model file's DEVS graphs listed, drawn as Graphviz DOT (rendered by
 * Graphviz's dot when it is installed), run with a trace of their phases, or verified
 * on their untimed abstraction (phases as the states of a finite automaton). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

static const cli_opt graph_opts[] = {
    {"dot", NULL, "write each graph class in Graphviz DOT (initial phase doubled, internal transitions dotted)"},
    {"trace", NULL, "run the model and write the graphs' trace as CSV: time,graph,event,from,to,detail,vars"},
    {"stop", "T", "--trace: stop time (default: the model's StopTime)"},
    {"out", "FILE", "write the DOT or the trace to FILE instead of standard output"},
    {"render", "FILE", "--dot: also draw it into FILE.svg or FILE.png with Graphviz's dot (Debian graphviz)"},
    {"verify", NULL, "check each graph's untimed abstraction: its reachable phases, and the properties below"},
    {"never", "G.PHASE", "--verify: PHASE of graph instance G (or, without G., of every graph having it) is never entered"},
    {"always-reaches", "G.PHASE", "--verify: from every reachable phase of G some path leads to PHASE (G. optional)"},
    {NULL, NULL, NULL}};

const cli_cmd cli_graph_cmd = {
    "graph", "MODEL.mo",
    "The DEVS graphs of a model file: each instance with its phases and transitions; --dot draws them\n"
    "as the seed's figures do, --trace runs the model and lists every phase change, ignored input and output,\n"
    "--verify checks --never and --always-reaches on the untimed abstraction (exit 1 on a violation).",
    graph_opts};

/* A number as the shortest %g that reads back the same. */
static void num(FILE *f, double v) {
  char buf[40];
  snprintf(buf, sizeof buf, "%.15g", v);
  if (strtod(buf, NULL) != v) snprintf(buf, sizeof buf, "%.17g", v);
  fputs(buf, f);
}

/* ---- --trace ---------------------------------------------------------------------- */

typedef struct tracer {
  FILE *out;
  cdevs_sim *sim;
  const cdevs_mo *mo;
  const char **name;   /* per atomic: its graph instance's name, or NULL */
  const cdevs_graph **graph;
  int *phase;          /* per atomic: the phase before its transition */
} tracer;

/* A CSV field: quoted when it holds a comma or a quote (a label like "pO!1, pQ!2"). */
static void field(FILE *f, const char *text) {
  if (!strpbrk(text, ",\"\n")) {
    fputs(text, f);
    return;
  }
  fputc('"', f);
  for (; *text; text++) {
    if (*text == '"') fputc('"', f);
    fputc(*text == '\n' ? ' ' : *text, f);
  }
  fputc('"', f);
}

static void line_start(const tracer *tr, double t, uint32_t a, const char *event, int from, int to) {
  const cdevs_graph *g = tr->graph[a];
  num(tr->out, t);
  fprintf(tr->out, ",%s,%s,%s,%s,", tr->name[a], event, cdevs_graph_phase_name(g, from),
          to >= 0 ? cdevs_graph_phase_name(g, to) : "");
}

/* The inputs the graph's last bag held: "pI=1 pJ=2.5" (a port with several: the last,
 * and how many). */
static void inputs(const tracer *tr, uint32_t a, const void *st) {
  const cdevs_graph *g = tr->graph[a];
  for (int p = 0, first = 1; p < cdevs_graph_input_count(g); p++) {
    double v;
    int n = cdevs_graph_state_input(st, p, &v);
    if (!n) continue;
    fprintf(tr->out, "%s%s=", first ? "" : " ", cdevs_graph_input_name(g, p));
    num(tr->out, v);
    if (n > 1) fprintf(tr->out, " (x%d)", n);
    first = 0;
  }
}

/* ",n=1 b=0": the variables after a transition, ending its line. */
static void vars(const tracer *tr, uint32_t a, const void *st) {
  const cdevs_graph *g = tr->graph[a];
  fputc(',', tr->out);
  for (int v = 0; v < cdevs_graph_var_count(g); v++) {
    fprintf(tr->out, "%s%s=", v ? " " : "", cdevs_graph_var_name(g, v));
    num(tr->out, cdevs_graph_state_var(st, v));
  }
  fputc('\n', tr->out);
}

static void on_output(void *ud, double t, uint32_t a, int port, const cdevs_value *v) {
  tracer *tr = ud;
  if (!tr->graph[a]) return;
  line_start(tr, t, a, "output", tr->phase[a], -1);
  fprintf(tr->out, "%s=", cdevs_port_name(cdevs_sim_atomic(tr->sim, a), CDEVS_OUT, port));
  num(tr->out, v->kind == CDEVS_INT ? (double)v->u.integer : v->u.real);
  fputs(",\n", tr->out);
}

static void on_transition(void *ud, double t, uint32_t a, cdevs_transition kind, size_t bag, double tn) {
  (void)bag, (void)tn;
  tracer *tr = ud;
  const cdevs_graph *g = tr->graph[a];
  if (!g) return;
  const void *st = cdevs_sim_state_at(tr->sim, a);
  int before = tr->phase[a], now = cdevs_graph_state_phase(st), fired = cdevs_graph_state_fired(st);
  cdevs_graph_transition_info info = {0, 0, 0, "", ""};
  if (kind != CDEVS_EXTERNAL) { /* the internal transition first (also of a confluent one) */
    int k = cdevs_graph_phase_internal(g, before);
    if (k >= 0) cdevs_graph_transition_get(g, k, &info);
    line_start(tr, t, a, "internal", before, k >= 0 ? info.to : before);
    if (k >= 0) field(tr->out, info.label);
    if (kind == CDEVS_INTERNAL) vars(tr, a, st);
    else fputs(",\n", tr->out); /* (the variables after the whole confluent transition, below) */
    if (k >= 0) before = info.to;
  }
  if (kind != CDEVS_INTERNAL) { /* then the inputs: taken by a transition, ignored, or dropped (GGADLib) */
    int taken = fired >= 0 && !cdevs_graph_transition_get(g, fired, &info) && info.external;
    line_start(tr, t, a, cdevs_graph_state_dropped(st) ? "dropped" : taken ? "external" : "ignored", before, now);
    inputs(tr, a, st);
    vars(tr, a, st);
  }
  tr->phase[a] = now;
}

static int trace_run(const char *path, cdevs_mo *mo, double stop, FILE *out) {
  if (cdevs_mo_uses(mo, "proc")) {
    fprintf(stderr, "%s: cdevs graph --trace runs graphs, signal blocks and equations; use cdevs run for process "
            "blocks\n", path);
    return CLI_FAIL;
  }
  cdevs_mo_experiment e;
  cdevs_mo_experiment_get(mo, &e);
  if (!isnan(stop)) e.stop = stop;
  cdevs_mo_set_stop(mo, e.stop);
  cdevs_model *root = cdevs_root_new(NULL, "root");
  if (!root) return fprintf(stderr, "cdevs graph: out of memory\n"), CLI_FAIL;
  (void)cdevs_mo_add(root, "model", mo, e.method, e.tol, e.abstol);
  cdevs_sim_opts so = cdevs_sim_opts_default();
  so.t0 = e.start;
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, &so, &sim);
  int rc = CLI_OK;
  tracer tr = {out, sim, mo, NULL, NULL, NULL};
  if (st) {
    const char *why = cdevs_model_errmsg(root);
    fprintf(stderr, "%s: %s\n", path, why[0] ? why : cdevs_strerror(st));
    cdevs_model_free(root);
    return CLI_FAIL;
  }
  uint32_t n = cdevs_sim_atomic_count(sim);
  tr.name = calloc(n + 1, sizeof *tr.name);
  tr.graph = calloc(n + 1, sizeof *tr.graph);
  tr.phase = calloc(n + 1, sizeof *tr.phase);
  static const cdevs_observer obs = {on_output, on_transition, NULL, NULL};
  if (!tr.name || !tr.graph || !tr.phase || cdevs_sim_observe(sim, &obs, &tr)) {
    fprintf(stderr, "cdevs graph: out of memory\n");
    rc = CLI_FAIL;
  } else {
    for (uint32_t a = 0; a < n; a++) {
      const cdevs_graph *g = cdevs_graph_of(cdevs_sim_atomic(sim, a));
      for (size_t i = 0; g && i < cdevs_mo_graph_count(mo); i++) {
        const char *nm;
        if (cdevs_mo_graph(mo, i, &nm) == g) tr.graph[a] = g, tr.name[a] = nm;
      }
      if (tr.graph[a]) tr.phase[a] = cdevs_graph_state_phase(cdevs_sim_state_at(sim, a));
    }
    fprintf(out, "time,graph,event,from,to,detail,vars\n");
    for (uint32_t a = 0; a < n; a++)
      if (tr.graph[a]) {
        line_start(&tr, e.start, a, "initial", tr.phase[a], tr.phase[a]);
        vars(&tr, a, cdevs_sim_state_at(sim, a));
      }
    cli_catch_stop_signals(sim);
    st = cdevs_sim_run(sim, e.stop);
    if (st) {
      fprintf(stderr, "%s: the run failed at t=%.17g: %s\n", path, cdevs_sim_time(sim),
              cdevs_sim_errmsg(sim)[0] ? cdevs_sim_errmsg(sim) : cdevs_strerror(st));
      rc = CLI_FAIL;
    } else if (cli_stop_signal()) {
      fprintf(stderr, "%s: interrupted (%s) at t=%.17g\n", path, cli_signal_name(cli_stop_signal()), cdevs_sim_time(sim));
      rc = CLI_INTERRUPTED;
    }
  }
  free(tr.name), free(tr.graph), free(tr.phase);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return rc;
}

/* ---- --verify ---------------------------------------------------------------------- */

/* A property from the command line: kind 'n' (--never) or 'a' (--always-reaches), on
 * "G.PHASE" (instance G) or "PHASE" (every graph with that phase). */
typedef struct property {
  char kind;
  const char *arg;
  int used;
} property;

/* The phase a property names in instance nm's graph g, or -1 when it is not about it. */
static int property_phase(const property *pr, const char *nm, const cdevs_graph *g) {
  const char *dot = strrchr(pr->arg, '.'), *phase = dot ? dot + 1 : pr->arg;
  if (dot && (strlen(nm) != (size_t)(dot - pr->arg) || strncmp(nm, pr->arg, (size_t)(dot - pr->arg)))) return -1;
  for (int p = 0; p < cdevs_graph_phase_count(g); p++)
    if (!strcmp(cdevs_graph_phase_name(g, p), phase)) return p;
  return -1;
}

/* "A -> B -> C": the path to p along via (forward: via[x] is the phase before x). */
static void path_to(FILE *out, const cdevs_graph *g, const int *via, int p) {
  if (via[p] != p) {
    path_to(out, g, via, via[p]);
    fputs(" -> ", out);
  }
  fputs(cdevs_graph_phase_name(g, p), out);
}

/* One graph instance: its reachable phases, then each property about it. 1 when one
 * is violated, 0 when all hold, -1 when out of memory. */
static int verify_graph(const char *nm, const cdevs_graph *g, property *props, int nprops, FILE *out) {
  int n = cdevs_graph_phase_count(g), init = cdevs_graph_initial(g), bad = 0;
  int *fwd = calloc((size_t)n, sizeof *fwd), *back = calloc((size_t)n, sizeof *back);
  int reached = fwd && back ? cdevs_graph_reachable(g, init, 0, fwd) : CDEVS_ENOMEM;
  if (reached < 0) {
    free(fwd), free(back);
    return -1;
  }
  int dropped = 0;
  for (int t = 0; t < cdevs_graph_transition_count(g); t++) dropped += !cdevs_graph_transition_possible(g, t);
  fprintf(out, "%s: graph %s, untimed abstraction: %d of %d phases reachable from %s", nm, cdevs_graph_name(g),
          reached, n, cdevs_graph_phase_name(g, init));
  if (dropped) fprintf(out, " (%d transition%s that can never fire left out)", dropped, dropped == 1 ? "" : "s");
  for (int p = 0, first = 1; p < n; p++)
    if (fwd[p] < 0) fprintf(out, "%s%s", first ? "; unreachable, so entered in no run: " : ", ",
                            cdevs_graph_phase_name(g, p)), first = 0;
  fputs("\n", out);
  for (int i = 0; i < nprops; i++) {
    int target = property_phase(&props[i], nm, g);
    if (target < 0) continue;
    props[i].used = 1;
    const char *tn = cdevs_graph_phase_name(g, target);
    if (props[i].kind == 'n') {
      if (fwd[target] < 0) {
        fprintf(out, "%s: never %s: holds: unreachable in the abstraction, so no run enters it\n", nm, tn);
        continue;
      }
      fprintf(out, "%s: never %s: VIOLATED in the abstraction: ", nm, tn);
      path_to(out, g, fwd, target);
      fputs(" (guards are over-approximated: check that a run can follow this path)\n", out);
      bad = 1;
      continue;
    }
    if (cdevs_graph_reachable(g, target, 1, back) < 0) {
      free(fwd), free(back);
      return -1;
    }
    int cut = -1;
    for (int p = 0; p < n && cut < 0; p++)
      if (fwd[p] >= 0 && back[p] < 0) cut = p;
    if (cut < 0) {
      fprintf(out, "%s: always reaches %s: holds in the abstraction: every reachable phase has a path to it "
              "(a run may still stay away: guards and inputs decide)\n", nm, tn);
      continue;
    }
    fprintf(out, "%s: always reaches %s: VIOLATED: ", nm, tn);
    path_to(out, g, fwd, cut);
    fprintf(out, ", and no path leads from %s to %s (a run that enters %s never reaches %s)\n",
            cdevs_graph_phase_name(g, cut), tn, cdevs_graph_phase_name(g, cut), tn);
    bad = 1;
  }
  free(fwd), free(back);
  return bad;
}

static int verify(const cdevs_mo *mo, property *props, int nprops, FILE *out) {
  int bad = 0;
  for (size_t i = 0; i < cdevs_mo_graph_count(mo); i++) {
    const char *nm;
    const cdevs_graph *g = cdevs_mo_graph(mo, i, &nm);
    int r = verify_graph(nm, g, props, nprops, out);
    if (r < 0) return fprintf(stderr, "cdevs graph: out of memory\n"), CLI_FAIL;
    bad |= r;
  }
  for (int i = 0; i < nprops; i++)
    if (!props[i].used) {
      fprintf(stderr, "cdevs graph: --%s %s: no graph instance has that phase\n",
              props[i].kind == 'n' ? "never" : "always-reaches", props[i].arg);
      return CLI_USAGE;
    }
  return bad ? CLI_FAIL : CLI_OK;
}

/* ---- --dot ----------------------------------------------------------------------- */

/* Graphviz's dot draws the DOT file into out (format from its extension), without a
 * shell. 0, or -1 after a message. */
static int render(const char *dot_path, const char *out) {
  const char *ext = strrchr(out, '.');
  const char *fmt = ext && !strcmp(ext, ".png") ? "-Tpng" : "-Tsvg";
  pid_t pid = fork();
  if (pid < 0) return fprintf(stderr, "cdevs graph: fork: %s\n", strerror(errno)), -1;
  if (pid == 0) {
    execlp("dot", "dot", fmt, "-o", out, dot_path, (char *)NULL);
    _exit(127);
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return fprintf(stderr, "cdevs graph: waitpid: %s\n", strerror(errno)), -1;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    fprintf(stderr, "cdevs graph: Graphviz's dot is not installed (Debian: apt-get install graphviz); the DOT "
            "file is %s\n", dot_path);
    return -1;
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fprintf(stderr, "cdevs graph: dot failed on %s\n", dot_path);
    return -1;
  }
  return 0;
}

/* Each graph class once (its first instance: a class's drawing does not depend on
 * its instances' parameters, which the lifetimes show by name); several classes are
 * clusters of one digraph named after the file, which dot draws as one picture. */
static int write_dots(const cdevs_mo *mo, const char *path, FILE *out) {
  size_t n = cdevs_mo_graph_count(mo), classes = 0;
  const cdevs_graph **first = calloc(n + 1, sizeof *first);
  if (!first) return -1;
  for (size_t i = 0; i < n; i++) {
    const cdevs_graph *g = cdevs_mo_graph(mo, i, NULL);
    size_t j = 0;
    while (j < classes && strcmp(cdevs_graph_name(first[j]), cdevs_graph_name(g))) j++;
    if (j == classes) first[classes++] = g;
  }
  int rc = 0;
  if (classes == 1) {
    rc = cdevs_graph_write_dot(first[0], out);
  } else {
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t len = strlen(base);
    if (len > 3 && !strcmp(base + len - 3, ".mo")) len -= 3;
    fputs("digraph \"", out);
    for (size_t i = 0; i < len; i++) {
      if (base[i] == '"' || base[i] == '\\') fputc('\\', out);
      fputc(base[i], out);
    }
    fputs("\" {\n  rankdir=LR;\n  fontname=\"Helvetica\";\n  node [shape=circle, fontname=\"Helvetica\"];\n"
          "  edge [fontname=\"Helvetica\"];\n", out);
    for (size_t i = 0; i < classes && !rc; i++) rc = cdevs_graph_write_dot_cluster(first[i], out);
    fputs("}\n", out);
  }
  free(first);
  return rc || ferror(out) ? -1 : 0;
}

static void list(const cdevs_mo *mo, FILE *out) {
  for (size_t i = 0; i < cdevs_mo_graph_count(mo); i++) {
    const char *nm;
    const cdevs_graph *g = cdevs_mo_graph(mo, i, &nm);
    int ne = 0, nt = cdevs_graph_transition_count(g);
    for (int k = 0; k < nt; k++) {
      cdevs_graph_transition_info info;
      if (!cdevs_graph_transition_get(g, k, &info)) ne += info.external;
    }
    fprintf(out, "%s: graph %s, %d phases, %d internal and %d external transitions, confluence %s\n", nm,
            cdevs_graph_name(g), cdevs_graph_phase_count(g), nt - ne, ne,
            cdevs_graph_get_confluence(g) == CDEVS_GRAPH_CONF_BOTH ? "internal external" : "internal (GGADLib)");
  }
}

int cli_graph(int argc, char **argv) {
  cli_parser p;
  cli_parse_begin(&p, &cli_graph_cmd, argc, argv);
  int rc, dot = 0, trace = 0, verifying = 0, nprops = 0;
  const char *out_path = NULL, *render_path = NULL;
  double stop = NAN;
  property *props = calloc((size_t)argc + 1, sizeof *props);
  if (!props) return fprintf(stderr, "cdevs graph: out of memory\n"), CLI_FAIL;
  while ((rc = cli_parse_next(&p)) == 0) {
    if (cli_is(&p, "dot")) dot = 1;
    else if (cli_is(&p, "verify")) verifying = 1;
    else if (cli_is(&p, "never") || cli_is(&p, "always-reaches"))
      verifying = 1, props[nprops++] = (property){cli_is(&p, "never") ? 'n' : 'a', p.val, 0};
    else if (cli_is(&p, "trace")) trace = 1;
    else if (cli_is(&p, "out")) out_path = p.val;
    else if (cli_is(&p, "render")) render_path = p.val;
    else if (cli_is(&p, "stop") && (cli_parse_double(p.val, &stop) || !(stop >= 0)))
      return free(props), cli_bad_value(&p, "a time >= 0");
  }
  if (rc != CLI_END) return free(props), cli_parse_status(rc);
  char **pos;
  if (cli_positional(&p, &pos) != 1) {
    fprintf(stderr, "usage: cdevs graph MODEL.mo [--dot [--render FILE.svg]] [--trace [--stop T]] [--verify "
            "[--never [G.]PHASE]... [--always-reaches [G.]PHASE]...] [--out FILE]\n");
    return free(props), CLI_USAGE;
  }
  if (dot + trace + verifying > 1) {
    fprintf(stderr, "cdevs graph: --dot or --trace or --verify, one at a time\n");
    return free(props), CLI_USAGE;
  }
  if (render_path && !dot) {
    fprintf(stderr, "cdevs graph: --render draws the DOT: give --dot too\n");
    return free(props), CLI_USAGE;
  }
  if (render_path && !out_path) {
    fprintf(stderr, "cdevs graph: --render needs the DOT in a file: give --out FILE.dot too\n");
    return free(props), CLI_USAGE;
  }
  cdevs_lang_register_random(&cdevs_proc_random);
  cdevs_mo *mo = NULL;
  int n = cdevs_mo_load(pos[0], stderr, &mo);
  if (n > 0) fprintf(stderr, "%s: %d error%s\n", pos[0], n, n == 1 ? "" : "s");
  if (n) return free(props), CLI_FAIL;
  if (!cdevs_mo_graph_count(mo)) {
    fprintf(stderr, "%s: no DEVS graph in this model (graph Name ... end Name;)\n", pos[0]);
    cdevs_mo_free(mo);
    return free(props), CLI_FAIL;
  }
  FILE *out = stdout;
  if (out_path && !(out = fopen(out_path, "w"))) {
    fprintf(stderr, "cdevs graph: cannot write %s: %s\n", out_path, strerror(errno));
    cdevs_mo_free(mo);
    return free(props), CLI_FAIL;
  }
  rc = CLI_OK;
  if (dot) rc = write_dots(mo, pos[0], out) ? CLI_FAIL : CLI_OK;
  else if (trace) rc = trace_run(pos[0], mo, stop, out);
  else if (verifying) rc = verify(mo, props, nprops, out);
  else list(mo, out);
  if (fflush(out) || ferror(out)) {
    fprintf(stderr, "cdevs graph: write error on %s\n", out_path ? out_path : "standard output");
    rc = CLI_FAIL;
  }
  if (out != stdout && fclose(out)) rc = CLI_FAIL;
  if (rc == CLI_OK && render_path && render(out_path, render_path)) rc = CLI_FAIL;
  cdevs_mo_free(mo);
  free(props);
  return rc;
}
