// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// DynaPipe's micro-batch dynamic program (docs/dynapipe-planner.md §2, "Stage 2"): split an ordered
// global batch into contiguous runs (micro-batches) minimising the pipeline-time model
//     (p - 1) * t_max / c  +  sum_i t_i / dp
// under a per-micro-batch stored-activation limit and a peak-activation limit, over the
// candidate t_max values (all feasible run times, bucketed at 5 ms).

#include <limits>
#include <vector>

#include "core/common/progress.h"
#include "core/planner/layer_cost_model.h"
#include "core/planner/microbatch_types.h"

namespace stratex::planner {

struct MicroBatchDpConfig {
    int num_stages = 1; // p
    int chunks_per_device = 1; // c (> 1: interleaved placement)
    int layers_per_stage = 1; // L
    int dp_size = 1;
    int tp = 1;
    RecomputeType recompute = RecomputeType::None;
    double stored_activation_limit_mb = std::numeric_limits<double>::infinity(); // per micro-batch
    double peak_activation_limit_mb = std::numeric_limits<double>::infinity();
    int round_seqlen_multiple = 8;
    int decoder_additional_tokens = 2;
    double min_tmax_interval_ms = 5; // DynaPipe's MIN_TMAX_INTERVAL
};

struct MicroBatchDpResult {
    bool feasible = false;
    double objective = std::numeric_limits<double>::infinity(); // ms
    double t_max_ms = -1;
    double sum_time_ms = -1;
    std::vector<MicroBatch> microbatches; // in sample order, ids 0..m-1
    // Work done, for benchmarks and the GUI's details.
    long long feasible_segments = 0;
    int distinct_shapes = 0;
    // t_max candidates walked, ascending, up to where the lower bound stopped the search; those
    // below the fastest run of some sample are walked without a DP pass (they cannot cover it).
    int tmax_candidates = 0;
    int tmax_evaluated = 0; // candidates given a DP pass
};

// orderedSamples is the order the DP may cut (see microbatch_sample_order.h). Reports progress
// and stops on cancel (throws Cancelled). Never throws for infeasibility: feasible = false.
MicroBatchDpResult runMicroBatchDp(const std::vector<Sample>& orderedSamples, const LayerCostModel& model,
    const MicroBatchDpConfig& config, ProgressSink& progress);

} // namespace stratex::planner
