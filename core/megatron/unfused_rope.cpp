// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/unfused_rope.h"

namespace stratex::megatron {

namespace {

// unfused_rope.h: bytes per 16-bit element beyond the fused kernel's, and ops per tensor.
constexpr double kExtraForwardBytesPerElement = 24 - 4;
constexpr double kExtraBackwardBytesPerElement = 26 - 8;
constexpr int kUnfusedOpsPerTensor = 13;
constexpr int kTensors = 2; // Q and K, each through _apply_rotary_pos_emb_bshd

} // namespace

bool runsUnfusedRope(const model::ModelDescription& model, Framework framework)
{
    return model.rope_yarn && !model.mla && model.position == model::PositionEmbedding::Rope
        && framework == Framework::MegatronBridge;
}

UnfusedRopeExtra unfusedRopeExtra(double qkElements)
{
    UnfusedRopeExtra e;
    e.forward_ops = kTensors * (kUnfusedOpsPerTensor - 1);
    e.backward_ops = 2 * e.forward_ops;
    if (qkElements > 0) {
        e.forward_bytes = kExtraForwardBytesPerElement * qkElements;
        e.backward_bytes = kExtraBackwardBytesPerElement * qkElements;
    }
    return e;
}

} // namespace stratex::megatron
