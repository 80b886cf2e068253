// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/planner/planner_json.h"

#include <cmath>

#include "core/sim/schedule_kind.h"

namespace stratex::planner {

namespace {

using Json = nlohmann::ordered_json;

// Three decimals keep the files readable and stable across platforms' last-bit differences.
double rounded(double value)
{
    return std::round(value * 1000) / 1000;
}

Json roundedArray(const std::vector<double>& values)
{
    Json array = Json::array();
    for (double v : values)
        array.push_back(rounded(v));
    return array;
}

Json groupJson(const GroupPlan& group, bool full)
{
    Json json;
    json["dp_group"] = group.dp_group;
    json["feasible"] = group.feasible;
    if (!group.feasible)
        json["reason"] = group.infeasible_reason;
    json["schedule"] = std::string(sim::scheduleName(group.schedule));
    json["base_recompute"] = std::string(recomputeTypeName(group.base_recompute));
    json["makespan_ms"] = rounded(group.makespan_ms);
    json["peak_memory_mb_per_device"] = roundedArray(group.peak_memory_mb_per_device);
    json["memory_throttled"] = group.memory_throttled;
    json["adjust_rounds"] = group.adjust_rounds;
    json["schedule_candidates"] = group.schedule_candidates;
    json["permutations_tried"] = group.permutations_tried;
    json["simulations"] = group.simulations;
    json["pruned"] = group.pruned;
    json["deadlock_free"] = !group.instructions.ranks.empty() && group.deadlock.ok;
    Json microbatches = Json::array();
    for (const PlannedMicroBatch& planned : group.microbatches) {
        const MicroBatch& mb = planned.microbatch;
        Json entry;
        entry["id"] = mb.id;
        entry["sample_ids"] = mb.sample_ids;
        entry["micro_batch_size"] = mb.micro_batch_size;
        entry["padded_seqlen"] = mb.padded_seqlen;
        if (mb.padded_decoder_seqlen > 0)
            entry["padded_decoder_seqlen"] = mb.padded_decoder_seqlen;
        entry["estimated_time_ms"] = rounded(mb.time_ms);
        Json recompute = Json::array();
        for (RecomputeType type : planned.recompute_per_device)
            recompute.push_back(std::string(recomputeTypeName(type)));
        entry["recompute_per_device"] = recompute;
        microbatches.push_back(entry);
    }
    json["microbatches"] = microbatches;
    if (full) {
        json["device_assignment"] = group.input.device_assignment;
        json["instructions"] = sim::instructionsJson(group.instructions);
    }
    return json;
}

Json planJsonImpl(const PlanResult& plan, double memoryLimitMb, bool full)
{
    Json json;
    json["feasible"] = plan.feasible;
    if (!plan.feasible)
        json["reason"] = plan.infeasible_reason;
    json["mode"] = std::string(plannerModeName(plan.mode));
    json["requested_mode"] = std::string(plannerModeName(plan.requested_mode));
    json["planning_time_ms"] = rounded(plan.planning_time_ms);
    json["makespan_ms"] = rounded(plan.makespan_ms);
    json["microbatching_time_ms"] = rounded(plan.microbatching_time_ms);
    json["scheduling_time_ms"] = rounded(plan.scheduling_time_ms);
    json["candidates_simulated"] = plan.candidates_simulated;
    json["communication_modelled"] = plan.communication_modelled;
    json["hidden_size"] = plan.hidden_size;
    json["memory_limit_mb"] = rounded(memoryLimitMb);
    json["peak_memory_mb_per_device"] = roundedArray(plan.peak_memory_mb_per_device);
    json["samples"] = plan.microbatching.order.size();
    json["microbatch_count"] = plan.global_microbatches();
    json["dp_recompute"] = std::string(recomputeTypeName(plan.microbatching.recompute));
    json["dp_objective_ms"] = plan.microbatching.feasible ? Json(rounded(plan.microbatching.dp.objective)) : Json();
    json["dp_t_max_ms"] = plan.microbatching.feasible ? Json(rounded(plan.microbatching.dp.t_max_ms)) : Json();
    Json groups = Json::array();
    for (const GroupPlan& group : plan.groups)
        groups.push_back(groupJson(group, full));
    json["groups"] = groups;
    return json;
}

} // namespace

nlohmann::ordered_json planSummaryJson(const PlanResult& plan, double memoryLimitMb)
{
    return planJsonImpl(plan, memoryLimitMb, false);
}

nlohmann::ordered_json planJson(const PlanResult& plan, double memoryLimitMb)
{
    return planJsonImpl(plan, memoryLimitMb, true);
}

} // namespace stratex::planner
