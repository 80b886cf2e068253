// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string_view>

#include "core/hardware/attention_kernels.h"

namespace stratex::hardware {

// One published kernel benchmark point: forward and backward TFLOP/s of each kernel at one
// sequence length (docs/kernels.md §6).
struct AttentionKernelPoint {
    double seq_length = 0;
    double flash2_tflops = 0;
    double cudnn_tflops = 0;
    double flash3_tflops = 0;
};

// A kernel's training (forward + backward) rate over the reference kernel's (Flash2), at one head
// dimension and the sequence length of one kernel call (the rank's queries: s/cp under context
// parallelism), on a GPU named as the presets name it. From the FlashAttention-3 paper's H100
// benchmarks (attention_kernel_rates.cpp), interpolated in log2 of both and held at the ends of
// the measured range (sequence 512-16K, head dim 64-256). 1 for Flash2, MptTriton (costed by
// its own absolute rate, attentionKernelEfficiency), Unfused (its own path), Default (resolve it
// first, megatron::resolvedAttentionKernel), and on GPUs without a published measurement
// (non-Hopper: assumed equal to Flash2, docs/kernels.md §6).
double attentionKernelRelativeRate(AttentionKernel kernel, std::string_view gpuName, double headDim, double seqLength);

// How much faster a kernel runs a FLOP of attention without the causal mask than a causal one,
// forward + backward (1/f_causal + 2.5/b) / (1/f_full + 2.5/b), at a call of `seqLength` queries:
// the FlashAttention-3 paper's forward panels with and without the mask at head dim 128 (its
// backward panel is unmasked only: the same b for both). The causal kernel skips the masked
// blocks but runs the diagonal ones whole and its CTAs are unequal; at short calls that costs
// most (FA2 191 against 309 TFLOP/s at 512, 335 against 370 at 16K). Flash2, Cudnn and Flash3
// on Hopper; 1 otherwise (no measurement). Ring context parallelism runs all but one of its steps
// unmasked (megatron::attentionKernelTimeFactor, docs/kernels.md §6).
double attentionUnmaskedSpeedup(AttentionKernel kernel, std::string_view gpuName, double seqLength);

// Whether `gpuName` is a Hopper (sm90) preset: the GPUs the relative rates were measured on.
bool isHopperGpu(std::string_view gpuName);

} // namespace stratex::hardware
