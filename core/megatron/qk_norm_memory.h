// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/model_description.h"

namespace stratex::megatron {

// What a layer's per-head query and key norms (--qk-layernorm; model.qk_norm) keep for backward on
// one rank, in bytes (qk_norm_memory.cpp): a contiguous 16-bit copy of Q and K and their fp32
// reciprocal standard deviations, one per head and token. `tokens`: micro-batch x sequence on this
// CP rank; `tp`: the heads' split. 0 without qk_norm and for MLA (its latent norms are mla_shapes').
double qkNormActivationBytes(const model::ModelDescription& model, double tokens, double tp);

// The same norms' time on one rank, per forward: `normPasses` reads and writes per 16-bit element of
// Q and K (the layer's norm form, elementwise_passes.h: 2 fused, the eager composite's 18) and
// `kernelsPerNorm` kernels for each of the two (one fused TENorm, the composite's eight). The
// backward moves twice the bytes and launches twice the kernels, as the layer's other norms do
// (layer_cost.cpp). None without qk_norm and for MLA.
struct QkNormWork {
    double forward_bytes = 0;
    int forward_kernels = 0;
};
QkNormWork qkNormWork(
    const model::ModelDescription& model, double tokens, double tp, double normPasses, int kernelsPerNorm);

} // namespace stratex::megatron
