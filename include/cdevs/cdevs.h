/* SPDX-License-Identifier: MIT */
/* cdevs: a hybrid discrete-event simulation environment. The umbrella header. */
#ifndef CDEVS_H
#define CDEVS_H

#include "alloc.h"
#include "blocks.h"
#include "devstone.h"
#include "model.h"
#include "sim.h"
#include "status.h"
#include "trace.h"
#include "value.h"
#include "cdevs/version.h"

#endif
