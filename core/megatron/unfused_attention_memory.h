// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/megatron/framework.h"

namespace stratex::megatron {

// What one layer's unfused attention (AttentionKernel::Unfused: the b x heads x s x s scores
// materialised) keeps for backward, in bytes per score element, by the framework's attention code
// (unfused_attention_memory.cpp; docs/memory-model.md, "Unfused attention as each framework keeps
// it"). `attentionDropout`: a dropout with p > 0 on the probabilities (model.attentionDropout()).
// - Megatron-Core / Megatron-Bridge (and Composer, torchtitan: not read, taken as Megatron's):
//   Korthikanti et al. 2022's 5as^2b per layer: the fp16 softmax output (2), with attention
//   dropout its 1-byte mask and the dropped fp16 copy (+3). 2 or 5.
// - DeepSpeed: Hugging Face transformers' eager attention of 2023 (v4.2x OPTAttention.forward, as
//   DeepSpeed-Chat ran it): the fp16 masked scores torch.max keeps (2), the fp32 softmax output
//   (4), the fp16 probabilities the second bmm keeps (2); with attention dropout the mask (1) and
//   the dropped copy take the probabilities' place. 8 or 9.
double unfusedAttentionBytesPerScore(Framework framework, bool attentionDropout);

} // namespace stratex::megatron
