// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The normal and the fast plan of one global batch, and the two numbers that say what fast mode
// buys and costs. plan-compare (per row) and the Planner page (the whole batch) both read them
// from here, so the edge cases are decided in one place:
// - speedup = normal / fast planning time; 0 when the fast time is not positive (not measured);
// - quality loss = (fast - normal) / normal makespan in %, defined only when both modes found a
//   plan (comparable); a zero normal makespan (a cost model without costs) gives 0: both plans
//   then take no time;
// - note names the mode that found no plan, normal first;
// - planning times are the median of planningTimeRepeats() runs of each mode (one run's wall
//   clock jumped 2x between clicks, issue 24 finding 10); the plans of the runs are the same
//   (seeded), the first is kept;
// - the recommended mode is the one whose iteration is shorter once planning overlaps training
//   (recommendMode, docs/dynapipe-planner.md §11).

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
    int normal_timing_runs = 1; // runs whose median planning time is normal.planning_time_ms
    int fast_timing_runs = 1;
};

// How often to plan a mode to time it, given its first run: short runs are noise-dominated and
// cheap to repeat, long ones neither (docs/dynapipe-planner.md §11).
int planningTimeRepeats(double firstRunMs);
// The median of the values (0 for none).
double medianOf(std::vector<double> values);

// What one mode did on a batch, for the recommendation.
struct ModeFigures {
    bool feasible = false;
    double planning_time_ms = 0;
    double makespan_ms = 0;
};

// DynaPipe plans the next batch while the current one trains (its planner workers run ahead of
// the trainer, docs/dynapipe-planner.md §7), so planning costs time only where it outlasts the
// iteration: a mode's effective iteration is max(makespan, planning time). The recommended mode
// has the shorter one; on a tie fast (the same iteration for less CPU). A mode without a plan is
// never recommended over one with a plan.
struct ModeRecommendation {
    PlannerMode mode = PlannerMode::Normal;
    bool decided = false; // false when neither mode found a plan
    double normal_effective_ms = 0;
    double fast_effective_ms = 0;
    std::string reason; // one sentence for the page and the CLI
};
ModeRecommendation recommendMode(const ModeFigures& normal, const ModeFigures& fast);
ModeRecommendation recommendMode(const ModePair& pair);

// Pairs two finished plans (the mode of each is not checked: tests pair hand-made results).
ModePair pairModes(PlanResult normal, PlanResult fast);

// Plans the samples in normal, then in fast mode (config.mode is ignored). Throws what
// planGlobalBatch throws.
ModePair planBothModes(const std::vector<Sample>& samples, const LayerCostModel& model, const PlannerConfig& config,
    ProgressSink& progress);

} // namespace stratex::planner
