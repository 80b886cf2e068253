// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/profile/synth/model_description.h"

#include "core/common/error.h"
#include "core/profile/synth/preset_lookup.h"

namespace stratex::profile::synth {

std::string_view mlpKindName(MlpKind kind)
{
    return kind == MlpKind::Gated ? "gated" : "plain";
}

std::optional<MlpKind> parseMlpKind(std::string_view name)
{
    for (MlpKind kind : { MlpKind::Gated, MlpKind::Plain }) {
        if (mlpKindName(kind) == name)
            return kind;
    }
    return std::nullopt;
}

namespace {

void requirePositive(const char* what, int value)
{
    if (value <= 0)
        throw Error(std::string("model: ") + what + " must be a positive integer, found " + std::to_string(value));
}

} // namespace

void ModelDescription::validate() const
{
    requirePositive("num_layers", num_layers);
    requirePositive("hidden_size", hidden_size);
    requirePositive("ffn_hidden_size", ffn_hidden_size);
    requirePositive("num_heads", num_heads);
    requirePositive("num_kv_heads", num_kv_heads);
    requirePositive("vocab_size", vocab_size);
    requirePositive("seq_length", seq_length);
    if (hidden_size % num_heads != 0)
        throw Error("model: hidden_size " + std::to_string(hidden_size) + " is not divisible by num_heads "
            + std::to_string(num_heads));
    if (num_heads % num_kv_heads != 0)
        throw Error("model: num_heads " + std::to_string(num_heads) + " is not divisible by num_kv_heads "
            + std::to_string(num_kv_heads));
}

const std::vector<ModelDescription>& modelPresets()
{
    // Shapes from the models' published configs (config.json / papers).
    static const std::vector<ModelDescription> presets = {
        { "llama2-7b", 32, 4096, 11008, 32, 32, 32000, 4096, MlpKind::Gated, false },
        { "llama2-13b", 40, 5120, 13824, 40, 40, 32000, 4096, MlpKind::Gated, false },
        { "llama2-70b", 80, 8192, 28672, 64, 8, 32000, 4096, MlpKind::Gated, false },
        { "llama3-8b", 32, 4096, 14336, 32, 8, 128256, 8192, MlpKind::Gated, false },
        { "llama3-70b", 80, 8192, 28672, 64, 8, 128256, 8192, MlpKind::Gated, false },
        { "qwen2.5-7b", 28, 3584, 18944, 28, 4, 152064, 8192, MlpKind::Gated, false },
        { "qwen2.5-32b", 64, 5120, 27648, 40, 8, 152064, 8192, MlpKind::Gated, false },
        { "gpt3-13b", 40, 5120, 20480, 40, 40, 50257, 2048, MlpKind::Plain, true },
        { "gpt3-175b", 96, 12288, 49152, 96, 96, 50257, 2048, MlpKind::Plain, true },
    };
    return presets;
}

ModelDescription modelPreset(const std::string& name)
{
    return findPreset(modelPresets(), name, "model");
}

} // namespace stratex::profile::synth
