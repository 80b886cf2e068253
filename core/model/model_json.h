// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include "core/common/json_reader.h"
#include "core/model/model_description.h"

namespace stratex::model {

// The model as profile sets, strategy files and reference runs carry it: every field by name,
// "moe" only for MoE models.
nlohmann::ordered_json toJson(const ModelDescription& model);

// Reads a model object. With "preset" the preset's fields are the defaults and any other key
// overrides them; without it every shape key is required. "norm" and "position_embedding" may be
// left out (files written before they existed): a gated MLP then means RMSNorm + RoPE (Llama,
// Qwen), a plain one LayerNorm + learned positions (GPT-3). "qkv_bias" may be left out too (files
// written before it existed): with "preset" the preset's, else the bias of the preset whose name
// the model has (Qwen 2.5: true; exports before the key guessed it from that name), else false;
// so are the later "rotary_base", "rope_scaling", "qk_norm" and "mla" (a file of "llama3-70b"
// written before them is Llama 3's RoPE base 500000). "vocab_padding_multiple" defaults to 128.
// Validates the result; an invalid shape is an InputError naming the object.
ModelDescription readModel(const JsonView& object);

} // namespace stratex::model
