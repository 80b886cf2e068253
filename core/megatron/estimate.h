// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

#include "core/model/model_description.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/pipeline_input.h"
#include "core/megatron/time_scales.h"

namespace stratex::megatron {

// Memory of one pipeline stage's GPU, each part as the breakdown shows it (MB = 1e6 bytes).
struct StageMemory {
    double weights_mb = 0; // 16-bit weights (all of them, or the ZeRO-3 shard + gathered layers)
    double gradients_mb = 0; // fp32 main gradients
    double optimizer_mb = 0; // fp32 master weights + Adam moments
    double activations_mb = 0; // in-flight micro-batches x kept activations
    double logits_mb = 0; // the LM head's fp32 logits and loss buffers (last stage)
    double reserve_mb = 0; // CUDA context, NCCL buffers, allocator cache

    double totalMb() const
    {
        return weights_mb + gradients_mb + optimizer_mb + activations_mb + logits_mb + reserve_mb;
    }
};

struct StageEstimate {
    int stage = 0;
    int layers = 0;
    double forward_ms = 0; // per micro-batch, all chunks of the stage
    double backward_ms = 0;
    double dp_comm_ms = 0; // gradient reduction + parameter gathering per iteration
    double dp_exposed_ms = 0;
    int inflight_microbatches_x100 = 0; // activations held at the peak, in micro-batches x 100
    StageMemory memory;
};

// The stratex cost model's answer for one strategy: iteration time and where it goes, memory per
// stage, throughput and utilisation.
struct Estimate {
    ParallelStrategy strategy;
    std::vector<StageEstimate> stages;
    double pipeline_ms = 0; // forward/backward of every micro-batch incl. bubbles (simulated)
    double bubble_fraction = 0; // idle share of the pipeline makespan on the busiest stage
    double dp_exposed_ms = 0;
    double optimizer_ms = 0;
    double overhead_ms = 0;
    double iteration_ms = 0;
    double tokens_per_s_per_gpu = 0;
    double model_tflops_per_gpu = 0; // 6·N_active·tokens + attention (causal), no recompute
    double mfu = 0;
    double peak_memory_mb = 0;
    double memory_limit_mb = 0;
    bool fits = true;
    std::vector<std::string> problems; // Megatron would refuse to start: nothing else is valid
    std::vector<std::string> notes;
};

// Model FLOPs of one iteration (Megatron's num_floating_point_operations, causal attention,
// MoE-aware, no recompute): the numerator of MFU.
double modelFlopsPerIteration(const model::ModelDescription& model, long long globalBatch);

struct EstimateOptions {
    // false: no simulation; pipeline_ms is a lower bound of the makespan (the first micro-batch's
    // way to each stage, that stage's work, the last micro-batch's way back), which is what a
    // search needs to order candidates before simulating the promising ones.
    bool simulate_pipeline = true;
    double memory_limit_mb = 0; // 0: the GPU's memory
    TimeScales scales; // what-if factors on the time components (robustness of a ranking)
};

// Costs `strategy` for `model` on the hardware. The pipeline's makespan comes from the simulator
// (1F1B, interleaved 1F1B or ZB-H1 over the stages' per-micro-batch times).
Estimate estimate(const model::ModelDescription& model, const ParallelStrategy& strategy, const hardware::HardwareModel& hw,
    const EstimateOptions& options = {});

// The strategy's pipeline exactly as estimate() simulates it, with each chunk's activations for the
// memory curves: the Timeline page draws a stratex plan from it.
PipelineSimulation pipelineSimulation(
    const model::ModelDescription& model, const ParallelStrategy& strategy, const hardware::HardwareModel& hw);

} // namespace stratex::megatron
