// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>

#include "core/galvatron/cost_model.h"
#include "core/galvatron/strategy.h"

namespace stratex::galvatron {

// Galvatron's intermediate quantities of the per-layer time (docs/galvatron-search.md §3.1).
// Like Galvatron, they are computed for all L layers at once (ms, MB) and divided by L at the end.
struct LayerTimeSteps {
    double fct_ms = 0; // forward compute
    double bct_ms = 0; // backward compute (x2), plus one forward when checkpointed
    double dp_message_mb = 0; // gradient sync volume
    double zero3_message_mb = 0; // ZeRO-3 forward all-gather volume
    double dc_ms_per_mb = 0; // all-reduce coefficient of the sync group
    double dco_ms_per_mb = 0; // ... slowed by the overlap coefficient
    double sync_load_ms = 0; // a = dp_message * dco
    double backward_load_ms = 0; // β = bct * κ
    double overlapped_ms = 0; // backward and sync running together
    double rest_ms = 0; // whichever is left, at full speed
    double tp_message_mb = 0; // one TP/SP collective's message
    double tp_collectives = 0; // how many (x1.5 when checkpointed)
    double tp_comm_ms = 0;
    double p2p_message_mb = 0; // Galvatron's x pp message
    double p2p_ms = 0;
    double zero3_gather_ms = 0; // added to both variants, uses dc (no κ)
    double sync_total_ms = 0; // before x 0.001 x costmodel_coe / L
    double no_sync_total_ms = 0;
};

// Time of one layer for one micro-batch, in seconds: with the gradient sync (what the DP
// minimises) and without it (what the pipeline formula adds up).
struct LayerTime {
    double sync_s = 0;
    double no_sync_s = 0;
    std::int64_t local_batch = 0; // samples per replica per micro-batch
    LayerTimeSteps steps;
};

LayerTime layerTime(const CostModel& model, const LayerStrategy& strategy, int gbsz, int chunks);

} // namespace stratex::galvatron
