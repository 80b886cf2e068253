// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/galvatron/cost_model.h"
#include "core/export/export_note.h"
#include "core/export/megatron_flags.h"
#include "core/model/model_description.h"
#include "core/galvatron/evaluate.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_settings.h"

namespace stratex::exporting {

// Megatron-LM's pretrain_gpt.py arguments for a plan and a model (megatron/training/arguments.py,
// megatron/core/transformer/transformer_config.py). Megatron applies one TP degree, one context-
// parallel degree, one data-parallel flavour and per-stage recomputation to the whole model; the
// layer division is exact (--decoder-first/last-pipeline-num-layers or
// --pipeline-model-parallel-layout). Every per-layer choice of the plan it cannot express gets a
// comment, and what was exported is re-costed with Stratex's evaluate when a cost model is given.
struct MegatronArgs {
    // The degrees, division, recomputation, batch and data-parallel flavour Megatron runs: Ulysses
    // SP as context parallelism with a2a communication; recomputation "full" with "uniform" (every
    // layer) or "block" (the first recompute_layers of every stage).
    MegatronRun run;

    // The launch environment: CUDA_DEVICE_MAX_CONNECTIONS=1 with TP or CP > 1, unset under FSDP.
    std::vector<std::pair<std::string, std::string>> environment;
    std::vector<std::string> unset_environment;

    MegatronArgumentList arguments; // the flags in megatron_flags.h's spelling
    std::string model_summary; // "model llama2-7b: 32 layers, hidden 4096, ..."
    std::vector<std::string> comments; // what Megatron cannot express, one line per item
    std::vector<ExportNote> notes; // every approximation and refusal (the comments, and the fit)

    // What Megatron runs, as a plan Stratex can cost, and the costs (when a cost model was given).
    galvatron::Plan exported;
    std::optional<galvatron::Evaluation> planned; // the plan itself
    std::optional<galvatron::Evaluation> recosted; // the exported version
    std::string not_costed; // why a cost is missing
};

MegatronArgs megatronArgs(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const model::ModelDescription& model, const galvatron::CostModel* costModel = nullptr);

// A bash script: the predictions and the comments, then megatronLaunchText.
std::string megatronArgsScript(
    const galvatron::Plan& plan, const galvatron::SearchSettings& settings, const MegatronArgs& args);
std::string megatronArgsScript(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const model::ModelDescription& model, const galvatron::CostModel* costModel = nullptr);

} // namespace stratex::exporting
