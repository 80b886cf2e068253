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

// What the estimate sums over one stage's chunks (chunk j of stage i at j * pp + i), in chunk order:
// per micro-batch times and kept activations, and the weights the stage holds. Reads the strategy's
// pp, vpp and framework only (heldStageOutputBytes, receivedInputAliasBytes), so a search's memo
// keeps them with the chunk costs (issue 22: speed).
struct StageChunkSums {
    double dense_params = 0;
    double expert_params = 0;
    double activation_bytes = 0; // + the held stage output, - the aliased received input
    double transient_bytes = 0; // the largest of its chunks'
    double forward_s = 0;
    double backward_s = 0;
    bool operator==(const StageChunkSums&) const = default;
};
std::vector<StageChunkSums> stageChunkSums(const PipelineCosts& costs, const ParallelStrategy& s);

// A lower bound of the simulated makespan of `pp` stages of `vpp` chunks each over `microbatches`:
// stage i starts when the first micro-batch's forward of the first model chunk has crossed stages
// 0..i-1, then does all its own work, and after its last op the last micro-batch's backward of
// the first chunk still has to cross stages i-1..0 (with ZB-H1, `zbH1`, the weight-gradient halves
// may fill that tail, so it is left out).
double pipelineLowerBoundS(const std::vector<ChunkCost>& chunks, int pp, int vpp, int microbatches, bool zbH1);

} // namespace stratex::megatron
