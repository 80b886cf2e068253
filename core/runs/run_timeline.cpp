// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/run_timeline.h"

#include <algorithm>
#include <cmath>

#include "core/common/number_format.h"
#include "core/megatron/pipeline_input.h"
#include "core/sim/simulator.h"

namespace stratex::runs {

namespace {

constexpr double kMb = 1e6;

// The estimate's pipeline with its timeline: one layer per stage (chunk) with the stage's
// per-micro-batch forward and backward, the activation sent between stages over the stage link.
sim::Timeline predictedPipeline(const RunComparison& c)
{
    const megatron::ParallelStrategy& s = c.strategy;
    const int p = s.pp;
    const int v = std::max(1, s.vpp);
    sim::SimulationInput input;
    sim::MicrobatchSpec spec;
    const double tokens = double(s.micro_batch_size) * c.model.seq_length / s.cp;
    const double p2pBytes = 2 * tokens * c.model.hidden_size / (s.sequence_parallel ? s.tp : 1);
    for (int chunk = 0; chunk < v; ++chunk) {
        for (int stage = 0; stage < p; ++stage) {
            const megatron::StageEstimate& e = c.estimate.stages[std::size_t(stage)];
            sim::LayerCost layer;
            layer.fw_us = e.forward_ms * 1e3 / v;
            layer.bw_us = e.backward_ms * 1e3 / v;
            layer.fw_comm_mb = p2pBytes / kMb;
            layer.bw_comm_mb = p2pBytes / kMb;
            spec.layers.push_back(layer);
            input.device_assignment.push_back(stage);
        }
    }
    for (int id = 0; id < s.microbatches(); ++id) {
        spec.id = id;
        input.microbatches.push_back(spec);
    }
    const hardware::HardwareModel hw(c.cluster, hardware::efficiencyFor(c.cluster));
    const bool crossNode = static_cast<long long>(s.tp) * s.cp * s.dp >= c.cluster.gpus_per_node && c.cluster.num_nodes > 1;
    const double oneMb = hw.p2pS(kMb, crossNode) - hw.p2pS(1e-9, crossNode);
    input.comm.intra_node_bw_gbps = oneMb > 0 ? 8e-3 / oneMb : 0;
    input.comm.inter_node_bw_gbps = input.comm.intra_node_bw_gbps;
    input.comm.intra_node_lat_us = hw.efficiency().collective_latency_us;
    input.comm.inter_node_lat_us = input.comm.intra_node_lat_us;
    const sim::ScheduleKind kind = megatron::pipelineScheduleKind(s); // the one mapping, as the stratex model simulates
    if (p == 1 && v == 1)
        return sim::simulate(input, sim::ScheduleKind::OneFOneB).timeline;
    sim::SimulationOptions options = megatron::pipelineSimulationOptions(s); // N of the group
    options.build_timeline = true;
    return sim::simulate(input, kind, options).timeline;
}

// A lane of the Gantt takes ops that do not overlap; a trace's streams do. Later starts are cut
// at the previous op's end.
void appendClipped(std::vector<sim::TimelineOp>& lane, sim::TimelineOp op)
{
    if (!lane.empty() && op.start_us < lane.back().endUs()) {
        const double end = op.endUs();
        op.start_us = lane.back().endUs();
        op.duration_us = end - op.start_us;
    }
    if (op.duration_us > 0)
        lane.push_back(op);
}

sim::DeviceTimeline measuredDevice(const RankTrace& trace, int device, double memoryMb)
{
    sim::DeviceTimeline lane;
    lane.device = device;
    int forward = 0;
    int backward = 0;
    std::uint32_t order = 0;
    for (const TraceInterval& interval : trace.intervals) {
        sim::TimelineOp op;
        op.start_us = interval.start_ms * 1e3;
        op.duration_us = (interval.end_ms - interval.start_ms) * 1e3;
        op.order = order++;
        switch (interval.kind) {
        case LaneKind::Forward:
            op.kind = sim::OpKind::Forward;
            op.microbatch = forward++;
            appendClipped(lane.compute, op);
            break;
        case LaneKind::Backward:
            op.kind = sim::OpKind::Backward;
            op.microbatch = backward++;
            appendClipped(lane.compute, op);
            break;
        case LaneKind::Other:
            op.kind = sim::OpKind::Weight; // optimizer and the rest: drawn in the third compute colour
            appendClipped(lane.compute, op);
            break;
        case LaneKind::PipelineComm:
        case LaneKind::DataParallelComm:
            op.kind = sim::OpKind::Send;
            op.grad = interval.kind == LaneKind::DataParallelComm;
            appendClipped(lane.comm, op);
            break;
        }
    }
    lane.model_state_mb = memoryMb;
    lane.peak_memory_mb = memoryMb;
    lane.memory.push_back({ 0, memoryMb });
    return lane;
}

} // namespace

ComparisonTimeline comparisonTimeline(const RunComparison& c)
{
    ComparisonTimeline out;
    if (!c.estimate.problems.empty() || c.run.traces.empty() || c.stages.empty())
        return out;
    const sim::Timeline predicted = predictedPipeline(c);
    const int stages = int(c.stages.size());
    for (int stage = 0; stage < stages; ++stage) {
        const StageComparison& sc = c.stages[std::size_t(stage)];
        const RankTrace* trace = nullptr;
        if (!sc.traced_ranks.empty()) {
            const auto it = std::ranges::find(c.run.traces, sc.traced_ranks.front(), &RankTrace::rank);
            trace = it != c.run.traces.end() ? &*it : nullptr;
        }
        const double measuredMemory = sc.memory_mb.measured.value_or(0);
        if (trace) {
            out.timeline.devices.push_back(measuredDevice(*trace, 2 * stage, measuredMemory));
            out.labels.push_back("stage " + std::to_string(stage) + " · measured, rank " + std::to_string(trace->rank));
        } else {
            sim::DeviceTimeline empty;
            empty.device = 2 * stage;
            empty.memory.push_back({ 0, measuredMemory });
            empty.model_state_mb = empty.peak_memory_mb = measuredMemory;
            out.timeline.devices.push_back(empty);
            out.labels.push_back("stage " + std::to_string(stage) + " · not traced");
        }
        sim::DeviceTimeline lane = stage < int(predicted.devices.size()) ? predicted.devices[std::size_t(stage)]
                                                                          : sim::DeviceTimeline {};
        lane.device = 2 * stage + 1;
        for (sim::TimelineOp& op : lane.comm) {
            if (op.peer >= 0)
                op.peer = 2 * op.peer + 1;
        }
        // The simulator knows no memory here; the estimate's stage total is drawn instead.
        const double predictedMemory = sc.memory_mb.predicted.value_or(0);
        lane.memory.assign(1, { 0, predictedMemory });
        lane.model_state_mb = lane.peak_memory_mb = predictedMemory;
        out.timeline.devices.push_back(std::move(lane));
        std::string label = "stage " + std::to_string(stage) + " · predicted";
        if (sc.forward_ms.measured && sc.backward_ms.measured) {
            const double measured = *sc.forward_ms.measured + *sc.backward_ms.measured + sc.dp_comm_ms.measured.value_or(0);
            const double busy = *sc.forward_ms.predicted + *sc.backward_ms.predicted + sc.dp_comm_ms.predicted.value_or(0);
            if (measured > 0)
                label += " " + signedPercent(busy / measured - 1);
        }
        out.labels.push_back(label);
    }
    double makespan = 0;
    for (const sim::DeviceTimeline& device : out.timeline.devices) {
        for (const sim::TimelineOp& op : device.compute)
            makespan = std::max(makespan, op.endUs());
        for (const sim::TimelineOp& op : device.comm)
            makespan = std::max(makespan, op.endUs());
    }
    out.timeline.makespan_us = makespan;
    return out;
}

} // namespace stratex::runs
