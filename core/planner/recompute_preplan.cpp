// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/recompute_preplan.h"

#include <algorithm>
#include <limits>

#include "core/sim/schedule_assignment.h"

namespace stratex::planner {

std::optional<int> inflightWindow(sim::ScheduleKind schedule, int stage, int stages, int microbatches)
{
    switch (schedule) {
    case sim::ScheduleKind::WaitFreeCyclic:
        return std::min(microbatches, 2 * (stages - stage) - 1);
    case sim::ScheduleKind::OneFOneB:
        return std::min(microbatches, stages - stage);
    case sim::ScheduleKind::GPipe:
        return microbatches;
    default:
        return std::nullopt;
    }
}

std::optional<double> windowPeakMb(const MicroBatchSpecBuilder& builder, const std::vector<int>& order,
    const RecomputePlan& plan, sim::ScheduleKind schedule, int device, RecomputeType modelStateRecompute)
{
    if (builder.pipeline().chunks_per_device != 1)
        return std::nullopt;
    const int m = static_cast<int>(order.size());
    const std::optional<int> window = inflightWindow(schedule, device, builder.deviceCount(), m);
    if (!window)
        return std::nullopt;
    const double state = builder.deviceModelStateMb(device, modelStateRecompute);
    double peak = state;
    double inflight = 0; // stored activation of the window's earlier micro-batches
    std::vector<double> stored;
    for (int j = 0; j < m; ++j) {
        const int id = order[static_cast<std::size_t>(j)];
        const auto footprint = builder.footprint(id, plan.at(id, device), device);
        if (j >= *window)
            inflight -= stored[static_cast<std::size_t>(j - *window)];
        peak = std::max(peak, state + inflight + footprint.forward_peak_mb);
        stored.push_back(footprint.stored_mb);
        inflight += footprint.stored_mb;
    }
    return peak;
}

std::optional<PreplanResult> memoryFittedPlan(const MicroBatchSpecBuilder& builder, const std::vector<int>& order,
    const RecomputePlan& start, sim::ScheduleKind schedule, double memoryLimitMb, RecomputeType modelStateRecompute)
{
    const PipelineModel& pipeline = builder.pipeline();
    if (pipeline.chunks_per_device != 1)
        return std::nullopt;
    const int devices = builder.deviceCount();
    const int m = static_cast<int>(order.size());
    PreplanResult result { start, 0, true };
    for (int device = 0; device < devices; ++device) {
        const std::optional<int> window = inflightWindow(schedule, device, devices, m);
        if (!window)
            return std::nullopt;
        const double state = builder.deviceModelStateMb(device, modelStateRecompute);
        auto footprintAt = [&](int position) {
            const int id = order[static_cast<std::size_t>(position)];
            return builder.footprint(id, result.plan.at(id, device), device);
        };
        for (int j = 0; j < m; ++j) {
            const int first = std::max(0, j - *window + 1);
            auto peakOfWindow = [&]() {
                double total = state + footprintAt(j).forward_peak_mb;
                for (int i = first; i < j; ++i)
                    total += footprintAt(i).stored_mb;
                return total;
            };
            double peak = peakOfWindow();
            while (peak > memoryLimitMb) {
                // The raise that buys the most memory per added microsecond of recompute.
                int bestPosition = -1;
                RecomputeType bestType = RecomputeType::None;
                double bestRatio = -1;
                for (int i = first; i <= j; ++i) {
                    const int id = order[static_cast<std::size_t>(i)];
                    const RecomputeType current = result.plan.at(id, device);
                    std::optional<RecomputeType> next = strongerRecompute(current);
                    while (next && !builder.available(id, *next))
                        next = strongerRecompute(*next);
                    if (!next)
                        continue;
                    const auto now = builder.footprint(id, current, device);
                    const auto raised = builder.footprint(id, *next, device);
                    const double saving
                        = i == j ? now.forward_peak_mb - raised.forward_peak_mb : now.stored_mb - raised.stored_mb;
                    if (!(saving > 0))
                        continue;
                    const double cost = std::max(raised.compute_us - now.compute_us, 1e-3);
                    const double ratio = saving / cost;
                    if (ratio > bestRatio) {
                        bestRatio = ratio;
                        bestPosition = i;
                        bestType = *next;
                    }
                }
                if (bestPosition < 0) {
                    result.fits = false;
                    break;
                }
                result.plan.set(order[static_cast<std::size_t>(bestPosition)], device, bestType);
                ++result.raised;
                peak = peakOfWindow();
            }
        }
    }
    return result;
}

} // namespace stratex::planner
