// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/strategy_search_space.h"
#include "core/megatron/hsdp.h"
#include "core/megatron/megatron_releases.h"

#include <algorithm>
#include <memory>
#include <type_traits>

#include "core/common/parallel_for.h"
#include "core/hardware/hardware_model.h"
#include "core/megatron/cp_comm.h"
#include "core/megatron/layer_cost.h"

namespace stratex::megatron {

namespace {

std::vector<int> divisorsOf(long long n, long long limit)
{
    std::vector<int> out;
    for (long long d = 1; d <= n && d <= limit; ++d) {
        if (n % d == 0)
            out.push_back(int(d));
    }
    return out;
}

long long limitOr(int limit, long long fallback)
{
    return limit > 0 ? limit : fallback;
}


// Chunk counts for the interleaved schedule: those that split the busiest stage's layers evenly.
std::vector<int> chunkCountsFor(const ParallelStrategy& shape, int layers, int maxVpp)
{
    const std::vector<int> counts = stageLayerCounts(shape, layers);
    const int busiest = *std::ranges::max_element(counts);
    std::vector<int> out;
    for (int v = 2; v <= std::min(maxVpp, busiest); ++v) {
        if (busiest % v == 0)
            out.push_back(v);
    }
    return out;
}

// CP exchange kinds: the ring always; Ulysses when asked and each TP rank's query and key/value
// heads divide over the CP ranks (Transformer Engine's all-to-all attention requires it). With
// Megatron-Core and Megatron-Bridge (Transformer Engine's attention: --cp-comm-type) the K/V
// exchange may also be all_gather or, with Ulysses asked, the hierarchical a2a+p2p where its a2a
// level is neither 1 nor cp (else it is the ring or Ulysses itself; cp_comm.h); torchtitan has
// its ring only. Those three differ only in a layer's CP exchange and its kernels (the same
// memory), which scale alike with the micro-batch: of them the search keeps the one whose layer
// costs least at micro-batch 1 (docs/context-parallel.md), not three near-twins per shape.
std::vector<CpCommType> cpCommTypesFor(const model::ModelDescription& model, const ParallelStrategy& shape,
    bool ulysses, const hardware::HardwareModel& hw)
{
    const int tp = shape.tp;
    const int cp = shape.cp;
    std::vector<CpCommType> out { CpCommType::P2p };
    if (cp <= 1)
        return out;
    const int heads = model.num_heads / tp;
    const int kvHeads = model.num_kv_heads / tp;
    if (shape.framework == Framework::MegatronCore || shape.framework == Framework::MegatronBridge) {
        std::vector<CpCommType> kvExchanges { CpCommType::AllGather };
        const int a2a = cpA2aGroupSize(cp, tp, hw.cluster().scaleUpGpus(), heads, kvHeads);
        if (ulysses && a2a > 1 && a2a < cp)
            kvExchanges.push_back(CpCommType::A2aP2p);
        ParallelStrategy probe = shape;
        probe.micro_batch_size = 1;
        const LayerCost ring = layerCost(model, probe, hw, false, false);
        double best = ring.forwardS() + ring.backwardS();
        for (const CpCommType kind : kvExchanges) {
            probe.cp_comm_type = kind;
            const LayerCost cost = layerCost(model, probe, hw, false, false);
            const double time = cost.forwardS() + cost.backwardS();
            if (time < best) {
                best = time;
                out.front() = kind;
            }
        }
    }
    if (ulysses && heads % cp == 0 && kvHeads % cp == 0)
        out.push_back(CpCommType::A2a);
    return out;
}

} // namespace

std::vector<std::pair<int, int>> searchLayouts(int pp, int layers, bool uneven, int mtpLayers)
{
    std::vector<std::pair<int, int>> layouts { { 0, 0 } };
    if (!uneven || pp < 2)
        return layouts;
    const int average = (layers + pp - 1) / pp;
    if (average < 2)
        return layouts;
    std::vector<std::vector<int>> seen;
    ParallelStrategy probe;
    probe.pp = pp;
    seen.push_back(stageLayerCounts(probe, layers));
    std::vector<std::pair<int, int>> candidates { { 0, average - 1 }, { average - 1, average - 1 } };
    if (mtpLayers > 0) {
        // The last stage also carries the MTP modules and their heads: Megatron-Bridge's
        // DeepSeek-V3 layouts give it 1 + 2 x mtp layers fewer per rank without virtual stages
        // ((4,1) 13 of 16, (8,1) 5 of 8, (16,1) 1 of 4: recipes/deepseek/deepseek_v3.py
        // map_pp_vp_to_layout @ 684a6861) and, with them, the first stage one fewer and the last
        // 1 + mtp fewer (H100's "Et|(tt|)*30mL", scripts/performance/run_script.py). Those two
        // only: the third combination (first one fewer, last 1 + 2 x mtp fewer), which no recipe
        // uses, added a ninth of DeepSeek-V3-style's 4.67 M candidates on 16,384 GPUs and none of
        // its top plans (issue 22 item 8: speed; docs/search-speed.md).
        candidates.emplace_back(0, average - 1 - 2 * mtpLayers);
        candidates.emplace_back(average - 1, average - 1 - mtpLayers);
    }
    for (const auto& [first, last] : candidates) {
        if (last < 1)
            continue;
        if (pp == 2 && first + last != layers)
            continue;
        const int explicitEnds = (first > 0 ? 1 : 0) + (last > 0 ? 1 : 0);
        const int rest = layers - first - last;
        if (rest < pp - explicitEnds)
            continue;
        probe.first_stage_layers = first;
        probe.last_stage_layers = last;
        std::vector<int> counts = stageLayerCounts(probe, layers);
        if (std::ranges::find(seen, counts) != seen.end())
            continue;
        seen.push_back(std::move(counts));
        layouts.emplace_back(first, last);
    }
    return layouts;
}

SearchSpace::SearchSpace(const StrategySearchRequest& request)
{
    const model::ModelDescription& model = request.model;
    // What the user's Megatron-LM year had (megatron_releases.h); the space itself otherwise.
    const StrategySpace space = spaceOfFeatures(request.space);
    const long long world = static_cast<long long>(request.cluster.worldSize());
    const int gbs = request.global_batch_size;
    const hardware::HardwareModel hw(request.cluster, request.efficiency); // for the CP exchange's choice
    m_zero_stages = space.zero_stages;
    // Recompute choices: selective is Megatron's default (core attention); a MoE model also tries
    // recomputing its norms and whole MoE layers, as Megatron's MoE recipes do for long sequences.
    for (Recompute recompute : space.recomputes) {
        m_recomputes.emplace_back(recompute, RecomputeModules());
        if (recompute == Recompute::Selective && model.moe)
            m_recomputes.emplace_back(
                recompute, RecomputeModules::of({ RecomputeModule::Layernorm, RecomputeModule::Moe }));
    }
    // TP stays inside what NVLink joins: the node, or a multi-node NVLink domain (GB200 NVL72).
    for (int tp : divisorsOf(world, limitOr(space.max_tp, request.cluster.scaleUpGpus()))) {
        if (model.num_heads % tp != 0 || model.num_kv_heads % tp != 0)
            continue;
        for (int cp : divisorsOf(world / tp, limitOr(space.max_cp, world))) {
            if (cp > 1 && model.seq_length % (2 * cp) != 0)
                continue;
            ParallelStrategy cpShape;
            cpShape.tp = tp;
            cpShape.cp = cp;
            cpShape.sequence_parallel = tp > 1;
            cpShape.precision = space.precision;
            cpShape.framework = space.framework;
            cpShape.flash_attention = space.flash_attention;
            cpShape.attention_kernel = space.attention_kernel; // docs/kernels.md §6
            cpShape.fp8_recipe = space.fp8_recipe; // docs/kernels.md §8
            applyFeatures(cpShape, space);
            const std::vector<CpCommType> cpComms = cpCommTypesFor(model, cpShape, space.ulysses, hw);
            for (int pp : divisorsOf(world / tp / cp, limitOr(space.max_pp, model.num_layers))) {
                const long long dp = world / tp / cp / pp;
                if (gbs % dp != 0)
                    continue;
                for (const auto& [first, last] : searchLayouts(pp, model.num_layers, space.uneven_layouts, model.mtp_num_layers))
                    for (const CpCommType cpComm : cpComms) {
                        SpaceShape entry;
                        ParallelStrategy& shape = entry.shape;
                        shape.tp = tp;
                        shape.cp = cp;
                        shape.cp_comm_type = cpComm;
                        shape.pp = pp;
                        shape.dp = int(dp);
                        shape.first_stage_layers = first;
                        shape.last_stage_layers = last;
                        shape.sequence_parallel = tp > 1;
                        shape.global_batch_size = gbs;
                        shape.precision = space.precision;
                        shape.framework = space.framework;
                        shape.main_grads_dtype = space.main_grads_dtype;
                        shape.optimizer_state_dtype = space.optimizer_state_dtype;
                        shape.flash_attention = space.flash_attention;
                        shape.attention_kernel = space.attention_kernel;
                        shape.compile = space.compile; // before AsyncTP's check (docs/kernels.md)
                        shape.cuda_graphs = space.cuda_graphs; // docs/kernels.md §7
                        // A dropless MoE captured whole runs on HybridEP (cudaGraphsProblem).
                        if (model.moe && space.cuda_graphs == CudaGraphs::FullIteration)
                            shape.moe_token_dispatcher = MoeDispatcher::Flex;
                        shape.fp8_recipe = space.fp8_recipe; // docs/kernels.md §8
                        applyFeatures(shape, space); // sequence parallelism, async TP backward
                        // Where the framework runs it (tp > 1 with sequence parallelism; not DeepSpeed).
                        shape.tp_comm_overlap = space.tp_comm_overlap && tpCommOverlapProblem(shape).empty();
                        entry.schedules = { { PipelineSchedule::OneFOneB, 1 } };
                        if (pp > 1 && space.interleaved) {
                            for (int v : chunkCountsFor(shape, model.num_layers, space.max_vpp))
                                entry.schedules.emplace_back(PipelineSchedule::Interleaved, v);
                        }
                        if (pp > 1 && space.zb_h1)
                            entry.schedules.emplace_back(PipelineSchedule::ZbH1, 1);
                        entry.experts = { { 1, 1 } };
                        if (model.moe) {
                            entry.experts.clear();
                            const long long dense = static_cast<long long>(tp) * cp * dp;
                            for (int ep : divisorsOf(model.moe->num_experts, limitOr(space.max_ep, world))) {
                                // Expert TP: none, or the dense TP degree (Megatron's usual pairing).
                                for (int etp : tp > 1 ? std::vector<int> { 1, tp } : std::vector<int> { 1 }) {
                                    if (dense % (static_cast<long long>(ep) * etp) == 0)
                                        entry.experts.emplace_back(ep, etp);
                                }
                            }
                        }
                        entry.micro_batch_sizes = divisorsOf(gbs / dp, space.max_micro_batch_size);
                        // HSDP (hsdp.h): the same shape sharded inside a node / NVLink domain, ZeRO >= 1 only.
                        const std::vector<int> shards = space.hsdp && frameworkHasHsdp(space.framework)
                            ? hsdpShardChoices(shape, request.cluster.gpus_per_node, request.cluster.nodeTopology().nvlink_domain_gpus)
                            : std::vector<int> {};
                        m_shapes.push_back(entry);
                        for (const int shard : shards) {
                            SpaceShape hybrid = entry;
                            hybrid.shape.dp_shard = shard;
                            std::erase_if(hybrid.experts,
                                [&](const auto& e) { return !hsdpSplitsExperts(hybrid.shape, e.first, e.second); });
                            if (!hybrid.experts.empty())
                                m_shapes.push_back(std::move(hybrid));
                        }
                    }
            }
        }
    }
    m_offsets.reserve(m_shapes.size() + 1);
    m_offsets.push_back(0);
    for (const SpaceShape& shape : m_shapes)
        m_offsets.push_back(m_offsets.back() + countOf(shape));
}

// What forEach() visits, without building the candidates: the budget check depends only on the
// micro-batch size and the schedule's chunk count, the ZeRO rule only on the shape.
std::size_t SearchSpace::validZeroStages(const SpaceShape& shape) const
{
    std::size_t zeros = 0;
    for (int zero : m_zero_stages) {
        if (!(zero > 0 && shape.shape.dp * shape.shape.cp == 1) && !(zero == 0 && shape.shape.dp_shard > 0))
            ++zeros;
    }
    return zeros;
}

std::size_t SearchSpace::countOf(const SpaceShape& shape) const
{
    const std::size_t inner = shape.experts.size() * validZeroStages(shape) * m_recomputes.size();
    std::size_t n = 0;
    for (int mbs : shape.micro_batch_sizes) {
        for (const auto& [schedule, vpp] : shape.schedules) {
            ParallelStrategy s = shape.shape;
            s.micro_batch_size = mbs;
            s.vpp = vpp;
            if (pipelineWork(s) <= limits::kMaxSimLayerCosts)
                n += inner;
        }
    }
    return n;
}

// Built in place and never destroyed one by one: a strategy holds no resource.
static_assert(std::is_trivially_destructible_v<ParallelStrategy>);

SpaceCandidates::SpaceCandidates(const SearchSpace& space, int threads, ProgressSink& progress)
    : m_size(space.total())
{
    if (m_size == 0)
        return;
    m_data = std::allocator<ParallelStrategy>().allocate(m_size);
    try {
        parallelFor(int(space.shapes().size()), threads, [&](int, int k) {
            progress.throwIfCancelled();
            ParallelStrategy* at = m_data + space.offset(std::size_t(k));
            space.forEach(std::size_t(k), [&](const ParallelStrategy& s) { std::construct_at(at++, s); });
        });
    } catch (...) {
        // A cancelled (or failed) build throws out of the constructor, so no destructor runs:
        // give the block back here (the fuzz preset's LeakSanitizer saw it in tst_strategy_search).
        std::allocator<ParallelStrategy>().deallocate(m_data, m_size);
        m_data = nullptr;
        throw;
    }
}

SpaceCandidates::~SpaceCandidates()
{
    if (m_data)
        std::allocator<ParallelStrategy>().deallocate(m_data, m_size);
}

std::vector<ParallelStrategy> enumerateStrategies(const StrategySearchRequest& request)
{
    const SearchSpace space(request);
    std::vector<ParallelStrategy> out;
    out.reserve(space.total());
    for (std::size_t k = 0; k < space.shapes().size(); ++k)
        space.forEach(k, [&](const ParallelStrategy& s) { out.push_back(s); });
    return out;
}

} // namespace stratex::megatron
