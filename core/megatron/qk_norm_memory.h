// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/model_description.h"

namespace stratex::megatron {

// What a layer's per-head query and key norms (--qk-layernorm; model.qk_norm) keep for backward on
// one rank, in bytes (qk_norm_memory.cpp): a contiguous 16-bit copy of Q and K and their fp32
// reciprocal standard deviations, one per head and token. `tokens`: micro-batch x sequence on this
// CP rank; `tp`: the heads' split. 0 without qk_norm and for MLA (its latent norms are mla_shapes').
double qkNormActivationBytes(const model::ModelDescription& model, double tokens, double tp);

} // namespace stratex::megatron
