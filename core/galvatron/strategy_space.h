// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "core/galvatron/strategy.h"
#include "core/galvatron/search_settings.h"

namespace stratex::galvatron {

// Every layer and embedding strategy the search may use, after the global disable_* filters,
// sorted in Galvatron's order (docs/galvatron-search.md §2.2, §2.3).
struct StrategySpace {
    std::vector<galvatron::LayerStrategy> layers;
    std::vector<galvatron::EmbeddingStrategy> embeddings;
    std::vector<int> pipelineDegrees; // distinct pp of the embedding list, ascending
};

StrategySpace enumerateStrategies(const SearchSettings& settings);

} // namespace stratex::galvatron
