// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/chunk_costs.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "core/megatron/layer_cost.h"
#include "core/megatron/torchtitan_activations.h"
#include "core/model/mla_shapes.h"

namespace stratex::megatron {

namespace {

constexpr double kBytes = 2;

double layerWeightsPerGpu(const model::ModelDescription& model, const model::ParameterCount& count,
    const ParallelStrategy& s, bool moeLayer, double& expertParams)
{
    // MLA's down projections are whole on every TP rank (mla_shapes.h).
    const double replicated = model::attentionReplicatedParameters(model);
    double dense = (count.attention - replicated) / s.tp + replicated + count.norms;
    if (!moeLayer)
        return dense + count.dense_mlp / s.tp;
    const model::MoeDescription& moe = *model.moe;
    expertParams += count.expert_mlp * moe.num_experts / (double(s.ep) * s.etp);
    return dense + count.shared_mlp / s.tp + count.router;
}

// The fields layerCost() reads, the others at their defaults (see LayerCostMemo). With the EP
// overlap the layer reads the pipeline too (moe_dispatch.h exposedEpComm: its paired passes and
// the chunk's layers).
ParallelStrategy layerCostKey(ParallelStrategy s)
{
    if (s.moe_ep_comm_overlap)
        return s;
    s.pp = 1;
    s.vpp = 1;
    s.dp = 1;
    s.first_stage_layers = 0;
    s.last_stage_layers = 0;
    s.zero = 0;
    s.dp_shard = 0;
    s.schedule = PipelineSchedule::OneFOneB;
    s.global_batch_size = 0;
    return s;
}

std::size_t layerCostSlot(const ParallelStrategy& key, std::size_t entries)
{
    std::uint64_t h = 0;
    for (const std::uint64_t field :
        { std::uint64_t(key.tp), std::uint64_t(key.cp), std::uint64_t(key.cp_comm_type), std::uint64_t(key.ep),
            std::uint64_t(key.etp), std::uint64_t(key.sequence_parallel), std::uint64_t(key.recompute),
            std::uint64_t(key.recompute_num_layers), std::uint64_t(key.micro_batch_size), std::uint64_t(key.precision),
            std::uint64_t(key.flash_attention), std::uint64_t(key.framework), std::uint64_t(key.attention_kernel),
            std::uint64_t(key.compile), std::uint64_t(key.fp8_recipe), std::uint64_t(key.cuda_graphs) })
        h = (h ^ field) * 0x100000001B3ull + 0x9E3779B97F4A7C15ull;
    for (const RecomputeModule module : { RecomputeModule::CoreAttn, RecomputeModule::Layernorm, RecomputeModule::Mlp,
             RecomputeModule::Moe, RecomputeModule::MoeAct, RecomputeModule::SharedExperts, RecomputeModule::MlaUpProj })
        h = (h ^ std::uint64_t(key.recompute_modules.has(module))) * 0x100000001B3ull;
    h ^= h >> 31;
    return std::size_t(h % entries);
}

// Slots of the direct-mapped memo: a DeepSeek-V3-style search on 16384 GPUs meets tens of
// thousands of layer-cost keys (tp x cp and its exchange x ep, etp x micro-batch x recompute), and
// 1024 slots evicted most of them between the pipeline shapes that share them (perf: the layer
// costs 9 % of that search with 1024 slots, 2 % with 8192; about 5 MB per search worker).
constexpr std::size_t kLayerCostEntries = 8192;

} // namespace

LayerCostMemo::Costs layerCosts(const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw)
{
    LayerCostMemo::Costs costs;
    costs.dense = layerCost(model, s, hw, false, false);
    costs.dense_recomputed = layerCost(model, s, hw, false, true);
    if (model.moe) {
        costs.moe = layerCost(model, s, hw, true, false);
        costs.moe_recomputed = layerCost(model, s, hw, true, true);
    }
    return costs;
}

const LayerCostMemo::Costs& LayerCostMemo::costs(
    const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw)
{
    if (m_entries.empty())
        m_entries.resize(kLayerCostEntries);
    ParallelStrategy key = layerCostKey(s);
    Entry& entry = m_entries[layerCostSlot(key, m_entries.size())];
    if (!entry.used || !(entry.key == key)) {
        entry.costs = layerCosts(model, s, hw);
        entry.key = std::move(key);
        entry.used = true;
    }
    return entry.costs;
}

EndCosts endCosts(const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw)
{
    const double tokens = double(s.micro_batch_size) * model.seq_length / s.cp;
    const double h = model.hidden_size;
    const double vocabShard = double(model.vocab_size) / s.tp;
    const double hidden = kBytes * tokens * h;
    const hardware::GroupShape tpGroup { s.tp, 1 };
    EndCosts end;
    end.embedding_forward_s = hw.memoryBoundS(2 * hidden) + hw.allReduceS(hidden, tpGroup) + hw.kernelOverheadS(3);
    end.embedding_backward_s = hw.memoryBoundS(4 * hidden) + hw.kernelOverheadS(3);
    const double head = hw.gemmS(tokens, vocabShard, h);
    // Cross-entropy in fp32 over the local vocabulary shard: cast, max, exp-sum, loss, gradient.
    const double lossBytes = tokens * vocabShard * (2 + 4 + 4 + 4);
    const double gather = s.sequence_parallel ? hw.allGatherS(hidden, tpGroup) : 0;
    end.head_forward_s = head + hw.memoryBoundS(lossBytes * 0.6 + 2 * hidden) + gather + hw.kernelOverheadS(8);
    end.head_backward_s = 2 * head + hw.memoryBoundS(lossBytes * 0.4 + 2 * hidden) + gather + hw.kernelOverheadS(8);
    end.logits_bytes = tokens * vocabShard * (kBytes + 4); // 16-bit logits + their fp32 copy
    if (s.cross_entropy_loss_fusion && (s.framework == Framework::MegatronCore || s.framework == Framework::MegatronBridge))
        // Megatron-Core's fused loss (megatron/core/fusions/fused_cross_entropy.py @ d98e8a64) runs
        // the unfused loss's in-place steps (tensor_parallel/cross_entropy.py: -=, exp(out=), div_,
        // and the gradient's -= and mul_) in jit_fuser functions, torch.compile from PyTorch 2.2
        // (megatron/core/jit.py), whose functionalisation writes them to a new fp32 buffer while the
        // input copy is still referenced: one more fp32 copy of the local logits at the loss
        // (docs/memory-model.md, "Fused cross-entropy loss"; measured: Megatron-LM's CI twins
        // tp2-pp2 and tp2-pp2-cefusion differ by 0.382 GiB, 4 x 1024 x 50432 / 2 x 4 B).
        end.logits_bytes += tokens * vocabShard * 4;
    if (s.framework == Framework::Torchtitan)
        // Its loss_fn's fp32 peak, and the output layer's saved input: torchtitan's ColwiseParallel
        // output layer (parallelize_llama.py @ 9dec370, input_layouts Shard(1)) all-gathers the
        // sequence-sharded norm output, and the matmul saves that whole tokens x h copy for its
        // weight gradient (Megatron's head saves the local shard and gathers it again).
        end.logits_bytes = tokens * vocabShard * torchtitanLossBytesPerLogit(s) + hidden;
    // Each multi-token-prediction module computes its own logits and loss with the shared head in
    // the forward and keeps them for the backward like the main head's (multi_token_prediction.py
    // @ d98e8a64, process_mtp_loss): one more set per module (docs/moe.md, "Multi-token prediction").
    end.logits_bytes *= 1 + model.mtp_num_layers;
    return end;
}

MtpProjectionCost mtpProjectionCost(const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw)
{
    // MultiTokenPredictionLayer (multi_token_prediction.py @ d98e8a64): enorm and hnorm on the
    // embedded shifted tokens and on the decoder's hidden states, their concatenation through
    // eh_proj (a column-parallel 2h -> h linear), the decoder layer (costed by its kind), and the
    // final layernorm. Under SP the norms run on the rank's sequence shard and eh_proj gathers its
    // 2h-wide input over TP.
    const double tokens = double(s.micro_batch_size) * model.seq_length / s.cp;
    const double h = model.hidden_size;
    const int sp = s.sequence_parallel && s.tp > 1 ? s.tp : 1;
    const double own = tokens / sp;
    const double gemm = hw.gemmS(tokens, h / s.tp, 2 * h);
    const double normBytes = 3 * kBytes * own * h * 2; // 3 norms: read and write 16 bits
    const double concatBytes = 2 * kBytes * own * 2 * h; // the concatenation: read and write 2h
    const hardware::GroupShape tpGroup { s.tp, 1 };
    const double gather = sp > 1 ? hw.allGatherS(kBytes * tokens * 2 * h, tpGroup) : 0;
    MtpProjectionCost cost;
    cost.forward_s = gemm + gather + hw.memoryBoundS(normBytes + concatBytes) + hw.kernelOverheadS(6);
    cost.backward_s = 2 * gemm + gather + hw.memoryBoundS(2 * normBytes + concatBytes) + hw.kernelOverheadS(10);
    // Saved for the backward: the three norms' inputs and eh_proj's input (the 2h concatenation, on
    // the rank's shard under SP).
    cost.activation_bytes = kBytes * own * h * 3 + kBytes * own * 2 * h;
    cost.params = 2 * h * h / s.tp + 3 * h; // eh_proj and the three norms
    return cost;
}

OffloadExposure offloadExposure(int layers, int offloaded, double bytesPerLayer, double forwardPerLayerS,
    double backwardPerLayerS, double hostLinkGbPerS)
{
    OffloadExposure exposed;
    if (offloaded <= 0 || hostLinkGbPerS <= 0)
        return exposed;
    // One side stream carries the copies one after another; layer i's copy must be done before
    // layer L - N + i starts (forward) and back before layer i's backward: the last copy of N
    // has the other L - 2 layers' compute to hide under (docs/memory-model.md).
    const double copyS = bytesPerLayer / (hostLinkGbPerS * 1e9);
    const double window = std::max(0, layers - 2);
    exposed.forward_s = std::max(0.0, offloaded * copyS - window * forwardPerLayerS);
    exposed.backward_s = std::max(0.0, offloaded * copyS - window * backwardPerLayerS);
    return exposed;
}

std::vector<ChunkCost> chunkCosts(const model::ModelDescription& model, const ParallelStrategy& s,
    const hardware::HardwareModel& hw, const std::vector<int>& stageLayers, const TimeScales& scales,
    LayerCostMemo* memo)
{
    const int p = s.pp;
    const int v = s.vpp;
    LayerCostMemo::Costs own;
    const LayerCostMemo::Costs& layers = memo ? memo->costs(model, s, hw) : (own = layerCosts(model, s, hw));
    const LayerCost& dense = layers.dense;
    const LayerCost& denseRecomputed = layers.dense_recomputed;
    const LayerCost& moe = layers.moe;
    const LayerCost& moeRecomputed = layers.moe_recomputed;
    const model::ParameterCount count = model::countParameters(model);
    const double replicatedAttention = model::attentionReplicatedParameters(model); // MLA's, whole per TP rank
    // torchtitan's selective checkpointing ("op" or every N-th block) saves other tensors than
    // Megatron's selective recompute: its dense blocks' bytes come from torchtitan_activations.h,
    // the activations of a block kept whole from the count without recompute.
    const bool titanSelective = s.framework == Framework::Torchtitan && s.recompute == Recompute::Selective;
    LayerCost denseKeptWhole;
    TorchtitanBlockActivations titan;
    if (titanSelective) {
        ParallelStrategy whole = s;
        whole.recompute = Recompute::None;
        denseKeptWhole = layerCost(model, whole, hw, false, false);
        titan = torchtitanBlockActivations(model, s);
    }
    // What one layer adds to its chunk, per kind (dense or MoE, recomputed or not under full
    // recompute): the same values each layer of the kind adds, costed once per call, not per
    // layer (issue 22: speed); the chunk still adds them layer by layer, so its sums are the
    // same to the bit.
    const bool full = s.recompute == Recompute::Full;
    struct LayerKind {
        const LayerCost* cost = nullptr;
        double forward_s = 0;
        double backward_s = 0;
        double dense_params = 0; // layerWeightsPerGpu
        double expert_params = 0; // what layerWeightsPerGpu adds to the chunk's experts
        double linear_params = 0;
    };
    const auto kindOf = [&](bool isMoe) {
        LayerKind kind;
        kind.cost = isMoe ? (full ? &moeRecomputed : &moe) : (full ? &denseRecomputed : &dense);
        kind.forward_s = kind.cost->forwardS(scales);
        kind.backward_s = kind.cost->backwardS(scales);
        kind.dense_params = layerWeightsPerGpu(model, count, s, isMoe, kind.expert_params);
        if (!isMoe)
            kind.linear_params = (count.attention - replicatedAttention + count.dense_mlp) / s.tp + replicatedAttention;
        return kind;
    };
    const LayerKind denseKind = kindOf(false);
    // torchtitan's every-N-th-block checkpointing: those blocks cost a full recompute's backward
    // (layer_cost.cpp), the others none.
    LayerKind denseCheckpointed = denseKind;
    if (titanSelective && s.recompute_num_layers > 0) {
        denseCheckpointed.cost = &denseRecomputed;
        denseCheckpointed.backward_s = denseRecomputed.backwardS(scales);
    }
    const LayerKind moeKind = model.moe ? kindOf(true) : LayerKind {};
    std::vector<ChunkCost> chunks(std::size_t(p * v));
    int layer = 0;
    for (int j = 0; j < v; ++j) {
        for (int i = 0; i < p; ++i) {
            ChunkCost& chunk = chunks[std::size_t(j * p + i)];
            const int stage = stageLayers[std::size_t(i)];
            chunk.layers = chunkLayerCount(stage, i, j, v);
            // Full recompute, Megatron's uniform method: every layer is recomputed, in groups of
            // recompute_num_layers; a group keeps its input and rebuilds its layers' activations
            // during its backward.
            const int group = std::max(1, s.recompute_num_layers);
            double groupBytes = 0;
            int offloadedLayers = 0; // CPU activation offload (below)
            double offloadedBytes = 0;
            for (int k = 0; k < chunk.layers; ++k, ++layer) {
                const bool isMoe = model.isMoeLayer(layer);
                const bool checkpointedBlock
                    = titanSelective && !isMoe && s.recompute_num_layers > 0 && torchtitanLayerCheckpointed(s, layer);
                const LayerKind& kind = isMoe ? moeKind : checkpointedBlock ? denseCheckpointed : denseKind;
                const LayerCost& c = *kind.cost;
                chunk.forward_s += kind.forward_s;
                chunk.backward_s += kind.backward_s;
                if (full) {
                    if (k % group == 0) {
                        chunk.activation_bytes += c.input_bytes;
                        groupBytes = 0;
                    }
                    groupBytes += c.activation_bytes;
                    chunk.transient_bytes = std::max(chunk.transient_bytes, groupBytes);
                } else if (titanSelective && !isMoe) {
                    const double whole = denseKeptWhole.activation_bytes;
                    if (s.recompute_num_layers <= 0) {
                        // Op-level: the saved outputs stay; the rest is rebuilt in the block's backward.
                        chunk.activation_bytes += titan.op_sac_saved_bytes;
                        chunk.transient_bytes
                            = std::max(chunk.transient_bytes, std::max(0.0, whole - titan.op_sac_saved_bytes));
                    } else if (torchtitanLayerCheckpointed(s, layer)) {
                        chunk.activation_bytes += titan.input_bytes;
                        chunk.transient_bytes = std::max(chunk.transient_bytes, whole);
                    } else {
                        chunk.activation_bytes += whole;
                    }
                } else if (layer < s.cpu_offload_layers) {
                    // CPU activation offload: the layer's saved tensors go to the host during its
                    // forward and are freed before it would be held (offloadExposure below).
                    ++offloadedLayers;
                    offloadedBytes += c.activation_bytes;
                    chunk.transient_bytes = std::max(chunk.transient_bytes, c.transient_bytes);
                } else {
                    chunk.activation_bytes += c.activation_bytes;
                    chunk.transient_bytes = std::max(chunk.transient_bytes, c.transient_bytes);
                }
                chunk.dense_params += kind.dense_params;
                if (isMoe)
                    chunk.expert_params += kind.expert_params;
                else
                    chunk.linear_params += kind.linear_params;
            }
            if (offloadedLayers > 0) {
                const OffloadExposure exposed = offloadExposure(model.num_layers, offloadedLayers,
                    offloadedBytes / offloadedLayers, chunk.forward_s / chunk.layers, chunk.backward_s / chunk.layers,
                    hw.cluster().nodeTopology().host_link_gb_per_s);
                chunk.forward_s += exposed.forward_s;
                chunk.backward_s += exposed.backward_s;
                chunk.offloaded_layers = offloadedLayers;
                chunk.offloaded_bytes = offloadedBytes;
                chunk.offload_exposed_s = exposed.forward_s + exposed.backward_s;
            }
            // The multi-token-prediction modules after the decoder, on the last chunk
            // (model_description.h mtp_num_layers): each a decoder layer of the last layer's kind
            // and the projection around it (mtpProjectionCost); the extra logits are endCosts'.
            if (model.mtp_num_layers > 0 && j == v - 1 && i == p - 1) {
                const bool lastMoe = model.isMoeLayer(model.num_layers - 1);
                const LayerKind& kind = lastMoe ? moeKind : denseKind;
                const LayerCost& c = *kind.cost;
                const MtpProjectionCost projection = mtpProjectionCost(model, s, hw);
                for (int d = 0; d < model.mtp_num_layers; ++d) {
                    chunk.forward_s += kind.forward_s + scales.compute * projection.forward_s;
                    chunk.backward_s += kind.backward_s + scales.compute * projection.backward_s;
                    chunk.activation_bytes += (full ? c.input_bytes : c.activation_bytes) + projection.activation_bytes;
                    chunk.transient_bytes = std::max(chunk.transient_bytes, full ? c.activation_bytes : c.transient_bytes);
                    chunk.dense_params += kind.dense_params + projection.params;
                    chunk.expert_params += lastMoe ? kind.expert_params : 0.0;
                    chunk.linear_params += lastMoe ? 0.0 : kind.linear_params;
                }
            }
            // torchtitan's ring attention: its backward's gathered K, V and fp32 accumulators on top
            // of the block being rebuilt (torchtitanRingAttentionBytes).
            if (s.framework == Framework::Torchtitan && chunk.layers > 0)
                chunk.transient_bytes += torchtitanRingAttentionBytes(model, s).total();
        }
    }
    return chunks;
}

} // namespace stratex::megatron
