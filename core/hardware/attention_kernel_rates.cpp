// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/attention_kernel_rates.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace stratex::hardware {

namespace {

// Shah, Bikshandi, Zhang, Thakkar, Ramani, Dao, "FlashAttention-3: Fast and Accurate Attention with
// Asynchrony and Low-precision", arXiv 2407.08608 (2024), §4.1 benchmarks: BF16 on one H100 80GB
// SXM5, batch x sequence = 16K tokens, hidden 2048 (heads = 2048 / head dim), TFLOP/s as the
// paper counts them (causal: half the FLOPs). Values as labelled on the bars of its figures.
// The sequence lengths of every panel: 512, 1K, 2K, 4K, 8K, 16K.
constexpr std::size_t kPoints = 6;
using Panel = std::array<AttentionKernelPoint, kPoints>;

// Forward, causal mask, head dim 128 (Fig. 5, causal hdim-128 panel).
constexpr Panel kForwardCausal128 { { { 512, 191, 315, 292 }, { 1024, 260, 410, 423 }, { 2048, 298, 484, 521 },
    { 4096, 319, 518, 579 }, { 8192, 333, 529, 602 }, { 16384, 335, 539, 616 } } };
// Backward, head dim 128 (Fig. 6; the paper shows the backward without the causal mask only).
constexpr Panel kBackward128 { { { 512, 214, 305, 316 }, { 1024, 260, 408, 424 }, { 2048, 291, 465, 501 },
    { 4096, 310, 499, 542 }, { 8192, 318, 518, 559 }, { 16384, 322, 516, 561 } } };
// Forward without the causal mask at head dims 64, 128 and 256 (Fig. 5): the head-dim dependence.
// At 512/hdim 128 the two transcriptions we read swap cuDNN's and FA3's bars (497 / 467): both
// taken as their mean, 482.
constexpr Panel kForward64 { { { 512, 282, 335, 333 }, { 1024, 306, 373, 392 }, { 2048, 318, 395, 460 },
    { 4096, 321, 408, 476 }, { 8192, 322, 412, 496 }, { 16384, 324, 413, 497 } } };
constexpr Panel kForward128 { { { 512, 309, 482, 482 }, { 1024, 350, 574, 565 }, { 2048, 362, 617, 625 },
    { 4096, 368, 609, 638 }, { 8192, 370, 600, 646 }, { 16384, 370, 595, 648 } } };
constexpr Panel kForward256 { { { 512, 208, 308, 286 }, { 1024, 251, 391, 427 }, { 2048, 278, 450, 537 },
    { 4096, 293, 483, 612 }, { 8192, 297, 497, 628 }, { 16384, 298, 509, 642 } } };

// The flash backward's FLOPs over the forward's (docs/kernels.md §4): the training time of a kernel
// with forward rate f and backward rate b is 1/f + 2.5/b per forward FLOP.
constexpr double kBackwardFlopsOverForward = 2.5;

double kernelTflops(const AttentionKernelPoint& p, AttentionKernel kernel)
{
    return kernel == AttentionKernel::Cudnn ? p.cudnn_tflops : p.flash3_tflops;
}

// Panel ratio kernel / FA2 at point i.
double forwardRatio(const Panel& panel, std::size_t i, AttentionKernel kernel)
{
    return kernelTflops(panel[i], kernel) / panel[i].flash2_tflops;
}

// Training-time ratio at head dim 128 and point i, then scaled by the forward ratio's change with
// head dim (the only head-dim panels the paper shows are forward, non-causal: an assumption that
// the backward follows the forward's head-dim trend).
double ratioAt(std::size_t i, AttentionKernel kernel, double log2HeadDim)
{
    const AttentionKernelPoint& f = kForwardCausal128[i];
    const AttentionKernelPoint& b = kBackward128[i];
    const double flash2 = 1 / f.flash2_tflops + kBackwardFlopsOverForward / b.flash2_tflops;
    const double other = 1 / kernelTflops(f, kernel) + kBackwardFlopsOverForward / kernelTflops(b, kernel);
    const double at128 = flash2 / other;
    const double clamped = std::clamp(log2HeadDim, 6.0, 8.0);
    const double r64 = forwardRatio(kForward64, i, kernel);
    const double r128 = forwardRatio(kForward128, i, kernel);
    const double r256 = forwardRatio(kForward256, i, kernel);
    const double rHead = clamped <= 7 ? r64 + (r128 - r64) * (clamped - 6) : r128 + (r256 - r128) * (clamped - 7);
    return at128 * rHead / r128;
}

// A kernel's causal forward and its forward without the mask at head dim 128, point i.
double causalForward(std::size_t i, AttentionKernel kernel)
{
    return kernel == AttentionKernel::Flash2 ? kForwardCausal128[i].flash2_tflops
                                             : kernelTflops(kForwardCausal128[i], kernel);
}
double fullForward(std::size_t i, AttentionKernel kernel)
{
    return kernel == AttentionKernel::Flash2 ? kForward128[i].flash2_tflops : kernelTflops(kForward128[i], kernel);
}
double backward(std::size_t i, AttentionKernel kernel)
{
    return kernel == AttentionKernel::Flash2 ? kBackward128[i].flash2_tflops : kernelTflops(kBackward128[i], kernel);
}

// Training time of one causal FLOP over one unmasked FLOP at point i (the backward's rate is the
// paper's one, unmasked, for both: it shows no causal backward).
double maskRatioAt(std::size_t i, AttentionKernel kernel)
{
    const double b = backward(i, kernel);
    return (1 / causalForward(i, kernel) + kBackwardFlopsOverForward / b)
        / (1 / fullForward(i, kernel) + kBackwardFlopsOverForward / b);
}

} // namespace

double attentionUnmaskedSpeedup(AttentionKernel kernel, std::string_view gpuName, double seqLength)
{
    if (kernel != AttentionKernel::Flash2 && kernel != AttentionKernel::Cudnn && kernel != AttentionKernel::Flash3)
        return 1;
    if (!isHopperGpu(gpuName) || seqLength <= 0)
        return 1;
    const double x = std::clamp(std::log2(seqLength), 9.0, 14.0) - 9;
    const std::size_t i = std::min<std::size_t>(std::size_t(x), kPoints - 2);
    const double t = x - double(i);
    return maskRatioAt(i, kernel) * (1 - t) + maskRatioAt(i + 1, kernel) * t;
}

bool isHopperGpu(std::string_view gpuName)
{
    for (std::string_view prefix : { "h100", "h800", "h200", "h20-", "gh200" }) {
        if (gpuName.substr(0, prefix.size()) == prefix)
            return true;
    }
    return false;
}

double attentionKernelRelativeRate(AttentionKernel kernel, std::string_view gpuName, double headDim, double seqLength)
{
    if (kernel != AttentionKernel::Cudnn && kernel != AttentionKernel::Flash3)
        return 1;
    if (!isHopperGpu(gpuName) || headDim <= 0 || seqLength <= 0)
        return 1;
    const double x = std::clamp(std::log2(seqLength), 9.0, 14.0) - 9; // 0 at 512, 5 at 16K
    const std::size_t i = std::min<std::size_t>(std::size_t(x), kPoints - 2);
    const double t = x - double(i);
    const double logHead = std::log2(headDim);
    return ratioAt(i, kernel, logHead) * (1 - t) + ratioAt(i + 1, kernel, logHead) * t;
}

} // namespace stratex::hardware
