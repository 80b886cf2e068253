// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The config.json readers several Hugging Face families share (core/model/hf_config.h): the
// Llama-style and GPT-style shapes, the MLP activations, RoPE scaling, the MoE experts. Each
// follows transformers' configuration_<family>.py. Internal to hf_config*.cpp.

#include <string>
#include <string_view>

#include "core/model/hf_config_keys.h"

namespace stratex::model::hf {

// The attention and size keys most families share (LlamaConfig's names).
void readLlamaShape(Reading& r, bool tiedByDefault);

// The SiLU-gated MLP (SwiGLU) every Llama-like family uses; another activation is an error.
void requireSilu(const Keys& k);

// The plain MLP's activation from `key` (GPT-2 "activation_function", GPT-NeoX "hidden_act"): a
// GeLU ("gelu", "gelu_new", "gelu_pytorch_tanh", ...) or "relu" (ModelDescription::activation);
// absent: GeLU. Anything else is refused (`mlp` names the MLP in the error).
MlpActivation readPlainActivation(const Keys& k, std::string_view key, std::string_view mlp);

// "attention_bias" true is refused: `why` says which biases the description lacks.
void refuseAttentionBias(const Keys& k, std::string_view why);

// A partial RoPE's share of the head: "partial_rotary_factor", else the family's older key
// (`olderKey`, none when empty), else `fallback`; above 1 is an error naming the key it came from.
double rotaryFraction(const Keys& k, std::string_view olderKey, double fallback);

// The shape of the GPT-style families (GPT-NeoX, GPT-2): a plain MLP, LayerNorm and no KV groups,
// under each family's key names, read in this order.
struct PlainShapeKeys {
    std::string_view layers;
    std::string_view hidden;
    std::string_view ffn;
    std::string_view heads;
    std::string_view vocab;
    std::string_view positions;
    int ffn_per_hidden = 0; // > 0: an absent or null `ffn` is this many times the hidden size
};

void readPlainShape(Reading& r, const PlainShapeKeys& keys);

// "rope_scaling": Llama 3.1's rule becomes RopeScaling; YaRN (DeepSeek) is the context extension
// after pre-training (DeepSeek-V3 report §4.3): its original length is the pre-training one.
void readRopeScaling(Reading& r);

// The Megatron-side MoE shape shared by the families; the caller sets the routing facts.
MoeDescription readExperts(const Keys& k, std::string_view expertsKey, std::string_view ffnKey);

// Qwen's "mlp_only_layers": dense layers are only supported as the first ones.
int leadingDenseLayers(const Keys& k);

} // namespace stratex::model::hf
