// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/galvatron/cost_model.h"
#include "core/galvatron/search_inputs.h"
#include "core/galvatron/search_settings.h"

#include "../profile/profile_test_util.h"

namespace stratex::test {

// The six llama2-7b fixture files, loaded (see llamaProfilePaths).
inline galvatron::SearchInputs llamaInputs(int nodes = 1)
{
    return galvatron::SearchInputs::load(llamaProfilePaths(nodes));
}

// The settings of the baseline runs (tests/data/galvatron-baseline/expected_main.json).
inline galvatron::SearchSettings llamaSettings(int memoryGb, int settleBsz)
{
    galvatron::SearchSettings s;
    s.memory_constraint_gb = memoryGb;
    s.settle_bsz = settleBsz;
    s.model = { "llama2-7b", 2048, 4096, 32, 32, 32000 };
    s.time_profile_mode = profile::TimeProfileMode::Batch;
    s.memory_profile_mode = profile::MemoryProfileMode::Static;
    return s;
}

// Galvatron's SciPy curve_fit coefficients of the llama2-7b batch fits (docs/galvatron-search.md §7.2): with them the
// engine must reproduce Galvatron's numbers bit for bit, not only within OLS's ~1e-10.
inline galvatron::CostModel withCurveFit(const galvatron::SearchInputs& inputs, const galvatron::SearchSettings& settings)
{
    galvatron::CostInputs resolved = galvatron::resolveCostInputs(
        inputs.profiles, settings.time_profile_mode, settings.memory_profile_mode, settings.costSettings());
    if (settings.time_profile_mode == profile::TimeProfileMode::Batch) {
        resolved.time.layer.fit = { 3.85901689949117, 0.8329851393754094 };
        resolved.time.other.fit = { 2.6803283211563755, 2.3548992612929927 };
    }
    return galvatron::CostModel(resolved, settings.costSettings());
}

inline nlohmann::ordered_json readJsonFile(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::ordered_json::parse(in);
}

} // namespace stratex::test
