// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "core/common/error.h"

namespace stratex::hardware {

// The preset named `name`, ignoring case; otherwise an error that lists the known names.
template <typename Preset>
Preset findPreset(const std::vector<Preset>& presets, const std::string& name, const char* kind)
{
    std::string wanted = name;
    std::ranges::transform(wanted, wanted.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    std::string known;
    for (const Preset& preset : presets) {
        if (preset.name == wanted)
            return preset;
        known += (known.empty() ? "" : ", ") + preset.name;
    }
    throw Error("unknown " + std::string(kind) + " preset '" + name + "' (known: " + known + ")");
}

} // namespace stratex::hardware
