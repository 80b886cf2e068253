// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

#include "core/galvatron/cost_model.h"
#include "core/galvatron/strategy.h"

namespace stratex::galvatron {

// Memory one layer holds on a GPU of pipeline stage `stage` (docs/galvatron-search.md §4.1).
struct LayerMemory {
    std::int64_t local_batch = 0;
    int in_flight_micro_batches = 1; // 1F1B: pp - stage; GPipe: chunks
    double model_states_mb = 0;
    double activation_mb = 0;
    double total_mb = 0;
    int weight_mb = 0; // ceil(total): what the knapsack counts
};

LayerMemory layerMemory(const CostModel& model, const LayerStrategy& strategy, int gbsz, int chunks, int stage);

// Micro-batches whose activations a stage holds at its peak.
int inFlightMicroBatches(PipelineType type, int pp, int chunks, int stage);

} // namespace stratex::galvatron
