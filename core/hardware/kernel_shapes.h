// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How much of a GPU's full-wave rate a GEMM or a flash-attention kernel of a given shape gets:
// tile and wave quantization on the GPU's streaming multiprocessors (docs/kernels.md). Pure
// functions of the shape and the SM count; the stratex cost model's HardwareModel multiplies them
// with the fitted full-wave efficiencies (Efficiency::gemm, Efficiency::attention).

#include <string>

namespace stratex::hardware {

class HardwareModel;

// Streaming multiprocessors of a GPU preset (datasheets; docs/kernels.md §1), by the preset's name:
// a100-* 108, h100-80gb / h800-80gb / h100-96gb 132, b200-192gb 148, l40s-48gb 142, v100-* 80. 0 for any
// other name (a GPU described in a cluster file): unknown, no quantization.
int presetSmCount(const std::string& gpuName);

// The launch a GEMM library would choose for C (m x n) = A (m x k) B (k x n), `groups` such
// GEMMs in one grouped launch (MoE experts), and the share of the SMs' time it spends on useful
// multiply-adds.
struct GemmTiling {
    int tile_m = 0;
    int tile_n = 0;
    int split_k = 1; // k cut into this many slices (partial sums reduced afterwards)
    double waves = 0; // CTAs per SM: at least 1 (docs/kernels.md §3)
    // Useful work over the SM time the launch occupies, tile reuse included: 1 for a GEMM that
    // fills whole waves of the largest tile.
    double efficiency = 1;
};

// cuBLAS-style choice over output tiles 128x256, 256x128, 128x128, 128x64, 64x128, 64x64 and
// split-K 1, 2, 4, 8 (slices of at least 256): the candidate with the shortest time, where a tile's
// time is its k-loop at the rate its operand reuse allows (smaller tiles reuse less:
// Tm·Tn/(Tm+Tn) against 128x256's) plus `tileFixedK` k-steps of fixed cost (prologue and
// epilogue; 0: none). Tile quantization: sides padded to whole tiles. Wave quantization: a launch
// of fewer CTAs than SMs leaves the others idle (waves = 1); beyond one wave the last partial wave
// is spread over all SMs (waves = CTAs / SMs), as Stream-K's hybrid schedule does (Osama et al.,
// PPoPP 2023) -- the strict ceil(CTAs / SMs) made the cross-validated error worse (docs/kernels.md
// §3). `smCount` 0: no quantization (efficiency 1).
// `splitReduceCost` is the time of reducing one extra fp32 partial of m x n, in units of one
// full-efficiency k-step of the whole GPU (0: free); it steers split-K off where partials cost more.
GemmTiling gemmTiling(
    double m, double n, double k, int smCount, double groups = 1, double tileFixedK = 0, double splitReduceCost = 0);

// Flash attention's forward grid: one CTA per (sequence, head, block of 128 queries). With the
// causal mask a CTA's work grows with its query block; kernels issue the longest first, so the
// launch takes max(average load per SM, the longest CTA). Returns the useful share of the SMs' time
// (1 = whole waves of equal CTAs), and counts the causal diagonal blocks computed in full
// (1 + 128/keys more work than the exact triangle). `smCount` 0: 1.
double flashAttentionOccupancy(double batchHeads, double queries, double keys, bool causal, int smCount);

// The GEMM kernel alone: `groups` GEMMs of m x k by k x n in one grouped launch (MoE experts, a
// batched bmm), in seconds: compute at Efficiency::gemm x gemmTiling's efficiency on the GPU's
// SMs (FP8: x Efficiency::fp8_speedup, its operands one byte), plus the operands' memory traffic.
// What torch.matmul and torch._scaled_mm time on the device (tst_device_kernels).
double gemmKernelS(const HardwareModel& hw, double m, double n, double k, bool fp8, double groups);

// A GEMM as a training framework runs it: the kernel, and under FP8 each group's input quantized
// first (fp8_gemm.h, the assumed recipe). HardwareModel::gemmS is this with one group.
double groupedGemmS(const HardwareModel& hw, double m, double n, double k, bool fp8, double groups);

// Flash attention of `forwardFlops` (forward; layer_cost.cpp derives the backward) at the attention efficiency
// scaled by flashAttentionOccupancy on the GPU's SMs, in seconds.
double flashAttentionS(
    const HardwareModel& hw, double forwardFlops, double batchHeads, double queries, double keys, bool causal = true);

} // namespace stratex::hardware
