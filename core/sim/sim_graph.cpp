// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/sim/sim_graph.h"

#include <algorithm>

namespace stratex::sim::detail {

namespace {

// One merged stage of one micro-batch (docs/dynapipe-planner.md §3 "Merging layers").
struct StageCost {
    double fw_us = 0;
    double bw_us = 0;
    double w_us = 0;
    double stored_mb = 0;
    double w_stored_mb = 0;
    double fw_peak_mb = 0; // max over its layers of (stored by the earlier layers + the layer's peak)
    double first_backward_state_mb = 0; // SimulationInput::first_backward_state_mb_per_layer, summed
    double last_backward_state_mb = 0; // SimulationInput::last_backward_state_mb_per_layer, summed
};

StageCost mergeStage(const MicrobatchSpec& mb, const PipelineStage& stage, const SimulationInput& input)
{
    StageCost cost;
    for (int layer = stage.first_layer; layer <= stage.last_layer; ++layer) {
        const auto index = static_cast<std::size_t>(layer);
        if (index < input.first_backward_state_mb_per_layer.size())
            cost.first_backward_state_mb += input.first_backward_state_mb_per_layer[index];
        if (index < input.last_backward_state_mb_per_layer.size())
            cost.last_backward_state_mb += input.last_backward_state_mb_per_layer[index];
        const LayerCost& l = mb.layers[static_cast<std::size_t>(layer)];
        cost.fw_peak_mb = std::max(cost.fw_peak_mb, cost.stored_mb + l.peak_mb);
        cost.fw_us += l.fw_us;
        cost.bw_us += l.bw_us;
        cost.w_us += l.weightGradUs();
        cost.stored_mb += l.stored_mb;
        cost.w_stored_mb += l.weightGradStoredMb();
    }
    return cost;
}

} // namespace

SimGraph::SimGraph(const SimulationInput& input, const PipelineLayout& layout, bool splitBackward)
    : m_microbatches(static_cast<int>(input.microbatches.size()))
    , m_stages(layout.stageCount())
    , m_devices(layout.n_devices)
    , m_split(splitBackward)
    , m_waitsForPreviousSend(input.compute_waits_for_previous_send)
{
    const int n = m_stages;
    m_opsPerMicrobatch = 4 * n - 2 + (m_split ? n : 0);
    m_ops.resize(static_cast<std::size_t>(m_opsPerMicrobatch) * static_cast<std::size_t>(m_microbatches));

    m_modelState.assign(static_cast<std::size_t>(m_devices), 0.0);
    if (!input.model_state_mb_per_layer.empty()) {
        for (int layer = 0; layer < layout.layerCount(); ++layer) {
            m_modelState[static_cast<std::size_t>(layout.device_assignment[static_cast<std::size_t>(layer)])]
                += input.model_state_mb_per_layer[static_cast<std::size_t>(layer)];
        }
    }

    std::vector<StageCost> costs(static_cast<std::size_t>(n));
    for (int j = 0; j < m_microbatches; ++j) {
        const MicrobatchSpec& mb = input.microbatches[static_cast<std::size_t>(j)];
        for (int k = 0; k < n; ++k)
            costs[static_cast<std::size_t>(k)]
                = mergeStage(mb, layout.stages[static_cast<std::size_t>(k)], input);

        auto op = [&](int index) -> SimOp& { return m_ops[static_cast<std::size_t>(index)]; };
        auto link = [&](int from, int to) { op(from).next = to; };

        for (int k = 0; k < n; ++k) {
            const PipelineStage& stage = layout.stages[static_cast<std::size_t>(k)];
            const StageCost& cost = costs[static_cast<std::size_t>(k)];

            SimOp& fw = op(forwardOp(j, k));
            fw.kind = OpKind::Forward;
            fw.duration_us = cost.fw_us;
            fw.peak_mb = cost.fw_peak_mb;
            fw.stored_delta_mb = cost.stored_mb;
            fw.executor = computeExecutor(stage.device);
            fw.position = j;
            fw.stage = k;
            fw.flat_stage = k;

            SimOp& bw = op(backwardOp(j, k));
            bw.kind = OpKind::Backward;
            bw.duration_us = m_split ? cost.bw_us - cost.w_us : cost.bw_us;
            bw.stored_delta_mb = m_split ? -(cost.stored_mb - cost.w_stored_mb) : -cost.stored_mb;
            bw.executor = computeExecutor(stage.device);
            bw.position = j;
            bw.stage = k;
            bw.flat_stage = 2 * n - 1 - k;

            if (m_split) {
                SimOp& w = op(weightOp(j, k));
                w.kind = OpKind::Weight;
                w.duration_us = cost.w_us;
                w.stored_delta_mb = -cost.w_stored_mb;
                w.executor = computeExecutor(stage.device);
                w.position = j;
                w.stage = k;
                w.flat_stage = 2 * n - 1 - k;
                op(backwardOp(j, k)).side = weightOp(j, k);
            }
            // The first backward (position 0) allocates state that stays to the step's end, the
            // last (position m - 1) changes it: on the weight-gradient op where the backward is
            // split (the gradients are its output).
            const double stateDelta = (j == 0 ? cost.first_backward_state_mb : 0.0)
                + (j + 1 == m_microbatches ? cost.last_backward_state_mb : 0.0);
            if (stateDelta != 0) {
                SimOp& grads = op(m_split ? weightOp(j, k) : backwardOp(j, k));
                grads.stored_delta_mb += stateDelta;
                grads.state_delta_mb += stateDelta;
            }

            if (k + 1 < n) {
                const int to = layout.stages[static_cast<std::size_t>(k + 1)].device;
                SimOp& send = op(forwardOp(j, k) + 1);
                send.kind = OpKind::Send;
                send.duration_us = input.comm.transferUs(
                    mb.layers[static_cast<std::size_t>(stage.last_layer)].fw_comm_mb, stage.device, to);
                send.executor = commExecutor(stage.device);
                send.position = j;
                send.stage = k;
                send.flat_stage = k;
                send.peer = to;
                link(forwardOp(j, k), forwardOp(j, k) + 1);
                link(forwardOp(j, k) + 1, forwardOp(j, k + 1));
            }
            if (k > 0) {
                const int to = layout.stages[static_cast<std::size_t>(k - 1)].device;
                SimOp& send = op(backwardOp(j, k) + 1);
                send.kind = OpKind::Send;
                send.grad = true;
                send.duration_us = input.comm.transferUs(
                    mb.layers[static_cast<std::size_t>(stage.first_layer - 1)].bw_comm_mb, stage.device, to);
                send.executor = commExecutor(stage.device);
                send.position = j;
                send.stage = k;
                send.flat_stage = 2 * n - 1 - k;
                send.peer = to;
                link(backwardOp(j, k), backwardOp(j, k) + 1);
                link(backwardOp(j, k) + 1, backwardOp(j, k - 1));
            }
        }
        link(forwardOp(j, n - 1), backwardOp(j, n - 1));
    }
}

} // namespace stratex::sim::detail
