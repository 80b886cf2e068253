// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

namespace stratex::planner {

// One training sample of a global batch: its token counts. Decoder-only models use seqlen only.
struct Sample {
    int id = 0; // position in the global batch as given
    int seqlen = 0; // input (encoder) tokens
    int decoder_seqlen = 0; // target (decoder) tokens; 0 for decoder-only models

    bool operator==(const Sample&) const = default;
};

// A micro-batch chosen by the DP: a contiguous run of the ordered samples, padded to its
// longest sample (rounded up), with the DP's cost estimate for the bottleneck stage.
struct MicroBatch {
    int id = 0; // stable id: the index in the DP's order (0 holds the first samples)
    std::vector<int> sample_ids;
    int micro_batch_size = 0;
    int padded_seqlen = 0;
    int padded_decoder_seqlen = 0;
    double time_ms = 0; // forward + backward of the bottleneck stage
    double stored_activation_mb = 0; // kept until the backward, per stage
    double peak_activation_mb = 0; // per stage, while the last layer's forward runs

    bool operator==(const MicroBatch&) const = default;
};

} // namespace stratex::planner
