// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/model/model_description.h"

namespace stratex::model {

// Published shapes of common models with the sequence length they are usually trained at. Each
// preset's source is written beside it in model_presets.cpp.
const std::vector<ModelDescription>& modelPresets();
// The preset named `name` (case-insensitive); throws stratex::Error listing the presets otherwise.
ModelDescription modelPreset(const std::string& name);
// Whether `name` names a preset (any case), as modelPreset reads it.
bool isModelPreset(const std::string& name);

} // namespace stratex::model
