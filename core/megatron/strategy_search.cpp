// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/megatron/strategy_search.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numeric>

#include "core/common/error.h"
#include "core/common/input_limits.h"
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

// The pipeline divisions tried for `pp` stages: Megatron's default (layers split as evenly as they
// go) and, when asked, the layouts practitioners use to offload the ends, which also carry the
// embedding and the LM head: a last stage one layer lighter, and both ends one layer lighter.
std::vector<std::pair<int, int>> layoutsFor(int pp, int layers, bool uneven)
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
    const std::pair<int, int> candidates[] = { { 0, average - 1 }, { average - 1, average - 1 } };
    for (const auto& [first, last] : candidates) {
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
        const int a2a = cpA2aGroupSize(cp, tp, hw.cluster().gpus_per_node, heads, kvHeads);
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

// A candidate after the cheap pass: everything but the simulated makespan.
struct Bounded {
    ParallelStrategy strategy;
    double bound_ms = 0;
    double peak_memory_mb = 0;
    bool extrapolated = false;
    double key_ms = 0; // rankingTimeMs of the bound
};

// A fitting candidate after the cheap pass, as the second pass orders them: 16 bytes, not the
// strategy, since a search bounds millions and simulates tens (issue 22: speed).
struct BoundKey {
    double key_ms = 0; // rankingTimeMs of the bound
    std::uint32_t index = 0; // into the enumerated candidates
    bool extrapolated = false;
};

// The second pass's order, sorted only as far as it reads: by ranking time, ties by the strategy's
// fields (a total order, so the prefix is the fully sorted one's whatever was sorted before).
class BoundOrder {
public:
    BoundOrder(std::vector<BoundKey> keys, const std::vector<ParallelStrategy>& candidates)
        : m_keys(std::move(keys))
        , m_candidates(candidates)
    {
    }

    std::size_t size() const { return m_keys.size(); }
    // The i-th in order; sortThrough(i + 1) first.
    const BoundKey& operator[](std::size_t i) const { return m_keys[i]; }
    const ParallelStrategy& strategy(std::size_t i) const { return m_candidates[m_keys[i].index]; }

    // Sorts at least the first n (a growing prefix: each call at least doubles it, so a search
    // that reads far pays about one sort in all).
    void sortThrough(std::size_t n)
    {
        n = std::min(n, m_keys.size());
        if (n <= m_sorted)
            return;
        const std::size_t upto = std::min(m_keys.size(), std::max({ n, 2 * m_sorted, std::size_t(4096) }));
        const auto less = [this](const BoundKey& a, const BoundKey& b) {
            if (a.key_ms != b.key_ms)
                return a.key_ms < b.key_ms;
            return m_candidates[a.index] < m_candidates[b.index];
        };
        const auto first = m_keys.begin() + std::ptrdiff_t(m_sorted);
        const auto last = m_keys.begin() + std::ptrdiff_t(upto);
        if (upto < m_keys.size())
            std::nth_element(first, last, m_keys.end(), less);
        std::sort(first, last, less);
        m_sorted = upto;
    }

private:
    std::vector<BoundKey> m_keys;
    const std::vector<ParallelStrategy>& m_candidates;
    std::size_t m_sorted = 0;
};

// A simulated plan in the ranking.
struct Ranked {
    Estimate estimate;
    bool extrapolated = false;
    double key_ms = 0; // rankingTimeMs of its iteration time
};

bool rankedBefore(const Ranked& a, const Ranked& b)
{
    if (a.key_ms != b.key_ms)
        return a.key_ms < b.key_ms;
    if (a.estimate.iteration_ms != b.estimate.iteration_ms)
        return a.estimate.iteration_ms < b.estimate.iteration_ms;
    return a.estimate.strategy < b.estimate.strategy;
}

// Twins: plans predicted equal to the millisecond and the megabyte (issue 22: ring CP 2-16 with
// micro-batch 1-8 tie to the ms), with the same evidence. The first `top` groups of the ranked
// `plans` (sorted by rankedBefore), each as the indices of its members, first member first.
std::vector<std::vector<std::size_t>> twinGroups(const std::vector<Ranked>& plans, std::size_t top)
{
    using TwinKey = std::tuple<long long, long long, bool>;
    std::map<TwinKey, std::size_t> groupOf;
    std::vector<std::vector<std::size_t>> groups;
    for (std::size_t i = 0; i < plans.size(); ++i) {
        const Ranked& p = plans[i];
        const TwinKey key { std::llround(p.estimate.iteration_ms), std::llround(p.estimate.peak_memory_mb),
            p.extrapolated };
        const auto [at, added] = groupOf.try_emplace(key, groups.size());
        if (added) {
            if (groups.size() >= top)
                continue; // beyond the kept groups: only later twins of kept ones matter
            groups.emplace_back();
        }
        if (at->second < groups.size())
            groups[at->second].push_back(i);
    }
    return groups;
}

// Every field in notation()'s words, each named even at its default, for twinDifference().
std::vector<std::string> fieldWords(const ParallelStrategy& s)
{
    auto str = [](int v) { return std::to_string(v); };
    std::vector<std::string> words { "tp" + str(s.tp), "pp" + str(s.pp), "vpp" + str(s.vpp),
        "cp" + str(s.cp) + std::string(s.cp > 1 ? cpCommSuffix(s.cp_comm_type) : ""), "ep" + str(s.ep),
        "etp" + str(s.etp), "dp" + str(s.dp), s.sequence_parallel ? "sp" : "no-sp", "zero" + str(s.zero),
        "rc-" + std::string(recomputeName(s.recompute))
            + (s.recompute == Recompute::Selective && !s.recompute_modules.isDefault()
                    ? "(" + s.recompute_modules.joined(",") + ")"
                    : ""),
        "mbs" + str(s.micro_batch_size), "gbs" + str(s.global_batch_size),
        "layout " + str(s.first_stage_layers) + "/" + str(s.last_stage_layers),
        std::string(pipelineScheduleName(s.schedule)), std::string(precisionName(s.precision)) };
    return words;
}


} // namespace

std::string twinDifference(const ParallelStrategy& plan, const ParallelStrategy& twin)
{
    const std::vector<std::string> a = fieldWords(plan);
    const std::vector<std::string> b = fieldWords(twin);
    std::string out;
    for (std::size_t i = 0; i < b.size(); ++i) {
        if (a[i] != b[i])
            out += (out.empty() ? "" : " ") + b[i];
    }
    return out.empty() ? twin.notation() : out;
}

std::string twinsLine(const ParallelStrategy& plan, const std::vector<ParallelStrategy>& twins, std::size_t shown)
{
    if (twins.empty())
        return {};
    std::string out = "also:";
    for (std::size_t i = 0; i < twins.size() && i < shown; ++i)
        out += (i == 0 ? " " : ", ") + twinDifference(plan, twins[i]);
    if (twins.size() > shown)
        out += " and " + std::to_string(twins.size() - shown) + " more";
    return out;
}

std::vector<ParallelStrategy> enumerateStrategies(const StrategySearchRequest& request)
{
    const model::ModelDescription& model = request.model;
    const StrategySpace& space = request.space;
    const long long world = static_cast<long long>(request.cluster.worldSize());
    const int gbs = request.global_batch_size;
    const hardware::HardwareModel hw(request.cluster, request.efficiency); // for the CP exchange's choice
    // Recompute choices: selective is Megatron's default (core attention); a MoE model also tries
    // recomputing its norms and whole MoE layers, as Megatron's MoE recipes do for long sequences.
    std::vector<std::pair<Recompute, RecomputeModules>> recomputeChoices;
    for (Recompute recompute : space.recomputes) {
        recomputeChoices.emplace_back(recompute, RecomputeModules());
        if (recompute == Recompute::Selective && model.moe)
            recomputeChoices.emplace_back(
                recompute, RecomputeModules::of({ RecomputeModule::Layernorm, RecomputeModule::Moe }));
    }
    std::vector<ParallelStrategy> out;
    for (int tp : divisorsOf(world, limitOr(space.max_tp, request.cluster.gpus_per_node))) {
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
            const std::vector<CpCommType> cpComms = cpCommTypesFor(model, cpShape, space.ulysses, hw);
            for (int pp : divisorsOf(world / tp / cp, limitOr(space.max_pp, model.num_layers))) {
                const long long dp = world / tp / cp / pp;
                if (gbs % dp != 0)
                    continue;
                for (const auto& [first, last] : layoutsFor(pp, model.num_layers, space.uneven_layouts))
                    for (const CpCommType cpComm : cpComms) {
                        ParallelStrategy shape;
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
                        // Where the framework runs it (tp > 1 with sequence parallelism; not DeepSpeed).
                        shape.tp_comm_overlap = space.tp_comm_overlap && tpCommOverlapProblem(shape).empty();
                        // (schedule, vpp) pairs.
                        std::vector<std::pair<PipelineSchedule, int>> schedules { { PipelineSchedule::OneFOneB, 1 } };
                        if (pp > 1 && space.interleaved) {
                            for (int v : chunkCountsFor(shape, model.num_layers, space.max_vpp))
                                schedules.emplace_back(PipelineSchedule::Interleaved, v);
                        }
                        if (pp > 1 && space.zb_h1)
                            schedules.emplace_back(PipelineSchedule::ZbH1, 1);
                        // (ep, etp) pairs.
                        std::vector<std::pair<int, int>> experts { { 1, 1 } };
                        if (model.moe) {
                            experts.clear();
                            const long long dense = static_cast<long long>(tp) * cp * dp;
                            for (int ep : divisorsOf(model.moe->num_experts, limitOr(space.max_ep, world))) {
                                // Expert TP: none, or the dense TP degree (Megatron's usual pairing).
                                for (int etp : tp > 1 ? std::vector<int> { 1, tp } : std::vector<int> { 1 }) {
                                    if (dense % (static_cast<long long>(ep) * etp) == 0)
                                        experts.emplace_back(ep, etp);
                                }
                            }
                        }
                        for (int mbs : divisorsOf(gbs / dp, space.max_micro_batch_size)) {
                            for (const auto& [schedule, vpp] : schedules) {
                                for (const auto& [ep, etp] : experts) {
                                    for (int zero : space.zero_stages) {
                                        if (zero > 0 && dp * cp == 1)
                                            continue;
                                        for (const auto& [recompute, modules] : recomputeChoices) {
                                            ParallelStrategy s = shape;
                                            s.micro_batch_size = mbs;
                                            s.schedule = schedule;
                                            s.vpp = vpp;
                                            s.ep = ep;
                                            s.etp = etp;
                                            s.zero = zero;
                                            s.recompute = recompute;
                                            s.recompute_modules = modules;
                                            s.recompute_num_layers = recompute == Recompute::Full ? 1 : 0;
                                            if (pipelineWork(s) > limits::kMaxSimLayerCosts)
                                                continue; // bounded work: its simulation is beyond the budget
                                            out.push_back(s);
                                        }
                                    }
                                }
                            }
                        }
                    }
            }
        }
    }
    return out;
}

StrategySearchResult searchStrategies(const StrategySearchRequest& request, ProgressSink& progress)
{
    if (request.global_batch_size < 1)
        throw Error("the global batch size must be at least 1");
    if (request.top < 1)
        throw Error("at least one plan must be kept");
    const hardware::HardwareModel hw(request.cluster, request.efficiency);
    const int threads = effectiveThreads(request.threads);
    StrategySearchResult result;
    std::optional<EvidenceCheck> evidence;
    if (request.coverage)
        evidence.emplace(*request.coverage, request.model, request.cluster);

    progress.report(0, "enumerating strategies");
    const std::vector<ParallelStrategy> candidates = enumerateStrategies(request);
    result.stats.enumerated = static_cast<long long>(candidates.size());

    // Pass 1: rules, memory and a lower bound of each candidate's iteration time.
    EstimateOptions bounding;
    bounding.simulate_pipeline = false;
    bounding.memory_limit_mb = request.memory_limit_mb;
    bounding.full_report = false;
    constexpr int kBlock = 256;
    const int blocks = int((candidates.size() + kBlock - 1) / kBlock);
    std::vector<std::vector<BoundKey>> fitting(std::size_t(std::max(1, blocks)));
    std::vector<std::optional<Bounded>> leastMemory(std::size_t(std::max(1, blocks)));
    std::atomic<long long> refused = 0;
    std::atomic<long long> overMemory = 0;
    std::atomic<int> blocksDone = 0;
    // One memo per worker for the whole pass: candidates a block apart share chunk costs too.
    std::vector<EstimateMemo> memos(static_cast<std::size_t>(threads));
    parallelFor(blocks, threads, [&](int worker, int block) {
        progress.throwIfCancelled();
        const std::size_t begin = std::size_t(block) * kBlock;
        const std::size_t end = std::min(candidates.size(), begin + kBlock);
        EstimateOptions options = bounding;
        options.memo = &memos[std::size_t(worker)];
        std::vector<BoundKey>& fits = fitting[std::size_t(block)];
        fits.reserve(end - begin);
        for (std::size_t i = begin; i < end; ++i) {
            const Estimate e = estimate(request.model, candidates[i], hw, options);
            if (!e.problems.empty()) {
                ++refused;
                continue;
            }
            const bool extrapolated = evidence && evidence->extrapolated(candidates[i]);
            const double key = rankingTimeMs(e.iteration_ms, extrapolated);
            if (!e.fits) {
                ++overMemory;
                std::optional<Bounded>& least = leastMemory[std::size_t(block)];
                if (!least || e.peak_memory_mb < least->peak_memory_mb)
                    least = Bounded { candidates[i], e.iteration_ms, e.peak_memory_mb, extrapolated, key };
                continue;
            }
            fits.push_back({ key, std::uint32_t(i), extrapolated });
        }
        const int done = ++blocksDone;
        progress.report(0.5 * done / blocks, "costing strategies");
    });
    result.stats.refused = refused;
    result.stats.over_memory = overMemory;
    std::vector<BoundKey> keys;
    std::size_t fittingCount = 0;
    for (const std::vector<BoundKey>& block : fitting)
        fittingCount += block.size();
    keys.reserve(fittingCount);
    for (std::vector<BoundKey>& block : fitting) {
        keys.insert(keys.end(), block.begin(), block.end());
        std::vector<BoundKey>().swap(block);
    }
    BoundOrder order(std::move(keys), candidates);
    result.stats.bounded = static_cast<long long>(order.size());

    EstimateOptions exact;
    exact.memory_limit_mb = request.memory_limit_mb;
    if (order.size() == 0) {
        std::optional<Bounded> least;
        for (const std::optional<Bounded>& candidate : leastMemory) {
            if (candidate
                && (!least || candidate->peak_memory_mb < least->peak_memory_mb
                    || (candidate->peak_memory_mb == least->peak_memory_mb && candidate->strategy < least->strategy)))
                least = candidate;
        }
        if (least)
            result.least_memory = estimate(request.model, least->strategy, hw, exact);
        progress.report(1, "no strategy fits");
        return result;
    }

    // Pass 2: simulate in bound order, a batch per round, until the next bound exceeds the last
    // kept group's ranking time by more than a twin can differ (1 ms, raised as an extrapolated
    // plan's is): every candidate that could rank among the kept groups, or be a twin of one, is
    // simulated, so the result does not depend on the batch size or the thread count. The
    // ranking time bounds below, since an extrapolated plan's bound is raised as its time is.
    const std::size_t batch = std::size_t(threads) * 8;
    const std::size_t top = std::size_t(request.top);
    const double twinSlackMs = rankingTimeMs(1.0, request.coverage.has_value());
    std::vector<Ranked> kept;
    double threshold = std::numeric_limits<double>::infinity();
    std::size_t next = 0;
    while (next < order.size()) {
        const std::size_t end = std::min(order.size(), next + batch);
        order.sortThrough(end);
        if (order[next].key_ms > threshold)
            break;
        std::vector<Estimate> round(end - next);
        parallelFor(int(round.size()), threads, [&](int, int i) {
            progress.throwIfCancelled();
            round[std::size_t(i)] = estimate(request.model, order.strategy(next + std::size_t(i)), hw, exact);
        });
        result.stats.simulated += static_cast<long long>(round.size());
        for (std::size_t i = 0; i < round.size(); ++i) {
            Estimate& e = round[i];
            if (!e.problems.empty() || !e.fits)
                continue;
            const bool extrapolated = order[next + i].extrapolated;
            const double key = rankingTimeMs(e.iteration_ms, extrapolated);
            kept.push_back({ std::move(e), extrapolated, key });
        }
        std::ranges::sort(kept, rankedBefore);
        const std::vector<std::vector<std::size_t>> groups = twinGroups(kept, top);
        if (groups.size() >= top) {
            threshold = kept[groups.back().front()].key_ms + twinSlackMs;
            while (!kept.empty() && kept.back().key_ms > threshold)
                kept.pop_back();
        }
        next = end;
        const double share = double(next) / double(order.size());
        progress.report(0.5 + 0.5 * share, "simulating pipelines");
    }
    std::vector<Estimate> best;
    for (const std::vector<std::size_t>& group : twinGroups(kept, top)) {
        const Ranked& first = kept[group.front()];
        best.push_back(first.estimate);
        std::vector<ParallelStrategy> twins;
        for (std::size_t k = 1; k < group.size(); ++k)
            twins.push_back(kept[group[k]].estimate.strategy);
        result.twins.push_back(std::move(twins));
        result.evidence.push_back(evidence ? evidence->evidence(first.estimate.strategy) : PlanEvidence {});
    }
    result.best = std::move(best);
    progress.report(1, "done");
    return result;
}

} // namespace stratex::megatron
