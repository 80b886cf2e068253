// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/hf_config_families.h"

#include <optional>

#include "core/model/hf_config_shapes.h"

namespace stratex::model::hf {

namespace {

void readLlama(Reading& r)
{
    readLlamaShape(r, false);
    requireSilu(r.keys);
    refuseAttentionBias(r.keys, "biases on Q, K, V and O are not in the model description; only Q/K/V biases are");
    readRopeScaling(r);
}

void readQwen2(Reading& r)
{
    readLlamaShape(r, false);
    requireSilu(r.keys);
    // modeling_qwen2.py builds q/k/v_proj with bias=True, o_proj and the MLP without.
    r.model().qkv_bias = true;
    readRopeScaling(r);
}

void readQwen3(Reading& r)
{
    readLlamaShape(r, false);
    requireSilu(r.keys);
    refuseAttentionBias(r.keys, "biases on Q, K, V and O are not in the model description");
    r.model().qk_norm = true; // modeling_qwen3.py: q_norm / k_norm (RMSNorm per head) before RoPE
    readRopeScaling(r);
}

void readMixtral(Reading& r)
{
    readLlamaShape(r, false);
    requireSilu(r.keys);
    readRopeScaling(r);
    // modeling_mixtral.py: softmax over the experts, top-k, renormalised: Megatron's default router.
    r.model().moe = readExperts(r.keys, "num_local_experts", "intermediate_size");
}

void readQwenMoe(Reading& r, bool qwen3)
{
    const Keys& k = r.keys;
    readLlamaShape(r, false);
    requireSilu(k);
    k.requireValue("decoder_sparse_step", 1, "MoE in every layer; other steps are not in the model description");
    MoeDescription moe = readExperts(k, "num_experts", "moe_intermediate_size");
    moe.first_dense_layers = leadingDenseLayers(k);
    // configuration_qwen2_moe.py / configuration_qwen3_moe.py: norm_topk_prob defaults to false.
    moe.normalize_top_k = k.flag("norm_topk_prob", false);
    if (qwen3) {
        r.model().qk_norm = true;
        refuseAttentionBias(k, "biases on Q, K, V and O are not in the model description");
    } else {
        r.model().qkv_bias = true;
        // modeling_qwen2_moe.py: one shared expert of shared_expert_intermediate_size behind a
        // sigmoid gate (shared_expert_gate).
        const int shared = k.size("shared_expert_intermediate_size", limits::kMaxFfnHiddenSize, 0);
        if (shared > 0) {
            moe.shared_experts = 1;
            moe.shared_expert_ffn_hidden_size = shared;
            moe.shared_expert_gate = true;
        }
    }
    r.model().moe = moe;
    readRopeScaling(r);
}

void readDeepseek(Reading& r, bool v3)
{
    const Keys& k = r.keys;
    readLlamaShape(r, false);
    requireSilu(k);
    refuseAttentionBias(k, "attention biases are not in the model description");
    ModelDescription& m = r.model();
    MlaDescription mla;
    mla.q_lora_rank = k.size("q_lora_rank", limits::kMaxHiddenSize, 0); // null: a full query projection (V2-Lite)
    mla.kv_lora_rank = k.size("kv_lora_rank", limits::kMaxHiddenSize);
    mla.qk_nope_head_dim = k.size("qk_nope_head_dim", limits::kMaxHiddenSize);
    mla.qk_rope_head_dim = k.size("qk_rope_head_dim", limits::kMaxHiddenSize);
    mla.v_head_dim = k.size("v_head_dim", limits::kMaxHiddenSize);
    m.mla = mla;
    if (m.num_kv_heads != m.num_heads)
        k.require("num_key_value_heads")
            .fail("num_attention_heads (" + std::to_string(m.num_heads) + "): multi-latent attention has no KV groups");
    readRopeScaling(r);

    if (!k.find("n_routed_experts"))
        return; // a dense DeepSeek
    k.requireValue("moe_layer_freq", 1, "MoE in every layer after the first dense ones");
    MoeDescription moe = readExperts(k, "n_routed_experts", "moe_intermediate_size");
    moe.shared_experts = k.count("n_shared_experts", 0);
    moe.shared_expert_ffn_hidden_size = moe.shared_experts > 0 ? moe.expert_ffn_hidden_size : 0;
    moe.first_dense_layers = k.count("first_k_dense_replace", 0);
    // configuration_deepseek_v3.py defaults: sigmoid, noaux_tc, norm_topk_prob true;
    // configuration_deepseek_v2.py: softmax, greedy, norm_topk_prob false.
    const std::string scoring = k.text("scoring_func", v3 ? "sigmoid" : "softmax");
    if (scoring == "sigmoid")
        moe.score_function = RouterScore::Sigmoid;
    else if (scoring != "softmax")
        k.require("scoring_func").fail("\"softmax\" or \"sigmoid\"");
    moe.normalize_top_k = k.flag("norm_topk_prob", v3);
    moe.scaling_factor = k.number("routed_scaling_factor", 1.0);
    const std::string method = k.text("topk_method", v3 ? "noaux_tc" : "greedy");
    if (method == "noaux_tc")
        moe.expert_bias = true;
    else if (method != "greedy" && method != "group_limited_greedy")
        k.require("topk_method").fail("\"greedy\", \"group_limited_greedy\" or \"noaux_tc\"");
    if (method != "greedy") {
        const int groups = k.count("n_group", 1);
        const int topkGroups = k.count("topk_group", 1);
        if (groups > 1) {
            moe.num_groups = groups;
            moe.group_top_k = topkGroups;
        }
    }
    if (moe.expert_bias && moe.score_function != RouterScore::Sigmoid)
        k.require("scoring_func").fail("\"sigmoid\" (topk_method \"noaux_tc\" adds the expert bias to sigmoid scores)");
    m.moe = moe;
    // The MTP modules (model_description.h mtp_num_layers), costed on the last stage.
    m.mtp_num_layers = k.count("num_nextn_predict_layers", 0);
}

void readLlama4(Reading& r)
{
    const Keys& k = r.keys;
    readLlamaShape(r, false);
    requireSilu(k);
    ModelDescription& m = r.model();
    // modeling_llama4.py: intermediate_size_mlp is the dense layers' MLP, intermediate_size an
    // expert's and the shared expert's; the router takes the sigmoid of the top-k logits.
    m.ffn_hidden_size = k.size("intermediate_size_mlp", limits::kMaxFfnHiddenSize, m.ffn_hidden_size);
    k.requireValue("interleave_moe_layer_step", 1,
        "MoE in every layer; MoE every n-th layer (Llama 4 Maverick) is not in the model description");
    MoeDescription moe = readExperts(k, "num_local_experts", "intermediate_size");
    moe.shared_experts = 1;
    moe.shared_expert_ffn_hidden_size = moe.expert_ffn_hidden_size;
    moe.score_function = RouterScore::Sigmoid;
    moe.normalize_top_k = false;
    m.moe = moe;
    m.qk_norm = k.flag("use_qk_norm", false);
    readRopeScaling(r);
    if (const std::optional<JsonView> chunk = k.find("attention_chunk_size"))
        r.note("chunked local attention (" + std::to_string(chunk->integer()) + " tokens) and the layers without "
            "RoPE are costed as full RoPE attention");
    if (m.qk_norm)
        r.note("Llama 4's QK norm (a weightless L2 norm) is written as Megatron's --qk-layernorm");
}

void readGemma(Reading& r)
{
    const Keys& k = r.keys;
    readLlamaShape(r, true); // configuration_gemma.py: tie_word_embeddings defaults to true
    const std::string act = k.text("hidden_activation", k.text("hidden_act", "gelu_pytorch_tanh"));
    if (act.rfind("gelu", 0) != 0)
        k.require(k.find("hidden_activation") ? "hidden_activation" : "hidden_act").fail("a GeLU (Gemma's GeGLU MLP)");
    r.note("Gemma's GeGLU MLP is costed as a gated MLP (three matrices; Megatron exports write SwiGLU), its "
           "RMSNorm scale (1 + w) and embedding scaling are not modelled");
    readRopeScaling(r);
}

void readNemotron(Reading& r)
{
    const Keys& k = r.keys;
    readLlamaShape(r, false);
    ModelDescription& m = r.model();
    // modeling_nemotron.py: squared-ReLU MLP without a gate (up_proj, down_proj), LayerNorm1P,
    // partial RoPE.
    const std::string act = k.text("hidden_act", "relu2");
    if (act != "relu2")
        k.require("hidden_act").fail("\"relu2\" (Nemotron's squared-ReLU MLP)");
    m.mlp = MlpKind::Plain;
    m.norm = NormKind::LayerNorm;
    m.rotary_percent = rotaryFraction(k, {}, 0.5);
    if (const std::optional<JsonView> channels = k.find("kv_channels"); channels && m.head_dim == 0) {
        const int width = channels->positiveInt();
        if (width != m.hidden_size / m.num_heads)
            m.head_dim = width;
    }
    if (k.flag("attention_bias", false) || k.flag("mlp_bias", false))
        k.require(k.flag("attention_bias", false) ? "attention_bias" : "mlp_bias").fail("false (biases are not in the model description)");
    r.note("Nemotron's squared-ReLU MLP is costed as a plain two-matrix MLP; Megatron exports write GeLU");
    readRopeScaling(r);
}

void readGptNeox(Reading& r)
{
    const Keys& k = r.keys;
    ModelDescription& m = r.model();
    readPlainShape(r,
        { "num_hidden_layers", "hidden_size", "intermediate_size", "num_attention_heads", "vocab_size",
            "max_position_embeddings" });
    m.position = PositionEmbedding::Rope;
    m.tied_embeddings = k.flag("tie_word_embeddings", false);
    // configuration_gpt_neox.py: rotary_pct (default 0.25) and rotary_emb_base (10000); newer
    // files name them partial_rotary_factor and rope_theta.
    m.rotary_percent = rotaryFraction(k, "rotary_pct", 0.25);
    m.rotary_base = k.number("rope_theta", k.number("rotary_emb_base", 10000));
    m.activation = readPlainActivation(k, "hidden_act", "GPT-NeoX's MLP");
    if (k.flag("use_parallel_residual", true))
        r.note("GPT-NeoX's parallel attention and MLP (use_parallel_residual) are costed one after the other");
    readRopeScaling(r);
}

void readGpt2(Reading& r)
{
    const Keys& k = r.keys;
    ModelDescription& m = r.model();
    // configuration_gpt2.py: n_inner null means 4 x n_embd.
    readPlainShape(r, { "n_layer", "n_embd", "n_inner", "n_head", "vocab_size", "n_positions", 4 });
    m.position = PositionEmbedding::Learned;
    m.tied_embeddings = k.flag("tie_word_embeddings", true);
    m.activation = readPlainActivation(k, "activation_function", "GPT-2's MLP");
}

} // namespace

void readFamily(const std::string& family, Reading& r)
{
    const std::string& f = family;
    if (f == "llama" || f == "mistral")
        readLlama(r);
    else if (f == "llama4")
        readLlama4(r);
    else if (f == "mixtral")
        readMixtral(r);
    else if (f == "qwen2")
        readQwen2(r);
    else if (f == "qwen3")
        readQwen3(r);
    else if (f == "qwen2_moe" || f == "qwen3_moe")
        readQwenMoe(r, f == "qwen3_moe");
    else if (f == "deepseek_v2" || f == "deepseek_v3")
        readDeepseek(r, f == "deepseek_v3");
    else if (f == "gemma")
        readGemma(r);
    else if (f == "nemotron")
        readNemotron(r);
    else if (f == "gpt_neox")
        readGptNeox(r);
    else
        readGpt2(r);
}

} // namespace stratex::model::hf
