// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/moe_kernels.h"
#include "core/megatron/host_overhead.h"

#include <algorithm>
#include <cmath>

#include "core/hardware/fp8_gemm.h"
#include "core/hardware/kernel_shapes.h"

namespace stratex::megatron {

namespace {

// Transformer Engine's compute streams for grouped GEMMs (common/util/multi_stream.cpp,
// get_num_compute_streams: `static constexpr int num_compute_streams = 4`, d0067d0d).
constexpr double kTeComputeStreams = 4;

// Operations of one MoE layer's forward from the dispatcher's sync to the next layer's, without
// the experts' GEMMs (Megatron-Core d98e8a64, no --moe-router-fusion / --moe-permute-fusion, the
// defaults; counted by reading the code path, so approximate): permute (moe_utils.py permute, ~8),
// the dispatch all-to-all of tokens and probabilities and sort_chunks_by_idxs (~8), the
// activation with the routing probabilities (~4), the combine's sort, all-to-all and unpermute
// (~10), the next layer's attention block with TE's fused modules (layernorm-linear, rotary,
// core attention, projection, bias-dropout-add, pre-MLP norm: ~20), its router (gating GEMM,
// fp32 cast, top-k, score function, routing map and probabilities, aux loss: ~25) and the
// dispatcher's preprocess (token counts, splits, their all-gather over TP x EP, device-to-host
// copies: ~15).
constexpr int kMoeLayerHostOps = 90;

// kMoeLayerHostOps by the schedule node that runs them (fine_grained_callables.py and
// moe_layer.py, d98e8a64; the same approximate count): pre_dispatch = attention block 20 + router
// 25 + preprocess 15 + permutation 1 8; dispatch = the all-to-alls of tokens and probabilities 4;
// mlp = dispatch_postprocess's sort 4 + activation 4 + combine_preprocess's sort 3 (+ the experts'
// GEMMs); combine = its all-to-all 3 + unpermutation 4.
constexpr MoeForwardNodeOps kMoeNodeHostOps { 68, 4, 11, 7 };
// pre_dispatch's regions as CUDA graphs capture them (the counts above).
constexpr int kMoeAttentionHostOps = 20;
constexpr int kMoeRouterHostOps = 25;
constexpr int kMoePreprocessHostOps = 15;
static_assert(kMoeAttentionHostOps + kMoeRouterHostOps + kMoePreprocessHostOps <= kMoeNodeHostOps.pre_dispatch);
static_assert(kMoeNodeHostOps.pre_dispatch + kMoeNodeHostOps.dispatch + kMoeNodeHostOps.mlp + kMoeNodeHostOps.combine
    == kMoeLayerHostOps);

// Abramowitz & Stegun 26.2.23: the upper-tail normal quantile for 0 < p <= 0.5, |error| < 4.5e-4.
double upperTailQuantile(double p)
{
    const double t = std::sqrt(-2.0 * std::log(p));
    return t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
}

} // namespace

double expectedMaxStandardNormal(int n)
{
    if (n <= 1)
        return 0;
    // Blom (1958): the expected i-th order statistic of n normals is about Phi^-1((i - 0.375) /
    // (n + 0.25)); for the maximum the upper tail holds 0.625 / (n + 0.25).
    return upperTailQuantile(0.625 / (n + 0.25));
}

double routedLoadMaxOverMean(double groupTokens, int experts, int topK, int ep, std::optional<double> capacityFactor)
{
    if (ep <= 1 || experts <= 1 || topK <= 0 || !(groupTokens > 0))
        return 1;
    const double e = experts;
    const double k = std::min<double>(topK, experts);
    const double local = e / ep; // experts on one rank
    // One token's pairs on a rank: hypergeometric, k draws from e with `local` successes.
    const double mean = k * local / e;
    const double variance = k * (local / e) * (1 - local / e) * (e - k) / (e - 1);
    const double rankMean = groupTokens * mean;
    const double rankSigma = std::sqrt(groupTokens * variance);
    double factor = 1 + rankSigma * expectedMaxStandardNormal(ep) / rankMean;
    if (capacityFactor && *capacityFactor > 0)
        factor = std::min(factor, *capacityFactor);
    return factor;
}

double teGroupedLinearS(const hardware::HardwareModel& hw, double m, double n, double k, bool fp8, double experts)
{
    if (!(experts > 0))
        return 0;
    // Up to 4 GEMMs at once share the SMs' waves; the launch's experts/4 rounds follow each other.
    const double concurrent = std::min(experts, kTeComputeStreams);
    return experts / concurrent * hardware::groupedGemmS(hw, m, n, k, fp8, concurrent);
}

double teGroupedWgradAccumulateExtraBytes(double weightElements, double mainGradBytes, bool accumulationFusion)
{
    if (!accumulationFusion || !(weightElements > 0))
        return 0;
    // dgrad reads the 16-bit weight (2 B), wgrad reads and writes main_grad; the convention counted
    // the weight twice at 2 B (moe_kernels.h).
    return std::max(0.0, 2 + 2 * mainGradBytes - 2 * 2.0) * weightElements;
}

int teGroupedLinearKernels(double experts, bool fp8)
{
    const int gemms = int(std::ceil(std::max(1.0, experts)));
    if (!fp8)
        return gemms;
    // Each expert's input quantized on its own before its GEMM: GroupedLinear's tex.split_quantize
    // falls back to one quantizer call per split for every recipe but delayed scaling
    // (cast.cpp multi_tensor_quantize_impl: "Currently only have fused kernel for FP8 delayed
    // scaling"; TransformerEngine f4debf66, March 2026, the records' containers; the grouped
    // current-scaling quantize came with PR #3114, June 2026). Under the assumed current scaling a
    // quantizer call is three kernels (amax, scale, cast: fp8_gemm.h), so 4 kernels an expert;
    // delayed scaling's one multi-tensor cast serves all experts.
    const hardware::Fp8Quantization q = hardware::fp8Quantization(hardware::kAssumedFp8Scaling);
    return hardware::kAssumedFp8Scaling == hardware::Fp8Scaling::Delayed ? gemms + q.kernels
                                                                          : gemms * (1 + q.kernels);
}

ExpertBiasPasses expertFc2BiasPasses(double routedPairs, double hidden, double localExperts, double probsBytes)
{
    ExpertBiasPasses p;
    const int experts = int(std::ceil(std::max(1.0, localExperts)));
    const bool cast = probsBytes > 2; // the result back to the 16-bit output (moe_kernels.h)
    p.forward_ops = 2 * experts + 3 + (cast ? 1 : 0); // a mul and an add per expert; two splits, cat (cast)
    p.backward_ops = 2 * p.forward_ops;
    if (!(routedPairs > 0) || !(hidden > 0))
        return p;
    const double n = routedPairs * hidden; // elements of fc2's output on this rank
    const double q = probsBytes;
    // b*p qn, add 2n + 2qn, cat 2qn, the cast (q + 2)n (moe_kernels.h)
    p.forward_bytes = (q + (2 + 2 * q) + 2 * q + (cast ? q + 2 : 0)) * n;
    // the cast's and t's gradient casts (q + 2)n each, probs' 3qn, bias' 3qn, the split's cat 4n
    p.backward_bytes = ((cast ? 2 * (q + 2) : 0) + 6 * q + 4) * n;
    return p;
}

int moeForwardHostOps(double localExperts, bool fp8, bool linearBias)
{
    return kMoeLayerHostOps + 2 * teGroupedLinearKernels(localExperts, fp8)
        + (linearBias ? expertFc2BiasPasses(1, 1, localExperts).forward_ops : 0);
}

int teGroupedLinearBackwardKernels(double experts, bool fp8)
{
    // A data- and a weight-gradient GEMM per expert (grouped_linear.py _GroupedLinear.backward:
    // general_grouped_gemm for dgrad, then for wgrad); under FP8 the output gradient quantized per
    // expert as the forward's input was (tex.split_quantize), the inputs kept from the forward.
    const int gemms = int(std::ceil(std::max(1.0, experts)));
    return 2 * gemms + (teGroupedLinearKernels(experts, fp8) - gemms);
}

int moeBackwardHostOps(double localExperts, bool fp8, bool linearBias)
{
    return 2 * kMoeLayerHostOps + 2 * teGroupedLinearBackwardKernels(localExperts, fp8)
        + (linearBias ? expertFc2BiasPasses(1, 1, localExperts).backward_ops : 0);
}

MoeForwardNodeOps moeForwardNodeHostOps(double localExperts, bool fp8, bool linearBias)
{
    MoeForwardNodeOps ops = kMoeNodeHostOps;
    ops.mlp += 2 * teGroupedLinearKernels(localExperts, fp8); // fc1 and fc2
    if (linearBias) // fc2's bias, added after the experts' GEMMs (experts.py _apply_bias)
        ops.mlp += expertFc2BiasPasses(1, 1, localExperts).forward_ops;
    return ops;
}

LayerHostOps moeForwardHostRegions(double localExperts, bool fp8, bool linearBias)
{
    LayerHostOps ops { kMoeAttentionHostOps, kMoeRouterHostOps, kMoePreprocessHostOps, 0 };
    ops.rest = moeForwardHostOps(localExperts, fp8, linearBias) - ops.total();
    return ops;
}

LayerHostOps moeBackwardHostRegions(double localExperts, bool fp8, bool linearBias)
{
    LayerHostOps ops { 2 * kMoeAttentionHostOps, 2 * kMoeRouterHostOps, 2 * kMoePreprocessHostOps, 0 };
    ops.rest = moeBackwardHostOps(localExperts, fp8, linearBias) - ops.total();
    return ops;
}

} // namespace stratex::megatron
