// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What an FP8 GEMM costs beyond its kernel: Transformer Engine quantizes the GEMM's 16-bit input
// to FP8 before each GEMM, a memory-bound pass (or two) over it and a few kernel launches
// (docs/kernels.md §8). The FP8 kernel itself is kernel_shapes.h's gemmKernelS at
// Efficiency::fp8_speedup times the BF16 full-wave rate, on the same tiles and waves.

namespace stratex::hardware {

class HardwareModel;

// Transformer Engine's FP8 scaling recipes (transformer_engine/common/recipe/__init__.py,
// NVIDIA/TransformerEngine d0067d0d; the strategy's setting is megatron::Fp8Recipe, fp8_recipe.h):
// - Delayed (DelayedScaling): the scale comes from the amax history; one fused kernel casts
//   (row-wise and, on Hopper, the transposed column-wise copy) and records the amax
//   (Float8Quantizer::quantize). TE 1.x had no other recipe.
// - Current (Float8CurrentScaling, Megatron's "tensorwise"): the amax of this tensor first, then its
//   scale, then the cast: three kernels and two reads of the input
//   (Float8CurrentScalingQuantizer::quantize_impl: nvte_compute_amax_with_config,
//   nvte_compute_scale_from_amax, nvte_quantize_v2).
// - Mxfp8 (MXFP8BlockScaling, Blackwell): an E8M0 scale per 32 consecutive values, computed in the
//   cast kernel itself; the row-wise and the column-wise copies are both quantized from the 16-bit
//   input ("both versions are computed from the high precision input"), one kernel.
// - Blockwise (Float8BlockScaling, Hopper): an fp32 scale per 1x128 block of activations and
//   gradients (x/grad_block_scaling_dim 1), computed in the cast kernel; both copies from the
//   16-bit input, one kernel (quantize_transpose_vector_blockwise).
enum class Fp8Scaling { Delayed, Current, Mxfp8, Blockwise };

struct Fp8Quantization {
    double bytes_per_element = 0; // HBM bytes moved per input element
    int kernels = 0; // launches per quantized tensor
};

// Delayed: read 2 bytes, write 1 (row-wise) + 1 (the column-wise transpose Hopper's FP8 GEMMs
// need for the backward: "columnwise usage requires a physical transpose", TE
// docs/features/low_precision_training/performance_considerations) = 4 bytes, 1 kernel.
// Current: one more 2-byte read for the amax = 6 bytes, 3 kernels.
// Mxfp8: read 2, write 1 + 1, and a one-byte scale per 32 values each way (2/32) = 4.0625, 1 kernel.
// Blockwise: read 2, write 1 + 1, and a 4-byte scale per 128 values each way (8/128) = 4.0625, 1 kernel.
Fp8Quantization fp8Quantization(Fp8Scaling scaling);

// Quantizing `elements` 16-bit values to FP8 under `scaling`, in seconds: the bytes at the HBM
// rate memory-bound kernels reach (HardwareModel::memoryBoundS) plus the launches
// (HardwareModel::kernelOverheadS).
double fp8QuantizeS(const HardwareModel& hw, double elements, Fp8Scaling scaling);

// The recipe the cost model assumes where a plan's recipe does not reach: the per-GEMM charge of
// groupedGemmS (the MoE experts' GroupedLinear, MLA's projections, torchtitan's torchao
// Float8Linear with its dynamic tensorwise scaling, DeepSpeed, Composer). Megatron-Core's and
// Megatron-Bridge's dense TE layers take the plan's recipe (megatron::fp8Scaling, fp8_recipe.h).
inline constexpr Fp8Scaling kAssumedFp8Scaling = Fp8Scaling::Current;

// Where the 16-bit tensor a Transformer Engine module quantizes comes from (docs/kernels.md §8,
// "Which casts TE runs"):
// - Standalone: a tensor TE receives as it is (the attention output linear_proj quantizes, an
//   incoming gradient): the recipe's full quantization (fp8Quantization).
// - FusedNorm / FusedActivation: TE's own norm (LayerNormLinear, LayerNormMLP) or activation kernel
//   (LayerNormMLP's activation and its backward dact) wrote it. Delayed scaling: that kernel writes
//   FP8 itself (TE 1.8 layernorm_fwd_fp8 / activation with the fp8 meta; 2.9 normalization.cpp and
//   activation.cpp Impl::FULLY_FUSED), nothing more to cast. Current scaling: the kernel writes 16
//   bits and records the amax on the way (Impl::FUSED_NORM_AMAX_FP8, FUSED_ACTIVATION_AMAX_FP8),
//   then quantize_with_amax runs the scale and the cast: no amax pass (read 2 + write 1 + 1
//   bytes, 2 kernels). NVIDIA/TransformerEngine v2.9 70f53666, 7d576ed2 (v1.8~19, NeMo 24.07).
//   MXFP8: the activation and dact write MXFP8 themselves (FULLY_FUSED, activation.cpp), only the
//   scales are extra; the norm runs UNFUSED unless NVTE_NORM_FWD_USE_CUDNN is set (off by
//   default; normalization.cpp), so its output is a standalone cast. Blockwise: both UNFUSED (the
//   16-bit output, then the recipe's quantize), a standalone cast. d0067d0d.
enum class Fp8CastSource { Standalone, FusedNorm, FusedActivation };

// One tensor's FP8 casts as TE runs them before a GEMM, in seconds: the row-wise copy the GEMM
// reads (`rowwise_s`, when the tensor is quantized) and the column-wise (transposed) copy the other
// backward GEMM reads on Hopper (`columnwise_s`). `localElements`: the tensor on this rank before
// any all-gather; `gatherRanks` > 1: sequence parallelism gathers it over that many TP ranks after
// the cast, and TE gathers the row-wise FP8 data only ("Float8CurrentScalingQuantizer supports only
// rowwise all-gather", tensor/float8_tensor.py; TE 1.8 gathers the uint8 ln_out), so the
// column-wise copy is a transpose of the gathered tensor (read 1 + write 1 byte an element, one
// kernel) instead of a byte written by the cast. Current scaling with a gather reduces the amax
// over the TP group first (one fp32 all-reduce: with_amax_reduction, module/linear.py and
// layernorm_linear.py _customize_quantizers_float8_current_scaling, v2.9). MXFP8 and blockwise
// quantize both copies on the rank's own part and gather each where its GEMM needs it ("For MXFP8,
// columnwise only data can be allgathered", layernorm_linear.py; _all_gather_mxfp8,
// _start_all_gather_fp8_blockwise in distributed.py, d0067d0d): no transpose, no amax reduction.
struct Fp8CastCost {
    double rowwise_s = 0;
    double columnwise_s = 0;
    double totalS() const { return rowwise_s + columnwise_s; }
};
Fp8CastCost teFp8CastS(
    const HardwareModel& hw, double localElements, Fp8Scaling scaling, Fp8CastSource source, int gatherRanks);

} // namespace stratex::hardware
