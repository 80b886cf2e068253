// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A model description from a Hugging Face config.json (issue 24 "any model by its config.json",
// issue 25's model facts). The families and the keys each reads are those of transformers'
// configuration_<family>.py; tests/data/hf-configs holds a real file of each family with its
// source and licence (README.md there).

#include <filesystem>
#include <string>
#include <vector>

#include "core/common/json_reader.h"
#include "core/model/model_description.h"

namespace stratex::model {

struct HfModel {
    ModelDescription model;
    std::string family; // the model_type read: "llama", "qwen3_moe", "deepseek_v3", ...
    // What the description leaves out or approximates, one line each ("sliding-window attention
    // (4096 tokens) is costed as full attention"): the front ends show them as warnings.
    std::vector<std::string> notes;
};

// The families read, by model_type: llama (Llama 2 / 3 / 3.1), llama4, mistral, mixtral, qwen2
// (Qwen 2 / 2.5), qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, gemma, nemotron,
// gpt_neox, gpt2.
const std::vector<std::string>& hfConfigFamilies();

// Reads a config.json document: the family from "model_type", else from "architectures"[0] (both
// given and naming different families is an error). The model's name is the last part of
// "_name_or_path" when given, else `fallbackName`. The sequence length is the pre-training one:
// rope_scaling's original_max_position_embeddings when the file has a Llama 3.1 or YaRN scaling,
// else max_position_embeddings (n_positions for GPT-2). Throws InputError naming the file, the key,
// what was expected and what was found: a missing or mistyped key, an unsupported family, and a
// feature the description cannot hold (interleaved MoE layers, biases on every linear layer, an
// unknown RoPE scaling or router); the result is validated.
HfModel readHfConfig(const JsonView& root, const std::string& fallbackName);

// Loads `path` (bounded like every input, core/common/bounded_read.h) and reads it; the fallback
// name is the file's stem, or its folder's name for a file called config.json.
HfModel readHfConfigFile(const std::filesystem::path& path);

} // namespace stratex::model
