// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/timeline_build.h"

#include <algorithm>

namespace stratex::sim::detail {

namespace {

bool earlier(const TimelineOp& a, const TimelineOp& b)
{
    if (a.start_us != b.start_us)
        return a.start_us < b.start_us;
    return a.order < b.order;
}

void addSample(std::vector<MemorySample>& curve, double time, double mem)
{
    if (!curve.empty() && curve.back().time_us == time) {
        curve.back().mem_mb = mem; // a later value at the same instant wins
        if (curve.size() >= 2 && curve[curve.size() - 2].mem_mb == mem)
            curve.pop_back();
        return;
    }
    if (!curve.empty() && curve.back().mem_mb == mem)
        return;
    curve.push_back({ time, mem });
}

} // namespace

Timeline buildTimeline(
    const SimGraph& graph, const PipelineLayout& layout, const SimulationInput& input, const SimRun& run)
{
    Timeline timeline;
    timeline.makespan_us = run.makespan_us;
    timeline.devices.resize(static_cast<std::size_t>(graph.deviceCount()));
    for (int device = 0; device < graph.deviceCount(); ++device) {
        DeviceTimeline& lane = timeline.devices[static_cast<std::size_t>(device)];
        lane.device = device;
        lane.model_state_mb = graph.modelStateMbPerDevice()[static_cast<std::size_t>(device)];
        lane.peak_memory_mb = run.peak_mb_per_device[static_cast<std::size_t>(device)];
    }

    const auto& ops = graph.ops();
    for (std::size_t id = 0; id < ops.size(); ++id) {
        const SimOp& o = ops[id];
        TimelineOp op;
        op.start_us = run.start_us[id];
        op.duration_us = o.duration_us;
        op.kind = o.kind;
        op.grad = o.grad;
        op.position = o.position;
        op.microbatch = input.microbatches[static_cast<std::size_t>(o.position)].id;
        op.stage = o.stage;
        op.chunk = layout.stages[static_cast<std::size_t>(o.stage)].chunk;
        op.order = run.start_order[id];
        const int device = deviceOfExecutor(o.executor);
        DeviceTimeline& lane = timeline.devices[static_cast<std::size_t>(device)];
        if (!o.isComm()) {
            lane.compute.push_back(op);
            continue;
        }
        if (o.peer == device)
            continue; // consecutive stages on one device (a V's turn): nothing is transferred
        op.peer = o.peer;
        lane.comm.push_back(op);
        TimelineOp recv = op;
        recv.kind = OpKind::Recv;
        recv.peer = device;
        timeline.devices[static_cast<std::size_t>(o.peer)].comm.push_back(recv);
    }

    for (DeviceTimeline& lane : timeline.devices) {
        std::sort(lane.compute.begin(), lane.compute.end(), earlier);
        std::sort(lane.comm.begin(), lane.comm.end(), earlier);
    }

    // Memory curves follow the compute order, as the accounting does.
    std::vector<std::vector<std::size_t>> computeIds(static_cast<std::size_t>(graph.deviceCount()));
    for (std::size_t id = 0; id < ops.size(); ++id) {
        if (!ops[id].isComm())
            computeIds[static_cast<std::size_t>(deviceOfExecutor(ops[id].executor))].push_back(id);
    }
    for (int device = 0; device < graph.deviceCount(); ++device) {
        auto& ids = computeIds[static_cast<std::size_t>(device)];
        std::sort(ids.begin(), ids.end(), [&](std::size_t a, std::size_t b) {
            if (run.start_us[a] != run.start_us[b])
                return run.start_us[a] < run.start_us[b];
            return run.start_order[a] < run.start_order[b];
        });
        DeviceTimeline& lane = timeline.devices[static_cast<std::size_t>(device)];
        double current = lane.model_state_mb;
        lane.memory.push_back({ 0.0, current });
        for (std::size_t id : ids) {
            const SimOp& o = ops[id];
            addSample(lane.memory, run.start_us[id], current + o.peak_mb);
            current += o.stored_delta_mb;
            addSample(lane.memory, run.start_us[id] + o.duration_us, current);
        }
    }
    return timeline;
}

} // namespace stratex::sim::detail
