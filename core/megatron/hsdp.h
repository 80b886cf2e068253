// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// HSDP, hybrid sharded data parallelism (docs/hsdp.md): the ZeRO states sharded inside a group of
// data-parallel ranks (ParallelStrategy::dp_shard, times cp) and replicated across the dp /
// dp_shard groups. A gradient is reduce-scattered inside the shard group, its shard all-reduced
// across the replicas, the weights all-gathered inside the shard group:
// - Megatron-Core's --num-distributed-optimizer-instances (the distributed optimizer and
//   Megatron-FSDP; megatron/core/distributed/param_and_grad_buffer.py start_grad_sync,
//   megatron/core/parallel_state.py intra/inter partial data-parallel groups, NVIDIA/Megatron-LM
//   d98e8a64);
// - torchtitan's data_parallel_replicate_degree x data_parallel_shard_degree, fully_shard over the
//   ("dp_replicate", "fsdp") mesh (torchtitan/distributed/parallel_dims.py, pytorch/torchtitan
//   b5bcd76c; FSDP2's foreach_reduce, torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py at
//   pytorch/pytorch 8fc2039d, all-reduces the reduce-scattered shard over the replicate mesh
//   dimension on its own stream, an overlap with the next reduce-scatter not credited here).
// Internal to core/megatron.

#include <string>
#include <vector>

#include "core/hardware/hardware_model.h"
#include "core/megatron/dp_traffic.h"
#include "core/megatron/parallel_strategy.h"

namespace stratex::megatron {

// A strategy whose ZeRO states shard over fewer ranks than its data-parallel group.
inline bool isHybridSharded(const ParallelStrategy& s)
{
    return s.zero >= 1 && s.dpReplicas() > 1;
}

// The ranks a dense parameter's ZeRO states are sharded over: dp_shard x cp (Megatron's intra
// partial data-parallel group with CP; torchtitan's "fsdp" mesh dimension, dp_shard x cp), 1
// without ZeRO.
double denseShardDegree(const ParallelStrategy& s);
// The same for an expert parameter: the expert data-parallel group split into the replicas
// (parallel_state.py: intra_partial_expert_data_parallel_size = expert_dp / instances).
double expertShardDegree(const ParallelStrategy& s);

// The process groups of an HSDP strategy, in Megatron's rank order (tp-cp-ep-dp-pp): a shard
// group is dp_shard x cp consecutive data-parallel ranks (stride tp), its replicas lie
// tp x cp x dp_shard ranks apart; the expert groups likewise over the expert data-parallel ranks
// (stride ep x etp).
struct HsdpGroups {
    hardware::GroupShape dense_shard;
    hardware::GroupShape dense_replicate;
    hardware::GroupShape expert_shard;
    hardware::GroupShape expert_replicate;
};
HsdpGroups hsdpGroups(const ParallelStrategy& s);

// Whether the expert data-parallel group of (ep, etp) splits into the strategy's dp / dp_shard
// replicas (parallel_state.py asserts expert_data_parallel_size % instances == 0).
bool hsdpSplitsExperts(const ParallelStrategy& s, int ep, int etp);

// Why the strategy's dp_shard cannot run; empty when it can (or when it is not set).
std::vector<std::string> hsdpProblems(const ParallelStrategy& s);

// dpTrafficTimes() for an HSDP strategy (isHybridSharded): the same collectives as
// dp_traffic.cpp's, each reduction a reduce-scatter inside the shard group followed by the
// all-reduce of its shard across the replicas, each gather inside the shard group.
DpTraffic hsdpTrafficTimes(const ParallelStrategy& s, const hardware::HardwareModel& hw, double denseParams,
    double expertParams, int layers, double scale);

// The physical shard groups the search offers a shape (tp, cp, dp on `gpusPerNode`-GPU nodes in
// `domainGpus`-GPU NVLink domains): the data-parallel ranks of one node and of one NVLink domain,
// each kept where it divides dp and is smaller than it (ascending, no repeats). The whole
// data-parallel group (dp_shard 0) is always offered too and is not listed.
std::vector<int> hsdpShardChoices(const ParallelStrategy& shape, int gpusPerNode, int domainGpus);

// Whether the framework can shard inside a group and replicate across groups (Megatron-Core,
// Megatron-Bridge, torchtitan); DeepSpeed's ZeRO++ hpZ keeps only a secondary weight copy inside
// the node (docs/hsdp.md) and Composer's HYBRID_SHARD is not modelled.
bool frameworkHasHsdp(Framework framework);

} // namespace stratex::megatron
