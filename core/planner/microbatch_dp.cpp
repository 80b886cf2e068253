// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/microbatch_dp.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include "core/common/error.h"
#include "core/planner/microbatch_segment_cost.h"

namespace stratex::planner {

namespace {

struct Predecessor {
    int begin; // the run is samples [begin, end)
    float time_ms;
};

// Feasible runs ending at each position, begin ascending (the DP keeps the first of equal sums).
struct SegmentTable {
    std::vector<std::vector<Predecessor>> ending_at; // index: end position 1..N
    std::vector<float> times; // every feasible, finite run time
    long long count = 0;
};

SegmentTable buildSegmentTable(const std::vector<Sample>& samples, SegmentCostCache& costs,
    const MicroBatchDpConfig& config, ProgressSink& progress)
{
    const int n = static_cast<int>(samples.size());
    SegmentTable table;
    table.ending_at.resize(static_cast<std::size_t>(n) + 1);
    for (int begin = 0; begin < n; ++begin) {
        if ((begin & 15) == 0) {
            progress.throwIfCancelled();
            progress.report(0.3 * begin / n, "pricing micro-batch candidates");
        }
        int maxSeqlen = 0;
        int maxDecoderSeqlen = 0;
        for (int end = begin + 1; end <= n; ++end) {
            const Sample& sample = samples[static_cast<std::size_t>(end - 1)];
            maxSeqlen = std::max(maxSeqlen, sample.seqlen);
            maxDecoderSeqlen = std::max(maxDecoderSeqlen, sample.decoder_seqlen);
            const SegmentCost cost = costs.cost(end - begin, paddedSeqlen(maxSeqlen, costs.config()),
                paddedDecoderSeqlen(maxDecoderSeqlen, costs.config()));
            // Memory grows with the run, so the first run over a limit ends the scan (DynaPipe's
            // assumption; NaN compares false and ends it too).
            if (!(cost.stored_mb <= config.stored_activation_limit_mb)
                || !(cost.peak_mb <= config.peak_activation_limit_mb))
                break;
            if (std::isfinite(cost.time_ms)) {
                table.ending_at[static_cast<std::size_t>(end)].push_back({ begin, cost.time_ms });
                table.times.push_back(cost.time_ms);
                ++table.count;
            }
        }
    }
    return table;
}

// The feasible times in ascending order, dropping every value within min_interval of the last one
// kept -- drawn one at a time from a min-heap: the search usually stops after a few candidates,
// so sorting all O(N^2) run times (most of a fast plan's time at N = 1000) is not needed.
class TmaxCandidates {
public:
    TmaxCandidates(std::vector<float> times, double minInterval)
        : m_heap(std::move(times))
        , m_minInterval(minInterval)
    {
        std::make_heap(m_heap.begin(), m_heap.end(), std::greater<float> {});
    }

    std::optional<float> next()
    {
        while (!m_heap.empty()) {
            std::pop_heap(m_heap.begin(), m_heap.end(), std::greater<float> {});
            const float t = m_heap.back();
            m_heap.pop_back();
            if (!m_last || t - *m_last > m_minInterval) {
                m_last = t;
                return t;
            }
        }
        return std::nullopt;
    }
    std::size_t left() const { return m_heap.size(); }

private:
    std::vector<float> m_heap;
    double m_minInterval;
    std::optional<float> m_last;
};

struct DpPass {
    std::vector<float> f;
    std::vector<int> back;
};

// f[k] = min over feasible runs [i, k) with t <= tmax of f[i] + t; strict < keeps the smallest i.
void runPass(const SegmentTable& table, float tmax, DpPass& pass)
{
    const std::size_t n = table.ending_at.size() - 1;
    pass.f.assign(n + 1, std::numeric_limits<float>::infinity());
    pass.back.assign(n + 1, -1);
    pass.f[0] = 0;
    for (std::size_t end = 1; end <= n; ++end) {
        float best = std::numeric_limits<float>::infinity();
        int bestBegin = -1;
        for (const Predecessor& pred : table.ending_at[end]) {
            if (pred.time_ms > tmax)
                continue;
            const float value = pass.f[static_cast<std::size_t>(pred.begin)] + pred.time_ms;
            if (value < best) {
                best = value;
                bestBegin = pred.begin;
            }
        }
        pass.f[end] = best;
        pass.back[end] = bestBegin;
    }
}

} // namespace

MicroBatchDpResult runMicroBatchDp(const std::vector<Sample>& orderedSamples, const LayerCostModel& model,
    const MicroBatchDpConfig& config, ProgressSink& progress)
{
    if (config.num_stages < 1 || config.chunks_per_device < 1 || config.layers_per_stage < 1 || config.dp_size < 1)
        throw Error("micro-batch DP: stages, chunks, layers per stage and dp size must be at least 1");
    MicroBatchDpResult result;
    const int n = static_cast<int>(orderedSamples.size());
    if (n == 0)
        return result;

    SegmentShapeConfig shape;
    shape.tp = config.tp;
    shape.recompute = config.recompute;
    shape.layers_per_stage = config.layers_per_stage;
    shape.chunks_per_device = config.chunks_per_device;
    shape.round_seqlen_multiple = config.round_seqlen_multiple;
    shape.decoder_additional_tokens = config.decoder_additional_tokens;
    SegmentCostCache costs(model, shape);
    SegmentTable table = buildSegmentTable(orderedSamples, costs, config, progress);
    result.feasible_segments = table.count;
    result.distinct_shapes = static_cast<int>(costs.size());
    const double allTimes = double(table.times.size());
    TmaxCandidates candidates(std::move(table.times), config.min_tmax_interval_ms);

    // Lower bound for pruning: without a t_max constraint the sum is smallest, so no candidate
    // can beat the best objective once (p-1)*t_max/c + that sum/dp exceeds it. The margin covers
    // single-precision rounding along different DP paths.
    DpPass pass;
    runPass(table, std::numeric_limits<float>::infinity(), pass);
    const double unconstrainedSum = pass.f[static_cast<std::size_t>(n)];
    if (!std::isfinite(unconstrainedSum))
        return result;

    const int p = config.num_stages;
    const int c = config.chunks_per_device;
    const int dp = config.dp_size;
    float bestObjective = std::numeric_limits<float>::infinity();
    float bestTmax = 0;
    float bestSum = 0;
    std::vector<int> bestBack;
    for (std::size_t k = 0;; ++k) {
        const std::optional<float> next = candidates.next();
        if (!next)
            break;
        ++result.tmax_candidates;
        const float tmax = *next;
        const double lowerBound = double(p - 1) * tmax / c + unconstrainedSum / dp;
        if (std::isfinite(bestObjective) && lowerBound > double(bestObjective) * (1 + 1e-4) + 1e-6)
            break;
        if ((k & 7) == 0) {
            progress.throwIfCancelled();
            progress.report(
                0.3 + 0.7 * (1 - double(candidates.left()) / std::max(1.0, allTimes)), "micro-batch dynamic program");
        }
        ++result.tmax_evaluated;
        runPass(table, tmax, pass);
        const float sum = pass.f[static_cast<std::size_t>(n)];
        if (!std::isfinite(sum))
            continue;
        const float objective = (p - 1) * tmax / c + sum / dp;
        if (objective < bestObjective) {
            bestObjective = objective;
            bestTmax = tmax;
            bestSum = sum;
            bestBack = pass.back;
        }
    }
    if (!std::isfinite(bestObjective))
        return result;

    result.feasible = true;
    result.objective = bestObjective;
    result.t_max_ms = bestTmax;
    result.sum_time_ms = bestSum;
    std::vector<std::pair<int, int>> runs;
    for (int end = n; end > 0; end = bestBack[static_cast<std::size_t>(end)])
        runs.emplace_back(bestBack[static_cast<std::size_t>(end)], end);
    std::reverse(runs.begin(), runs.end());
    for (const auto& [begin, end] : runs) {
        MicroBatch mb;
        mb.id = static_cast<int>(result.microbatches.size());
        int maxSeqlen = 0;
        int maxDecoderSeqlen = 0;
        for (int i = begin; i < end; ++i) {
            const Sample& sample = orderedSamples[static_cast<std::size_t>(i)];
            mb.sample_ids.push_back(sample.id);
            maxSeqlen = std::max(maxSeqlen, sample.seqlen);
            maxDecoderSeqlen = std::max(maxDecoderSeqlen, sample.decoder_seqlen);
        }
        mb.micro_batch_size = end - begin;
        mb.padded_seqlen = paddedSeqlen(maxSeqlen, shape);
        mb.padded_decoder_seqlen = paddedDecoderSeqlen(maxDecoderSeqlen, shape);
        const SegmentCost cost = costs.cost(mb.micro_batch_size, mb.padded_seqlen, mb.padded_decoder_seqlen);
        mb.time_ms = cost.time_ms;
        mb.stored_activation_mb = cost.stored_mb;
        mb.peak_activation_mb = cost.peak_mb;
        result.microbatches.push_back(std::move(mb));
    }
    progress.report(1.0, "micro-batches chosen");
    return result;
}

} // namespace stratex::planner
