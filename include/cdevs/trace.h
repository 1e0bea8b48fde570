/* SPDX-License-Identifier: MIT */
/* Event traces: every output and transition of a run, as CSV. */
#ifndef CDEVS_TRACE_H
#define CDEVS_TRACE_H

#include "sim.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cdevs_trace cdevs_trace;

/*
 * Starts tracing sim into the CSV file `path` (columns time,event,model,port,value,
 * bag,tn; event is output, internal, external, confluent or root_output). The file is
 * written under a unique temporary name beside path and renamed on a successful close
 * (cdevs_results_file_open), so a failed run never leaves a half-written trace under
 * the final name. Installs itself as sim's observer.
 */
cdevs_status cdevs_trace_open(cdevs_sim *sim, const char *path, cdevs_trace **out);
/* Detaches, flushes and renames; CDEVS_EIO if any write failed (the temporary file is
   then removed). keep = 0 discards the trace instead. NULL is accepted. */
cdevs_status cdevs_trace_close(cdevs_trace *tr, int keep);

/* Writes a value as text ("1.5", "42", "taylor(1;2;0.5)", "array[8]", "msg:Entity"). */
int cdevs_value_format(const cdevs_value *v, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
