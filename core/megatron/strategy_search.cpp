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
#include "core/common/parallel_for.h"
#include "core/megatron/gpu_support.h"
#include "core/megatron/strategy_search_space.h"

namespace stratex::megatron {

namespace {

// The candidate that needs the least memory when none fits, to say how far off the cluster is:
// the least peak, between equal peaks the first candidate of the same block of 256 (in
// enumeration order) and the lesser strategy of different blocks, as the search chose it when
// its first pass costed blocks of 256. Each shape keeps its blocks' minima, from the block of its
// first candidate on.
constexpr std::size_t kLeastMemoryBlock = 256;

struct LeastMemory {
    bool found = false;
    std::size_t index = 0;
    double peak_mb = 0;
};

std::optional<std::size_t> leastMemoryCandidate(const SearchSpace& space,
    const std::vector<std::vector<LeastMemory>>& perShape, const SpaceCandidates& candidates)
{
    // The blocks' minima over the shapes that share a block (the first index of equals).
    std::vector<LeastMemory> blocks((candidates.size() + kLeastMemoryBlock - 1) / kLeastMemoryBlock);
    for (std::size_t k = 0; k < perShape.size() && k < space.shapes().size(); ++k) {
        const std::size_t firstBlock = space.offset(k) / kLeastMemoryBlock;
        for (std::size_t slot = 0; slot < perShape[k].size(); ++slot) {
            const LeastMemory& m = perShape[k][slot];
            LeastMemory& block = blocks[firstBlock + slot];
            if (m.found
                && (!block.found || m.peak_mb < block.peak_mb || (m.peak_mb == block.peak_mb && m.index < block.index)))
                block = m;
        }
    }
    std::optional<LeastMemory> least;
    for (const LeastMemory& block : blocks) {
        if (block.found
            && (!least || block.peak_mb < least->peak_mb
                || (block.peak_mb == least->peak_mb && candidates[block.index] < candidates[least->index])))
            least = block;
    }
    if (!least)
        return std::nullopt;
    return least->index;
}

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
    BoundOrder(std::vector<BoundKey> keys, const SpaceCandidates& candidates)
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
    const SpaceCandidates& m_candidates;
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

// Pass 2's loop: simulate in bound order, a batch per round, until the next bound exceeds the
// last kept group's ranking time by more than a twin can differ (1 ms, raised as an extrapolated
// plan's is): every candidate that could rank among the kept groups, or be a twin of one, is
// simulated, so the result does not depend on the batch size or the thread count. The ranking
// time bounds below, since an extrapolated plan's bound is raised as its time is.
struct SimulatedOrder {
    std::vector<Ranked> kept; // sorted by rankedBefore
    long long simulated = 0;
    // The top-th group's ranking time plus the twin slack: no candidate above it can rank among the
    // kept groups or be a twin of one; infinite with fewer groups.
    double threshold = std::numeric_limits<double>::infinity();
};

template <class Report>
SimulatedOrder simulateInOrder(BoundOrder& order, const StrategySearchRequest& request, const hardware::HardwareModel& hw,
    int threads, ProgressSink& progress, Report&& report)
{
    EstimateOptions exact;
    exact.memory_limit_mb = request.memory_limit_mb;
    const std::size_t batch = std::size_t(threads) * 8;
    const std::size_t top = std::size_t(request.top);
    const double twinSlackMs = rankingTimeMs(1.0, request.coverage.has_value());
    SimulatedOrder out;
    std::vector<Ranked>& kept = out.kept;
    std::size_t next = 0;
    while (next < order.size()) {
        const std::size_t end = std::min(order.size(), next + batch);
        order.sortThrough(end);
        if (order[next].key_ms > out.threshold)
            break;
        std::vector<Estimate> round(end - next);
        parallelFor(int(round.size()), threads, [&](int, int i) {
            progress.throwIfCancelled();
            round[std::size_t(i)] = estimate(request.model, order.strategy(next + std::size_t(i)), hw, exact);
        });
        out.simulated += static_cast<long long>(round.size());
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
            out.threshold = kept[groups.back().front()].key_ms + twinSlackMs;
            while (!kept.empty() && kept.back().key_ms > out.threshold)
                kept.pop_back();
        }
        next = end;
        report(double(next) / double(order.size()));
    }
    return out;
}

// Every field in notation()'s words, each named even at its default, for twinDifference().
std::vector<std::string> fieldWords(const ParallelStrategy& s)
{
    auto str = [](int v) { return std::to_string(v); };
    std::vector<std::string> words { "tp" + str(s.tp), "pp" + str(s.pp), "vpp" + str(s.vpp),
        "cp" + str(s.cp) + std::string(s.cp > 1 ? cpCommSuffix(s.cp_comm_type) : ""), "ep" + str(s.ep),
        "etp" + str(s.etp), "dp" + str(s.dp), s.sequence_parallel ? "sp" : "no-sp", "zero" + str(s.zero),
        s.recomputeWord(),
        "mbs" + str(s.micro_batch_size), "gbs" + str(s.global_batch_size),
        "layout " + str(s.first_stage_layers) + "/" + str(s.last_stage_layers),
        std::string(pipelineScheduleName(s.schedule)), std::string(precisionName(s.precision)),
        s.dpReplicas() > 1 ? "hsdp" + str(s.dpShard()) : "no-hsdp" }; // HSDP (hsdp.h)
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

StrategySearchResult searchStrategies(const StrategySearchRequest& request, ProgressSink& progress)
{
    if (request.global_batch_size < 1)
        throw Error("the global batch size must be at least 1");
    if (request.top < 1)
        throw Error("at least one plan must be kept");
    {
        // Every candidate takes the space's precision and kernel: a GPU without them (Volta: no
        // bf16, no flash) would refuse them all; say why once (gpu_support.h).
        ParallelStrategy probe;
        probe.precision = request.space.precision;
        probe.flash_attention = request.space.flash_attention;
        probe.attention_kernel = request.space.attention_kernel;
        probe.framework = request.space.framework;
        probe.fp8_recipe = request.space.fp8_recipe; // MXFP8 on Blackwell only (gpu_support.h)
        if (const std::vector<std::string> why = gpuSupportProblems(probe, request.cluster.gpu.name); !why.empty())
            throw Error("search: " + why.front());
    }
    const hardware::HardwareModel hw(request.cluster, request.efficiency);
    const int threads = effectiveThreads(request.threads);
    StrategySearchResult result;
    std::optional<EvidenceCheck> evidence;
    if (request.coverage)
        evidence.emplace(*request.coverage, request.model, request.cluster);

    progress.report(0, "enumerating strategies");
    const SearchSpace space(request);
    const SpaceCandidates candidates(space, threads, progress);
    result.stats.enumerated = static_cast<long long>(candidates.size());

    // Pass 1: rules, memory and a lower bound of each candidate's iteration time, shape by shape,
    // each shape's candidates in the order that lets the memo serve twins (forEachTwinsAdjacent).
    // A candidate over memory is left at the first stage over it (stop_over_memory): its peak is
    // then only a lower bound, so the least-memory plan (shown when nothing fits) comes from a
    // second pass over every candidate's whole peak, made only then (issue 22: speed). With a
    // sampled threshold, a candidate whose pipeline bound alone is above it stops there (pruned).
    EstimateOptions bounding;
    bounding.simulate_pipeline = false;
    bounding.memory_limit_mb = request.memory_limit_mb;
    bounding.full_report = false;
    bounding.stop_over_memory = true;
    // One memo per worker for the whole search: candidates a shape apart share layer costs too.
    std::vector<EstimateMemo> memos(static_cast<std::size_t>(threads));
    // The sampled threshold (issue 22 item 8: speed; docs/search-speed.md). Every sampling.stride-th
    // candidate, bounded and simulated as the search does its own, gives plans that the whole
    // search's ranking can only beat: its top-th twin group's ranking time plus the twin slack
    // (SimulatedOrder::threshold) is a time that no plan the search keeps, nor a twin of one, comes
    // above. A candidate whose pipeline bound alone is above it is never simulated by the whole
    // search, so its first pass leaves it there (EstimateOptions::prune_above_ms): the plans are
    // the unpruned search's, byte for byte; only the counts move (over memory counts the candidates
    // whose memory was costed).
    double pruneAboveMs = std::numeric_limits<double>::infinity();
    if (candidates.size() >= request.sampling.min_candidates && request.sampling.stride > 0) {
        const std::size_t stride = request.sampling.stride;
        const std::size_t samples = (candidates.size() + stride - 1) / stride;
        constexpr std::size_t kSampleBlock = 1024;
        const int blocks = int((samples + kSampleBlock - 1) / kSampleBlock);
        std::vector<std::vector<BoundKey>> sampled(static_cast<std::size_t>(blocks));
        parallelFor(blocks, threads, [&](int worker, int block) {
            progress.throwIfCancelled();
            EstimateOptions options = bounding;
            options.memo = &memos[std::size_t(worker)];
            const std::size_t last = std::min(samples, (std::size_t(block) + 1) * kSampleBlock);
            for (std::size_t j = std::size_t(block) * kSampleBlock; j < last; ++j) {
                const std::size_t i = j * stride;
                const Estimate e = estimate(request.model, candidates[i], hw, options);
                if (!e.problems.empty() || !e.fits)
                    continue;
                const bool extrapolated = evidence && evidence->extrapolated(candidates[i]);
                sampled[std::size_t(block)].push_back(
                    { rankingTimeMs(e.iteration_ms, extrapolated), std::uint32_t(i), extrapolated });
            }
        });
        std::vector<BoundKey> keys;
        for (const std::vector<BoundKey>& block : sampled)
            keys.insert(keys.end(), block.begin(), block.end());
        BoundOrder order(std::move(keys), candidates);
        pruneAboveMs = simulateInOrder(order, request, hw, threads, progress, [&](double share) {
            progress.report(0.05 * share, "sampling strategies");
        }).threshold;
    }
    const double firstPassStart = pruneAboveMs < std::numeric_limits<double>::infinity() ? 0.05 : 0.0;
    const int units = int(space.shapes().size());
    std::vector<std::vector<BoundKey>> fitting(std::size_t(std::max(1, units)));
    std::vector<std::vector<LeastMemory>> leastMemory(std::size_t(std::max(1, units)));
    std::atomic<long long> refused = 0;
    std::atomic<long long> overMemory = 0;
    std::atomic<long long> pruned = 0;
    std::atomic<int> unitsDone = 0;
    const auto firstPass = [&](bool wholePeaks) {
        parallelFor(units, threads, [&](int worker, int unit) {
            progress.throwIfCancelled();
            const std::size_t k = std::size_t(unit);
            EstimateOptions options = bounding;
            options.stop_over_memory = !wholePeaks;
            if (!wholePeaks)
                options.prune_above_ms = pruneAboveMs;
            options.memo = &memos[std::size_t(worker)];
            std::vector<BoundKey>& fits = fitting[k];
            if (!wholePeaks)
                fits.reserve(space.count(k));
            std::vector<LeastMemory>& least = leastMemory[k];
            const std::size_t firstBlock = space.offset(k) / kLeastMemoryBlock;
            space.forEachTwinsAdjacent(k, [&](std::size_t i, const ParallelStrategy& candidate) {
                const Estimate e = estimate(request.model, candidate, hw, options);
                if (!e.problems.empty()) {
                    if (!wholePeaks)
                        ++refused;
                    return;
                }
                if (e.pruned) {
                    ++pruned;
                    return;
                }
                if (!e.fits) {
                    if (!wholePeaks) {
                        ++overMemory;
                        return;
                    }
                    const std::size_t slot = i / kLeastMemoryBlock - firstBlock;
                    if (least.size() <= slot)
                        least.resize(slot + 1);
                    LeastMemory& block = least[slot];
                    if (!block.found || e.peak_memory_mb < block.peak_mb
                        || (e.peak_memory_mb == block.peak_mb && i < block.index))
                        block = { true, i, e.peak_memory_mb };
                    return;
                }
                if (wholePeaks)
                    return;
                const bool extrapolated = evidence && evidence->extrapolated(candidate);
                fits.push_back({ rankingTimeMs(e.iteration_ms, extrapolated), std::uint32_t(i), extrapolated });
            });
            const double share = double(++unitsDone) / std::max(1, units);
            if (wholePeaks)
                progress.report(0.5 + 0.5 * share, "finding the plan with the least memory");
            else
                progress.report(firstPassStart + (0.5 - firstPassStart) * share, "costing strategies");
        });
    };
    firstPass(false);
    result.stats.refused = refused;
    result.stats.over_memory = overMemory;
    result.stats.pruned = pruned;
    std::vector<BoundKey> keys;
    std::size_t fittingCount = 0;
    for (const std::vector<BoundKey>& unit : fitting)
        fittingCount += unit.size();
    keys.reserve(fittingCount);
    for (std::vector<BoundKey>& unit : fitting) {
        keys.insert(keys.end(), unit.begin(), unit.end());
        std::vector<BoundKey>().swap(unit);
    }
    BoundOrder order(std::move(keys), candidates);
    result.stats.bounded = static_cast<long long>(order.size());

    if (order.size() == 0) {
        unitsDone = 0;
        firstPass(true); // every candidate over memory: their whole peaks, for the least of them
        if (const std::optional<std::size_t> least = leastMemoryCandidate(space, leastMemory, candidates)) {
            EstimateOptions exact;
            exact.memory_limit_mb = request.memory_limit_mb;
            result.least_memory = estimate(request.model, candidates[*least], hw, exact);
        }
        progress.report(1, "no strategy fits");
        return result;
    }

    // Pass 2: simulate in bound order (simulateInOrder).
    const SimulatedOrder simulated = simulateInOrder(order, request, hw, threads, progress,
        [&](double share) { progress.report(0.5 + 0.5 * share, "simulating pipelines"); });
    result.stats.simulated = simulated.simulated;
    const std::vector<Ranked>& kept = simulated.kept;
    const std::size_t top = std::size_t(request.top);
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
