// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/export_set.h"

#include "core/export/paddle_config.h"

namespace stratex::exporting {

const std::vector<ExportFormat>& exportTargets()
{
    static const std::vector<ExportFormat> targets = [] {
        std::vector<ExportFormat> out;
        for (ExportFormat format : exportFormats()) {
            if (format != ExportFormat::PaddleConfig)
                out.push_back(format);
        }
        return out;
    }();
    return targets;
}

std::string exportTargetTitle(ExportFormat target)
{
    if (exportIsSet(target))
        return "PaddleNLP launch script and config";
    return std::string(exportFormatTitle(target));
}

std::vector<ExportSetFile> exportSet(ExportFormat target)
{
    if (target == ExportFormat::PaddleScript || target == ExportFormat::PaddleConfig) {
        std::string config = PaddleScriptOptions {}.configPath;
        if (config.starts_with("./"))
            config.erase(0, 2);
        return { { ExportFormat::PaddleScript, defaultExportFileName(ExportFormat::PaddleScript, {}) },
            { ExportFormat::PaddleConfig, config } };
    }
    return { { target, {} } };
}

bool exportIsSet(ExportFormat target)
{
    return exportSet(target).size() > 1;
}

} // namespace stratex::exporting
