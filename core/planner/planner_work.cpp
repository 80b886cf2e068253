// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_work.h"

#include <algorithm>

#include "core/common/input_limits.h"
#include "core/common/work_limits.h"
#include "core/planner/microbatch_segment_cost.h"
#include "core/planner/planner_memory.h"

namespace stratex::planner {

WorkEstimate estimatePlannerWork(
    const MicroBatchBuildResult& microbatching, const PlannerConfig& config, PlannerMode mode)
{
    const double stages = config.num_stages;
    const double chunks = config.chunks_per_device;
    WorkEstimate estimate;
    for (const auto& group : microbatching.dp_groups) {
        const double m = double(group.size());
        estimate.work += mode == PlannerMode::Normal ? m * m * m * stages * chunks
                                                     : m * stages * chunks * std::min(m, 2 * stages);
    }
    estimate.budget = mode == PlannerMode::Normal ? limits::kMaxPlannerNormalWork : limits::kMaxPlannerFastWork;
    estimate.job = "plan in " + std::string(plannerModeName(mode)) + " mode";
    estimate.size = groupedCount(double(microbatching.dp_groups.empty() ? 0 : microbatching.dp_groups[0].size()))
        + " micro-batches per data-parallel group on " + std::to_string(config.num_stages) + " stages";
    return estimate;
}

void requireBoundedPlanning(const MicroBatchBuildResult& microbatching, const PlannerConfig& config, PlannerMode mode)
{
    const WorkEstimate estimate = estimatePlannerWork(microbatching, config, mode);
    if (estimate.exceedsBudget() && !config.lift_work_budget)
        throw WorkBudgetExceeded(estimate,
            std::string("Use ") + (mode == PlannerMode::Normal ? "fast mode, " : "")
                + "fewer stages or a smaller global batch, or run it anyway with " + kLiftWorkBudgetFlag
                + " (the Planner page asks).");
}

WorkEstimate estimateMicroBatchingWork(
    const std::vector<Sample>& samples, const LayerCostModel& model, const MicroBatchBuildConfig& config)
{
    const long long n = static_cast<long long>(samples.size());
    WorkEstimate estimate;
    estimate.job = "plan's micro-batching";
    // Its table holds at most 4 bytes a priced run: within the work budget at most 800 MB, so the
    // time is the bound (the table of 262,144 lognormal samples was 139 MB of the process's peak:
    // runs of longer samples end sooner than this count assumes).
    estimate.budget = limits::kMaxMicroBatchingWork;
    if (n == 0 || config.num_stages < 1 || config.layers_per_stage < 1 || config.chunks_per_device < 1
        || config.dp_size < 1 || config.tp < 1 || !(config.device_memory_mb > 0))
        return estimate; // buildMicroBatches names what is wrong
    Sample shortest = samples.front();
    for (const Sample& sample : samples) {
        shortest.seqlen = std::min(shortest.seqlen, sample.seqlen);
        shortest.decoder_seqlen = std::min(shortest.decoder_seqlen, sample.decoder_seqlen);
    }
    // Runs priced as buildMicroBatches prices them (pricedChunkShape), under the same limits.
    const PricedChunkShape priced = pricedChunkShape(model, config);
    SegmentShapeConfig shape;
    shape.tp = config.tp;
    shape.layers_per_stage = priced.layers_per_stage;
    shape.chunks_per_device = priced.chunks_per_device;
    shape.round_seqlen_multiple = config.round_seqlen_multiple;
    shape.decoder_additional_tokens = config.decoder_additional_tokens;
    long long longest = 0; // K: the longest run any DP run may price
    for (RecomputeType type : config.recompute_order) {
        if (!model.supports(config.tp, type))
            continue;
        const ActivationLimits limits = microBatchActivationLimits(model, config, type);
        if (!(limits.available_mb > 0))
            continue;
        shape.recompute = type;
        SegmentCostCache costs(model, shape);
        const int seqlen = paddedSeqlen(shortest.seqlen, shape);
        const int decoder = paddedDecoderSeqlen(shortest.decoder_seqlen, shape);
        // The "available" limit, the larger of the two the builder tries. Memory grows with the run
        // (the DP's own assumption), so the longest that fits is found by doubling, then halving.
        const auto fits = [&](long long length) {
            const SegmentCost cost = costs.cost(int(length), seqlen, decoder);
            return cost.stored_mb <= limits.available_mb && cost.peak_mb <= limits.available_mb;
        };
        if (!fits(1))
            continue;
        long long fitting = 1;
        long long failing = 2;
        while (failing <= n && fits(failing)) {
            fitting = failing;
            failing *= 2;
        }
        failing = std::min(failing, n + 1);
        while (failing - fitting > 1) {
            const long long middle = fitting + (failing - fitting) / 2;
            (fits(middle) ? fitting : failing) = middle;
        }
        longest = std::max(longest, fitting);
    }
    // Runs priced: sum over start positions of min(K, samples left).
    const double k = double(longest);
    const double runs = k * double(n) - k * (k - 1) / 2;
    estimate.work = runs;
    estimate.size = groupedCount(double(n)) + " samples in runs of up to " + groupedCount(k)
        + " (the longest within the memory limit), about " + groupedCount(runs) + " priced runs";
    return estimate;
}

void requireBoundedMicroBatching(
    const std::vector<Sample>& samples, const LayerCostModel& model, const MicroBatchBuildConfig& config, bool lifted)
{
    requireWithinBudget(estimateMicroBatchingWork(samples, model, config),
        "Plan fewer samples, on less --memory-mb, or run it anyway with " + std::string(kLiftWorkBudgetFlag)
            + " (the Planner page asks).",
        lifted);
}

WorkEstimate estimatePlanCompareWork(const std::vector<int>& globalBatches, int seeds, const PlannerConfig& config)
{
    WorkEstimate estimate;
    estimate.job = "mode comparison";
    estimate.budget = limits::kMaxPlanCompareWork;
    const double stages = std::max(1, config.num_stages);
    const int seedCount = std::max(1, seeds);
    double samples = 0;
    for (int batch : globalBatches)
        samples += std::max(0, batch);
    const double plannings = double(globalBatches.size()) * seedCount * 2;
    estimate.work = (samples * seedCount * 2 + plannings * limits::kPlanCompareFixedSamples) * stages;
    estimate.size = groupedCount(plannings) + " plannings (" + groupedCount(double(globalBatches.size()))
        + " batches x 2 modes x " + std::to_string(seedCount) + (seedCount == 1 ? " seed" : " seeds") + ") of "
        + groupedCount(samples * seedCount) + " samples on " + std::to_string(config.num_stages)
        + " stages, about " + groupedCount(estimate.work) + " sample-stages";
    return estimate;
}

void requireBoundedPlanCompare(const std::vector<int>& globalBatches, int seeds, const PlannerConfig& config)
{
    requireWithinBudget(estimatePlanCompareWork(globalBatches, seeds, config),
        "Compare fewer or smaller batches, with fewer --seeds, or run it anyway with "
            + std::string(kLiftWorkBudgetFlag) + " (the Planner page asks).",
        config.lift_work_budget);
}

} // namespace stratex::planner
