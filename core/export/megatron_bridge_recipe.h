// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/export/export_note.h"
#include "core/export/megatron_flags.h"
#include "core/galvatron/cost_model.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_settings.h"
#include "core/megatron/plan_file.h"
#include "core/model/model_description.h"

namespace stratex::exporting {

// A Megatron-Bridge recipe (the Python training library that succeeds NeMo 2's Megatron path) for
// a plan: a Python file whose stratex_pretrain_config() builds the ConfigContainer as Bridge's own
// recipes do (recipes/common.py _pretrain_common, then field by field, as
// recipes/llama/h100/llama3.py does), and whose __main__ runs Bridge's pretrain() on it.
// Field names and types are those of NVIDIA-NeMo/Megatron-Bridge main (067f987d,
// src/megatron/bridge/training/config.py, models/gpt_provider.py, models/mla_provider.py,
// training/mixed_precision.py) and of the Megatron-LM it pins (3rdparty/Megatron-LM at 2a75ac12:
// megatron/core/model_parallel_config.py, transformer/transformer_config.py,
// distributed/distributed_data_parallel_config.py, optimizer/optimizer_config.py,
// training/config/). Bridge builds Megatron-Core's model, schedules and data parallelism, so the
// Megatron-LM export's rules (megatron_plan_args.h, megatron_args.h) decide what runs; this file
// only spells them in Bridge's fields.

// One assignment of the recipe: `cfg.<path> = <value>`, the value a Python expression.
struct MegatronBridgeField {
    std::string path; // "model.tensor_model_parallel_size"
    std::string value; // "4", "None", "\"p2p\"", "[\"core_attn\"]", "torch.bfloat16", ...

    auto operator<=>(const MegatronBridgeField&) const = default;
};

struct MegatronBridgeRecipe {
    // "GPTModelProvider", or "MLAModelProvider" for multi-latent attention (models/mla_provider.py).
    std::string provider = "GPTModelProvider";
    // "bf16_mixed" or "fp16_mixed" (mixed_precision.py); FP8 is bf16_mixed with fp8 fields set.
    std::string mixed_precision = "bf16_mixed";
    std::vector<MegatronBridgeField> fields; // in the order written
    std::vector<std::string> header; // comment lines: the model, the plan, the predictions
    std::vector<std::string> comments; // what runs differently from the plan, or to know
    std::vector<ExportNote> notes; // every approximation and refusal (export_note.h)
    std::vector<std::pair<std::string, std::string>> plan_facts; // PLAN = {...}: strings, escaped
    int num_nodes = 1;
    int gpus_per_node = 1;
    bool uses_attn_backend = false; // imports AttnBackend
    bool uses_comm_overlap = false; // imports CommOverlapConfig
    bool uses_torch = false; // imports torch (the optimizer states' dtype)
    bool uses_te_cuda_graphs = false; // sets NCCL_GRAPH_REGISTER=0 beside expandable segments
};

// The model's fields and the run's (parallelism, layout, recompute, batch, data parallelism,
// precision) on a recipe. Adds a note for every model fact Bridge builds differently (an integer
// RoPE base, Llama 3.1 scaling's fixed factors, RoPE scaling with MLA).
void addMegatronBridgeFields(MegatronBridgeRecipe& recipe, const model::ModelDescription& model, const MegatronRun& run);

// The recipe of a Stratex plan file. Throws stratex::Error (naming the file and the reason) for
// what Bridge cannot run: GPipe and ZB-H1 (Megatron-Core's schedules are 1F1B and interleaved
// 1F1B), and every strategy Megatron's own rules refuse (megatron::strategyProblems).
MegatronBridgeRecipe megatronBridgePlanRecipe(const megatron::PlanFile& plan);

// The recipe of a searched Galvatron plan: what the Megatron-LM export runs of it (megatronArgs:
// one TP/CP degree, per-stage recompute, ...), its notes carried over.
MegatronBridgeRecipe megatronBridgeSearchedRecipe(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const model::ModelDescription& model, const galvatron::CostModel* costModel = nullptr);

// The Python file.
std::string megatronBridgeRecipeText(const MegatronBridgeRecipe& recipe);


} // namespace stratex::exporting
