// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>

#include "core/galvatron/evaluate.h"
#include "core/galvatron/plan.h"
#include "core/galvatron/search_result.h"

namespace stratex::exporting {

// The JSON shapes of `stratex-cli search|evaluate --json` (a public contract, key order included).

// {"gbsz", "chunks", "pp", "time_cost_s", "throughput_samples_per_s", "memory_cost_mb_per_stage",
//  "memory_remaining_mb_per_stage", "strategy": {Galvatron strategy keys}}
nlohmann::ordered_json planJson(const galvatron::Plan& plan);

// {"best": plan or null, "top": [plans], "pareto": [plans], "search_time_s", "dp_calls", "threads"}
nlohmann::ordered_json searchResultJson(const galvatron::SearchResult& result);

// planJson's fields, then "layers": [{"time_s", "memory_mb", ...}] and "stages": [{...}].
nlohmann::ordered_json evaluationJson(const galvatron::Evaluation& evaluation);

} // namespace stratex::exporting
