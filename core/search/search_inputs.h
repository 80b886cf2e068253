// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>

#include "core/cost/cost_model.h"
#include "core/profile/profile_discovery.h"
#include "core/profile/profile_set.h"
#include "core/search/search_settings.h"

namespace stratex::search {

// The loaded profiles a search reads: the model's computation and memory profiles and the
// cluster's hardware profiles (all-reduce, p2p, overlap, TP/SP collective latencies).
struct SearchInputs {
    profile::ProfileSet profiles;
    // The profiles were synthesized (stratex_synthesis.json beside them), not measured.
    bool estimated = false;

    static SearchInputs load(const profile::ProfilePaths& paths);
    // Discovery with the settings' cluster shape, precision, sequence length and profile modes.
    static SearchInputs discover(profile::ProfileDiscovery request, const SearchSettings& settings);
};

// The model settings a user set explicitly; the others may be taken from the profiles.
struct ExplicitSettings {
    bool seqLength = false;
    bool modelName = false;
    bool numLayers = false;
    bool hiddenSize = false;
    bool numHeads = false;
    bool vocabSize = false;
    bool numNodes = false;
    bool gpusPerNode = false;
    bool mixedPrecision = false;
};

// The profiles a user pointed at, with the settings filled in from them where the user left a
// setting open. A synthesized set (stratex_synthesis.json in the profiles dir) gives the model's
// shape, sequence length, cluster shape and precision; otherwise the sequence length becomes the
// memory profile's when every candidate memory file holds exactly one (else the settings' own).
// The model name becomes the profile's. The CLI's `search`/`evaluate`/`export` and the GUI's
// Search page load through this call.
SearchInputs loadSearchInputs(
    const profile::ProfileDiscovery& request, SearchSettings& settings, const ExplicitSettings& given);

// The one sequence length every candidate memory profile of the request holds, if there is one.
std::optional<int> inferSequenceLength(const profile::ProfileDiscovery& request, cost::MixedPrecision precision);

// Resolves the profiles for the settings (time/memory modes, fits, coefficient tables) into the
// cost model. Throws InputError/Error naming file and key when the profiles cannot serve them.
cost::CostModel buildCostModel(const SearchInputs& inputs, const SearchSettings& settings);

} // namespace stratex::search
