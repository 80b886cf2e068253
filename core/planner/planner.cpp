// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner.h"

#include <algorithm>
#include <chrono>
#include <cmath>

#include "core/common/error.h"
#include "core/planner/planner_search.h"
#include "core/planner/planner_spec.h"
#include "core/planner/planner_work.h"

namespace stratex::planner {

namespace {

using Clock = std::chrono::steady_clock;

double elapsedMs(Clock::time_point since)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - since).count();
}

void validate(const LayerCostModel& model, const PlannerConfig& config)
{
    if (config.num_stages < 1 || config.layers_per_stage < 1 || config.chunks_per_device < 1 || config.dp_size < 1
        || config.tp < 1)
        throw Error("stages, layers per stage, chunks, dp and tp must all be at least 1");
    if (!(config.device_memory_mb > 0))
        throw Error("the device memory limit must be positive");
    if (model.recomputeTypes(config.tp).empty())
        throw Error("cost model " + model.name() + " has nothing for tp " + std::to_string(config.tp));
    const sim::CommModel& comm = config.comm;
    for (double value :
        { comm.intra_node_bw_gbps, comm.inter_node_bw_gbps, comm.intra_node_lat_us, comm.inter_node_lat_us }) {
        if (!std::isfinite(value) || value < 0)
            throw Error("link bandwidths and latencies must be finite and at least 0");
    }
    if (config.hidden_size < 0 || config.gpus_per_node < 0)
        throw Error("the hidden size and GPUs per node must be at least 0");
}

MicroBatchBuildConfig microbatchingConfig(const PlannerConfig& config)
{
    MicroBatchBuildConfig build = config.microbatching;
    build.num_stages = config.num_stages;
    build.layers_per_stage = config.layers_per_stage;
    build.chunks_per_device = config.chunks_per_device;
    build.dp_size = config.dp_size;
    build.tp = config.tp;
    build.zero_stage = config.zero_stage;
    build.device_memory_mb = config.device_memory_mb;
    return build;
}

} // namespace

PlanResult planGlobalBatch(const std::vector<Sample>& samples, const LayerCostModel& model, const PlannerConfig& config,
    ProgressSink& progress)
{
    const Clock::time_point start = Clock::now();
    validate(model, config);
    // Fails early on a placement the schedules cannot run, before the DP's work.
    const PipelineModel pipeline = makePipelineModel(config.num_stages, config.layers_per_stage,
        config.chunks_per_device, model.isEncoderDecoder(), config.placement);
    candidateSchedules(pipeline, config.schedules, SearchLimits {});

    PlanResult result;
    result.requested_mode = config.mode;
    result.hidden_size = config.hidden_size > 0 ? config.hidden_size : model.hiddenSize();
    result.communication_modelled = communicationModelled(config, result.hidden_size);
    constexpr double kMicrobatchingShare = 0.15;
    requireBoundedMicroBatching(samples, model, microbatchingConfig(config), config.lift_work_budget);
    {
        SubProgress step(progress, 0, kMicrobatchingShare);
        result.microbatching = buildMicroBatches(samples, model, microbatchingConfig(config), step);
    }
    result.microbatching_time_ms = elapsedMs(start);
    result.mode = resolvePlannerMode(config, result.global_microbatches());
    if (!result.microbatching.feasible) {
        result.infeasible_reason = result.microbatching.infeasible_reason;
        result.planning_time_ms = elapsedMs(start);
        return result;
    }
    requireBoundedPlanning(result.microbatching, config, result.mode);

    const Clock::time_point scheduling = Clock::now();
    const auto& groups = result.microbatching.dp_groups;
    result.feasible = true;
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const double share = (1 - kMicrobatchingShare) / double(groups.size());
        SubProgress step(
            progress, kMicrobatchingShare + share * double(g), kMicrobatchingShare + share * double(g + 1));
        GroupSearchInput input;
        input.model = &model;
        input.config = config;
        input.config.hidden_size = result.hidden_size;
        input.config.comm = groupCommModel(config, static_cast<int>(g));
        input.pipeline = pipeline;
        input.microbatches = groups[g];
        input.limits = searchLimits(result.mode);
        input.dp_group = static_cast<int>(g);
        GroupPlan plan = searchGroupPlan(input, step);
        result.candidates_simulated += plan.simulations;
        result.makespan_ms = std::max(result.makespan_ms, plan.makespan_ms);
        result.peak_memory_mb_per_device.resize(
            std::max(result.peak_memory_mb_per_device.size(), plan.peak_memory_mb_per_device.size()), 0.0);
        for (std::size_t d = 0; d < plan.peak_memory_mb_per_device.size(); ++d)
            result.peak_memory_mb_per_device[d]
                = std::max(result.peak_memory_mb_per_device[d], plan.peak_memory_mb_per_device[d]);
        if (!plan.feasible && result.feasible) {
            result.feasible = false;
            result.infeasible_reason = "data-parallel group " + std::to_string(g) + ": " + plan.infeasible_reason;
        }
        result.groups.push_back(std::move(plan));
    }
    result.scheduling_time_ms = elapsedMs(scheduling);
    result.planning_time_ms = elapsedMs(start);
    progress.report(1.0, result.feasible ? "plan ready" : "no plan fits");
    return result;
}

} // namespace stratex::planner
