// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/search/plan.h"
#include "core/search/search_settings.h"

namespace stratex::exporting {

// Galvatron main's strategy JSON (galvatron-main-search-spec.md §6.1): pp_deg, tp_sizes_enc,
// tp_consecutive_flags (always 1), dp_types_enc (1 = ZeRO-3), use_sp, checkpoint, world_size,
// global_bsz, chunks, pp_division, pipeline_type, default_dp_type, vtp, vsp, embed_sdp - in that
// order, per-layer values comma-separated.
nlohmann::ordered_json galvatronConfigJson(const search::Plan& plan);

// The file as Galvatron writes it: 4-space indentation, no trailing newline.
std::string galvatronConfigText(const search::Plan& plan);

// galvatron_config_{model}_{N}nodes_{G}gpus_per_node_{GB}GB_{prec}[_bsz{settle}][_[{off}_off]].json
std::string galvatronConfigFileName(const search::SearchSettings& settings, const std::string& modelName);

} // namespace stratex::exporting
