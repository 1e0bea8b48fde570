/* SPDX-License-Identifier: MIT */
/* Plots through gnuplot, started without a shell and given file names and titles as
 * values (ARG1, ARG2, …), never spliced into its script. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* Whether an executable gnuplot is on PATH (what execvp would find). */
static int gnuplot_on_path(void) {
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/bin:/bin";
  while (*path) {
    const char *end = strchr(path, ':');
    size_t n = end ? (size_t)(end - path) : strlen(path);
    char buf[4096];
    if (n + sizeof "/gnuplot" < sizeof buf) {
      memcpy(buf, n ? path : ".", n ? n : 1);
      strcpy(buf + (n ? n : 1), "/gnuplot");
      struct stat st;
      if (stat(buf, &st) == 0 && S_ISREG(st.st_mode) && access(buf, X_OK) == 0) return 1;
    }
    path += n + (end ? 1 : 0);
  }
  return 0;
}

int cli_plot_available(const char *cmd) {
  if (gnuplot_on_path()) return 0;
  fprintf(stderr, "cdevs %s: gnuplot is not installed (Debian: apt-get install gnuplot-nox); "
                  "run without --plot or install it\n", cmd);
  return -1;
}

const char *cli_plot_terminal(const char *out) {
  const char *dot = strrchr(out, '.');
  return dot && strcmp(dot, ".png") == 0 ? "pngcairo" : "svg";
}

int cli_plot_run(const char *script, const char *const *args, int nargs) {
  enum { MAX_ARGS = 9 }; /* gnuplot's ARG1 … ARG9 */
  if (nargs > MAX_ARGS) return -1;
  char *argv[MAX_ARGS + 5];
  int k = 0;
  argv[k++] = (char *)"gnuplot";
  argv[k++] = (char *)"-c";
  argv[k++] = (char *)"/dev/stdin";
  for (int i = 0; i < nargs; i++) argv[k++] = (char *)args[i];
  argv[k] = NULL;
  int fds[2];
  if (pipe(fds)) return -1;
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]), close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    /* gnuplot's messages go to our stderr; our stdout keeps its one line of figures. */
    if (dup2(fds[0], 0) < 0 || dup2(2, 1) < 0) _exit(127);
    close(fds[0]), close(fds[1]);
    execvp("gnuplot", argv);
    _exit(127);
  }
  close(fds[0]);
  /* If gnuplot dies before reading everything, the write fails instead of killing us. */
  struct sigaction ign = {0}, old;
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &old);
  size_t n = strlen(script), off = 0;
  int bad = 0;
  while (off < n) {
    ssize_t w = write(fds[1], script + off, n - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      bad = 1;
      break;
    }
    off += (size_t)w;
  }
  close(fds[1]);
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) {
      status = -1;
      break;
    }
  sigaction(SIGPIPE, &old, NULL);
  return !bad && status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}
