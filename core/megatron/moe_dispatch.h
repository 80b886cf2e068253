// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/hardware/hardware_model.h"
#include "core/megatron/parallel_strategy.h"
#include "core/model/model_description.h"

namespace stratex::megatron {

// Expected number of distinct groups among one token's top-k experts when `experts` experts are
// spread evenly over `groups` equal groups (EP ranks or nodes) and a balanced router picks the
// top-k uniformly without replacement: groups x (1 - C(E - E/g, k) / C(E, k)). With group-limited
// routing (`routerGroups` router groups, the token's best `routerGroupTopK` of them) and router
// groups that fill whole placement groups, a token reaches at most routerGroupTopK router groups:
// the distinct placement groups among those. docs/moe.md, "Token dispatchers".
double expectedDistinctGroups(int experts, int topK, int groups, int routerGroups = 0, int routerGroupTopK = 0);

// One pass's dispatch + combine of a MoE layer on one rank (seconds), un-overlapped, for the
// strategy's token dispatcher. `moeTokens`: the tokens this rank routes (after SP sharding,
// gathered over expert TP). docs/moe.md, "Token dispatchers".
double moeDispatchPassS(const model::ModelDescription& model, const ParallelStrategy& strategy,
    const hardware::HardwareModel& hardware, double moeTokens);

// The EP time a layer leaves exposed per pass (forward, backward).
struct EpExposure {
    double forward_s = 0;
    double backward_s = 0;
};

// A MoE layer's compute on one rank, split where the dispatcher cuts it: before the dispatch
// (attention, norms, router: "pre_dispatch") and between dispatch and combine (the experts: "mlp").
struct MoeLayerCompute {
    double pre_dispatch_forward_s = 0;
    double mlp_forward_s = 0;
    double pre_dispatch_backward_s = 0;
    double mlp_backward_s = 0;
};

// The host's time to issue each schedule node of a layer pair (seconds): the Python, autograd and
// launch work of the node's operations. The host issues the nodes in TransformerLayerSchedulePlan
// .run's order and a node's kernels cannot start before it has issued them; in the forward's
// dispatch it waits until the GPU has produced the token counts (docs/moe.md, "The host inside the
// combined 1F1B"). All zero: a host that is never behind.
struct CombinedHostIssue {
    double pre_dispatch_forward_s = 0;
    double dispatch_forward_s = 0;
    double mlp_forward_s = 0;
    double combine_forward_s = 0;
    double combine_backward_s = 0;
    double mlp_dgrad_s = 0;
    double mlp_wgrad_s = 0;
    double dispatch_backward_s = 0;
    double pre_dispatch_backward_s = 0;
};

// One layer pair of the combined 1F1B schedule: a micro-batch's forward of a MoE layer beside
// another's backward of it (seconds, on one rank).
struct CombinedLayerPass {
    double a2a_s = 0; // one dispatch or one combine
    double pre_dispatch_forward_s = 0;
    double mlp_dgrad_s = 0;
    double mlp_wgrad_s = 0; // --delay-wgrad-compute: issued after the forward's dispatch
    double mlp_forward_s = 0;
    double pre_dispatch_backward_s = 0;
    CombinedHostIssue host;
};

// The host's issue time of each node of one MoE layer pair in the combined 1F1B: Megatron-Core's
// operations per node (moe_kernels.h moeForwardNodeHostOps; backward nodes twice their forward's,
// host_overhead.h) at the eager step's host time per operation (kEagerHostUsPerKernel);
// `linearBias`: the experts' fc2 bias in the mlp node (moe_kernels.h expertFc2BiasPasses).
// `graphs`: a captured region's operations in the pre_dispatch node become one replay, and under
// FullIteration no node waits on the host (cuda_graphs.h).
CombinedHostIssue combinedHostIssue(
    double localExperts, bool fp8, bool linearBias = false, CudaGraphs graphs = CudaGraphs::None);

// The time of `layers` such pairs in a row (one model chunk's combined pass), the communication
// stream beside the compute stream with the data dependencies of TransformerLayerSchedulePlan.run
// (megatron/core/models/common/model_chunk_schedule_plan.py, d98e8a64); the compute runs
// `computeSlowdown` times slower while a dispatch or combine holds its SMs; no node starts before
// the host has issued it (pass.host), and the host waits in each forward dispatch until it starts
// (fused_a2a.py FusedDispatch.forward: "the CPU will wait for GPU's signal to arrive";
// token_dispatcher.py's "before_ep_alltoall" sync for alltoall). docs/moe.md, "EP communication
// overlap".
double combined1f1bChunkS(const CombinedLayerPass& pass, int layers, double computeSlowdown);

// --overlap-moe-expert-parallel-comm (Megatron-Core combined 1F1B): one micro-batch's forward of a
// chunk's `chunkLayers` layers runs beside another's backward of them (combined1f1bChunkS); the
// pipeline's warm-up forwards and cool-down backwards have no partner. Without the flag all of
// `passS` (dispatch + combine) is exposed in both passes. `host`: the host's issue time of each
// node (combinedHostIssue). docs/moe.md, "EP communication overlap".
EpExposure exposedEpComm(const ParallelStrategy& strategy, const hardware::HardwareModel& hardware, double passS,
    const MoeLayerCompute& compute, int chunkLayers = 1, const CombinedHostIssue& host = {});

} // namespace stratex::megatron
