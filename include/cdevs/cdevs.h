/* SPDX-License-Identifier: MIT */
/* cdevs: a hybrid discrete-event simulation environment. The umbrella header. */
#ifndef CDEVS_H
#define CDEVS_H

#include "alloc.h"
#include "blocks.h"
#include "continuous.h"
#include "devstone.h"
#include "graph.h"
#include "lang.h"
#include "mailbox.h"
#include "model.h"
#include "proc.h"
#include "qss.h"
#include "random.h"
#include "results.h"
#include "rt.h"
#include "sim.h"
#include "siman.h"
#include "stats.h"
#include "status.h"
#include "taylor.h"
#include "trace.h"
#include "value.h"
#include "cdevs/version.h"

#endif
