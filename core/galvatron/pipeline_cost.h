// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <span>
#include <vector>

namespace stratex::galvatron {

// Galvatron main's time of one training iteration of a pipelined plan
// (docs/galvatron-search.md §3.3), seconds.
struct PipelineCost {
    double time_cost_s = 0;
    std::vector<double> stage_sync_s; // R_i: with gradient sync
    std::vector<double> stage_no_sync_s; // C_i: without, incl. the embedding's no-sync time
    double sequential_s = 0; // T1
    double steady_state_s = 0; // T2
    std::vector<double> exposed_sync_s; // per stage: R_i - sum of C_0..C_i
    double sync_tail_s = 0; // max(0, largest exposed_sync_s): gradient reduction after the last micro-batch
};

// layerSync / layerNoSync: per-layer times of the plan, layer 0 first; division: layers per
// stage; embeddingNoSync: N_e per stage.
PipelineCost pipelineCost(std::span<const double> layerSync, std::span<const double> layerNoSync,
    std::span<const int> division, std::span<const double> embeddingNoSync, int chunks);

} // namespace stratex::galvatron
