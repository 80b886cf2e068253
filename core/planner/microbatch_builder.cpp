// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/microbatch_builder.h"

#include <algorithm>

#include "core/common/error.h"
#include "core/planner/partition_kk.h"

namespace stratex::planner {

namespace {

void validate(const std::vector<Sample>& samples, const LayerCostModel& model, const MicroBatchBuildConfig& config)
{
    if (config.num_stages < 1 || config.layers_per_stage < 1 || config.chunks_per_device < 1 || config.dp_size < 1
        || config.tp < 1)
        throw Error("stages, layers per stage, chunks, dp and tp must all be at least 1");
    if (!(config.device_memory_mb > 0))
        throw Error("the device memory limit must be positive");
    if (samples.empty())
        throw Error("the global batch has no samples");
    for (const Sample& sample : samples) {
        if (sample.seqlen < 1 || sample.decoder_seqlen < 0)
            throw Error("sample " + std::to_string(sample.id) + " has an invalid length");
        if (!model.isEncoderDecoder() && sample.decoder_seqlen > 0)
            throw Error("sample " + std::to_string(sample.id) + " has a decoder length, but " + model.name()
                + " is a decoder-only model");
    }
    bool any = false;
    for (RecomputeType type : config.recompute_order)
        any = any || model.supports(config.tp, type);
    if (!any)
        throw Error("cost model " + model.name() + " has no recompute type for tp " + std::to_string(config.tp));
}

} // namespace

PricedChunkShape pricedChunkShape(const LayerCostModel& model, const MicroBatchBuildConfig& config)
{
    if (model.isEncoderDecoder() && config.num_stages == 1)
        return { std::max(1, config.layers_per_stage / 2), 2 };
    return { config.layers_per_stage, config.chunks_per_device };
}

double modelStateMb(const LayerCostModel& model, const MicroBatchBuildConfig& config, RecomputeType type)
{
    const OptimizerStateConfig optimizer { config.zero_stage, config.dp_size };
    return bottleneckModelStateMb(model.parameterSizes(config.tp, type), config.layers_per_stage,
        config.chunks_per_device, optimizer, model.isEncoderDecoder());
}

ActivationLimits microBatchActivationLimits(
    const LayerCostModel& model, const MicroBatchBuildConfig& config, RecomputeType type)
{
    return activationLimits(
        config.device_memory_mb, modelStateMb(model, config, type), config.num_stages, config.per_mb_memory_fraction);
}

MicroBatchBuildResult buildMicroBatches(const std::vector<Sample>& samples, const LayerCostModel& model,
    const MicroBatchBuildConfig& config, ProgressSink& progress)
{
    validate(samples, model, config);
    MicroBatchBuildResult result;
    result.order = orderSamples(samples, model.isEncoderDecoder(), config.order, progress);

    MicroBatchDpConfig dp;
    dp.num_stages = config.num_stages;
    const PricedChunkShape shape = pricedChunkShape(model, config);
    dp.chunks_per_device = shape.chunks_per_device;
    dp.layers_per_stage = shape.layers_per_stage;
    dp.dp_size = config.dp_size;
    dp.tp = config.tp;
    dp.round_seqlen_multiple = config.round_seqlen_multiple;
    dp.decoder_additional_tokens = config.decoder_additional_tokens;
    dp.min_tmax_interval_ms = config.min_tmax_interval_ms;

    std::vector<RecomputeType> types;
    for (RecomputeType type : config.recompute_order) {
        if (model.supports(config.tp, type))
            types.push_back(type);
    }
    const int attempts = 2 * static_cast<int>(types.size());
    int attempt = 0;
    for (const bool preferred : { true, false }) {
        for (RecomputeType type : types) {
            SubProgress step(progress, double(attempt) / attempts, double(attempt + 1) / attempts);
            ++attempt;
            const ActivationLimits limits = microBatchActivationLimits(model, config, type);
            if (!(limits.available_mb > 0))
                continue;
            dp.recompute = type;
            dp.stored_activation_limit_mb = preferred ? limits.preferred_stored_mb : limits.available_mb;
            dp.peak_activation_limit_mb = limits.available_mb;
            MicroBatchDpResult split = runMicroBatchDp(result.order, model, dp, step);
            ++result.dp_runs;
            if (!split.feasible)
                continue;
            result.feasible = true;
            result.recompute = type;
            result.used_preferred_limit = preferred;
            result.limits = limits;
            result.stored_limit_mb = dp.stored_activation_limit_mb;
            result.dp = std::move(split);
            break;
        }
        if (result.feasible)
            break;
    }
    if (!result.feasible) {
        const double state = modelStateMb(model, config, types.front());
        result.infeasible_reason = state >= config.device_memory_mb
            ? "the model state alone (" + std::to_string(static_cast<long long>(state)) + " MB) does not fit in "
                + std::to_string(static_cast<long long>(config.device_memory_mb)) + " MB"
            : "no split of the global batch fits the activation memory with any recompute type "
              "(the longest sample alone does not fit)";
        return result;
    }

    const std::vector<MicroBatch>& all = result.dp.microbatches;
    if (static_cast<int>(all.size()) < config.dp_size) {
        result.feasible = false;
        result.infeasible_reason = "the global batch gives " + std::to_string(all.size())
            + " micro-batches, fewer than the " + std::to_string(config.dp_size) + " data-parallel groups";
        return result;
    }
    std::vector<double> times;
    for (const MicroBatch& mb : all)
        times.push_back(mb.time_ms);
    for (const std::vector<int>& bin : partitionLargestDifferencing(times, config.dp_size)) {
        std::vector<MicroBatch> group;
        for (int index : bin)
            group.push_back(all[static_cast<std::size_t>(index)]);
        result.dp_groups.push_back(std::move(group));
    }
    progress.report(1.0, "micro-batches ready");
    return result;
}

} // namespace stratex::planner
