// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/moe_dispatch.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <vector>

#include "core/hardware/kernel_shapes.h"
#include "core/megatron/host_overhead.h"
#include "core/megatron/moe_kernels.h"

namespace stratex::megatron {

namespace {

constexpr double kBytes = 2; // bf16 tokens are dispatched and combined (fused_a2a.py, token_dispatcher.py)

// C(n - m, k) / C(n, k): the chance that k picks without replacement from n miss a set of m.
double missProbability(double n, double m, int k)
{
    double p = 1;
    for (int i = 0; i < k; ++i) {
        if (n - m - i <= 0)
            return 0;
        p *= (n - m - i) / (n - i);
    }
    return p;
}

// DeepEP's SMs for the normal (training) kernels: Megatron-Core's historical default of 20
// (transformer_config.py moe_deepep_num_sms / moe_flex_dispatcher_num_sms, d98e8a64; fused_a2a.py
// Buffer.set_num_sms). While they run beside the partner micro-batch's compute, that compute has
// the other SMs only.
constexpr int kDeepEpSms = 20;

// NCCL's all-to-all (grouped send/recv) runs one CTA per p2p channel, each on an SM:
// p2pnChannels = pow2Up(min(nChannels, NCCL_MAX_P2P_NCHANNELS)) (src/graph/paths.cc
// ncclTopoComputeP2pChannels, NVIDIA/nccl 5067397c). On Hopper DGX nodes NCCL's init logs show 16:
// "16 coll channels, 0 nvls channels, 16 p2p channels" on 8 H800 (NVIDIA/nccl issue 892), 16
// channels on 2 x 8 H100 (NVIDIA/nccl issue 1538). Taken for every GPU preset (not read for others).
constexpr int kNcclP2pSms = 16;

} // namespace

double expectedDistinctGroups(int experts, int topK, int groups, int routerGroups, int routerGroupTopK)
{
    if (groups <= 1 || experts <= 0 || topK <= 0)
        return std::max(0, std::min(groups, 1));
    const int k = std::min(topK, experts);
    if (routerGroups > 0 && routerGroupTopK > 0 && routerGroups % groups == 0) {
        // Whole router groups per placement group: the token's routerGroupTopK router groups
        // (each gets at least one of the top-k: groups are ranked by their best experts' scores,
        // Megatron moe_utils.py group_limited_topk) fall on distinct placement groups with the
        // same miss probability, router groups now the units.
        const int perGroup = routerGroups / groups;
        return groups * (1 - missProbability(routerGroups, perGroup, std::min(routerGroupTopK, routerGroups)));
    }
    const double perGroup = double(experts) / groups;
    return groups * (1 - missProbability(experts, perGroup, k));
}

double moeDispatchPassS(const model::ModelDescription& model, const ParallelStrategy& s,
    const hardware::HardwareModel& hw, double moeTokens)
{
    if (!model.moe || s.ep <= 1)
        return 0;
    const model::MoeDescription& moe = *model.moe;
    const double h = model.hidden_size;
    const hardware::GroupShape group { s.ep, s.etp };
    const double tokenBytes = kBytes * moeTokens * h;
    switch (s.moe_token_dispatcher) {
    case MoeDispatcher::AllGather:
        // MoEAllGatherTokenDispatcher: every rank gathers the EP group's tokens (all of them, not
        // top-k copies), computes its local experts, and reduce-scatters the outputs back.
        return hw.allGatherS(tokenBytes * s.ep, group) + hw.reduceScatterS(tokenBytes * s.ep, group);
    case MoeDispatcher::AllToAll:
        // MoEAlltoAllTokenDispatcher: the permuted token-expert pairs (top-k copies of a token)
        // cross one all-to-all out (dispatch) and one back (combine).
        return 2 * hw.allToAllS(tokenBytes * moe.top_k, group);
    case MoeDispatcher::Flex: {
        // DeepEP's normal kernels (deepseek-ai/DeepEP README, "Normal kernels with NVLink and RDMA
        // forwarding"; Megatron fused_a2a.py): a token goes once to each node holding one of its
        // experts, over RDMA to the GPU of the same rail, which forwards it over NVLink to the
        // node's GPUs that hold its experts, once per GPU (is_token_in_rank). The combine returns
        // the same bytes reduced. DeepEP's table (H800, 50 GB/s CX7 per GPU) reaches 43-58 GB/s
        // of deduplicated RDMA traffic per GPU: the NIC's line rate, as the collective model's
        // NIC figure gives it.
        const hardware::GroupPlacement place = hw.collectives().placement(group);
        const int nodes = place.nodes;
        const double ranksPerNode = place.ranks_per_node;
        const double distinctRanks = expectedDistinctGroups(moe.num_experts, moe.top_k, s.ep);
        const double distinctNodes
            = expectedDistinctGroups(moe.num_experts, moe.top_k, nodes, moe.num_groups, moe.group_top_k);
        const double remoteNodes = nodes > 1 ? distinctNodes * (nodes - 1) / nodes : 0.0;
        // Copies that end on a GPU other than the one they arrive at (own node: every other GPU;
        // a remote node: all but the rail GPU): (ranksPerNode - 1) / ranksPerNode of them.
        const double nvlinkCopies = distinctRanks * (ranksPerNode - 1) / ranksPerNode;
        return 2 * hw.splitAllToAllS(tokenBytes * nvlinkCopies, tokenBytes * remoteNodes, group);
    }
    }
    return 0;
}

CombinedHostIssue combinedHostIssue(double localExperts, bool fp8, bool linearBias, CudaGraphs graphs)
{
    if (graphs == CudaGraphs::FullIteration)
        return {};
    // Each node's operations at the eager step's host time per operation (host_overhead.h,
    // measured on an H200); a backward node issues twice its forward's (host_overhead.h's
    // layerForwardKernels convention), the experts' split evenly between the data gradients and
    // --delay-wgrad-compute's weight gradients.
    const MoeForwardNodeOps ops = moeForwardNodeHostOps(localExperts, fp8, linearBias);
    // The captured regions all lie in pre_dispatch (moe_kernels.h moeForwardHostRegions).
    const LayerHostOps forward = moeForwardHostRegions(localExperts, fp8, linearBias);
    const LayerHostOps backward = moeBackwardHostRegions(localExperts, fp8, linearBias);
    const int preDispatchForward = ops.pre_dispatch - (forward.total() - issuedHostOps(graphs, forward, true));
    const int preDispatchBackward = 2 * ops.pre_dispatch - (backward.total() - issuedHostOps(graphs, backward, true));
    const double perOp = kEagerHostUsPerKernel * 1e-6;
    CombinedHostIssue h;
    h.pre_dispatch_forward_s = preDispatchForward * perOp;
    h.dispatch_forward_s = ops.dispatch * perOp;
    h.mlp_forward_s = ops.mlp * perOp;
    h.combine_forward_s = ops.combine * perOp;
    h.combine_backward_s = 2 * ops.combine * perOp;
    h.mlp_dgrad_s = ops.mlp * perOp;
    h.mlp_wgrad_s = ops.mlp * perOp;
    h.dispatch_backward_s = 2 * ops.dispatch * perOp;
    h.pre_dispatch_backward_s = preDispatchBackward * perOp;
    return h;
}

double combined1f1bChunkS(const CombinedLayerPass& pass, int layers, double computeSlowdown)
{
    // Two CUDA streams, each running its operations in issue order; an operation starts when its
    // stream is free and the operations it consumes have finished. Per layer pair, in
    // TransformerLayerSchedulePlan.run's issue order (model_chunk_schedule_plan.py, d98e8a64):
    //   communication: combine (b), dispatch (f), dispatch (b), combine (f)
    //   compute:       pre_dispatch (f), mlp dgrad (b), mlp wgrad (b; --delay-wgrad-compute's
    //                  backward_dw), mlp (f), pre_dispatch (b)
    // combine (b) takes the gradient pre_dispatch (b) of the previous pair produced; pre_dispatch
    // (f) the output of the previous pair's combine (f); the mlp (b) the combine (b)'s output;
    // dispatch (f) the router's output; dispatch (b) the dgrad's; mlp (f) the dispatched tokens;
    // combine (f) the mlp (f)'s output; pre_dispatch (b) the dispatch (b)'s. While a dispatch or
    // combine runs, the compute has the SMs it leaves: it progresses `computeSlowdown` times slower.
    //
    // The host issues the nine nodes one after another in run()'s order: combine (b), pre_dispatch
    // (f), mlp dgrad, dispatch (f), mlp wgrad, dispatch (b), mlp (f), combine (f), pre_dispatch (b).
    // A node starts no earlier than the host has issued it, and the forward's dispatch holds the
    // host until it starts: DeepEP's dispatch waits on the CPU for the receive counts (Megatron
    // fused_a2a.py FusedDispatch.forward, "the CPU will wait for GPU's signal to arrive", d98e8a64),
    // the alltoall dispatcher synchronises on the counts' device-to-host copy in token_dispatch
    // ("before_ep_alltoall", token_dispatcher.py). The wgrad, the backward's dispatch, the
    // forward's experts and combine and pre_dispatch (b) are issued only after that.
    enum Comm { CombineB, DispatchF, DispatchB, CombineF, CommOps };
    enum Comp { PreF, MlpDgrad, MlpWgrad, MlpF, PreB, CompOps };
    const int n = std::max(1, layers);
    const double commLength[CommOps] = { pass.a2a_s, pass.a2a_s, pass.a2a_s, pass.a2a_s };
    const double compLength[CompOps]
        = { pass.pre_dispatch_forward_s, pass.mlp_dgrad_s, pass.mlp_wgrad_s, pass.mlp_forward_s, pass.pre_dispatch_backward_s };
    // The host's issue order: (is a communication node, its index in its stream's pair, host time).
    struct Issue {
        bool comm;
        int op;
        double host_s;
    };
    const CombinedHostIssue& h = pass.host;
    const Issue issueOrder[] = { { true, CombineB, h.combine_backward_s }, { false, PreF, h.pre_dispatch_forward_s },
        { false, MlpDgrad, h.mlp_dgrad_s }, { true, DispatchF, h.dispatch_forward_s }, { false, MlpWgrad, h.mlp_wgrad_s },
        { true, DispatchB, h.dispatch_backward_s }, { false, MlpF, h.mlp_forward_s }, { true, CombineF, h.combine_forward_s },
        { false, PreB, h.pre_dispatch_backward_s } };
    constexpr int kIssuesPerLayer = int(std::size(issueOrder));
    std::vector<double> commDone(std::size_t(n) * CommOps, -1);
    std::vector<double> compDone(std::size_t(n) * CompOps, -1);
    std::vector<double> commIssued(std::size_t(n) * CommOps, -1);
    std::vector<double> compIssued(std::size_t(n) * CompOps, -1);
    std::vector<double> commStarted(std::size_t(n) * CommOps, -1);
    const auto finished = [](const std::vector<double>& done, int index) { return index < 0 || done[std::size_t(index)] >= 0; };
    // The host: the next node it issues, and when it is free to.
    int hostNext = 0;
    double hostTime = 0;
    const auto advanceHost = [&] {
        while (hostNext < n * kIssuesPerLayer) {
            const int layer = hostNext / kIssuesPerLayer;
            const Issue& issue = issueOrder[hostNext % kIssuesPerLayer];
            if (hostNext % kIssuesPerLayer > 3) { // after this layer's forward dispatch
                const double started = commStarted[std::size_t(layer * CommOps + DispatchF)];
                if (started < 0)
                    return; // the host waits in the dispatch
                hostTime = std::max(hostTime, started);
            }
            hostTime += issue.host_s;
            (issue.comm ? commIssued : compIssued)[std::size_t(layer * (issue.comm ? int(CommOps) : int(CompOps)) + issue.op)] = hostTime;
            ++hostNext;
        }
    };
    // What each operation waits for on the other stream (-1: nothing).
    const auto commReady = [&](int i) {
        const int layer = i / CommOps;
        switch (i % CommOps) {
        case CombineB: return finished(compDone, layer > 0 ? (layer - 1) * CompOps + PreB : -1);
        case DispatchF: return finished(compDone, layer * CompOps + PreF);
        case DispatchB: return finished(compDone, layer * CompOps + MlpDgrad);
        default: return finished(compDone, layer * CompOps + MlpF);
        }
    };
    const auto compReady = [&](int i) {
        const int layer = i / CompOps;
        switch (i % CompOps) {
        case PreF: return finished(commDone, layer > 0 ? (layer - 1) * CommOps + CombineF : -1);
        case MlpDgrad: return finished(commDone, layer * CommOps + CombineB);
        case MlpWgrad: return true;
        case MlpF: return finished(commDone, layer * CommOps + DispatchF);
        default: return finished(commDone, layer * CommOps + DispatchB);
        }
    };
    constexpr double kNever = std::numeric_limits<double>::infinity();
    // When the host has issued node `i` of a stream (kNever while the host has not reached it).
    const auto issuedAt = [](const std::vector<double>& issued, int i) {
        const double t = issued[std::size_t(i)];
        return t < 0 ? kNever : t;
    };
    int comm = 0;
    int comp = 0;
    double commLeft = commLength[0];
    double compLeft = compLength[0];
    double now = 0;
    const int commEnd = n * CommOps;
    const int compEnd = n * CompOps;
    while (comm < commEnd || comp < compEnd) {
        advanceHost();
        const double commIssue = comm < commEnd ? issuedAt(commIssued, comm) : kNever;
        const double compIssue = comp < compEnd ? issuedAt(compIssued, comp) : kNever;
        const bool commRuns = comm < commEnd && commIssue <= now && commReady(comm);
        const bool compRuns = comp < compEnd && compIssue <= now && compReady(comp);
        if (commRuns && commStarted[std::size_t(comm)] < 0) {
            commStarted[std::size_t(comm)] = now;
            if (comm % CommOps == DispatchF)
                continue; // the host resumes: it may issue nodes that start now
        }
        // The next node the host issues that a stream is waiting for.
        double issueStep = kNever;
        if (comm < commEnd && commIssue > now && commReady(comm))
            issueStep = std::min(issueStep, commIssue - now);
        if (comp < compEnd && compIssue > now && compReady(comp))
            issueStep = std::min(issueStep, compIssue - now);
        if (!commRuns && !compRuns) {
            if (issueStep == kNever)
                break; // cannot happen: every wait is on an earlier operation or on the host
            now += issueStep;
            continue;
        }
        const double compRate = compRuns ? (commRuns && commLeft > 0 ? 1 / computeSlowdown : 1.0) : 0.0;
        const double commStep = commRuns ? commLeft : kNever;
        const double compStep = compRuns ? compLeft / compRate : kNever;
        const double step = std::min({ commStep, compStep, issueStep });
        now += step;
        if (commRuns)
            commLeft = step == commStep ? 0.0 : commLeft - step;
        if (compRuns)
            compLeft = step == compStep ? 0.0 : compLeft - step * compRate;
        if (commRuns && commLeft <= 0) {
            commDone[std::size_t(comm)] = now;
            if (++comm < commEnd)
                commLeft = commLength[comm % CommOps];
        }
        if (compRuns && compLeft <= 0) {
            compDone[std::size_t(comp)] = now;
            if (++comp < compEnd)
                compLeft = compLength[comp % CompOps];
        }
    }
    return now;
}

EpExposure exposedEpComm(const ParallelStrategy& s, const hardware::HardwareModel& hw, double passS,
    const MoeLayerCompute& c, int chunkLayers, const CombinedHostIssue& host)
{
    if (!s.moe_ep_comm_overlap || !(passS > 0))
        return { passS, passS };
    // The pipeline's chunk passes that have a partner: Megatron's interleaved schedule runs
    // (pp - rank - 1) x 2 + (vpp - 1) x pp warm-up forwards on rank `rank` (schedules.py
    // get_pp_rank_microbatches, microbatch_group_size_per_vp_stage = pp), pp - 1 + (vpp - 1) x pp
    // over the ranks on average, and as many cool-down backwards; with the overlap one more of each
    // ("we schedule one extra micro-batch forward step before the 1f1b stages", schedules.py
    // get_pp_rank_microbatches, `if overlap_moe_expert_parallel_comm: num_warmup_microbatches + 1`,
    // d98e8a64; Megatron's overlap needs a virtual pipeline when pp > 1). Without a pipeline (pp 1)
    // the first forward and the last backward are alone.
    const double chunkPasses = double(std::max(1, s.microbatches())) * std::max(1, s.vpp);
    const double alone = s.pp > 1 ? (s.pp - 1) + double(s.vpp - 1) * s.pp + 1 : 1.0;
    const double paired = std::clamp(1 - alone / chunkPasses, 0.0, 1.0);
    // A paired chunk runs its layers' forwards beside another micro-batch's backwards of the same
    // layers (combined1f1bChunkS): what the chunk takes beyond its compute is exposed. DeepEP's
    // kernels (flex) or NCCL's all-to-all hold SMs while they run.
    const int sms = hardware::presetSmCount(hw.cluster().gpu.name);
    const int commSms = s.moe_token_dispatcher == MoeDispatcher::Flex ? kDeepEpSms : kNcclP2pSms;
    const double slow = sms > commSms ? double(sms) / (sms - commSms) : 1.0;
    CombinedLayerPass pass;
    pass.a2a_s = 0.5 * passS; // one dispatch or one combine
    pass.pre_dispatch_forward_s = c.pre_dispatch_forward_s;
    pass.pre_dispatch_backward_s = c.pre_dispatch_backward_s;
    pass.mlp_forward_s = c.mlp_forward_s;
    // The experts' backward: half data gradients, half weight gradients (twice the forward's GEMMs).
    pass.mlp_dgrad_s = 0.5 * c.mlp_backward_s;
    pass.mlp_wgrad_s = 0.5 * c.mlp_backward_s;
    pass.host = host;
    const int layers = std::max(1, chunkLayers);
    const double compute = c.pre_dispatch_forward_s + c.mlp_forward_s + c.pre_dispatch_backward_s + c.mlp_backward_s;
    const double pairExposed = std::max(0.0, combined1f1bChunkS(pass, layers, slow) / layers - compute);
    const double perPass = paired * 0.5 * pairExposed + (1 - paired) * passS;
    return { perPass, perPass };
}

} // namespace stratex::megatron
