// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace stratex::cli {

// stdout, written as bytes (no locale conversion); stdout carries results only.
void printOut(std::string_view text);
void printJson(const nlohmann::ordered_json& json);
// stderr: errors and warnings.
void printErr(std::string_view text);

} // namespace stratex::cli
