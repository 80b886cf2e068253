// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How much scheduling a plan will do once its micro-batches are known: the CLI refuses beyond the
// budget of input_limits.h, the GUI asks (planGlobalBatch throws WorkBudgetExceeded, the Planner
// page asks and plans again with PlannerConfig::lift_work_budget).

#include <vector>

#include "core/common/work_budget.h"
#include "core/planner/layer_cost_model.h"
#include "core/planner/microbatch_builder.h"
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

// The micro-batch DP's work before it runs (issue 26: 262,144 samples ran past 20 s, the DP comes
// before the planning budget above). The DP prices every run of consecutive samples up to the first
// over the memory limit (microbatch_dp.cpp, buildSegmentTable) and keeps one float per run, then
// walks that table once per t_max candidate: N samples x K, the longest run that fits (a run of the
// shortest samples, the cheapest shape), for the most permissive of the memory limit and recompute
// types buildMicroBatches may try: an upper bound (runs of longer samples end sooner). Time and
// memory (at most 4 bytes a run) both grow with it; within the work budget the memory stays small.
WorkEstimate estimateMicroBatchingWork(
    const std::vector<Sample>& samples, const LayerCostModel& model, const MicroBatchBuildConfig& config);

// Throws WorkBudgetExceeded beyond the budget unless `lifted`. planGlobalBatch calls it before the DP.
void requireBoundedMicroBatching(
    const std::vector<Sample>& samples, const LayerCostModel& model, const MicroBatchBuildConfig& config, bool lifted);

// A whole mode comparison (`plan-compare`, the Planner page's Compare modes) before any planning
// (issue 26: 10,000 batches ran past 20 s; each planning was bounded, their number was not).
// Every batch is planned in both modes with each seed, each planning timed by up to 5 runs
// (mode_pair.h); a planning schedules its batch's samples on every stage, so the work is
// sum over batches of seeds x 2 modes x (samples + a fixed cost per planning) x stages, in
// sample-stages (limits::kMaxPlanCompareWork). The fixed cost is what a planning costs beyond its
// samples (its candidates, the timing runs): limits::kPlanCompareFixedSamples (work_limits.h).
// Each planning keeps its own budgets (estimateMicroBatchingWork, estimatePlannerWork): a single
// huge batch is refused by those.
WorkEstimate estimatePlanCompareWork(const std::vector<int>& globalBatches, int seeds, const PlannerConfig& config);

// Throws WorkBudgetExceeded beyond the budget unless config.lift_work_budget.
void requireBoundedPlanCompare(const std::vector<int>& globalBatches, int seeds, const PlannerConfig& config);

} // namespace stratex::planner
