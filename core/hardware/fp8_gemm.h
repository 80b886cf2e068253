// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What an FP8 GEMM costs beyond its kernel: Transformer Engine quantizes the GEMM's 16-bit input
// to FP8 before each GEMM, a memory-bound pass (or two) over it and a few kernel launches
// (docs/kernels.md §8). The FP8 kernel itself is kernel_shapes.h's gemmKernelS at
// Efficiency::fp8_speedup times the BF16 full-wave rate, on the same tiles and waves.

namespace stratex::hardware {

class HardwareModel;

// Per-tensor FP8 scaling recipes of Transformer Engine (transformer_engine/common/recipe,
// NVIDIA/TransformerEngine d0067d0d):
// - Delayed: the scale comes from the amax history; one fused kernel casts (row-wise and, on
//   Hopper, the transposed column-wise copy) and records the amax (Float8Quantizer::quantize).
// - Current ("tensorwise"): the amax of this tensor first, then its scale, then the cast: three
//   kernels and two reads of the input (Float8CurrentScalingQuantizer::quantize_impl:
//   nvte_compute_amax_with_config, nvte_compute_scale_from_amax, nvte_quantize_v2).
enum class Fp8Scaling { Delayed, Current };

struct Fp8Quantization {
    double bytes_per_element = 0; // HBM bytes moved per input element
    int kernels = 0; // launches per quantized tensor
};

// Delayed: read 2 bytes, write 1 (row-wise) + 1 (the column-wise transpose Hopper's FP8 GEMMs
// need for the backward: "columnwise usage requires a physical transpose", TE
// docs/features/low_precision_training/performance_considerations) = 4 bytes, 1 kernel.
// Current: one more 2-byte read for the amax = 6 bytes, 3 kernels.
Fp8Quantization fp8Quantization(Fp8Scaling scaling);

// Quantizing `elements` 16-bit values to FP8 under `scaling`, in seconds: the bytes at the HBM
// rate memory-bound kernels reach (HardwareModel::memoryBoundS) plus the launches
// (HardwareModel::kernelOverheadS).
double fp8QuantizeS(const HardwareModel& hw, double elements, Fp8Scaling scaling);

// The recipe the cost model assumes for every FP8 plan: current scaling. The strategy has no
// recipe field; current scaling is what Megatron-Bridge's H100 performance configurations run
// (scripts/performance/dump_perf_configs.py, "fp8_cs", NVIDIA-NeMo/Megatron-Bridge 067f987d) and
// what the Megatron-LM export writes where delayed scaling is refused (megatron_flags.cpp).
// Delayed scaling (Megatron-LM's default --fp8-recipe, NeMo 24.07) moves 2 bytes an element less
// and launches 2 kernels fewer.
inline constexpr Fp8Scaling kAssumedFp8Scaling = Fp8Scaling::Current;

} // namespace stratex::hardware
