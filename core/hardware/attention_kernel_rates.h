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

// Whether `gpuName` is a Hopper (sm90) preset: the GPUs the relative rates were measured on.
bool isHopperGpu(std::string_view gpuName);

} // namespace stratex::hardware
