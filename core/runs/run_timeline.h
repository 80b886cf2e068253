// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A measured run and its prediction as one Gantt: for each pipeline stage, the measured lane
// (a traced rank's GPU busy intervals: forward, backward, pipeline and data-parallel
// communication) directly above the predicted lane (the estimate's per-stage forward and backward
// per micro-batch, scheduled by the simulator as the estimate schedules them), so that a stage's
// difference is seen where it happens.

#include <string>
#include <vector>

#include "core/runs/run_comparison.h"
#include "core/sim/timeline.h"

namespace stratex::runs {

struct ComparisonTimeline {
    // Device 2i: stage i measured; device 2i + 1: stage i predicted.
    sim::Timeline timeline;
    // One label per device: "stage 0 · measured, rank 0" / "stage 0 · predicted -30.1 %", the
    // percentage being the predicted busy time (forward + backward + DP communication) against
    // the measured one.
    std::vector<std::string> labels;
};

// Empty (no devices) when the comparison has no traced stage: there is nothing to lay over the
// prediction.
ComparisonTimeline comparisonTimeline(const RunComparison& comparison);

} // namespace stratex::runs
