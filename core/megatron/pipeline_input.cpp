// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/pipeline_input.h"

#include <algorithm>

#include "core/megatron/torchtitan_activations.h"

namespace stratex::megatron {

namespace {
constexpr double kMb = 1e6;
} // namespace

bool keepsStageOutputs(Framework framework)
{
    switch (framework) {
    case Framework::MegatronCore:
    case Framework::MegatronBridge:
        // Megatron-LM's schedules call deallocate_output_tensor after each forward send: the
        // output's .data becomes a one-element tensor and only its grad_fn is kept for the
        // backward (custom_backward) (megatron/core/pipeline_parallel/schedules.py @ d98e8a64).
        // ModelParallelConfig defaults deallocate_pipeline_outputs to False, but Megatron-LM's
        // training sets it True unconditionally (megatron/training/argument_utils.py
        // core_transformer_config_from_args, same commit), and Megatron-Bridge's GPTModelProvider
        // defaults it to True (NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/models/gpt_provider.py
        // @ 0254ddd4).
        return false;
    case Framework::Torchtitan:
        // torch.distributed.pipelining's forward_one_chunk stores the stage's output tuple in
        // fwd_cache until backward_one_chunk pops it, and stage_backward runs
        // torch.autograd.backward on it, which needs its shape (torch/distributed/pipelining/
        // stage.py, pytorch/pytorch @ 01386103).
        return true;
    case Framework::Composer: // llm-foundry runs no pipeline parallelism
    case Framework::DeepSpeed:
        // Not read: DeepSpeed's pipeline engine is costed as Megatron-LM is.
        return false;
    }
    return false;
}

double heldStageOutputBytes(const ParallelStrategy& s, double sendBytes, bool lastChunk)
{
    return s.pp > 1 && !lastChunk && keepsStageOutputs(s.framework) ? sendBytes : 0.0;
}

namespace {

// Whether the framework runs torch.distributed.pipelining's stage objects (pipelineStageBuffers).
bool runsTorchPipelining(const ParallelStrategy& s)
{
    return s.pp > 1 && s.framework == Framework::Torchtitan;
}

} // namespace

PipelineStageBuffers pipelineStageBuffers(
    const ParallelStrategy& s, double sendBytes, double outputBytes, bool firstChunk, bool lastChunk)
{
    PipelineStageBuffers b;
    if (!runsTorchPipelining(s))
        return b;
    const double m = std::max(1, s.microbatches());
    if (!firstChunk)
        b.recv_bytes = m * sendBytes;
    if (!lastChunk)
        b.grad_recv_bytes = m * sendBytes;
    else
        b.output_chunks_bytes = m * outputBytes;
    b.input_grads_bytes = torchtitanHeldInputGradientBytes(s.microbatches(), sendBytes, firstChunk, lastChunk);
    if (lastChunk)
        b.merged_output_bytes = torchtitanMergedOutputBytes(s.microbatches(), outputBytes);
    return b;
}

double receivedInputAliasBytes(const ParallelStrategy& s, double sendBytes, bool firstChunk)
{
    return runsTorchPipelining(s) && !firstChunk ? sendBytes : 0.0;
}

KeptActivation::KeptActivation(const ParallelStrategy& s, double sendBytes)
    : m_heldBytes { heldStageOutputBytes(s, sendBytes, false), heldStageOutputBytes(s, sendBytes, true) }
    , m_aliasBytes { receivedInputAliasBytes(s, sendBytes, false), receivedInputAliasBytes(s, sendBytes, true) }
{
}

sim::ScheduleKind pipelineScheduleKind(const ParallelStrategy& s)
{
    if (s.schedule == PipelineSchedule::ZbH1)
        return sim::ScheduleKind::ZbH1;
    if (s.vpp <= 1)
        return sim::ScheduleKind::OneFOneB;
    // N = pp is Megatron's slot grid (sim/schedule_orders.cpp interleavedOrders); any other N, a set
    // microbatch_group_size or torch's rounds (microbatchGroupSize), is get_schedule_table's.
    return s.microbatchGroupSize() == s.pp ? sim::ScheduleKind::Interleaved1F1B
                                           : sim::ScheduleKind::FlexibleInterleaved;
}

sim::SimulationOptions pipelineSimulationOptions(const ParallelStrategy& s)
{
    sim::SimulationOptions options;
    options.build_timeline = false;
    if (pipelineScheduleKind(s) == sim::ScheduleKind::FlexibleInterleaved)
        options.microbatch_group_size = s.microbatchGroupSize();
    return options;
}

bool computeWaitsForPreviousSend(const ParallelStrategy& s)
{
    // forward_backward_pipelining_with_interleaving (megatron/core/pipeline_parallel/schedules.py,
    // NVIDIA/Megatron-LM core_v0.8.0 6f62ffe6, the 2024 README runs' release): with
    // overlap_p2p_comm (Megatron-LM's default under interleaving) each warm-up forward posts
    // send_forward_recv_forward and the next forward first waits on all its handles, the send to
    // the next stage included; the cool-down calls send_backward_recv_backward without
    // overlap_p2p_comm, so _communicate waits on the send and the receive before the next backward
    // (wait_on_reqs); without overlap_p2p_comm every exchange is blocking. Later releases keep both
    // waits unless --overlap-p2p-communication-warmup-flush (ModelParallelConfig
    // overlap_p2p_comm_warmup_flush, default False, added 4295be1a 2024-11-01; schedules.py @
    // d98e8a64 also waits on each forward's send at once when deallocate_pipeline_outputs).
    if (s.pp <= 1 || s.vpp <= 1 || s.schedule == PipelineSchedule::ZbH1)
        return false;
    return s.framework == Framework::MegatronCore || s.framework == Framework::MegatronBridge;
}

PipelineSimulation pipelineSimulationInput(const std::vector<PipelineChunk>& chunks, const ParallelStrategy& s,
    const hardware::HardwareModel& hw, double p2pBytes, bool crossNode)
{
    const int p = std::max(1, s.pp);
    PipelineSimulation result;
    result.schedule = pipelineScheduleKind(s);
    result.options = pipelineSimulationOptions(s);
    sim::SimulationInput& input = result.input;
    const int count = int(chunks.size());
    input.device_assignment.resize(std::size_t(count));
    for (int c = 0; c < count; ++c)
        input.device_assignment[std::size_t(c)] = c % p;
    sim::MicrobatchSpec spec;
    for (const PipelineChunk& c : chunks) {
        sim::LayerCost layer;
        layer.fw_us = c.forward_s * 1e6;
        layer.bw_us = c.backward_s * 1e6;
        layer.stored_mb = c.stored_mb;
        layer.peak_mb = c.transient_mb;
        layer.fw_comm_mb = p2pBytes / kMb;
        layer.bw_comm_mb = p2pBytes / kMb;
        spec.layers.push_back(layer);
    }
    for (int id = 0; id < s.microbatches(); ++id) {
        spec.id = id;
        input.microbatches.push_back(spec);
    }
    // The link between consecutive stages: its measured latency and bandwidth.
    const double oneMb = hw.p2pS(kMb, crossNode) - hw.p2pS(1e-9, crossNode);
    input.comm.intra_node_bw_gbps = 8e-3 / oneMb; // MB per s -> Gbit/s: 1 MB in `oneMb` seconds
    input.comm.inter_node_bw_gbps = input.comm.intra_node_bw_gbps;
    input.comm.intra_node_lat_us = hw.efficiency().collective_latency_us;
    input.comm.inter_node_lat_us = input.comm.intra_node_lat_us;
    input.compute_waits_for_previous_send = computeWaitsForPreviousSend(s);
    return result;
}

} // namespace stratex::megatron
