// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>

#include "core/megatron/strategy_search.h"
#include "core/settings/setting_table.h"

namespace stratex::megatron {

// Which engine costs and searches plans (README "Two cost models"): Galvatron main's, reproduced
// exactly on measured profiles, or Stratex's per-operation model over Megatron's whole space.
// "auto" takes the stratex model for a profile set made by `profile synth` (whose model and
// cluster it knows) and Galvatron's for measured profiles.
enum class CostModelChoice { Auto, Galvatron, Stratex };

std::string_view costModelName(CostModelChoice value);
std::optional<CostModelChoice> parseCostModel(std::string_view name);

// What "auto" means, for the CLI and the GUI alike: with profiles, stratex when the set was made by
// `profile synth` (its record names the model and the cluster the stratex model costs) and
// galvatron for measured ones, which only Galvatron's model reads; without profiles, stratex when a
// model or a GPU is described, else galvatron (which then asks for the profiles). An explicit
// choice is kept.
CostModelChoice resolveCostModel(
    CostModelChoice asked, bool hasProfiles, bool synthesizedProfiles, bool modelOrGpuDescribed);

// The stratex search's settings beside the model, the cluster and the memory budget (the search
// table's --memory-constraint): the global batch and the space's limits. The CLI's flags, the GUI's form and saved settings all come
// from strategySearchSettingTable().
struct StrategySearchSettings {
    std::string cost_model = "auto";
    int global_batch_size = 0; // sequences per iteration; 0: not given
    std::string gpu; // a GPU preset when no profile set or cluster file names the GPU
    int max_zero = 3; // ZeRO stages 0 .. max_zero are tried
    std::string recompute = "any"; // "any" or one of none / selective / full
    std::string precision = "bf16";
    // With precision fp8, Transformer Engine's scaling recipe (docs/kernels.md §8): "default" (the
    // framework's), "delayed", "tensorwise", "mxfp8" or "blockwise"; not searched.
    std::string fp8_recipe = "default";
    // What each rank keeps (docs/memory-model.md): megatron-core, megatron-bridge (nemo),
    // torchtitan, deepspeed or composer.
    std::string framework = "megatron-core";
    // Megatron-Core / Megatron-Bridge: the main gradients' and the optimizer states' dtype, fp32 or bf16.
    std::string main_grads_dtype = "fp32";
    std::string optimizer_state_dtype = "fp32";
    // The attention kernel every plan runs (docs/kernels.md §6): not searched, the user's choice;
    // "default" is the framework's default on the GPU.
    std::string attention_kernel = "default";
    // torch.compile of the blocks in every plan (docs/kernels.md, "Eager and compiled blocks"):
    // "default" (the framework's), "on" or "off"; not searched.
    std::string compile = "default";
    // CUDA graphs in every plan (docs/kernels.md §7, "CUDA graphs"): "none", "attn", "moe-router",
    // "attn-moe-router", "layer" or "full-iteration"; not searched.
    std::string cuda_graphs = "none";
    StrategySpace space;

    CostModelChoice costModel() const;
    // The space with the ZeRO, recompute, precision, framework and state-dtype choices applied.
    StrategySpace resolvedSpace() const;
};

const settings::SettingTable<StrategySearchSettings>& strategySearchSettingTable();

} // namespace stratex::megatron
