// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// JSON forms of a plan (the public output of `stratex-cli plan`; keys keep this order).
//
// Summary (`plan --json`):
//   {"feasible", ["reason"], "mode", "requested_mode", "planning_time_ms", "makespan_ms",
//    "microbatching_time_ms", "scheduling_time_ms", "candidates_simulated", "memory_limit_mb",
//    "peak_memory_mb_per_device", "samples", "microbatch_count", "dp_recompute",
//    "dp_objective_ms", "dp_t_max_ms",
//    "groups": [{"dp_group", "feasible", ["reason"], "schedule", "base_recompute", "makespan_ms",
//                "peak_memory_mb_per_device", "memory_throttled", "adjust_rounds",
//                "schedule_candidates", "permutations_tried", "simulations", "deadlock_free",
//                "microbatches": [{"id", "sample_ids", "micro_batch_size", "padded_seqlen",
//                                  ["padded_decoder_seqlen"], "estimated_time_ms",
//                                  "recompute_per_device"}]}]}
// Full plan (`plan --plan FILE`): the summary plus, per group, "device_assignment" and
// "instructions" (instructionsJson of the simulator).

#include <nlohmann/json.hpp>

#include "core/planner/planner_result.h"

namespace stratex::planner {

nlohmann::ordered_json planSummaryJson(const PlanResult& plan, double memoryLimitMb);
nlohmann::ordered_json planJson(const PlanResult& plan, double memoryLimitMb);

} // namespace stratex::planner
