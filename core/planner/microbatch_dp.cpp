// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/microbatch_dp.h"

#include <algorithm>
#include <cmath>

#include "core/common/error.h"
#include "core/planner/microbatch_segment_cost.h"

namespace stratex::planner {

namespace {

// Feasible runs by their first sample, row-major: row b holds the times of [b, b+1), [b, b+2),
// ... up to the first run over a memory limit. Ends are consecutive, so a row is just its times,
// contiguous: the DP passes stream through it instead of chasing one small vector per end.
struct SegmentTable {
    std::vector<std::size_t> row_start; // n + 1 offsets into time
    std::vector<float> time; // +inf where the cost model cannot price the run (skipped)
    // The largest, over samples, of the fastest feasible run covering the sample: any t_max
    // below it leaves that sample without a run, so its DP pass is known to fail.
    float tmax_floor = std::numeric_limits<float>::infinity();
    long long count = 0;
};

SegmentTable buildSegmentTable(const std::vector<Sample>& samples, SegmentCostCache& costs,
    const MicroBatchDpConfig& config, ProgressSink& progress)
{
    const int n = static_cast<int>(samples.size());
    constexpr float kInf = std::numeric_limits<float>::infinity();
    SegmentTable table;
    table.row_start.reserve(static_cast<std::size_t>(n) + 1);
    std::vector<float> cover(static_cast<std::size_t>(n), kInf);
    for (int begin = 0; begin < n; ++begin) {
        if ((begin & 15) == 0) {
            progress.throwIfCancelled();
            progress.report(0.3 * begin / n, "pricing micro-batch candidates");
        }
        table.row_start.push_back(table.time.size());
        int maxSeqlen = 0;
        int maxDecoderSeqlen = 0;
        // The padded shape changes only when a longer sample joins: one row of the cache serves
        // every run of that shape, indexed by size, without hashing each run.
        SegmentCostRow* row = nullptr;
        for (int end = begin + 1; end <= n; ++end) {
            const Sample& sample = samples[static_cast<std::size_t>(end - 1)];
            if (!row || sample.seqlen > maxSeqlen || sample.decoder_seqlen > maxDecoderSeqlen) {
                maxSeqlen = std::max(maxSeqlen, sample.seqlen);
                maxDecoderSeqlen = std::max(maxDecoderSeqlen, sample.decoder_seqlen);
                row = &costs.row(
                    paddedSeqlen(maxSeqlen, costs.config()), paddedDecoderSeqlen(maxDecoderSeqlen, costs.config()));
            }
            const SegmentCost cost = costs.cost(*row, end - begin);
            // Memory grows with the run, so the first run over a limit ends the scan (DynaPipe's
            // assumption; NaN compares false and ends it too).
            if (!(cost.stored_mb <= config.stored_activation_limit_mb)
                || !(cost.peak_mb <= config.peak_activation_limit_mb))
                break;
            if (std::isfinite(cost.time_ms)) {
                table.time.push_back(cost.time_ms);
                ++table.count;
            } else {
                table.time.push_back(kInf);
            }
        }
        // Run [begin, end) covers samples begin..end-1: the fastest run from `begin` covering
        // sample i is the suffix minimum over ends > i.
        const std::size_t first = table.row_start.back();
        float fastest = kInf;
        for (std::size_t k = table.time.size(); k > first; --k) {
            fastest = std::min(fastest, table.time[k - 1]);
            float& c = cover[static_cast<std::size_t>(begin) + (k - 1 - first)];
            c = std::min(c, fastest);
        }
        // Later runs start after this sample: if none so far covers it, nothing will, and the
        // whole split is infeasible (typically the longest sample alone under a weak recompute
        // type), so the remaining O(N^2) runs are not priced.
        if (!(cover[static_cast<std::size_t>(begin)] < kInf)) {
            table.row_start.push_back(table.time.size());
            table.row_start.resize(static_cast<std::size_t>(n) + 1, table.time.size());
            return table;
        }
    }
    table.row_start.push_back(table.time.size());
    table.tmax_floor = n > 0 ? *std::max_element(cover.begin(), cover.end()) : kInf;
    return table;
}

// The t_max candidates: the distinct feasible, finite run times in ascending order, dropping
// every value within min_interval of the last one kept. A run's time depends only on its padded
// shape, and every shape the cache priced was priced for some run, so the feasible priced shapes
// give exactly the set of run times -- thousands of values instead of one per run (O(N^2)).
// Values below the floor cannot make a plan, but they decide which later values are kept.
struct TmaxCandidates {
    std::vector<float> values; // kept, ascending
    std::size_t first_useful = 0; // index of the first value >= the floor
};

TmaxCandidates tmaxCandidates(const SegmentCostCache& costs, const MicroBatchDpConfig& config, float floor)
{
    std::vector<float> times;
    for (const SegmentCost& cost : costs.priced()) {
        if (cost.stored_mb <= config.stored_activation_limit_mb && cost.peak_mb <= config.peak_activation_limit_mb
            && std::isfinite(cost.time_ms))
            times.push_back(cost.time_ms);
    }
    std::sort(times.begin(), times.end());
    TmaxCandidates candidates;
    for (float t : times) {
        if (candidates.values.empty() || t - candidates.values.back() > config.min_tmax_interval_ms)
            candidates.values.push_back(t);
    }
    candidates.first_useful = static_cast<std::size_t>(
        std::lower_bound(candidates.values.begin(), candidates.values.end(), floor) - candidates.values.begin());
    return candidates;
}

struct DpPass {
    std::vector<float> f;
    std::vector<int> back;
};

// f[k] = min over feasible runs [i, k) with t <= tmax of f[i] + t, pushed forward from each
// reached i in ascending order; the strict < keeps the smallest i among equal sums, as the
// pull form over ascending i did (same float sums, same ties).
void runPass(const SegmentTable& table, float tmax, DpPass& pass)
{
    const std::size_t n = table.row_start.size() - 1;
    pass.f.assign(n + 1, std::numeric_limits<float>::infinity());
    pass.back.assign(n + 1, -1);
    pass.f[0] = 0;
    // +inf marks runs the cost model cannot price: never taken, even without a t_max.
    const float limit = std::min(tmax, std::numeric_limits<float>::max());
    for (std::size_t begin = 0; begin < n; ++begin) {
        const float base = pass.f[begin];
        if (!(base < std::numeric_limits<float>::infinity()))
            continue;
        const float* time = table.time.data() + table.row_start[begin];
        const std::size_t length = table.row_start[begin + 1] - table.row_start[begin];
        for (std::size_t k = 0; k < length; ++k) {
            if (!(time[k] <= limit))
                continue;
            const float value = base + time[k];
            const std::size_t end = begin + 1 + k;
            if (value < pass.f[end]) {
                pass.f[end] = value;
                pass.back[end] = static_cast<int>(begin);
            }
        }
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
    const float floor = table.tmax_floor;
    const TmaxCandidates candidates = tmaxCandidates(costs, config, floor);
    result.tmax_candidates = static_cast<int>(candidates.first_useful);

    // Lower bound for pruning: without a t_max constraint the sum is smallest, so no candidate
    // can beat the best objective once (p-1)*t_max/c + that sum/dp exceeds it. The margin covers
    // single-precision rounding along different DP paths.
    DpPass pass;
    if (!std::isfinite(floor))
        return result; // some sample fits in no run
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
    const std::size_t total = candidates.values.size();
    for (std::size_t k = candidates.first_useful; k < total; ++k) {
        ++result.tmax_candidates;
        const float tmax = candidates.values[k];
        const double lowerBound = double(p - 1) * tmax / c + unconstrainedSum / dp;
        if (std::isfinite(bestObjective) && lowerBound > double(bestObjective) * (1 + 1e-4) + 1e-6)
            break;
        if ((k & 7) == 0) {
            progress.throwIfCancelled();
            progress.report(0.3 + 0.7 * double(k) / double(total), "micro-batch dynamic program");
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
