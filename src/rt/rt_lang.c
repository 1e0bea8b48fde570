/* SPDX-License-Identifier: MIT */
/* The UDP blocks in model files: cdevs.UDPSend and cdevs.UDPReceive described for the
 * language (cdevs_lang_register), with the run's executive as their context ("rt"):
 * a block's socket is opened when the model is added, so that an address that does not
 * resolve or a port in use is an error at the block's declaration. */
#include <stddef.h>
#include <stdio.h>

#include "cdevs/lang.h"
#include "rt/rt_impl.h"

#define PR(type, field, kind_, help_) {.name = #field, .offset = offsetof(type, field), .kind = kind_, .help = help_}
#define END {NULL, 0, 0, NULL, NULL, NULL}

static const cdevs_lang_param send_p[] = {
    PR(cdevs_udp_send_params, host, CDEVS_LP_NAME, "the destination: an IPv4 or IPv6 address or a name (\"127.0.0.1\")"),
    PR(cdevs_udp_send_params, port, CDEVS_LP_INT, "the destination port, 1 to 65535"),
    PR(cdevs_udp_send_params, n, CDEVS_LP_INT, "values per datagram (u1..un; up to 8, more through v), 1"),
    PR(cdevs_udp_send_params, raw, CDEVS_LP_INT, "1: bare little-endian doubles (UDPLib's datagrams), 0: the cdevs "
                                                 "format with a header (default)"),
    END};

static const cdevs_lang_param receive_p[] = {
    PR(cdevs_udp_receive_params, host, CDEVS_LP_NAME, "the local address to listen on (\"127.0.0.1\"; \"0.0.0.0\" or "
                                                      "\"::\" for every interface)"),
    PR(cdevs_udp_receive_params, port, CDEVS_LP_INT, "the port, 1 to 65535"),
    PR(cdevs_udp_receive_params, n, CDEVS_LP_INT, "values per datagram (y1..yn), 1"),
    PR(cdevs_udp_receive_params, raw, CDEVS_LP_INT, "1: bare little-endian doubles, no sequence numbers"),
    PR(cdevs_udp_receive_params, period, CDEVS_LP_REAL, "0: an event as each datagram arrives (default); > 0: at "
                                                        "multiples of it, the last datagram (UDPLib's polling)"),
    END};

static void send_defaults(void *arg) {
  cdevs_udp_send_params *p = arg;
  p->host = "127.0.0.1";
  p->n = 1;
}

static void receive_defaults(void *arg) {
  cdevs_udp_receive_params *p = arg;
  p->host = "127.0.0.1";
  p->n = 1;
}

static int check_common(const char *what, const char *host, int port, int n, int raw, char *msg, size_t size) {
  if (port == 0) { /* not given: there is no good default */
    snprintf(msg, size, "a %s needs a port (port = 1 to 65535)", what);
    return -1;
  }
  if (!host || !*host) {
    snprintf(msg, size, "host is empty: an address (\"127.0.0.1\", \"::1\") or a name");
    return -1;
  }
  if (port < 1 || port > 65535) {
    snprintf(msg, size, "port = %d is not 1 to 65535", port);
    return -1;
  }
  if (n < 1 || n > CDEVS_UDP_MAX_VALUES) {
    snprintf(msg, size, "n = %d values per datagram: 1 to %d", n, CDEVS_UDP_MAX_VALUES);
    return -1;
  }
  if (raw != 0 && raw != 1) {
    snprintf(msg, size, "raw is 0 or 1 (is %d)", raw);
    return -1;
  }
  return 0;
}

static int send_check(void *arg, char *msg, size_t size) {
  const cdevs_udp_send_params *p = arg;
  return check_common("UDPSend", p->host, p->port, p->n, p->raw, msg, size);
}

static int receive_check(void *arg, char *msg, size_t size) {
  const cdevs_udp_receive_params *p = arg;
  if (check_common("UDPReceive", p->host, p->port, p->n, p->raw, msg, size)) return -1;
  if (!(p->period >= 0) || p->period > 1e300) {
    snprintf(msg, size, "period = %g is not a time >= 0", p->period);
    return -1;
  }
  return 0;
}

static int send_declare(void *ctx, const char *name, void *arg, char *msg, size_t size) {
  cdevs_udp_send_params *p = arg;
  p->slot = cdevs__rt_endpoint_open(ctx, CDEVS__EP_SEND, name, p->host, p->port, p->n, p->raw, msg, size);
  return p->slot ? 0 : -1;
}

static int receive_declare(void *ctx, const char *name, void *arg, char *msg, size_t size) {
  cdevs_udp_receive_params *p = arg;
  p->slot = cdevs__rt_endpoint_open(ctx, CDEVS__EP_RECEIVE, name, p->host, p->port, p->n, p->raw, msg, size);
  return p->slot ? 0 : -1;
}

static const cdevs_lang_block blocks[] = {
    {.name = "UDPSend", .ops = &cdevs_udp_send_ops, .arg_size = sizeof(cdevs_udp_send_params), .params = send_p,
     .defaults = send_defaults, .check = send_check, .context_offset = offsetof(cdevs_udp_send_params, rt),
     .declare = send_declare,
     .help = "sends u1..un as a UDP datagram when c changes (UDPLib's outputUDPport), or an array received on v"},
    {.name = "UDPReceive", .ops = &cdevs_udp_receive_ops, .arg_size = sizeof(cdevs_udp_receive_params),
     .params = receive_p, .defaults = receive_defaults, .check = receive_check,
     .context_offset = offsetof(cdevs_udp_receive_params, rt), .declare = receive_declare,
     .help = "an event per UDP datagram: y1..yn its values, c toggles, count counts (UDPLib's inputUDPport)"},
};

const cdevs_lang_library cdevs_rt_library = {"rt", blocks, sizeof blocks / sizeof blocks[0]};
