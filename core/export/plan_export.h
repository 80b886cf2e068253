// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/search/plan.h"
#include "core/search/search_settings.h"

namespace stratex::exporting {

// The training-framework files a searched plan can be written as. One list, so the CLI's
// commands and the GUI offer the same formats under the same names.
enum class ExportFormat { Galvatron, PaddleConfig, PaddleScript, Megatron };

const std::vector<ExportFormat>& exportFormats();

// The CLI's --to names: "galvatron", "paddle", "paddle-script", "megatron".
std::string_view exportFormatName(ExportFormat format);
std::optional<ExportFormat> parseExportFormat(std::string_view name);
// What the file is, for menus: "Galvatron strategy JSON", "PaddleNLP fine-grained config", ...
std::string_view exportFormatTitle(ExportFormat format);

struct ExportedFile {
    std::string text;
    bool executable = false; // a script to run
};

ExportedFile exportPlan(ExportFormat format, const search::Plan& plan, const search::SearchSettings& settings);

// The name the framework expects the file under (Galvatron's encodes the cluster and model).
std::string defaultExportFileName(ExportFormat format, const search::SearchSettings& settings);

} // namespace stratex::exporting
