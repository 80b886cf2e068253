// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/ranks/rank_grid.h"
#include "core/ranks/tracer_plan.h"

namespace stratex::ranks {

// The JSON shapes of `stratex-cli ranks` and `stratex-cli trace-ranks` (a public contract).

nlohmann::ordered_json sizesJson(const RankGrid& grid);

// {"world":W,"order":"...","sizes":{...},"groups":{"tp":[[...],...],...}} — written directly to
// a string because a 131072-rank grid has two million group entries.
std::string gridJson(const RankGrid& grid);

// {"world","order","rank","node","local_rank","coordinates":{...},"groups":{kind:[...]|null}}
nlohmann::ordered_json rankJson(const RankGrid& grid, int rank);

// {"configs":[{"index":1,"world":..,"pp":..,"tp":..,"dp":..,"valid":true,"ranks":[..],...}]}
nlohmann::ordered_json tracerJson(const std::vector<TraceConfigPlan>& plans);

} // namespace stratex::ranks
