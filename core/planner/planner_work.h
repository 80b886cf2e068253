// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How much scheduling a plan will do once its micro-batches are known: the CLI refuses beyond the
// budget of input_limits.h, the GUI asks (planGlobalBatch throws WorkBudgetExceeded, the Planner
// page asks and plans again with PlannerConfig::lift_work_budget).

#include "core/common/work_budget.h"
#include "core/planner/microbatch_types.h"
#include "core/planner/planner_config.h"

namespace stratex::planner {

// Fast mode fits memory over in-flight windows of up to 2P micro-batches on each of P stages,
// ~M x P x min(M, 2P) per data-parallel group; normal mode adjusts recompute until it converges,
// ~M^3 x P (measured: 424 micro-batches on 4 stages 20 s, 238 on 64 stages 90 s; fast mode 239
// on 256 stages 108 s). `mode` is the resolved one (not Auto).
WorkEstimate estimatePlannerWork(
    const MicroBatchBuildResult& microbatching, const PlannerConfig& config, PlannerMode mode);

// Throws WorkBudgetExceeded beyond the budget unless config.lift_work_budget.
void requireBoundedPlanning(const MicroBatchBuildResult& microbatching, const PlannerConfig& config, PlannerMode mode);

} // namespace stratex::planner
