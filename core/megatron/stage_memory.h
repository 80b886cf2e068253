// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <vector>

#include "core/hardware/cluster_description.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/model_state_memory.h"
#include "core/megatron/pipeline_costs.h"
#include "core/megatron/pipeline_input.h"

namespace stratex::megatron {

// The memory side of a pipeline's stages (docs/memory-model.md): what each stage keeps for the
// step and the simulator's input that adds the activations over the schedule.
// What one GPU of a stage holds for the whole iteration.
struct StageState {
    double dense_params = 0; // per GPU, before ZeRO sharding
    double expert_params = 0;
    double shard_params = 0; // after the data-parallel sharding of the optimizer (ZeRO >= 1)
    double linear_params = 0; // dense layers' linear weights (float8 all-gathered under torchtitan fp8)
    ModelStateMemory state;
    double workspace_mb = 0;
    // The pipelining stage objects' buffers kept for the step (pipelineStageBuffers).
    double pipeline_buffers_mb = 0;
    double merged_output_mb = 0; // the step's merged output, after the peak (PipelineStageBuffers)
    double largest_loss_request_mb = 0; // torchtitanLargestLossRequestBytes, where merged_output_mb > 0
    // Of state.gradients_mb: what the stage's chunks allocate at their first backward of a step
    // and change at their last (firstBackwardGradientBytes, lastBackwardGradientBytes), per chunk
    // in the rank's order; the ledger adds each then. step_gradients_mb: the part of
    // state.gradients_mb the ledger does not hold from the start (unsharded and sharded).
    std::vector<double> first_backward_gradients_mb;
    std::vector<double> last_backward_gradients_mb;
    double step_gradients_mb = 0;

    double allocatedMb() const { return state.totalMb() + workspace_mb + pipeline_buffers_mb; }
    bool operator==(const StageState&) const = default;
};

// Each stage's state under `s`: weights, gradients (and when they live), optimizer states,
// workspaces and the pipelining buffers.
std::vector<StageState> stageStates(const model::ModelDescription& model, const PipelineCosts& costs,
    const ParallelStrategy& s, const std::vector<int>& stageLayers, const hardware::ClusterDescription& cluster);
// The same into `states`, whose per-stage lists keep their storage: a search's memo refills one
// buffer instead of allocating 2 p + 1 vectors per candidate (issue 22: speed).
void stageStates(const model::ModelDescription& model, const PipelineCosts& costs, const ParallelStrategy& s,
    const std::vector<int>& stageLayers, const hardware::ClusterDescription& cluster, std::vector<StageState>& states);

// The pipeline with its memory, for the simulator (the ledger over the schedule).
PipelineSimulation memoryPipeline(const PipelineCosts& costs, const std::vector<StageState>& states,
    const ParallelStrategy& s, const hardware::HardwareModel& hw);

// A one-stage pipeline's activation peak without simulating it.
double singleStageActivationPeakMb(const PipelineCosts& costs);

} // namespace stratex::megatron
