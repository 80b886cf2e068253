// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/model_setting_rows.h"

#include <stdexcept>

#include "core/common/input_limits.h"

namespace stratex::model {

namespace {

using settings::SettingKind;
using settings::SettingSpec;
using settings::SettingValue;

constexpr std::string_view kGroup = "Model";

SettingSpec spec(SettingKind kind, std::string_view flag, std::string_view label, std::string_view valueName,
    double minimum, double maximum, std::string_view help)
{
    return settings::settingSpec(kind, flag, kGroup, label, valueName, help, minimum, maximum);
}

SettingSpec choice(
    std::string_view flag, std::string_view label, std::vector<std::string_view> choices, std::string_view help)
{
    SettingSpec s = spec(SettingKind::Choice, flag, label, "", 0, 0, help);
    s.choices = std::move(choices);
    return s;
}

int ModelDescription::*intMember(std::string_view flag)
{
    if (flag == "num-layers")
        return &ModelDescription::num_layers;
    if (flag == "hidden-size")
        return &ModelDescription::hidden_size;
    if (flag == "ffn-hidden-size")
        return &ModelDescription::ffn_hidden_size;
    if (flag == "num-heads")
        return &ModelDescription::num_heads;
    if (flag == "num-kv-heads")
        return &ModelDescription::num_kv_heads;
    if (flag == "vocab-size")
        return &ModelDescription::vocab_size;
    if (flag == "seq-length")
        return &ModelDescription::seq_length;
    throw std::logic_error("no integer model field --" + std::string(flag));
}

} // namespace

const std::vector<std::string_view>& modelFlags()
{
    static const std::vector<std::string_view> flags { "model", "name", "num-layers", "hidden-size", "ffn-hidden-size",
        "num-heads", "num-kv-heads", "vocab-size", "seq-length", "mlp", "activation", "norm", "position-embedding",
        "tied-embeddings", "qkv-bias" };
    return flags;
}

SettingSpec modelSettingSpec(std::string_view flag)
{
    constexpr auto Integer = SettingKind::Integer;
    if (flag == "model") {
        std::vector<std::string_view> names;
        for (const ModelDescription& preset : modelPresets())
            names.push_back(preset.name);
        return choice(flag, "Model", std::move(names), "Start from a published model shape.");
    }
    if (flag == "name")
        return spec(SettingKind::Text, flag, "Name", "NAME", 0, 0, "Model name used in the file names.");
    if (flag == "num-layers")
        return spec(Integer, flag, "Layers", "L", 1, limits::kMaxLayers, "Transformer layers.");
    if (flag == "hidden-size")
        return spec(Integer, flag, "Hidden size", "H", 1, 1 << 20, "Hidden size.");
    if (flag == "ffn-hidden-size")
        return spec(Integer, flag, "MLP size", "F", 1, 1 << 22, "MLP intermediate size.");
    if (flag == "num-heads")
        return spec(Integer, flag, "Attention heads", "A", 1, 4096, "Attention heads.");
    if (flag == "num-kv-heads")
        return spec(Integer, flag, "Key/value heads", "K", 1, 4096, "Key/value heads (grouped-query attention).");
    if (flag == "vocab-size")
        return spec(Integer, flag, "Vocabulary", "V", 1, 1 << 24, "Vocabulary size.");
    if (flag == "seq-length")
        return spec(Integer, flag, "Sequence length", "S", 1, 1 << 22, "Sequence length (tokens per sample).");
    if (flag == "mlp")
        return choice(flag, "MLP", { mlpKindName(MlpKind::Gated), mlpKindName(MlpKind::Plain) },
            "SwiGLU (three matrices) or GeLU (two) MLP.");
    if (flag == "activation")
        return choice(flag, "Activation", { mlpActivationName(MlpActivation::Gelu), mlpActivationName(MlpActivation::Relu) },
            "The plain MLP's activation: GeLU (GPT-3) or ReLU (OPT), which keeps one MLP tensor for its backward instead "
            "of two (docs/memory-model.md); a gated MLP is SwiGLU and takes gelu.");
    if (flag == "norm")
        return choice(flag, "Normalization", { normKindName(NormKind::RmsNorm), normKindName(NormKind::LayerNorm) },
            "RMSNorm (Llama, Qwen) or LayerNorm (GPT-3).");
    if (flag == "position-embedding")
        return choice(flag, "Positions",
            { positionEmbeddingName(PositionEmbedding::Rope), positionEmbeddingName(PositionEmbedding::Learned) },
            "Rotary (RoPE) or learned absolute position embeddings.");
    if (flag == "tied-embeddings") {
        SettingSpec s = spec(SettingKind::Switch, flag, "tied embeddings", "", 0, 0,
            "The LM head shares the input embedding's weights (GPT-3); 0 for a separate output layer (Llama).");
        return s;
    }
    if (flag == "qkv-bias")
        return spec(SettingKind::Switch, flag, "QKV bias", "", 0, 0,
            "A bias on the query, key and value projections only (Qwen 2 / 2.5; Megatron's --add-qkv-bias).");
    throw std::logic_error("no model setting --" + std::string(flag));
}

std::string modelFieldName(std::string_view flag)
{
    if (flag == "model")
        return "preset";
    if (flag == "position-embedding")
        return "position_embedding";
    std::string name(flag);
    for (char& c : name)
        c = c == '-' ? '_' : c;
    return name;
}

SettingValue modelFieldValue(const ModelDescription& model, std::string_view flag)
{
    if (flag == "name")
        return model.name;
    if (flag == "mlp")
        return std::string(mlpKindName(model.mlp));
    if (flag == "activation")
        return std::string(mlpActivationName(model.activation));
    if (flag == "norm")
        return std::string(normKindName(model.norm));
    if (flag == "position-embedding")
        return std::string(positionEmbeddingName(model.position));
    if (flag == "tied-embeddings")
        return model.tied_embeddings;
    if (flag == "qkv-bias")
        return model.qkv_bias;
    return std::int64_t(model.*intMember(flag));
}

void setModelField(ModelDescription& model, std::string_view flag, const SettingValue& value)
{
    if (flag == "name") {
        model.name = std::get<std::string>(value);
    } else if (flag == "mlp") {
        model.mlp = parseMlpKind(std::get<std::string>(value)).value_or(model.mlp);
    } else if (flag == "activation") {
        model.activation = parseMlpActivation(std::get<std::string>(value)).value_or(model.activation);
    } else if (flag == "norm") {
        model.norm = parseNormKind(std::get<std::string>(value)).value_or(model.norm);
    } else if (flag == "position-embedding") {
        model.position = parsePositionEmbedding(std::get<std::string>(value)).value_or(model.position);
    } else if (flag == "tied-embeddings") {
        model.tied_embeddings = std::get<bool>(value);
    } else if (flag == "qkv-bias") {
        model.qkv_bias = std::get<bool>(value);
    } else if (flag == "num-heads") {
        const int heads = int(std::get<std::int64_t>(value));
        if (model.num_kv_heads == model.num_heads)
            model.num_kv_heads = heads;
        model.num_heads = heads;
    } else {
        model.*intMember(flag) = int(std::get<std::int64_t>(value));
    }
}

} // namespace stratex::model
