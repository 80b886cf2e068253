// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/mlp_activation_memory.h"

namespace stratex::megatron {

double mlpKeptWidths(const model::ModelDescription& model, double gemmInputShare)
{
    if (model.mlp == model::MlpKind::Gated)
        return 2.0 + gemmInputShare;
    if (model.activation == model::MlpActivation::Relu) // relu's result is fc2's 16-bit input
        return 1.0 + (gemmInputShare < 1.0 ? gemmInputShare : 0.0);
    return 1.0 + gemmInputShare;
}

} // namespace stratex::megatron
