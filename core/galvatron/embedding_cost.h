// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstdint>
#include <vector>

#include "core/galvatron/cost_model.h"
#include "core/galvatron/strategy.h"

namespace stratex::galvatron {

// Embedding + LM head time per pipeline stage (docs/galvatron-search.md §3.2), seconds: the
// embedding sits on stage 0 and the LM head on the last stage; middle stages carry 0.
struct EmbeddingStageSteps {
    double compute_ms = 0; // forward compute on this stage
    double message_mb = 0; // gradient volume of this stage's part (model states / 4, halved when mixed)
    double forward_comm_ms = 0; // ZeRO-3 parameter gather before the forward
    double forward_ms = 0; // forward with that communication overlapped
    double backward_comm_ms = 0; // with gradient sync
    double backward_ms = 0; // with gradient sync
    double backward_no_sync_ms = 0;
    double vocab_tp_ms = 0; // vocabulary-parallel all-gathers
};

struct EmbeddingTime {
    std::vector<double> sync_s; // W_e: with gradient sync (never reaches Galvatron's reported cost)
    std::vector<double> no_sync_s; // N_e: added to the stage's pipeline time
    std::int64_t local_batch = 0;
    double compute_ms = 0; // forward of the whole embedding + head (split in two when pp > 1)
    double dpc_ms_per_mb = 0; // (C[key] * (sdp - 1)) / sdp
    std::vector<EmbeddingStageSteps> stages;
};

// Embedding + LM head memory per stage (§4.3), incl. the 1024 MB PyTorch context of every stage.
struct EmbeddingMemory {
    std::vector<double> model_states_mb;
    std::vector<double> activation_mb;
    std::vector<double> total_mb;
    std::vector<int> weight_mb; // ceil(total): what the stage budget is reduced by
};

inline constexpr double kPytorchContextMb = 1024;

EmbeddingTime embeddingTime(const CostModel& model, const EmbeddingStrategy& strategy, int gbsz, int chunks);
EmbeddingMemory embeddingMemory(const CostModel& model, const EmbeddingStrategy& strategy, int gbsz, int chunks);

} // namespace stratex::galvatron
