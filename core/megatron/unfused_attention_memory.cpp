// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/unfused_attention_memory.h"

namespace stratex::megatron {

namespace {

constexpr double kHalf = 2; // fp16 / bf16
constexpr double kFloat = 4;
constexpr double kMask = 1; // a dropout mask: one bool per element

} // namespace

double unfusedAttentionBytesPerScore(Framework framework, bool attentionDropout)
{
    switch (framework) {
    case Framework::DeepSpeed: {
        // huggingface/transformers src/transformers/models/opt/modeling_opt.py, OPTAttention.forward
        // as of v4.20-v4.35 (the fp32 upcast from PR #17437, 2022; DeepSpeed-Chat's requirements.txt
        // of 3a77097a installs transformers from git main, 2023-04):
        //   attn_weights = torch.bmm(query_states, key_states.transpose(1, 2))
        //   attn_weights = attn_weights.view(bsz, self.num_heads, tgt_len, src_len) + attention_mask
        //   attn_weights = torch.max(attn_weights, torch.tensor(torch.finfo(attn_weights.dtype).min, ...))
        //   if attn_weights.dtype == torch.float16:
        //       attn_weights = nn.functional.softmax(attn_weights, dim=-1, dtype=torch.float32).to(torch.float16)
        //   attn_probs = nn.functional.dropout(attn_weights, p=self.dropout, training=self.training)
        //   attn_output = torch.bmm(attn_probs, value_states)
        // What autograd keeps (PyTorch tools/autograd/derivatives.yaml): max.other's backward reads
        // self and other (the fp16 masked scores); _softmax (half_to_float) keeps its fp32 result;
        // _to_copy keeps nothing; bmm keeps both inputs (the fp16 probabilities). dropout with p = 0
        // returns its input (aten/src/ATen/native/Dropout.cpp _dropout: "if (p == 0 || !train ...)
        // return input"); with p > 0 native_dropout keeps its bool mask, and bmm keeps the dropped
        // copy instead of the undropped probabilities.
        const double kept = kHalf + kFloat + kHalf;
        return attentionDropout ? kept + kMask : kept;
    }
    case Framework::MegatronCore:
    case Framework::MegatronBridge:
    case Framework::Torchtitan:
    case Framework::Composer:
        // Korthikanti et al. 2022, §4.1 (5as^2b per layer): Megatron's fused scale-mask-softmax
        // keeps its 16-bit output (2as^2b), the attention dropout its mask (as^2b) and output
        // (2as^2b), which the second bmm keeps.
        return attentionDropout ? kHalf + kMask + kHalf : kHalf;
    }
    return attentionDropout ? kHalf + kMask + kHalf : kHalf;
}

} // namespace stratex::megatron
