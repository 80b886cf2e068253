// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/export/export_note.h"
#include "core/model/model_description.h"

namespace stratex::exporting {

// The model a torchtitan main config module trains (torchtitan_module.h): a flavour torchtitan
// ships, or one the module registers in torchtitan's own registry, or a refusal naming the field.
// Every torchtitan name is read from pytorch/torchtitan at b5bcd76c66d0acb1a08b176d9639425bc55e0b2a.

// A llama3-architecture flavour the module registers in torchtitan's llama3_configs (torchtitan/
// models/llama3/__init__.py, built as its _8b is: RMSNorm, SwiGLU of the given hidden size,
// grouped-query attention, RoPE), for a dense model torchtitan does not ship (Llama 2, a resized
// preset, ...).
struct TorchtitanFlavour {
    std::string flavor; // the llama3_configs key
    int layers = 0;
    int dim = 0;
    int heads = 0;
    int kv_heads = 0;
    int ffn_hidden = 0;
    int vocab = 0;
    bool tied_embeddings = false;
    double rope_theta = 10000;
    std::optional<model::RopeScaling> rope_scaling;
    int max_context_length = 0;
};

// A deepseek_v3-architecture flavour the module registers in torchtitan's deepseekv3_configs
// (torchtitan/models/deepseek_v3/__init__.py, built as its _671b is, by _build_dsv3_layers =
// build_mla_moe_layers with DeepSeek-V3's inits): multi-latent attention with the model's ranks
// and head dims, a dense FeedForward in the first `dense_layers` blocks and a MoE (router,
// routed experts, shared experts) in the rest. The shipped flavours (debugmodel, 16B, 236B, 671B)
// all build their RoPE with YaRN (scaling "yarn", rope_factor 40, original_seq_len 4096), which
// ComplexRoPE applies at every length and which also scales the softmax by mscale^2 (model.py
// Attention.__init__); a Stratex model trains at its pre-training length without it (hf_config.h:
// YaRN is the context extension), so even a plan of DeepSeek-V3's own shape registers a flavour.
struct TorchtitanMlaFlavour {
    std::string flavor; // the deepseekv3_configs key
    int layers = 0;
    int dense_layers = 0; // n_dense_layers
    int dim = 0;
    int heads = 0;
    model::MlaDescription mla; // q_lora_rank 0: wq, one full query projection
    int dense_hidden = 0; // dense_hidden_dim
    int moe_hidden = 0; // moe_hidden_dim: one routed expert's
    int experts = 1; // num_experts
    int shared_experts = 0; // num_shared_experts: one FFN of moe_hidden x this (0: none)
    int top_k = 1; // router_top_k
    std::string score_func = "softmax"; // router_score_func
    int expert_groups = 0; // router_num_expert_groups (0: None)
    int limited_groups = 0; // router_num_limited_groups
    double route_scale = 1.0; // router_route_scale
    bool route_norm = false; // router_route_norm
    // MoE.Config.load_balance_coeff: 1e-3 (torchtitan's default, the aux-loss-free expert bias of
    // DeepSeek-V3, updated by register_moe_load_balancing_hook) or None (no bias).
    bool load_balance = true;
    int vocab = 0;
    bool tied_embeddings = false;
    double rope_theta = 10000;
    std::optional<model::RopeScaling> rope_scaling;
    int max_context_length = 0;
};

struct TorchtitanModelChoice {
    std::string model_module = "llama3"; // torchtitan.models.<model_module>.model_registry
    std::string flavor;
    std::string hf_assets_path; // where the tokenizer is (scripts/download_hf_assets.py)
    std::optional<TorchtitanFlavour> llama; // registered in llama3_configs
    std::optional<TorchtitanMlaFlavour> mla; // registered in deepseekv3_configs
    std::vector<ExportNote> notes; // approximations and refusals, "torchtitan: ..."
};

// Dense llama-style models: a shipped llama3 flavour of the same architecture, or a registered
// one. Models with multi-latent attention: a registered deepseek_v3 flavour. Anything else (other
// MoE models, QK norm, qkv bias, GeLU, LayerNorm, learned positions): a refusal naming the field.
TorchtitanModelChoice torchtitanMainModel(const model::ModelDescription& model);

// The Python that registers the choice's flavour: its imports, the builder function and the
// registry entry; "" for a shipped flavour.
std::string torchtitanFlavourText(const TorchtitanModelChoice& choice);

} // namespace stratex::exporting
