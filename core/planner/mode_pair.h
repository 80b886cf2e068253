// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The normal and the fast plan of one global batch, and the two numbers that say what fast mode
// buys and costs. plan-compare (per row) and the Planner page (the whole batch) both read them
// from here, so the edge cases are decided in one place:
// - speedup = normal / fast planning time; 0 when the fast time is not positive (not measured);
// - quality loss = (fast - normal) / normal makespan in %, defined only when both modes found a
//   plan (comparable); a zero normal makespan (a cost model without costs) gives 0: both plans
//   then take no time;
// - note names the mode that found no plan, normal first.

#include <string>
#include <vector>

#include "core/common/progress.h"
#include "core/planner/layer_cost_model.h"
#include "core/planner/microbatch_types.h"
#include "core/planner/planner_config.h"
#include "core/planner/planner_result.h"

namespace stratex::planner {

struct ModePair {
    PlanResult normal;
    PlanResult fast;
    double speedup = 0;
    double quality_loss_percent = 0; // 0 unless comparable
    bool comparable = false; // both modes found a plan
    std::string note; // "normal: <reason>" or "fast: <reason>" when a mode found no plan
};

// Pairs two finished plans (the mode of each is not checked: tests pair hand-made results).
ModePair pairModes(PlanResult normal, PlanResult fast);

// Plans the samples in normal, then in fast mode (config.mode is ignored). Throws what
// planGlobalBatch throws.
ModePair planBothModes(const std::vector<Sample>& samples, const LayerCostModel& model, const PlannerConfig& config,
    ProgressSink& progress);

} // namespace stratex::planner
