// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/planner/microbatch_builder.h"
#include "core/planner/planner_config.h"
#include "core/planner/recompute_plan.h"
#include "core/sim/instructions.h"
#include "core/sim/simulator.h"

namespace stratex::planner {

// One micro-batch of a chosen plan, in execution order.
struct PlannedMicroBatch {
    MicroBatch microbatch; // id, sample ids, size, padded lengths, the DP's time estimate
    std::vector<RecomputeType> recompute_per_device; // for its layers on each device
};

// The chosen plan of one data-parallel group.
struct GroupPlan {
    int dp_group = 0;
    bool feasible = false;
    std::string infeasible_reason;
    sim::ScheduleKind schedule = sim::ScheduleKind::WaitFreeCyclic;
    RecomputeType base_recompute = RecomputeType::None; // the candidate's uniform starting type
    std::vector<PlannedMicroBatch> microbatches; // execution order
    RecomputePlan recompute;
    bool memory_throttled = false; // the cyclic pass ran with the device memory as its limit
    int adjust_rounds = 0; // recompute adjustment rounds the chosen permutation needed
    double makespan_ms = 0;
    std::vector<double> peak_memory_mb_per_device; // including the model state
    sim::SimulationInput input; // what the chosen plan simulated (for exports and re-simulation)
    sim::SimulationResult simulation; // with the timeline
    sim::ExecutionInstructions instructions; // per rank, optimized (buffers), empty if not built
    sim::DeadlockCheck deadlock; // of `instructions`
    // Search statistics.
    int schedule_candidates = 0; // (schedule, recompute type) pairs tried
    int permutations_tried = 0;
    int simulations = 0; // simulator runs, every permutation and adjustment round
    int pruned = 0; // candidates and permutations stopped by the makespan lower bound
};

struct PlanResult {
    bool feasible = false;
    std::string infeasible_reason;
    PlannerMode requested_mode = PlannerMode::Auto;
    PlannerMode mode = PlannerMode::Normal; // as resolved
    MicroBatchBuildResult microbatching; // the DP's split of the whole global batch
    std::vector<GroupPlan> groups; // one per data-parallel group
    double makespan_ms = 0; // slowest group
    std::vector<double> peak_memory_mb_per_device; // highest over the groups, per device
    int candidates_simulated = 0; // simulator runs over all groups
    int hidden_size = 0; // of the activation messages (0: free messages)
    bool communication_modelled = false; // some transfer between stages takes time
    double microbatching_time_ms = 0;
    double scheduling_time_ms = 0;
    double planning_time_ms = 0; // wall clock of the whole call
    int global_microbatches() const { return static_cast<int>(microbatching.dp.microbatches.size()); }
};

} // namespace stratex::planner
