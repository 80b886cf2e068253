// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/sim_work.h"

#include "core/common/work_limits.h"

namespace stratex::sim {

namespace {

// Measured with stratex-cli simulate (release build, 1F1B, one layer per device, 2026-11-27, a busy
// 2-core machine): 1,024 x 1,024 passes took 375 MB and 10.8 s without a timeline (--json), 685 MB
// and 20.8 s with one; 512 x 512 passes wrote a 294 MB trace (1,123 bytes a pass) in 6.3 s more.
// The work unit is one pass without a timeline; the others are weighted by their time.
constexpr double kBytesPerStep = 360;
constexpr double kBytesPerStepWithTimeline = 660;
constexpr double kTraceBytesPerStep = 1123;
constexpr double kTimelineWeight = 2;
constexpr double kTraceWeight = 2.3;

} // namespace

double simulationSteps(const SimulationInput& input)
{
    double chunks = 0;
    for (std::size_t layer = 0; layer < input.device_assignment.size(); ++layer) {
        if (layer == 0 || input.device_assignment[layer] != input.device_assignment[layer - 1])
            ++chunks;
    }
    return chunks * double(input.microbatches.size());
}

WorkEstimate estimateSimulationWork(std::string job, double steps, bool timeline, double tracedSteps)
{
    WorkEstimate estimate;
    estimate.job = std::move(job);
    estimate.work = steps * (timeline ? kTimelineWeight : 1) + tracedSteps * kTraceWeight;
    estimate.budget = limits::kMaxSimulationWork;
    estimate.memory_mb = steps * (timeline ? kBytesPerStepWithTimeline : kBytesPerStep) / 1e6;
    estimate.memory_budget_mb = limits::kMaxJobMemoryMb;
    estimate.size = "about " + groupedCount(steps) + " chunk passes (stages x micro-batches)"
        + (tracedSteps > 0 ? ", a trace of about " + groupedCount(tracedSteps * kTraceBytesPerStep / 1e6) + " MB"
                           : std::string());
    return estimate;
}

} // namespace stratex::sim
