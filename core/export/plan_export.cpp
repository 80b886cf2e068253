// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/plan_export.h"

#include <utility>

#include "core/common/error.h"
#include "core/export/galvatron_config.h"
#include "core/export/megatron_args.h"
#include "core/export/megatron_bridge_recipe.h"
#include "core/export/paddle_config.h"
#include "core/export/pytorch_exports.h"
#include "core/export/torchtitan_module.h"
#include "core/profile/synth/synthesis_record.h"

namespace stratex::exporting {

const std::vector<ExportFormat>& exportFormats()
{
    static const std::vector<ExportFormat> formats {
        ExportFormat::Galvatron,
        ExportFormat::PaddleConfig,
        ExportFormat::PaddleScript,
        ExportFormat::Megatron,
        ExportFormat::PytorchSchedule,
        ExportFormat::Torchtitan,
        ExportFormat::MegatronBridge,
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
    case ExportFormat::PytorchSchedule:
        return "pytorch-schedule";
    case ExportFormat::Torchtitan:
        return "torchtitan";
    case ExportFormat::MegatronBridge:
        return "megatron-bridge";
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
    case ExportFormat::PytorchSchedule:
        return "PyTorch pipeline schedule CSV";
    case ExportFormat::Torchtitan:
        return "torchtitan config module";
    case ExportFormat::MegatronBridge:
        return "Megatron-Bridge recipe";
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

SearchedModel searchedModel(const galvatron::SearchInputs& inputs, const galvatron::SearchSettings& settings,
    const settings::SettingNames& given, const galvatron::ModelSettings& flags, const settings::SettingNames& givenModel)
{
    SearchedModel searched;
    std::optional<model::ModelDescription> base;
    if (inputs.synthesis) {
        base = inputs.synthesis->model;
        searched.cluster = inputs.synthesis->cluster;
        searched.cluster->num_nodes = settings.num_nodes;
        searched.cluster->gpus_per_node = settings.num_gpus_per_node;
    }
    searched.model = galvatron::resolveModel(
        base, "the synthesized profiles' model", settings, given, flags, givenModel, { "seq-length" });
    return searched;
}

bool exportNeedsModel(ExportFormat format)
{
    return format == ExportFormat::PaddleScript || format == ExportFormat::Megatron
        || format == ExportFormat::Torchtitan || format == ExportFormat::MegatronBridge;
}

ExportedFile exportPlan(
    ExportFormat format, const galvatron::Plan& plan, const galvatron::SearchSettings& settings, const ExportContext& context)
{
    if (exportNeedsModel(format) && !context.model)
        throw Error(std::string(exportFormatTitle(format))
            + " need the model's architecture (MLP, attention heads, norm, position embedding, tied embedding): "
              "give a model");
    switch (format) {
    case ExportFormat::Galvatron:
        return { strategyFileText(plan, settings, context.model, context.cluster), false, {} };
    case ExportFormat::PaddleConfig:
        return { paddleFineGrainedConfigText(plan), false, {} };
    case ExportFormat::PaddleScript: {
        PaddleScript script = paddleScript(plan, settings, *context.model);
        return { std::move(script.text), true, std::move(script.notes) };
    }
    case ExportFormat::Megatron: {
        const MegatronArgs args = megatronArgs(plan, settings, *context.model, context.cost_model.get());
        return { megatronArgsScript(plan, settings, args), true, args.notes };
    }
    case ExportFormat::PytorchSchedule:
        return { pipelineScheduleCsv(plan), false, {} };
    case ExportFormat::Torchtitan: {
        TorchtitanConfig config = torchtitanModule(plan, settings, *context.model); // main (torchtitan_module.h)
        return { std::move(config.text), false, std::move(config.notes) };
    }
    case ExportFormat::MegatronBridge: {
        MegatronBridgeRecipe recipe
            = megatronBridgeSearchedRecipe(plan, settings, *context.model, context.cost_model.get());
        return { megatronBridgeRecipeText(recipe), false, std::move(recipe.notes) };
    }
    }
    return {};
}

std::string defaultExportFileName(ExportFormat format, const galvatron::SearchSettings& settings)
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
    case ExportFormat::PytorchSchedule:
        return "pipeline_schedule.csv";
    case ExportFormat::Torchtitan:
        return std::string(kTorchtitanModuleName) + ".py";
    case ExportFormat::MegatronBridge:
        return "megatron_bridge_recipe.py";
    }
    return {};
}

} // namespace stratex::exporting
