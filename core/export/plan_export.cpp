// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/plan_export.h"

#include "core/export/galvatron_config.h"
#include "core/export/megatron_args.h"
#include "core/export/paddle_config.h"

namespace stratex::exporting {

const std::vector<ExportFormat>& exportFormats()
{
    static const std::vector<ExportFormat> formats {
        ExportFormat::Galvatron,
        ExportFormat::PaddleConfig,
        ExportFormat::PaddleScript,
        ExportFormat::Megatron,
    };
    return formats;
}

std::string_view exportFormatName(ExportFormat format)
{
    switch (format) {
    case ExportFormat::Galvatron:
        return "galvatron";
    case ExportFormat::PaddleConfig:
        return "paddle";
    case ExportFormat::PaddleScript:
        return "paddle-script";
    case ExportFormat::Megatron:
        return "megatron";
    }
    return {};
}

std::string_view exportFormatTitle(ExportFormat format)
{
    switch (format) {
    case ExportFormat::Galvatron:
        return "Galvatron strategy JSON";
    case ExportFormat::PaddleConfig:
        return "PaddleNLP fine-grained config";
    case ExportFormat::PaddleScript:
        return "PaddleNLP launch script";
    case ExportFormat::Megatron:
        return "Megatron-LM launch arguments";
    }
    return {};
}

std::optional<ExportFormat> parseExportFormat(std::string_view name)
{
    for (ExportFormat format : exportFormats()) {
        if (exportFormatName(format) == name)
            return format;
    }
    return std::nullopt;
}

ExportedFile exportPlan(ExportFormat format, const search::Plan& plan, const search::SearchSettings& settings)
{
    switch (format) {
    case ExportFormat::Galvatron:
        return { galvatronConfigText(plan), false };
    case ExportFormat::PaddleConfig:
        return { paddleFineGrainedConfigText(plan), false };
    case ExportFormat::PaddleScript:
        return { paddleLaunchScript(plan, settings), true };
    case ExportFormat::Megatron:
        return { megatronArgsScript(plan, settings), true };
    }
    return {};
}

std::string defaultExportFileName(ExportFormat format, const search::SearchSettings& settings)
{
    switch (format) {
    case ExportFormat::Galvatron:
        return galvatronConfigFileName(settings, settings.model.name);
    case ExportFormat::PaddleConfig:
        return "fine_grained_config.json";
    case ExportFormat::PaddleScript:
        return "train_fine_grained.sh";
    case ExportFormat::Megatron:
        return "megatron_args.sh";
    }
    return {};
}

} // namespace stratex::exporting
