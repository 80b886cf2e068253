// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Normal against fast mode on growing global batches (`stratex-cli plan-compare`, the GUI's
// quality chart): each batch is the first B samples of the pool, planned once in each mode
// (planBothModes, which also defines speedup and quality loss).

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/common/progress.h"
#include "core/planner/layer_cost_model.h"
#include "core/planner/microbatch_types.h"
#include "core/planner/mode_pair.h"
#include "core/planner/planner_config.h"

namespace stratex::planner {

struct PlanCompareRow {
    int global_batch = 0; // samples
    int microbatches = 0; // micro-batches the DP made of them (all data-parallel groups)
    double normal_time_ms = 0; // planning time
    double fast_time_ms = 0;
    double speedup = 0; // ModePair::speedup
    double normal_makespan_ms = 0;
    double fast_makespan_ms = 0;
    double quality_loss_percent = 0; // ModePair::quality_loss_percent
    bool normal_feasible = false;
    bool fast_feasible = false;
    bool comparable = false; // ModePair::comparable: the quality loss is defined
    int normal_simulations = 0;
    int fast_simulations = 0;
    std::string note; // why a mode found no plan
};

// The row of a batch of globalBatch samples planned in both modes.
PlanCompareRow planCompareRow(int globalBatch, const ModePair& pair);

// Throws stratex::Error when a batch is larger than the pool or not positive.
std::vector<PlanCompareRow> comparePlannerModes(const std::vector<Sample>& pool, const std::vector<int>& globalBatches,
    const LayerCostModel& model, const PlannerConfig& config, ProgressSink& progress);

// "batch,microbatches,normal_time_ms,fast_time_ms,speedup,normal_makespan_ms,fast_makespan_ms,
// quality_loss_percent" then one line per row; infeasible values are empty.
std::string planCompareCsv(const std::vector<PlanCompareRow>& rows);
// {"rows":[{"batch",...,"quality_loss_percent","normal_feasible","fast_feasible",
//           "normal_simulations","fast_simulations",["note"]}]}
nlohmann::ordered_json planCompareJson(const std::vector<PlanCompareRow>& rows);
// A fixed-width text table.
std::string planCompareText(const std::vector<PlanCompareRow>& rows);

} // namespace stratex::planner
