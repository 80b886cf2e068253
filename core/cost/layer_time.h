// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

#include "core/cost/cost_model.h"
#include "core/cost/strategy.h"

namespace stratex::cost {

// Time of one layer for one micro-batch (galvatron-main-search-spec.md §3.1), in seconds, with
// the gradient sync (what the DP minimises) and without it (what the pipeline formula adds up).
// The *_ms parts are per layer, for people; sync_s / no_sync_s are computed exactly as Galvatron
// does (over all L layers, then / L) and are what the search uses.
struct LayerTime {
    double sync_s = 0;
    double no_sync_s = 0;

    std::int64_t local_batch = 0; // samples per replica per micro-batch
    double forward_ms = 0;
    double backward_ms = 0; // incl. the recompute forward of a checkpointed layer
    double dp_message_mb = 0; // gradient-sync volume of this layer
    double dp_sync_overlapped_ms = 0; // sync time hidden behind (and slowing) the backward pass
    double dp_sync_exposed_ms = 0; // what is left after the overlap
    double tp_comm_ms = 0; // Megatron TP/SP all-gathers or Ulysses all-to-alls
    double zero3_gather_ms = 0; // ZeRO-3 forward parameter all-gather
    double p2p_ms = 0; // this layer's share of the pipeline p2p (Galvatron's x pp message)
};

LayerTime layerTime(const CostModel& model, const LayerStrategy& strategy, int gbsz, int chunks);

} // namespace stratex::cost
