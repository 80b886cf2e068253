// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/hf_config.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <optional>

#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/reader_limits.h"

namespace stratex::model {

namespace {

// The architectures transformers registers for each family (modeling_auto.py's
// MODEL_FOR_CAUSAL_LM_MAPPING_NAMES and the Llama 4 multimodal class).
const std::map<std::string, std::string, std::less<>>& architectureFamilies()
{
    static const std::map<std::string, std::string, std::less<>> families {
        { "LlamaForCausalLM", "llama" },
        { "Llama4ForCausalLM", "llama4" },
        { "Llama4ForConditionalGeneration", "llama4" },
        { "MistralForCausalLM", "mistral" },
        { "MixtralForCausalLM", "mixtral" },
        { "Qwen2ForCausalLM", "qwen2" },
        { "Qwen2MoeForCausalLM", "qwen2_moe" },
        { "Qwen3ForCausalLM", "qwen3" },
        { "Qwen3MoeForCausalLM", "qwen3_moe" },
        { "DeepseekV2ForCausalLM", "deepseek_v2" },
        { "DeepseekV3ForCausalLM", "deepseek_v3" },
        { "GemmaForCausalLM", "gemma" },
        { "NemotronForCausalLM", "nemotron" },
        { "GPTNeoXForCausalLM", "gpt_neox" },
        { "GPT2LMHeadModel", "gpt2" },
    };
    return families;
}

std::string familyList()
{
    std::string list;
    for (const std::string& family : hfConfigFamilies())
        list += (list.empty() ? "" : ", ") + family;
    return list;
}

// The keys of one config object (the root, or Llama 4's "text_config"), with the bounds of
// input_limits.h / reader_limits.h on every size.
class Keys {
public:
    explicit Keys(const JsonView& object)
        : m_object(object)
    {
    }
    const JsonView& object() const { return m_object; }

    // A present, non-null value.
    std::optional<JsonView> find(std::string_view key) const
    {
        std::optional<JsonView> value = m_object.find(key);
        if (value && value->raw().is_null())
            return std::nullopt;
        return value;
    }
    JsonView require(std::string_view key) const
    {
        std::optional<JsonView> value = find(key);
        if (!value)
            m_object.failMissing(key);
        return *value;
    }
    int size(std::string_view key, int max) const { return bounded(require(key), max); }
    int size(std::string_view key, int max, int fallback) const
    {
        const std::optional<JsonView> value = find(key);
        return value ? bounded(*value, max) : fallback;
    }
    int count(std::string_view key, int fallback) const
    {
        const std::optional<JsonView> value = find(key);
        if (!value)
            return fallback;
        const std::int64_t n = value->integer();
        if (n < 0 || n > limits::kMaxExperts)
            value->fail("an integer from 0 to " + std::to_string(limits::kMaxExperts));
        return int(n);
    }
    bool flag(std::string_view key, bool fallback) const
    {
        const std::optional<JsonView> value = find(key);
        return value ? value->boolean() : fallback;
    }
    double number(std::string_view key, double fallback) const
    {
        const std::optional<JsonView> value = find(key);
        return value ? value->positiveNumber() : fallback;
    }
    std::string text(std::string_view key, std::string fallback) const
    {
        const std::optional<JsonView> value = find(key);
        return value ? value->string() : fallback;
    }
    // `key` is absent, null or `expected`; anything else is a feature the description lacks.
    void requireValue(std::string_view key, const nlohmann::ordered_json& expected, std::string_view why) const
    {
        const std::optional<JsonView> value = find(key);
        if (value && value->raw() != expected)
            value->fail(std::string(expected.dump()) + " (" + std::string(why) + ")");
    }

private:
    static int bounded(const JsonView& value, int max)
    {
        const int n = value.positiveInt();
        if (n > max)
            value.fail("a positive integer of at most " + std::to_string(max));
        return n;
    }
    JsonView m_object;
};

std::string shortNumber(double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
    return buffer;
}

// The model's name as file names and labels carry it: letters, digits, '.', '_' and '-'.
std::string cleanName(const std::string& raw)
{
    std::string name = raw;
    const std::size_t slash = name.find_last_of("/\\");
    if (slash != std::string::npos)
        name = name.substr(slash + 1);
    for (char& c : name) {
        const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.'
            || c == '_' || c == '-';
        if (!plain)
            c = '-';
    }
    if (name.size() > std::size_t(limits::kMaxNameLength))
        name.resize(std::size_t(limits::kMaxNameLength));
    return name;
}

struct Reading {
    const Keys& keys;
    HfModel& out;
    ModelDescription& model() { return out.model; }
    void note(std::string line) { out.notes.push_back(std::move(line)); }
};

// The attention and size keys most families share (LlamaConfig's names).
void readLlamaShape(Reading& r, bool tiedByDefault)
{
    const Keys& k = r.keys;
    ModelDescription& m = r.model();
    m.num_layers = k.size("num_hidden_layers", limits::kMaxLayers);
    m.hidden_size = k.size("hidden_size", limits::kMaxHiddenSize);
    m.ffn_hidden_size = k.size("intermediate_size", limits::kMaxFfnHiddenSize);
    m.num_heads = k.size("num_attention_heads", limits::kMaxHeads);
    m.num_kv_heads = k.size("num_key_value_heads", limits::kMaxHeads, m.num_heads);
    m.vocab_size = k.size("vocab_size", limits::kMaxVocabulary);
    m.seq_length = k.size("max_position_embeddings", limits::kMaxSeqLength * 4);
    m.mlp = MlpKind::Gated;
    m.norm = NormKind::RmsNorm;
    m.position = PositionEmbedding::Rope;
    m.tied_embeddings = k.flag("tie_word_embeddings", tiedByDefault);
    m.rotary_base = k.number("rope_theta", 10000);
    if (const std::optional<JsonView> headDim = k.find("head_dim")) {
        const int width = headDim->positiveInt();
        if (width > limits::kMaxHiddenSize)
            headDim->fail("a positive integer of at most " + std::to_string(limits::kMaxHiddenSize));
        if (m.hidden_size % m.num_heads != 0 || width != m.hidden_size / m.num_heads) {
            m.head_dim = width;
            r.note("head_dim " + std::to_string(width) + " differs from hidden_size / num_attention_heads: attention is "
                "num_attention_heads x head_dim = " + std::to_string(m.num_heads * width) + " wide (--kv-channels)");
        }
    }
    if (k.flag("mlp_bias", false))
        k.require("mlp_bias").fail("false (MLP biases are not in the model description)");
    if (const std::optional<JsonView> window = k.find("sliding_window"); window && k.flag("use_sliding_window", true)
        && window->isNumber() && m.seq_length > window->integer())
        r.note("sliding-window attention (" + std::to_string(window->integer())
            + " tokens) is costed as full attention");
}

// The SiLU-gated MLP (SwiGLU) every Llama-like family uses; another activation is an error.
void requireSilu(const Keys& k)
{
    if (const std::optional<JsonView> act = k.find("hidden_act"); act && act->string() != "silu")
        act->fail("\"silu\" (a SwiGLU MLP)");
}

// `key`, when given, names a GeLU ("gelu", "gelu_new", "gelu_pytorch_tanh", ...): the plain MLP of
// GPT-2 and GPT-NeoX (`mlp` names it in the error).
void requireGelu(const Keys& k, std::string_view key, std::string_view mlp)
{
    if (const std::optional<JsonView> act = k.find(key); act && act->string().rfind("gelu", 0) != 0)
        act->fail("a GeLU (" + std::string(mlp) + ")");
}

// "attention_bias" true is refused: `why` says which biases the description lacks.
void refuseAttentionBias(const Keys& k, std::string_view why)
{
    if (k.flag("attention_bias", false))
        k.require("attention_bias").fail("false (" + std::string(why) + ")");
}

// A partial RoPE's share of the head: "partial_rotary_factor", else the family's older key
// (`olderKey`, none when empty), else `fallback`; above 1 is an error naming the key it came from.
double rotaryFraction(const Keys& k, std::string_view olderKey, double fallback)
{
    const double older = olderKey.empty() ? fallback : k.number(olderKey, fallback);
    const double fraction = k.number("partial_rotary_factor", older);
    if (fraction > 1)
        k.require(k.find("partial_rotary_factor") || olderKey.empty() ? std::string_view("partial_rotary_factor") : olderKey)
            .fail("a number in (0, 1]");
    return fraction;
}

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

void readPlainShape(Reading& r, const PlainShapeKeys& keys)
{
    const Keys& k = r.keys;
    ModelDescription& m = r.model();
    m.num_layers = k.size(keys.layers, limits::kMaxLayers);
    m.hidden_size = k.size(keys.hidden, limits::kMaxHiddenSize);
    m.ffn_hidden_size = keys.ffn_per_hidden > 0
        ? k.size(keys.ffn, limits::kMaxFfnHiddenSize, keys.ffn_per_hidden * m.hidden_size)
        : k.size(keys.ffn, limits::kMaxFfnHiddenSize);
    m.num_heads = k.size(keys.heads, limits::kMaxHeads);
    m.num_kv_heads = m.num_heads;
    m.vocab_size = k.size(keys.vocab, limits::kMaxVocabulary);
    m.seq_length = k.size(keys.positions, limits::kMaxSeqLength);
    m.mlp = MlpKind::Plain;
    m.norm = NormKind::LayerNorm;
}

// "rope_scaling": Llama 3.1's rule becomes RopeScaling; YaRN (DeepSeek) is the context extension
// after pre-training (DeepSeek-V3 report §4.3): its original length is the pre-training one.
void readRopeScaling(Reading& r)
{
    const std::optional<JsonView> scaling = r.keys.find("rope_scaling");
    if (!scaling)
        return;
    scaling->requireObject();
    const Keys s(*scaling);
    std::optional<JsonView> typeKey = s.find("rope_type");
    if (!typeKey)
        typeKey = s.find("type");
    if (!typeKey)
        scaling->failMissing("rope_type");
    const std::string type = typeKey->string();
    ModelDescription& m = r.model();
    if (type == "default")
        return;
    if (type == "llama3") {
        RopeScaling rope;
        rope.factor = s.number("factor", rope.factor);
        rope.low_freq_factor = s.number("low_freq_factor", rope.low_freq_factor);
        rope.high_freq_factor = s.number("high_freq_factor", rope.high_freq_factor);
        rope.original_max_positions = s.size("original_max_position_embeddings", limits::kMaxSeqLength);
        m.rope_scaling = rope;
        m.seq_length = rope.original_max_positions;
        return;
    }
    if (type == "yarn") {
        const int original = s.size("original_max_position_embeddings", limits::kMaxSeqLength);
        r.note("YaRN RoPE scaling (factor " + shortNumber(s.number("factor", 1)) + ") is the context extension after "
            "pre-training: the pre-training length " + std::to_string(original) + " is the sequence length");
        m.seq_length = original;
        return;
    }
    typeKey->fail("\"llama3\", \"yarn\" or \"default\" (the RoPE scalings the model description holds)");
}

// The Megatron-side MoE shape shared by the families; the caller sets the routing facts.
MoeDescription readExperts(const Keys& k, std::string_view expertsKey, std::string_view ffnKey)
{
    MoeDescription moe;
    moe.num_experts = k.size(expertsKey, limits::kMaxExperts);
    moe.top_k = k.size("num_experts_per_tok", limits::kMaxExperts);
    moe.expert_ffn_hidden_size = k.size(ffnKey, limits::kMaxFfnHiddenSize);
    if (moe.top_k > moe.num_experts)
        k.require("num_experts_per_tok")
            .fail("at most " + std::string(expertsKey) + " (" + std::to_string(moe.num_experts) + ")");
    return moe;
}

// Qwen's "mlp_only_layers": dense layers are only supported as the first ones.
int leadingDenseLayers(const Keys& k)
{
    const std::optional<JsonView> layers = k.find("mlp_only_layers");
    if (!layers)
        return 0;
    layers->requireArray();
    const std::vector<JsonView> entries = layers->elements();
    for (std::size_t i = 0; i < entries.size(); ++i) {
        if (entries[i].integer() != std::int64_t(i))
            layers->fail("the first layers in order ([0, 1, ...]): dense layers elsewhere are not in the model "
                         "description");
    }
    return int(entries.size());
}

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
    if (const int mtp = k.count("num_nextn_predict_layers", 0); mtp > 0)
        r.note(std::to_string(mtp) + " multi-token-prediction layer(s) (num_nextn_predict_layers) are not costed");
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
    requireGelu(k, "hidden_act", "GPT-NeoX's MLP");
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
    requireGelu(k, "activation_function", "GPT-2's MLP");
}

} // namespace

const std::vector<std::string>& hfConfigFamilies()
{
    static const std::vector<std::string> families { "llama", "llama4", "mistral", "mixtral", "qwen2", "qwen2_moe",
        "qwen3", "qwen3_moe", "deepseek_v2", "deepseek_v3", "gemma", "nemotron", "gpt_neox", "gpt2" };
    return families;
}

HfModel readHfConfig(const JsonView& root, const std::string& fallbackName)
{
    root.requireObject();
    HfModel out;
    std::optional<std::string> fromArchitecture;
    std::optional<JsonView> architectureView;
    if (const std::optional<JsonView> architectures = root.find("architectures");
        architectures && !architectures->raw().is_null()) {
        architectures->requireArray();
        if (architectures->size() > 0) {
            architectureView = architectures->at(0);
            const std::string name = architectureView->string();
            const auto& known = architectureFamilies();
            if (const auto found = known.find(name); found != known.end())
                fromArchitecture = found->second;
        }
    }
    const std::optional<JsonView> typeView = root.find("model_type");
    if (typeView) {
        out.family = typeView->string();
        const auto& families = hfConfigFamilies();
        if (std::find(families.begin(), families.end(), out.family) == families.end())
            typeView->fail("a supported model_type (" + familyList() + ")");
        if (fromArchitecture && *fromArchitecture != out.family)
            architectureView->fail("an architecture of model_type \"" + out.family + "\" (the file contradicts itself)");
    } else if (fromArchitecture) {
        out.family = *fromArchitecture;
    } else if (architectureView) {
        architectureView->fail("a supported architecture (of " + familyList() + ")");
    } else {
        root.failMissing("model_type");
    }

    // Llama 4's released files nest the language model in "text_config".
    JsonView object = root;
    if (out.family == "llama4") {
        if (const std::optional<JsonView> text = root.find("text_config"); text && !text->raw().is_null()) {
            text->requireObject();
            object = *text;
        }
    }
    const Keys keys(object);
    Reading reading { keys, out };
    const std::string& f = out.family;
    if (f == "llama" || f == "mistral")
        readLlama(reading);
    else if (f == "llama4")
        readLlama4(reading);
    else if (f == "mixtral")
        readMixtral(reading);
    else if (f == "qwen2")
        readQwen2(reading);
    else if (f == "qwen3")
        readQwen3(reading);
    else if (f == "qwen2_moe" || f == "qwen3_moe")
        readQwenMoe(reading, f == "qwen3_moe");
    else if (f == "deepseek_v2" || f == "deepseek_v3")
        readDeepseek(reading, f == "deepseek_v3");
    else if (f == "gemma")
        readGemma(reading);
    else if (f == "nemotron")
        readNemotron(reading);
    else if (f == "gpt_neox")
        readGptNeox(reading);
    else
        readGpt2(reading);

    ModelDescription& m = out.model;
    if (m.seq_length > limits::kMaxSeqLength)
        keys.require("max_position_embeddings")
            .fail("a sequence length of at most " + std::to_string(limits::kMaxSeqLength));
    std::string name = cleanName(Keys(root).text("_name_or_path", std::string()));
    m.name = name.empty() ? cleanName(fallbackName) : name;
    if (m.name.empty())
        m.name = out.family;
    try {
        m.validate();
    } catch (const Error& error) {
        root.fail(std::string("a valid model shape (") + error.what() + ")");
    }
    return out;
}

HfModel readHfConfigFile(const std::filesystem::path& path)
{
    const JsonDocument document = JsonDocument::load(path);
    std::string fallback = path.stem().string();
    if (fallback == "config" && path.has_parent_path())
        fallback = std::filesystem::absolute(path).parent_path().filename().string();
    return readHfConfig(document.root(), fallback);
}

} // namespace stratex::model
