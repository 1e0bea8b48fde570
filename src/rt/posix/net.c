/* SPDX-License-Identifier: MIT */
/* UDP sockets on POSIX/Linux: names resolved with getaddrinfo (IPv4 and IPv6),
 * non-blocking sockets, and the kernel's count of the datagrams it dropped for want of
 * buffer (SO_MEMINFO), so that none goes uncounted. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include "rt/rt_impl.h"

/* The first address of host:port for a datagram socket, or -1 with the reason. */
static int resolve(const char *host, int port, int passive, struct sockaddr_storage *sa, socklen_t *len, char *msg,
                   size_t size) {
  char serv[16];
  snprintf(serv, sizeof serv, "%d", port);
  struct addrinfo hints = {0}, *res = NULL;
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0);
  int rc = getaddrinfo(host, serv, &hints, &res);
  if (rc) {
    snprintf(msg, size, "cannot resolve '%s': %s", host, rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
    return -1;
  }
  if (!res || res->ai_addrlen > sizeof *sa) {
    snprintf(msg, size, "cannot resolve '%s': no usable address", host);
    if (res) freeaddrinfo(res);
    return -1;
  }
  memcpy(sa, res->ai_addr, res->ai_addrlen);
  *len = res->ai_addrlen;
  freeaddrinfo(res);
  return 0;
}

int cdevs__net_open_receive(const char *host, int port, char *msg, size_t size) {
  struct sockaddr_storage sa;
  socklen_t len;
  if (resolve(host, port, 1, &sa, &len, msg, size)) return -1;
  int fd = socket(sa.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    snprintf(msg, size, "cannot open a UDP socket for %s: %s", host, strerror(errno));
    return -1;
  }
  int off = 0, buf = 4 << 20;
  /* "::" takes IPv4 too. No SO_REUSEADDR: a port another socket holds is an error. */
  if (sa.ss_family == AF_INET6) (void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
  /* A burst waits in the kernel rather than being lost (capped by net.core.rmem_max). */
  (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
  if (bind(fd, (struct sockaddr *)&sa, len) < 0) {
    snprintf(msg, size, "cannot bind UDP port %d on %s: %s", port, host, strerror(errno));
    close(fd);
    return -1;
  }
  return fd;
}

int cdevs__net_open_send(const char *host, int port, unsigned char addr[128], uint32_t *addrlen, char *msg,
                         size_t size) {
  struct sockaddr_storage sa;
  socklen_t len;
  if (resolve(host, port, 0, &sa, &len, msg, size)) return -1;
  int fd = socket(sa.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    snprintf(msg, size, "cannot open a UDP socket for %s: %s", host, strerror(errno));
    return -1;
  }
  memcpy(addr, &sa, len);
  *addrlen = (uint32_t)len;
  return fd;
}

/* A sender as a fixed-size key: family, port, address. */
static void key_of(const struct sockaddr_storage *sa, unsigned char key[CDEVS__SEQ_KEY]) {
  memset(key, 0, CDEVS__SEQ_KEY);
  key[0] = (unsigned char)sa->ss_family;
  if (sa->ss_family == AF_INET) {
    const struct sockaddr_in *a = (const struct sockaddr_in *)sa;
    memcpy(key + 1, &a->sin_port, 2);
    memcpy(key + 3, &a->sin_addr, 4);
  } else if (sa->ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)sa;
    memcpy(key + 1, &a->sin6_port, 2);
    memcpy(key + 3, &a->sin6_addr, 16);
  }
}

long cdevs__net_recv(int fd, void *buf, size_t cap, unsigned char key[CDEVS__SEQ_KEY]) {
  struct sockaddr_storage from;
  for (;;) {
    socklen_t flen = sizeof from;
    memset(&from, 0, sizeof from);
    /* MSG_TRUNC: the datagram's full length, even when it was cut to cap. */
    ssize_t r = recvfrom(fd, buf, cap, MSG_TRUNC | MSG_DONTWAIT, (struct sockaddr *)&from, &flen);
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1; /* EAGAIN: none left; anything else: nothing to read either */
    }
    key_of(&from, key);
    return (long)r;
  }
}

uint64_t cdevs__net_drops(int fd) {
#if defined(SO_MEMINFO) && defined(__linux__)
  uint32_t mi[16] = {0}; /* SK_MEMINFO_VARS is 9 today */
  socklen_t len = sizeof mi;
  if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &len) == 0 && len >= 9 * sizeof mi[0]) return mi[8]; /* SK_MEMINFO_DROPS */
#else
  (void)fd;
#endif
  return 0;
}

int cdevs__net_send(int fd, const unsigned char *addr, uint32_t addrlen, const void *buf, size_t len) {
  for (;;) {
    ssize_t w = sendto(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL, (const struct sockaddr *)addr, addrlen);
    if (w >= 0) return 0;
    if (errno != EINTR) return errno;
  }
}

int cdevs__net_local_port(int fd) {
  struct sockaddr_storage sa;
  socklen_t len = sizeof sa;
  if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0) return -1;
  if (sa.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&sa)->sin_port);
  if (sa.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&sa)->sin6_port);
  return -1;
}
