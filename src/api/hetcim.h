// <hetcim/hetcim.h>: the front door of the hetcim library, one request -> result call per job.
//
//   #include <hetcim/hetcim.h>
//   const hetcim::api::Model m = hetcim::api::load_model("resnet18");    // zoo name or ONNX path
//   hetcim::api::PartitionRequest q;
//   q.hardware.preset = "seed000-arm";
//   q.hardware.crossbars = 100;
//   q.hardware.t_mvm = 50e-9;
//   const hetcim::api::PartitionResult plan = hetcim::api::partition(m, q);
//   // plan.latency_s, hetcim::api::status_text(plan.status), plan.schedule.assignment ...
//
// Every request validates itself once (validate(), also called by the job) and throws
// hetcim::UserError naming the field; every result carries a Status (call / conclusion / origin)
// and a Provenance. The hetcim command line and the Python package make these same calls.
#pragma once

#include "api/analog_chip.h"
#include "api/build_info.h"
#include "api/cluster.h"
#include "api/dse.h"
#include "api/execute.h"
#include "api/export.h"
#include "api/hardware.h"
#include "api/inspect.h"
#include "api/model.h"
#include "api/partition.h"
#include "api/platform.h"
#include "api/profile.h"
#include "api/reproduce.h"
#include "api/run.h"
#include "api/status.h"
#include "util/error.h"
