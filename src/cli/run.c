/* SPDX-License-Identifier: MIT */
/* cdevs run and cdevs check: a model file (or standard input) simulated into a result
 * file that survives errors and stop signals, and checked without running. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "proc_run.h"
#include "ranks.h"
#include "modules.h"
#ifdef CDEVS_HAVE_ODE
#include "cdevs/ode.h"
#endif

/* An HDF5 result file: a path ending in ".h5" or ".hdf5". */
static int is_h5(const char *path) {
  const char *dot = path ? strrchr(path, '.') : NULL;
  return dot && (!strcmp(dot, ".h5") || !strcmp(dot, ".hdf5"));
}

/* The HDF5 writer of the module cdevs-hdf5.so (h5out.h), loaded at the first --out
 * F.h5: 0, or -1 after saying why. */
static const cdevs_results_sink *(*h5_sink)(void);
static void *(*h5_new)(void);
static int h5_load(const char *out) {
#ifdef CDEVS_HAVE_HDF5
  if (h5_sink) return 0;
  char err[1200];
  void *a = cli_module_sym("cdevs-hdf5.so", "cdevs_hdf5_sink", err, sizeof err);
  void *b = a ? cli_module_sym("cdevs-hdf5.so", "cdevs_hdf5_new", err, sizeof err) : NULL;
  if (!a || !b) {
    fprintf(stderr, "cdevs run: --out %s: %s\n", out, err);
    return -1;
  }
  memcpy(&h5_sink, &a, sizeof h5_sink); /* (data pointers to function pointers, as POSIX allows) */
  memcpy(&h5_new, &b, sizeof h5_new);
  return 0;
#else
  fprintf(stderr, "cdevs run: --out %s: this cdevs was built without HDF5 (tools/deps.sh installs Debian "
                  "libhdf5-dev; then rebuild)\n", out);
  return -1;
#endif
}

/* A model file larger than this is refused before it is read whole: model text of
 * that size is no model, and /dev/zero or a runaway pipe would fill the memory. */
#define MODEL_MAX_BYTES ((size_t)64 << 20)

/* The model text of path ("-": standard input), at most MODEL_MAX_BYTES, or NULL
 * after saying why on stderr. */
static char *read_model(const char *path, const char *name, size_t *len) {
  int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
  if (fd < 0) {
    fprintf(stderr, "%s: cannot open: %s\n", name, strerror(errno));
    return NULL;
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    fprintf(stderr, "%s: cannot read: %s\n", name, strerror(EISDIR));
    if (fd) close(fd);
    return NULL;
  }
  if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (uintmax_t)st.st_size > MODEL_MAX_BYTES) {
    fprintf(stderr, "%s: %jd bytes, more than a model file may have (%zu MiB)\n", name,
            (intmax_t)st.st_size, MODEL_MAX_BYTES >> 20);
    if (fd) close(fd);
    return NULL;
  }
  /* At most one byte past the limit is read: enough to know the text is too large
   * (an endless input like /dev/zero stops there). */
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap);
  const char *why = buf ? NULL : "out of memory";
  while (!why) {
    if (n == cap) {
      if (cap > MODEL_MAX_BYTES) {
        why = "too large";
        break;
      }
      size_t ncap = 2 * cap > MODEL_MAX_BYTES + 1 ? MODEL_MAX_BYTES + 1 : 2 * cap;
      char *nb = realloc(buf, ncap);
      if (!nb) { /* never a truncated text */
        why = "out of memory";
        break;
      }
      buf = nb, cap = ncap;
    }
    ssize_t got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) why = strerror(errno);
    if (got <= 0) break;
    n += (size_t)got;
  }
  if (fd) close(fd);
  if (!why && buf && n > MODEL_MAX_BYTES) why = "too large";
  if (why) {
    if (why && !strcmp(why, "too large"))
      fprintf(stderr, "%s: more than %zu MiB of text, more than a model file may have\n", name,
              MODEL_MAX_BYTES >> 20);
    else
      fprintf(stderr, "%s: cannot read: %s\n", name, why);
    free(buf);
    return NULL;
  }
  *len = n;
  return buf;
}

/* The run's settings on a compiled model (its stop time, LIQSS's Jacobian, what Zeno
 * behaviour does, the classical integrator), for the single run and for every
 * replication alike. */
static void model_settings(cdevs_mo *mo, const cli_model *m) {
  cdevs_mo_set_stop(mo, m->stop);
  cdevs_mo_set_jacobian(mo, m->jac);
  cdevs_mo_set_zeno(mo, m->zeno);
#ifdef CDEVS_HAVE_ODE
  cdevs_mo_set_ode(mo, &cdevs_ode_cvode);
#endif
}

cdevs_mo *cli_model_load(const cli_model *m, uint64_t r, FILE *diag) {
  cdevs_mo *mo = NULL;
  int n = cdevs_mo_load_text_rep(m->name, m->text, m->len, diag, m->seed, r, &mo);
  if (n > 0 && diag) fprintf(diag, "%s: %d error%s\n", m->name, n, n == 1 ? "" : "s");
  if (n) return NULL;
  model_settings(mo, m);
  if (m->vars && cdevs_mo_select_outputs(mo, m->vars, diag)) {
    cdevs_mo_free(mo);
    return NULL;
  }
  return mo;
}

/* Reads (rank 0, which shares it with the other ranks), parses, checks and compiles a
 * model file, its parameters drawn for replication 1 of m->seed: 0, with m->text
 * set (the caller frees it), or the exit status after the diagnostics went to stderr. */
static int load_model(cli_model *m, cdevs_mo **mo) {
  char *text = cli_ranks_rank() == 0 ? read_model(m->path, m->name, &m->len) : NULL;
  if (cli_ranks_share(&text, &m->len)) {
    free(text);
    return CLI_FAIL;
  }
  m->text = text;
  int n = cdevs_mo_load_text_rep(m->name, text, m->len, stderr, m->seed, 0, mo);
  if (n > 0) fprintf(stderr, "%s: %d error%s\n", m->name, n, n == 1 ? "" : "s");
  return n ? CLI_FAIL : CLI_OK;
}

/* ---- stop signals ------------------------------------------------------------------ */

static volatile sig_atomic_t stop_signal;
static cdevs_sim *running; /* the simulator a stop signal stops */
static cdevs_rt *running_rt; /* and its real-time executive, woken from its wait */

/* The first stop signal ends the run at the current instant (cdevs_sim_request_stop
 * is seen inside a slice, however long). A repeat within a second is the same request
 * (timeout(1) and process-group kills deliver one signal twice); a later one, a user
 * insisting, ends the process. Writes interrupted by a signal are restarted, not failed. */
static struct timespec first_stop;

static void on_stop_signal(int sig) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now); /* async-signal-safe */
  if (stop_signal) {
    double waited = (double)(now.tv_sec - first_stop.tv_sec) + 1e-9 * (double)(now.tv_nsec - first_stop.tv_nsec);
    if (waited > 1.0) {
      signal(sig, SIG_DFL);
      raise(sig);
    }
    return;
  }
  first_stop = now;
  stop_signal = sig;
  cdevs_sim_request_stop(running);
  cdevs_rt_request_stop(running_rt);
}

void cli_catch_stop_signals(cdevs_sim *sim) {
  struct sigaction sa = {0};
  running = sim;
  sa.sa_handler = on_stop_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
}

int cli_stop_signal(void) { return stop_signal; }

const char *cli_signal_name(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : sig == SIGHUP ? "SIGHUP" : "a signal";
}

/* ---- run --------------------------------------------------------------------------- */

static const cli_opt run_opts[] = {
    {"stop", "T", "stop time (default: the model's StopTime)"},
    {"method", "M", "QSS1, QSS2, QSS3, LIQSS1, LIQSS2, LIQSS3, mLIQSS1, mLIQSS2, CVODE_BDF / CVODE_AM (the equations by SUNDIALS CVODE; blocks stay QSS), or LIQSS_BDF (MMO_BDF_Part's states by CVODE's BDF, the rest by LIQSS2) (default: the model's)"},
    {"tol", "R", "relative tolerance (quantum dQrel)"},
    {"abstol", "A", "absolute tolerance (quantum dQmin)"},
    {"out", "FILE", "results as .csv, .mat (MAT v4) or .h5 (HDF5); default results/MODEL.csv"},
    {"no-out", NULL, "write no results (only the summary)"},
    {"vars", "a,b", "the variables to write (arrays, subscripts and ranges allowed)"},
    {"step", "H", "write rows every H (dense output) instead of at every change"},
    {"raw", NULL, "a row at each change only: no rows sampled between changes, no left limits"},
    {"format", "wide|long|auto", "CSV/HDF5 layout: a column per variable, or time,variable,value records at each "
                                 "variable's changes (auto: long for more than 16 variables without --step)"},
    {"zeno", "stop|continue", "when events accumulate (Zeno behaviour): stop with an error (default)"},
    {"plot", "FILE", "draw the results into FILE.svg or FILE.png with gnuplot"},
    {"quiet", NULL, "no progress line and no 'wrote' message"},
    {"jacobian", "exact|secant", "how LIQSS takes df/dx: exactly, or from the last step's secant"},
    {"seed", "N", "the random package seed of process blocks and drawn parameters (0, the default: L'Ecuyer's "
                  "12345s)"},
    {"reps", "K", "K independent replications (replication r on substream r of every stream) of a process model, "
                  "or of a model with parameters drawn from distributions; the report gives each statistic's or "
                  "value's mean over them with its 95% half-width"},
    {"jobs", "J", "run the replications in J worker processes (the same report, byte for byte, for any J)"},
    {"warmup", "T", "process models: clear the statistics at start + T"},
    {"report", "FILE", "process models' statistics, or the replications' report, as .csv or .json (default "
                       "results/MODEL.report.csv)"},
    {"realtime", "[=SPEED]", "simulated time follows the wall clock, SPEED simulated seconds per second (default 1); "
                             "UDP datagrams are events as they arrive"},
    {"overrun", "catchup|skip|abort", "with --realtime, an instant later than --late-threshold: run late instants at "
                                      "once until caught up (default), move the schedule on, or stop with an error"},
    {"late-threshold", "S", "with --realtime, lateness (wall seconds) that counts as a miss (default 0.001)"},
    {"record", "LOG", "write every external input (UDP datagrams) with its wall and simulated time to LOG"},
    {"replay", "LOG", "run again with the inputs of a --record LOG instead of the sockets, as fast as possible "
                      "(paced with --realtime): the same results, byte for byte"},
    {NULL, NULL, NULL}};

const cli_cmd cli_run_cmd = {
    "run", "MODEL.mo|-",
    "Simulates an equation model with QSS (\"-\" reads the model from standard input).\n"
    "Results stream to the --out file as the run goes; a summary line goes to stderr.\n"
    "SIGINT, SIGTERM or SIGHUP stop the run at the current instant with the results\n"
    "up to there written and the summary saying where it stopped.\n"
    "A parameter may be drawn from a distribution (parameter Real k = Uniform(1, 2);,\n"
    "the distributions of the process blocks): a run draws it on substream 0 of the\n"
    "stream its name gives (replication 1's value, said on stderr); --reps K runs K\n"
    "replications, each compiled with its own draw, and reports every output's value at\n"
    "the stop time, its minimum and maximum over the run, and the parameters, as the\n"
    "mean over the replications with its 95% half-width (--report has each run's).\n"
    "--realtime[=SPEED] runs it against the wall clock; a model with UDP ports\n"
    "(cdevs.UDPSend, cdevs.UDPReceive) takes datagrams as events (as fast as possible\n"
    "without --realtime); --record LOG keeps its inputs, --replay LOG runs them again.\n"
#ifdef CDEVS_HAVE_MPI
    "MPI: built in (OpenMPI). `mpirun -np N cdevs run M.mo --reps K [--jobs J]` runs\n"
    "replications r = i, i + N, ... on rank i (on J workers each); rank 0 merges them\n"
    "and writes the report a single process would, byte for byte. SIGINT to mpirun\n"
    "makes it send SIGTERM to the ranks: each ends its replication and rank 0 reports\n"
    "those that ran, unless mpirun kills the ranks first (then no report); mpirun's\n"
    "exit status is non-zero either way.",
#else
    "MPI: not built in (Debian openmpi-bin and libopenmpi-dev at build time add\n"
    "`mpirun -np N cdevs run M.mo --reps K`; without them mpirun of several ranks is\n"
    "refused).",
#endif
    run_opts};

/* results/<model><ext> for a model file (its name without directory and extension),
 * with results/ made: NULL after saying why (flag: the option that chooses another). */
static char *default_path(const char *path, const char *ext, const char *flag) {
  const char *base = strcmp(path, "-") ? strrchr(path, '/') : NULL;
  base = !strcmp(path, "-") ? "stdin" : base ? base + 1 : path;
  size_t n = strlen(base);
  const char *dot = strrchr(base, '.');
  if (dot && dot != base) n = (size_t)(dot - base);
  char *out = malloc(n + strlen(ext) + sizeof "results/");
  if (!out) {
    fprintf(stderr, "cdevs run: out of memory\n");
    return NULL;
  }
  sprintf(out, "results/%.*s%s", (int)n, base, ext);
  if (mkdir("results", 0777) && errno != EEXIST) {
    fprintf(stderr, "cdevs run: cannot create results/ for %s: %s (choose a file with %s)\n", out, strerror(errno),
            flag);
    free(out);
    return NULL;
  }
  return out;
}

/* The run, in slices of simulated time sized to take about 20 ms each, so that a stop
 * signal is seen promptly and the progress line is kept; a slice costs one call to
 * cdevs_sim_run, nothing measurable. Returns the status; *t_end is where it stopped. */
static cdevs_status run_sliced(cdevs_sim *sim, cdevs_mo *mo, double start, double stop, int progress,
                               double *t_end) {
  double t0 = cli_now(), last = t0, width = (stop - start) * 1e-6, t = start;
  cdevs_status st = CDEVS_OK;
  for (;;) {
    if (stop_signal) { /* every instant up to t has run: the results are whole to t */
      *t_end = t;
      break;
    }
    double tn = cdevs_sim_next_time(sim);
    if (!(tn <= stop)) { /* passive, or nothing left before the stop time */
      *t_end = stop;
      break;
    }
    double base = tn > t ? tn : t, tk = base + width;
    if (!(tk > base)) tk = nextafter(base, INFINITY);
    if (tk > stop) tk = stop;
    double w0 = cli_now();
    st = cdevs_sim_run(sim, tk);
    double now = cli_now();
    if (st || stop_signal) { /* an error, or a stop within the slice: whole to the last instant */
      *t_end = cdevs_sim_time(sim);
      break;
    }
    t = tk;
    if (now - w0 < 0.005)
      width *= 2;
    else if (now - w0 > 0.04)
      width /= 2;
    if (progress && now - last >= 0.5) {
      cdevs_mo_stats ps;
      cdevs_mo_stats_sim(mo, sim, &ps);
      double frac = (tk - start) / (stop - start), rate = (double)(ps.steps + ps.crossings) / (now - t0);
      fprintf(stderr, "\r%5.1f%%  t=%-12.6g  %.3g events/s  ETA %.0f s   ", 100.0 * frac, tk, rate,
              frac > 0 ? (now - t0) * (1.0 - frac) / frac : 0.0);
      last = now;
    }
  }
  if (progress && last > t0) fputc('\n', stderr);
  return st;
}

static int plot_results(const char *csv, const char *plot, const char *title, size_t ncols) {
  char script[512];
  snprintf(script, sizeof script,
           "set terminal %s size 900,500\nset output ARG1\nset datafile separator ','\n"
           "set key autotitle columnhead outside right noenhanced\nset xlabel 'time'\n"
           "set title ARG3 noenhanced\n"
           "plot for [i=2:%zu] ARG2 using 1:i with lines lw 1.5\n",
           cli_plot_terminal(plot), ncols + 1);
  const char *args[3] = {plot, csv, title};
  return cli_plot_run(script, args, 3);
}

/* The long layout ("time,variable,value"): a curve for each of the first variables
 * (gnuplot takes at most nine arguments: six names), each read by filtering the
 * records on its name; gnuplot splits quoted fields at their commas, so names holding
 * one are left out. How many were drawn (0: none could be, gnuplot not run), or -1. */
static int plot_long(const char *csv, const char *plot, const char *title, cdevs_mo *mo) {
  const char *args[9] = {plot, csv, title};
  int n = 3;
  for (size_t k = 0; k < cdevs_mo_output_count(mo) && n < 9; k++) {
    const char *nm = cdevs_mo_output_name(mo, k);
    if (!strpbrk(nm, ",\"\r\n")) args[n++] = nm;
  }
  char script[640];
  snprintf(script, sizeof script,
           "set terminal %s size 900,500\nset output ARG1\nset datafile separator ','\n"
           "set datafile missing NaN\nset key outside right noenhanced\nset xlabel 'time'\n"
           "set title ARG3 noenhanced\n"
           "array V[%d] = [ARG4, ARG5, ARG6, ARG7, ARG8, ARG9]\n"
           "plot for [i=1:%d] ARG2 skip 1 using 1:(strcol(2) eq V[i] ? $3 : NaN) with lines lw 1.5 title V[i]\n",
           cli_plot_terminal(plot), 6, n - 3);
  if (n == 3) return 0;
  return cli_plot_run(script, args, n) == 0 ? n - 3 : -1;
}

/* The CPUs this process may run on (its affinity, which taskset and cgroup cpusets
 * narrow), not the machine's. */
static int usable_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* Checks --out before anything runs: 0, or the exit status after saying why. */
static int check_out(const char *out) {
  if (!cdevs_results_check_path(out)) return 0;
  fprintf(stderr, "cdevs run: cannot write %s: %s\n", out, strerror(errno));
  return CLI_FAIL;
}

static int run_cmd(int argc, char **argv);

/* ---- real time, UDP, record and replay ----------------------------------------------------- */

/* The run's executive and its files (cdevs/rt.h), when it has one: --realtime, --record,
 * --replay, or a model with UDP ports. */
typedef struct cli_rt {
  int realtime;
  double speed;
  int overrun; /* -1: not given */
  double late_threshold;
  const char *record, *replay;
  FILE *rec_f, *rep_f;
  cdevs_rt *rt;
  char tag[320];
} cli_rt;

/* What a replay must match: the model's text (FNV-1a) and the options that change what
 * it computes. */
static void rt_tag(cli_rt *r, const cli_model *m, const cdevs_mo_experiment *e) {
  uint64_t h = 14695981039346656037ULL;
  for (size_t i = 0; i < m->len; i++) h = (h ^ (unsigned char)m->text[i]) * 1099511628211ULL;
  snprintf(r->tag, sizeof r->tag, "text=%016" PRIx64 " method=%s tol=%.17g abstol=%.17g start=%.17g stop=%.17g "
           "seed=%" PRIu64 " jacobian=%d zeno=%d", h, cdevs_qss_method_name(e->method), e->tol, e->abstol, e->start,
           e->stop, m->seed, (int)m->jac, (int)m->zeno);
}

/* Opens the log files and makes the executive: 0, or the exit status after saying why. */
static int rt_open(cli_rt *r, const cli_model *m, const cdevs_mo_experiment *e) {
  rt_tag(r, m, e);
  if (r->replay && !(r->rep_f = fopen(r->replay, "r"))) {
    fprintf(stderr, "cdevs run: cannot read --replay %s: %s\n", r->replay, strerror(errno));
    return CLI_FAIL;
  }
  if (r->record && !(r->rec_f = fopen(r->record, "w"))) {
    fprintf(stderr, "cdevs run: cannot write --record %s: %s\n", r->record, strerror(errno));
    return CLI_FAIL;
  }
  cdevs_rt_opts o = cdevs_rt_opts_default();
  o.speed = r->realtime ? r->speed : 0.0;
  if (r->overrun >= 0) o.overrun = (cdevs_rt_overrun)r->overrun;
  if (!isnan(r->late_threshold)) o.late_threshold = r->late_threshold;
  o.tag = r->tag;
  o.record = r->rec_f;
  o.replay = r->rep_f;
  o.replay_name = r->replay;
  char msg[768];
  if (cdevs_rt_new(&o, &r->rt, msg, sizeof msg)) {
    fprintf(stderr, "cdevs run: %s\n", msg);
    return CLI_FAIL;
  }
  return CLI_OK;
}

/* Frees the executive and closes the logs: CLI_FAIL if the record could not be written.
 * A run that never started (ran: 0) leaves no record behind. */
static int rt_close(cli_rt *r, int ran) {
  int rc = CLI_OK;
  cdevs_rt_free(r->rt);
  r->rt = NULL;
  running_rt = NULL;
  if (r->rec_f && (ferror(r->rec_f) | fclose(r->rec_f))) {
    fprintf(stderr, "cdevs run: writing --record %s failed: %s\n", r->record, strerror(errno));
    rc = CLI_FAIL;
  }
  if (r->rec_f && !ran) (void)unlink(r->record);
  if (r->rep_f) fclose(r->rep_f);
  r->rec_f = r->rep_f = NULL;
  return rc;
}

/* The real-time summary line: lateness, misses, inputs, datagrams by fate. */
static void rt_summary(const cli_rt *r) {
  cdevs_rt_stats s;
  cdevs_rt_stats_get(r->rt, &s);
  static const char *const policy[] = {"catchup", "skip", "abort"};
  if (r->replay)
    fprintf(stderr, "summary: replay of %s%s", r->replay, r->realtime ? "" : " (as fast as possible)");
  else if (!r->realtime)
    fprintf(stderr, "summary: as fast as possible (sockets polled between instants)");
  if (r->realtime) {
    cdevs_rt_opts d = cdevs_rt_opts_default();
    double th = isnan(r->late_threshold) ? d.late_threshold : r->late_threshold;
    fprintf(stderr, "%srealtime speed=%g overrun=%s events=%llu late_p50_us=%.1f late_p99_us=%.1f "
                    "late_max_us=%.1f late_mean_us=%.1f misses=%llu (>%g us)",
            r->replay ? " " : "summary: ", r->speed, policy[r->overrun >= 0 ? r->overrun : 0],
            (unsigned long long)s.events, s.late_p50 * 1e6, s.late_p99 * 1e6, s.late_max * 1e6, s.late_mean * 1e6,
            (unsigned long long)s.misses, th * 1e6);
    if (s.slipped > 0) fprintf(stderr, " slipped_s=%.6f", s.slipped);
  }
  fprintf(stderr, " inputs=%llu udp_received=%llu udp_sent=%llu udp_dropped=%llu", (unsigned long long)s.inputs,
          (unsigned long long)s.received, (unsigned long long)s.sent, (unsigned long long)s.dropped_total);
  if (s.dropped_total) {
    const char *sep = " (";
    for (int i = 1; i < CDEVS_UDP_NVERDICTS; i++)
      if (s.dropped[i]) {
        fprintf(stderr, "%s%s=%llu", sep, cdevs_udp_verdict_name(i), (unsigned long long)s.dropped[i]);
        sep = " ";
      }
    fputc(')', stderr);
  }
  if (s.kernel_dropped) fprintf(stderr, " kernel_dropped=%llu", (unsigned long long)s.kernel_dropped);
  if (s.send_errors)
    fprintf(stderr, " send_errors=%llu (first: %s)", (unsigned long long)s.send_errors, strerror(s.send_errno));
  if (s.suppressed) fprintf(stderr, " sends_not_made=%llu", (unsigned long long)s.suppressed);
  fputc('\n', stderr);
}

/* Under mpirun every rank runs the command: the others repeat rank 0's steps up to
 * the replications without a word (rank 0 says what they find), then run their
 * share of them. */
int cli_run(int argc, char **argv) {
  cdevs_lang_register_random(&cdevs_proc_random); /* parameter Real k = Uniform(1, 2) */
  if (cli_ranks_begin()) return CLI_FAIL;
  if (cli_ranks_rank() > 0) cli_ranks_mute(1);
  int rc = run_cmd(argc, argv);
  cli_ranks_mute(0);
  return cli_ranks_end(rc);
}

static int run_cmd(int argc, char **argv) {
  const char *out = NULL, *plot = NULL, *vars = NULL;
  double stop = NAN, tol = NAN, abstol = NAN, step = 0.0;
  cdevs_qss_method method = 0;
  cdevs_mo_jacobian jac = CDEVS_JAC_EXACT;
  int quiet = 0, no_out = 0, raw = 0, rc, layout = -1; /* -1: auto */
  cdevs_mo_zeno zeno = CDEVS_ZENO_STOP;
  cli_proc_opts po = {0, 1, 1, 0.0, NULL, 0};
  const char *proc_flag = NULL; /* a process-model option given, for the message if the model has none */
  cli_rt rtc = {0, 1.0, -1, NAN, NULL, NULL, NULL, NULL, NULL, ""};
  cli_parser p;
  cli_parse_begin(&p, &cli_run_cmd, argc, argv);
  while ((rc = cli_parse_next(&p)) == 0) {
    const char *v = p.val;
    if (cli_is(&p, "stop")) {
      if (cli_parse_double(v, &stop)) return cli_bad_value(&p, "a time");
    } else if (cli_is(&p, "method")) {
      if (cdevs_mo_method_parse(v, &method))
        return cli_bad_value(&p, "QSS1|QSS2|QSS3|LIQSS1|LIQSS2|LIQSS3|mLIQSS1|mLIQSS2|CVODE_BDF|CVODE_AM|LIQSS_BDF");
    } else if (cli_is(&p, "jacobian")) {
      if (strcmp(v, "exact") && strcmp(v, "secant")) return cli_bad_value(&p, "exact|secant");
      jac = strcmp(v, "exact") ? CDEVS_JAC_SECANT : CDEVS_JAC_EXACT;
    } else if (cli_is(&p, "tol")) {
      if (cli_parse_double(v, &tol) || !(tol >= 0)) return cli_bad_value(&p, "a value >= 0");
    } else if (cli_is(&p, "abstol")) {
      if (cli_parse_double(v, &abstol) || !(abstol > 0)) return cli_bad_value(&p, "a value > 0");
    } else if (cli_is(&p, "step")) {
      if (cli_parse_double(v, &step) || !(step > 0)) return cli_bad_value(&p, "a time > 0");
    } else if (cli_is(&p, "out")) {
      const char *dot = strrchr(v, '.');
      if (!dot || (strcmp(dot, ".csv") != 0 && strcmp(dot, ".mat") != 0 && !is_h5(v))) {
        fprintf(stderr, "cdevs run: --out %s: results are written as .csv, .mat (MAT v4) or .h5 (HDF5)\n", v);
        return CLI_USAGE;
      }
      if (is_h5(v) && h5_load(v)) return CLI_FAIL;
      out = v;
    } else if (cli_is(&p, "no-out")) {
      no_out = 1;
    } else if (cli_is(&p, "vars")) {
      vars = v;
    } else if (cli_is(&p, "plot")) {
      plot = v;
    } else if (cli_is(&p, "quiet")) {
      quiet = 1;
    } else if (cli_is(&p, "raw")) {
      raw = 1;
    } else if (cli_is(&p, "format")) {
      if (strcmp(v, "wide") && strcmp(v, "long") && strcmp(v, "auto")) return cli_bad_value(&p, "wide|long|auto");
      layout = !strcmp(v, "wide") ? CDEVS_RESULTS_WIDE : !strcmp(v, "long") ? CDEVS_RESULTS_LONG : -1;
    } else if (cli_is(&p, "seed") || cli_is(&p, "reps") || cli_is(&p, "jobs")) {
      char *end;
      errno = 0;
      unsigned long long x = v[0] >= '0' && v[0] <= '9' ? strtoull(v, &end, 10) : 0;
      int seed = cli_is(&p, "seed"), reps = cli_is(&p, "reps");
      unsigned long long lo = seed ? 0 : 1, hi = seed ? UINT64_MAX : reps ? 100000000ULL : 1024;
      if (!(v[0] >= '0' && v[0] <= '9') || *end || errno || x < lo || x > hi)
        return cli_bad_value(&p, seed ? "a whole number >= 0" : reps ? "a whole number from 1 to 10^8"
                                                                     : "a whole number from 1 to 1024");
      if (seed) po.seed = x;
      else if (reps) po.reps = x;
      else po.jobs = (unsigned)x;
      proc_flag = seed ? "seed" : reps ? "reps" : "jobs";
    } else if (cli_is(&p, "warmup")) {
      if (cli_parse_double(v, &po.warmup) || !(po.warmup >= 0) || isinf(po.warmup))
        return cli_bad_value(&p, "a time >= 0");
      proc_flag = "warmup";
    } else if (cli_is(&p, "report")) {
      const char *dot = strrchr(v, '.');
      if (!dot || (strcmp(dot, ".csv") && strcmp(dot, ".json"))) return cli_bad_value(&p, "a .csv or .json file");
      po.report = v;
      proc_flag = "report";
    } else if (cli_is(&p, "zeno")) {
      if (strcmp(v, "stop") && strcmp(v, "continue")) return cli_bad_value(&p, "stop|continue");
      zeno = strcmp(v, "stop") ? CDEVS_ZENO_CONTINUE : CDEVS_ZENO_STOP;
    } else if (cli_is(&p, "realtime")) {
      rtc.realtime = 1;
      if (v && (cli_parse_double(v, &rtc.speed) || !(rtc.speed > 0) || rtc.speed > 1e9))
        return cli_bad_value(&p, "a speed > 0 (--realtime=20: 20 simulated seconds per wall second)");
    } else if (cli_is(&p, "overrun")) {
      if (strcmp(v, "catchup") && strcmp(v, "skip") && strcmp(v, "abort")) return cli_bad_value(&p, "catchup|skip|abort");
      rtc.overrun = !strcmp(v, "catchup") ? CDEVS_RT_CATCHUP : !strcmp(v, "skip") ? CDEVS_RT_SKIP : CDEVS_RT_ABORT;
    } else if (cli_is(&p, "late-threshold")) {
      if (cli_parse_double(v, &rtc.late_threshold) || !(rtc.late_threshold >= 0))
        return cli_bad_value(&p, "a time >= 0 in wall seconds (0.001: a millisecond)");
    } else if (cli_is(&p, "record")) {
      rtc.record = v;
    } else if (cli_is(&p, "replay")) {
      rtc.replay = v;
    }
  }
  if (rc != CLI_END) return cli_parse_status(rc);
  char **pos;
  int npos = cli_positional(&p, &pos);
  if (npos != 1) {
    double num;
    if (npos > 1 && rtc.realtime && cli_parse_double(pos[0], &num) && !cli_parse_double(pos[1], &num))
      fprintf(stderr, "cdevs run: '%s' after --realtime: its speed goes after '=' (--realtime=%s)\n", pos[1], pos[1]);
    else if (npos > 1)
      fprintf(stderr, "cdevs run: more than one model file: '%s'\n", pos[1]);
    else
      fprintf(stderr, "usage: cdevs run [options] MODEL.mo|-   (cdevs run --help for the options)\n");
    return CLI_USAGE;
  }
  const char *path = pos[0];
  if ((rtc.overrun >= 0 || !isnan(rtc.late_threshold)) && !rtc.realtime) {
    fprintf(stderr, "cdevs run: --%s is for real-time runs (--realtime)\n", rtc.overrun >= 0 ? "overrun" : "late-threshold");
    return CLI_USAGE;
  }
  if (rtc.record && rtc.replay && !strcmp(rtc.record, rtc.replay)) {
    fprintf(stderr, "cdevs run: --record and --replay name the same file, %s\n", rtc.record);
    return CLI_USAGE;
  }
  if (no_out && (out || plot)) {
    fprintf(stderr, "cdevs run: --no-out leaves nothing for --out or --plot\n");
    return CLI_USAGE;
  }
  int csv_out = !out || !strcmp(strrchr(out, '.'), ".csv"); /* --out ends in .csv, .mat or .h5 */
  int h5_out = out && is_h5(out);
  if (plot && !csv_out) {
    fprintf(stderr, "cdevs run: --plot draws from a .csv result file, not %s\n", out);
    return CLI_USAGE;
  }
  if (layout == CDEVS_RESULTS_LONG && !csv_out && !h5_out) {
    fprintf(stderr, "cdevs run: --format long is a CSV layout; %s is MAT v4 (a column per variable)\n", out);
    return CLI_USAGE;
  }
  if (plot && cli_plot_available("run")) return CLI_FAIL;
  /* (Under mpirun rank 0 alone writes, and checks --out later: every rank must come
     to the model text it shares.) */
  int is_root = cli_ranks_rank() == 0, ranks = cli_ranks_size();
  if (out && ranks == 1 && (rc = check_out(out))) return rc;
  cdevs_mo *mo = NULL;
  cli_model m = {path, strcmp(path, "-") ? path : "<stdin>", NULL, 0, po.seed, 0.0, jac, zeno, NULL};
  char *def = NULL, *def_report = NULL;
  cdevs_proc *world = NULL;
  if ((rc = load_model(&m, &mo))) goto done;
  cdevs_mo_experiment e;
  cdevs_mo_experiment_get(mo, &e);
  if (!isnan(stop)) e.stop = stop;
  if (!isnan(tol)) e.tol = tol;
  if (!isnan(abstol)) e.abstol = abstol;
  if (method) e.method = method;
  rc = CLI_USAGE;
  if (!(e.stop > e.start)) {
    fprintf(stderr, "cdevs run: the stop time %g is not after the start time %g\n", e.stop, e.start);
    goto done;
  }
  m.stop = e.stop;
  model_settings(mo, &m);
  /* Process models: their elements, their replications, their report. Replications
   * write no variables; a process model with no continuous variables has its report
   * as its result. An equation model with parameters drawn from distributions runs
   * replications of its own (its outputs' values, mo_reps.c). */
  int is_proc = cdevs_mo_uses(mo, "proc");
  size_t ndrawn = cdevs_mo_random_count(mo);
  int mo_reps = !is_proc && ndrawn && (po.reps > 1 || po.jobs > 1 || po.report);
  int reps_mode = mo_reps || (is_proc && (po.reps > 1 || po.jobs > 1));
  /* --vars may name a process model's statistics instead of variables: their
   * trajectories (proc_run.c), resolved once the blocks made them. */
  const char *stat_vars = NULL, *trace_out = NULL;
  if (vars && is_proc && !reps_mode && cdevs_mo_select_outputs(mo, vars, NULL)) stat_vars = vars, vars = NULL;
  int report_only = reps_mode || (is_proc && cdevs_mo_output_count(mo) == 0 && !vars && !out && !stat_vars);
  if (!is_proc && proc_flag && (!ndrawn || !strcmp(proc_flag, "warmup"))) {
    int warmup = !strcmp(proc_flag, "warmup");
    fprintf(stderr, "cdevs run: --%s is for models with process blocks (cdevs.Create, cdevs.Process, ...)%s; %s has "
                    "%s\n", proc_flag, warmup ? "" : " or parameters drawn from distributions (parameter Real k = "
                    "Uniform(1, 2);)", path, warmup ? "none" : "neither");
    goto done;
  }
  if (reps_mode && out) {
    fprintf(stderr, "cdevs run: --out writes one run's variables; with --reps, --report has every replication's "
                    "statistics\n");
    goto done;
  }
  if (report_only && plot) {
    fprintf(stderr, "cdevs run: --plot draws one run's variables; %s %s (its results are the process report)\n",
            path, reps_mode ? "runs replications" : "has none");
    goto done;
  }
  if (is_proc && !(po.warmup < e.stop - e.start)) {
    fprintf(stderr, "cdevs run: --warmup %g leaves nothing of the run (%g to %g)\n", po.warmup, e.start, e.stop);
    goto done;
  }
  int use_rt = rtc.realtime || rtc.record || rtc.replay || cdevs_mo_uses(mo, "rt");
  if (use_rt && reps_mode) {
    fprintf(stderr, "cdevs run: %s runs one simulation; --reps runs replications\n",
            rtc.realtime ? "--realtime" : rtc.record ? "--record" : rtc.replay ? "--replay" : "a model with UDP ports");
    goto done;
  }
  if (vars && cdevs_mo_select_outputs(mo, vars, stderr)) goto done;
  m.vars = vars;
  rc = CLI_FAIL;
  if (ranks > 1 && !reps_mode) { /* one run: rank 0's */
    if (!is_root) {
      rc = CLI_OK;
      goto done;
    }
    if (out && (rc = check_out(out))) goto done;
    rc = CLI_FAIL;
  }
  if (use_rt && (rc = rt_open(&rtc, &m, &e))) goto done; /* before any result file is named */
  rc = CLI_FAIL;
  /* Without --out, results/<model>.csv, said on stderr: a run that writes nothing
   * and says nothing loses its results. Only rank 0 writes. */
  int ready = 1;
  if (is_root && !out && !no_out && !report_only) {
    ready = (out = def = default_path(path, ".csv", "--out")) != NULL;
    if (ready && !quiet) fprintf(stderr, "cdevs run: writing the results to %s (choose with --out)\n", out);
    if (ready && (rc = check_out(out))) ready = 0;
  }
  if (ready && is_root && (is_proc || mo_reps) && !po.report && !no_out)
    ready = (po.report = def_report = default_path(path, ".report.csv", "--report")) != NULL;
  if (reps_mode && ranks > 1 && !cli_ranks_go(ready)) ready = 0;
  if (!ready) goto done;
  po.quiet = quiet;
  if (reps_mode) {
    rc = is_proc ? cli_proc_reps(&m, mo, &e, &po) : cli_mo_reps(&m, mo, &e, &po);
    goto done;
  }
  if (is_proc) {
    if (!(world = cli_proc_world(&po, &e, 0))) goto done;
    cdevs_mo_set_context(mo, "proc", world);
  }
  if (rtc.rt) cdevs_mo_set_context(mo, "rt", rtc.rt); /* the UDP blocks open their sockets in cdevs_mo_add */
  cdevs_model *root = cdevs_root_new(NULL, "run");
  (void)cdevs_mo_add(root, "model", mo, e.method, e.tol, e.abstol);
  if (rtc.rt) (void)cdevs_rt_attach(rtc.rt, root); /* a failure stays in root, for cdevs_sim_new to report */
  cdevs_sim_opts so = cdevs_sim_opts_default();
  so.t0 = e.start;
  cdevs_sim *sim = NULL;
  cdevs_status st = cdevs_sim_new(root, &so, &sim);
  if (st) {
    fprintf(stderr, "cdevs run: %s\n", cdevs_model_errmsg(root)[0] ? cdevs_model_errmsg(root) : cdevs_strerror(st));
    cdevs_model_free(root);
    cdevs_proc_free(world);
    rc = CLI_FAIL;
    goto done;
  }
  /* From here a stop signal ends the run, not the process: the results are kept. */
  cli_catch_stop_signals(sim);
  running_rt = rtc.rt;
  cdevs_results *res = NULL;
  cli_proc_trace *trace = NULL;
  if (stat_vars) { /* the statistics' trajectories are the results */
    trace_out = out;
    out = NULL;
    if (!(trace = cli_proc_trace_open(world, sim, stat_vars, trace_out, e.start))) st = CDEVS_EINVAL;
  }
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
    if (!st && h5_out) {
      void *w = h5_new ? h5_new() : NULL;
      st = w ? cdevs_results_set_sink(res, h5_sink(), w) : CDEVS_ENOMEM;
      if (st) free(w);
    }
    /* Faithful by default: what the model's tolerance resolves, drawn as it is. */
    if (!st && step == 0.0 && !raw) st = cdevs_results_set_accuracy(res, e.tol, e.abstol);
    /* A wide table of many variables is mostly repeats (one changes at a time). */
    if (layout < 0) layout = step == 0.0 && no > 16 && (csv_out || h5_out);
    if (!st && layout == CDEVS_RESULTS_LONG) st = cdevs_results_set_layout(res, CDEVS_RESULTS_LONG);
    /* CSV text formatted on a second core while the model runs (the same bytes);
     * CDEVS_WRITER_THREAD=0 keeps it in this thread (to measure what it gains). */
    const char *wt = getenv("CDEVS_WRITER_THREAD");
    if (!st && usable_cpus() > 1 && !(wt && !strcmp(wt, "0"))) (void)cdevs_results_set_thread(res, 1);
    if (st)
      fprintf(stderr, "cdevs run: cannot write %s: %s\n", out,
              st == CDEVS_EIO ? strerror(errno) : cdevs_strerror(st));
    free(src), free(ports), free(names);
  }
  double t_end = e.start, t0 = cli_now();
  int ran = !st; /* a setup failure leaves a previous result file as it was */
  if (ran)
    st = rtc.rt ? cdevs_rt_run(rtc.rt, sim, e.stop, &t_end) : run_sliced(sim, mo, e.start, e.stop, !quiet && isatty(2), &t_end);
  double wall = cli_now() - t0;
  int sig = stop_signal;
  rc = sig ? CLI_INTERRUPTED : CLI_OK;
  if (!ran) {
    rc = CLI_FAIL;
  } else if (st) {
    const char *why = cdevs_sim_errmsg(sim)[0]                  ? cdevs_sim_errmsg(sim)
                      : rtc.rt && cdevs_rt_errmsg(rtc.rt)[0] ? cdevs_rt_errmsg(rtc.rt)
                                                              : cdevs_strerror(st);
    fprintf(stderr, "cdevs run: %s\n", why);
    rc = CLI_FAIL;
  }
  /* Results up to where the run got, also after an error or a stop signal. */
  double bad_t, bad_v;
  const char *bad_col;
  cdevs_results_finish(res, t_end);
  if (trace && cli_proc_trace_close(trace, sim, t_end)) rc = CLI_FAIL;
  if (cdevs_results_bad_value(res, &bad_t, &bad_v, &bad_col)) {
    fprintf(stderr, "cdevs run: '%s' is %g at t=%.17g in the results: the model's values left the range of "
                    "numbers (the results stop being valid there)\n", bad_col, bad_v, bad_t);
    rc = CLI_FAIL;
  }
  const char *tmp = cdevs_results_temp(res);
  char *kept = tmp ? strdup(tmp) : NULL;
  if (cdevs_results_close(res, t_end, ran)) {
    int err = errno;
    if (kept && access(kept, F_OK) == 0)
      fprintf(stderr, "cdevs run: cannot put the results in place as %s: %s; they are whole in %s\n", out,
              strerror(err), kept);
    else
      fprintf(stderr, "cdevs run: writing %s failed: %s\n", out, strerror(err));
    rc = CLI_FAIL;
  }
  free(kept);
  cdevs_mo_stats ms;
  cdevs_mo_stats_sim(mo, sim, &ms);
  char stopped[256] = "";
  if (sig) snprintf(stopped, sizeof stopped, " interrupted at t=%.17g (%s)", t_end, cli_signal_name(sig));
  if (ms.paired) {
    size_t n = strlen(stopped);
    snprintf(stopped + n, sizeof stopped - n, " paired=%llu", (unsigned long long)ms.paired);
  }
  if (ms.syncs) {
    size_t n = strlen(stopped);
    snprintf(stopped + n, sizeof stopped - n, " bdf_steps=%llu syncs=%llu", (unsigned long long)ms.bdf_steps,
             (unsigned long long)ms.syncs);
  }
  if (ms.zeno) {
    size_t n = strlen(stopped);
    snprintf(stopped + n, sizeof stopped - n, " zeno=%llu (events accumulating at t=%.10g, %s)",
             (unsigned long long)ms.zeno, ms.zeno_t, zeno == CDEVS_ZENO_CONTINUE ? "run through" : "stopped there");
  }
  if (ndrawn) { /* the values of replication 1 of --reps: substream 0 of each parameter's stream */
    size_t n = strlen(stopped);
    snprintf(stopped + n, sizeof stopped - n, " drawn_parameters=%zu seed=%" PRIu64 " substream=0", ndrawn, po.seed);
    fprintf(stderr, "parameters drawn on substream 0 of seed %" PRIu64 " (replication 1 of --reps):", po.seed);
    for (size_t i = 0; i < ndrawn && i < 8; i++)
      fprintf(stderr, "%s %s = %.10g ~ %s", i ? "," : "", cdevs_mo_random_name(mo, i), cdevs_mo_random_value(mo, i),
              cdevs_mo_random_law(mo, i));
    fprintf(stderr, "%s\n", ndrawn > 8 ? ", ..." : "");
  }
  if (world) {
    cdevs_stats ks;
    cdevs_sim_stats(sim, &ks);
    unsigned long long tr = (unsigned long long)(ks.internals + ks.externals + ks.confluents);
    fprintf(stderr, "summary: process model: entities in system %llu, transitions=%llu wall_s=%.6f "
                    "transitions_per_s=%.0f%s\n",
            (unsigned long long)cdevs_proc_wip(world), tr, wall, wall > 0 ? (double)tr / wall : 0.0, stopped);
  }
  if (ms.switches) { /* a model switching its class: how often, and where it ended */
    size_t n = strlen(stopped);
    snprintf(stopped + n, sizeof stopped - n, " class_switches=%llu", (unsigned long long)ms.switches);
  }
  if (!world || cdevs_mo_state_count(mo))
  fprintf(stderr,
          "summary: method=%s states=%zu transitions=%llu zero_crossings=%llu wall_s=%.6f events_per_s=%.0f "
          "refreshes=%llu%s\n",
          cdevs_qss_method_name(e.method), cdevs_mo_state_count(mo), (unsigned long long)ms.steps,
          (unsigned long long)ms.crossings, wall, wall > 0 ? (double)(ms.steps + ms.crossings) / wall : 0.0,
          (unsigned long long)ms.refreshes, stopped);
  if (rtc.rt) rt_summary(&rtc);
  int passive = ran && !st && !sig && isinf(cdevs_sim_next_time(sim));
  cdevs_sim_free(sim);
  cdevs_model_free(root);
  if (rtc.rt) {
    cdevs_mo_set_context(mo, "rt", NULL);
    if (rt_close(&rtc, ran)) rc = CLI_FAIL;
  }
  if (world) { /* the statistics up to where the run got, also after an error or a stop signal */
    int prc = cli_proc_finish(world, &e, &po, t_end, passive);
    if (prc && rc == CLI_OK) rc = prc;
    cdevs_mo_set_context(mo, "proc", NULL);
    cdevs_proc_free(world);
  }
  if (rc == CLI_OK && plot && trace_out) {
    size_t n = 1;
    for (const char *c = stat_vars; *c; c++) n += *c == ',';
    if (plot_results(trace_out, plot, strcmp(path, "-") ? path : "<stdin>", n)) {
      fprintf(stderr, "cdevs run: gnuplot failed to draw %s\n", plot);
      rc = CLI_FAIL;
    }
  } else if (rc == CLI_OK && plot) {
    const char *title = strcmp(path, "-") ? path : "<stdin>";
    size_t nout = cdevs_mo_output_count(mo);
    int drawn = layout == CDEVS_RESULTS_LONG ? plot_long(out, plot, title, mo)
                                             : plot_results(out, plot, title, nout) ? -1 : (int)nout;
    if (drawn < 0) {
      fprintf(stderr, "cdevs run: gnuplot failed to draw %s\n", plot);
      rc = CLI_FAIL;
    } else if (drawn == 0) {
      fprintf(stderr, "cdevs run: wrote %s, but no plot: gnuplot cannot pick out of a long file variables whose "
                      "names hold a comma ('%s'); --format wide draws them\n", out, cdevs_mo_output_name(mo, 0));
      rc = CLI_FAIL;
    } else if (!quiet) {
      fprintf(stderr, "wrote %s and %s", out, plot);
      if ((size_t)drawn < nout)
        fprintf(stderr, " (%d of %zu variables, the first whose names hold no comma; --vars chooses)", drawn, nout);
      fputc('\n', stderr);
    }
  } else if (rc != CLI_FAIL && out && !quiet) {
    fprintf(stderr, "wrote %s%s\n", out,
            layout != CDEVS_RESULTS_LONG ? "" : step > 0.0 ? " (time,variable,value at every step)"
                                                           : " (time,variable,value at each change)");
  }
done:
  if (rtc.rt || rtc.rec_f || rtc.rep_f) (void)rt_close(&rtc, 0);
  cdevs_mo_free(mo);
  free((char *)m.text);
  free(def), free(def_report);
  return rc;
}

/* ---- check ------------------------------------------------------------------------- */

static const cli_opt check_opts[] = {{NULL, NULL, NULL}};

const cli_cmd cli_check_cmd = {
    "check", "MODEL.mo|-",
    "Parses, checks and compiles a model file (\"-\": standard input) without running it;\n"
    "errors as file:line:col with the line and a caret.",
    check_opts};

int cli_check(int argc, char **argv) {
  cli_parser p;
  cli_parse_begin(&p, &cli_check_cmd, argc, argv);
  int rc = cli_parse_next(&p);
  if (rc != CLI_END) return cli_parse_status(rc);
  char **pos;
  if (cli_positional(&p, &pos) != 1) {
    fprintf(stderr, "usage: cdevs check MODEL.mo|-\n");
    return CLI_USAGE;
  }
  /* Everything `run` would reject short of simulating: parse, check, and compile
   * (which runs the initial algorithm and sorts the algebraic equations). */
  cdevs_mo *mo = NULL;
  cli_model m = {pos[0], strcmp(pos[0], "-") ? pos[0] : "<stdin>", NULL, 0, 0, 0.0, CDEVS_JAC_EXACT, CDEVS_ZENO_STOP, NULL};
  cdevs_lang_register_random(&cdevs_proc_random); /* their parameters are checked by a draw */
  rc = load_model(&m, &mo);
  free((char *)m.text);
  if (rc) return rc;
  size_t ns = cdevs_mo_state_count(mo), nd = cdevs_mo_random_count(mo);
  printf("%s: ok (%zu state%s", m.name, ns, ns == 1 ? "" : "s");
  if (nd) printf(", %zu parameter%s drawn from distributions", nd, nd == 1 ? "" : "s");
  printf(")\n");
  cdevs_mo_free(mo);
  return CLI_OK;
}
