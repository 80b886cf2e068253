// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/host_overhead.h"

#include <algorithm>

namespace stratex::megatron {

int layerForwardKernels(bool moeLayer)
{
    return 22 + (moeLayer ? 12 : 0);
}

LayerHostOps denseLayerHostOps(int kernels, int attentionExtra, bool backward)
{
    const int attention = layerForwardKernels(false) / 2 + attentionExtra;
    const int passes = backward ? 2 : 1;
    return { passes * attention, 0, 0, passes * (kernels - attention) };
}

double eagerHostS(int kernels)
{
    return std::max(0, kernels) * kEagerHostUsPerKernel * 1e-6;
}

double hostBoundExtraS(double gpuS, int kernels)
{
    return std::max(0.0, eagerHostS(kernels) - gpuS);
}

} // namespace stratex::megatron
