// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "core/cost/strategy.h"
#include "core/search/search_settings.h"

namespace stratex::search {

// Every layer and embedding strategy the search may use, after the global disable_* filters,
// sorted in Galvatron's order (docs/galvatron-search.md §2.2, §2.3).
struct StrategySpace {
    std::vector<cost::LayerStrategy> layers;
    std::vector<cost::EmbeddingStrategy> embeddings;
    std::vector<int> pipelineDegrees; // distinct pp of the embedding list, ascending
};

StrategySpace enumerateStrategies(const SearchSettings& settings);

} // namespace stratex::search
