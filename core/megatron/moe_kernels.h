// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The MoE layer's expert compute as Megatron-Core and Transformer Engine run it: the busiest EP
// rank's routed load (routing statistics, capacity factor), the experts' GEMMs as TE's grouped
// linear launches them (one cuBLAS GEMM per local expert over four streams), and the host time of
// the layer's forward after the dispatcher's device-to-host sync. docs/moe.md, "Expert compute".

#include <optional>

#include "core/hardware/hardware_model.h"
#include "core/megatron/cuda_graphs.h"

namespace stratex::megatron {

// Expected maximum of n independent standard normal variables (Blom's approximation,
// Phi^-1((n - 0.375) / (n + 0.25)); 0 for n <= 1).
double expectedMaxStandardNormal(int n);

// The busiest EP rank's routed token-expert pairs over the mean rank's, per micro-batch and layer,
// for a router that picks each token's top-k uniformly at random without replacement: what
// Megatron's --moe-router-force-load-balancing does (router.py: random normal logits,
// moe_utils.py apply_random_logits), as every MoE reference record ran. `groupTokens`: the tokens
// the EP group routes in one micro-batch (all its ranks). A rank's load is a sum of independent
// per-token hypergeometric counts, normal at these sizes; the max over `ep` ranks is mean +
// sigma x expectedMaxStandardNormal(ep). `capacityFactor` (Megatron --moe-expert-capacity-factor):
// an expert keeps at most that multiple of the mean; dropped pairs are not computed
// (token_dispatcher.py get_capacity), so the factor is at most capacityFactor. 1 without EP.
double routedLoadMaxOverMean(
    double groupTokens, int experts, int topK, int ep, std::optional<double> capacityFactor = std::nullopt);

// Transformer Engine's GroupedLinear (Megatron --moe-grouped-gemm with TE, Hopper and Ampere): one
// cuBLAS GEMM per local expert, issued round-robin on 4 compute streams
// (transformer_engine/common/gemm/cublaslt_gemm.cu multi_stream_cublas_gemm,
// common/util/multi_stream.cpp num_compute_streams = 4, TransformerEngine d0067d0d): at most 4
// experts' GEMMs share the SMs at a time. Each of `experts` GEMMs is m x k by k x n. Seconds.
double teGroupedLinearS(const hardware::HardwareModel& hw, double m, double n, double k, bool fp8, double experts);

// The HBM bytes the experts' weight-gradient GEMMs move beyond the layer model's convention (a
// backward GEMM pass costs twice its forward's, operands and a 16-bit output): with
// --gradient-accumulation-fusion (Megatron's default) TE's GroupedLinear writes each expert's
// weight gradient into its main_grad with accumulate=True (GEMM beta 1: read and write the
// main_grad; transformer_engine/pytorch/module/grouped_linear.py _GroupedLinear.backward,
// `wgrad_list = main_grads`, `accumulate=accumulate_wgrad_into_param_main_grad`, TransformerEngine
// 71bbefbf; Megatron-Core's TEGroupedLinear passes fuse_wgrad_accumulation =
// config.gradient_accumulation_fusion, extensions/transformer_engine.py at d7288711 and 1e057005).
// Per weight element the dgrad reads the weight (2 B), the wgrad reads and writes the main grad
// (2 x `mainGradBytes`), against the convention's 2 x 2 B: (2 x mainGradBytes - 2) bytes an element,
// 6 with fp32 main grads, 2 with bf16. Dense layers pay the same, but there the wgrad's K is the
// rank's tokens (4,096 and more) and its share is inside the fitted GEMM rate; an expert's K is its
// tokens (1,024 on the EP 8 rows), where the traffic is a third of the GEMM's time and is counted
// here. `weightElements`: the rank's local experts' fc1 and fc2 weights of one layer. 0 without
// the fusion (its separate add is not modelled). docs/moe.md, "The experts' weight-gradient
// accumulation".
double teGroupedWgradAccumulateExtraBytes(double weightElements, double mainGradBytes, bool accumulationFusion);

// Kernels TE's grouped linear launches per forward of one projection: a GEMM per expert, and with
// FP8 each expert's input quantized apart (transformer_engine/pytorch/module/grouped_linear.py
// tex.split_quantize): under current scaling amax, scale and cast, 4 kernels an expert
// (docs/moe.md, "The host-bound forward").
int teGroupedLinearKernels(double experts, bool fp8);

// Megatron-Core's TEGroupedMLP builds linear_fc2 with skip_bias_add=True and, when the experts
// have biases (MoeDescription::linear_bias, gpt-oss), adds fc2's bias times the routing
// probability in PyTorch, one expert at a time (megatron/core/transformer/moe/experts.py
// TEGroupedMLP._apply_bias at NVIDIA/Megatron-LM d7288711, the 26.04 container's, Megatron-Bridge
// r0.4.1 aeefb3ab's 3rdparty/Megatron-LM):
//   torch.cat([t + b * p for t, b, p in zip(split(out), biases, split(probs))]).to(out.dtype)
// The probabilities have the router's dtype (`probsBytes`): the logits' (16-bit) unless
// --moe-router-dtype fp32, since both the unfused top-k (moe_utils.py
// topk_routing_with_score_function: softmax in fp32, then .type_as(logits)) and TE's fused one
// ("probs ... in the same dtype as the logits", transformer_engine/pytorch/router.py, 71bbefbf)
// return them so. b * p, the sum and the concatenation take that dtype (q bytes); with q = 4 the
// cast writes the 16-bit output again, with q = 2 it is a no-op. fc1's bias is added in the GEMM
// (skip_bias_add=False: TE's GroupedLinear epilogue; its gradient in the wgrad GEMM's). HBM bytes
// and host operations of one layer's fc2 bias, n = routedPairs x hidden elements, 16-bit out:
// forward: b * p writes qn; the add reads 2n + qn, writes qn; cat reads and writes qn; the cast
// (q = 4) reads 4n, writes 2n: 12n at q = 2, 28n at q = 4. Backward (autograd): the cast's
// backward (q = 4: reads 2n, writes 4n) and t's gradient cast back (q = 4: reads 4n, writes 2n);
// mul's gradients for the probabilities (grad x b: reads qn, writes qn; summed over hidden: reads
// qn) and for the bias (grad x p, the same 3qn); the split's backward concatenating the 16-bit
// gradients (reads and writes 2n): 16n at q = 2, 40n at q = 4. Operations: forward two splits, a
// mul and an add per expert, the cat (and the cast at q = 4); the backward twice that
// (host_overhead.h's convention). docs/moe.md, "The experts' fc2 bias".
struct ExpertBiasPasses {
    double forward_bytes = 0;
    double backward_bytes = 0;
    int forward_ops = 0;
    int backward_ops = 0;
};
inline constexpr double kRouterProbsBytes = 2; // Megatron's default router dtype: the logits' bf16
ExpertBiasPasses expertFc2BiasPasses(
    double routedPairs, double hidden, double localExperts, double probsBytes = kRouterProbsBytes);

// Host operations (PyTorch ops and launches) that Megatron-Core issues for one MoE layer's
// forward after the token dispatcher's device-to-host sync of the token counts
// (token_dispatcher.py _maybe_dtoh_and_synchronize, "before_ep_alltoall" / "before_finish";
// DeepEP's normal dispatch waits on the CPU for the receive counts): the permutation, the
// dispatch, the experts (teGroupedLinearKernels for fc1 and fc2, the activation), the combine and
// unpermutation, and the next layer's attention block and router up to its own sync; with
// `linearBias` the fc2 bias's operations (expertFc2BiasPasses).
int moeForwardHostOps(double localExperts, bool fp8, bool linearBias = false);

// Kernels TE's grouped linear launches per backward of one projection: a data- and a
// weight-gradient GEMM per expert (transformer_engine/pytorch/module/grouped_linear.py
// _GroupedLinear.backward, general_grouped_gemm for dgrad and for wgrad, TransformerEngine
// d0067d0d) and, with FP8, the output gradient quantized per expert as the forward's input was.
int teGroupedLinearBackwardKernels(double experts, bool fp8);

// Host operations of the same layer's backward: the forward's operations outside the experts
// twice (host_overhead.h's convention for a backward) and the experts' backward kernels of fc1 and
// fc2 (teGroupedLinearBackwardKernels). No sync in the backward: the host runs ahead while it can,
// so only a layer whose host time exceeds its GPU time waits on it (hostBoundExtraS).
// docs/moe.md, "The host-bound backward".
int moeBackwardHostOps(double localExperts, bool fp8, bool linearBias = false);

// The same operations by the combined 1F1B's schedule node that issues them
// (megatron/core/models/gpt/fine_grained_callables.py, d98e8a64): pre_dispatch (the attention
// block, the router and the dispatcher's preprocess: permutation 1 and the counts' device-to-host
// copies), dispatch (the token and probability all-to-alls), mlp (dispatch_postprocess's sort, the
// experts, combine_preprocess's sort) and combine (the all-to-all and combine_postprocess's
// unpermutation). They add up to moeForwardHostOps.
struct MoeForwardNodeOps {
    int pre_dispatch = 0;
    int dispatch = 0;
    int mlp = 0;
    int combine = 0;
};
MoeForwardNodeOps moeForwardNodeHostOps(double localExperts, bool fp8, bool linearBias = false);

// The same operations by the region a CUDA graph can capture (cuda_graphs.h; Megatron's
// --cuda-graph-modules attn, moe_router, moe_preprocess): of pre_dispatch, the attention block
// (20), the router (25) and the dispatcher's preprocess (15); the rest (permutation 1, dispatch,
// experts, combine) stays eager. The forward adds up to moeForwardHostOps, the backward (each
// region's twice, host_overhead.h's convention) to moeBackwardHostOps. After the dispatcher's
// sync the GPU's queue is empty: the layer's forward lasts at least the host's time to issue its
// operations (Megatron-Core MoE README, "CPU Overhead Bottleneck": "gaps between GPU kernels where
// CPU cannot launch kernels fast enough"); layer_cost.cpp charges it with hostBoundExtraS.
LayerHostOps moeForwardHostRegions(double localExperts, bool fp8, bool linearBias = false);
LayerHostOps moeBackwardHostRegions(double localExperts, bool fp8, bool linearBias = false);

} // namespace stratex::megatron
