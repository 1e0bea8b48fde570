/* SPDX-License-Identifier: MIT */
/* The built-in examples (flyback converter, experimental frame), DEVStone and the QSS
 * benchmarks: models built in C, each printing one machine-readable line. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "reference.h"

/* ---- devstone --------------------------------------------------------------------- */

static const cli_opt devstone_opts[] = {
    {"type", "LI|HI|HO|HOmod", "the DEVStone variant (required)"},
    {"depth", "D", "levels of coupled models, >= 1 (required)"},
    {"width", "W", "atomic models per level, >= 1 (required)"},
    {"int-delay", "MS", "busy work in each internal transition, milliseconds"},
    {"ext-delay", "MS", "busy work in each external transition, milliseconds"},
    {"trace", "FILE.csv", "write every transition to a CSV trace"},
    {NULL, NULL, NULL}};

const cli_cmd cli_devstone_cmd = {"devstone", "",
                                  "Builds and runs a DEVStone model and prints one line of figures.",
                                  devstone_opts};

int cli_devstone(int argc, char **argv) {
  cdevs_devstone_params p = {CDEVS_DEVSTONE_LI, 0, 0, 0.0, 0.0};
  int have_type = 0, rc;
  const char *trace_path = NULL;
  cli_parser ps;
  cli_parse_begin(&ps, &cli_devstone_cmd, argc, argv);
  while ((rc = cli_parse_next(&ps)) == 0) {
    const char *v = ps.val;
    if (cli_is(&ps, "type")) {
      int type = cdevs_devstone_type_parse(v);
      if (type < 0) return cli_bad_value(&ps, "LI, HI, HO or HOmod");
      p.type = (cdevs_devstone_type)type;
      have_type = 1;
    } else if (cli_is(&ps, "depth")) {
      if (cli_parse_u32(v, &p.depth) || p.depth < 1) return cli_bad_value(&ps, "an integer >= 1");
    } else if (cli_is(&ps, "width")) {
      if (cli_parse_u32(v, &p.width) || p.width < 1) return cli_bad_value(&ps, "an integer >= 1");
    } else if (cli_is(&ps, "int-delay")) {
      if (cli_parse_double(v, &p.int_delay_ms) || p.int_delay_ms < 0) return cli_bad_value(&ps, "milliseconds >= 0");
    } else if (cli_is(&ps, "ext-delay")) {
      if (cli_parse_double(v, &p.ext_delay_ms) || p.ext_delay_ms < 0) return cli_bad_value(&ps, "milliseconds >= 0");
    } else if (cli_is(&ps, "trace")) {
      trace_path = v;
    }
  }
  if (rc != CLI_END) return cli_parse_status(rc);
  char **pos;
  if (cli_positional(&ps, &pos) > 0) {
    fprintf(stderr, "cdevs devstone: unexpected argument '%s'\n", pos[0]);
    return CLI_USAGE;
  }
  if (!have_type || !p.depth || !p.width) {
    fprintf(stderr, "cdevs devstone: --type, --depth and --width are required\n");
    return CLI_USAGE;
  }
  double t0 = cli_now();
  cdevs_model *root = cdevs_devstone_build(NULL, &p);
  if (!root) {
    fprintf(stderr, "cdevs devstone: out of memory\n");
    return CLI_FAIL;
  }
  cdevs_sim_opts so = cdevs_sim_opts_default();
  so.max_transitions_per_instant = UINT64_MAX; /* DEVStone runs entirely at t = 0 */
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, &so, &sim);
  if (st) {
    fprintf(stderr, "cdevs devstone: %s: %s\n", cdevs_strerror(st), cdevs_model_errmsg(root));
    cdevs_model_free(root);
    return CLI_FAIL;
  }
  double t1 = cli_now();
  cdevs_trace *tr = NULL;
  if (trace_path && (st = cdevs_trace_open(sim, trace_path, &tr))) {
    fprintf(stderr, "cdevs devstone: cannot write %s: %s\n", trace_path,
            st == CDEVS_EIO ? strerror(errno) : cdevs_strerror(st));
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    return CLI_FAIL;
  }
  st = cdevs_devstone_seed(sim);
  if (!st) st = cdevs_sim_run(sim, INFINITY);
  double t2 = cli_now();
  rc = CLI_OK;
  if (cdevs_trace_close(tr, 1)) {
    fprintf(stderr, "cdevs devstone: writing %s failed\n", trace_path);
    rc = CLI_FAIL;
  }
  if (st) {
    fprintf(stderr, "cdevs devstone: %s: %s\n", cdevs_strerror(st), cdevs_sim_errmsg(sim));
    rc = CLI_FAIL;
  } else {
    cdevs_devstone_counts c;
    cdevs_devstone_counts_get(sim, &c);
    printf("devstone type=%s depth=%u width=%u atomics=%u internals=%llu externals=%llu "
           "events=%llu build_s=%.6f sim_s=%.6f rss_kb=%ld\n",
           cdevs_devstone_type_name(p.type), p.depth, p.width, cdevs_sim_atomic_count(sim),
           (unsigned long long)c.internals, (unsigned long long)c.externals,
           (unsigned long long)c.events, t1 - t0, t2 - t1, cli_peak_rss_kb());
  }
  if (!CLI_TEARDOWN) exit(rc); /* (everything is written: see CLI_TEARDOWN) */
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  return rc;
}

/* ---- examples ---------------------------------------------------------------------- */

/* --plot draws from the --out CSV with gnuplot: both must be possible. 0, or the exit status. */
static int check_plot_args(const char *cmd, const char *out, const char *plot) {
  if (plot && !out) {
    fprintf(stderr, "cdevs %s: --plot needs --out (the plot is drawn from the CSV)\n", cmd);
    return CLI_USAGE;
  }
  if (out && cdevs_results_check_path(out)) {
    fprintf(stderr, "cdevs %s: cannot write %s: %s\n", cmd, out, strerror(errno));
    return CLI_FAIL;
  }
  if (plot && cli_plot_available(cmd)) return CLI_FAIL;
  return CLI_OK;
}

static const cli_opt flyback_opts[] = {
    {"method", "M", "QSS1, QSS2, QSS3 (default), LIQSS1, LIQSS2 or LIQSS3"},
    {"dqrel", "R", "relative quantum (default 1e-3)"},
    {"dqmin", "A", "minimum quantum (default 1e-5)"},
    {"stop", "T", "stop time (default 2e-3)"},
    {"step", "H", "sampling step of the dense output (default 1e-7)"},
    {"out", "FILE.csv", "iL and vC, dense"},
    {"plot", "FILE", "draw them into FILE.svg or FILE.png (needs --out)"},
    {NULL, NULL, NULL}};

const cli_cmd cli_flyback_cmd = {"example flyback", "",
                                 "The flyback converter of the QSS seed (block diagram), dense iL and vC.",
                                 flyback_opts};

static int plot_flyback(const char *csv, const char *out, const char *method) {
  char script[768];
  snprintf(script, sizeof script,
           "set terminal %s size 900,700\nset output ARG1\nset datafile separator ','\n"
           "set multiplot layout 2,1 title sprintf('Flyback converter, %%s (dense output)', ARG3) noenhanced\n"
           "set xlabel 'time (ms)'\n"
           "set ylabel 'output voltage vC (V)'\n"
           "plot ARG2 using ($1*1000):3 skip 1 with lines lw 1.5 notitle\n"
           "set ylabel 'magnetizing current iL (A)'\n"
           "plot ARG2 using ($1*1000):2 skip 1 with lines lw 1 notitle\n"
           "unset multiplot\n",
           cli_plot_terminal(out));
  const char *args[3] = {out, csv, method};
  return cli_plot_run(script, args, 3);
}

static int example_flyback(int argc, char **argv) {
  cdevs_qss_method method = CDEVS_QSS3;
  double dqrel = 1e-3, dqmin = 1e-5, stop = 2e-3, step = 1e-7;
  const char *out = NULL, *plot = NULL;
  int rc;
  cli_parser ps;
  cli_parse_begin(&ps, &cli_flyback_cmd, argc, argv);
  while ((rc = cli_parse_next(&ps)) == 0) {
    const char *v = ps.val;
    if (cli_is(&ps, "method")) {
      /* (not mLIQSS: it pairs the states of an equation system, and the integrators of
       * a block diagram are each alone) */
      if (cdevs_qss_method_parse(v, &method) || cdevs_qss_method_pairs(method))
        return cli_bad_value(&ps, "QSS1|QSS2|QSS3|LIQSS1|LIQSS2|LIQSS3");
    } else if (cli_is(&ps, "dqrel")) {
      if (cli_parse_double(v, &dqrel) || dqrel < 0) return cli_bad_value(&ps, "a value >= 0");
    } else if (cli_is(&ps, "dqmin")) {
      if (cli_parse_double(v, &dqmin) || !(dqmin > 0)) return cli_bad_value(&ps, "a value > 0");
    } else if (cli_is(&ps, "stop")) {
      if (cli_parse_double(v, &stop) || !(stop > 0)) return cli_bad_value(&ps, "a time > 0");
    } else if (cli_is(&ps, "step")) {
      if (cli_parse_double(v, &step) || !(step > 0)) return cli_bad_value(&ps, "a time > 0");
    } else if (cli_is(&ps, "out")) {
      out = v;
    } else if (cli_is(&ps, "plot")) {
      plot = v;
    }
  }
  if (rc != CLI_END) return cli_parse_status(rc);
  if ((rc = check_plot_args("example", out, plot))) return rc;
  if (stop / step > 5e7) {
    fprintf(stderr, "cdevs example: --stop / --step asks for more than 5e7 rows\n");
    return CLI_USAGE;
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
    return CLI_FAIL;
  }
  double t0 = cli_now();
  st = cdevs_sim_run(sim, stop);
  double wall = cli_now() - t0;
  rc = CLI_OK;
  if (st) {
    fprintf(stderr, "cdevs example: %s: %s\n", cdevs_strerror(st), cdevs_sim_errmsg(sim));
    rc = CLI_FAIL;
  }
  const char *names[2] = {"iL", "vC"};
  /* Through a unique temporary name, links followed, as cdevs run writes. */
  cdevs_results_file *rf = NULL;
  if (out) {
    cdevs_status ws = cdevs_results_file_open(out, &rf);
    if (!ws) {
      ws = cdevs_recorder_write(cdevs_sim_state(sim, rec), cdevs_results_file_stream(rf), names);
      cdevs_status cs = cdevs_results_file_close(rf, ws == CDEVS_OK);
      if (!ws) ws = cs;
    }
    if (ws) {
      fprintf(stderr, "cdevs example: writing %s failed: %s\n", out, strerror(errno));
      rc = CLI_FAIL;
    }
  }
  const cdevs_model *iL = cdevs_model_child(root, "iL"), *vC = cdevs_model_child(root, "vC");
  double t_end = cdevs_sim_time(sim);
  printf("flyback method=%s dqrel=%g dqmin=%g stop=%g steps=%llu iL=%.6g vC=%.6g\n",
         cdevs_qss_method_name(method), dqrel, dqmin, stop,
         (unsigned long long)(cdevs_integrator_steps(cdevs_sim_state(sim, iL)) +
                              cdevs_integrator_steps(cdevs_sim_state(sim, vC))),
         cdevs_integrator_x(cdevs_sim_state(sim, iL), t_end),
         cdevs_integrator_x(cdevs_sim_state(sim, vC), t_end));
  cli_summary(sim, wall);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  if (!rc && plot) {
    if (plot_flyback(out, plot, cdevs_qss_method_name(method))) {
      fprintf(stderr, "cdevs example: gnuplot failed to draw %s\n", plot);
      rc = CLI_FAIL;
    } else {
      fprintf(stderr, "wrote %s and %s\n", out, plot);
    }
  }
  return rc;
}

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

static int plot_efp(const char *csv, const char *out) {
  char script[768];
  snprintf(script, sizeof script,
           "set terminal %s size 900,500\nset output ARG1\nset datafile separator ','\n"
           "set key top left\n"
           "set xlabel 'simulated time'\n"
           "set ylabel 'jobs'\n"
           "set title 'Experimental frame: jobs arrived and completed'\n"
           "plot ARG2 using 1:2 skip 1 with steps lw 2 title 'arrived', "
           "'' using 1:3 skip 1 with steps lw 2 title 'completed by proc'\n",
           cli_plot_terminal(out));
  const char *args[2] = {out, csv};
  return cli_plot_run(script, args, 2);
}

static const cli_opt efp_opts[] = {
    {"mode", "parallel|classic", "Parallel DEVS (default) or Classic DEVS"},
    {"first", "proc|genr", "under Classic DEVS, who goes first at a tie (default proc)"},
    {"period", "P", "the generator's period (default 1)"},
    {"proc-time", "T", "the processor's time per job (default 2)"},
    {"observe", "T", "the transducer's observation time (default 100.5)"},
    {"out", "FILE.csv", "jobs arrived and completed over time"},
    {"plot", "FILE", "draw them into FILE.svg or FILE.png (needs --out)"},
    {"trace", "FILE.csv", "write every transition to a CSV trace"},
    {NULL, NULL, NULL}};

const cli_cmd cli_efp_cmd = {"example efp", "",
                             "The generator -> processor -> transducer experimental frame.", efp_opts};

static int example_efp(int argc, char **argv) {
  cdevs_generator_params g = {1.0, 1.0};
  cdevs_processor_params pp = {2.0};
  cdevs_transducer_params tp = {100.5};
  cdevs_sim_opts so = cdevs_sim_opts_default();
  const char *out = NULL, *plot = NULL, *trace_path = NULL;
  int proc_first = 1, rc;
  cli_parser ps;
  cli_parse_begin(&ps, &cli_efp_cmd, argc, argv);
  while ((rc = cli_parse_next(&ps)) == 0) {
    const char *v = ps.val;
    if (cli_is(&ps, "mode")) {
      if (strcmp(v, "parallel") == 0)
        so.mode = CDEVS_PARALLEL;
      else if (strcmp(v, "classic") == 0)
        so.mode = CDEVS_CLASSIC;
      else
        return cli_bad_value(&ps, "parallel or classic");
    } else if (cli_is(&ps, "first")) {
      if (strcmp(v, "proc") == 0)
        proc_first = 1;
      else if (strcmp(v, "genr") == 0)
        proc_first = 0;
      else
        return cli_bad_value(&ps, "proc or genr");
    } else if (cli_is(&ps, "period")) {
      if (cli_parse_double(v, &g.period) || g.period <= 0) return cli_bad_value(&ps, "a time > 0");
    } else if (cli_is(&ps, "proc-time")) {
      if (cli_parse_double(v, &pp.processing_time) || pp.processing_time < 0) return cli_bad_value(&ps, "a time >= 0");
    } else if (cli_is(&ps, "observe")) {
      if (cli_parse_double(v, &tp.observation_time) || tp.observation_time <= 0) return cli_bad_value(&ps, "a time > 0");
    } else if (cli_is(&ps, "out")) {
      out = v;
    } else if (cli_is(&ps, "plot")) {
      plot = v;
    } else if (cli_is(&ps, "trace")) {
      trace_path = v;
    }
  }
  if (rc != CLI_END) return cli_parse_status(rc);
  if ((rc = check_plot_args("example", out, plot))) return rc;
  cdevs_model *root = cdevs_efp_build(NULL, &g, &pp, &tp);
  if (!root) {
    fprintf(stderr, "cdevs example: out of memory\n");
    return CLI_FAIL;
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
    return CLI_FAIL;
  }
  efp_rec rec = {NULL, 0, 0, 0, 0.0, 0};
  rec.genr = cdevs_sim_atomic_id(sim, cdevs_model_child(ef, "genr"));
  cdevs_results_file *rf = NULL;
  cdevs_observer obs = {efp_output, NULL, efp_root_output, NULL};
  if (out) {
    if (cdevs_results_file_open(out, &rf)) {
      fprintf(stderr, "cdevs example: cannot write %s: %s\n", out, strerror(errno));
      cdevs_sim_free(sim);
      cdevs_model_free(root);
      return CLI_FAIL;
    }
    rec.f = cdevs_results_file_stream(rf);
    fputs("time,arrived,completed\n", rec.f);
    efp_row(&rec, cdevs_sim_time(sim));
    cdevs_sim_observe(sim, &obs, &rec);
  }
  cdevs_trace *tr = NULL;
  if (trace_path && (st = cdevs_trace_open(sim, trace_path, &tr))) {
    /* Nothing ran: a previous result file stays as it was. */
    fprintf(stderr, "cdevs example: cannot write %s: %s\n", trace_path,
            st == CDEVS_EIO ? strerror(errno) : cdevs_strerror(st));
    cdevs_results_file_close(rf, 0);
    cdevs_sim_free(sim);
    cdevs_model_free(root);
    return CLI_FAIL;
  }
  double t0 = cli_now();
  st = cdevs_sim_run(sim, INFINITY);
  double wall = cli_now() - t0;
  rc = CLI_OK;
  if (st) {
    fprintf(stderr, "cdevs example: %s: %s\n", cdevs_strerror(st), cdevs_sim_errmsg(sim));
    rc = CLI_FAIL;
  }
  if (cdevs_trace_close(tr, 1)) {
    fprintf(stderr, "cdevs example: writing %s failed\n", trace_path);
    rc = CLI_FAIL;
  }
  if (rf && (rec.failed || cdevs_results_file_close(rf, 1))) {
    if (rec.failed) cdevs_results_file_close(rf, 0);
    fprintf(stderr, "cdevs example: writing %s failed: %s\n", out, strerror(errno));
    rc = CLI_FAIL;
  }
  const cdevs_transducer_state *ts = cdevs_sim_state(sim, cdevs_model_child(ef, "transd"));
  const cdevs_processor_state *pst = cdevs_sim_state(sim, proc);
  printf("efp mode=%s first=%s arrived=%llu solved=%llu bailed=%llu throughput=%.6g "
         "mean_turnaround=%.6g\n",
         so.mode == CDEVS_CLASSIC ? "classic" : "parallel", proc_first ? "proc" : "genr",
         (unsigned long long)ts->arrived, (unsigned long long)ts->solved,
         (unsigned long long)pst->bailed, cdevs_transducer_throughput(ts),
         cdevs_transducer_mean_turnaround(ts));
  cli_summary(sim, wall);
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  if (!rc && plot) {
    if (plot_efp(out, plot)) {
      fprintf(stderr, "cdevs example: gnuplot failed to draw %s\n", plot);
      rc = CLI_FAIL;
    } else {
      fprintf(stderr, "wrote %s and %s\n", out, plot);
    }
  }
  return rc;
}

int cli_example(int argc, char **argv) {
  const char *name = argc >= 2 ? argv[1] : "";
  if (!strcmp(name, "flyback")) return example_flyback(argc - 1, argv + 1);
  if (!strcmp(name, "efp")) return example_efp(argc - 1, argv + 1);
  if (!strcmp(name, "-h") || !strcmp(name, "--help")) {
    printf("usage: cdevs example flyback|efp [options]\n\n");
    cli_help(&cli_flyback_cmd, stdout);
    printf("\n");
    cli_help(&cli_efp_cmd, stdout);
    return CLI_OK;
  }
  fprintf(stderr, "cdevs example: unknown example '%s' (available: flyback, efp)\n", name);
  return CLI_USAGE;
}
