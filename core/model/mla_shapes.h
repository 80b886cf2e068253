// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/model_description.h"

namespace stratex::model {

// Multi-head latent attention's shapes for the cost model (DeepSeek-V2, arXiv 2405.04434,
// §2.1.2-2.1.3, eqs. 9-19; Megatron-LM megatron/core/transformer/multi_latent_attention.py
// MLASelfAttention at d98e8a64; torchtitan/models/deepseek_v3/__init__.py make_mla_attention_config
// at b5bcd76c): the query through W_DQ (h x q_lora_rank), its RMSNorm and W_UQ (q_lora_rank x
// heads*(nope+rope)), or one h x heads*(nope+rope) matrix when q_lora_rank is 0; W_DKV with W_KR
// (h x (kv_lora_rank + rope), the RoPE key shared by all heads), the latent's RMSNorm, W_UK with
// W_UV (kv_lora_rank x heads*(nope+v)); the output W_O (heads*v x h). No biases.

// The width of one query/key head and of one value head in attention's two GEMMs: headDim(), or
// MLA's qk_nope_head_dim + qk_rope_head_dim and v_head_dim.
int qkHeadDim(const ModelDescription& model);
int vHeadDim(const ModelDescription& model);

// MLA's attention weights of one layer (the five projections and the two latent norms).
// DeepSeek-V3 (h 7168, 128 heads, ranks 1536/512, dims 128+64/128): 187.1 M, against 205.5 M for
// 128 full heads. Megatron-LM's training.py counts the same terms for its FLOPs.
double mlaAttentionParameters(const ModelDescription& model);

// The part of a layer's attention weights every TP rank holds whole: MLA's down projections and
// latent norms (Megatron-LM's linear_q_down_proj and linear_kv_down_proj are "duplicated"
// TELinears); 0 without MLA.
double attentionReplicatedParameters(const ModelDescription& model);

} // namespace stratex::model
