// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/mode_pair.h"

#include "core/planner/planner.h"

namespace stratex::planner {

namespace {

// Normal mode simulates many more candidates than fast mode, so it gets most of the bar.
constexpr double kNormalProgressShare = 0.85;

} // namespace

ModePair pairModes(PlanResult normal, PlanResult fast)
{
    ModePair pair;
    pair.normal = std::move(normal);
    pair.fast = std::move(fast);
    if (pair.fast.planning_time_ms > 0)
        pair.speedup = pair.normal.planning_time_ms / pair.fast.planning_time_ms;
    pair.comparable = pair.normal.feasible && pair.fast.feasible;
    if (pair.comparable && pair.normal.makespan_ms > 0) {
        pair.quality_loss_percent = (pair.fast.makespan_ms - pair.normal.makespan_ms) / pair.normal.makespan_ms * 100;
    }
    if (!pair.normal.feasible)
        pair.note = "normal: " + pair.normal.infeasible_reason;
    else if (!pair.fast.feasible)
        pair.note = "fast: " + pair.fast.infeasible_reason;
    return pair;
}

ModePair planBothModes(const std::vector<Sample>& samples, const LayerCostModel& model, const PlannerConfig& config,
    ProgressSink& progress)
{
    PlannerConfig modeConfig = config;
    modeConfig.mode = PlannerMode::Normal;
    SubProgress normalProgress(progress, 0.0, kNormalProgressShare);
    PlanResult normal = planGlobalBatch(samples, model, modeConfig, normalProgress);
    modeConfig.mode = PlannerMode::Fast;
    SubProgress fastProgress(progress, kNormalProgressShare, 1.0);
    PlanResult fast = planGlobalBatch(samples, model, modeConfig, fastProgress);
    return pairModes(std::move(normal), std::move(fast));
}

} // namespace stratex::planner
