// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/export/plan_export.h"

namespace stratex::exporting {

// What the Search page offers in File > Export, for the selected plan of either engine: every
// format of exportFormats() (the CLI's --to), except that PaddleNLP's config comes with its launch
// script as one target (PaddleScript), written as one set.
const std::vector<ExportFormat>& exportTargets();

// "PaddleNLP launch script and config" for the pair, exportFormatTitle otherwise.
std::string exportTargetTitle(ExportFormat target);

// The files of a target as one set, each with the path the launch expects it at, relative to the
// folder the user chooses: the PaddleNLP script reads its config from PaddleScriptOptions::
// configPath (./configs/fine_grained_config.json, relative to where it runs), so the pair is the
// script (first) and configs/fine_grained_config.json beside it. Every other target is one file
// (an empty path: the user names it).
struct ExportSetFile {
    ExportFormat format;
    std::string path;
};
std::vector<ExportSetFile> exportSet(ExportFormat target);

// Whether the target writes several files (into a folder) rather than one.
bool exportIsSet(ExportFormat target);

} // namespace stratex::exporting
