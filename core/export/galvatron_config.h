// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/model/model_description.h"
#include "core/hardware/cluster_description.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_settings.h"

namespace stratex::exporting {

// Galvatron main's strategy JSON (docs/galvatron-search.md §6.1): pp_deg, tp_sizes_enc,
// tp_consecutive_flags (always 1), dp_types_enc (1 = ZeRO-3), use_sp, checkpoint, world_size,
// global_bsz, chunks, pp_division, pipeline_type, default_dp_type, vtp, vsp, embed_sdp - in that
// order, per-layer values comma-separated: what its search writes (the CLI's --json "strategy").
// A plan with context parallelism adds "cp_sizes_enc" after tp_sizes_enc and "vcp" after vsp
// (Galvatron main's utils/config_utils.py config2strategy reads both, 1 when absent).
nlohmann::ordered_json galvatronConfigJson(const galvatron::Plan& plan);

// The strategy file Galvatron's runtimes load: galvatronConfigJson plus "vocab_sdp", the key
// Galvatron main's runtime reads (hybrid_parallel_config.py) where its search writes embed_sdp and
// Galvatron 2.4's runtime reads embed_sdp; with both, either loads the embedding's ZeRO-3.
nlohmann::ordered_json galvatronFileJson(const galvatron::Plan& plan);

// The file as Galvatron writes it: 4-space indentation, no trailing newline.
std::string galvatronConfigText(const galvatron::Plan& plan);

// A Stratex strategy file: Galvatron's keys (galvatronFileJson), then "model" (model::toJson) and
// "cluster" (hardware::toJson) when known and "search_settings" (the search table's JSON), which
// Galvatron's loaders ignore (they read their keys by name) and `export` and `evaluate` read back.
nlohmann::ordered_json strategyFileJson(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const std::optional<model::ModelDescription>& model,
    const std::optional<hardware::ClusterDescription>& cluster);
// Formatted as Galvatron formats its file.
std::string strategyFileText(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const std::optional<model::ModelDescription>& model,
    const std::optional<hardware::ClusterDescription>& cluster);

// galvatron_config_{model}_{N}nodes_{G}gpus_per_node_{GB}GB_{prec}[_bsz{settle}][_[{off}_off]].json
std::string galvatronConfigFileName(const galvatron::SearchSettings& settings, const std::string& modelName);

} // namespace stratex::exporting
