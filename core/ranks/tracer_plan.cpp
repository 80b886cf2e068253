// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/ranks/tracer_plan.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/common/error.h"

namespace stratex::ranks {

std::vector<int> selectTraceRanks(const RankGrid& grid, TraceSelection selection)
{
    const ParallelSizes& s = grid.sizes();
    std::vector<int> ranks;
    if (selection == TraceSelection::Dense) {
        ranks.reserve(std::size_t(s.pp));
        for (int stage = 0; stage < s.pp; ++stage)
            ranks.push_back(grid.decoderRank(0, 0, 0, stage));
    } else {
        ranks.reserve(std::size_t(s.pp) * std::size_t(s.ep));
        for (int stage = 0; stage < s.pp; ++stage) {
            for (int expert = 0; expert < s.ep; ++expert)
                ranks.push_back(grid.expertRank(0, expert, 0, stage));
        }
    }
    std::sort(ranks.begin(), ranks.end());
    return ranks;
}

std::string traceLogDirName(const std::string& model, int index, int world, int pp, int tp, int dp, int microBatches,
    int microBatchSize, int globalBatch)
{
    return "SIM_GPT_" + model + "_Config" + std::to_string(index) + "_WS" + std::to_string(world) + "_PP"
        + std::to_string(pp) + "_TP" + std::to_string(tp) + "_DP" + std::to_string(dp) + "_nMICROB"
        + std::to_string(microBatches) + "_MICROB_SIZE" + std::to_string(microBatchSize) + "_GLOBAL_BATCH"
        + std::to_string(globalBatch);
}

TraceConfigPlan planTraceConfig(int index, const BatchConfig& input, const TracerSettings& settings)
{
    TraceConfigPlan plan;
    plan.index = index;
    plan.input = input;
    if (!input.parseError.empty()) {
        plan.error = input.parseError;
        return plan;
    }
    try {
        if (settings.model.empty()
            || settings.model.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
                != std::string::npos)
            throw Error("model name \"" + settings.model
                + "\" may only hold letters, digits, '.', '_' and '-' (it names a log directory)");
        if (settings.microBatchSize <= 0)
            throw Error("micro-batch size must be a positive integer, got " + std::to_string(settings.microBatchSize));
        ParallelConfig config;
        config.world = input.world;
        config.pp = input.pp;
        config.tp = input.tp;
        config.cp = settings.cp;
        config.ep = settings.ep;
        config.etp = settings.etp;
        config.order = settings.order;
        config.gpusPerNode = settings.gpusPerNode;
        const RankGrid grid = RankGrid::create(config);
        plan.dp = grid.sizes().dp;

        const long long perStep = static_cast<long long>(settings.microBatchSize) * plan.dp;
        if (settings.globalBatch > 0) {
            if (settings.globalBatch % perStep != 0)
                throw Error("global batch " + std::to_string(settings.globalBatch)
                    + " is not divisible by micro-batch size * DP = " + std::to_string(perStep));
            plan.microBatches = static_cast<int>(settings.globalBatch / perStep);
            plan.globalBatch = settings.globalBatch;
            if (settings.microBatches > 0 && settings.microBatches != plan.microBatches)
                throw Error("global batch " + std::to_string(settings.globalBatch) + " means "
                    + std::to_string(plan.microBatches) + " micro-batches at DP " + std::to_string(plan.dp) + ", not "
                    + std::to_string(settings.microBatches));
        } else {
            plan.microBatches = settings.microBatches > 0 ? settings.microBatches : 1;
            const long long global = perStep * plan.microBatches;
            if (global > std::numeric_limits<int>::max())
                throw Error("global batch " + std::to_string(global) + " is too large");
            plan.globalBatch = static_cast<int>(global);
        }

        plan.ranks = selectTraceRanks(grid, settings.selection);
        plan.originalRanks = grid.world();
        const double saving = 100.0 * (1.0 - double(plan.ranks.size()) / double(plan.originalRanks));
        plan.savingPercent = std::round(saving * 10.0) / 10.0;
        plan.logDir = traceLogDirName(settings.model, index, input.world, input.pp, input.tp, plan.dp,
            plan.microBatches, settings.microBatchSize, plan.globalBatch);
        plan.valid = true;
    } catch (const Error& error) {
        plan.error = error.what();
        plan.ranks.clear();
    }
    return plan;
}

std::vector<TraceConfigPlan> planTracer(
    const std::vector<BatchConfig>& configs, const TracerSettings& settings, ProgressSink& progress)
{
    std::vector<TraceConfigPlan> plans;
    if (configs.empty()) {
        plans.push_back(planTraceConfig(1, defaultBatchConfig(), settings));
        return plans;
    }
    plans.reserve(configs.size());
    for (std::size_t i = 0; i < configs.size(); ++i) {
        progress.throwIfCancelled();
        plans.push_back(planTraceConfig(static_cast<int>(i) + 1, configs[i], settings));
        progress.report(double(i + 1) / double(configs.size()), "planning tracer ranks");
    }
    return plans;
}

std::vector<TraceConfigPlan> planTracer(const std::vector<BatchConfig>& configs, const TracerSettings& settings)
{
    NullProgress progress;
    return planTracer(configs, settings, progress);
}

TracerSummary summarizeTracer(const std::vector<TraceConfigPlan>& plans)
{
    TracerSummary summary;
    for (const TraceConfigPlan& plan : plans) {
        if (!plan.valid)
            continue;
        ++summary.valid;
        summary.selected_ranks += static_cast<long long>(plan.ranks.size());
        summary.original_ranks += plan.originalRanks;
    }
    if (summary.original_ranks > 0)
        summary.saving_percent = 100.0 * (1.0 - double(summary.selected_ranks) / double(summary.original_ranks));
    return summary;
}

} // namespace stratex::ranks
