/* SPDX-License-Identifier: MIT */
/* A set of replications spread over worker processes (--jobs) and MPI ranks: each
 * writes its replications' records as text, read back here as they come and, under
 * mpirun, gathered at rank 0. The records say which replication they are, so the
 * caller merges them in replication order, whoever ran them: the same report for any
 * number of workers and ranks. */
#define _GNU_SOURCE /* open_memstream */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "ranks.h"
#include "reps.h"

/* Replications first, first + stride, … below k, run by fn into out: 0, 1 (a stop
 * signal), or -1 (a replication failed, or out could not be written). */
static int run_share(cli_rep_fn *fn, void *ud, uint64_t first, uint64_t stride, uint64_t k, FILE *out) {
  int rc = 0;
  for (uint64_t r = first; r < k && !rc; r += stride) {
    rc = fn(ud, r, out);
    if (fflush(out)) rc = -1;
  }
  return rc;
}

static int status_of(int rc) { return rc < 0 ? CLI_FAIL : rc > 0 ? CLI_INTERRUPTED : CLI_OK; }

/* Workers 0..jobs-1, worker j running replications first + j·stride, first + (j +
 * jobs)·stride, …: their records into text[j], len[j]. The exit status. */
static int run_workers(cli_rep_fn *fn, void *ud, uint64_t first, uint64_t stride, uint64_t k, unsigned jobs,
                       char **text, size_t *len) {
  /* Workers share nothing but the loaded model (copied at fork); each writes its
   * replications' records to a pipe, read here as they come (a full pipe would stop
   * a worker). */
  int rc = CLI_OK;
  pid_t *pid = calloc(jobs, sizeof *pid);
  struct pollfd *pf = calloc(jobs, sizeof *pf);
  size_t *cap = calloc(jobs, sizeof *cap);
  for (unsigned j = 0; pf && j < jobs; j++) pf[j].fd = -1; /* no pipe (poll skips it); 0 may be a pipe */
  fflush(NULL);
  cli_catch_stop_signals(NULL); /* a stop signal to this process is passed on to the workers */
  int forwarded = 0;
  for (unsigned j = 0; pid && pf && cap && j < jobs; j++) {
    int fds[2];
    if (pipe(fds)) {
      fprintf(stderr, "cdevs run: cannot start worker %u: %s\n", j + 1, strerror(errno));
      rc = CLI_FAIL;
      break;
    }
    pid[j] = fork();
    if (pid[j] == 0) {
      close(fds[0]);
      for (unsigned i = 0; i < j; i++)
        if (pf[i].fd >= 0) close(pf[i].fd);
      FILE *out = fdopen(fds[1], "w");
      int wrc = out ? run_share(fn, ud, first + j * stride, (uint64_t)jobs * stride, k, out) : -1;
      if (out && fclose(out)) wrc = -1;
      _exit(status_of(wrc)); /* (no atexit handlers: they are the parent's, an MPI library's too) */
    }
    close(fds[1]);
    if (pid[j] < 0) {
      fprintf(stderr, "cdevs run: cannot start worker %u: %s\n", j + 1, strerror(errno));
      close(fds[0]);
      rc = CLI_FAIL;
      break;
    }
    pf[j].fd = fds[0], pf[j].events = POLLIN;
  }
  if (!pid || !pf || !cap) {
    fprintf(stderr, "cdevs run: out of memory for %u workers\n", jobs);
    rc = CLI_FAIL;
  }
  for (int open_ = 1; pf && open_;) {
    open_ = 0;
    for (unsigned j = 0; j < jobs; j++) open_ |= pf[j].fd >= 0;
    if (!open_) break;
    int np = poll(pf, jobs, 200);
    if (cli_stop_signal() && !forwarded) { /* each worker ends its replication and stops */
      for (unsigned j = 0; j < jobs; j++)
        if (pid[j] > 0) kill(pid[j], cli_stop_signal());
      forwarded = 1;
    }
    if (np < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (unsigned j = 0; j < jobs; j++) {
      if (pf[j].fd < 0 || !(pf[j].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (cap[j] - len[j] < 65536) {
        char *nt = realloc(text[j], cap[j] * 2 + 65536);
        if (!nt) {
          rc = CLI_FAIL;
          close(pf[j].fd), pf[j].fd = -1;
          continue;
        }
        text[j] = nt, cap[j] = cap[j] * 2 + 65536;
      }
      ssize_t got = read(pf[j].fd, text[j] + len[j], cap[j] - len[j] - 1);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        close(pf[j].fd), pf[j].fd = -1;
        continue;
      }
      len[j] += (size_t)got;
    }
  }
  for (unsigned j = 0; pid && j < jobs; j++) {
    int status = 0;
    if (pid[j] <= 0) continue;
    while (waitpid(pid[j], &status, 0) < 0 && errno == EINTR) continue;
    int ex = WIFEXITED(status) ? WEXITSTATUS(status) : CLI_FAIL;
    if (WIFSIGNALED(status)) fprintf(stderr, "cdevs run: worker %u ended by signal %d\n", j + 1, WTERMSIG(status));
    if (ex == CLI_FAIL) rc = CLI_FAIL;
    else if (ex == CLI_INTERRUPTED && rc == CLI_OK) rc = CLI_INTERRUPTED;
  }
  free(pid), free(pf), free(cap);
  return rc;
}

int cli_reps_run(uint64_t k, unsigned jobs, cli_rep_fn *fn, void *ud, char **text, unsigned *workers) {
  /* This rank's replications: rank, rank + N, … (one rank: all). */
  uint64_t rank = (uint64_t)cli_ranks_rank(), n = (uint64_t)cli_ranks_size();
  uint64_t mine = k > rank ? (k - rank + n - 1) / n : 0;
  unsigned J = jobs > mine ? (unsigned)mine : jobs;
  char **texts = calloc(J ? J : 1, sizeof *texts);
  size_t *lens = calloc(J ? J : 1, sizeof *lens);
  int rc = CLI_OK;
  *text = NULL;
  *workers = J;
  cli_ranks_mute(0); /* from here each rank says what fails in its replications */
  if (!texts || !lens) {
    fprintf(stderr, "cdevs run: out of memory for %" PRIu64 " replications\n", k);
    rc = CLI_FAIL;
  } else if (J == 1) {
    FILE *m = open_memstream(&texts[0], &lens[0]);
    int r1 = m ? run_share(fn, ud, rank, n, k, m) : -1;
    if (!m || fclose(m)) r1 = -1;
    rc = status_of(r1);
  } else if (J > 1) {
    rc = run_workers(fn, ud, rank, n, k, J, texts, lens);
  }
  /* One text of this process's records. */
  size_t total = 0;
  for (unsigned j = 0; texts && lens && j < J; j++) total += texts[j] ? lens[j] : 0;
  char *all = texts && lens ? malloc(total + 1) : NULL;
  if (all) {
    size_t at = 0;
    for (unsigned j = 0; j < J; j++)
      if (texts[j]) memcpy(all + at, texts[j], lens[j]), at += lens[j];
    all[at] = 0;
  } else if (texts && lens) {
    fprintf(stderr, "cdevs run: out of memory for the replications' records\n");
    rc = CLI_FAIL;
  }
  for (unsigned j = 0; texts && j < J; j++) free(texts[j]);
  free(texts), free(lens);
  if (cli_ranks_size() > 1 && cli_ranks_gather(&all, &total, &rc)) rc = CLI_FAIL;
  *text = all;
  return rc;
}

void cli_reps_summary(const char *path, size_t done, unsigned jobs, double wall) {
  char ranks[32] = "";
  if (cli_ranks_size() > 1) snprintf(ranks, sizeof ranks, " ranks=%d", cli_ranks_size());
  fprintf(stderr, "summary: model=%s replications=%zu jobs=%u%s wall_s=%.6f replications_per_s=%.3g\n", path, done, jobs,
          ranks, wall, wall > 0 ? (double)done / wall : 0.0);
}

/* ---- The report files' text (the process models' and the equation models') -------- */

void cli_csv_text(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

void cli_csv_num(FILE *f, double x) {
  if (isfinite(x)) fprintf(f, "%.17g", x);
}

void cli_json_text(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
    else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
    else fputc(ch, f);
  }
  fputc('"', f);
}

void cli_json_num(FILE *f, double x) {
  if (isfinite(x)) fprintf(f, "%.17g", x);
  else fputs("null", f);
}

cli_across cli_across_values(const double *x, size_t n) {
  cli_across a = {NAN, NAN, INFINITY, -INFINITY};
  for (size_t k = 0; k < n; k++) {
    if (x[k] < a.min) a.min = x[k];
    if (x[k] > a.max) a.max = x[k];
  }
  a.mean = cdevs_stats_mean_hw(x, n, &a.hw);
  return a;
}

cli_across cli_across_reps(const double *x, size_t stride, const uint64_t *done, size_t nd, double *buf) {
  for (size_t k = 0; k < nd; k++) buf[k] = x[done[k] * stride];
  return cli_across_values(buf, nd);
}

void cli_json_across(FILE *f, cli_across a) {
  fprintf(f, "\"mean\": ");
  cli_json_num(f, a.mean);
  fprintf(f, ", \"half_width\": ");
  cli_json_num(f, a.hw);
  fprintf(f, ", \"min\": ");
  cli_json_num(f, a.min);
  fprintf(f, ", \"max\": ");
  cli_json_num(f, a.max);
}
