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
        // This device's type, footprint and next-stronger option per position, kept up to date
        // as raises happen: the walk below reads them O(m x window) times.
        struct Slot {
            RecomputeType type = RecomputeType::None;
            MicroBatchSpecBuilder::DeviceFootprint now;
            std::optional<RecomputeType> next; // the next stronger type the cost model can price
            MicroBatchSpecBuilder::DeviceFootprint raised;
        };
        std::vector<Slot> slots(static_cast<std::size_t>(m));
        auto load = [&](int position) {
            const int id = order[static_cast<std::size_t>(position)];
            Slot& slot = slots[static_cast<std::size_t>(position)];
            slot.type = result.plan.at(id, device);
            slot.now = builder.footprint(id, slot.type, device);
            slot.next = strongerRecompute(slot.type);
            while (slot.next && !builder.available(id, *slot.next))
                slot.next = strongerRecompute(*slot.next);
            if (slot.next)
                slot.raised = builder.footprint(id, *slot.next, device);
        };
        for (int position = 0; position < m; ++position)
            load(position);
        auto at = [&](int position) -> const Slot& { return slots[static_cast<std::size_t>(position)]; };
        // Running stored total of the window's earlier positions: a cheap test that most windows
        // fit; a window near or over the limit is summed afresh, in order, so the decisions are
        // those of the exact sum.
        double inflight = 0;
        for (int j = 0; j < m; ++j) {
            const int first = std::max(0, j - *window + 1);
            if (first > 0)
                inflight -= at(first - 1).now.stored_mb;
            auto peakOfWindow = [&]() {
                double total = state + at(j).now.forward_peak_mb;
                for (int i = first; i < j; ++i)
                    total += at(i).now.stored_mb;
                return total;
            };
            const double estimate = state + inflight + at(j).now.forward_peak_mb;
            double peak = estimate < memoryLimitMb * (1 - 1e-9) ? estimate : peakOfWindow();
            while (peak > memoryLimitMb) {
                // The raise that buys the most memory per added microsecond of recompute.
                int bestPosition = -1;
                double bestRatio = -1;
                for (int i = first; i <= j; ++i) {
                    const Slot& slot = at(i);
                    if (!slot.next)
                        continue;
                    const double saving = i == j ? slot.now.forward_peak_mb - slot.raised.forward_peak_mb
                                                 : slot.now.stored_mb - slot.raised.stored_mb;
                    if (!(saving > 0))
                        continue;
                    const double cost = std::max(slot.raised.compute_us - slot.now.compute_us, 1e-3);
                    const double ratio = saving / cost;
                    if (ratio > bestRatio) {
                        bestRatio = ratio;
                        bestPosition = i;
                    }
                }
                if (bestPosition < 0) {
                    result.fits = false;
                    break;
                }
                const double storedBefore = at(bestPosition).now.stored_mb;
                result.plan.set(order[static_cast<std::size_t>(bestPosition)], device, *at(bestPosition).next);
                load(bestPosition);
                if (bestPosition < j)
                    inflight += at(bestPosition).now.stored_mb - storedBefore;
                ++result.raised;
                peak = peakOfWindow();
            }
            inflight += at(j).now.stored_mb;
        }
    }
    return result;
}

} // namespace stratex::planner
