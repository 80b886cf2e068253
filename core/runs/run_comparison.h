// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A measured run against Stratex's prediction for the same model, strategy and cluster:
// iteration time, throughput, memory per pipeline stage and, where a trace or per-rank timers
// measured them, each stage's forward, backward and communication time per iteration.

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/megatron/estimate.h"
#include "core/hardware/hardware_model.h"
#include "core/runs/measured_run.h"

namespace stratex::runs {

struct ComparedValue {
    std::optional<double> predicted;
    std::optional<double> measured;
    // predicted / measured - 1: > 0 when Stratex predicts more (time, memory, throughput) than was measured.
    std::optional<double> error() const;
};

struct StageComparison {
    int stage = 0;
    std::vector<int> memory_ranks; // ranks whose memory reports fell in this stage
    std::vector<int> traced_ranks; // ranks traced in this stage
    // Predicted total against the allocator's max reserved (MB = 1e6 bytes): what the device held for
    // PyTorch; CUDA context and NCCL buffers, in the prediction's reserve, are outside it.
    ComparedValue memory_mb;
    std::optional<double> measured_max_allocated_mb;
    // Per iteration: predicted forward/backward of all micro-batches (TP/CP/EP communication
    // included, as in the measured kernels of those phases), DP communication.
    ComparedValue forward_ms;
    ComparedValue backward_ms;
    ComparedValue dp_comm_ms;
    std::optional<double> measured_pp_comm_ms;
    std::optional<double> measured_exposed_comm_ms;
    std::optional<double> measured_other_ms;
    std::optional<double> measured_span_ms;
    std::string times_from; // "chrome-trace", "megatron timers (all ranks)" or ""
};

struct TimerComparison {
    std::string name;
    double measured_min_ms = 0;
    double measured_max_ms = 0;
    std::optional<double> predicted_min_ms; // forward-compute / backward-compute: over the stages
    std::optional<double> predicted_max_ms;
};

struct RunComparison {
    MeasuredRun run;
    model::ModelDescription model;
    megatron::ParallelStrategy strategy;
    hardware::ClusterDescription cluster;
    megatron::Estimate estimate;
    ComparedValue iteration_ms;
    ComparedValue tokens_per_s_per_gpu;
    ComparedValue tflops_per_gpu; // both in Stratex's convention (causal attention, no recompute)
    ComparedValue peak_memory_mb;
    std::vector<StageComparison> stages;
    std::vector<TimerComparison> timers;
    std::vector<std::string> notes;
};

// What compare-run is told about the cluster: logs and traces do not say it.
struct ClusterChoice {
    std::optional<std::string> gpu; // a GPU preset name
    std::optional<int> gpus_per_node;
};

// The cluster of the run: a record's, else the flags'. Throws stratex::Error naming what is
// missing (the GPU model, GPUs per node, the world size) and never guesses it.
hardware::ClusterDescription resolveCluster(const MeasuredRun& run, const ClusterChoice& choice);

// Throws stratex::Error listing the Megatron arguments the run's files did not give.
void requireCostable(const MeasuredRun& run);

RunComparison compareRun(const MeasuredRun& run, const hardware::ClusterDescription& cluster, const hardware::Efficiency& efficiency);

// The comparison with stable keys (README "Check the model against your cluster").
nlohmann::ordered_json comparisonJson(const RunComparison& comparison);

// The GPU preset a trace's device name stands for ("NVIDIA A100-SXM4-80GB" -> "a100-80gb"), or "".
std::string gpuPresetForDeviceName(std::string_view deviceName);

} // namespace stratex::runs
