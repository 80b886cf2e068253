// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/model_json.h"

#include <cmath>
#include <cstdint>

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
    // The facts added later are written where they say something, so a file of a model without
    // them reads as before.
    if (model.position == PositionEmbedding::Rope) {
        // An integral base as an integer, as the HF configs give it (500000, not 500000.0).
        const double base = model.rotary_base;
        if (base == std::floor(base) && base < 9e15)
            json["rotary_base"] = static_cast<std::int64_t>(base);
        else
            json["rotary_base"] = base;
    }
    if (model.rope_scaling) {
        const RopeScaling& r = *model.rope_scaling;
        json["rope_scaling"] = { { "factor", r.factor }, { "low_freq_factor", r.low_freq_factor },
            { "high_freq_factor", r.high_freq_factor }, { "original_max_positions", r.original_max_positions } };
    }
    if (model.rope_yarn)
        json["rope_yarn"] = true;
    if (model.activation != MlpActivation::Gelu)
        json["activation"] = mlpActivationName(model.activation);
    if (model.qk_norm)
        json["qk_norm"] = true;
    if (model.hidden_dropout)
        json["hidden_dropout"] = *model.hidden_dropout;
    if (model.attention_dropout)
        json["attention_dropout"] = *model.attention_dropout;
    if (model.mla) {
        const MlaDescription& m = *model.mla;
        json["mla"] = { { "q_lora_rank", m.q_lora_rank }, { "kv_lora_rank", m.kv_lora_rank },
            { "qk_nope_head_dim", m.qk_nope_head_dim }, { "qk_rope_head_dim", m.qk_rope_head_dim },
            { "v_head_dim", m.v_head_dim } };
    }
    if (model.vocab_padding_multiple != 128)
        json["vocab_padding_multiple"] = model.vocab_padding_multiple;
    if (model.head_dim != 0)
        json["head_dim"] = model.head_dim;
    if (model.rotary_percent != 1.0)
        json["rotary_percent"] = model.rotary_percent;
    if (model.mtp_num_layers != 0)
        json["mtp_num_layers"] = model.mtp_num_layers;
    if (model.moe) {
        const MoeDescription& moe = *model.moe;
        nlohmann::ordered_json m = { { "num_experts", moe.num_experts }, { "top_k", moe.top_k },
            { "expert_ffn_hidden_size", moe.expert_ffn_hidden_size }, { "shared_experts", moe.shared_experts },
            { "shared_expert_ffn_hidden_size", moe.shared_expert_ffn_hidden_size },
            { "first_dense_layers", moe.first_dense_layers } };
        // The routing facts where they differ from the plain softmax top-k router (files of such
        // models read as before).
        const MoeDescription plain;
        if (moe.score_function != plain.score_function)
            m["score_function"] = routerScoreName(moe.score_function);
        if (moe.normalize_top_k != plain.normalize_top_k)
            m["normalize_top_k"] = moe.normalize_top_k;
        if (moe.expert_bias)
            m["expert_bias"] = true;
        if (moe.num_groups > 0) {
            m["num_groups"] = moe.num_groups;
            m["group_top_k"] = moe.group_top_k;
        }
        if (moe.scaling_factor != plain.scaling_factor)
            m["scaling_factor"] = moe.scaling_factor;
        if (moe.capacity_factor)
            m["capacity_factor"] = *moe.capacity_factor;
        if (moe.shared_expert_gate)
            m["shared_expert_gate"] = true;
        if (moe.linear_bias)
            m["linear_bias"] = true;
        json["moe"] = std::move(m);
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

// A MoE description with only `moe`'s routing facts (the shape left at zero, to be read).
MoeDescription routingOnly(const MoeDescription& moe)
{
    MoeDescription routing = moe;
    routing.num_experts = routing.top_k = routing.expert_ffn_hidden_size = 0;
    routing.shared_experts = routing.shared_expert_ffn_hidden_size = routing.first_dense_layers = 0;
    return routing;
}

MoeDescription readMoe(const JsonView& object, const std::optional<MoeDescription>& base, bool required)
{
    object.requireObject();
    MoeDescription moe = base.value_or(MoeDescription {});
    readInt(object, "num_experts", moe.num_experts, required, limits::kMaxExperts);
    readInt(object, "top_k", moe.top_k, required, limits::kMaxExperts);
    readInt(object, "expert_ffn_hidden_size", moe.expert_ffn_hidden_size, required, limits::kMaxFfnHiddenSize);
    readCount(object, "shared_experts", moe.shared_experts);
    readCount(object, "shared_expert_ffn_hidden_size", moe.shared_expert_ffn_hidden_size);
    readCount(object, "first_dense_layers", moe.first_dense_layers);
    readEnum(object, "score_function", moe.score_function, parseRouterScore, "\"softmax\" or \"sigmoid\"");
    if (const std::optional<JsonView> v = object.find("normalize_top_k"))
        moe.normalize_top_k = v->boolean();
    if (const std::optional<JsonView> v = object.find("expert_bias"))
        moe.expert_bias = v->boolean();
    readCount(object, "num_groups", moe.num_groups);
    readCount(object, "group_top_k", moe.group_top_k);
    if (const std::optional<JsonView> v = object.find("scaling_factor"))
        moe.scaling_factor = v->positiveNumber();
    if (const std::optional<JsonView> v = object.find("capacity_factor")) {
        if (v->raw().is_null())
            moe.capacity_factor.reset();
        else
            moe.capacity_factor = v->positiveNumber();
    }
    if (const std::optional<JsonView> v = object.find("shared_expert_gate"))
        moe.shared_expert_gate = v->boolean();
    if (const std::optional<JsonView> v = object.find("linear_bias"))
        moe.linear_bias = v->boolean();
    return moe;
}

RopeScaling readRopeScaling(const JsonView& object, const std::optional<RopeScaling>& base)
{
    object.requireObject();
    RopeScaling r = base.value_or(RopeScaling {});
    if (const std::optional<JsonView> v = object.find("factor"))
        r.factor = v->positiveNumber();
    if (const std::optional<JsonView> v = object.find("low_freq_factor"))
        r.low_freq_factor = v->positiveNumber();
    if (const std::optional<JsonView> v = object.find("high_freq_factor"))
        r.high_freq_factor = v->positiveNumber();
    readInt(object, "original_max_positions", r.original_max_positions, false, limits::kMaxSeqLength);
    return r;
}

MlaDescription readMla(const JsonView& object, const std::optional<MlaDescription>& base)
{
    object.requireObject();
    MlaDescription m = base.value_or(MlaDescription {});
    const bool required = !base;
    readCount(object, "q_lora_rank", m.q_lora_rank);
    readInt(object, "kv_lora_rank", m.kv_lora_rank, required, limits::kMaxHiddenSize);
    readInt(object, "qk_nope_head_dim", m.qk_nope_head_dim, required, limits::kMaxHiddenSize);
    readInt(object, "qk_rope_head_dim", m.qk_rope_head_dim, required, limits::kMaxHiddenSize);
    readInt(object, "v_head_dim", m.v_head_dim, required, limits::kMaxHiddenSize);
    return m;
}

// The preset a file names without "preset" (a strategy file's model, written by toJson): where it
// leaves out a key added after it was written, the preset's value is the model's.
const ModelDescription* presetNamed(const std::string& name)
{
    for (const ModelDescription& known : modelPresets()) {
        if (known.name == name)
            return &known;
    }
    return nullptr;
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
    // Without "preset", a key the file leaves out is the preset's of the model's name (written
    // before the key existed: Qwen 2.5 has the Q/K/V bias, Llama 3 the RoPE base 500000, ...),
    // else the description's default.
    const ModelDescription* named = required ? presetNamed(model.name) : nullptr;
    if (const std::optional<JsonView> bias = object.find("qkv_bias"))
        model.qkv_bias = bias->boolean();
    else if (required)
        model.qkv_bias = named && named->qkv_bias;
    if (const std::optional<JsonView> yarn = object.find("rope_yarn"))
        model.rope_yarn = yarn->boolean();
    if (const std::optional<JsonView> base = object.find("rotary_base"))
        model.rotary_base = base->positiveNumber();
    else if (named)
        model.rotary_base = named->rotary_base;
    if (const std::optional<JsonView> scaling = object.find("rope_scaling")) {
        if (scaling->raw().is_null())
            model.rope_scaling.reset();
        else
            model.rope_scaling = readRopeScaling(*scaling, model.rope_scaling);
    } else if (named) {
        model.rope_scaling = named->rope_scaling;
    }
    if (object.has("activation"))
        readEnum(object, "activation", model.activation, parseMlpActivation, "\"gelu\" or \"relu\"");
    else if (named)
        model.activation = named->activation;
    if (const std::optional<JsonView> norm = object.find("qk_norm"))
        model.qk_norm = norm->boolean();
    else if (named)
        model.qk_norm = named->qk_norm;
    if (const std::optional<JsonView> dropout = object.find("hidden_dropout")) {
        model.hidden_dropout = dropout->number();
        if (!(*model.hidden_dropout >= 0 && *model.hidden_dropout < 1))
            dropout->fail("a dropout probability in [0, 1)");
    } else if (named) {
        model.hidden_dropout = named->hidden_dropout;
    }
    if (const std::optional<JsonView> dropout = object.find("attention_dropout")) {
        model.attention_dropout = dropout->number();
        if (!(*model.attention_dropout >= 0 && *model.attention_dropout < 1))
            dropout->fail("a dropout probability in [0, 1)");
    } else if (named) {
        model.attention_dropout = named->attention_dropout;
    }
    if (const std::optional<JsonView> mla = object.find("mla")) {
        if (mla->raw().is_null())
            model.mla.reset();
        else
            model.mla = readMla(*mla, model.mla);
    } else if (named) {
        model.mla = named->mla;
    }
    readInt(object, "vocab_padding_multiple", model.vocab_padding_multiple, false, limits::kMaxVocabulary);
    if (const std::optional<JsonView> headDim = object.find("head_dim")) {
        const std::int64_t value = headDim->integer();
        if (value < 0 || value > limits::kMaxHiddenSize)
            headDim->fail("an integer from 0 to " + std::to_string(limits::kMaxHiddenSize));
        model.head_dim = int(value);
    } else if (named) {
        model.head_dim = named->head_dim;
    }
    if (const std::optional<JsonView> percent = object.find("rotary_percent")) {
        model.rotary_percent = percent->positiveNumber();
        if (model.rotary_percent > 1)
            percent->fail("a number in (0, 1]");
    } else if (named) {
        model.rotary_percent = named->rotary_percent;
    }
    if (const std::optional<JsonView> mtp = object.find("mtp_num_layers")) {
        const std::int64_t value = mtp->integer();
        if (value < 0 || value > limits::kMaxLayers)
            mtp->fail("an integer from 0 to " + std::to_string(limits::kMaxLayers));
        model.mtp_num_layers = int(value);
    } else if (named) {
        model.mtp_num_layers = named->mtp_num_layers;
    }
    if (const std::optional<JsonView> moe = object.find("moe")) {
        if (moe->raw().is_null()) {
            model.moe.reset();
        } else {
            // A file of a named MoE preset written before the routing facts existed keeps the
            // preset's routing (deepseek-v3-style: sigmoid scores, groups, expert bias).
            std::optional<MoeDescription> base = model.moe;
            if (!base && named && named->moe)
                base = routingOnly(*named->moe);
            model.moe = readMoe(*moe, base, !model.moe);
        }
    }
    try {
        model.validate();
    } catch (const Error& error) {
        object.fail(std::string("a valid model shape (") + error.what() + ")");
    }
    return model;
}

} // namespace stratex::model
