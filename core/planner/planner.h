// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The pipeline planner (issue 4 §4): one global batch in, an execution plan per data-parallel
// group out -- micro-batches from DynaPipe's DP, the schedule, the recompute type of every
// micro-batch on every device, the simulated makespan and memory, the timeline and the per-rank
// instruction lists. The CLI (`stratex-cli plan`, `plan-compare`) and the GUI's Planner page call
// this; it reports progress and stops within one simulation of a cancel.
//
//   PlannerConfig config;
//   config.num_stages = 4; config.layers_per_stage = 8; config.device_memory_mb = 36000;
//   config.mode = PlannerMode::Fast;
//   PlanResult plan = planGlobalBatch(samples, costModel, config, progress);
//   plan.makespan_ms; plan.groups[0].simulation.timeline; plan.groups[0].instructions;

#include <vector>

#include "core/common/progress.h"
#include "core/planner/layer_cost_model.h"
#include "core/planner/microbatch_types.h"
#include "core/planner/planner_config.h"
#include "core/planner/planner_result.h"

namespace stratex::planner {

// Throws stratex::Error for an invalid configuration (sizes, an unsupported tp, a schedule the
// placement cannot run) and Cancelled on cancel; an infeasible batch is a result with
// feasible = false and the reason.
PlanResult planGlobalBatch(const std::vector<Sample>& samples, const LayerCostModel& model, const PlannerConfig& config,
    ProgressSink& progress);

} // namespace stratex::planner
