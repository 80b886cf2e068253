// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/megatron/framework.h"
#include "core/model/model_description.h"

namespace stratex::megatron {

// Megatron-Bridge turns apply_rope_fusion off for any position embedding other than plain "rope"
// (src/megatron/bridge/utils/fusions.py validate_rope_fusion_compatibility, called from
// gpt_provider.py finalize, NVIDIA-NeMo/Megatron-Bridge aeefb3ab), so a YaRN model (gpt-oss,
// model.rope_yarn) runs Megatron-Core's unfused RoPE on Q and K: megatron/core/models/common/
// embeddings/rope_utils.py _apply_rotary_pos_emb_bshd at NVIDIA/Megatron-LM d7288711:
//   cos_ = (cos(freqs) * mscale).to(t.dtype); sin_ = ...;
//   t = (t * cos_) + (_rotate_half(t) * sin_)    # _rotate_half: chunk, neg, cat
//   return torch.cat((t, t_pass), dim=-1)
// per 16-bit element of Q and K: t * cos_ 4 bytes, the neg on half 2, cat 4, * sin_ 4, the add 6,
// the final cat 4: 24 bytes forward against the fused kernel's 4 (read and write) the layer
// counts, 20 more; backward about 26 (grad x sin_ 4, neg 2, the chunk's cat 4, grad x cos_ 4, the
// two paths' gradients added 6, the slice's backward 6) against the 8 counted, 18 more. Host
// operations per tensor: cos, scale, cast, sin, scale, cast, mul, chunk, neg, cat, mul, add, cat
// (13) against the fused kernel's 1; twice that backward (host_overhead.h's convention).
// docs/moe.md (gpt-oss's own layers).
struct UnfusedRopeExtra {
    double forward_bytes = 0;
    double backward_bytes = 0;
    int forward_ops = 0;
    int backward_ops = 0;
};

// Whether `framework` runs `model`'s RoPE unfused: Megatron-Bridge with YaRN, MLA excepted (its
// RoPE is costed in mla_shapes.h).
bool runsUnfusedRope(const model::ModelDescription& model, Framework framework);

// The extra bytes and host operations of the unfused RoPE over the fused kernel for one layer's
// `qkElements` 16-bit elements of Q and K on the rank (tokens x (q + kv) / tp).
UnfusedRopeExtra unfusedRopeExtra(double qkElements);

} // namespace stratex::megatron
