// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/te_fp8_casts.h"

#include "core/hardware/fp8_gemm.h"

namespace stratex::megatron {

bool runsTeFp8Linears(Framework framework)
{
    return framework == Framework::MegatronCore || framework == Framework::MegatronBridge;
}

DenseLayerFp8Casts denseLayerFp8Casts(const hardware::HardwareModel& hw, const DenseLayerFp8Shape& shape)
{
    using hardware::Fp8CastCost;
    using hardware::Fp8CastSource;
    const hardware::Fp8Scaling scaling = shape.scaling;
    const bool sp = shape.sequence_parallel && shape.tp > 1;
    const int gather = sp ? shape.tp : 1;
    const double own = shape.tokens / gather; // the rank's own tokens before SP's gather
    const auto cast = [&](double localElements, Fp8CastSource source, int gatherRanks) {
        return hardware::teFp8CastS(hw, localElements, scaling, source, gatherRanks);
    };
    // Forward inputs: the row-wise cast before the GEMM; a gathered input's column-wise copy is made
    // in the backward, where the wgrad GEMM needs it.
    const Fp8CastCost qkvInput = cast(own * shape.hidden, Fp8CastSource::FusedNorm, gather);
    const Fp8CastCost projInput = cast(shape.tokens * shape.proj_input_width, Fp8CastSource::Standalone, 1);
    const double mlp = shape.dense_mlp ? 1.0 : 0.0;
    const Fp8CastCost fc1Input = cast(mlp * own * shape.hidden, Fp8CastSource::FusedNorm, gather);
    const Fp8CastCost fc2Input = cast(mlp * shape.tokens * shape.fc2_input_width, Fp8CastSource::FusedActivation, 1);
    // Backward: the output gradients, one cast each for the dgrad and the wgrad GEMM.
    const Fp8CastCost projGrad = cast(own * shape.hidden, Fp8CastSource::Standalone, gather);
    const Fp8CastCost fc2Grad = cast(mlp * own * shape.hidden, Fp8CastSource::Standalone, gather);
    const Fp8CastCost qkvGrad = cast(shape.tokens * shape.qkv_width, Fp8CastSource::Standalone, 1);
    const Fp8CastCost fc1Grad = cast(mlp * shape.tokens * shape.fc1_width, Fp8CastSource::FusedActivation, 1);

    DenseLayerFp8Casts casts;
    // A separate column-wise copy (a transpose: of the gathered tensor, or of what a fused producer
    // wrote in FP8 under delayed scaling) is made in the backward, where the wgrad GEMM reads it
    // (TE 1.8 fp8_transpose of ln_out_total and gelu_out in the backward; v2.9 after the re-gather).
    for (const Fp8CastCost* input : { &qkvInput, &projInput, &fc1Input, &fc2Input })
        casts.backward_s += input->columnwise_s;
    casts.forward_attention_s = qkvInput.rowwise_s + projInput.rowwise_s;
    casts.forward_mlp_s = fc1Input.rowwise_s + fc2Input.rowwise_s;
    for (const Fp8CastCost* grad : { &projGrad, &fc2Grad, &qkvGrad, &fc1Grad })
        casts.backward_s += grad->totalS();
    return casts;
}

} // namespace stratex::megatron
