// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/pipeline_costs.h"

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
    chunks.back().forward_s += scales.compute * end.head_forward_s;
    chunks.back().backward_s += scales.compute * end.head_backward_s;
    const double h = model.hidden_size;
    const double embeddingParams = double(model.vocab_size) * h / s.tp;
    chunks.front().dense_params += embeddingParams;
    chunks.back().dense_params += embeddingParams; // the LM head (a copy when tied and pp > 1)
    if (s.pp == 1 && model.tied_embeddings)
        chunks.back().dense_params -= embeddingParams;

    const hardware::ClusterDescription& cluster = hw.cluster();
    const double tokens = double(s.micro_batch_size) * model.seq_length / s.cp;
    costs.send_bytes = kBytes * tokens * h / (s.sequence_parallel ? s.tp : 1);
    costs.p2p_bytes = scales.pp * costs.send_bytes;
    costs.output_bytes = kBytes * tokens * model.vocab_size / s.tp;
    costs.cross_node = static_cast<long long>(s.tp) * s.cp * s.dp >= cluster.gpus_per_node && cluster.num_nodes > 1;
    return costs;
}

} // namespace stratex::megatron
