// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What EstimateMemo (estimate.h) keeps for the candidates of one search, and the look-ups the
// estimate makes in it (issue 22: speed). Each cached value is keyed by every input it reads; a
// miss computes, so an estimate never depends on the memo. Internal to core/megatron.

#include <array>
#include <cstddef>
#include <vector>

#include "core/hardware/device_memory.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/chunk_costs.h"
#include "core/megatron/dp_traffic.h"
#include "core/megatron/estimate.h"
#include "core/megatron/parallel_strategy.h"
#include "core/megatron/pipeline_costs.h"
#include "core/megatron/pipeline_input.h"
#include "core/megatron/stage_memory.h"
#include "core/megatron/time_scales.h"
#include "core/model/model_description.h"

namespace stratex::megatron {

// An interleaved stage's activations before its first backward and the transient of the last of
// those forwards (estimate.cpp interleavedWarmupActivation): the search's first pass reads it for
// each stage of each interleaved candidate.
struct WarmupActivation {
    double activation_bytes = 0;
    double transient_bytes = 0;
};

struct EstimateMemo::Entries {
    // The pipeline's chunk costs and what follows from them alone, for the candidates that differ
    // only in the ZeRO stage, HSDP's shard group, the schedule (its chunk count vpp stays) and the
    // global batch, which chunkCosts() and endCosts() do not read (sameChunkCosts).
    struct Entry {
        ParallelStrategy key;
        std::vector<int> stage_layers;
        PipelineCosts costs;
        std::vector<StageChunkSums> stage_sums; // reads pp, vpp, framework: in the key
        // pipelineLowerBoundS, which also reads the micro-batch count (the global batch) and
        // whether the schedule is ZB-H1: for bound_microbatches, [zbH1].
        int bound_microbatches = -1;
        std::array<double, 2> bound_s {};
        std::array<bool, 2> bound_valid {};
        // The device memory beside the tensors but the allocator cache (CUDA context, NCCL
        // buffers, cuBLAS workspace): the plan's communicators also read whether ZeRO shards
        // (HSDP's two groups, isHybridSharded) and dp_shard. [zero >= 1], for its dp_shard.
        struct FixedDevice {
            bool valid = false;
            int dp_shard = 0;
            hardware::DeviceMemory memory;
        };
        std::array<FixedDevice, 2> fixed_device;
        // Each stage's interleaved warm-up activation (memoWarmupActivation), which reads the
        // chunks, pp, vpp, the framework and the micro-batch count: for warmup_microbatches. It
        // was a third of the first pass's time, costed again for each ZeRO stage (issue 22 item 8).
        int warmup_microbatches = -1;
        int warmup_group = -1; // the micro-batch group N it was costed for (microbatchGroupSize)
        std::vector<WarmupActivation> warmup; // per stage; empty: not yet
    };
    std::array<Entry, 8> ring; // the search's innermost loops: recompute choices x ZeRO stages
    std::size_t used = 0;
    std::size_t next = 0;
    // The last warm-up sets by what they read (warmupKey: pp, vpp, the micro-batch count, the
    // stage output kept and the input aliased, each chunk's activation and transient), for
    // entries whose chunks hold the same activations: the expert layouts of one micro-batch size
    // and schedule, which the search visits one after the other.
    struct WarmupSet {
        std::vector<double> key;
        std::vector<WarmupActivation> stages;
    };
    std::array<WarmupSet, 16> warmup_sets;
    std::size_t warmup_used = 0;
    std::size_t warmup_next = 0;
    std::vector<double> warmup_key; // the key being looked up
    LayerCostMemo layers; // for the misses: candidates that differ in the pipeline's shape too
    // The data-parallel traffic of the last candidate's stages, for the next candidates that
    // differ only in recompute (the search's innermost loop), which dpTraffic() does not read: the
    // strategy without its recompute fields, the scale, and per stage its inputs and traffic.
    struct DpEntry {
        double dense_params = 0;
        double expert_params = 0;
        int layers = 0;
        DpTraffic traffic;
    };
    ParallelStrategy dp_key;
    double dp_scale = 0;
    bool dp_valid = false;
    std::vector<DpEntry> dp_stages;
    // The stages' states (stageStates) of the last candidate, for the next ones that differ only
    // in recompute, which stageStates() does not read: the strategy without its recompute fields,
    // the layer split and every chunk-cost input it reads (each chunk's weights, the stage
    // boundary's activation and the last chunk's output).
    struct States {
        bool valid = false;
        ParallelStrategy key;
        std::vector<int> stage_layers;
        std::vector<double> inputs; // send_bytes, output_bytes, then per chunk dense, expert, linear params
        std::vector<StageState> states;
        // Whether stage i's state equals stage i - 1's (estimate(): the first pass costs a run of
        // identical middle stages once), computed with the states.
        std::vector<char> same_as_previous;
    } states;
};

// The memo's entry for `s`'s chunk costs, costed on a miss.
EstimateMemo::Entries::Entry& memoEntry(EstimateMemo::Entries& memo, const model::ModelDescription& model,
    const ParallelStrategy& s, const hardware::HardwareModel& hw, const TimeScales& scales);

// pipelineLowerBoundS of `s` over `entry`'s chunks.
double memoLowerBoundS(EstimateMemo::Entries::Entry& entry, const ParallelStrategy& s);

// Whether `entry` holds its stages' warm-up sets for `s`, else whether a kept set with the same
// inputs was copied into it (memoWarmupActivation's parts).
bool findWarmupSet(EstimateMemo::Entries& memo, EstimateMemo::Entries::Entry& entry, const ParallelStrategy& s);
// Keeps `entry`'s freshly costed warm-up set under the key findWarmupSet() looked up.
void keepWarmupSet(EstimateMemo::Entries& memo, const EstimateMemo::Entries::Entry& entry);

// The interleaved warm-up activation of `s`'s stage `stage` over `entry`'s chunks: on the entry's
// first use for a micro-batch count, a kept set with the same inputs or compute(i) for every
// stage i (estimate() reads them all), then the entry's. The same inputs, so the same bytes.
template <class F>
WarmupActivation memoWarmupActivation(EstimateMemo::Entries& memo, EstimateMemo::Entries::Entry& entry,
    const ParallelStrategy& s, int stage, F&& compute)
{
    if (!findWarmupSet(memo, entry, s)) {
        entry.warmup.resize(std::size_t(s.pp));
        for (int i = 0; i < s.pp; ++i)
            entry.warmup[std::size_t(i)] = compute(i);
        keepWarmupSet(memo, entry);
    }
    return entry.warmup[std::size_t(stage)];
}

// The memo's data-parallel traffic for `s`, emptied when `s` differs from the last candidate in
// more than its recompute fields.
std::vector<EstimateMemo::Entries::DpEntry>& dpMemo(EstimateMemo::Entries& memo, const ParallelStrategy& s, double scale);

// stageStates() of `s`, from the memo when the last candidate's inputs were the same.
const std::vector<StageState>& memoStageStates(EstimateMemo::Entries& memo, const model::ModelDescription& model,
    const PipelineCosts& costs, const ParallelStrategy& s, const std::vector<int>& stageLayers,
    const hardware::ClusterDescription& cluster);

} // namespace stratex::megatron
