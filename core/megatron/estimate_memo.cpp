// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/estimate_memo.h"

#include <algorithm>
#include <memory>
#include <utility>

namespace stratex::megatron {

namespace {

// Whether a chunk-cost entry's `key` has `s`'s pipeline chunk costs: the fields they read are
// everything but the ZeRO stage, HSDP's shard group, the schedule (its chunk count vpp stays) and
// the global batch. (A change that makes chunkCosts() or endCosts() read one of these must take it
// out of here.) `key` takes `s`'s values of those and is compared whole, so no copy of `s` is made
// for each of the search's millions of candidates (issue 22: speed).
bool sameChunkCosts(ParallelStrategy& key, const ParallelStrategy& s)
{
    key.zero = s.zero;
    key.dp_shard = s.dp_shard;
    key.schedule = s.schedule;
    key.global_batch_size = s.global_batch_size;
    return key == s;
}

// Whether `key` (a memo's key; stageStates() and dpTraffic() read no recompute field) is `s` but
// for its recompute, compared as sameChunkCosts() does.
bool sameButRecompute(ParallelStrategy& key, const ParallelStrategy& s)
{
    key.recompute = s.recompute;
    key.recompute_modules = s.recompute_modules;
    key.recompute_num_layers = s.recompute_num_layers;
    return key == s;
}

// What stageStates() reads of the chunk costs, flat.
void stageStateInputs(const PipelineCosts& costs, std::vector<double>& out)
{
    out.clear();
    out.push_back(costs.send_bytes);
    out.push_back(costs.output_bytes);
    for (const ChunkCost& c : costs.chunks) {
        out.push_back(c.dense_params);
        out.push_back(c.expert_params);
        out.push_back(c.linear_params);
    }
}

bool sameStageStateInputs(const PipelineCosts& costs, const std::vector<double>& inputs)
{
    if (inputs.size() != 2 + 3 * costs.chunks.size() || inputs[0] != costs.send_bytes || inputs[1] != costs.output_bytes)
        return false;
    std::size_t k = 2;
    for (const ChunkCost& c : costs.chunks) {
        if (inputs[k] != c.dense_params || inputs[k + 1] != c.expert_params || inputs[k + 2] != c.linear_params)
            return false;
        k += 3;
    }
    return true;
}

} // namespace

EstimateMemo::EstimateMemo()
    : entries(std::make_unique<Entries>())
{
}

EstimateMemo::~EstimateMemo() = default;

EstimateMemo::Entries::Entry& memoEntry(EstimateMemo::Entries& memo, const model::ModelDescription& model,
    const ParallelStrategy& s, const hardware::HardwareModel& hw, const TimeScales& scales)
{
    for (std::size_t k = 0; k < memo.used; ++k) {
        if (sameChunkCosts(memo.ring[k].key, s))
            return memo.ring[k];
    }
    EstimateMemo::Entries::Entry& entry = memo.ring[memo.next];
    memo.next = (memo.next + 1) % memo.ring.size();
    memo.used = std::min(memo.ring.size(), memo.used + 1);
    entry.key = s;
    entry.stage_layers = stageLayerCounts(s, model.num_layers);
    entry.costs = pipelineCosts(model, s, hw, entry.stage_layers, scales, &memo.layers);
    entry.stage_sums = stageChunkSums(entry.costs, s);
    entry.bound_microbatches = -1;
    entry.bound_valid = {};
    entry.fixed_device = {};
    entry.warmup_microbatches = -1;
    entry.warmup.clear();
    return entry;
}

double memoLowerBoundS(EstimateMemo::Entries::Entry& entry, const ParallelStrategy& s)
{
    const int m = s.microbatches();
    if (entry.bound_microbatches != m) {
        entry.bound_microbatches = m;
        entry.bound_valid = {};
    }
    const bool zbH1 = s.schedule == PipelineSchedule::ZbH1;
    double& bound = entry.bound_s[zbH1 ? 1 : 0];
    if (!entry.bound_valid[zbH1 ? 1 : 0]) {
        bound = pipelineLowerBoundS(entry.costs.chunks, s.pp, s.vpp, m, zbH1);
        entry.bound_valid[zbH1 ? 1 : 0] = true;
    }
    return bound;
}

bool findWarmupSet(EstimateMemo::Entries& memo, EstimateMemo::Entries::Entry& entry, const ParallelStrategy& s)
{
    const int m = s.microbatches();
    const int n = s.microbatchGroupSize(); // the micro-batch group N (groupedWarmupActivation)
    if (entry.warmup_microbatches == m && entry.warmup_group == n && entry.warmup.size() == std::size_t(s.pp))
        return true;
    entry.warmup_microbatches = m;
    entry.warmup_group = n;
    // Everything interleavedWarmupActivation (estimate.cpp) reads: the schedule's shape, the
    // stage output a chunk keeps and the input it aliases (pipeline_input.h; by their values),
    // and each chunk's activation and transient.
    const double sendBytes = entry.costs.send_bytes;
    std::vector<double>& key = memo.warmup_key;
    key.clear();
    key.push_back(s.pp);
    key.push_back(s.vpp);
    key.push_back(m);
    key.push_back(n);
    key.push_back(heldStageOutputBytes(s, sendBytes, false));
    key.push_back(heldStageOutputBytes(s, sendBytes, true));
    key.push_back(receivedInputAliasBytes(s, sendBytes, false));
    key.push_back(receivedInputAliasBytes(s, sendBytes, true));
    for (const ChunkCost& c : entry.costs.chunks) {
        key.push_back(c.activation_bytes);
        key.push_back(c.transient_bytes);
    }
    for (std::size_t k = 0; k < memo.warmup_used; ++k) {
        const EstimateMemo::Entries::WarmupSet& set = memo.warmup_sets[k];
        if (set.key == key) {
            entry.warmup = set.stages;
            return true;
        }
    }
    return false;
}

void keepWarmupSet(EstimateMemo::Entries& memo, const EstimateMemo::Entries::Entry& entry)
{
    EstimateMemo::Entries::WarmupSet& set = memo.warmup_sets[memo.warmup_next];
    memo.warmup_next = (memo.warmup_next + 1) % memo.warmup_sets.size();
    memo.warmup_used = std::min(memo.warmup_sets.size(), memo.warmup_used + 1);
    set.key = memo.warmup_key;
    set.stages = entry.warmup;
}

std::vector<EstimateMemo::Entries::DpEntry>& dpMemo(EstimateMemo::Entries& memo, const ParallelStrategy& s, double scale)
{
    if (!memo.dp_valid || !sameButRecompute(memo.dp_key, s) || memo.dp_scale != scale) {
        memo.dp_key = s;
        memo.dp_scale = scale;
        memo.dp_valid = true;
        memo.dp_stages.clear();
    }
    return memo.dp_stages;
}

const std::vector<StageState>& memoStageStates(EstimateMemo::Entries& memo, const model::ModelDescription& model,
    const PipelineCosts& costs, const ParallelStrategy& s, const std::vector<int>& stageLayers,
    const hardware::ClusterDescription& cluster)
{
    EstimateMemo::Entries::States& cached = memo.states;
    if (cached.valid && sameButRecompute(cached.key, s) && cached.stage_layers == stageLayers
        && sameStageStateInputs(costs, cached.inputs))
        return cached.states;
    cached.valid = true;
    cached.key = s;
    cached.stage_layers = stageLayers;
    stageStateInputs(costs, cached.inputs);
    stageStates(model, costs, s, stageLayers, cluster, cached.states);
    cached.same_as_previous.assign(cached.states.size(), 0);
    for (std::size_t i = 1; i < cached.states.size(); ++i)
        cached.same_as_previous[i] = cached.states[i] == cached.states[i - 1] ? 1 : 0;
    return cached.states;
}

} // namespace stratex::megatron
