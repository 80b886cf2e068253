// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stratex::profile::synth {

enum class MlpKind {
    Gated, // SwiGLU (LLaMA, Qwen): three h x ffn matrices
    Plain // GeLU (GPT-3): two h x ffn matrices
};

std::string_view mlpKindName(MlpKind kind); // "gated", "plain"
std::optional<MlpKind> parseMlpKind(std::string_view name);

// A decoder-only transformer as the synthesizer needs it: enough to count parameters, FLOPs and
// activation bytes per layer. Grouped-query attention is kv_heads < heads.
struct ModelDescription {
    std::string name;
    int num_layers = 0;
    int hidden_size = 0;
    int ffn_hidden_size = 0;
    int num_heads = 0;
    int num_kv_heads = 0;
    int vocab_size = 0;
    int seq_length = 0;
    MlpKind mlp = MlpKind::Gated;
    bool tied_embeddings = false;

    // Throws stratex::Error with a one-line reason when the shape cannot be a transformer
    // (non-positive sizes, heads not dividing hidden, kv heads not dividing heads).
    void validate() const;
};

// Published shapes of common open models, with a default sequence length.
const std::vector<ModelDescription>& modelPresets();
// The preset named `name` (case-insensitive); throws stratex::Error listing the presets otherwise.
ModelDescription modelPreset(const std::string& name);

} // namespace stratex::profile::synth
