// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/layer_cost.h"

#include <algorithm>
#include <optional>

#include "core/model/mla_shapes.h"

#include "core/hardware/kernel_shapes.h"
#include "core/megatron/attention_kernel_choice.h"
#include "core/megatron/cp_comm.h"
#include "core/megatron/cp_ring.h"
#include "core/megatron/dp_traffic.h"
#include "core/megatron/elementwise_passes.h"
#include "core/megatron/host_overhead.h"
#include "core/megatron/moe_dispatch.h"
#include "core/megatron/mlp_activation_memory.h"
#include "core/megatron/moe_kernels.h"
#include "core/megatron/qk_norm_memory.h"
#include "core/megatron/te_fp8_casts.h"
#include "core/megatron/tp_async_backward.h"
#include "core/megatron/tp_overlap_splits.h"
#include "core/megatron/unfused_attention_memory.h"
#include "core/megatron/unfused_rope.h"

namespace stratex::megatron {

namespace {

constexpr double kBytes = 2; // bf16/fp16 activations (FP8 keeps 16-bit activations between GEMMs)

// Multi-head latent attention on one rank (DeepSeek-V2, arXiv 2405.04434, §2.1.2-2.1.3; Megatron-LM
// megatron/core/transformer/multi_latent_attention.py MLASelfAttention at d98e8a64). The down
// projections (linear_q_down_proj, linear_kv_down_proj) are TELinear "duplicated": every TP rank
// runs them on its own tokens (s/tp with sequence parallelism, all s without) and the latents are
// not split over TP; the up projections (linear_q_up_proj, linear_kv_up_proj) are column-parallel
// and linear_proj row-parallel over the heads. A query/key head is nope + rope wide, a value head
// v; the RoPE key (qk_pos_emb_head_dim) is one per token, broadcast to every head.
struct MlaAttention {
    double gemm_s = 0; // the five projections (four with q_lora_rank 0)
    double core_flops_share = 0; // flash attention's work against heads of headDim(): (qk + v) / 2 headDim()
    double q_width = 0; // per token on this rank: heads/tp x (nope + rope)
    double k_width = 0;
    double v_width = 0; // heads/tp x v; the attention output too
    double latent_bytes = 0; // kept for backward by the latents' norms and up projections
    double memory_bytes = 0; // the two latent norms and RoPE on the rope parts
    double up_proj_s = 0; // linear_q_up_proj and linear_kv_up_proj: what "mla_up_proj" recomputes
    double rope_bytes = 0; // RoPE on q_pe and the shared k_pe (part of memory_bytes)
};

MlaAttention mlaAttention(const model::ModelDescription& model, const ParallelStrategy& s,
    const hardware::HardwareModel& hw, double tokens, double spShare, double gemmInputShare, bool fp8)
{
    const model::MlaDescription& mla = *model.mla;
    const double tp = s.tp;
    const double h = model.hidden_size;
    const double headsHere = model.num_heads / tp;
    const double qk = mla.qk_nope_head_dim + mla.qk_rope_head_dim;
    MlaAttention a;
    a.q_width = headsHere * qk;
    a.k_width = headsHere * qk;
    a.v_width = headsHere * mla.v_head_dim;
    const double ownTokens = tokens * spShare; // the duplicated down projections' tokens
    const double qUp = mla.q_lora_rank > 0 ? hw.gemmS(tokens, a.q_width, mla.q_lora_rank, fp8) : 0.0;
    if (mla.q_lora_rank > 0)
        a.gemm_s += hw.gemmS(ownTokens, mla.q_lora_rank, h, fp8) + qUp;
    else
        a.gemm_s += hw.gemmS(tokens, a.q_width, h, fp8); // linear_q_proj, column-parallel
    const double kvUp = hw.gemmS(tokens, headsHere * (mla.qk_nope_head_dim + mla.v_head_dim), mla.kv_lora_rank, fp8);
    a.gemm_s += hw.gemmS(ownTokens, mla.kv_lora_rank + mla.qk_rope_head_dim, h, fp8) + kvUp
        + hw.gemmS(tokens, h, a.v_width, fp8);
    a.up_proj_s = qUp + kvUp;
    a.core_flops_share = (qk + mla.v_head_dim) / (2.0 * model.headDim());
    // Kept for backward: each latent's norm input (q_layernorm, kv_layernorm) and its up
    // projection's input (the normalised latent; FP8: its 1-byte cast), on the rank's own tokens.
    // The RoPE key's rotation keeps only its cos/sin tables. Q, K, V and the output are the
    // attention's own (the caller's splitAttention).
    const double latents = mla.kv_lora_rank + (mla.q_lora_rank > 0 ? mla.q_lora_rank : 0);
    a.latent_bytes = kBytes * ownTokens * latents * (1 + gemmInputShare);
    a.rope_bytes = 2 * kBytes * tokens * (headsHere + 1) * mla.qk_rope_head_dim; // RoPE on q_pe and the shared k_pe
    a.memory_bytes = 2 * kBytes * ownTokens * latents // the norms: read + write
        + a.rope_bytes;
    return a;
}

// The exposed time of TP collectives that are split into tp chunks and pipelined with the GEMMs
// that consume or produce them (docs/collectives.md, "TP communication overlap"). All-gather then
// GEMM: the GEMM starts on the rank's own shard while the other tp - 1 shards arrive, each chunk's
// GEMM hiding the next shard's transfer (PyTorch torch/distributed/_symmetric_memory/__init__.py
// _pipelined_all_gather_and_consume, torchtitan AsyncTP; Transformer Engine's userbuffers
// ring-exchange split_pipelined all-gather, Megatron-Core --tp-comm-overlap): tp - 1 of the tp GEMM
// chunks overlap the transfers. GEMM then reduce-scatter: each chunk's partial result is sent
// while the next chunk computes; the last chunk's transfer (1/tp of the reduce-scatter, half of
// `commS`) stays exposed. What the GEMM chunks cannot cover is exposed too.
double exposedPipelinedTpS(double commS, double gemmS, int tp)
{
    const double chunks = std::max(1, tp);
    const double hiding = gemmS * (chunks - 1) / chunks;
    return std::max(0.5 * commS / chunks, commS - hiding);
}

// Flash attention's backward time over its forward time (docs/kernels.md §4). FLOPs: the backward
// runs five matmuls of the forward's size against its two, 2.5x (FlashAttention-2, Dao 2023, §4.1,
// the FLOP count of its benchmarks). Speed: FlashAttention-3 (Shah et al. 2024, arXiv 2407.08608,
// §4.1, the forward and backward figures at head dim 128 on H100 SXM5) measures the backward at
// 0.86-0.87 of the forward's TFLOP/s at 8K and 16K tokens for FlashAttention-2 (318/370,
// 322/370), cuDNN (518/600, 516/595) and FlashAttention-3 (559/646, 561/648) alike: the backward
// recomputes the probabilities and accumulates dQ across key blocks. 2.5 / 0.865 = 2.89.
constexpr double kFlashBackwardFlopsRatio = 2.5;
constexpr double kFlashBackwardSpeedRatio = 0.865;
constexpr double kFlashBackwardOverForward = kFlashBackwardFlopsRatio / kFlashBackwardSpeedRatio;

} // namespace

int layernormRecomputeNorms(bool mla, bool moeLayer)
{
    return (mla ? 1 : 0) + (moeLayer ? 1 : 0);
}

LayerCost layerCost(const model::ModelDescription& model, const ParallelStrategy& s, const hardware::HardwareModel& hw,
    bool moeLayer, bool recomputed)
{
    const bool fp8 = s.precision == Precision::Fp8;
    const bool gated = model.mlp == model::MlpKind::Gated;
    // The run's --hidden-dropout when the model says it (open-sci-ref: SwiGLU with Megatron's default
    // 0.1); else GPT-3-style training uses dropout 0.1, Llama/Qwen-style none.
    const bool dropout = model.hidden_dropout ? *model.hidden_dropout > 0 : !gated;
    const double tp = s.tp;
    const double b = s.micro_batch_size;
    const double seq = double(model.seq_length) / s.cp; // tokens of a sequence on this CP rank
    const double tokens = b * seq;
    const double h = model.hidden_size;
    const double kv = model.kvHiddenSize();
    // Q and the attention output: heads x head_dim, which need not be h (Qwen 3: 64 x 128 against
    // h 4096; Megatron-LM attention.py query_projection_size, d98e8a64).
    const double q = model.attentionWidth();
    const double spShare = s.sequence_parallel ? 1.0 / tp : 1.0; // norms, residuals, dropout

    // Transformer Engine's FP8 Linear keeps the FP8 cast of its input for the weight-gradient GEMM
    // instead of the 16-bit tensor (transformer_engine/pytorch/module/linear.py, saved_inputmat):
    // the GEMM inputs kept for backward take one byte per element.
    const double gemmInputShare = fp8 ? 0.5 : 1.0;

    LayerCost cost;
    // Under FP8 Transformer Engine's modules (Megatron-Core, Megatron-Bridge) cast where TE does:
    // fused into the norms and activations, the output gradients once for both backward GEMMs
    // (te_fp8_casts.h; docs/kernels.md §8). The dense GEMMs are then the kernels alone.
    const bool teFp8 = fp8 && runsTeFp8Linears(s.framework);
    const auto denseGemmS = [&](double m, double n, double k) {
        return teFp8 ? hardware::gemmKernelS(hw, m, n, k, true, 1) : hw.gemmS(m, n, k, fp8);
    };
    // Attention block: QKV projection, flash attention (causal: half the s^2 work), output projection.
    double gemm = denseGemmS(tokens, (q + 2 * kv) / tp, h) + denseGemmS(tokens, h, q / tp);
    // MLA's per-token widths on this rank: Q, K, V (the attention output is V's).
    double qWidth = 0;
    double kWidth = 0;
    double vWidth = 0;
    double outputWidth = 0;
    double attentionShare = 1; // flash attention's work against heads of headDim()
    std::optional<MlaAttention> mla;
    if (model.mla) {
        mla = mlaAttention(model, s, hw, tokens, spShare, gemmInputShare, fp8);
        gemm = mla->gemm_s;
        qWidth = mla->q_width;
        kWidth = mla->k_width;
        vWidth = mla->v_width;
        outputWidth = mla->v_width;
        attentionShare = mla->core_flops_share;
    }
    // Ring CP's steps (cp_ring.h); hierarchical CP's ring over its a2a groups (cp_comm.h).
    const int cpA2a = s.cp > 1 && s.cp_comm_type == CpCommType::A2aP2p
        ? cpA2aGroupSize(s.cp, s.tp, hw.cluster().scaleUpGpus(), model.num_heads / s.tp, model.num_kv_heads / s.tp)
        : 1;
    const int ringSteps = s.cp_comm_type == CpCommType::P2p ? s.cp : s.cp_comm_type == CpCommType::A2aP2p ? s.cp / cpA2a : 1;
    double attention = 0;
    double scoreBytes = 0; // the materialised attention scores without flash attention
    // The kernel the plan runs on this GPU, not the flag alone: on Volta every framework falls
    // back to the unfused path (attention_kernel_choice.h).
    const bool fusedAttention = resolvedAttentionKernel(s, hw.cluster().gpu.name) != hardware::AttentionKernel::Unfused;
    // The dropout on the attention probabilities (model.attention_dropout; OPT's is 0).
    const bool attentionDropout = model.attentionDropout();
    if (fusedAttention) {
        // causal: half the square; MLA: QK^T over nope + rope, PV over v (Megatron-LM training.py
        // num_floating_point_operations, standard_self_attn_core_term, d98e8a64).
        // The kernel's grid: b x heads/tp x blocks of the rank's seq queries (ring CP launches one
        // per step on the rank's chunk; Ulysses the same CTA count, heads/cp over all tokens).
        attention = hardware::flashAttentionS(hw, 4.0 * b * seq * model.seq_length * q / tp * 0.5 * attentionShare,
            b * model.num_heads / tp, seq, model.seq_length);
        // The kernel the plan runs, at its published rate relative to flash-attn 2 (docs/kernels.md §6).
        // A ring runs all but its diagonal step without the causal mask (attention_kernel_choice.h).
        attention *= attentionKernelTimeFactor(s, hw, model::qkHeadDim(model), seq, ringSteps);
    } else {
        // Two batched GEMMs over the full square, then scale-mask-softmax and dropout on the
        // b x heads x s x s scores (each read and written once).
        // Each is one batched launch over the b x heads/tp matrices (torch.baddbmm / bmm): their
        // tiles share the waves.
        const double heads = model.num_heads / tp;
        // In 16 bits under FP8 too: FP8 covers the linear layers; Megatron's and TE's unfused
        // attention run torch.baddbmm / bmm on the 16-bit Q, K, V (docs/kernels.md §8).
        const double bmm = hardware::groupedGemmS(hw, seq, model.seq_length, model::qkHeadDim(model), false, b * heads)
            + hardware::groupedGemmS(hw, seq, model::vHeadDim(model), model.seq_length, false, b * heads);
        scoreBytes = kBytes * b * heads * seq * model.seq_length;
        attention = bmm + hw.memoryBoundS(2 * scoreBytes * (attentionDropout ? 2.5 : 1));
    }

    // MLP: dense, or routed experts (+ shared experts) on the tokens this rank's experts receive.
    // Each part's forward time and kept bytes are held apart for selective recompute's modules.
    // The norms' and the activation's passes over HBM: fused, or eager PyTorch's separate kernels
    // (elementwise_passes.h; docs/kernels.md, "Eager and compiled blocks").
    const ElementwisePasses passes = elementwisePasses(
        model, elementwiseForm(s.framework, s.compile, s.tp_comm_overlap && s.sequence_parallel && s.tp > 1));
    const double upWidth = gated ? 2.0 : 1.0;
    double mlpActivation = 0; // bytes kept by the MLP beyond its input
    double elementwise = 0; // bytes the activation function moves
    double epComm = 0; // one pass's dispatch + combine (moe_dispatch.h), before any overlap
    double mlpGemm = 0; // the dense MLP's, or the routed experts' and the router's GEMMs
    double routedActOutputBytes = 0; // the experts' activation outputs (fc2 inputs)
    double routedActBytes = 0; // what the experts' activation function moves
    double routedPairs = 0; // token-expert pairs this rank computes
    double moeLoad = 1; // the busiest EP rank's routed pairs over the mean (moe_kernels.h)
    double moeLocalExperts = 0;
    bool expertBias = false; // the experts' fc2 bias added in PyTorch (moe_kernels.h expertFc2BiasPasses)
    ExpertBiasPasses biasPasses; // its bytes and operations on the busiest rank
    double expertWgradExtraBytes = 0; // the experts' main_grad accumulation (moe_kernels.h)
    double sharedGemm = 0;
    double sharedActivation = 0;
    double sharedElementwise = 0;
    if (moeLayer) {
        const model::MoeDescription& moe = *model.moe;
        const double etp = s.etp;
        const double moeTokens = tokens * etp / tp; // after SP sharding, gathered over expert TP
        const double routed = moeTokens * moe.top_k; // token-expert pairs this rank computes
        routedPairs = routed;
        const double perExpert = routed * s.ep / moe.num_experts;
        const double localExperts = double(moe.num_experts) / s.ep;
        const double fe = moe.expert_ffn_hidden_size / etp;
        // The busiest EP rank's routed load sets the layer's pace (moe_kernels.h); the experts'
        // GEMMs as TE's GroupedLinear launches them: one per expert over 4 streams.
        moeLoad = routedLoadMaxOverMean(moeTokens * s.ep, moe.num_experts, moe.top_k, s.ep, moe.capacity_factor);
        moeLocalExperts = localExperts;
        mlpGemm += teGroupedLinearS(hw, perExpert * moeLoad, upWidth * fe, h, fp8, localExperts)
            + teGroupedLinearS(hw, perExpert * moeLoad, h, fe, fp8, localExperts);
        mlpGemm += hw.gemmS(tokens * spShare, moe.num_experts, h); // router
        mlpActivation
            += kBytes * routed * ((h + fe) * gemmInputShare + upWidth * fe) + 4.0 * moeTokens * moe.num_experts;
        routedActOutputBytes = kBytes * routed * fe * gemmInputShare;
        routedActBytes = kBytes * routed * passes.activation * fe;
        elementwise += moeLoad * (routedActBytes + 2 * kBytes * routed * h); // act + permute
        if (moe.shared_experts > 0) {
            const double fs = double(moe.shared_experts) * moe.shared_expert_ffn_hidden_size / tp;
            sharedGemm = hw.gemmS(tokens, upWidth * fs, h, fp8) + hw.gemmS(tokens, h, fs, fp8);
            sharedActivation = kBytes * tokens * (upWidth + gemmInputShare) * fs;
            sharedElementwise = kBytes * tokens * passes.activation * fs;
        }
        epComm = moeLoad * moeDispatchPassS(model, s, hw, moeTokens);
        // Megatron-Core's experts (Megatron-LM, Megatron-Bridge / NeMo); other frameworks' are not modelled.
        const bool megatronExperts = s.framework == Framework::MegatronCore || s.framework == Framework::MegatronBridge;
        // Each local expert's fc1 and fc2 weights, their weight gradients accumulated into main_grad.
        if (megatronExperts)
            expertWgradExtraBytes = teGroupedWgradAccumulateExtraBytes(localExperts * (upWidth + 1) * fe * h,
                s.main_grads_dtype == StateDtype::Bf16 ? 2.0 : 4.0, s.gradient_accumulation_fusion);
        if (moe.linear_bias && megatronExperts) {
            expertBias = true;
            // The router's probabilities in the logits' bf16 (Megatron's default router dtype; the
            // model has no --moe-router-dtype fp32 setting).
            biasPasses = expertFc2BiasPasses(moeLoad * routed, h, localExperts, kRouterProbsBytes);
        }
    } else {
        const double f = model.ffn_hidden_size / tp;
        mlpGemm += denseGemmS(tokens, upWidth * f, h) + denseGemmS(tokens, h, f);
        // The activation's input and fc2's input; ReLU keeps one tensor for both (mlp_activation_memory.h).
        mlpActivation += kBytes * tokens * mlpKeptWidths(model, gemmInputShare) * f;
        elementwise += kBytes * tokens * passes.activation * f;
    }
    gemm += mlpGemm + sharedGemm;
    mlpActivation += sharedActivation;
    elementwise += sharedElementwise;

    // Memory-bound ops: two norms (fused: read + write; eager composite RMSNorm: 18 passes), two
    // residual adds (2 reads + write), rotary on q and k, dropout (read, write, mask).
    const double hidden = kBytes * tokens * h;
    double memoryBytes = (2 * passes.norm + 2 * 3 + (dropout ? 2 * 2.5 : 0)) * hidden * spShare + elementwise;
    if (mla)
        memoryBytes += mla->memory_bytes;
    else if (model.position == model::PositionEmbedding::Rope)
        memoryBytes += passes.rope * kBytes * tokens * (q + kv) / tp;
    // --qk-layernorm: Q and K normed per head as the layer's norms run (qk_norm_memory.h).
    const QkNormWork qkNorm = qkNormWork(model, tokens, tp, passes.norm, passes.norm_kernels);
    memoryBytes += qkNorm.forward_bytes;
    // Megatron-Bridge runs a YaRN model's RoPE unfused: its extra passes and operations (unfused_rope.h).
    const UnfusedRopeExtra ropeExtra
        = runsUnfusedRope(model, s.framework) ? unfusedRopeExtra(tokens * (q + kv) / tp) : UnfusedRopeExtra {};
    const int kernels = layerForwardKernels(moeLayer) + passes.extra_forward_kernels + biasPasses.forward_ops
        + ropeExtra.forward_ops + qkNorm.forward_kernels;
    // Without flash attention the backward of the two batched GEMMs is twice theirs and the
    // softmax/dropout backward about as much again as its forward: 2.5x as before.
    const double attentionBackward = (fusedAttention ? kFlashBackwardOverForward : 2.5) * attention;
    // Ring CP's steps: their own kernels and the merges of their partial results (cp_ring.h).
    // All-gather and hierarchical CP: cp_comm.h (docs/context-parallel.md).
    // K and V of the rank's s/cp tokens: the ring's chunk, what all-gather CP gathers cp of.
    // torchtitan's ring carries K/V after repeat_kv, every query head's (cp_ring.h, ringKvWidth).
    const double ringKv = ringKvWidth(s.framework, q, kv);
    const double chunkBytes = mla ? kBytes * tokens * (kWidth + vWidth) : 2 * kBytes * tokens * ringKv / tp;
    const CpRingWork ringWork = s.cp > 1 && s.cp_comm_type == CpCommType::AllGather ? allGatherCpWork(chunkBytes * s.cp)
        : ringSteps > 1 ? ringCpWork(ringSteps, s.framework, tokens * cpA2a, (mla ? qWidth : q / tp) / cpA2a,
                              (mla ? 0.5 * (kWidth + vWidth) : ringKv / tp) / cpA2a)
                        : CpRingWork {};
    DenseLayerFp8Casts fp8Casts; // TE's casts (te_fp8_casts.h); MLA keeps groupedGemmS's per-GEMM charge
    if (teFp8 && !mla) {
        DenseLayerFp8Shape castShape;
        castShape.tokens = tokens;
        castShape.hidden = h;
        castShape.qkv_width = (q + 2 * kv) / tp;
        castShape.proj_input_width = q / tp;
        castShape.fc1_width = upWidth * model.ffn_hidden_size / tp;
        castShape.fc2_input_width = model.ffn_hidden_size / tp;
        castShape.tp = s.tp;
        castShape.sequence_parallel = s.sequence_parallel;
        castShape.dense_mlp = !moeLayer;
        castShape.scaling = fp8Scaling(resolvedFp8Recipe(s)); // the plan's recipe (fp8_recipe.h)
        fp8Casts = denseLayerFp8Casts(hw, castShape);
    }
    cost.forward_compute_s = fp8Casts.forwardS() + gemm + attention + hw.memoryBoundS(memoryBytes + ringWork.forward_bytes)
        + hw.kernelOverheadS(kernels + ringWork.forward_kernels);
    cost.backward_compute_s = fp8Casts.backward_s + 2 * gemm + attentionBackward + 2 * hw.memoryBoundS(memoryBytes)
        + hw.memoryBoundS(ringWork.backward_bytes) + hw.kernelOverheadS(2 * kernels + ringWork.backward_kernels);
    // The experts' fc2 bias (gpt-oss): its own forward and backward passes, not 2x (moe_kernels.h).
    const double biasForwardS = hw.memoryBoundS(biasPasses.forward_bytes);
    cost.forward_compute_s += biasForwardS;
    cost.backward_compute_s += hw.memoryBoundS(biasPasses.backward_bytes);
    cost.forward_compute_s += hw.memoryBoundS(ropeExtra.forward_bytes);
    cost.backward_compute_s += hw.memoryBoundS(ropeExtra.backward_bytes);
    const double expertWgradExtraS = hw.memoryBoundS(expertWgradExtraBytes);
    cost.backward_compute_s += expertWgradExtraS;

    // Tensor parallelism: two all-reduces per pass, or with SP two all-gathers + two
    // reduce-scatters of the same bytes (Megatron, no TP communication overlap).
    double tpComm = 0;
    const hardware::GroupShape tpGroup { s.tp, 1 };
    // Under Transformer Engine's FP8 a gather moves the FP8 cast, one byte an element: QKV's and
    // fc1's inputs are quantized before their forward gather, linear_proj's and fc2's output
    // gradients before their backward one (TE v2.9 layernorm_linear.py gather_along_first_dim with
    // the quantizer, base.py grad_output_preprocess "FP8 with all-gather"; TE 1.8 7d576ed2 gathers
    // the uint8 ln_out and the cast grad_output_c). The reduce-scatters stay 16-bit. A MoE layer's
    // MLP side is the token dispatcher's, in 16 bits; MLA's down projections are not gathered.
    // torchtitan's float8 TP does the same: with float8 linears its plan takes torchao's
    // Float8ColwiseParallel, Float8RowwiseParallel and PrepareFloat8ModuleInput (torchtitan 9dec370
    // parallelize_llama.py apply_tp), which cast the attention's and the MLP's input to float8
    // before the Shard -> Replicate redistribute and the output gradient before the backward's
    // (NoopFwToFloat8BwDynamic; torchao/float8/float8_tensor_parallel.py @ eab345c, the benchmark's
    // torchao); its reduce-scatters stay 16-bit.
    const bool fp8Gathers = teFp8 || (fp8 && s.framework == Framework::Torchtitan);
    const double attentionGather = fp8Gathers && !mla ? 0.5 : 1.0;
    const double mlpGather = fp8Gathers && !moeLayer ? 0.5 : 1.0;
    const auto gatherS = [&] {
        const double attentionS = hw.allGatherS(hidden * attentionGather, tpGroup);
        return mlpGather == attentionGather ? attentionS : 0.5 * (attentionS + hw.allGatherS(hidden * mlpGather, tpGroup));
    };
    if (s.tp > 1)
        tpComm = s.sequence_parallel ? 2 * (gatherS() + hw.reduceScatterS(hidden, tpGroup))
                                     : 2 * hw.allReduceS(hidden, tpGroup);
    // Context parallelism. Ring (p2p): every rank receives the other ranks' K and V step by step,
    // each transfer under one step of the attention, the backward's dK and dV going round as well
    // (cp_ring.h: Transformer Engine's and PyTorch's rings; docs/collectives.md, "Ring context
    // parallelism").
    // Ulysses (a2a; Jacobs et al. 2023, §3.1): an all-to-all turns the rank's Q, K and V of s/cp
    // tokens and all its heads into s tokens of heads/cp before attention, another turns the output
    // back; the backward runs the same two on the gradients. Transformer Engine issues them on the
    // compute stream's critical path, so they are not hidden.
    double cpForward = 0;
    double cpBackward = 0;
    if (s.cp > 1 && (s.cp_comm_type == CpCommType::A2a || (s.cp_comm_type == CpCommType::A2aP2p && cpA2a > 1))) {
        // Hierarchical CP runs the all-to-alls over its a2a level only (cp_comm.h).
        const hardware::GroupShape cpGroup { s.cp_comm_type == CpCommType::A2a ? s.cp : cpA2a, s.tp };
        const double qkvBytes = mla ? kBytes * tokens * (qWidth + kWidth + vWidth) : kBytes * tokens * (q + 2 * kv) / tp;
        const double outputBytes = mla ? kBytes * tokens * outputWidth : kBytes * tokens * q / tp;
        cpForward = hw.allToAllS(qkvBytes, cpGroup) + hw.allToAllS(outputBytes, cpGroup);
        cpBackward = cpForward;
    }
    if (s.cp > 1 && s.cp_comm_type == CpCommType::AllGather) {
        // K and V gathered, dK and dV reduce-scattered in the tensors' 16-bit dtype, all exposed.
        const hardware::GroupShape cpGroup { s.cp, s.tp };
        const CpRingExposure exposure = allGatherCpExposure(
            hw.allGatherS(chunkBytes * s.cp, cpGroup), hw.reduceScatterS(chunkBytes * s.cp, cpGroup));
        cpForward = exposure.forward_s;
        cpBackward = exposure.backward_s;
    } else if (ringSteps > 1) { // after hierarchical CP's all-to-alls
        // MLA exchanges the up-projected K (nope + rope) and V heads, not the latent. Hierarchical
        // CP's ring runs over the ranks cpA2a apart, each step the same bytes (a x the tokens,
        // 1/a of the heads), a step 1/(cp/a) of the attention.
        const hardware::GroupShape cpGroup { ringSteps, s.tp * cpA2a };
        // A step's send/recv runs at the ring's slowest hop: across nodes once the ring leaves
        // the NVLink domain (every GPU of the node in some ring at once: the node's NICs shared).
        const bool crossNode = hw.spansNodes(cpGroup);
        CpRingInput ring;
        ring.cp = ringSteps;
        ring.framework = s.framework;
        ring.compiled = s.framework == Framework::Torchtitan
            && elementwiseForm(s.framework, s.compile, s.tp_comm_overlap && s.sequence_parallel && s.tp > 1)
                == ElementwiseForm::Fused;
        ring.forward_attention_s = attention;
        ring.backward_attention_s = attentionBackward;
        ring.kv_step_s = hw.p2pS(chunkBytes, crossNode);
        ring.kv_dkv_step_s = hw.p2pS(2 * chunkBytes, crossNode);
        ring.kv_all_gather_s = hw.allGatherS(chunkBytes * ringSteps, cpGroup);
        ring.dkv_fp32_step_s = hw.p2pS(2 * chunkBytes, crossNode); // fp32: twice the 16-bit bytes
        const CpRingExposure exposure = ringCpExposure(ring);
        cpForward += exposure.forward_s;
        cpBackward += exposure.backward_s;
    }
    // TP communication overlap (tp_comm_overlap, which needs sequence parallelism: Megatron-LM
    // arguments.py validate_args; torchtitan's AsyncTP rewrites the SequenceParallel plan's
    // all-gather + matmul and matmul + reduce-scatter pairs, torch/_inductor/fx_passes/
    // micro_pipeline_tp.py). The attention block's gather and scatter pair with its QKV and output
    // projections, the MLP's with fc1 and fc2 (a MoE layer's routed experts are not among them:
    // their TP traffic stays exposed). The backward's gathers and scatters pair with the data- and
    // weight-gradient GEMMs (2x the forward's; Transformer Engine overlaps the input re-gather with
    // the dgrad GEMM, "bulk" overlap).
    double tpForward = tpComm;
    double tpBackward = tpComm;
    if (s.tp_comm_overlap && s.sequence_parallel && s.tp > 1) {
        const double attentionGemm = gemm - mlpGemm - sharedGemm;
        const double overlapped = moeLayer ? 0.5 * tpComm : tpComm; // the attention block's half for MoE
        const double window = moeLayer ? attentionGemm + sharedGemm : gemm;
        tpForward = tpComm - overlapped + exposedPipelinedTpS(overlapped, window, s.tp);
        tpBackward = tpComm - overlapped + exposedPipelinedTpS(overlapped, 2 * window, s.tp);
        // The GEMMs run in pieces to pair with the chunks (tp_overlap_splits.h): each piece fills
        // fewer waves. A MoE layer's attention block only; MLA's projections are not modelled.
        if (!mla) {
            const TpOverlapSplits splits = tpOverlapSplits(s.framework, s.tp);
            const double qkvWidth = (q + 2 * kv) / tp;
            double forwardExtra = splitGemmExtraS(denseGemmS, tokens, qkvWidth, h, splits.column_forward, splits.concurrent)
                + splitGemmExtraS(denseGemmS, tokens, h, q / tp, splits.row_forward, splits.concurrent);
            double backwardExtra = splitGemmExtraS(denseGemmS, tokens, q / tp, h, splits.row_backward, splits.concurrent)
                + splitGemmExtraS(denseGemmS, tokens, h, qkvWidth, splits.column_backward, splits.concurrent);
            if (!moeLayer) {
                const double f = model.ffn_hidden_size / tp;
                forwardExtra += splitGemmExtraS(denseGemmS, tokens, upWidth * f, h, splits.column_forward, splits.concurrent)
                    + splitGemmExtraS(denseGemmS, tokens, h, f, splits.row_forward, splits.concurrent);
                backwardExtra += splitGemmExtraS(denseGemmS, tokens, f, h, splits.row_backward, splits.concurrent)
                    + splitGemmExtraS(denseGemmS, tokens, h, upWidth * f, splits.column_backward, splits.concurrent);
            }
            cost.forward_compute_s += forwardExtra;
            cost.backward_compute_s += backwardExtra;
        }
    } else if (runsAsyncTpBackward(s) && !mla) {
        // Megatron's asynchronous backward (tp_async_backward.h): the column-parallel linears' input
        // gradient reduction under their weight-gradient GEMM and, with SP, the input's re-gather
        // under the data-gradient GEMM. The row-parallel linears' output-gradient gathers (SP)
        // stay exposed; a MoE layer's MLP side keeps its collectives as they were.
        const double slowdown = ncclComputeSlowdown(hw, tpGroup);
        const double f = model.ffn_hidden_size / tp;
        const double qkvWidth = (q + 2 * kv) / tp;
        const auto column = [&](double width, double gatherShare) {
            ColumnLinearBackward l;
            l.dgrad_s = denseGemmS(tokens, h, width);
            l.wgrad_s = denseGemmS(width, h, tokens);
            if (s.sequence_parallel) {
                l.regather_s = hw.allGatherS(hidden * gatherShare, tpGroup);
                l.grad_reduce_s = hw.reduceScatterS(hidden, tpGroup);
            } else {
                l.grad_reduce_s = hw.allReduceS(hidden, tpGroup);
            }
            return exposedAsyncTpBackwardS(l, slowdown);
        };
        // With SP each block's row-parallel linear gathers its output gradient (exposed).
        const double attentionRowS = s.sequence_parallel ? hw.allGatherS(hidden * attentionGather, tpGroup) : 0.0;
        const double attentionS = attentionRowS + column(qkvWidth, attentionGather);
        if (moeLayer) {
            const double attentionHalf = 0.5 * tpComm;
            tpBackward = tpComm - attentionHalf + attentionS;
        } else {
            const double mlpRowS = s.sequence_parallel ? hw.allGatherS(hidden * mlpGather, tpGroup) : 0.0;
            tpBackward = attentionS + mlpRowS + column(upWidth * f, mlpGather);
        }
    }
    // EP dispatch/combine: exposed, or under the partner micro-batch's compute (moe_dispatch.h).
    // The experts' part of the compute (routed GEMMs, router, activation and permutation) against
    // the rest; the backward doubles the GEMMs and memory traffic.
    const double expertsForward
        = moeLayer ? mlpGemm + hw.memoryBoundS(routedActBytes + 2 * kBytes * routedPairs * h) + biasForwardS : 0.0;
    const MoeLayerCompute parts { cost.forward_compute_s - expertsForward, expertsForward,
        cost.backward_compute_s - 2 * expertsForward - expertWgradExtraS, 2 * expertsForward + expertWgradExtraS };
    // A model chunk's layers (the whole model without a pipeline) pair up in the combined 1F1B.
    const int chunkLayers = std::max(1, model.num_layers / std::max(1, s.pp * s.vpp));
    // The host's operations by region: a Megatron MoE layer's own count (moe_kernels.h), else
    // layerForwardKernels' (host_overhead.h); CUDA graphs replay what they capture (cuda_graphs.h).
    LayerHostOps forwardOps;
    LayerHostOps backwardOps;
    if (moeLayer && s.framework != Framework::Torchtitan) {
        forwardOps = moeForwardHostRegions(moeLocalExperts, fp8, expertBias);
        forwardOps.attention += ropeExtra.forward_ops + qkNorm.forward_kernels;
        backwardOps = moeBackwardHostRegions(moeLocalExperts, fp8, expertBias);
        backwardOps.attention += ropeExtra.backward_ops + 2 * qkNorm.forward_kernels;
    } else {
        forwardOps = denseLayerHostOps(kernels, ropeExtra.forward_ops + qkNorm.forward_kernels, false);
        forwardOps.attention += ringWork.forward_kernels;
        backwardOps = denseLayerHostOps(kernels, ropeExtra.forward_ops + qkNorm.forward_kernels, true);
    }
    backwardOps.attention += ringWork.backward_kernels;
    // The host issues the pair's nodes and waits in the forward's dispatch (moe_dispatch.h).
    const EpExposure ep = exposedEpComm(s, hw, epComm, parts, chunkLayers,
        moeLayer ? combinedHostIssue(moeLocalExperts, fp8, expertBias, s.cuda_graphs) : CombinedHostIssue {});
    // A pass lasts at least its host's time (host_overhead.h; a MoE forward after its dispatcher's sync).
    cost.forward_compute_s += hostBoundExtraS(cost.forward_compute_s + tpForward + cpForward + ep.forward_s,
        issuedHostOps(s.cuda_graphs, forwardOps, moeLayer));
    cost.backward_compute_s += hostBoundExtraS(cost.backward_compute_s + tpBackward + cpBackward + ep.backward_s,
        issuedHostOps(s.cuda_graphs, backwardOps, moeLayer));
    cost.forward_comm_s = tpForward + cpForward + ep.forward_s;
    cost.backward_comm_s = tpBackward + cpBackward + ep.backward_s;
    cost.tp_forward_comm_s = tpForward;
    cost.tp_backward_comm_s = tpBackward;
    cost.ep_comm_s = ep.forward_s;
    cost.cp_forward_comm_s = cpForward;
    cost.cp_backward_comm_s = cpBackward;

    // Activations kept for backward (Korthikanti et al. §4.1): replicated over TP without SP are
    // the two norm inputs, the QKV and fc1 inputs and the dropout masks; the rest is split.
    const double replicated // norm inputs 2x2sbh, qkv/fc1 inputs 2x2sbh (FP8: 2x1sbh), dropout masks
        = hidden * (2 + 2 * gemmInputShare) + (dropout ? hidden : 0);
    // Q, K, V, the attention output (linear_proj's input) and flash attention's fp32 logsumexp:
    // Korthikanti's 2sbh (Q, K) + 2sbh (V, output) at the attention widths (q, kv, kv, q); MLA's
    // latents beside them (mlaAttention).
    const double splitAttention = mla
        ? kBytes * tokens * (qWidth + kWidth + vWidth + outputWidth) + 4.0 * tokens * model.num_heads / tp
            + mla->latent_bytes
        : kBytes * tokens * (2 * q + 2 * kv) / tp + 4.0 * tokens * model.num_heads / tp;
    cost.activation_bytes = replicated * spShare + splitAttention + mlpActivation;
    cost.activation_bytes += qkNormActivationBytes(model, tokens, tp); // --qk-layernorm (qk_norm_memory.h)
    const bool attentionRecomputed
        = s.recompute == Recompute::Selective && s.recompute_modules.has(RecomputeModule::CoreAttn);
    // The scores' kept tensors as the framework's attention code keeps them (Korthikanti's 5as/h
    // term for Megatron's; Hugging Face's eager attention for DeepSpeed: unfused_attention_memory.h).
    if (!fusedAttention && !attentionRecomputed)
        cost.activation_bytes += scoreBytes / kBytes * unfusedAttentionBytesPerScore(s.framework, attentionDropout);
    cost.input_bytes = hidden * spShare;

    if (recomputed && s.recompute == Recompute::Full) {
        cost.recompute_s = cost.forwardS();
    } else if (s.recompute == Recompute::Selective && s.framework == Framework::Torchtitan && !moeLayer) {
        // What torchtitan's policies rerun (torchtitan_activations.h, "What the backward reruns"):
        // a checkpointed block its forward, the op policy wk, wo, w3 and the memory-bound work.
        if (s.recompute_num_layers > 0) {
            cost.recompute_s = recomputed ? cost.forwardS() : 0.0;
        } else {
            const double fLocal = model.ffn_hidden_size / tp;
            const double rerunGemm = denseGemmS(tokens, kv / tp, h) + denseGemmS(tokens, h, q / tp)
                + (gated ? denseGemmS(tokens, fLocal, h) : denseGemmS(tokens, h, fLocal));
            cost.recompute_s = rerunGemm + hw.memoryBoundS(memoryBytes) + hw.kernelOverheadS(kernels) + 0.5 * tpForward;
        }
    } else if (s.recompute == Recompute::Selective) {
        // Megatron's --recompute-modules: each module's forward runs again in the backward and
        // what it kept is not held between the passes (during one layer's backward it is, briefly).
        const auto recomputes = [&](RecomputeModule module) { return s.recompute_modules.has(module); };
        double dropped = 0;
        double again = 0;
        if (recomputes(RecomputeModule::CoreAttn))
            again += attention;
        if (recomputes(RecomputeModule::Layernorm)) {
            // Only a norm that is its own module: Megatron-Core's Transformer Engine layer spec
            // (gpt_layer_specs.py, d98e8a64) fuses the input norm into linear_qkv
            // (TELayerNormColumnParallelLinear) except before MLA's down projections, and the
            // pre-MLP norm into a dense MLP's fc1; a MoE layer keeps its pre-MLP norm (the router's
            // and the dispatcher's input). transformer_layer.py recomputes a norm only when it is
            // not an IdentityOp. Each dropped norm output is what the next GEMM keeps.
            const int norms = layernormRecomputeNorms(mla.has_value(), moeLayer);
            dropped += norms * hidden * gemmInputShare * spShare;
            again += hw.memoryBoundS(norms * 2 * hidden * spShare) + hw.kernelOverheadS(norms);
        }
        if (mla && recomputes(RecomputeModule::MlaUpProj)) {
            // "mla_up_proj" (multi_latent_attention.py, d98e8a64: qkv_up_checkpoint, a
            // CheckpointWithoutOutput around the up projections and RoPE): Q, K and V are dropped
            // once the core attention has run and rebuilt from the latents in its backward.
            dropped += kBytes * tokens * (qWidth + kWidth + vWidth);
            again += mla->up_proj_s + hw.memoryBoundS(mla->rope_bytes) + hw.kernelOverheadS(4);
        }
        const bool wholeMlp = moeLayer ? recomputes(RecomputeModule::Moe) : recomputes(RecomputeModule::Mlp);
        if (wholeMlp) {
            dropped += mlpActivation;
            again += mlpGemm + sharedGemm + fp8Casts.forward_mlp_s + hw.memoryBoundS(elementwise) + biasForwardS
                + hw.kernelOverheadS(moeLayer ? 16 : 4);
            cost.recompute_ep_comm_s = epComm;
        } else if (moeLayer) {
            if (recomputes(RecomputeModule::MoeAct)) {
                dropped += routedActOutputBytes;
                again += hw.memoryBoundS(routedActBytes) + hw.kernelOverheadS(1);
            }
            if (recomputes(RecomputeModule::SharedExperts)) {
                dropped += sharedActivation;
                again += sharedGemm + hw.memoryBoundS(sharedElementwise) + hw.kernelOverheadS(3);
            }
        }
        cost.activation_bytes -= dropped;
        cost.transient_bytes = dropped;
        cost.recompute_s = again;
    }
    return cost;
}

} // namespace stratex::megatron
