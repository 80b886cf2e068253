// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/profile/least_squares.h"
#include "core/profile/profile_set.h"

namespace stratex::profile {

// What a profile set says, arranged to be looked at: forward time per layer against batch size
// (with Galvatron's batch-mode fit) and against sequence length (with its quadratic fit), memory
// per layer by TP degree, and the cluster's collective bandwidths.
struct ProfileOverview {
    std::string model_name;
    int seq_length = 0; // the length the batch sweep and the memory entry are shown at
    bool estimated = false; // made by `stratex-cli profile synth`, not measured

    std::vector<std::pair<int, double>> layer_ms_per_sample_by_bsz; // at seq_length
    std::vector<std::pair<int, double>> other_ms_per_sample_by_bsz;
    std::optional<LinearFit> layer_batch_fit; // ms of a micro-batch of b samples = slope * b + intercept
    std::vector<std::pair<int, double>> layer_ms_per_sample_by_seq; // at bsz 1
    std::optional<QuadraticFit> layer_seq_fit; // ms per sample at sequence length s

    double parameter_mb = 0; // one layer, fp32-sized
    std::vector<std::pair<int, double>> activation_mb_per_sample_by_tp;
    std::optional<double> checkpoint_mb_per_sample;

    struct GroupBandwidth {
        int size = 0;
        std::optional<double> consecutive_gb_per_s;
        std::optional<double> strided_gb_per_s;
    };
    std::vector<GroupBandwidth> allreduce; // by group size, ascending
    std::vector<std::pair<int, double>> p2p_gb_per_s_by_stages;
    double overlap_slowdown = 1;
};

// The overview of a loaded set at sequence length `seqLength` (the batch sweep and memory entry
// shown are the ones at that length, or the longest / first there is). Never throws: what the files
// lack stays empty.
ProfileOverview describeProfiles(const ProfileSet& profiles, int seqLength);

} // namespace stratex::profile
