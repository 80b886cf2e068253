// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/hf_config_shapes.h"

#include <cstdint>
#include <cstdio>
#include <optional>
#include <vector>

namespace stratex::model::hf {

namespace {

std::string shortNumber(double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
    return buffer;
}

} // namespace

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

MlpActivation readPlainActivation(const Keys& k, std::string_view key, std::string_view mlp)
{
    const std::optional<JsonView> act = k.find(key);
    if (!act || act->string().rfind("gelu", 0) == 0)
        return MlpActivation::Gelu;
    if (act->string() == "relu")
        return MlpActivation::Relu;
    act->fail("a GeLU or \"relu\" (" + std::string(mlp) + ")");
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

} // namespace stratex::model::hf
