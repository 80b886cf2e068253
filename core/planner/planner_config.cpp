// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace stratex::planner {

std::string_view plannerModeName(PlannerMode mode)
{
    switch (mode) {
    case PlannerMode::Normal:
        return "normal";
    case PlannerMode::Fast:
        return "fast";
    case PlannerMode::Auto:
        return "auto";
    }
    return "auto";
}

std::optional<PlannerMode> plannerModeFromEnvironmentValue(const char* value)
{
    if (!value)
        return std::nullopt;
    std::string text(value);
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
    if (text == "1" || text == "true" || text == "yes" || text == "on")
        return PlannerMode::Fast;
    if (text == "0" || text == "false" || text == "no" || text == "off")
        return PlannerMode::Normal;
    if (text == "auto")
        return PlannerMode::Auto;
    return std::nullopt;
}

std::optional<PlannerMode> plannerModeFromEnvironment()
{
    return plannerModeFromEnvironmentValue(std::getenv("STRATEX_FAST_MODE"));
}

SearchLimits searchLimits(PlannerMode resolvedMode)
{
    SearchLimits limits;
    if (resolvedMode == PlannerMode::Fast) {
        limits.all_schedules = false;
        limits.all_recompute_types = false;
        limits.plain_start = false;
        limits.max_adjust_rounds = 3;
        limits.microbatches_per_device = 2;
        limits.max_microbatches_per_round = 2;
    } else {
        limits.include_fast_search = true;
        limits.cover_overflow = true;
    }
    return limits;
}

PlannerMode resolvePlannerMode(const PlannerConfig& config, int globalMicrobatches)
{
    if (config.mode != PlannerMode::Auto)
        return config.mode;
    return globalMicrobatches > config.auto_fast_above_microbatches ? PlannerMode::Fast : PlannerMode::Normal;
}

sim::CommModel groupCommModel(const PlannerConfig& config, int dpGroup)
{
    sim::CommModel comm = config.comm;
    if (comm.node_of_device.empty() && config.gpus_per_node > 0) {
        for (int stage = 0; stage < config.num_stages; ++stage) {
            const long long rank = (static_cast<long long>(stage) * config.dp_size + dpGroup) * config.tp;
            comm.node_of_device.push_back(static_cast<int>(rank / config.gpus_per_node));
        }
    }
    return comm;
}

bool communicationModelled(const PlannerConfig& config, int hiddenSize)
{
    const sim::CommModel& comm = config.comm;
    const bool latency = comm.intra_node_lat_us > 0 || comm.inter_node_lat_us > 0;
    const bool bandwidth = hiddenSize > 0 && (comm.intra_node_bw_gbps > 0 || comm.inter_node_bw_gbps > 0);
    return latency || bandwidth;
}

} // namespace stratex::planner
