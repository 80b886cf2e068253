// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A pipeline stage's data-parallel collectives, as Megatron-Core's DDP and distributed optimizer
// and FSDP2 / Megatron-FSDP issue them (docs/collectives.md): what the estimate (estimate.cpp)
// hides under the stage's compute. Internal to core/megatron.

#include "core/hardware/hardware_model.h"
#include "core/megatron/framework.h"
#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// When a framework reduces the data-parallel gradients and gathers the weights, and what gradient
// buffers a rank therefore holds (docs/collectives.md, "Gradient reduction per framework"): the
// one place the estimate's time (estimate.cpp) and the model state's memory
// (model_state_memory.cpp) read it from. A framework with other rules adds a case to
// gradientReduction().
struct GradientReduction {
    // One gradient reduction per micro-batch's backward; otherwise one per iteration, in the last
    // micro-batch's backward, over gradients accumulated unsharded.
    bool every_microbatch = false;
    // ZeRO 1-2: the weights are gathered again before every micro-batch's forward (resharded after
    // each backward); otherwise once per iteration, after the optimizer step.
    bool gather_every_microbatch = false;
    // What a rank keeps for the iteration: a full (unsharded) gradient buffer, the data-parallel
    // shard of the gradients, or both (FSDP2 under torch.distributed.pipelining).
    bool full_gradients = true;
    bool sharded_gradients = false;
    // Reduced once, but each model chunk's reducing backward waits for its own reduction at its
    // end (FSDP2's root post-backward callback under torch.distributed.pipelining): a chunk's
    // traffic hides under its own last backward, not under the other chunks' (dpExposure()).
    bool chunk_waits = false;

    int reductions(int microbatches) const { return every_microbatch ? microbatches : 1; }
};

GradientReduction gradientReduction(Framework framework, int zero, int pp);

// Bytes a gradient element is reduced in: the main gradients' dtype for Megatron-Core and
// Megatron-Bridge (2 under --grad-reduce-in-bf16), fp32 for the other frameworks (dp_traffic.cpp).
// Plain data parallelism and HSDP (hsdp.cpp) read it.
double gradientReduceBytes(const ParallelStrategy& s);

// A stage's data-parallel collectives as the frameworks issue them (docs/collectives.md).
struct DpTraffic {
    double grad_s = 0; // ZeRO 0-2: all gradient buckets, once per iteration
    double gather_total_s = 0; // ZeRO 1-2: all parameter buckets, once per iteration
    double last_bucket_s = 0; // the last gradient bucket's reduce
    double first_bucket_s = 0; // the first parameter bucket's gather
    double gather_s = 0; // ZeRO 3: one layer's all-gather
    double reduce_s = 0; // ZeRO 3: one layer's reduce-scatter
    // ZeRO 3 under FSDP2 (torchtitan): one layer's all-gather copy-out on the compute stream, the
    // gathered bytes read and written into the unsharded parameters (dp_traffic.cpp)
    double copy_out_s = 0;
    // Extra compute time per second of DP traffic running under the compute: NCCL's CTAs hold
    // SMs the compute stream's kernels lose (ctas / (SMs - ctas); docs/collectives.md, "SMs taken
    // by NCCL"). 0 where the GPU's SM count is not known.
    double compute_slowdown = 0;
};

// The compute stream's slowdown while a ring collective of `group` runs beside it:
// ctas / (SMs - ctas), 0 without an SM count (dp_traffic.cpp).
double ncclComputeSlowdown(const hardware::HardwareModel& hw, hardware::GroupShape group);

// The collectives of one stage holding denseParams and expertParams (per GPU, before sharding)
// in `layers` layers, over its dense and expert data-parallel groups, times `scale`.
DpTraffic dpTraffic(const ParallelStrategy& s, const hardware::HardwareModel& hw, hardware::GroupShape denseDp,
    hardware::GroupShape expertDp, double denseParams, double expertParams, int layers, double scale);

// A stage's place in the pipeline and its per-micro-batch compute, what its DP traffic can hide
// under (estimate.cpp).
struct DpStageTiming {
    int stage_index = 0; // i of p
    int p = 1;
    int v = 1; // model chunks per stage
    int m = 1; // micro-batches per iteration
    int layers = 1;
    double forward_s = 0; // the stage's forward of one micro-batch, all its chunks
    double backward_s = 0;
    // The simulated pipeline's makespan. Not read by dpExposure() since the frameworks' waits are
    // modelled (docs/collectives.md, "What the schedule hides"): no traffic runs through idle slots.
    double pipeline_s = 0;
};

struct DpExposure {
    double exposed_s = 0; // what waits at the end of the iteration (or between layers, ZeRO 3)
    double comm_s = 0; // all of the stage's DP traffic per iteration
};

// dpTraffic() without the compute slowdown: the collectives' times alone.
DpTraffic dpTrafficTimes(const ParallelStrategy& s, const hardware::HardwareModel& hw, hardware::GroupShape denseDp,
    hardware::GroupShape expertDp, double denseParams, double expertParams, int layers, double scale);

// How much of a stage's DP traffic is exposed, as each framework issues it (gradientReduction())
// and waits for it (docs/collectives.md, "What the schedule hides"): FSDP's per-layer gathers and
// reduce-scatters (ZeRO 3), Megatron's bucketed reduction once per iteration, each model chunk's
// from its last backward on under the rest of the schedule, or one reduction per chunk backward,
// waited for at that backward's end; plus what the hidden traffic costs the compute it runs beside
// (DpTraffic::compute_slowdown).
DpExposure dpExposure(const ParallelStrategy& s, const DpTraffic& dp, const GradientReduction& reduction,
    double dpOverlap, const DpStageTiming& t);

} // namespace stratex::megatron
