// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/model_description.h"

#include <algorithm>

#include "core/common/enum_names.h"
#include "core/common/error.h"
#include "core/model/mla_shapes.h"

namespace stratex::model {

namespace {

constexpr EnumNames<MlpKind, 2> kMlpNames { { { MlpKind::Gated, "gated" }, { MlpKind::Plain, "plain" } } };
constexpr EnumNames<MlpActivation, 2> kActivationNames { { { MlpActivation::Gelu, "gelu" },
    { MlpActivation::Relu, "relu" } } };
constexpr EnumNames<NormKind, 2> kNormNames { { { NormKind::RmsNorm, "rmsnorm" },
    { NormKind::LayerNorm, "layernorm" } } };
constexpr EnumNames<PositionEmbedding, 2> kPositionNames { { { PositionEmbedding::Rope, "rope" },
    { PositionEmbedding::Learned, "learned" } } };
constexpr EnumNames<RouterScore, 2> kRouterScoreNames { { { RouterScore::Softmax, "softmax" },
    { RouterScore::Sigmoid, "sigmoid" } } };

void requirePositive(const char* what, int value)
{
    if (value <= 0)
        throw Error(std::string("model: ") + what + " must be a positive integer, found " + std::to_string(value));
}

void requireNonNegative(const char* what, int value)
{
    if (value < 0)
        throw Error(std::string("model: ") + what + " must not be negative, found " + std::to_string(value));
}

} // namespace

std::string_view mlpKindName(MlpKind kind)
{
    return enumName(kMlpNames, kind);
}
std::optional<MlpKind> parseMlpKind(std::string_view name)
{
    return parseEnumName(kMlpNames, name);
}
std::string_view mlpActivationName(MlpActivation activation)
{
    return enumName(kActivationNames, activation);
}
std::optional<MlpActivation> parseMlpActivation(std::string_view name)
{
    return parseEnumName(kActivationNames, name);
}
std::string_view normKindName(NormKind kind)
{
    return enumName(kNormNames, kind);
}
std::optional<NormKind> parseNormKind(std::string_view name)
{
    return parseEnumName(kNormNames, name);
}
std::string_view positionEmbeddingName(PositionEmbedding kind)
{
    return enumName(kPositionNames, kind);
}
std::optional<PositionEmbedding> parsePositionEmbedding(std::string_view name)
{
    return parseEnumName(kPositionNames, name);
}
std::string_view routerScoreName(RouterScore score)
{
    return enumName(kRouterScoreNames, score);
}
std::optional<RouterScore> parseRouterScore(std::string_view name)
{
    return parseEnumName(kRouterScoreNames, name);
}

void ModelDescription::validate() const
{
    requirePositive("num_layers", num_layers);
    requirePositive("hidden_size", hidden_size);
    requirePositive("ffn_hidden_size", ffn_hidden_size);
    requirePositive("num_heads", num_heads);
    requirePositive("num_kv_heads", num_kv_heads);
    requirePositive("vocab_size", vocab_size);
    requirePositive("seq_length", seq_length);
    if (head_dim == 0 && hidden_size % num_heads != 0) // with a head_dim the heads need not divide hidden
        throw Error("model: hidden_size " + std::to_string(hidden_size) + " is not divisible by num_heads "
            + std::to_string(num_heads));
    if (num_heads % num_kv_heads != 0)
        throw Error("model: num_heads " + std::to_string(num_heads) + " is not divisible by num_kv_heads "
            + std::to_string(num_kv_heads));
    requirePositive("vocab_padding_multiple", vocab_padding_multiple);
    if (activation == MlpActivation::Relu && mlp != MlpKind::Plain)
        throw Error("model: activation relu needs mlp plain (a gated MLP is SwiGLU), found mlp gated");
    if (!(rotary_base > 0))
        throw Error("model: rotary_base must be positive, found " + std::to_string(rotary_base));
    if (rope_scaling) {
        if (!(rope_scaling->factor >= 1) || !(rope_scaling->low_freq_factor > 0)
            || !(rope_scaling->high_freq_factor > rope_scaling->low_freq_factor))
            throw Error("model: rope_scaling needs factor >= 1 and 0 < low_freq_factor < high_freq_factor");
        requirePositive("rope_scaling.original_max_positions", rope_scaling->original_max_positions);
    }
    requireNonNegative("head_dim", head_dim);
    requireNonNegative("mtp_num_layers", mtp_num_layers);
    if (mtp_num_layers > num_layers)
        throw Error("model: mtp_num_layers must be at most num_layers (" + std::to_string(num_layers) + "), found "
            + std::to_string(mtp_num_layers));
    if (!(rotary_percent > 0 && rotary_percent <= 1))
        throw Error("model: rotary_percent must be in (0, 1], found " + std::to_string(rotary_percent));
    if (mla) {
        requireNonNegative("mla.q_lora_rank", mla->q_lora_rank);
        requirePositive("mla.kv_lora_rank", mla->kv_lora_rank);
        requirePositive("mla.qk_nope_head_dim", mla->qk_nope_head_dim);
        requirePositive("mla.qk_rope_head_dim", mla->qk_rope_head_dim);
        requirePositive("mla.v_head_dim", mla->v_head_dim);
        if (num_kv_heads != num_heads)
            throw Error("model: multi-latent attention has no grouped KV heads (num_kv_heads must equal num_heads)");
    }
    if (!moe)
        return;
    requirePositive("moe.num_experts", moe->num_experts);
    requirePositive("moe.top_k", moe->top_k);
    requirePositive("moe.expert_ffn_hidden_size", moe->expert_ffn_hidden_size);
    requireNonNegative("moe.shared_experts", moe->shared_experts);
    requireNonNegative("moe.shared_expert_ffn_hidden_size", moe->shared_expert_ffn_hidden_size);
    requireNonNegative("moe.first_dense_layers", moe->first_dense_layers);
    if (moe->top_k > moe->num_experts)
        throw Error("model: moe.top_k " + std::to_string(moe->top_k) + " is larger than moe.num_experts "
            + std::to_string(moe->num_experts));
    if (moe->shared_experts > 0 && moe->shared_expert_ffn_hidden_size <= 0)
        throw Error("model: moe.shared_expert_ffn_hidden_size must be positive when moe.shared_experts > 0");
    if (moe->first_dense_layers >= num_layers)
        throw Error("model: moe.first_dense_layers " + std::to_string(moe->first_dense_layers)
            + " leaves no MoE layer of " + std::to_string(num_layers));
    // Megatron's TransformerConfig.__post_init__ (transformer_config.py, d98e8a64): group-limited
    // routing needs both counts, the groups dividing the experts and group_topk <= num_groups;
    // the expert bias takes sigmoid scores.
    requireNonNegative("moe.num_groups", moe->num_groups);
    requireNonNegative("moe.group_top_k", moe->group_top_k);
    if ((moe->num_groups > 0) != (moe->group_top_k > 0))
        throw Error("model: moe.num_groups and moe.group_top_k are given together (group-limited routing), found "
            + std::to_string(moe->num_groups) + " and " + std::to_string(moe->group_top_k));
    if (moe->num_groups > 0) {
        if (moe->num_experts % moe->num_groups != 0)
            throw Error("model: moe.num_experts " + std::to_string(moe->num_experts)
                + " is not divisible by moe.num_groups " + std::to_string(moe->num_groups));
        if (moe->group_top_k > moe->num_groups)
            throw Error("model: moe.group_top_k " + std::to_string(moe->group_top_k) + " is larger than moe.num_groups "
                + std::to_string(moe->num_groups));
    }
    if (moe->expert_bias && moe->score_function != RouterScore::Sigmoid)
        throw Error("model: moe.expert_bias (aux-loss-free balancing) needs sigmoid router scores");
    if (!(moe->scaling_factor > 0))
        throw Error("model: moe.scaling_factor must be positive, found " + std::to_string(moe->scaling_factor));
    if (moe->capacity_factor && !(*moe->capacity_factor > 0))
        throw Error("model: moe.capacity_factor must be positive, found " + std::to_string(*moe->capacity_factor));
}

int ModelDescription::paddedVocabSize(int tensorParallel) const
{
    // megatron/core/tokenizers/utils/build_tokenizer.py (Megatron-LM d98e8a64): the multiple is
    // make_vocab_size_divisible_by x tensor_model_parallel_size.
    const long long multiple = static_cast<long long>(vocab_padding_multiple) * std::max(1, tensorParallel);
    return int((vocab_size + multiple - 1) / multiple * multiple);
}

ParameterCount countParameters(const ModelDescription& model)
{
    const double h = model.hidden_size;
    const double matrices = model.mlp == MlpKind::Gated ? 3 : 2;
    ParameterCount count;
    // linear_qkv (h x (q + 2kv)) and linear_proj (q x h): headDim()'s source.
    const double q = model.attentionWidth();
    const double kv = model.kvHiddenSize();
    count.attention = 2 * h * q + 2 * h * kv + (model.qkv_bias ? q + 2 * kv : 0);
    if (model.mla)
        count.attention = mlaAttentionParameters(model); // mla_shapes.h
    count.dense_mlp = matrices * h * model.ffn_hidden_size;
    count.norms = model.norm == NormKind::LayerNorm ? 4 * h : 2 * h; // LayerNorm has a bias vector
    count.embedding = double(model.vocab_size) * h
        + (model.position == PositionEmbedding::Learned ? double(model.seq_length) * h : 0);
    count.output = model.tied_embeddings ? 0 : double(model.vocab_size) * h;
    count.final_norm = model.norm == NormKind::LayerNorm ? 2 * h : h;

    const int denseLayers = model.num_layers - model.moeLayerCount();
    const int moeLayers = model.moeLayerCount();
    double perMoeLayerTotal = 0;
    double perMoeLayerActive = 0;
    if (model.moe) {
        const MoeDescription& moe = *model.moe;
        count.expert_mlp = matrices * h * moe.expert_ffn_hidden_size;
        count.shared_mlp = matrices * h * moe.shared_expert_ffn_hidden_size * moe.shared_experts;
        count.router = h * moe.num_experts;
        perMoeLayerTotal = count.expert_mlp * moe.num_experts + count.shared_mlp + count.router;
        perMoeLayerActive = count.expert_mlp * moe.top_k + count.shared_mlp + count.router;
    }
    const double common = count.attention + count.norms;
    const double outside = count.embedding + count.output + count.final_norm;
    count.total = denseLayers * (common + count.dense_mlp) + moeLayers * (common + perMoeLayerTotal) + outside;
    count.active = denseLayers * (common + count.dense_mlp) + moeLayers * (common + perMoeLayerActive) + outside;
    return count;
}

} // namespace stratex::model
