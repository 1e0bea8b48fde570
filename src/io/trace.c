/* SPDX-License-Identifier: MIT */
/* CSV event traces through the simulator's observer hooks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cdevs/results.h"
#include "cdevs/trace.h"

struct cdevs_trace {
  cdevs_sim *sim;
  cdevs_results_file *file; /* a unique temporary name, renamed at close (results.h) */
  FILE *f;
  cdevs_observer obs;
  int failed;
};

int cdevs_value_format(const cdevs_value *v, char *buf, size_t size) {
  switch (v->kind) {
  case CDEVS_REAL:
    return snprintf(buf, size, "%.17g", v->u.real);
  case CDEVS_INT:
    return snprintf(buf, size, "%lld", (long long)v->u.integer);
  case CDEVS_TAYLOR: {
    int n = snprintf(buf, size, "taylor(");
    for (int i = 0; i <= v->order && n >= 0 && (size_t)n < size; i++)
      n += snprintf(buf + n, size - (size_t)n, "%s%.17g", i ? ";" : "", v->u.taylor[i]);
    if (n >= 0 && (size_t)n < size) n += snprintf(buf + n, size - (size_t)n, ")");
    return n;
  }
  case CDEVS_ARRAY: {
    size_t n = 0;
    cdevs_array_data(v->u.msg, &n);
    return snprintf(buf, size, "array[%zu]", n);
  }
  case CDEVS_MSG: {
    const cdevs_msg_type *t = cdevs_msg_type_of(v->u.msg);
    return snprintf(buf, size, "msg:%s", t && t->name ? t->name : "?");
  }
  default:
    return snprintf(buf, size, "?");
  }
}

static void put_model(cdevs_trace *tr, uint32_t id) {
  char path[512];
  cdevs_model_path(cdevs_sim_atomic(tr->sim, id), path, sizeof path);
  fputs(path, tr->f);
}

static void on_output(void *ud, double t, uint32_t atomic, int port, const cdevs_value *v) {
  cdevs_trace *tr = ud;
  char val[256];
  cdevs_value_format(v, val, sizeof val);
  fprintf(tr->f, "%.17g,output,", t);
  put_model(tr, atomic);
  const char *pn = cdevs_port_name(cdevs_sim_atomic(tr->sim, atomic), CDEVS_OUT, port);
  if (fprintf(tr->f, ",%s,%s,,\n", pn ? pn : "?", val) < 0) tr->failed = 1;
}

static void on_transition(void *ud, double t, uint32_t atomic, cdevs_transition kind, size_t bag,
                          double tn) {
  static const char *const names[] = {"internal", "external", "confluent"};
  cdevs_trace *tr = ud;
  fprintf(tr->f, "%.17g,%s,", t, names[kind]);
  put_model(tr, atomic);
  if (fprintf(tr->f, ",,,%zu,%.17g\n", bag, tn) < 0) tr->failed = 1;
}

static void on_root_output(void *ud, double t, int port, const cdevs_value *v) {
  cdevs_trace *tr = ud;
  char val[256];
  cdevs_value_format(v, val, sizeof val);
  const cdevs_model *root = cdevs_sim_root(tr->sim);
  const char *pn = cdevs_port_name(root, CDEVS_OUT, port);
  if (fprintf(tr->f, "%.17g,root_output,%s,%s,%s,,\n", t, cdevs_model_name(root), pn ? pn : "?",
              val) < 0)
    tr->failed = 1;
}

cdevs_status cdevs_trace_open(cdevs_sim *sim, const char *path, cdevs_trace **out) {
  if (!out) return CDEVS_EINVAL;
  *out = NULL;
  if (!sim || !path || !*path) return CDEVS_EINVAL;
  cdevs_trace *tr = calloc(1, sizeof *tr);
  if (!tr) return CDEVS_ENOMEM;
  cdevs_status st = cdevs_results_file_open(path, &tr->file);
  if (st) {
    free(tr);
    return st;
  }
  tr->f = cdevs_results_file_stream(tr->file);
  fputs("time,event,model,port,value,bag,tn\n", tr->f);
  tr->sim = sim;
  tr->obs.output = on_output;
  tr->obs.transition = on_transition;
  tr->obs.root_output = on_root_output;
  if (cdevs_sim_observe(sim, &tr->obs, tr)) {
    cdevs_results_file_close(tr->file, 0);
    free(tr);
    return CDEVS_ENOMEM;
  }
  *out = tr;
  return CDEVS_OK;
}

cdevs_status cdevs_trace_close(cdevs_trace *tr, int keep) {
  if (!tr) return CDEVS_OK;
  cdevs_sim_unobserve(tr->sim, &tr->obs, tr);
  cdevs_status st = cdevs_results_file_close(tr->file, keep && !tr->failed);
  if (keep && tr->failed && !st) st = CDEVS_EIO;
  free(tr);
  return st;
}
