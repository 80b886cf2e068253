// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/fp8_gemm.h"

#include <algorithm>

#include "core/hardware/hardware_model.h"

namespace stratex::hardware {

namespace {

// The block scales a block-scaled recipe writes beside its row-wise and column-wise FP8 data, in
// bytes per element: MXFP8 one E8M0 byte per 32 values each way, blockwise one fp32 per 1 x 128
// block each way (recipe/__init__.py MXFP8BlockScaling, Float8BlockScaling, d0067d0d).
double blockScaleBytes(Fp8Scaling scaling)
{
    switch (scaling) {
    case Fp8Scaling::Mxfp8:
        return 2 * 1.0 / 32;
    case Fp8Scaling::Blockwise:
        return 2 * 4.0 / 128;
    case Fp8Scaling::Delayed:
    case Fp8Scaling::Current:
        break;
    }
    return 0;
}

bool blockScaled(Fp8Scaling scaling)
{
    return scaling == Fp8Scaling::Mxfp8 || scaling == Fp8Scaling::Blockwise;
}

} // namespace

Fp8Quantization fp8Quantization(Fp8Scaling scaling)
{
    // Bytes: the 16-bit input read once per pass (2 bytes), the FP8 row-wise and column-wise
    // copies written (1 + 1 byte). TE's FP8 docs: current scaling "requires reading the tensor
    // twice" (amax, then scale and cast); delayed scaling "reduces tensor reads per quantization
    // from two to one" (docs/features/low_precision_training/fp8_current_scaling and
    // fp8_delayed_scaling, NVIDIA/TransformerEngine d0067d0d). The block-scaled recipes find each
    // block's amax inside the cast kernel: one read, both copies and their scales written.
    switch (scaling) {
    case Fp8Scaling::Delayed:
        return { 2.0 + 1.0 + 1.0, 1 };
    case Fp8Scaling::Current:
        return { 2.0 + 2.0 + 1.0 + 1.0, 3 };
    case Fp8Scaling::Mxfp8:
    case Fp8Scaling::Blockwise:
        return { 2.0 + 1.0 + 1.0 + blockScaleBytes(scaling), 1 };
    }
    return {};
}

double fp8QuantizeS(const HardwareModel& hw, double elements, Fp8Scaling scaling)
{
    if (!(elements > 0))
        return 0;
    const Fp8Quantization q = fp8Quantization(scaling);
    return hw.memoryBoundS(q.bytes_per_element * elements) + hw.kernelOverheadS(q.kernels);
}

Fp8CastCost teFp8CastS(
    const HardwareModel& hw, double localElements, Fp8Scaling scaling, Fp8CastSource source, int gatherRanks)
{
    Fp8CastCost cost;
    if (!(localElements > 0))
        return cost;
    if (blockScaled(scaling)) {
        // Both copies quantized on the rank's own part, each gathered as it is (no transpose, no
        // amax reduction). Only MXFP8's activation and dact write the recipe's format themselves
        // (activation.cpp FULLY_FUSED): FP8 row- and column-wise in place of the 16-bit output, so
        // only the scales are extra; every other producer writes 16 bits and is cast on its own.
        if (scaling == Fp8Scaling::Mxfp8 && source == Fp8CastSource::FusedActivation) {
            cost.rowwise_s = hw.memoryBoundS(blockScaleBytes(scaling) * localElements);
        } else {
            const Fp8Quantization q = fp8Quantization(scaling);
            cost.rowwise_s = hw.memoryBoundS(q.bytes_per_element * localElements) + hw.kernelOverheadS(q.kernels);
        }
        return cost;
    }
    const bool gathered = gatherRanks > 1;
    const bool fused = source != Fp8CastSource::Standalone;
    // Row-wise cast on this rank's part; without a gather the same kernel writes the column-wise
    // byte (cast-transpose). Delayed scaling fused into its producer: the producer writes FP8 in
    // place of its 16-bit output, no cast of its own (its column-wise copy is a transpose below).
    double castBytes = 0;
    int castKernels = 0;
    if (scaling == Fp8Scaling::Delayed) {
        if (!fused) {
            castBytes = 2.0 + 1.0;
            castKernels = 1;
        }
    } else {
        castBytes = (fused ? 2.0 : 2.0 + 2.0) + 1.0; // the amax pass only when no producer recorded it
        castKernels = fused ? 2 : 3;
    }
    const bool columnwiseInCast = !gathered && castKernels > 0;
    if (columnwiseInCast)
        castBytes += 1.0;
    cost.rowwise_s
        = castKernels > 0 ? hw.memoryBoundS(castBytes * localElements) + hw.kernelOverheadS(castKernels) : 0.0;
    if (scaling == Fp8Scaling::Current && gathered)
        cost.rowwise_s += hw.allReduceS(4.0, GroupShape { gatherRanks, 1 });
    if (!columnwiseInCast) {
        const double elements = localElements * std::max(1, gatherRanks);
        cost.columnwise_s = hw.memoryBoundS(2.0 * elements) + hw.kernelOverheadS(1);
    }
    return cost;
}

} // namespace stratex::hardware
