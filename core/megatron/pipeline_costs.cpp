// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/pipeline_costs.h"

#include <algorithm>

#include "core/megatron/pipeline_input.h"

namespace stratex::megatron {

namespace {
constexpr double kBytes = 2; // 16-bit activations and logits
} // namespace

PipelineCosts pipelineCosts(const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw,
    const std::vector<int>& stageLayers, const TimeScales& scales, LayerCostMemo* layerMemo)
{
    PipelineCosts costs;
    std::vector<ChunkCost>& chunks = costs.chunks;
    chunks = chunkCosts(model, s, hw, stageLayers, scales, layerMemo);
    const EndCosts& end = costs.end = endCosts(model, s, hw);
    chunks.front().forward_s += scales.compute * end.embedding_forward_s;
    chunks.front().backward_s += scales.compute * end.embedding_backward_s;
    // The LM head, and each multi-token-prediction module's embedding of the shifted tokens and its
    // pass through the shared head (model_description.h mtp_num_layers).
    const int mtp = model.mtp_num_layers;
    chunks.back().forward_s += scales.compute * (end.head_forward_s + mtp * (end.head_forward_s + end.embedding_forward_s));
    chunks.back().backward_s
        += scales.compute * (end.head_backward_s + mtp * (end.head_backward_s + end.embedding_backward_s));
    const double h = model.hidden_size;
    const double embeddingParams = double(model.vocab_size) * h / s.tp;
    chunks.front().dense_params += embeddingParams;
    chunks.back().dense_params += embeddingParams; // the LM head (a copy when tied and pp > 1)
    if (s.pp == 1 && model.tied_embeddings)
        chunks.back().dense_params -= embeddingParams;
    // With MTP the last stage builds the embedding too (GPTModel: "if self.pre_process or
    // self.mtp_process", gpt_model.py @ d98e8a64); untied, it is another copy beside the head.
    if (mtp > 0 && s.pp > 1 && !model.tied_embeddings)
        chunks.back().dense_params += embeddingParams;

    const hardware::ClusterDescription& cluster = hw.cluster();
    const double tokens = double(s.micro_batch_size) * model.seq_length / s.cp;
    costs.send_bytes = kBytes * tokens * h / (s.sequence_parallel ? s.tp : 1);
    costs.p2p_bytes = scales.pp * costs.send_bytes;
    costs.output_bytes = kBytes * tokens * model.vocab_size / s.tp;
    costs.cross_node = static_cast<long long>(s.tp) * s.cp * s.dp >= cluster.scaleUpGpus()
        && cluster.worldSize() > cluster.scaleUpGpus();
    return costs;
}

std::vector<StageChunkSums> stageChunkSums(const PipelineCosts& costs, const ParallelStrategy& s)
{
    const int p = s.pp;
    const std::vector<ChunkCost>& chunks = costs.chunks;
    std::vector<StageChunkSums> stages(static_cast<std::size_t>(p));
    const KeptActivation kept(s, costs.send_bytes);
    for (int i = 0; i < p; ++i) {
        StageChunkSums& sums = stages[std::size_t(i)];
        for (int j = 0; j < s.vpp; ++j) {
            const ChunkCost& c = chunks[std::size_t(j * p + i)];
            sums.dense_params += c.dense_params;
            sums.expert_params += c.expert_params;
            sums.activation_bytes += kept.bytes(c.activation_bytes, std::size_t(j * p + i), chunks.size());
            sums.transient_bytes = std::max(sums.transient_bytes, c.transient_bytes);
            sums.forward_s += c.forward_s;
            sums.backward_s += c.backward_s;
        }
    }
    return stages;
}

double pipelineLowerBoundS(const std::vector<ChunkCost>& chunks, int pp, int vpp, int microbatches, bool zbH1)
{
    const int p = pp;
    const int m = microbatches;
    double head = 0;
    double tail = 0;
    double bound = 0;
    for (int i = 0; i < p; ++i) {
        double work = 0;
        for (int j = 0; j < vpp; ++j) {
            const ChunkCost& c = chunks[std::size_t(j * p + i)];
            work += c.forward_s + c.backward_s;
        }
        const double tailHere = zbH1 ? 0.0 : tail;
        bound = std::max(bound, head + m * work + tailHere);
        head += chunks[std::size_t(i)].forward_s;
        tail += chunks[std::size_t(i)].backward_s;
    }
    return bound;
}

} // namespace stratex::megatron
