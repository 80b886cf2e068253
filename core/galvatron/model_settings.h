// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/model_description.h"
#include "core/model/model_presets.h"
#include "core/galvatron/search_settings.h"
#include "core/settings/setting_table.h"

namespace stratex::galvatron {

// The model beyond the shape the search costs: a preset and the architecture a launch script needs
// (Megatron's --swiglu, --num-query-groups, --normalization, ...). Its flags are profile synth's:
// --model PRESET, --ffn-hidden-size, --num-kv-heads, --mlp, --norm, --position-embedding,
// --tied-embeddings (model::kArchitectureFlags); the shape flags (--hidden-size, --num-layers,
// --num-heads, --vocab-size, --seq-length, --model-name) are the search table's.
struct ModelSettings {
    std::string preset = "llama2-7b";
    model::ModelDescription model = model::modelPreset("llama2-7b");
    // A model read from a Hugging Face config.json (--hf-config): the base a given "model" stands
    // for instead of the preset `preset` names (then the model's name).
    std::optional<model::ModelDescription> from_config;
};

const settings::SettingTable<ModelSettings>& modelSettingTable();

// A model description put together from what is known, and what is not.
struct ResolvedModel {
    std::optional<model::ModelDescription> model; // complete and valid, or nothing
    // Without a model: the fields nobody gave, as "ffn_hidden_size (--ffn-hidden-size)".
    std::vector<std::string> missing;
    // Given flags that contradict the base model: "--hidden-size 5120 contradicts <label>'s
    // hidden_size 4096; using 5120".
    std::vector<std::string> warnings;
    std::string source; // "the preset llama2-70b", the base's label or "the command line"
};

// The one rule for a model description:
// - the base is --model's preset when given, else `base` (a strategy file's or a synthesized profile
//   set's model, called `baseLabel` in messages);
// - every given flag overrides its field: the architecture flags from `flags` (givenModel), the shape
//   flags from `shape` (givenShape: num-layers, hidden-size, num-heads, vocab-size, seq-length,
//   model-name), each contradiction of a base noted in `warnings`;
// - `known` are shape flags whose values in `shape` are right without being given (e.g. the searched
//   sequence length): they replace a preset's, and without a base they count as given;
// - without a base the description needs every field given or known;
//   RMSNorm + RoPE follow a gated MLP and LayerNorm + learned positions a plain one unless given.
ResolvedModel resolveModel(const std::optional<model::ModelDescription>& base, std::string_view baseLabel,
    const SearchSettings& shape, const settings::SettingNames& givenShape, const ModelSettings& flags,
    const settings::SettingNames& givenModel, const settings::SettingNames& known = {});

// "<what> needs the model's architecture; missing from <where>: <missing>. Give --model PRESET
// (llama2-7b, ...) or these flags".
std::string missingModelMessage(std::string_view what, std::string_view where, const std::vector<std::string>& missing);

// A --model preset on a search: the shape settings the command line does not give (num-layers,
// hidden-size, num-heads, vocab-size) become the preset's. The sequence length stays the profiles'
// (or the given one): a preset names the length it is usually trained at, not the profiled one.
void adoptPresetShape(SearchSettings& settings, const settings::SettingNames& given, const ModelSettings& flags,
    const settings::SettingNames& givenModel);

// The search's shape settings of a model description (name, sequence length, hidden size, layers,
// heads, vocabulary).
void setModelShape(SearchSettings& settings, const model::ModelDescription& model);

} // namespace stratex::galvatron
