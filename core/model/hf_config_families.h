// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Each Hugging Face family's config.json read into a model description (core/model/hf_config.h):
// the keys of transformers' configuration_<family>.py and what its modeling_<family>.py builds.
// Internal to hf_config*.cpp.

#include <string>

#include "core/model/hf_config_keys.h"

namespace stratex::model::hf {

// Reads `family` (one of hfConfigFamilies()) from `r`'s keys into its model and notes.
void readFamily(const std::string& family, Reading& r);

} // namespace stratex::model::hf
