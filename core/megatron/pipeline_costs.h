// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "core/hardware/hardware_model.h"
#include "core/megatron/chunk_costs.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/time_scales.h"
#include "core/model/model_description.h"

namespace stratex::megatron {

// The model chunks with the embedding on the first and the LM head on the last, and what a
// micro-batch sends between stages: the inputs of the pipeline's simulation and of the memory.
struct PipelineCosts {
    std::vector<ChunkCost> chunks;
    EndCosts end;
    double p2p_bytes = 0;
    // The same activation unscaled: what a chunk's output holds when its framework keeps it
    // (heldStageOutputBytes, docs/memory-model.md "Pipeline stage outputs").
    double send_bytes = 0;
    double output_bytes = 0; // the last chunk's output: 16-bit logits of the local vocabulary shard
    bool cross_node = false;
};

// The chunks' costs of `s` with the pipeline's layer split `stageLayers` (stageLayerCounts).
PipelineCosts pipelineCosts(const model::ModelDescription& model, const ParallelStrategy& s,
    const hardware::HardwareModel& hw, const std::vector<int>& stageLayers, const TimeScales& scales = {},
    LayerCostMemo* layerMemo = nullptr);

} // namespace stratex::megatron
