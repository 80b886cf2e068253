// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/cost/cost_model.h"
#include "core/model/model_description.h"
#include "core/search/plan.h"
#include "core/search/search_settings.h"

namespace stratex::exporting {

// Megatron-LM's pretrain_gpt.py arguments closest to a plan. Megatron applies one TP degree, one
// context-parallel degree, one data-parallel flavour and a per-stage block of recomputed layers
// to the whole model; every per-layer choice of the plan that this cannot express gets a comment.
struct MegatronArgs {
    int tensor_parallel = 1;
    int pipeline_parallel = 1;
    int context_parallel = 1; // Ulysses SP as Megatron context parallelism with a2a communication
    int data_parallel = 1;
    bool sequence_parallel = false;
    int recompute_layers = 0; // --recompute-method block --recompute-num-layers: per stage
    bool distributed_optimizer = false;
    int micro_batch_size = 1;
    int global_batch_size = 1;
    int decoder_last_pipeline_layers = 0; // > 0: the last stage's layer count differs
    std::vector<std::string> arguments; // "--name value" items, in order
    std::vector<std::string> comments; // what Megatron cannot express, one line per item
    std::vector<std::string> warnings; // what the user must know before launching
};

MegatronArgs megatronArgs(const search::Plan& plan, const search::SearchSettings& settings,
    const model::ModelDescription& model, const cost::CostModel* costModel = nullptr);

// A bash snippet: the comments, then MEGATRON_ARGS=( ... ) and an example torchrun line.
std::string megatronArgsScript(
    const search::Plan& plan, const search::SearchSettings& settings, const MegatronArgs& args);
std::string megatronArgsScript(const search::Plan& plan, const search::SearchSettings& settings,
    const model::ModelDescription& model, const cost::CostModel* costModel = nullptr);

} // namespace stratex::exporting
