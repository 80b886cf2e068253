// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/simulator.h"

#include <algorithm>
#include <map>
#include <utility>

#include "core/common/error.h"
#include "core/sim/peak_moment.h"
#include "core/sim/schedule_cyclic.h"
#include "core/sim/schedule_orders.h"
#include "core/sim/sim_engine.h"
#include "core/sim/sim_graph.h"
#include "core/sim/timeline_build.h"

namespace stratex::sim {

using namespace detail;

double SimulationResult::maxPeakMemoryMb() const
{
    return peak_memory_mb_per_device.empty()
        ? 0.0
        : *std::max_element(peak_memory_mb_per_device.begin(), peak_memory_mb_per_device.end());
}

namespace {

// flexible-interleaved's N when SimulationOptions leaves it 0: the smallest N from min(p, m) up
// that runs (below), which is p, Megatron's default, when m is a multiple of p.
int defaultGroupSize(int microbatches, int devices)
{
    const int m = std::max(1, microbatches);
    for (int n = std::min(devices, m); n < m; ++n) {
        if (m % n == 0 || m % n >= devices)
            return n;
    }
    return m;
}

struct ScheduledRun {
    SimRun run;
    std::string failure;
};

ScheduledRun runSchedule(
    const SimGraph& graph, const PipelineLayout& layout, ScheduleKind schedule, const SimulationOptions& options)
{
    CyclicOptions cyclic;
    cyclic.memory_limit_mb = options.memory_limit_mb;
    cyclic.max_inflight_microbatches = options.max_inflight_microbatches;
    auto starved = [&]() {
        return std::string("the cyclic pass cannot place every op within ")
            + (options.memory_limit_mb > 0 ? std::to_string(options.memory_limit_mb) + " MB"
                                           : std::string("the limits"))
            + (options.max_inflight_microbatches > 0
                    ? " and " + std::to_string(options.max_inflight_microbatches) + " in-flight micro-batches"
                    : std::string());
    };

    switch (schedule) {
    case ScheduleKind::GPipe:
        return { runEventDriven(graph, gpipeOrders(graph, layout)), {} };
    case ScheduleKind::OneFOneB:
        return { runEventDriven(graph, oneFOneBOrders(graph, layout)), {} };
    case ScheduleKind::Interleaved1F1B:
        return { runEventDriven(graph, interleavedOrders(graph, layout)), {} };
    case ScheduleKind::FlexibleInterleaved: {
        const int n = options.microbatch_group_size > 0 ? options.microbatch_group_size
                                                        : defaultGroupSize(graph.microbatchCount(), layout.n_devices);
        return { runEventDriven(graph, flexibleInterleavedOrders(graph, layout, n)), {} };
    }
    case ScheduleKind::ZbH1:
        return { runEventDriven(graph, zbH1Orders(graph, layout)), {} };
    case ScheduleKind::DualPipeV:
        return { runEventDriven(graph, dualPipeVOrders(graph, layout)), {} };
    case ScheduleKind::ZbV:
        return { runEventDriven(graph, zbVOrders(graph, layout)), {} };
    case ScheduleKind::Fifo:
        return { runEventDriven(graph, ExecutorOrders(static_cast<std::size_t>(graph.executorCount()))), {} };
    case ScheduleKind::Cyclic: {
        CyclicRun pass = runCyclic(graph, cyclic);
        const bool complete = pass.run.complete;
        return { std::move(pass.run), complete ? std::string() : starved() };
    }
    case ScheduleKind::WaitFreeCyclic: {
        CyclicRun pass = runCyclic(graph, cyclic);
        if (!pass.run.complete)
            return { std::move(pass.run), starved() };
        return { runEventDriven(graph, pass.orders), {} };
    }
    }
    throw Error("unknown schedule");
}

// The engine's rule (sim_engine.cpp, Engine::start), replayed per device over its compute ops in
// their global start order: the peak is the first op with current + its transient above every
// earlier level; current then moves by the op's stored delta. The same additions in the same
// order, so the replayed peak is the engine's to the last bit.
std::vector<PeakMoment> peakMoments(
    const SimGraph& graph, const PipelineLayout& layout, const SimulationInput& input, const SimRun& run)
{
    const auto& ops = graph.ops();
    const auto devices = static_cast<std::size_t>(graph.deviceCount());
    std::vector<std::vector<std::int32_t>> byDevice(devices);
    for (std::size_t id = 0; id < ops.size(); ++id) {
        if (!ops[id].isComm())
            byDevice[static_cast<std::size_t>(deviceOfExecutor(ops[id].executor))].push_back(std::int32_t(id));
    }
    std::vector<PeakMoment> moments(devices);
    for (std::size_t d = 0; d < devices; ++d) {
        std::vector<std::int32_t>& order = byDevice[d];
        std::sort(order.begin(), order.end(), [&run](std::int32_t a, std::int32_t b) {
            return run.start_order[std::size_t(a)] < run.start_order[std::size_t(b)];
        });
        PeakMoment& moment = moments[d];
        moment.model_state_mb = graph.modelStateMbPerDevice()[d];
        double current = moment.model_state_mb;
        double best = current;
        std::size_t at = order.size();
        for (std::size_t k = 0; k < order.size(); ++k) {
            const SimOp& o = ops[std::size_t(order[k])];
            if (current + o.peak_mb > best) {
                best = current + o.peak_mb;
                at = k;
            }
            current += o.stored_delta_mb;
        }
        if (at == order.size())
            continue;
        // What the ops before the peak stored and did not free, per (micro-batch, stage).
        std::map<std::pair<int, int>, double> held;
        std::vector<std::pair<int, int>> firstSeen;
        for (std::size_t k = 0; k < at; ++k) {
            const SimOp& o = ops[std::size_t(order[k])];
            const std::pair<int, int> key { o.position, o.stage };
            if (!held.count(key))
                firstSeen.push_back(key);
            held[key] += o.stored_delta_mb - o.state_delta_mb;
            moment.state_joined_mb += o.state_delta_mb;
        }
        for (const auto& key : firstSeen) {
            const double mb = held[key];
            if (mb <= 1e-9)
                continue;
            moment.held.push_back({ input.microbatches[std::size_t(key.first)].id, key.second,
                layout.stages[std::size_t(key.second)].chunk, mb });
        }
        const std::int32_t id = order[at];
        const SimOp& o = ops[std::size_t(id)];
        moment.found = true;
        moment.kind = o.kind;
        moment.position = o.position;
        moment.microbatch = input.microbatches[std::size_t(o.position)].id;
        moment.stage = o.stage;
        moment.chunk = layout.stages[std::size_t(o.stage)].chunk;
        moment.start_us = run.start_us[std::size_t(id)];
        // The op's transient: the peak less what the device held when it started (as summed
        // above, so that model state + held + transient is the engine's peak).
        moment.transient_mb = o.peak_mb;
    }
    return moments;
}

// flexible-interleaved's N (0: defaultGroupSize). The orders that complete: N = m (one group, Llama 3's
// "fewer micro-batches than the number of stages" when m < p), or p <= N with a last group of 0
// or at least p micro-batches (Megatron-Core's checks in forward_backward_pipelining_with_interleaving,
// NVIDIA/Megatron-LM d98e8a6: "Otherwise, it introduces dependency bubbles"). Other N deadlock
// under Megatron's warm-up count (tst_sim_flexible_interleaved finds them).
std::string groupSizeProblem(int groupSize, std::size_t microbatchCount, int devices)
{
    const long long m = static_cast<long long>(microbatchCount);
    const std::string prefix = "flexible-interleaved: micro-batch group size N = " + std::to_string(groupSize) + " with "
        + std::to_string(m) + " micro-batches on " + std::to_string(devices) + " devices: ";
    if (groupSize < 0 || groupSize > m)
        return prefix + "N must be between 1 and the micro-batches (0: the default)";
    const long long n = groupSize > 0 ? groupSize : defaultGroupSize(int(m), devices);
    if (n == m)
        return {};
    if (n < devices)
        return prefix + "N below the devices runs only as one group (N = micro-batches)";
    const long long last = m % n;
    if (last != 0 && last < devices) {
        return prefix + "the last group would hold " + std::to_string(last) + " micro-batches; it needs 0 or at least "
            + std::to_string(devices) + " (Megatron-Core's rule)";
    }
    return {};
}

} // namespace

SimulationResult simulate(const SimulationInput& input, ScheduleKind schedule, const SimulationOptions& options)
{
    const std::string problem = validateSimulationInput(input);
    if (!problem.empty())
        throw Error(problem);
    SimulationResult result;
    result.schedule = schedule;
    result.layout = analyzeAssignment(input.device_assignment);
    const std::string invalid = scheduleInvalidReason(result.layout, schedule);
    if (!invalid.empty())
        throw Error(invalid);

    if (schedule == ScheduleKind::DualPipeV || schedule == ScheduleKind::ZbV) {
        // The V schedules run the two chunks of the turn device as two stages.
        result.layout = vShapeLayout(result.layout);
        const auto m = input.microbatches.size();
        if (schedule == ScheduleKind::DualPipeV && m < 2 * static_cast<std::size_t>(result.layout.n_devices)) {
            throw Error("DualPipeV needs at least 2 x " + std::to_string(result.layout.n_devices)
                + " micro-batches (two per device and chunk direction), got " + std::to_string(m));
        }
    }
    if (schedule == ScheduleKind::FlexibleInterleaved) {
        const std::string group
            = groupSizeProblem(options.microbatch_group_size, input.microbatches.size(), result.layout.n_devices);
        if (!group.empty())
            throw Error(group);
    }
    const SimGraph graph(input, result.layout, splitsBackward(schedule));
    ScheduledRun scheduled = runSchedule(graph, result.layout, schedule, options);
    const SimRun& run = scheduled.run;
    if (scheduled.failure.empty() && !run.complete) {
        // A fixed order that cannot finish is a bug in the order, not a property of the input.
        throw Error(std::string("internal error: schedule ") + std::string(scheduleName(schedule))
            + " deadlocked on device assignment " + assignmentText(input.device_assignment));
    }
    result.feasible = scheduled.failure.empty();
    result.failure = scheduled.failure;
    result.makespan_us = run.makespan_us;
    result.peak_memory_mb_per_device = run.peak_mb_per_device;
    result.peak_state_joined_mb_per_device = run.peak_state_joined_mb_per_device;
    result.compute_ops_per_device.assign(static_cast<std::size_t>(graph.deviceCount()), 0);
    for (const SimOp& op : graph.ops()) {
        const int device = deviceOfExecutor(op.executor);
        if (op.isComm() && op.peer == device)
            continue; // the V's turn: stages on one device, no transfer (not on the timeline either)
        ++result.op_count;
        if (!op.isComm())
            ++result.compute_ops_per_device[static_cast<std::size_t>(device)];
    }
    if (options.build_timeline && result.feasible)
        result.timeline = buildTimeline(graph, result.layout, input, run);
    return result;
}

SimulationResult simulateWithinMemory(
    const SimulationInput& input, ScheduleKind schedule, double memoryLimitMb, SimulationOptions options)
{
    options.memory_limit_mb = 0;
    SimulationResult free = simulate(input, schedule, options);
    const bool throttles = schedule == ScheduleKind::Cyclic || schedule == ScheduleKind::WaitFreeCyclic;
    if (!throttles || free.maxPeakMemoryMb() <= memoryLimitMb)
        return free;
    options.memory_limit_mb = memoryLimitMb;
    return simulate(input, schedule, options);
}

std::vector<PeakMoment> simulatePeakMoments(const SimulationInput& input, ScheduleKind schedule, int microbatchGroupSize)
{
    // simulate()'s checks, layout and run (no memory limit), then the replay.
    const std::string problem = validateSimulationInput(input);
    if (!problem.empty())
        throw Error(problem);
    PipelineLayout layout = analyzeAssignment(input.device_assignment);
    const std::string invalid = scheduleInvalidReason(layout, schedule);
    if (!invalid.empty())
        throw Error(invalid);
    if (schedule == ScheduleKind::DualPipeV || schedule == ScheduleKind::ZbV) {
        layout = vShapeLayout(layout);
        if (schedule == ScheduleKind::DualPipeV && input.microbatches.size() < 2 * static_cast<std::size_t>(layout.n_devices))
            return {};
    }
    if (schedule == ScheduleKind::FlexibleInterleaved) {
        const std::string group = groupSizeProblem(microbatchGroupSize, input.microbatches.size(), layout.n_devices);
        if (!group.empty())
            throw Error(group);
    }
    SimulationOptions options;
    options.microbatch_group_size = microbatchGroupSize;
    const SimGraph graph(input, layout, splitsBackward(schedule));
    const ScheduledRun scheduled = runSchedule(graph, layout, schedule, options);
    if (!scheduled.failure.empty() || !scheduled.run.complete)
        return {};
    return peakMoments(graph, layout, input, scheduled.run);
}

} // namespace stratex::sim
