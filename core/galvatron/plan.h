// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "core/galvatron/cost_settings.h"
#include "core/galvatron/strategy.h"
#include "core/galvatron/search_settings.h"

namespace stratex::galvatron {

// A complete training strategy with its estimated cost, as Galvatron reports it: the plan of the
// best embedding candidate of one search task (or a costed strategy file).
struct Plan {
    int gbsz = 0;
    int chunks = 0;
    int pp = 1;
    int world = 0;
    TpSpMode tp_sp_mode = TpSpMode::TpOnly; // the search task the plan came from
    int global_buffer_tp = 1;
    int task_index = -1; // -1: not from a search

    double time_cost_s = 0; // estimated seconds per iteration
    double throughput_samples_per_s = 0; // gbsz / time_cost_s
    std::vector<int> memory_cost_mb_per_stage; // incl. the 20 % allocator reserve above 20 GB
    std::vector<int> memory_remaining_mb_per_stage; // left of the DP budget (negative: does not fit)

    std::vector<int> pp_division; // layers per stage
    std::vector<galvatron::LayerStrategy> layers; // one per transformer layer
    galvatron::EmbeddingStrategy embedding; // vocabulary embedding + LM head
    galvatron::PipelineType pipeline_type = galvatron::PipelineType::PipeDreamFlush;
    galvatron::DpType default_dp_type = galvatron::DpType::Zero2;

    int vtp() const { return embedding.tpsp(); }
    int vsp() const { return embedding.sp > 1 ? 1 : 0; }
    int embedSdp() const { return embedding.dp_type == galvatron::DpType::Zero3 ? 1 : 0; }
    int peakMemoryMb() const;
    int stageOf(int layer) const;
    // "1-1-8f-c x20, 1-1-8f x12": runs of equal per-layer strategies.
    std::string layerSummary() const;
};

// Galvatron's even split: L // pp layers per stage, the remainder on the last stage.
std::vector<int> evenDivision(int layers, int pp);

} // namespace stratex::galvatron
