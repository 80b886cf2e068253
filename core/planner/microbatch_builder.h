// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// DynaPipe's micro-batch generation for one global batch (docs/dynapipe-planner.md §2, "Memory
// limits and rc order"): order the samples, then for the stored-activation limit "preferred"
// (available / p) and then "available", and for recompute none -> selective -> full, run the DP
// and keep the first feasible split; spread its micro-batches over the data-parallel groups.

#include <string>
#include <vector>

#include "core/common/progress.h"
#include "core/planner/layer_cost_model.h"
#include "core/planner/microbatch_dp.h"
#include "core/planner/microbatch_sample_order.h"
#include "core/planner/microbatch_types.h"
#include "core/planner/planner_memory.h"

namespace stratex::planner {

struct MicroBatchBuildConfig {
    int num_stages = 1;
    int layers_per_stage = 1;
    int chunks_per_device = 1;
    int dp_size = 1;
    int tp = 1;
    int zero_stage = 0;
    double device_memory_mb = 0;
    double per_mb_memory_fraction = 0; // > 0 replaces available / p as the preferred limit
    std::vector<RecomputeType> recompute_order { kAllRecomputeTypes.begin(), kAllRecomputeTypes.end() };
    SampleOrderConfig order;
    int round_seqlen_multiple = 8;
    int decoder_additional_tokens = 2;
    double min_tmax_interval_ms = 5;
};

struct MicroBatchBuildResult {
    bool feasible = false;
    std::string infeasible_reason; // set when !feasible
    RecomputeType recompute = RecomputeType::None; // the type the DP split was made for
    bool used_preferred_limit = true; // false: needed the whole available memory per micro-batch
    ActivationLimits limits; // of the chosen recompute type
    double stored_limit_mb = 0; // the per-micro-batch limit the split satisfies
    MicroBatchDpResult dp; // the chosen split (all micro-batches, DP order)
    // Micro-batches of each data-parallel group (ids as in dp.microbatches, DP order kept).
    std::vector<std::vector<MicroBatch>> dp_groups;
    std::vector<Sample> order; // the sample order the DP cut
    int dp_runs = 0;
};

// The chunk shape the micro-batch DP prices runs at: the config's, except that an encoder-decoder
// model on a single stage holds encoder and decoder on one device, which DynaPipe prices as two
// chunks of half the layers. (buildMicroBatches prices with it; estimateMicroBatchingWork bounds
// the same runs.)
struct PricedChunkShape {
    int layers_per_stage = 1;
    int chunks_per_device = 1;
};
PricedChunkShape pricedChunkShape(const LayerCostModel& model, const MicroBatchBuildConfig& config);

// The bottleneck stage's model state under one recompute type (planner_memory.h), and the
// activation limits that leaves a micro-batch on the config's device.
double modelStateMb(const LayerCostModel& model, const MicroBatchBuildConfig& config, RecomputeType type);
ActivationLimits microBatchActivationLimits(
    const LayerCostModel& model, const MicroBatchBuildConfig& config, RecomputeType type);

MicroBatchBuildResult buildMicroBatches(const std::vector<Sample>& samples, const LayerCostModel& model,
    const MicroBatchBuildConfig& config, ProgressSink& progress);

} // namespace stratex::planner
