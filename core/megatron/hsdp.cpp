// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/hsdp.h"

#include <algorithm>
#include <cmath>

namespace stratex::megatron {

namespace {

std::string str(long long value)
{
    return std::to_string(value);
}

} // namespace

double denseShardDegree(const ParallelStrategy& s)
{
    return s.zero >= 1 ? double(s.dpShard()) * s.cp : 1.0;
}

double expertShardDegree(const ParallelStrategy& s)
{
    return s.zero >= 1 ? double(std::max(1, s.expertDp() / s.dpReplicas())) : 1.0;
}

HsdpGroups hsdpGroups(const ParallelStrategy& s)
{
    // parallel_state.py (NVIDIA/Megatron-LM d98e8a64): the intra partial data-parallel group with
    // CP is ranks_with_cp[i * size : (i + 1) * size] of the dp-cp group (CP inner, stride tp); the
    // inter-instance group joins the ranks with the same place in each instance. The expert data-
    // parallel ranks split the same way (create_hierarchical_groups [intra, instances]).
    const int replicas = s.dpReplicas();
    const int denseShard = s.dpShard() * s.cp;
    const int expertShard = std::max(1, s.expertDp() / replicas);
    HsdpGroups g;
    g.dense_shard = { denseShard, s.tp };
    g.dense_replicate = { replicas, s.tp * denseShard };
    g.expert_shard = { expertShard, s.ep * s.etp };
    g.expert_replicate = { replicas, s.ep * s.etp * expertShard };
    return g;
}

bool hsdpSplitsExperts(const ParallelStrategy& s, int ep, int etp)
{
    // parallel_state.py asserts expert_data_parallel_size % num_distributed_optimizer_instances == 0.
    const long long experts = static_cast<long long>(ep) * etp;
    if (experts <= 1)
        return true;
    const long long dense = static_cast<long long>(s.tp) * s.cp * s.dp;
    return dense % experts == 0 && (dense / experts) % s.dpReplicas() == 0;
}

std::vector<std::string> hsdpProblems(const ParallelStrategy& s)
{
    std::vector<std::string> problems;
    if (s.dp_shard == 0 || s.dp_shard == s.dp)
        return problems;
    if (s.dp_shard < 0 || s.dp_shard > s.dp || s.dp % s.dp_shard != 0) {
        problems.push_back("dp_shard " + str(s.dp_shard) + " must divide dp " + str(s.dp)
            + " (the shard group's data-parallel ranks; dp / dp_shard replicas)");
        return problems;
    }
    if (s.zero < 1)
        problems.push_back("dp_shard " + str(s.dp_shard) + " < dp " + str(s.dp)
            + " (HSDP) needs ZeRO >= 1: without it nothing is sharded");
    if (!frameworkHasHsdp(s.framework))
        problems.push_back("dp_shard " + str(s.dp_shard) + " < dp " + str(s.dp) + ": "
            + std::string(frameworkName(s.framework))
            + " has no hybrid sharding the model covers (Megatron-Core, Megatron-Bridge and torchtitan do)");
    if (!hsdpSplitsExperts(s, s.ep, s.etp))
        problems.push_back("dp_shard " + str(s.dp_shard) + ": the expert data-parallel group (" + str(s.expertDp())
            + ") does not divide into the dp / dp_shard = " + str(s.dpReplicas()) + " replicas");
    return problems;
}

DpTraffic hsdpTrafficTimes(const ParallelStrategy& s, const hardware::HardwareModel& hw, double denseParams,
    double expertParams, int layers, double scale)
{
    const HsdpGroups g = hsdpGroups(s);
    // A reduction of `bytes` (gradients in gradientReduceBytes(): Megatron's grad buffer dtype,
    // fp32 for torchtitan's mixed_precision_reduce) over a shard group and its replicas: the
    // reduce-scatter inside the group, then the all-reduce of the shard across the replicas
    // (Megatron: start_grad_sync's second coalescing manager over the inter-instance group, on the
    // same communication stream; FSDP2: foreach_reduce's all_reduce over the replicate dimension).
    auto reduce = [&hw](double bytes, hardware::GroupShape shard, hardware::GroupShape replicate) {
        return hw.reduceScatterS(bytes, shard) + hw.allReduceS(bytes / std::max(1, shard.size), replicate);
    };
    const double gradBytes = gradientReduceBytes(s);
    DpTraffic t;
    if (s.zero == 3) {
        const int L = std::max(1, layers);
        t.gather_s = scale
            * (hw.allGatherS(2 * denseParams / L, g.dense_shard) + hw.allGatherS(2 * expertParams / L, g.expert_shard));
        t.reduce_s = scale
            * (reduce(gradBytes * denseParams / L, g.dense_shard, g.dense_replicate)
                + reduce(gradBytes * expertParams / L, g.expert_shard, g.expert_replicate));
        return t;
    }
    // Megatron's buckets as dp_traffic.cpp counts them: the bucket size follows the whole
    // data-parallel group (distributed_data_parallel.py: max(40e6, 1e6 x dp_group.size())).
    auto buckets = [&s](double params, int dpSize) {
        if (!s.overlap_grad_reduce || params <= 0)
            return 1.0;
        return std::max(1.0, std::ceil(params / std::max(40e6, 1e6 * dpSize)));
    };
    const double denseBuckets = buckets(denseParams, s.dp * s.cp);
    const double expertBuckets = buckets(expertParams, s.expertDp());
    const double denseGrad
        = denseBuckets * reduce(gradBytes * denseParams / denseBuckets, g.dense_shard, g.dense_replicate);
    const double expertGrad
        = expertBuckets * reduce(gradBytes * expertParams / expertBuckets, g.expert_shard, g.expert_replicate);
    t.grad_s = scale * (denseGrad + expertGrad);
    t.last_bucket_s = scale * (expertParams > 0 ? expertGrad / expertBuckets : denseGrad / denseBuckets);
    const double denseGather = denseBuckets * hw.allGatherS(2 * denseParams / denseBuckets, g.dense_shard);
    const double expertGather = expertBuckets * hw.allGatherS(2 * expertParams / expertBuckets, g.expert_shard);
    t.gather_total_s = scale * (denseGather + expertGather);
    t.first_bucket_s = scale * denseGather / denseBuckets;
    return t;
}

std::vector<int> hsdpShardChoices(const ParallelStrategy& shape, int gpusPerNode, int domainGpus)
{
    std::vector<int> out;
    // A shard group of d data-parallel ranks spans tp x cp x d consecutive GPUs.
    const long long perShard = static_cast<long long>(shape.tp) * shape.cp;
    for (const int gpus : { gpusPerNode, domainGpus }) {
        if (gpus <= 0 || gpus % perShard != 0)
            continue;
        const long long d = gpus / perShard;
        if (d >= 1 && d * shape.cp > 1 && d < shape.dp && shape.dp % d == 0 && std::ranges::find(out, int(d)) == out.end())
            out.push_back(int(d));
    }
    std::ranges::sort(out);
    return out;
}

bool frameworkHasHsdp(Framework framework)
{
    return framework == Framework::MegatronCore || framework == Framework::MegatronBridge
        || framework == Framework::Torchtitan;
}

} // namespace stratex::megatron
