// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/stage_memory.h"

#include <algorithm>
#include <utility>

#include "core/hardware/device_memory.h"
#include "core/megatron/hsdp.h"
#include "core/megatron/te_dummy_wgrad.h"
#include "core/megatron/torchtitan_activations.h"

namespace stratex::megatron {

namespace {
constexpr double kMb = 1e6;
} // namespace

std::vector<StageState> stageStates(const model::ModelDescription& model, const PipelineCosts& costs,
    const ParallelStrategy& s, const std::vector<int>& stageLayers, const hardware::ClusterDescription& cluster)
{
    std::vector<StageState> states;
    stageStates(model, costs, s, stageLayers, cluster, states);
    return states;
}

void stageStates(const model::ModelDescription& model, const PipelineCosts& costs, const ParallelStrategy& s,
    const std::vector<int>& stageLayers, const hardware::ClusterDescription& cluster, std::vector<StageState>& states)
{
    const int p = s.pp;
    // Megatron's distributed optimizer shards over the data-parallel group with context
    // parallelism (dp x cp); experts over their expert-data-parallel group.
    // dp_shard: HSDP shards inside a group of the data-parallel ranks (hsdp.h).
    const double denseShard = denseShardDegree(s);
    const double expertShard = expertShardDegree(s);
    const double workspaceMb = hardware::cublasWorkspaceMb(cluster.gpu.name);
    states.resize(static_cast<std::size_t>(p));
    // TE's placeholders depend on the stage only through (has layers, is last): three values, not p
    // (the search's hot path; computed at first use).
    const double unset = -1; // bytes are never negative
    double teDummyMb[2][2] = { { unset, unset }, { unset, unset } };
    for (int i = 0; i < p; ++i) {
        StageState& stage = states[std::size_t(i)];
        // A middle stage whose chunks hold what the stage before it holds (the same parameters and
        // layers, neither the model's first nor last chunk) has its state: copied, not costed
        // again (the search costs millions of these; issue 22: speed).
        if (i > 0 && i + 1 < p && stageLayers[std::size_t(i)] == stageLayers[std::size_t(i - 1)]) {
            bool same = true;
            for (int j = 0; j < s.vpp && same; ++j) {
                const std::size_t index = std::size_t(j * p + i);
                const ChunkCost& c = costs.chunks[index];
                const ChunkCost& before = costs.chunks[index - 1];
                same = index - 1 != 0 && index + 1 != costs.chunks.size() && c.dense_params == before.dense_params
                    && c.expert_params == before.expert_params && c.linear_params == before.linear_params;
            }
            if (same) {
                stage = states[std::size_t(i - 1)];
                continue;
            }
        }
        // A fresh stage that keeps its lists' storage.
        std::vector<double> firstBackward = std::move(stage.first_backward_gradients_mb);
        std::vector<double> lastBackward = std::move(stage.last_backward_gradients_mb);
        firstBackward.clear();
        lastBackward.clear();
        stage = StageState {};
        stage.first_backward_gradients_mb = std::move(firstBackward);
        stage.last_backward_gradients_mb = std::move(lastBackward);
        stage.first_backward_gradients_mb.reserve(std::size_t(s.vpp));
        stage.last_backward_gradients_mb.reserve(std::size_t(s.vpp));
        for (int j = 0; j < s.vpp; ++j) {
            const ChunkCost& c = costs.chunks[std::size_t(j * p + i)];
            stage.dense_params += c.dense_params;
            stage.expert_params += c.expert_params;
            stage.linear_params += c.linear_params;
            const double chunkParams = c.dense_params + c.expert_params;
            const double chunkShard = c.dense_params / denseShard + c.expert_params / expertShard;
            const double first = firstBackwardGradientBytes(s, chunkParams) / kMb;
            const double last = lastBackwardGradientBytes(s, chunkParams, chunkShard) / kMb;
            stage.first_backward_gradients_mb.push_back(first);
            stage.last_backward_gradients_mb.push_back(last);
            // What is not there at the start: the unsharded gradients and the shards they become.
            stage.step_gradients_mb += first + std::max(0.0, first + last);
            const std::size_t index = std::size_t(j * p + i);
            const PipelineStageBuffers buffers = pipelineStageBuffers(
                s, costs.send_bytes, costs.output_bytes, index == 0, index + 1 == costs.chunks.size());
            stage.pipeline_buffers_mb += buffers.total() / kMb;
            stage.merged_output_mb += buffers.merged_output_bytes / kMb;
            if (buffers.merged_output_bytes > 0)
                stage.largest_loss_request_mb = torchtitanLargestLossRequestBytes(costs.output_bytes) / kMb;
        }
        stage.shard_params = stage.dense_params / denseShard + stage.expert_params / expertShard;
        stage.state = modelStateMemory(s, stage.dense_params + stage.expert_params, stage.shard_params,
            stageLayers[std::size_t(i)], stage.linear_params);
        // + Transformer Engine's cached placeholder weight gradients (te_dummy_wgrad.h).
        double& teDummy = teDummyMb[stageLayers[std::size_t(i)] > 0 ? 1 : 0][i == p - 1 ? 1 : 0];
        if (teDummy < 0)
            teDummy = teDummyWgradBytes(model, s, stageLayers[std::size_t(i)], i == p - 1) / kMb;
        stage.state.gradients_mb += teDummy;
        stage.workspace_mb = workspaceMb;
    }
}

// The pipeline with its memory: each chunk stores its saved activations at its forward and frees
// them at its backward; while it runs, the chunk's own activations, its transient (the recomputed
// group of full recompute, a layer's attention/MLP intermediates) and, on the last chunk, the
// logits and loss buffers sit on top of what the stage already holds; each stage starts with its
// model state (on its first chunk).
PipelineSimulation memoryPipeline(const PipelineCosts& costs, const std::vector<StageState>& states,
    const ParallelStrategy& s, const hardware::HardwareModel& hw)
{
    std::vector<PipelineChunk> chunks;
    const KeptActivation keptActivation(s, costs.send_bytes);
    for (std::size_t c = 0; c < costs.chunks.size(); ++c) {
        const ChunkCost& cost = costs.chunks[c];
        const bool last = c + 1 == costs.chunks.size();
        const double logits = last ? costs.end.logits_bytes : 0.0;
        const double kept = keptActivation.bytes(cost.activation_bytes, c, costs.chunks.size());
        chunks.push_back({ cost.forward_s, cost.backward_s, kept / kMb, (kept + cost.transient_bytes + logits) / kMb });
    }
    PipelineSimulation pipeline = pipelineSimulationInput(chunks, s, hw, costs.p2p_bytes, costs.cross_node);
    pipeline.input.model_state_mb_per_layer.assign(chunks.size(), 0.0);
    for (std::size_t i = 0; i < states.size() && i < chunks.size(); ++i)
        pipeline.input.model_state_mb_per_layer[i] = states[i].allocatedMb() - states[i].step_gradients_mb;
    // The gradients a chunk allocates at its first backward and reduce-scatters at its last
    // (torchtitan's FSDP2 under PP): the ledger adds and changes them then, not from the start
    // (firstBackwardGradientBytes, lastBackwardGradientBytes).
    const std::size_t p = states.size();
    for (std::size_t i = 0; i < p; ++i) {
        const StageState& state = states[i];
        if (state.step_gradients_mb <= 0)
            continue;
        for (std::size_t j = 0; j < state.first_backward_gradients_mb.size() && j * p + i < chunks.size(); ++j) {
            pipeline.input.first_backward_state_mb_per_layer.resize(chunks.size(), 0.0);
            pipeline.input.last_backward_state_mb_per_layer.resize(chunks.size(), 0.0);
            pipeline.input.first_backward_state_mb_per_layer[j * p + i] = state.first_backward_gradients_mb[j];
            pipeline.input.last_backward_state_mb_per_layer[j * p + i] = state.last_backward_gradients_mb[j];
        }
    }
    return pipeline;
}

// The ledger of a one-stage pipeline without simulating it: each micro-batch's chunks run forward
// in order and then backward, so the peak is the highest chunk op over the activations stored by
// the chunks before it (the same stored and peak figures memoryPipeline() gives the simulator).
double singleStageActivationPeakMb(const PipelineCosts& costs)
{
    double stored = 0;
    double peak = 0;
    for (std::size_t c = 0; c < costs.chunks.size(); ++c) {
        const ChunkCost& cost = costs.chunks[c];
        const double logits = c + 1 == costs.chunks.size() ? costs.end.logits_bytes : 0.0;
        peak = std::max(peak, stored + (cost.activation_bytes + cost.transient_bytes + logits) / kMb);
        stored += cost.activation_bytes / kMb;
    }
    return peak;
}

} // namespace stratex::megatron
