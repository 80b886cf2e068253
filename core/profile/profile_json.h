// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <filesystem>
#include <string_view>

#include "core/common/json_reader.h"

namespace stratex::profile {

// JsonDocument::load/parse that also turns nlohmann's non-parse errors (a number too large for a
// double such as 1e999 raises out_of_range) into an InputError naming the file.
JsonDocument loadProfileJson(const std::filesystem::path& path);
JsonDocument parseProfileJson(std::string_view text, const std::string& name);

} // namespace stratex::profile
