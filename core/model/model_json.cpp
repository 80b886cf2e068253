// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/model_json.h"

#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/reader_limits.h"
#include "core/model/model_presets.h"

namespace stratex::model {

nlohmann::ordered_json toJson(const ModelDescription& model)
{
    nlohmann::ordered_json json = { { "name", model.name }, { "num_layers", model.num_layers },
        { "hidden_size", model.hidden_size }, { "ffn_hidden_size", model.ffn_hidden_size },
        { "num_heads", model.num_heads }, { "num_kv_heads", model.num_kv_heads }, { "vocab_size", model.vocab_size },
        { "seq_length", model.seq_length }, { "mlp", mlpKindName(model.mlp) }, { "norm", normKindName(model.norm) },
        { "position_embedding", positionEmbeddingName(model.position) }, { "tied_embeddings", model.tied_embeddings },
        { "qkv_bias", model.qkv_bias } };
    if (model.moe) {
        const MoeDescription& moe = *model.moe;
        json["moe"] = { { "num_experts", moe.num_experts }, { "top_k", moe.top_k },
            { "expert_ffn_hidden_size", moe.expert_ffn_hidden_size }, { "shared_experts", moe.shared_experts },
            { "shared_expert_ffn_hidden_size", moe.shared_expert_ffn_hidden_size },
            { "first_dense_layers", moe.first_dense_layers } };
    }
    return json;
}

namespace {

// Reads `key` into `field` when present; required without a preset to start from.
// `max` is the flag's bound (model_setting_rows.cpp, input_limits.h): plan files and run records
// with 2^31-1 layers hung the costing (issue 26).
void readInt(const JsonView& object, std::string_view key, int& field, bool required, int max)
{
    if (const std::optional<JsonView> value = object.find(key)) {
        field = value->positiveInt();
        if (field > max)
            value->fail("a positive integer of at most " + std::to_string(max));
    } else if (required)
        object.failMissing(key);
}

void readCount(const JsonView& object, std::string_view key, int& field)
{
    if (const std::optional<JsonView> value = object.find(key)) {
        const std::int64_t count = value->integer();
        if (count < 0 || count > 1'000'000)
            value->fail("an integer from 0 to 1000000");
        field = int(count);
    }
}

template <typename Enum, typename Parse>
void readEnum(const JsonView& object, std::string_view key, Enum& field, Parse parse, std::string_view expected)
{
    if (const std::optional<JsonView> value = object.find(key)) {
        const std::optional<Enum> parsed = parse(value->string());
        if (!parsed)
            value->fail(expected);
        field = *parsed;
    }
}

MoeDescription readMoe(const JsonView& object, const std::optional<MoeDescription>& base)
{
    object.requireObject();
    MoeDescription moe = base.value_or(MoeDescription {});
    const bool required = !base;
    readInt(object, "num_experts", moe.num_experts, required, limits::kMaxExperts);
    readInt(object, "top_k", moe.top_k, required, limits::kMaxExperts);
    readInt(object, "expert_ffn_hidden_size", moe.expert_ffn_hidden_size, required, limits::kMaxFfnHiddenSize);
    readCount(object, "shared_experts", moe.shared_experts);
    readCount(object, "shared_expert_ffn_hidden_size", moe.shared_expert_ffn_hidden_size);
    readCount(object, "first_dense_layers", moe.first_dense_layers);
    return moe;
}

} // namespace

ModelDescription readModel(const JsonView& object)
{
    object.requireObject();
    ModelDescription model;
    const std::optional<JsonView> preset = object.find("preset");
    if (preset) {
        try {
            model = modelPreset(preset->string());
        } catch (const InputError&) {
            throw;
        } catch (const Error& error) {
            preset->fail(std::string("a model preset; ") + error.what());
        }
    }
    const bool required = !preset;
    if (const std::optional<JsonView> name = object.find("name")) {
        model.name = name->string();
        if (model.name.size() > std::size_t(limits::kMaxNameLength))
            name->fail("a name of at most " + std::to_string(limits::kMaxNameLength) + " bytes");
    }
    else if (required)
        object.failMissing("name");
    readInt(object, "num_layers", model.num_layers, required, limits::kMaxLayers);
    readInt(object, "hidden_size", model.hidden_size, required, limits::kMaxHiddenSize);
    readInt(object, "ffn_hidden_size", model.ffn_hidden_size, required, limits::kMaxFfnHiddenSize);
    readInt(object, "num_heads", model.num_heads, required, limits::kMaxHeads);
    readInt(object, "num_kv_heads", model.num_kv_heads, required, limits::kMaxHeads);
    readInt(object, "vocab_size", model.vocab_size, required, limits::kMaxVocabulary);
    readInt(object, "seq_length", model.seq_length, required, limits::kMaxSeqLength);
    readEnum(object, "mlp", model.mlp, parseMlpKind, "\"gated\" or \"plain\"");
    if (required && !object.has("mlp"))
        object.failMissing("mlp");
    const bool gated = model.mlp == MlpKind::Gated;
    if (required) {
        model.norm = gated ? NormKind::RmsNorm : NormKind::LayerNorm;
        model.position = gated ? PositionEmbedding::Rope : PositionEmbedding::Learned;
    }
    readEnum(object, "norm", model.norm, parseNormKind, "\"rmsnorm\" or \"layernorm\"");
    readEnum(object, "position_embedding", model.position, parsePositionEmbedding, "\"rope\" or \"learned\"");
    if (const std::optional<JsonView> tied = object.find("tied_embeddings"))
        model.tied_embeddings = tied->boolean();
    else if (required)
        object.failMissing("tied_embeddings");
    if (const std::optional<JsonView> bias = object.find("qkv_bias")) {
        model.qkv_bias = bias->boolean();
    } else if (required) {
        // Written before the key existed: a model named as a preset was that preset (Qwen 2.5 has the
        // bias); another model had none.
        model.qkv_bias = false;
        for (const ModelDescription& known : modelPresets())
            model.qkv_bias = model.qkv_bias || (known.name == model.name && known.qkv_bias);
    }
    if (const std::optional<JsonView> moe = object.find("moe")) {
        if (moe->raw().is_null())
            model.moe.reset();
        else
            model.moe = readMoe(*moe, model.moe);
    }
    try {
        model.validate();
    } catch (const Error& error) {
        object.fail(std::string("a valid model shape (") + error.what() + ")");
    }
    return model;
}

} // namespace stratex::model
