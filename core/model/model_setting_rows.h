// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The command-line flags of a model description, defined once. `profile synth` takes all of them
// (its table is these rows plus the GPU and the cluster); `search` and `export` take the preset
// and the architecture rows (model::kArchitectureFlags), their shape flags being the search
// table's rows, built from the same specs. A preset row sets the whole description; the rows after
// it override single fields, so the preset row comes first.

#include <string>
#include <string_view>
#include <vector>

#include "core/model/model_description.h"
#include "core/model/model_presets.h"
#include "core/settings/setting_table.h"

namespace stratex::model {

// "model", "name", "num-layers", "hidden-size", "ffn-hidden-size", "num-heads", "num-kv-heads",
// "vocab-size", "seq-length", "mlp", "activation", "norm", "position-embedding", "tied-embeddings", "qkv-bias",
// in that (help) order.
const std::vector<std::string_view>& modelFlags();
// The flags beyond the shape the search reads: what only a launch script needs.
inline constexpr std::string_view kArchitectureFlags[] = { "model", "ffn-hidden-size", "num-kv-heads", "mlp",
    "activation", "norm", "position-embedding", "tied-embeddings", "qkv-bias" };

// The spec of one of modelFlags() (group "Model"): its label, kind, range, choices and help.
// Throws std::logic_error for another flag.
settings::SettingSpec modelSettingSpec(std::string_view flag);

// The description's field a flag sets, for messages: "num-kv-heads" -> "num_kv_heads" (the key of
// the model's JSON form), "model" -> "preset".
std::string modelFieldName(std::string_view flag);

// Reads / writes one flag's field of a description ("model" is not a field: the caller handles it).
settings::SettingValue modelFieldValue(const ModelDescription& model, std::string_view flag);
// Setting "num-heads" of a multi-head model keeps it multi-head (num_kv_heads follows).
void setModelField(ModelDescription& model, std::string_view flag, const settings::SettingValue& value);

// Rows for `flags` (a subset of modelFlags(), in modelFlags() order) over a struct holding the
// preset name and the description; every field row's help ends with `defaultText` ("from the
// preset") instead of the struct's default when it is not empty.
template <typename S>
std::vector<settings::Setting<S>> modelSettingRows(std::string S::*preset, ModelDescription S::*model,
    const std::vector<std::string_view>& flags, std::string_view defaultText = {})
{
    std::vector<settings::Setting<S>> rows;
    for (std::string_view flag : modelFlags()) {
        bool wanted = false;
        for (std::string_view f : flags)
            wanted = wanted || f == flag;
        if (!wanted)
            continue;
        settings::SettingSpec spec = modelSettingSpec(flag);
        if (flag != "model")
            spec.defaultText = defaultText;
        if (flag == "model") {
            rows.push_back({ spec, [preset](const S& s) { return settings::SettingValue(s.*preset); },
                [preset, model](S& s, const settings::SettingValue& value) {
                    s.*preset = std::get<std::string>(value);
                    s.*model = modelPreset(s.*preset);
                } });
        } else {
            rows.push_back({ spec, [model, flag](const S& s) { return modelFieldValue(s.*model, flag); },
                [model, flag](S& s, const settings::SettingValue& value) { setModelField(s.*model, flag, value); } });
        }
    }
    return rows;
}

} // namespace stratex::model
