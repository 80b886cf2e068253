// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The schedule search of one data-parallel group (DynaPipe's generate_execution_plan and
// optimize_schedule, with the per-micro-batch recompute adjustment of §4): candidates
// (schedule x recompute type) x micro-batch permutations, each simulated, over-limit plans
// adjusted and, for the cyclic schedules, memory-throttled; the fastest plan that fits wins.

#include <vector>

#include "core/common/progress.h"
#include "core/planner/layer_cost_model.h"
#include "core/planner/planner_config.h"
#include "core/planner/planner_result.h"
#include "core/planner/planner_spec.h"

namespace stratex::planner {

struct GroupSearchInput {
    const LayerCostModel* model = nullptr;
    PlannerConfig config; // sizes, memory, seed, schedules, comm
    PipelineModel pipeline;
    std::vector<MicroBatch> microbatches; // this group's, DP order
    SearchLimits limits;
    int dp_group = 0;
};

// The schedules a search considers, in order (see PlannerConfig::schedules and SearchLimits).
// Throws stratex::Error when a configured schedule cannot run on the placement.
std::vector<sim::ScheduleKind> candidateSchedules(
    const PipelineModel& pipeline, const std::vector<sim::ScheduleKind>& configured, const SearchLimits& limits);

// Never throws for infeasibility (GroupPlan::feasible); throws Cancelled on cancel.
GroupPlan searchGroupPlan(const GroupSearchInput& input, ProgressSink& progress);

} // namespace stratex::planner
