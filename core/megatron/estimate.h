// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <memory>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model_description.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/peak_explanation.h"
#include "core/megatron/pipeline_input.h"
#include "core/megatron/time_scales.h"

namespace stratex::megatron {

// Memory of one pipeline stage's GPU at its peak, each part as the breakdown shows it (MB = 1e6
// bytes; docs/memory-model.md). The first six parts are what PyTorch's allocator hands out
// (torch.cuda.max_memory_allocated); the last three are what the device shows beyond it.
struct StageMemory {
    double weights_mb = 0; // every copy of the weights the framework keeps (see model_state_memory.h)
    double gradients_mb = 0; // main gradients in the framework's dtype and layout
    double optimizer_mb = 0; // fp32 master weights + Adam moments (their shard)
    double activations_mb = 0; // saved activations + the op's transient at the ledger's peak
    double logits_mb = 0; // the LM head's logits and loss buffers (last stage), at the peak
    double workspace_mb = 0; // cuBLAS workspace (through the caching allocator)
    double allocator_cache_mb = 0; // reserved - allocated: the caching allocator's free blocks
    double cuda_context_mb = 0;
    double nccl_mb = 0; // NCCL communicator buffers of the groups the plan creates
    // allocator_cache_mb + cuda_context_mb + nccl_mb: what the device shows beyond the tensors.
    double reserve_mb = 0;
    // The parts are the optimizer step's moment, not the backward's: DeepSpeed ZeRO-3's sub-group
    // gradient copies above the backward's peak (estimate.cpp; the peak's explanation says so).
    bool optimizer_step_peak = false;

    double allocatedMb() const
    {
        return weights_mb + gradients_mb + optimizer_mb + activations_mb + logits_mb + workspace_mb;
    }
    double reservedMb() const { return allocatedMb() + allocator_cache_mb; }
    double totalMb() const { return allocatedMb() + reserve_mb; } // the device peak
};

struct StageEstimate {
    int stage = 0;
    int layers = 0;
    double forward_ms = 0; // per micro-batch, all chunks of the stage
    double backward_ms = 0;
    double dp_comm_ms = 0; // gradient reduction + parameter gathering per iteration
    double dp_exposed_ms = 0;
    int inflight_microbatches_x100 = 0; // activations held at the peak, in micro-batches x 100
    // True when the activations come from the simulated schedule's ledger (every op in order);
    // false for the warm-up formula of an unsimulated bound.
    bool memory_from_ledger = false;
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
    // Worst stage. allocated: tensors + workspaces (max_memory_allocated); device: what the GPU
    // shows (+ allocator cache, CUDA context, NCCL buffers). peak_memory_mb is the number the fit
    // check uses: the device peak.
    double allocated_peak_mb = 0;
    double device_peak_mb = 0;
    double peak_memory_mb = 0;
    double memory_limit_mb = 0;
    bool fits = true; // device_peak_mb <= memory_limit_mb
    // EstimateOptions::prune_above_ms: left at its pipeline bound (pipeline_ms), memory not costed,
    // fits false.
    bool pruned = false;
    // The worst rank's peak moment and what is alive then (EstimateOptions::explain_peak;
    // memory_ledger_explain.h): evaluate and the Search page's memory breakdown show it.
    std::optional<PeakExplanation> peak;
    std::vector<std::string> problems; // Megatron would refuse to start: nothing else is valid
    std::vector<std::string> notes;
};

// Model FLOPs of one iteration (Megatron's num_floating_point_operations, causal attention,
// MoE-aware, no recompute): the numerator of MFU.
double modelFlopsPerIteration(const model::ModelDescription& model, long long globalBatch);

// What the estimates of one search share (each worker keeps one for its whole first pass;
// estimate_memo.h holds the entries, docs/search-speed.md "What keeps it fast"): the last 8 chunk
// costs, each with its stages' sums, the pipeline's lower bound, the device memory beside the
// tensors and each stage's interleaved warm-up activation, for candidates that differ only in the
// ZeRO stage, HSDP's dp_shard, the schedule (its chunk count stays) or the global batch; the layer
// costs (chunk_costs.h LayerCostMemo), for those that differ only in the pipeline's shape, data
// parallelism, ZeRO stage, dp_shard, schedule or global batch; the stages' states and the
// data-parallel traffic, for those that differ only in recompute (issue 22: speed). Each value is
// keyed by every input it reads, so an estimate through the memo has the same bits as one without
// (tst_estimate_memo). Valid for one model, one hardware model and one set of time scales.
class EstimateMemo {
public:
    EstimateMemo();
    ~EstimateMemo();
    EstimateMemo(const EstimateMemo&) = delete;
    EstimateMemo& operator=(const EstimateMemo&) = delete;

    struct Entries;
    std::unique_ptr<Entries> entries;
};

struct EstimateOptions {
    // false: no simulation; pipeline_ms is a lower bound of the makespan (the first micro-batch's
    // way to each stage, that stage's work, the last micro-batch's way back), which is what a
    // search needs to order candidates before simulating the promising ones.
    bool simulate_pipeline = true;
    double memory_limit_mb = 0; // 0: the GPU's memory
    TimeScales scales; // what-if factors on the time components (robustness of a ranking)
    // false: only what the search's first pass reads (time, memory, fits): no stages, no notes and
    // no model FLOPs or MFU, which cost more than the rest for millions of candidates (issue 22: speed).
    bool full_report = true;
    EstimateMemo* memo = nullptr; // optional; same model and hardware model for every use
    // Explain the worst rank's peak (Estimate::peak): simulates the pipeline once more with the
    // peak's moment recorded; off for searches' candidates.
    bool explain_peak = false;
    // PYTORCH_CUDA_ALLOC_CONF's expandable_segments as the run set it; unset: what the framework's
    // launcher sets (launcherExpandableSegments, model_state_memory.h).
    std::optional<bool> expandable_segments;
    // With simulate_pipeline and full_report false (the search's first pass): a candidate over
    // memory_limit_mb is returned at the first stage over it, untimed, its peaks only a lower
    // bound of its peak (fits false all the same).
    bool stop_over_memory = false;
    // With simulate_pipeline and full_report false (the search's first pass): a candidate whose
    // pipeline lower bound plus the fixed overhead is above this is returned at once, `pruned`,
    // before its memory and data-parallel traffic are costed. Its iteration time is no less, so
    // the search, given a threshold no plan it keeps can come above, never simulates it
    // (strategy_search.cpp, the sampled threshold; issue 22 item 8: speed).
    double prune_above_ms = std::numeric_limits<double>::infinity();
};

// Costs `strategy` for `model` on the hardware. The pipeline's makespan comes from the simulator
// (1F1B, interleaved 1F1B or ZB-H1 over the stages' per-micro-batch times).
Estimate estimate(const model::ModelDescription& model, const ParallelStrategy& strategy, const hardware::HardwareModel& hw,
    const EstimateOptions& options = {});

// The strategy's pipeline exactly as estimate() simulates it, with each chunk's activations and each
// stage's model state: the Timeline page draws a stratex plan from it, and its memory curves are
// the estimate's allocated-memory ledger (each stage's maximum is that stage's allocatedMb()).
PipelineSimulation pipelineSimulation(
    const model::ModelDescription& model, const ParallelStrategy& strategy, const hardware::HardwareModel& hw);

} // namespace stratex::megatron
