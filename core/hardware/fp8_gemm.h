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

// Where the 16-bit tensor a Transformer Engine module quantizes comes from (docs/kernels.md §8,
// "Which casts TE runs"):
// - Standalone: a tensor TE receives as it is (the attention output linear_proj quantizes, an
//   incoming gradient): the recipe's full quantization (fp8Quantization).
// - FusedProducer: TE's own norm or activation kernel wrote it (LayerNormLinear's norm,
//   LayerNormMLP's activation and its backward dact). Delayed scaling: that kernel writes FP8
//   itself (TE 1.8 layernorm_fwd_fp8 / activation with the fp8 meta; 2.9 normalization.cpp and
//   activation.cpp Impl::FULLY_FUSED), nothing more to cast. Current scaling: the kernel writes 16
//   bits and records the amax on the way (Impl::FUSED_NORM_AMAX_FP8, FUSED_ACTIVATION_AMAX_FP8),
//   then quantize_with_amax runs the scale and the cast: no amax pass (read 2 + write 1 + 1
//   bytes, 2 kernels). NVIDIA/TransformerEngine v2.9 70f53666, 7d576ed2 (v1.8~19, NeMo 24.07).
enum class Fp8CastSource { Standalone, FusedProducer };

// One tensor's FP8 casts as TE runs them before a GEMM, in seconds: the row-wise copy the GEMM
// reads (`rowwise_s`, when the tensor is quantized) and the column-wise (transposed) copy the other
// backward GEMM reads on Hopper (`columnwise_s`). `localElements`: the tensor on this rank before
// any all-gather; `gatherRanks` > 1: sequence parallelism gathers it over that many TP ranks after
// the cast, and TE gathers the row-wise FP8 data only ("Float8CurrentScalingQuantizer supports only
// rowwise all-gather", tensor/float8_tensor.py; TE 1.8 gathers the uint8 ln_out), so the
// column-wise copy is a transpose of the gathered tensor (read 1 + write 1 byte an element, one
// kernel) instead of a byte written by the cast. Current scaling with a gather reduces the amax
// over the TP group first (one fp32 all-reduce: with_amax_reduction, module/linear.py and
// layernorm_linear.py _customize_quantizers_float8_current_scaling, v2.9).
struct Fp8CastCost {
    double rowwise_s = 0;
    double columnwise_s = 0;
    double totalS() const { return rowwise_s + columnwise_s; }
};
Fp8CastCost teFp8CastS(
    const HardwareModel& hw, double localElements, Fp8Scaling scaling, Fp8CastSource source, int gatherRanks);

} // namespace stratex::hardware
