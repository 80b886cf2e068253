// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/export/export_note.h"
#include "core/export/pytorch_exports.h"
#include "core/export/torchtitan_flavours.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_settings.h"
#include "core/megatron/plan_file.h"
#include "core/model/model_description.h"

namespace stratex::exporting {

// The torchtitan a torchtitan export is written for: main (since the config refactor of Feb 2026,
// pytorch/torchtitan#2386, 9810191b: a Python module whose function returns Trainer.Config,
// loaded with --module/--config) or v0.2 (the last release with TOML job configs).
enum class TorchtitanVersion { Main, V0_2 };
std::string_view torchtitanVersionName(TorchtitanVersion version); // "main", "0.2"
std::optional<TorchtitanVersion> parseTorchtitanVersion(std::string_view name);

// The file name of the module (an importable Python module name) and of the function it defines:
// run with ./run_train.sh --module stratex_torchtitan --config stratex_plan.
inline constexpr std::string_view kTorchtitanModuleName = "stratex_torchtitan";
inline constexpr std::string_view kTorchtitanConfigFunction = "stratex_plan";

// What the module's activation checkpointing object is (torchtitan/distributed/
// activation_checkpoint.py at pytorch/torchtitan@b5bcd76c: FullAC.Config, SelectiveAC.Config or
// None; ActivationCheckpointing.apply wraps every transformer block). Layers and Modules are the
// plan's own recompute, written as a FullAC subclass the module defines and swaps in through
// torchtitan's override mechanism (torchtitan/config/override.py), since torchtitan's own policies
// cannot leave a block out.
struct TorchtitanAc {
    enum class Kind {
        None, // activation_checkpoint = None
        Full, // FullAC.Config(): every block
        Selective, // SelectiveAC.Config(): op-level
        Layers, // the blocks in `layers` only, each whole
        Modules, // in every block, the submodules in `modules` (Megatron's recompute modules)
    };
    Kind kind = Kind::None;
    std::vector<int> layers;
    std::vector<std::string> modules; // submodule FQNs inside a block: "attention.inner_attention", ...
};

// Everything the written module sets, typed (the text is torchtitanModuleText of it).
struct TorchtitanJob {
    std::vector<std::string> header; // comment lines describing model and plan
    // The model: torchtitan.models.<model_module>.model_registry(flavor), a shipped or a
    // registered flavour (torchtitan_flavours.h).
    TorchtitanModelChoice model;
    bool float8_linear = false; // Float8LinearConverter (torchtitan/components/quantization/float8.py)
    std::vector<std::string> float8_filter_fqns;
    bool float8_grouped_experts = false; // Float8GroupedExpertsConverter: the MoE grouped GEMMs
    // TrainingConfig (torchtitan/config/configs.py)
    long long tokens_per_microbatch_per_dp_rank = 0;
    long long tokens_per_train_step = 0;
    int max_context_length = 0;
    std::string mixed_precision_param = "bfloat16";
    bool disable_cuda_graphs = false;
    // ParallelismConfig
    int dp_replicate = 1;
    int dp_shard = 1;
    std::string fsdp_reshard_after_forward = "default";
    int tp = 1;
    bool sequence_parallel = true;
    // CompileConfig (config/configs.py): AsyncTP (enable_async_tensor_parallel) pipelines the TP
    // collectives with the GEMMs and refuses to start without compile.enable and "model" among the
    // compiled components (the default ["model", "loss"]); written with compile.enable.
    bool async_tp = false;
    // compile.enable (torchtitan config/configs.py CompileConfig, default False; components keep
    // their default ["model", "loss"]): the plan's compile on (docs/kernels.md, "Eager and compiled
    // blocks"), or AsyncTP's.
    bool compile = false;
    // With compile: the loss compiled too (compile.components' default ["model", "loss"]), or only
    // the model (a plan with compile_loss false; docs/memory-model.md, "torchtitan's compiled loss").
    bool compile_loss = true;
    int cp = 1;
    std::string cp_load_balancer = "headtail";
    int ep = 1;
    int pp = 1;
    std::string schedule = "1F1B";
    std::string schedule_csv;
    int num_pp_microbatches = 1;
    std::vector<std::vector<std::string>> module_fqns_per_model_part; // empty: torchtitan's split
    TorchtitanAc ac;
    // Every approximation (comments) and refusal (comments, and the config function raises
    // ValueError with them before torchtitan can train something else).
    std::vector<ExportNote> notes;
};

TorchtitanJob torchtitanMainJob(
    const galvatron::Plan& plan, const galvatron::SearchSettings& settings, const model::ModelDescription& model);
TorchtitanJob torchtitanMainJob(const megatron::PlanFile& plan);

// The Python module: imports, the registered flavour and recompute policy where needed, and
// def stratex_plan() -> Trainer.Config.
std::string torchtitanModuleText(const TorchtitanJob& job);

// Text and notes, for exportPlan / exportPlanFile (torchtitan main) ...
TorchtitanConfig torchtitanModule(
    const galvatron::Plan& plan, const galvatron::SearchSettings& settings, const model::ModelDescription& model);
TorchtitanConfig torchtitanModule(const megatron::PlanFile& plan);
// ... and either version, for the CLI's --torchtitan-version.
TorchtitanConfig torchtitanExport(TorchtitanVersion version, const galvatron::Plan& plan,
    const galvatron::SearchSettings& settings, const model::ModelDescription& model);
TorchtitanConfig torchtitanExport(TorchtitanVersion version, const megatron::PlanFile& plan);

} // namespace stratex::exporting
