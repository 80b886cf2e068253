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

// The makespans one mode found for the same batch over several permutation seeds: how much of a
// plan's quality is the luck of the shuffles.
struct MakespanSpread {
    int seeds = 0; // seeds planned
    int feasible = 0; // seeds with a plan
    double min_ms = 0;
    double median_ms = 0;
    double max_ms = 0;
    double spreadPercent() const { return min_ms > 0 ? (max_ms - min_ms) / min_ms * 100 : 0; }
};

// The spread of the makespans of the seeds that found a plan, out of `seeds` planned.
MakespanSpread makespanSpread(const std::vector<double>& makespansMs, int seeds);

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
    // Over seeds config.seed .. config.seed + seeds - 1 (seeds > 1 only; the columns above are
    // the first seed's).
    MakespanSpread normal_spread;
    MakespanSpread fast_spread;
    int normal_timing_runs = 1; // the planning times are medians over these runs (ModePair)
    int fast_timing_runs = 1;
    ModeRecommendation recommended; // recommendMode on the first seed's figures
};

// The row of a batch of globalBatch samples planned in both modes.
PlanCompareRow planCompareRow(int globalBatch, const ModePair& pair);

// What `auto` should do, read from compare rows (docs/dynapipe-planner.md §11): fast above
// `fast_above_microbatches` micro-batches. Rows are taken in micro-batch order; the threshold is
// the micro-batch count of the largest batch for which normal is recommended (auto plans fast only
// where every measured larger batch recommends fast); none recommending normal gives the smallest
// measured count minus one. `measured` is false without a decided row (the threshold is then
// the configured default).
struct AutoThreshold {
    bool measured = false;
    int fast_above_microbatches = PlannerConfig {}.auto_fast_above_microbatches;
    int largest_measured_microbatches = 0;
    std::string text; // "auto: fast above 134 micro-batches (normal recommended up to ...)"
};
AutoThreshold autoThreshold(const std::vector<PlanCompareRow>& rows);

// Throws stratex::Error when a batch is larger than the pool or not positive, or seeds < 1.
// With seeds > 1 every batch is planned again in both modes with the next seeds, for the spreads.
std::vector<PlanCompareRow> comparePlannerModes(const std::vector<Sample>& pool, const std::vector<int>& globalBatches,
    const LayerCostModel& model, const PlannerConfig& config, ProgressSink& progress, int seeds = 1);

// "batch,microbatches,normal_time_ms,fast_time_ms,speedup,normal_makespan_ms,fast_makespan_ms,
// quality_loss_percent" then one line per row; infeasible values are empty. When some row has a
// spread over several seeds: also ",seeds,normal_makespan_min_ms,normal_makespan_median_ms,
// normal_makespan_max_ms,fast_makespan_min_ms,fast_makespan_median_ms,fast_makespan_max_ms".
std::string planCompareCsv(const std::vector<PlanCompareRow>& rows);
// {"rows":[{"batch",...,"quality_loss_percent","normal_feasible","fast_feasible",
//           "normal_simulations","fast_simulations",["note"],
//           ["seeds","normal_makespan_spread_ms":{"min","median","max","feasible"},"fast_..."]}]}
nlohmann::ordered_json planCompareJson(const std::vector<PlanCompareRow>& rows);
// A fixed-width text table.
std::string planCompareText(const std::vector<PlanCompareRow>& rows);

} // namespace stratex::planner
