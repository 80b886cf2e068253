// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/hardware/fp8_gemm.h"

#include "core/hardware/hardware_model.h"

namespace stratex::hardware {

Fp8Quantization fp8Quantization(Fp8Scaling scaling)
{
    // Bytes: the 16-bit input read once per pass (2 bytes), the FP8 row-wise and column-wise
    // copies written (1 + 1 byte). TE's FP8 docs: current scaling "requires reading the tensor
    // twice" (amax, then scale and cast); delayed scaling "reduces tensor reads per quantization
    // from two to one" (docs/features/low_precision_training/fp8_current_scaling and
    // fp8_delayed_scaling, NVIDIA/TransformerEngine d0067d0d).
    switch (scaling) {
    case Fp8Scaling::Delayed:
        return { 2.0 + 1.0 + 1.0, 1 };
    case Fp8Scaling::Current:
        return { 2.0 + 2.0 + 1.0 + 1.0, 3 };
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

} // namespace stratex::hardware
