// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/export/export_note.h"
#include "core/galvatron/cost_model.h"
#include "core/model/model_description.h"
#include "core/hardware/cluster_description.h"
#include "core/galvatron/model_settings.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_inputs.h"
#include "core/galvatron/search_settings.h"

namespace stratex::exporting {

// The training-framework files a searched plan can be written as. One list, so the CLI's
// commands and the GUI offer the same formats under the same names.
enum class ExportFormat { Galvatron, PaddleConfig, PaddleScript, Megatron, PytorchSchedule, Torchtitan, MegatronBridge };

const std::vector<ExportFormat>& exportFormats();

// The CLI's --to names: "galvatron", "paddle", "paddle-script", "megatron", "pytorch-schedule",
// "torchtitan", "megatron-bridge".
std::string_view exportFormatName(ExportFormat format);
std::optional<ExportFormat> parseExportFormat(std::string_view name);
// What the file is, for menus: "Galvatron strategy JSON", "PaddleNLP fine-grained config", ...
std::string_view exportFormatTitle(ExportFormat format);

struct ExportedFile {
    std::string text;
    bool executable = false; // a script to run
    // Every approximation and refusal of the export (export_note.h), also in the file's comments
    // where it has any: what runs differently from the plan, the exported version does not fit the
    // memory budget, Megatron will reject a value, ...; a plan file's defaults come first.
    std::vector<ExportNote> notes;
};

// What an export knows beside the plan and the settings.
struct ExportContext {
    // The model's architecture: required by the launch scripts (exportNeedsModel), written into
    // Stratex strategy files. Its shape is the one to train (the settings' shape is the searched one).
    std::optional<model::ModelDescription> model;
    // The cluster with its GPU, written into strategy files when known.
    std::optional<hardware::ClusterDescription> cluster;
    // Costs the plan and what a framework can express of it (the predicted numbers in the scripts'
    // comments, the re-costed memory of an inexact Megatron export); none: not costed.
    std::shared_ptr<const galvatron::CostModel> cost_model;
};

// What a search of profiles knows of the model and the cluster its exports carry, one rule for the
// CLI's search and the Search page: a synthesized set's model (given shape and architecture flags
// override it; the searched sequence length is this run's) and its cluster on the searched nodes.
// Measured profiles give no cluster, and a model only when the flags describe one completely.
struct SearchedModel {
    galvatron::ResolvedModel model;
    std::optional<hardware::ClusterDescription> cluster;
};
SearchedModel searchedModel(const galvatron::SearchInputs& inputs, const galvatron::SearchSettings& settings,
    const settings::SettingNames& given, const galvatron::ModelSettings& flags = {},
    const settings::SettingNames& givenModel = {});

// Megatron-LM, the PaddleNLP launch script and torchtitan write the model: without
// ExportContext::model exportPlan throws.
bool exportNeedsModel(ExportFormat format);

// Throws stratex::Error when the format needs a model the context does not have.
ExportedFile exportPlan(ExportFormat format, const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const ExportContext& context = {});

// The name the framework expects the file under (Galvatron's encodes the cluster and model).
std::string defaultExportFileName(ExportFormat format, const galvatron::SearchSettings& settings);

} // namespace stratex::exporting
