// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_work.h"

#include <algorithm>

#include "core/common/input_limits.h"

namespace stratex::planner {

WorkEstimate estimatePlannerWork(
    const MicroBatchBuildResult& microbatching, const PlannerConfig& config, PlannerMode mode)
{
    const double stages = config.num_stages;
    const double chunks = config.chunks_per_device;
    WorkEstimate estimate;
    for (const auto& group : microbatching.dp_groups) {
        const double m = double(group.size());
        estimate.work += mode == PlannerMode::Normal ? m * m * m * stages * chunks
                                                     : m * stages * chunks * std::min(m, 2 * stages);
    }
    estimate.budget = mode == PlannerMode::Normal ? limits::kMaxPlannerNormalWork : limits::kMaxPlannerFastWork;
    estimate.job = "plan in " + std::string(plannerModeName(mode)) + " mode";
    estimate.size = groupedCount(double(microbatching.dp_groups.empty() ? 0 : microbatching.dp_groups[0].size()))
        + " micro-batches per data-parallel group on " + std::to_string(config.num_stages) + " stages";
    return estimate;
}

void requireBoundedPlanning(const MicroBatchBuildResult& microbatching, const PlannerConfig& config, PlannerMode mode)
{
    const WorkEstimate estimate = estimatePlannerWork(microbatching, config, mode);
    if (estimate.exceedsBudget() && !config.lift_work_budget)
        throw WorkBudgetExceeded(estimate,
            std::string("Use ") + (mode == PlannerMode::Normal ? "fast mode, " : "")
                + "fewer stages or a smaller global batch.");
}

} // namespace stratex::planner
