// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cost/cost_model.h"
#include "core/profile/profile_discovery.h"
#include "core/profile/profile_set.h"
#include "core/search/search_settings.h"

namespace stratex::search {

// The loaded profiles a search reads: the model's computation and memory profiles and the
// cluster's hardware profiles (all-reduce, p2p, overlap, TP/SP collective latencies).
struct SearchInputs {
    profile::ProfileSet profiles;

    static SearchInputs load(const profile::ProfilePaths& paths);
    // Discovery with the settings' cluster shape, precision, sequence length and profile modes.
    static SearchInputs discover(profile::ProfileDiscovery request, const SearchSettings& settings);
};

// Resolves the profiles for the settings (time/memory modes, fits, coefficient tables) into the
// cost model. Throws InputError/Error naming file and key when the profiles cannot serve them.
cost::CostModel buildCostModel(const SearchInputs& inputs, const SearchSettings& settings);

} // namespace stratex::search
