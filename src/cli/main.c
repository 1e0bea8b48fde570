/* SPDX-License-Identifier: MIT */
/* The cdevs command. It uses the public API only. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cdevs/cdevs.h"
#include "reference.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static long peak_rss_kb(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_maxrss : -1;
}

static int usage(FILE *f) {
  fprintf(f,
          "usage: cdevs <command> [options]\n"
          "\n"
          "commands:\n"
          "  example flyback [--method QSS3] [--dqrel R] [--dqmin A] [--stop T] [--step H]\n"
          "                  [--out FILE.csv] [--plot FILE.svg|.png]\n"
          "      the flyback converter of the QSS seed (block diagram), dense iL and vC\n"
          "  example efp [--mode parallel|classic] [--first proc|genr] [--period P]\n"
          "              [--proc-time T] [--observe T] [--out FILE.csv] [--plot FILE.svg|.png]\n"
          "              [--trace FILE.csv]\n"
          "      the generator -> processor -> transducer experimental frame\n"
          "  devstone --type LI|HI|HO|HOmod --depth D --width W [--int-delay MS]\n"
          "           [--ext-delay MS] [--trace FILE.csv]\n"
          "      build and run a DEVStone model, print one line of figures\n"
          "  bench flyback|stiff|lcline [--method QSS1|QSS2|QSS3|LIQSS1|LIQSS2|LIQSS3|CVODE]\n"
          "        [--n N] [--dqrel R] [--dqmin A] [--tol R] [--stop T]\n"
          "      run a QSS benchmark, print one line of figures\n"
          "  run MODEL.mo [--stop T] [--method M] [--tol R] [--abstol A] [--out F.csv]\n"
          "        [--vars a,b] [--step H] [--plot F.svg|.png] [--quiet] [--jacobian exact|secant]\n"
          "      simulate an equation model with QSS; a summary line goes to stderr\n"
          "      (--jacobian: how LIQSS takes its a = df/dx: exact, the default, or from\n"
          "      the last step's secant as QSS Solver does)\n"
          "  list-blocks\n"
          "      the block library, with each block's ports and parameters\n"
          "  check MODEL.mo\n"
          "      parse, check and compile a model file; errors as file:line:col with the line\n"
          "  --version   print the version\n"
          "  help        this text\n");
  return f == stderr ? 2 : 0;
}

/* ---- option parsing ----------------------------------------------------------------- */

typedef struct opts {
  int argc, i;
  char **argv;
  const char *cmd;
} opts;

static int bad_opt(const opts *o, const char *what) {
  fprintf(stderr, "cdevs %s: %s '%s'\n", o->cmd, what, o->argv[o->i]);
  return 2;
}

/* The value of option argv[i] (either "--x=v" or "--x v"), or NULL if missing. */
static const char *opt_value(opts *o, const char *name) {
  const char *a = o->argv[o->i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0) return NULL;
  if (a[n] == '=') return a + n + 1;
  if (a[n] != '\0') return NULL;
  if (o->i + 1 >= o->argc) return NULL;
  return o->argv[++o->i];
}

static int is_opt(const opts *o, const char *name) {
  const char *a = o->argv[o->i];
  size_t n = strlen(name);
  return strncmp(a, name, n) == 0 && (a[n] == '\0' || a[n] == '=');
}

static int parse_double(const char *s, double *out) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

static int parse_u32(const char *s, uint32_t *out) {
  if (!s || !*s || *s == '-') return -1;
  char *end;
  errno = 0;
  unsigned long v = strtoul(s, &end, 10);
  if (*end || errno || v > UINT32_MAX) return -1;
  *out = (uint32_t)v;
  return 0;
}

/* ---- run summary ---------------------------------------------------------------------- */

static void summary(cdevs_sim *sim, double wall) {
  cdevs_stats st;
  cdevs_sim_stats(sim, &st);
  uint64_t trans = st.internals + st.externals + st.confluents;
  fprintf(stderr,
          "summary: atomics=%u instants=%llu transitions=%llu internal=%llu external=%llu "
          "confluent=%llu outputs=%llu wall_s=%.3f events_per_s=%.0f\n",
          st.atomics, (unsigned long long)st.instants, (unsigned long long)trans,
          (unsigned long long)st.internals, (unsigned long long)st.externals,
          (unsigned long long)st.confluents, (unsigned long long)st.outputs, wall,
          wall > 0 ? (double)trans / wall : 0.0);
}

/* ---- devstone ---------------------------------------------------------------------------- */

static int cmd_devstone(opts *o) {
  cdevs_devstone_params p = {CDEVS_DEVSTONE_LI, 0, 0, 0.0, 0.0};
  int have_type = 0;
  const char *trace_path = NULL, *v;
  for (o->i = 2; o->i < o->argc; o->i++) {
    if (is_opt(o, "--type")) {
      int type = (v = opt_value(o, "--type")) ? cdevs_devstone_type_parse(v) : -1;
      if (type < 0) return bad_opt(o, "--type needs LI, HI, HO or HOmod, got");
      p.type = (cdevs_devstone_type)type;
      have_type = 1;
    } else if (is_opt(o, "--depth")) {
      if (parse_u32(opt_value(o, "--depth"), &p.depth) || p.depth < 1)
        return bad_opt(o, "--depth needs an integer >= 1, got");
    } else if (is_opt(o, "--width")) {
      if (parse_u32(opt_value(o, "--width"), &p.width) || p.width < 1)
        return bad_opt(o, "--width needs an integer >= 1, got");
    } else if (is_opt(o, "--int-delay")) {
      if (parse_double(opt_value(o, "--int-delay"), &p.int_delay_ms) || p.int_delay_ms < 0)
        return bad_opt(o, "--int-delay needs milliseconds >= 0, got");
    } else if (is_opt(o, "--ext-delay")) {
      if (parse_double(opt_value(o, "--ext-delay"), &p.ext_delay_ms) || p.ext_delay_ms < 0)
        return bad_opt(o, "--ext-delay needs milliseconds >= 0, got");
    } else if (is_opt(o, "--trace")) {
      if (!(trace_path = opt_value(o, "--trace"))) return bad_opt(o, "--trace needs a file");
    } else {
      return bad_opt(o, "unknown option");
    }
  }
  if (!have_type || !p.depth || !p.width) {
    fprintf(stderr, "cdevs devstone: --type, --depth and --width are required\n");
    return 2;
  }
  double t0 = now_s();
  cdevs_model *root = cdevs_devstone_build(NULL, &p);
  if (!root) {
    fprintf(stderr, "cdevs devstone: out of memory\n");
    return 1;
  }
  cdevs_sim_opts so = cdevs_sim_opts_default();
  so.max_transitions_per_instant = UINT64_MAX; /* DEVStone runs entirely at t = 0 */
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, &so, &sim);
  if (st) {
    fprintf(stderr, "cdevs devstone: %s: %s\n", cdevs_strerror(st), cdevs_model_errmsg(root));
    cdevs_model_free(root);
    return 1;
  }
  double t1 = now_s();
  cdevs_trace *tr = NULL;
  if (trace_path && (st = cdevs_trace_open(sim, trace_path, &tr))) {
    fprintf(stderr, "cdevs devstone: cannot write %s: %s\n", trace_path, cdevs_strerror(st));
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    return 1;
  }
  st = cdevs_devstone_seed(sim);
  if (!st) st = cdevs_sim_run(sim, INFINITY);
  double t2 = now_s();
  int rc = 0;
  if (cdevs_trace_close(tr, 1)) {
    fprintf(stderr, "cdevs devstone: writing %s failed\n", trace_path);
    rc = 1;
  }
  if (st) {
    fprintf(stderr, "cdevs devstone: %s: %s\n", cdevs_strerror(st), cdevs_sim_errmsg(sim));
    rc = 1;
  } else {
    cdevs_devstone_counts c;
    cdevs_devstone_counts_get(sim, &c);
    printf("devstone type=%s depth=%u width=%u atomics=%u internals=%llu externals=%llu "
           "events=%llu build_s=%.6f sim_s=%.6f rss_kb=%ld\n",
           cdevs_devstone_type_name(p.type), p.depth, p.width, cdevs_sim_atomic_count(sim),
           (unsigned long long)c.internals, (unsigned long long)c.externals,
           (unsigned long long)c.events, t1 - t0, t2 - t1, peak_rss_kb());
  }
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return rc;
}

/* ---- the experimental frame example --------------------------------------------------------- */

typedef struct efp_rec {
  FILE *f;
  uint32_t genr;
  uint64_t arrived, solved;
  double last_t;
  int failed;
} efp_rec;

static void efp_row(efp_rec *r, double t) {
  if (fprintf(r->f, "%.17g,%llu,%llu\n", t, (unsigned long long)r->arrived,
              (unsigned long long)r->solved) < 0)
    r->failed = 1;
}

static void efp_output(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  (void)port;
  (void)v;
  efp_rec *r = ud;
  if (atomic != r->genr) return;
  r->arrived++;
  efp_row(r, t);
}

static void efp_root_output(void *ud, double t, int port, const cdevs_value *v) {
  (void)port;
  (void)v;
  efp_rec *r = ud;
  r->solved++;
  efp_row(r, t);
}

/* gnuplot reading a script from a pipe, already set to draw a `height` pixels high
 * SVG or PNG (by out's extension) into out from a comma-separated file. */
static FILE *gnuplot_open(const char *out, int height) {
  const char *dot = strrchr(out, '.');
  FILE *p = popen("gnuplot 2>&1", "w");
  if (p)
    fprintf(p, "set terminal %s size 900,%d\nset output '%s'\nset datafile separator ','\n",
            dot && strcmp(dot, ".png") == 0 ? "pngcairo" : "svg", height, out);
  return p;
}

static int gnuplot_close(FILE *p) { return p && pclose(p) == 0 ? 0 : -1; }

static int plot_csv(const char *csv, const char *out) {
  FILE *p = gnuplot_open(out, 500);
  if (!p) return -1;
  fprintf(p,
          "set key top left\n"
          "set xlabel 'simulated time'\n"
          "set ylabel 'jobs'\n"
          "set title 'Experimental frame: jobs arrived and completed'\n"
          "plot '%s' using 1:2 skip 1 with steps lw 2 title 'arrived', "
          "'' using 1:3 skip 1 with steps lw 2 title 'completed by proc'\n",
          csv);
  return gnuplot_close(p);
}

static int have_gnuplot(void) {
  return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static int plot_flyback(const char *csv, const char *out, const char *method) {
  FILE *p = gnuplot_open(out, 700);
  if (!p) return -1;
  fprintf(p,
          "set multiplot layout 2,1 title 'Flyback converter, %s (dense output)'\n"
          "set xlabel 'time (ms)'\n"
          "set ylabel 'output voltage vC (V)'\n"
          "plot '%s' using ($1*1000):3 skip 1 with lines lw 1.5 notitle\n"
          "set ylabel 'magnetizing current iL (A)'\n"
          "plot '%s' using ($1*1000):2 skip 1 with lines lw 1 notitle\n"
          "unset multiplot\n",
          method, csv, csv);
  return gnuplot_close(p);
}

/* --plot draws from the --out CSV with gnuplot: both must be possible. 0, or the exit status. */
static int check_plot_args(const char *out, const char *plot) {
  if (plot && !out) {
    fprintf(stderr, "cdevs: --plot needs --out (the plot is drawn from the CSV)\n");
    return 2;
  }
  if (plot && !have_gnuplot()) {
    fprintf(stderr, "cdevs: gnuplot is not installed (Debian: apt-get install "
                    "gnuplot-nox); run without --plot or install it\n");
    return 1;
  }
  return 0;
}

/* The flyback converter of the QSS seed: dense iL and vC to CSV, and a plot. */
static int example_flyback(opts *o) {
  cdevs_qss_method method = CDEVS_QSS3;
  double dqrel = 1e-3, dqmin = 1e-5, stop = 2e-3, step = 1e-7;
  const char *out = NULL, *plot = NULL, *v;
  for (o->i = 3; o->i < o->argc; o->i++) {
    if (is_opt(o, "--method")) {
      if (!(v = opt_value(o, "--method")) || cdevs_qss_method_parse(v, &method))
        return bad_opt(o, "--method needs QSS1|QSS2|QSS3|LIQSS1|LIQSS2|LIQSS3, got");
    } else if (is_opt(o, "--dqrel")) {
      if (parse_double(opt_value(o, "--dqrel"), &dqrel) || dqrel < 0) return bad_opt(o, "--dqrel needs a value >= 0, got");
    } else if (is_opt(o, "--dqmin")) {
      if (parse_double(opt_value(o, "--dqmin"), &dqmin) || !(dqmin > 0)) return bad_opt(o, "--dqmin needs a value > 0, got");
    } else if (is_opt(o, "--stop")) {
      if (parse_double(opt_value(o, "--stop"), &stop) || !(stop > 0)) return bad_opt(o, "--stop needs a time > 0, got");
    } else if (is_opt(o, "--step")) {
      if (parse_double(opt_value(o, "--step"), &step) || !(step > 0)) return bad_opt(o, "--step needs a time > 0, got");
    } else if (is_opt(o, "--out")) {
      if (!(out = opt_value(o, "--out"))) return bad_opt(o, "--out needs a file");
    } else if (is_opt(o, "--plot")) {
      if (!(plot = opt_value(o, "--plot"))) return bad_opt(o, "--plot needs a file");
    } else {
      return bad_opt(o, "unknown option");
    }
  }
  int prc = check_plot_args(out, plot);
  if (prc) return prc;
  if (stop / step > 5e7) {
    fprintf(stderr, "cdevs example: --stop / --step asks for more than 5e7 rows\n");
    return 2;
  }
  cdevs_flyback_params fp = cdevs_flyback_default();
  cdevs_model *root = cdevs_flyback_build(NULL, &fp, method, dqrel, dqmin);
  cdevs_recorder_params rp = {2, step, stop};
  cdevs_model *rec = out ? cdevs_atomic_add(root, "recorder", &cdevs_recorder_ops, &rp) : NULL;
  if (rec) {
    cdevs_connect(root, cdevs_model_child(root, "iL"), "y", rec, "u0");
    cdevs_connect(root, cdevs_model_child(root, "vC"), "y", rec, "u1");
  }
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, NULL, &sim);
  if (st) {
    fprintf(stderr, "cdevs example: %s: %s\n", cdevs_strerror(st), cdevs_model_errmsg(root));
    cdevs_model_free(root);
    return 1;
  }
  double t0 = now_s();
  st = cdevs_sim_run(sim, stop);
  double wall = now_s() - t0;
  int rc = 0;
  if (st) {
    fprintf(stderr, "cdevs example: %s: %s\n", cdevs_strerror(st), cdevs_sim_errmsg(sim));
    rc = 1;
  }
  const char *names[2] = {"iL", "vC"};
  if (out && cdevs_recorder_write_csv(cdevs_sim_state(sim, rec), out, names)) {
    fprintf(stderr, "cdevs example: writing %s failed: %s\n", out, strerror(errno));
    rc = 1;
  }
  const cdevs_model *iL = cdevs_model_child(root, "iL"), *vC = cdevs_model_child(root, "vC");
  double t_end = cdevs_sim_time(sim);
  printf("flyback method=%s dqrel=%g dqmin=%g stop=%g steps=%llu iL=%.6g vC=%.6g\n",
         cdevs_qss_method_name(method), dqrel, dqmin, stop,
         (unsigned long long)(cdevs_integrator_steps(cdevs_sim_state(sim, iL)) +
                              cdevs_integrator_steps(cdevs_sim_state(sim, vC))),
         cdevs_integrator_x(cdevs_sim_state(sim, iL), t_end),
         cdevs_integrator_x(cdevs_sim_state(sim, vC), t_end));
  summary(sim, wall);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  if (!rc && plot) {
    if (plot_flyback(out, plot, cdevs_qss_method_name(method))) {
      fprintf(stderr, "cdevs example: gnuplot failed to draw %s\n", plot);
      rc = 1;
    } else {
      fprintf(stderr, "wrote %s and %s\n", out, plot);
    }
  }
  return rc;
}

static int cmd_example(opts *o) {
  if (o->argc >= 3 && strcmp(o->argv[2], "flyback") == 0) return example_flyback(o);
  if (o->argc < 3 || strcmp(o->argv[2], "efp") != 0) {
    fprintf(stderr, "cdevs example: unknown example '%s' (available: flyback, efp)\n",
            o->argc < 3 ? "" : o->argv[2]);
    return 2;
  }
  cdevs_generator_params g = {1.0, 1.0};
  cdevs_processor_params pp = {2.0};
  cdevs_transducer_params tp = {100.5};
  cdevs_sim_opts so = cdevs_sim_opts_default();
  const char *out = NULL, *plot = NULL, *trace_path = NULL, *v;
  int proc_first = 1;
  for (o->i = 3; o->i < o->argc; o->i++) {
    if (is_opt(o, "--mode")) {
      v = opt_value(o, "--mode");
      if (v && strcmp(v, "parallel") == 0)
        so.mode = CDEVS_PARALLEL;
      else if (v && strcmp(v, "classic") == 0)
        so.mode = CDEVS_CLASSIC;
      else
        return bad_opt(o, "--mode needs parallel or classic, got");
    } else if (is_opt(o, "--first")) {
      v = opt_value(o, "--first");
      if (v && strcmp(v, "proc") == 0)
        proc_first = 1;
      else if (v && strcmp(v, "genr") == 0)
        proc_first = 0;
      else
        return bad_opt(o, "--first needs proc or genr, got");
    } else if (is_opt(o, "--period")) {
      if (parse_double(opt_value(o, "--period"), &g.period) || g.period <= 0)
        return bad_opt(o, "--period needs a time > 0, got");
    } else if (is_opt(o, "--proc-time")) {
      if (parse_double(opt_value(o, "--proc-time"), &pp.processing_time) || pp.processing_time < 0)
        return bad_opt(o, "--proc-time needs a time >= 0, got");
    } else if (is_opt(o, "--observe")) {
      if (parse_double(opt_value(o, "--observe"), &tp.observation_time) || tp.observation_time <= 0)
        return bad_opt(o, "--observe needs a time > 0, got");
    } else if (is_opt(o, "--out")) {
      if (!(out = opt_value(o, "--out"))) return bad_opt(o, "--out needs a file");
    } else if (is_opt(o, "--plot")) {
      if (!(plot = opt_value(o, "--plot"))) return bad_opt(o, "--plot needs a file");
    } else if (is_opt(o, "--trace")) {
      if (!(trace_path = opt_value(o, "--trace"))) return bad_opt(o, "--trace needs a file");
    } else {
      return bad_opt(o, "unknown option");
    }
  }
  int prc = check_plot_args(out, plot);
  if (prc) return prc;
  cdevs_model *root = cdevs_efp_build(NULL, &g, &pp, &tp);
  if (!root) {
    fprintf(stderr, "cdevs example: out of memory\n");
    return 1;
  }
  /* Under Classic DEVS the select order decides who goes first at t = 3, 5, …, when
     the processor finishes a job just as the generator sends the next one. */
  cdevs_model *proc = cdevs_model_child(root, "proc"), *ef = cdevs_model_child(root, "ef");
  cdevs_model_set_priority(proc_first ? proc : ef, -1);
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, &so, &sim);
  if (st) {
    fprintf(stderr, "cdevs example: %s: %s\n", cdevs_strerror(st), cdevs_model_errmsg(root));
    cdevs_model_free(root);
    return 1;
  }
  efp_rec rec = {NULL, 0, 0, 0, 0.0, 0};
  rec.genr = cdevs_sim_atomic_id(sim, cdevs_model_child(ef, "genr"));
  char *part = NULL;
  cdevs_observer obs = {efp_output, NULL, efp_root_output};
  if (out) {
    part = malloc(strlen(out) + 6);
    if (!part) return 1;
    sprintf(part, "%s.part", out);
    rec.f = fopen(part, "w");
    if (!rec.f) {
      fprintf(stderr, "cdevs example: cannot write %s: %s\n", out, strerror(errno));
      free(part);
      cdevs_sim_free(sim);
      cdevs_model_free(root);
      return 1;
    }
    fputs("time,arrived,completed\n", rec.f);
    efp_row(&rec, cdevs_sim_time(sim));
    cdevs_sim_observe(sim, &obs, &rec);
  }
  cdevs_trace *tr = NULL;
  if (trace_path && (st = cdevs_trace_open(sim, trace_path, &tr)))
    fprintf(stderr, "cdevs example: cannot write %s: %s\n", trace_path, cdevs_strerror(st));
  double t0 = now_s();
  if (!st) st = cdevs_sim_run(sim, INFINITY);
  double wall = now_s() - t0;
  int rc = 0;
  if (st) {
    fprintf(stderr, "cdevs example: %s: %s\n", cdevs_strerror(st), cdevs_sim_errmsg(sim));
    rc = 1;
  }
  if (cdevs_trace_close(tr, 1)) {
    fprintf(stderr, "cdevs example: writing %s failed\n", trace_path);
    rc = 1;
  }
  if (rec.f) {
    int bad = rec.failed | ferror(rec.f);
    bad |= fclose(rec.f) != 0;
    if (bad || rename(part, out) != 0) {
      fprintf(stderr, "cdevs example: writing %s failed\n", out);
      remove(part);
      rc = 1;
    }
  }
  free(part);
  const cdevs_transducer_state *ts = cdevs_sim_state(sim, cdevs_model_child(ef, "transd"));
  const cdevs_processor_state *ps = cdevs_sim_state(sim, proc);
  printf("efp mode=%s first=%s arrived=%llu solved=%llu bailed=%llu throughput=%.6g "
         "mean_turnaround=%.6g\n",
         so.mode == CDEVS_CLASSIC ? "classic" : "parallel", proc_first ? "proc" : "genr",
         (unsigned long long)ts->arrived, (unsigned long long)ts->solved,
         (unsigned long long)ps->bailed, cdevs_transducer_throughput(ts),
         cdevs_transducer_mean_turnaround(ts));
  summary(sim, wall);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  if (!rc && plot) {
    if (plot_csv(out, plot)) {
      fprintf(stderr, "cdevs example: gnuplot failed to draw %s\n", plot);
      rc = 1;
    } else {
      fprintf(stderr, "wrote %s and %s\n", out, plot);
    }
  }
  return rc;
}

/* ---- bench ------------------------------------------------------------------------ */

typedef struct bench_cfg {
  const char *name;
  cdevs_qss_method method;
  int cvode, n;
  double dqrel, dqmin, tol, stop;
} bench_cfg;

static uint64_t integrator_steps(cdevs_sim *sim) {
  uint64_t total = 0;
  for (uint32_t i = 0; i < cdevs_sim_atomic_count(sim); i++) {
    const cdevs_atomic_ops *ops = cdevs_model_ops(cdevs_sim_atomic(sim, i));
    if (ops == &cdevs_integrator_ops || ops == &cdevs_reset_integrator_ops)
      total += cdevs_integrator_steps(cdevs_sim_state_at(sim, i));
  }
  return total;
}

static cdevs_model *bench_build(const bench_cfg *c) {
  if (!strcmp(c->name, "flyback")) {
    cdevs_flyback_params p = cdevs_flyback_default();
    return cdevs_flyback_build(NULL, &p, c->method, c->dqrel, c->dqmin);
  }
  if (!strcmp(c->name, "stiff")) return cdevs_stiff_build(NULL, c->method, c->dqrel, c->dqmin);
  return cdevs_lcline_build(NULL, c->n, c->method, c->dqrel, c->dqmin);
}

/* Builds and starts the benchmark's simulator; prints the error and returns NULL on failure. */
static cdevs_sim *bench_sim(const bench_cfg *c, cdevs_model **root) {
  cdevs_sim *sim = NULL;
  *root = bench_build(c);
  int st = cdevs_sim_new(*root, NULL, &sim);
  if (st) {
    fprintf(stderr, "cdevs bench: %s\n", cdevs_model_errmsg(*root)[0] ? cdevs_model_errmsg(*root) : cdevs_strerror(st));
    cdevs_model_free(*root);
    return NULL;
  }
  return sim;
}

/* Largest deviation from the reference on a grid of n + 1 points over [0, stop]. */
static double bench_error(const bench_cfg *c, size_t n) {
  cdevs_model *root;
  cdevs_sim *sim = bench_sim(c, &root);
  if (!sim) return NAN;
  double *tg = malloc((n + 1) * sizeof *tg), *ri = malloc((n + 1) * sizeof *ri),
         *rv = malloc((n + 1) * sizeof *rv), err = NAN;
  if (!tg || !ri || !rv) goto out;
  for (size_t k = 0; k <= n; k++) tg[k] = c->stop * (double)k / (double)n;
  const cdevs_model *a = NULL, *b = NULL;
  if (!strcmp(c->name, "flyback")) {
    char msg[256] = "";
    long steps;
    cdevs_flyback_params p = cdevs_flyback_default();
    if (ref_flyback(&p, 1e-10, tg, n + 1, ri, rv, &steps, msg, sizeof msg)) {
      fprintf(stderr, "cdevs bench: %s\n", msg);
      goto out;
    }
    a = cdevs_model_child(root, "vC");
    for (size_t k = 0; k <= n; k++) ri[k] = rv[k];
  } else {
    for (size_t k = 0; k <= n; k++) ref_stiff(tg[k], &ri[k], &rv[k]);
    a = cdevs_model_child(root, "x1");
    b = cdevs_model_child(root, "x2");
  }
  err = 0.0;
  for (size_t k = 0; k <= n; k++) {
    if (cdevs_sim_run(sim, tg[k])) {
      fprintf(stderr, "cdevs bench: %s\n", cdevs_sim_errmsg(sim));
      err = NAN;
      goto out;
    }
    double e = fabs(cdevs_integrator_x(cdevs_sim_state(sim, a), tg[k]) - ri[k]);
    if (e > err) err = e;
    if (b) {
      e = fabs(cdevs_integrator_x(cdevs_sim_state(sim, b), tg[k]) - rv[k]);
      if (e > err) err = e;
    }
  }
out:
  free(tg), free(ri), free(rv);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return err;
}

static int cmd_bench(opts *o) {
  bench_cfg c = {NULL, CDEVS_QSS3, 0, 0, 1e-3, -1.0, 1e-6, -1.0};
  o->i++; /* past "bench" */
  if (o->i < o->argc && o->argv[o->i][0] != '-') c.name = o->argv[o->i++];
  if (!c.name || (strcmp(c.name, "flyback") && strcmp(c.name, "stiff") && strcmp(c.name, "lcline"))) {
    fprintf(stderr, "cdevs bench: name one of flyback, stiff, lcline\n");
    return 2;
  }
  for (; o->i < o->argc; o->i++) {
    const char *v;
    if (is_opt(o, "--method")) {
      if (!(v = opt_value(o, "--method"))) return bad_opt(o, "missing value for");
      if (!strcmp(v, "CVODE") || !strcmp(v, "cvode")) {
        c.cvode = 1;
      } else if (cdevs_qss_method_parse(v, &c.method)) {
        fprintf(stderr, "cdevs bench: unknown method '%s'\n", v);
        return 2;
      }
    } else if (is_opt(o, "--n")) {
      uint32_t n;
      if (!(v = opt_value(o, "--n")) || parse_u32(v, &n) || n < 2 || n > 10000000)
        return bad_opt(o, "--n needs an integer in 2..10000000, got");
      c.n = (int)n;
    } else if (is_opt(o, "--dqrel")) {
      if (parse_double(opt_value(o, "--dqrel"), &c.dqrel) || c.dqrel < 0)
        return bad_opt(o, "--dqrel needs a value >= 0, got");
    } else if (is_opt(o, "--dqmin")) {
      if (parse_double(opt_value(o, "--dqmin"), &c.dqmin) || !(c.dqmin > 0))
        return bad_opt(o, "--dqmin needs a value > 0, got");
    } else if (is_opt(o, "--tol")) {
      if (parse_double(opt_value(o, "--tol"), &c.tol) || !(c.tol > 0) || c.tol >= 1)
        return bad_opt(o, "--tol needs a relative tolerance in (0, 1), got");
    } else if (is_opt(o, "--stop")) {
      if (parse_double(opt_value(o, "--stop"), &c.stop) || !(c.stop > 0))
        return bad_opt(o, "--stop needs a time > 0, got");
    } else {
      return bad_opt(o, "unknown option");
    }
  }
  int fly = !strcmp(c.name, "flyback"), lc = !strcmp(c.name, "lcline");
  if (c.cvode && !fly) {
    fprintf(stderr, "cdevs bench: CVODE is available for the flyback benchmark only\n");
    return 2;
  }
  if (c.stop < 0) c.stop = fly ? 2e-3 : lc ? 200.0 : 500.0;
  if (c.dqmin < 0) c.dqmin = fly ? 1e-5 : lc ? 1e-6 : 1e-3;
  if (!lc) c.n = 2;
  if (lc && !c.n) c.n = 200;
  const char *mname = c.cvode ? "CVODE" : cdevs_qss_method_name(c.method);
  size_t grid = fly ? 20000 : 50000;
  uint64_t transitions;
  double wall, maxerr = NAN;
  if (c.cvode) {
    size_t n = grid + 1;
    double *tg = malloc(n * sizeof *tg), *i1 = malloc(n * sizeof *i1), *v1 = malloc(n * sizeof *v1),
           *i2 = malloc(n * sizeof *i2), *v2 = malloc(n * sizeof *v2);
    char msg[256] = "";
    long steps = 0, ref_steps;
    int rc = !tg || !i1 || !v1 || !i2 || !v2;
    cdevs_flyback_params p = cdevs_flyback_default();
    if (!rc) {
      for (size_t k = 0; k < n; k++) tg[k] = c.stop * (double)k / (double)grid;
      double t0 = now_s();
      rc = ref_flyback(&p, c.tol, tg, n, i1, v1, &steps, msg, sizeof msg);
      wall = now_s() - t0;
      if (!rc) rc = ref_flyback(&p, 1e-10, tg, n, i2, v2, &ref_steps, msg, sizeof msg);
    }
    if (!rc) {
      maxerr = 0;
      for (size_t k = 0; k < n; k++)
        if (fabs(v1[k] - v2[k]) > maxerr) maxerr = fabs(v1[k] - v2[k]);
    }
    free(tg), free(i1), free(v1), free(i2), free(v2);
    if (rc) {
      fprintf(stderr, "cdevs bench: %s\n", msg[0] ? msg : "out of memory");
      return 1;
    }
    transitions = (uint64_t)steps;
  } else {
    cdevs_model *root;
    cdevs_sim *sim = bench_sim(&c, &root);
    if (!sim) return 1;
    double t0 = now_s();
    int st = cdevs_sim_run(sim, c.stop);
    wall = now_s() - t0;
    if (st) {
      fprintf(stderr, "cdevs bench: %s\n", cdevs_sim_errmsg(sim));
      cdevs_sim_free(sim);
      cdevs_model_free(root);
      return 1;
    }
    transitions = integrator_steps(sim);
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    if (!lc) maxerr = bench_error(&c, grid);
  }
  printf("bench name=%s method=%s n=%d transitions=%llu max_error=%.6g wall_s=%.6f\n", c.name, mname,
         c.n, (unsigned long long)transitions, maxerr, wall);
  return 0;
}

/* ---- run ----------------------------------------------------------------------------- */

static int plot_results(const char *csv, const char *out, const char *title, size_t ncols) {
  FILE *p = gnuplot_open(out, 500);
  if (!p) return -1;
  fprintf(p,
          "set key autotitle columnhead outside right\nset xlabel 'time'\n"
          "set title '%s' noenhanced\nset key noenhanced\n"
          "plot for [i=2:%zu] '%s' using 1:i with lines lw 1.5\n",
          title, ncols + 1, csv);
  return gnuplot_close(p);
}

static int cmd_run(opts *o) {
  const char *path = NULL, *out = NULL, *plot = NULL, *vars = NULL, *v;
  double stop = NAN, tol = NAN, abstol = NAN, step = 0.0;
  cdevs_qss_method method = 0;
  cdevs_mo_jacobian jac = CDEVS_JAC_EXACT;
  int quiet = 0;
  for (o->i = 2; o->i < o->argc; o->i++) {
    if (o->argv[o->i][0] != '-') {
      if (path) return bad_opt(o, "more than one model file:");
      path = o->argv[o->i];
    } else if (is_opt(o, "--stop")) {
      if (parse_double(opt_value(o, "--stop"), &stop)) return bad_opt(o, "--stop needs a time, got");
    } else if (is_opt(o, "--method")) {
      if (!(v = opt_value(o, "--method")) || cdevs_qss_method_parse(v, &method))
        return bad_opt(o, "--method needs QSS1|QSS2|QSS3|LIQSS1|LIQSS2|LIQSS3, got");
    } else if (is_opt(o, "--jacobian")) {
      if (!(v = opt_value(o, "--jacobian")) || (strcmp(v, "exact") && strcmp(v, "secant")))
        return bad_opt(o, "--jacobian needs exact|secant, got");
      jac = strcmp(v, "exact") ? CDEVS_JAC_SECANT : CDEVS_JAC_EXACT;
    } else if (is_opt(o, "--tol")) {
      if (parse_double(opt_value(o, "--tol"), &tol) || !(tol >= 0)) return bad_opt(o, "--tol needs a value >= 0, got");
    } else if (is_opt(o, "--abstol")) {
      if (parse_double(opt_value(o, "--abstol"), &abstol) || !(abstol > 0))
        return bad_opt(o, "--abstol needs a value > 0, got");
    } else if (is_opt(o, "--step")) {
      if (parse_double(opt_value(o, "--step"), &step) || !(step > 0)) return bad_opt(o, "--step needs a time > 0, got");
    } else if (is_opt(o, "--out")) {
      if (!(out = opt_value(o, "--out"))) return bad_opt(o, "--out needs a file");
      const char *dot = strrchr(out, '.');
      if (!dot || (strcmp(dot, ".csv") != 0 && strcmp(dot, ".mat") != 0)) {
        fprintf(stderr, "cdevs run: --out %s: results are written as .csv or .mat (MAT v4)\n", out);
        return 2;
      }
    } else if (is_opt(o, "--vars")) {
      if (!(vars = opt_value(o, "--vars"))) return bad_opt(o, "--vars needs names");
    } else if (is_opt(o, "--plot")) {
      if (!(plot = opt_value(o, "--plot"))) return bad_opt(o, "--plot needs a file");
    } else if (is_opt(o, "--quiet")) {
      quiet = 1;
    } else {
      return bad_opt(o, "unknown option");
    }
  }
  if (!path) {
    fprintf(stderr, "usage: cdevs run MODEL.mo [--stop T] [--method M] [--tol R] [--abstol A]\n"
                    "                 [--out FILE.csv] [--vars a,b] [--step H] [--plot FILE.svg] [--quiet]\n"
                    "                 [--jacobian exact|secant]\n");
    return 2;
  }
  if (!out) out = plot ? "results.csv" : NULL;
  if (plot && out && strcmp(strrchr(out, '.'), ".csv") != 0) {
    fprintf(stderr, "cdevs run: --plot draws from a .csv result file, not %s\n", out);
    return 2;
  }
  int prc = check_plot_args(out, plot);
  if (prc) return prc;
  cdevs_mo *mo;
  int n = cdevs_mo_load(path, stderr, &mo);
  if (n) {
    if (n > 0) fprintf(stderr, "%s: %d error%s\n", path, n, n == 1 ? "" : "s");
    return 1;
  }
  if (vars && cdevs_mo_select_outputs(mo, vars, stderr)) {
    cdevs_mo_free(mo);
    return 2;
  }
  cdevs_mo_experiment e;
  cdevs_mo_experiment_get(mo, &e);
  if (!isnan(stop)) e.stop = stop;
  if (!isnan(tol)) e.tol = tol;
  if (!isnan(abstol)) e.abstol = abstol;
  if (method) e.method = method;
  if (!(e.stop > e.start)) {
    fprintf(stderr, "cdevs run: the stop time %g is not after the start time %g\n", e.stop, e.start);
    cdevs_mo_free(mo);
    return 2;
  }
  cdevs_model *root = cdevs_root_new(NULL, "run");
  cdevs_mo_set_stop(mo, e.stop);
  cdevs_mo_set_jacobian(mo, jac);
  (void)cdevs_mo_add(root, "model", mo, e.method, e.tol, e.abstol);
  cdevs_sim_opts so = cdevs_sim_opts_default();
  so.t0 = e.start;
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, &so, &sim);
  if (st) {
    fprintf(stderr, "cdevs run: %s\n", cdevs_model_errmsg(root)[0] ? cdevs_model_errmsg(root) : cdevs_strerror(st));
    cdevs_model_free(root);
    cdevs_mo_free(mo);
    return 1;
  }
  cdevs_results *res = NULL;
  if (out) {
    size_t no = cdevs_mo_output_count(mo);
    const cdevs_model **src = malloc((no ? no : 1) * sizeof *src);
    int *ports = malloc((no ? no : 1) * sizeof *ports);
    const char **names = malloc((no ? no : 1) * sizeof *names);
    st = src && ports && names ? CDEVS_OK : CDEVS_ENOMEM;
    for (size_t k = 0; !st && k < no; k++) {
      names[k] = cdevs_mo_output_name(mo, k);
      if (cdevs_mo_output_source(mo, k, &src[k], &ports[k])) st = CDEVS_EINVAL;
    }
    if (!st) st = cdevs_results_open_ports(sim, no, src, ports, names, out, step, &res);
    if (st) fprintf(stderr, "cdevs run: cannot write %s: %s\n", out, cdevs_strerror(st));
    free(src), free(ports), free(names);
  }
  double t0 = now_s();
  /* On a terminal, a progress line at most every half second: the run goes in 1/500
   * slices of the horizon, which costs nothing measurable. */
  int progress = !quiet && isatty(2);
  double last = t0;
  int slices = progress ? 500 : 1;
  for (int k = 1; !st && k <= slices; k++) {
    double tk = k == slices ? e.stop : e.start + (e.stop - e.start) * k / slices;
    st = cdevs_sim_run(sim, tk);
    double now = now_s();
    if (progress && now - last >= 0.5) {
      cdevs_mo_stats ps;
      cdevs_mo_stats_sim(mo, sim, &ps);
      double frac = (tk - e.start) / (e.stop - e.start), rate = (double)(ps.steps + ps.crossings) / (now - t0);
      fprintf(stderr, "\r%5.1f%%  t=%-12.6g  %.3g events/s  ETA %.0f s   ", 100.0 * frac, tk, rate,
              frac > 0 ? (now - t0) * (1.0 - frac) / frac : 0.0);
      last = now;
    }
  }
  if (progress && last > t0) fputc('\n', stderr);
  double wall = now_s() - t0;
  int rc = 0;
  if (st) {
    fprintf(stderr, "cdevs run: %s\n", cdevs_sim_errmsg(sim)[0] ? cdevs_sim_errmsg(sim) : cdevs_strerror(st));
    rc = 1;
  }
  /* Results up to where the run got, also after an error. */
  if (cdevs_results_close(res, st ? cdevs_sim_time(sim) : e.stop, 1)) {
    fprintf(stderr, "cdevs run: writing %s failed\n", out);
    rc = 1;
  }
  cdevs_mo_stats ms;
  cdevs_mo_stats_sim(mo, sim, &ms);
  fprintf(stderr,
          "summary: method=%s states=%zu transitions=%llu zero_crossings=%llu wall_s=%.6f events_per_s=%.0f "
          "refreshes=%llu\n",
          cdevs_qss_method_name(e.method), cdevs_mo_state_count(mo), (unsigned long long)ms.steps,
          (unsigned long long)ms.crossings, wall, wall > 0 ? (double)(ms.steps + ms.crossings) / wall : 0.0,
          (unsigned long long)ms.refreshes);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  if (!rc && plot) {
    if (plot_results(out, plot, path, cdevs_mo_output_count(mo))) {
      fprintf(stderr, "cdevs run: gnuplot failed to draw %s\n", plot);
      rc = 1;
    } else if (!quiet) {
      fprintf(stderr, "wrote %s and %s\n", out, plot);
    }
  } else if (!rc && out && !quiet) {
    fprintf(stderr, "wrote %s\n", out);
  }
  cdevs_mo_free(mo);
  return rc;
}

/* ---- list-blocks ------------------------------------------------------------------------ */

static int cmd_list_blocks(void) {
  cdevs_mo_list_blocks(stdout);
  return 0;
}

/* ---- check --------------------------------------------------------------------------- */

static int cmd_check(opts *o) {
  if (o->argc != 3 || o->argv[2][0] == '-') {
    fprintf(stderr, "usage: cdevs check MODEL.mo\n");
    return 2;
  }
  /* Everything `run` would reject short of simulating: parse, check, and compile
   * (which runs the initial algorithm and sorts the algebraic equations). */
  cdevs_mo *mo = NULL;
  int n = cdevs_mo_load(o->argv[2], stderr, &mo);
  if (n < 0) return 1;
  if (n > 0) {
    fprintf(stderr, "%s: %d error%s\n", o->argv[2], n, n == 1 ? "" : "s");
    return 1;
  }
  size_t ns = cdevs_mo_state_count(mo);
  printf("%s: ok (%zu state%s)\n", o->argv[2], ns, ns == 1 ? "" : "s");
  cdevs_mo_free(mo);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return usage(stderr);
  opts o = {argc, 1, argv, argv[1]};
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
    printf("cdevs %s\n", cdevs_version());
    return 0;
  }
  if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
    return usage(stdout);
  if (!strcmp(argv[1], "devstone")) return cmd_devstone(&o);
  if (!strcmp(argv[1], "example")) return cmd_example(&o);
  if (!strcmp(argv[1], "bench")) return cmd_bench(&o);
  if (!strcmp(argv[1], "check")) return cmd_check(&o);
  if (!strcmp(argv[1], "run")) return cmd_run(&o);
  if (!strcmp(argv[1], "list-blocks")) return cmd_list_blocks();
  fprintf(stderr, "cdevs: unknown command '%s'\n", argv[1]);
  return usage(stderr);
}
