// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The FP8 casts Transformer Engine's modules run in one dense transformer layer of Megatron-Core
// (and Megatron-Bridge, NeMo 2 on it): which 16-bit tensor is quantized where, in the forward and
// the backward (docs/kernels.md §8, "Which casts TE runs"). The GEMM kernels themselves are
// kernel_shapes.h's gemmKernelS at the FP8 rate; hardware/fp8_gemm.h costs one tensor's cast.

#include "core/hardware/fp8_gemm.h"
#include "core/megatron/framework.h"

namespace stratex::hardware {
class HardwareModel;
}

namespace stratex::megatron {

// Whether a framework runs its transformer layers' linear layers as Transformer Engine modules
// under FP8 (Megatron-Core's TELayerNormColumnParallelLinear / TERowParallelLinear, transformer_engine.py):
// Megatron-Core and Megatron-Bridge. torchtitan (torchao Float8Linear), DeepSpeed and Composer
// keep the per-GEMM charge of hardware::groupedGemmS.
bool runsTeFp8Linears(Framework framework);

// A dense layer's four TE linear layers on one rank: QKV (LayerNormLinear, column-parallel),
// linear_proj (Linear, row-parallel), fc1 (LayerNormMLP's first, column-parallel) and fc2 (its
// second, row-parallel).
struct DenseLayerFp8Shape {
    double tokens = 0; // this rank's tokens of the micro-batch (b x s / cp), all of them after SP's gather
    double hidden = 0; // h
    double qkv_width = 0; // (q + 2 kv) / tp
    double proj_input_width = 0; // q / tp
    double fc1_width = 0; // (2 if gated else 1) x ffn / tp
    double fc2_input_width = 0; // ffn / tp
    int tp = 1;
    bool sequence_parallel = false;
    bool dense_mlp = true; // false: a MoE layer, whose experts' casts are groupedGemmS's (moe_kernels.h)
    // The plan's recipe (megatron::fp8Scaling, fp8_recipe.h; docs/kernels.md §8).
    hardware::Fp8Scaling scaling = hardware::Fp8Scaling::Current;
};

struct DenseLayerFp8Casts {
    double forward_attention_s = 0; // QKV's and linear_proj's inputs
    double forward_mlp_s = 0; // fc1's and fc2's inputs (what recomputing the MLP casts again)
    double backward_s = 0;
    double forwardS() const { return forward_attention_s + forward_mlp_s; }
};

// Over one micro-batch, under shape.scaling (TE 1.8 7d576ed2 for NeMo 24.07, delayed scaling, and
// v2.9 70f53666 for Megatron-Bridge 25.11, current scaling; d0067d0d for MXFP8 and blockwise;
// module/linear.py, layernorm_linear.py, layernorm_mlp.py, base.py grad_output_preprocess):
// - forward: QKV's and fc1's inputs from the norm (fused), fc2's from the activation (fused),
//   linear_proj's the attention output (standalone). Under SP the norm's output is cast before
//   the gather, on the rank's own tokens, and its column-wise copy transposed from the gathered
//   tensor in the backward (gather_along_first_dim with the quantizer; TE 1.8 fp8_transpose of
//   ln_out_total).
// - backward: each layer's output gradient quantized once, for both its dgrad and wgrad GEMMs:
//   linear_proj's and fc2's (standalone; under SP cast before their gather), QKV's from the
//   attention backward (standalone), fc1's from the activation's backward (fused dact).
// The weights are cast once per step, not per micro-batch (Megatron-Core passes
// is_first_microbatch: pipeline_parallel/schedules.py set_is_first_microbatch, transformer_engine.py
// TELinear.forward, Megatron-LM 338af514): not counted (under 0.1 % of a step).
DenseLayerFp8Casts denseLayerFp8Casts(const hardware::HardwareModel& hw, const DenseLayerFp8Shape& shape);

} // namespace stratex::megatron
