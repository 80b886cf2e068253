// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/galvatron/model_settings.h"

#include <array>
#include <iterator>

#include "core/common/error.h"
#include "core/model/model_setting_rows.h"
#include "core/galvatron/search_setting_table.h"

namespace stratex::galvatron {

namespace {

using settings::SettingNames;
using settings::SettingValue;

// The search table's shape flags and the model flag each sets.
struct ShapeFlag {
    std::string_view search;
    std::string_view model;
};
constexpr std::array<ShapeFlag, 6> kShapeFlags { { { "num-layers", "num-layers" }, { "hidden-size", "hidden-size" },
    { "num-heads", "num-heads" }, { "vocab-size", "vocab-size" }, { "seq-length", "seq-length" },
    { "model-name", "name" } } };

// What a description without a base needs (norm and positions follow the MLP when not given).
constexpr std::array<std::string_view, 9> kRequiredFlags { "num-layers", "hidden-size", "ffn-hidden-size", "num-heads",
    "num-kv-heads", "vocab-size", "seq-length", "mlp", "tied-embeddings" };

std::string shown(std::string_view modelFlag, const SettingValue& value)
{
    return settings::formatSettingValue(model::modelSettingSpec(modelFlag), value);
}

std::string searchFlagOf(std::string_view modelFlag)
{
    for (const ShapeFlag& flag : kShapeFlags) {
        if (flag.model == modelFlag)
            return std::string(flag.search);
    }
    return std::string(modelFlag);
}

} // namespace

const settings::SettingTable<ModelSettings>& modelSettingTable()
{
    static const settings::SettingTable<ModelSettings> table(model::modelSettingRows(&ModelSettings::preset,
        &ModelSettings::model, { std::begin(model::kArchitectureFlags), std::end(model::kArchitectureFlags) },
        "the strategy file's or the synthesized profiles' model, else the preset's"));
    return table;
}

ResolvedModel resolveModel(const std::optional<model::ModelDescription>& base, std::string_view baseLabel,
    const SearchSettings& shape, const SettingNames& givenShape, const ModelSettings& flags,
    const SettingNames& givenModel, const SettingNames& known)
{
    ResolvedModel resolved;
    const bool preset = givenModel.contains("model");
    std::optional<model::ModelDescription> start;
    std::string label;
    if (preset) {
        start = flags.from_config ? *flags.from_config : model::modelPreset(flags.preset);
        label = (flags.from_config ? "the config.json model " : "the preset ") + flags.preset;
        if (base) {
            std::string differing;
            for (std::string_view flag : model::modelFlags()) {
                if (flag == "model" || flag == "name" || flag == "seq-length")
                    continue;
                if (model::modelFieldValue(*base, flag) != model::modelFieldValue(*start, flag))
                    differing += (differing.empty() ? "" : ", ") + model::modelFieldName(flag);
            }
            if (!differing.empty())
                resolved.warnings.push_back("--model " + flags.preset + " contradicts " + std::string(baseLabel) + " ("
                    + differing + " differ); using the preset");
        }
    } else if (base) {
        start = base;
        label = std::string(baseLabel);
    }
    model::ModelDescription description = start.value_or(flags.model);
    // A preset names the shape it is usually trained at; what the run knows (the searched sequence
    // length) is this run's.
    if (preset) {
        for (const ShapeFlag& flag : kShapeFlags) {
            if (known.contains(flag.search) && !givenShape.contains(flag.search))
                model::setModelField(description, flag.model, searchSettingTable().at(flag.search).get(shape));
        }
    }
    // A base's field replaced by a given flag: said when it contradicts a strategy file's or a
    // profile set's model, not when it overrides a preset the user chose.
    const auto override = [&](std::string_view modelFlag, const SettingValue& value, std::string_view cliFlag) {
        const SettingValue old = model::modelFieldValue(description, modelFlag);
        if (start && !preset && old != value)
            resolved.warnings.push_back("--" + std::string(cliFlag) + " " + shown(modelFlag, value) + " contradicts "
                + label + "'s " + model::modelFieldName(modelFlag) + " " + shown(modelFlag, old) + "; using "
                + shown(modelFlag, value));
        model::setModelField(description, modelFlag, value);
    };
    for (const auto& row : modelSettingTable().rows()) {
        if (row.spec.flag != "model" && givenModel.contains(row.spec.flag))
            override(row.spec.flag, model::modelFieldValue(flags.model, row.spec.flag), row.spec.flag);
    }
    for (const ShapeFlag& flag : kShapeFlags) {
        if (givenShape.contains(flag.search))
            override(flag.model, searchSettingTable().at(flag.search).get(shape), flag.search);
    }

    if (!start) {
        for (std::string_view flag : kRequiredFlags) {
            const std::string cliFlag = searchFlagOf(flag);
            const bool shapeFlag = cliFlag != flag || searchSettingTable().find(flag) != nullptr;
            if (givenModel.contains(flag) || givenShape.contains(cliFlag))
                continue;
            if (shapeFlag && known.contains(cliFlag)) {
                model::setModelField(description, flag, searchSettingTable().at(cliFlag).get(shape));
                continue;
            }
            resolved.missing.push_back(model::modelFieldName(flag) + " (--" + cliFlag + ")");
        }
        if (!givenShape.contains("model-name"))
            description.name = shape.model.name;
        const bool gated = description.mlp == model::MlpKind::Gated;
        if (!givenModel.contains("norm"))
            description.norm = gated ? model::NormKind::RmsNorm : model::NormKind::LayerNorm;
        if (!givenModel.contains("position-embedding"))
            description.position = gated ? model::PositionEmbedding::Rope : model::PositionEmbedding::Learned;
        if (!resolved.missing.empty())
            return resolved;
        label = "the command line";
    }
    try {
        description.validate();
    } catch (const Error& error) {
        throw Error("the model from " + label + " is not a valid transformer: " + error.what());
    }
    resolved.model = description;
    resolved.source = label;
    return resolved;
}

std::string missingModelMessage(std::string_view what, std::string_view where, const std::vector<std::string>& missing)
{
    std::string fields;
    for (const std::string& field : missing)
        fields += (fields.empty() ? "" : ", ") + field;
    std::string presets;
    for (const model::ModelDescription& preset : model::modelPresets())
        presets += (presets.empty() ? "" : ", ") + preset.name;
    return std::string(what) + " needs the model's architecture; missing from " + std::string(where) + ": " + fields
        + ". Give --model PRESET (" + presets + ") or these flags";
}

void adoptPresetShape(SearchSettings& settings, const settings::SettingNames& given, const ModelSettings& flags,
    const settings::SettingNames& givenModel)
{
    if (!givenModel.contains("model"))
        return;
    for (std::string_view flag : { "num-layers", "hidden-size", "num-heads", "vocab-size" }) {
        if (!given.contains(flag))
            searchSettingTable().at(flag).set(settings, model::modelFieldValue(flags.model, flag));
    }
}

void setModelShape(SearchSettings& settings, const model::ModelDescription& model)
{
    settings.model.name = model.name;
    settings.model.seq_length = model.seq_length;
    settings.model.hidden_size = model.hidden_size;
    settings.model.num_layers = model.num_layers;
    settings.model.num_heads = model.num_heads;
    settings.model.vocab_size = model.vocab_size;
}

} // namespace stratex::galvatron
