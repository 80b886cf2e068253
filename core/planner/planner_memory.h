// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/planner/layer_cost_model.h"

namespace stratex::planner {

// Optimizer-state accounting of DynaPipe (docs/dynapipe-planner.md §2, §5): 16-bit Adam keeps, per
// fp16 parameter byte, 1 byte of parameter, 1 of gradient and 6 of fp32 master weight + moments
// (factor 8). ZeRO stage >= 1 shards the 6 optimizer bytes over the data-parallel group, >= 2
// also the gradient, 3 also the parameter.
struct OptimizerStateConfig {
    int zero_stage = 0; // 0..3
    int dp_size = 1;
};

double modelStateMb(double fp16ParamMb, const OptimizerStateConfig& config);

// The model state of the bottleneck device (assumed to be the first one, which holds the
// embedding): embedding + layers_per_stage * max(encoder, decoder) layer, or for interleaved
// placements (chunks > 1) the embedding + (encoder + decoder) * chunks/2 * layers_per_stage
// (integer chunks/2, as DynaPipe) -- for decoder-only models, which DynaPipe does not interleave,
// the embedding + encoder * chunks * layers_per_stage.
double bottleneckModelStateMb(const ModelParameterSizes& params, int layersPerStage, int chunksPerDevice,
    const OptimizerStateConfig& config, bool encoderDecoder = false);

// The activation limits the micro-batch DP runs under: available = device - model state; the
// per-micro-batch stored-activation limit is the "preferred" available/p (about p micro-batches
// in flight, as in 1F1B) or, on the second pass, all of it; the peak limit is always available.
struct ActivationLimits {
    double model_state_mb = 0;
    double available_mb = 0;
    double preferred_stored_mb = 0;
};

ActivationLimits activationLimits(
    double deviceMemoryMb, double modelStateMb, int numStages, double perMicroBatchMemoryFraction = 0);

} // namespace stratex::planner
