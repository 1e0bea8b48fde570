/* SPDX-License-Identifier: MIT */
/* The executive's clock and waits on POSIX/Linux: CLOCK_MONOTONIC, ppoll with an
 * exact timeout, the thread's timer slack, and an eventfd that wakes a wait. */
#define _GNU_SOURCE /* ppoll */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/eventfd.h>
#include <sys/prctl.h>
#endif

#include "core/alloc_impl.h"
#include "rt/rt_impl.h"

int64_t cdevs__os_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Linux wakes a sleeping thread up to its timer slack (50 µs by default) late, to group
 * wake-ups; a real-time run wants its deadlines, so it asks for 1 ns. */
int64_t cdevs__os_timerslack(int64_t ns) {
#ifdef __linux__
  int old = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  if (old < 0 || prctl(PR_SET_TIMERSLACK, (unsigned long)ns, 0, 0, 0) < 0) return -1;
  return old;
#else
  (void)ns;
  return -1;
#endif
}

int cdevs__os_wake_open(void) {
#ifdef __linux__
  return eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
#else
  return -1;
#endif
}

void cdevs__os_wake(int fd) {
  uint64_t one = 1;
  if (fd >= 0) {
    ssize_t w = write(fd, &one, sizeof one);
    (void)w; /* a full counter already wakes the wait */
  }
}

void cdevs__os_wake_clear(int fd) {
  uint64_t v;
  if (fd >= 0) {
    ssize_t r = read(fd, &v, sizeof v);
    (void)r;
  }
}

void cdevs__os_close(int fd) {
  if (fd >= 0) close(fd);
}

struct cdevs__pollset {
  uint32_t n;
  struct pollfd fds[];
};

cdevs__pollset *cdevs__pollset_new(const cdevs_alloc *a, const int *fds, uint32_t n) {
  cdevs__pollset *p = cdevs__calloc(a, 1, sizeof *p + (size_t)n * sizeof p->fds[0]);
  if (!p) return NULL;
  p->n = n;
  for (uint32_t i = 0; i < n; i++) p->fds[i] = (struct pollfd){.fd = fds[i], .events = POLLIN};
  return p;
}

void cdevs__pollset_free(const cdevs_alloc *a, cdevs__pollset *p) {
  if (p) cdevs__free(a, p, sizeof *p + (size_t)p->n * sizeof p->fds[0]);
}

int cdevs__pollset_wait(cdevs__pollset *p, int64_t timeout_ns, unsigned char *ready) {
  struct timespec ts, *tp = NULL;
  if (timeout_ns >= 0) {
    ts.tv_sec = (time_t)(timeout_ns / 1000000000);
    ts.tv_nsec = (long)(timeout_ns % 1000000000);
    tp = &ts;
  }
  int r = ppoll(p->fds, p->n, tp, NULL);
  if (r <= 0) { /* a timeout, or a signal (EINTR): the caller looks at its clock and flags */
    for (uint32_t i = 0; i < p->n; i++) ready[i] = 0;
    return 0;
  }
  for (uint32_t i = 0; i < p->n; i++) ready[i] = (p->fds[i].revents & (POLLIN | POLLERR | POLLHUP)) != 0;
  return r;
}
