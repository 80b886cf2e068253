// SPDX-License-Identifier: GPL-3.0-or-later
// The model of a torchtitan main config module. Every torchtitan name below is read from
// pytorch/torchtitan at b5bcd76c66d0acb1a08b176d9639425bc55e0b2a (2026-08-21):
//   torchtitan/models/llama3/__init__.py       llama3_configs, _build_llama3_layers, _8b
//   torchtitan/models/deepseek_v3/__init__.py  deepseekv3_configs, _build_dsv3_layers
//                                              (build_mla_moe_layers), _build_mtp_layers, _671b
//   torchtitan/models/deepseek_v3/model.py     Attention.Config (MLA), DeepSeekV3Model.Config
//   torchtitan/models/common/moe.py            MoE.Config (load_balance_coeff, shared_experts)
//   torchtitan/models/common/rope.py           RoPE.Config (scaling "none" / "llama" / "yarn")
//   torchtitan/models/common/token_dispatcher.py   non_blocking_capacity_factor (HybridEP only)
#include "core/export/torchtitan_flavours.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "core/export/python_literal.h"
#include "core/export/pytorch_exports.h"
#include "core/export/shell_quote.h"

namespace stratex::exporting {

namespace {

std::string str(long long n)
{
    return std::to_string(n);
}

// A Python float literal that reads back as the same double, integers written out (500000.0,
// where pythonFloat's shortest form is 5e+05).
std::string pyFloat(double value)
{
    if (std::abs(value) < 1e15 && value == std::floor(value)) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.1f", value);
        return buffer;
    }
    return pythonFloat(value);
}

void approximation(TorchtitanModelChoice& c, std::string field, const std::string& text)
{
    addExportNote(c.notes, ExportNoteKind::Approximation, std::move(field), "torchtitan: " + text);
}

void refusal(TorchtitanModelChoice& c, std::string field, const std::string& text)
{
    addExportNote(c.notes, ExportNoteKind::Refusal, std::move(field), "torchtitan: " + text);
}

using Why = std::optional<std::pair<std::string, std::string>>; // the field and the words

// What neither llama3's nor deepseek_v3's blocks have.
Why notTorchtitanBlock(const model::ModelDescription& model, const std::string& family)
{
    if (model.qkv_bias)
        return std::pair { "model.qkv_bias", "a bias on Q, K and V, which " + family + "'s attention does not have" };
    if (model.qk_norm)
        return std::pair { "model.qk_norm", "QK norm, which " + family + "'s attention does not have" };
    // llama3's Attention takes head_dim = dim // n_heads; deepseek_v3's MLA has its own widths.
    if (!model.mla && model.head_dim > 0 && model.num_heads * model.head_dim != model.hidden_size)
        return std::pair { "model.head_dim", "head_dim " + str(model.head_dim) + " (attention "
            + str(model.attentionWidth()) + " wide, hidden " + str(model.hidden_size) + "), which " + family
            + "'s dim // n_heads heads cannot build" };
    if (model.mlp != model::MlpKind::Gated)
        return std::pair { "model.mlp", "a plain (GeLU) MLP; " + family + "'s is SwiGLU" };
    if (model.norm != model::NormKind::RmsNorm)
        return std::pair { "model.norm", "LayerNorm; " + family + "'s is RMSNorm" };
    if (model.position != model::PositionEmbedding::Rope)
        return std::pair { "model.position_embedding", "learned position embeddings; " + family + " has RoPE" };
    return std::nullopt;
}

// Why torchtitan main's llama3 blocks cannot build `model`, or nothing.
Why notLlamaArchitecture(const model::ModelDescription& model)
{
    if (model.moe)
        return std::pair { "model.moe",
            "mixture of experts (" + str(model.moe->num_experts) + " experts, top-" + str(model.moe->top_k)
                + ") without multi-latent attention: torchtitan main's other MoE models (qwen3 with QK norm, "
                  "gpt_oss, kimi_k2_7) are other architectures" };
    return notTorchtitanBlock(model, "llama3");
}

// Why build_mla_moe_layers cannot build `model`, or nothing.
Why notDeepseekArchitecture(const model::ModelDescription& model)
{
    if (const Why why = notTorchtitanBlock(model, "deepseek_v3"))
        return why;
    if (!model.moe)
        return std::nullopt;
    const model::MoeDescription& moe = *model.moe;
    if (moe.shared_expert_gate)
        return std::pair { "model.moe.shared_expert_gate",
            "a sigmoid gate on the shared experts, which deepseek_v3's MoE does not have" };
    const long long shared = static_cast<long long>(moe.shared_experts) * moe.shared_expert_ffn_hidden_size;
    if (shared % moe.expert_ffn_hidden_size != 0)
        return std::pair { "model.moe.shared_expert_ffn_hidden_size",
            "shared experts of " + str(shared) + " hidden units in all, not a multiple of the routed experts' "
                + str(moe.expert_ffn_hidden_size) + " (build_mla_moe_layers makes them moe_hidden_dim x "
                + "num_shared_experts wide)" };
    return std::nullopt;
}

// The tokenizer torchtitan's README downloads for a vocabulary, by its size.
std::string assetsPath(const model::ModelDescription& model)
{
    if (model.mla && model.vocab_size == 129280)
        return "./assets/hf/DeepSeek-V3.1-Base"; // deepseek_v3_671b
    if (model.mla && model.vocab_size == 102400)
        return "./assets/hf/deepseek-moe-16b-base"; // deepseek_v3_16b
    return "./assets/hf/" + fileNamePart(model.name);
}

void chooseMla(TorchtitanModelChoice& c, const model::ModelDescription& model)
{
    c.model_module = "deepseek_v3";
    c.flavor = "stratex-" + model.name;
    c.hf_assets_path = assetsPath(model);
    if (const Why why = notDeepseekArchitecture(model)) {
        refusal(c, why->first,
            "the module registers deepseek_v3-architecture flavours for multi-latent attention, and " + model.name
                + " has " + why->second);
        return;
    }
    TorchtitanMlaFlavour f;
    f.flavor = c.flavor;
    f.layers = model.num_layers;
    f.dim = model.hidden_size;
    f.heads = model.num_heads;
    f.mla = *model.mla;
    f.dense_hidden = model.ffn_hidden_size;
    f.vocab = model.vocab_size;
    f.tied_embeddings = model.tied_embeddings;
    f.rope_theta = model.rotary_base;
    f.rope_scaling = model.rope_scaling;
    f.max_context_length = model.seq_length;
    if (model.moe) {
        const model::MoeDescription& moe = *model.moe;
        f.dense_layers = moe.first_dense_layers;
        f.moe_hidden = moe.expert_ffn_hidden_size;
        f.experts = moe.num_experts;
        f.shared_experts = moe.shared_experts * moe.shared_expert_ffn_hidden_size / moe.expert_ffn_hidden_size;
        f.top_k = moe.top_k;
        f.score_func = std::string(model::routerScoreName(moe.score_function));
        f.expert_groups = moe.num_groups;
        f.limited_groups = moe.group_top_k;
        f.route_scale = moe.scaling_factor;
        f.route_norm = moe.normalize_top_k;
        f.load_balance = moe.expert_bias;
        if (moe.capacity_factor)
            approximation(c, "model.moe.capacity_factor",
                "expert capacity factor " + pythonFloat(*moe.capacity_factor)
                    + ": torchtitan main's routed experts are dropless (its non_blocking_capacity_factor sizes "
                      "HybridEP's permute buffer, not a per-expert capacity): no token is dropped");
    } else {
        f.dense_layers = model.num_layers; // every block dense; the MoE arguments are not used
        f.moe_hidden = model.ffn_hidden_size;
    }
    c.mla = f;
}

} // namespace

TorchtitanModelChoice torchtitanMainModel(const model::ModelDescription& model)
{
    TorchtitanModelChoice c;
    // torchtitan main's llama3 and deepseek_v3 models end at the LM head: no multi-token prediction.
    if (model.mtp_num_layers > 0)
        approximation(c, "model.mtp_num_layers",
            str(model.mtp_num_layers)
                + " multi-token-prediction module(s) planned and costed on the last stage: torchtitan's models have "
                  "none, so the run trains without them (faster and lighter on the last stage than the plan)");
    if (model.mla) {
        chooseMla(c, model);
        return c;
    }
    const std::optional<TorchtitanModel> titan = torchtitanModel(model);
    if (titan && titan->name == "llama3" && titan->note.empty()) {
        c.flavor = titan->flavor;
        c.hf_assets_path = "./assets/hf/Llama-3.1-" + titan->flavor; // llama3_8b's, by size
        return c;
    }
    c.flavor = "stratex-" + model.name;
    c.hf_assets_path = assetsPath(model);
    if (const Why why = notLlamaArchitecture(model)) {
        refusal(c, why->first,
            "main ships no flavour of " + model.name + " and the module registers llama3-architecture flavours "
                + "(and deepseek_v3 ones for multi-latent attention) only: " + model.name + " has " + why->second);
        return c;
    }
    TorchtitanFlavour f;
    f.flavor = c.flavor;
    f.layers = model.num_layers;
    f.dim = model.hidden_size;
    f.heads = model.num_heads;
    f.kv_heads = model.num_kv_heads;
    f.ffn_hidden = model.ffn_hidden_size;
    f.vocab = model.vocab_size;
    f.tied_embeddings = model.tied_embeddings;
    f.rope_theta = model.rotary_base;
    f.rope_scaling = model.rope_scaling;
    f.max_context_length = model.seq_length;
    c.llama = f;
    return c;
}

namespace {

// ComplexRoPE.Config's arguments, indented for the builder call.
std::string ropeText(int dim, int maxContext, double theta, const std::optional<model::RopeScaling>& scaling,
    const std::string& indent)
{
    std::string t;
    t += indent + "dim=" + (dim > 0 ? str(dim) : "dim // n_heads") + ",\n";
    t += indent + "max_context_length=" + str(maxContext) + ",\n";
    t += indent + "theta=" + pyFloat(theta) + ",\n";
    if (scaling) {
        t += indent + "scaling=\"llama\",\n";
        t += indent + "scaling_factor=" + pyFloat(scaling->factor) + ",\n";
        t += indent + "low_freq_factor=" + pyFloat(scaling->low_freq_factor) + ",\n";
        t += indent + "high_freq_factor=" + pyFloat(scaling->high_freq_factor) + ",\n";
        t += indent + "original_max_position_embeddings=" + str(scaling->original_max_positions) + ",\n";
    } else {
        t += indent + "scaling=\"none\",\n";
    }
    return t;
}

std::string llamaText(const TorchtitanFlavour& f)
{
    std::string t;
    t += "from torchtitan.models import llama3 as _llama3\n";
    t += "from torchtitan.models.common import ComplexRoPE, Embedding, Linear, RMSNorm\n";
    t += "from torchtitan.models.llama3.model import Llama3Model\n";
    t += "\n\n# The model's own flavour, built as torchtitan/models/llama3/__init__.py builds _8b.\n";
    t += "def _stratex_flavor(attn_backend: str, tp_gemm_backend: str = \"default\") -> Llama3Model.Config:\n";
    t += "    dim = " + str(f.dim) + "\n";
    t += "    n_heads = " + str(f.heads) + "\n";
    t += "    vocab_size = " + str(f.vocab) + "\n";
    t += "    return Llama3Model.Config(\n";
    t += "        dim=dim,\n";
    t += "        vocab_size=vocab_size,\n";
    if (f.tied_embeddings)
        t += "        enable_weight_tying=True,\n";
    t += "        tok_embeddings=Embedding.Config(\n";
    t += "            num_embeddings=vocab_size,\n";
    t += "            embedding_dim=dim,\n";
    t += std::string("            param_init=_llama3.") + (f.tied_embeddings ? "_EMBEDDING_SKIP_INIT" : "_EMBEDDING_INIT")
        + ",\n";
    t += "        ),\n";
    t += "        norm=RMSNorm.Config(normalized_shape=dim, param_init=_llama3._NORM_INIT),\n";
    t += "        lm_head=Linear.Config(\n";
    t += "            in_features=dim, out_features=vocab_size, param_init=_llama3._output_linear_init(dim)\n";
    t += "        ),\n";
    t += "        layers=_llama3._build_llama3_layers(\n";
    t += "            fuse_qkv=True,\n";
    t += "            n_layers=" + str(f.layers) + ",\n";
    t += "            dim=dim,\n";
    t += "            n_heads=n_heads,\n";
    t += "            n_kv_heads=" + str(f.kv_heads) + ",\n";
    t += "            hidden_dim=" + str(f.ffn_hidden) + ",\n";
    t += "            rope=ComplexRoPE.Config(\n";
    t += ropeText(0, f.max_context_length, f.rope_theta, f.rope_scaling, "                ");
    t += "            ),\n";
    t += "            attn_backend=attn_backend,\n";
    t += "            tp_gemm_backend=tp_gemm_backend,\n";
    t += "        ),\n";
    t += "    )\n\n\n";
    t += "_llama3.llama3_configs[" + pythonString(f.flavor) + "] = _stratex_flavor\n";
    return t;
}

std::string mlaText(const TorchtitanMlaFlavour& f)
{
    std::string t;
    t += "from torchtitan.models import deepseek_v3 as _dsv3\n";
    t += "from torchtitan.models.common import ComplexRoPE, Embedding, Linear, RMSNorm\n";
    t += "from torchtitan.models.deepseek_v3.model import DeepSeekV3Model\n";
    t += "\n\n# The model's own flavour, built as torchtitan/models/deepseek_v3/__init__.py builds _671b, with\n";
    t += "# the plan's RoPE (the shipped flavours apply YaRN, rope_factor 40, at every length).\n";
    t += "def _stratex_flavor(\n";
    t += "    attn_backend: str,\n";
    t += "    moe_comm_backend: str,\n";
    t += "    non_blocking_capacity_factor: float | None = None,\n";
    t += "    num_mtp_layers: int = 0,\n";
    t += ") -> DeepSeekV3Model.Config:\n";
    t += "    dim = " + str(f.dim) + "\n";
    t += "    vocab_size = " + str(f.vocab) + "\n";
    t += "    layers = _dsv3._build_dsv3_layers(\n";
    const auto arg = [&](const std::string& name, const std::string& value) {
        t += "        " + name + "=" + value + ",\n";
    };
    arg("n_layers", str(f.layers));
    arg("n_dense_layers", str(f.dense_layers));
    arg("dim", "dim");
    arg("n_heads", str(f.heads));
    arg("q_lora_rank", str(f.mla.q_lora_rank));
    arg("kv_lora_rank", str(f.mla.kv_lora_rank));
    arg("qk_nope_head_dim", str(f.mla.qk_nope_head_dim));
    arg("qk_rope_head_dim", str(f.mla.qk_rope_head_dim));
    arg("v_head_dim", str(f.mla.v_head_dim));
    arg("mscale", "1.0"); // used with YaRN only
    arg("dense_hidden_dim", str(f.dense_hidden));
    arg("moe_hidden_dim", str(f.moe_hidden));
    arg("num_experts", str(f.experts));
    arg("num_shared_experts", str(std::max(1, f.shared_experts))); // 0: removed below
    arg("router_top_k", str(f.top_k));
    arg("router_score_func", pythonString(f.score_func));
    arg("router_num_expert_groups", f.expert_groups > 0 ? str(f.expert_groups) : "None");
    arg("router_num_limited_groups", f.expert_groups > 0 ? str(f.limited_groups) : "None");
    arg("router_route_scale", pyFloat(f.route_scale));
    arg("router_route_norm", f.route_norm ? "True" : "False");
    arg("attn_backend", "attn_backend");
    arg("moe_comm_backend", "moe_comm_backend");
    arg("non_blocking_capacity_factor", "non_blocking_capacity_factor");
    t += "        rope=ComplexRoPE.Config(\n";
    t += ropeText(f.mla.qk_rope_head_dim, f.max_context_length, f.rope_theta, f.rope_scaling, "            ");
    t += "        ),\n";
    t += "    )\n";
    if (!f.load_balance || f.shared_experts == 0) {
        t += "    for layer in layers:\n";
        t += "        if layer.moe is not None:\n";
        if (!f.load_balance)
            t += "            layer.moe.load_balance_coeff = None  # no expert bias\n";
        if (f.shared_experts == 0)
            t += "            layer.moe.shared_experts = None\n";
    }
    t += "    return DeepSeekV3Model.Config(\n";
    t += "        vocab_size=vocab_size,\n";
    t += "        dim=dim,\n";
    if (f.tied_embeddings)
        t += "        enable_weight_tying=True,\n";
    t += "        tok_embeddings=Embedding.Config(\n";
    t += "            num_embeddings=vocab_size, embedding_dim=dim, param_init=_dsv3._EMBEDDING_INIT\n";
    t += "        ),\n";
    t += "        norm=RMSNorm.Config(normalized_shape=dim, param_init=_dsv3._NORM_INIT),\n";
    t += "        lm_head=Linear.Config(\n";
    t += "            in_features=dim, out_features=vocab_size, param_init=_dsv3._output_linear_init(dim)\n";
    t += "        ),\n";
    t += "        layers=layers,\n";
    t += "        mtp_layers=_dsv3._build_mtp_layers(layers[-1], dim=dim, num_mtp_layers=num_mtp_layers),\n";
    t += "    )\n\n\n";
    t += "_dsv3.deepseekv3_configs[" + pythonString(f.flavor) + "] = _stratex_flavor\n";
    return t;
}

} // namespace

std::string torchtitanFlavourText(const TorchtitanModelChoice& choice)
{
    if (choice.llama)
        return llamaText(*choice.llama);
    if (choice.mla)
        return mlaText(*choice.mla);
    return "";
}

} // namespace stratex::exporting
