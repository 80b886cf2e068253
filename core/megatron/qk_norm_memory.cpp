// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/qk_norm_memory.h"

namespace stratex::megatron {

namespace {
constexpr double kBytes = 2; // the 16-bit activations
} // namespace

// Megatron-Core (NVIDIA/Megatron-LM d98e8a64):
// - megatron/core/models/gpt/gpt_layer_specs.py: with qk_layernorm, SelfAttention's q_layernorm and
//   k_layernorm are the backend's norm for_qk (Transformer Engine: TENorm, te.pytorch.RMSNorm or
//   LayerNorm), outside the core attention, so selective recompute of core_attn keeps them;
// - megatron/core/transformer/attention.py get_query_key_value_tensors: query, key and value are
//   SplitAlongDim views of linear_qkv's output [sq, b, ng, (np/ng + 2) hn] (query reshaped to
//   [sq, b, np, hn], a copy under GQA), then `query = apply_module(self.q_layernorm)(query)` and
//   `key = apply_module(self.k_layernorm)(key)` before RoPE.
// Transformer Engine's norm saves a contiguous copy of its input and the reciprocal std:
// - v2.2 transformer_engine/pytorch/ops/basic/rmsnorm.py op_forward: `x = reshape(input_, (-1,
//   inner_dim), ...)` with ops/_common.py reshape converting to torch.contiguous_format (a copy of
//   the strided view), then `ctx.save_for_backward(x, rstdevs)`;
// - d0067d0d (main): `x = maybe_dequantize(input_.contiguous(), dtype).view((-1, inner_dim))`, the same.
// So Q and K each once more in 16 bits (the view's storage, linear_qkv's output, is not what is
// saved) and 4 bytes per row, a row being one head of one token.
double qkNormActivationBytes(const model::ModelDescription& model, double tokens, double tp)
{
    if (!model.qk_norm || model.mla)
        return 0;
    constexpr double kRstdBytes = 4; // fp32 rstdevs
    const double q = model.attentionWidth();
    const double kv = model.kvHiddenSize();
    const double rows = double(model.num_heads) + double(model.num_kv_heads);
    return tokens * (kBytes * (q + kv) + kRstdBytes * rows) / tp;
}

QkNormWork qkNormWork(
    const model::ModelDescription& model, double tokens, double tp, double normPasses, int kernelsPerNorm)
{
    if (!model.qk_norm || model.mla)
        return {};
    return { normPasses * kBytes * tokens * double(model.attentionWidth() + model.kvHiddenSize()) / tp,
        2 * kernelsPerNorm };
}

} // namespace stratex::megatron
