// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A memory-fitted starting recompute plan, computed without simulation. On a linear placement
// the unthrottled wait-free-cyclic order keeps at most w = 2(p-s)-1 micro-batches in flight on
// stage s (1F1B: p-s, GPipe: all), always a window of consecutive micro-batches of the feeding
// order: while the forward of the j-th runs, the previous w-1 still hold their activations. So
// the device's peak is exactly max_j (model state + stored of positions j-w+1..j-1 + the j-th's
// forward peak). Walking the windows in order, each one over the limit raises the recompute of
// the window's micro-batch that saves the most memory per millisecond of added recompute, until
// the window fits. Later simulation-driven adjustment (recompute_adjust.h) fixes what the
// estimate misses.

#include <optional>
#include <vector>

#include "core/planner/planner_spec.h"
#include "core/planner/recompute_plan.h"
#include "core/sim/schedule_kind.h"

namespace stratex::planner {

// Micro-batches in flight on stage `stage` of `stages` (linear placement) under the schedule,
// or nothing when the schedule's in-flight set is not such a window.
std::optional<int> inflightWindow(sim::ScheduleKind schedule, int stage, int stages, int microbatches);

// The modelled peak (MB, with model state) of `device` under the plan and order, or nothing
// without a window model. Exact for unthrottled linear schedules with the window property.
std::optional<double> windowPeakMb(const MicroBatchSpecBuilder& builder, const std::vector<int>& order,
    const RecomputePlan& plan, sim::ScheduleKind schedule, int device, RecomputeType modelStateRecompute);

struct PreplanResult {
    RecomputePlan plan;
    int raised = 0; // (micro-batch, device) pairs raised
    bool fits = true; // every window fits the limit after raising
};

// `start` is the plan to raise from (e.g. the uniform type with its alone-floor). Returns
// nothing when the placement is not linear or the schedule has no window model.
std::optional<PreplanResult> memoryFittedPlan(const MicroBatchSpecBuilder& builder, const std::vector<int>& order,
    const RecomputePlan& start, sim::ScheduleKind schedule, double memoryLimitMb, RecomputeType modelStateRecompute);

} // namespace stratex::planner
