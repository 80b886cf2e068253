// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/plan_json.h"

#include "core/export/galvatron_config.h"

namespace stratex::exporting {

nlohmann::ordered_json planJson(const galvatron::Plan& plan)
{
    nlohmann::ordered_json json;
    json["gbsz"] = plan.gbsz;
    json["chunks"] = plan.chunks;
    json["pp"] = plan.pp;
    json["time_cost_s"] = plan.time_cost_s;
    json["throughput_samples_per_s"] = plan.throughput_samples_per_s;
    json["memory_cost_mb_per_stage"] = plan.memory_cost_mb_per_stage;
    json["memory_remaining_mb_per_stage"] = plan.memory_remaining_mb_per_stage;
    json["strategy"] = galvatronConfigJson(plan);
    return json;
}

nlohmann::ordered_json searchResultJson(const galvatron::SearchResult& result)
{
    nlohmann::ordered_json json;
    json["best"] = result.best ? planJson(*result.best) : nlohmann::ordered_json();
    json["top"] = nlohmann::ordered_json::array();
    for (const galvatron::Plan& plan : result.top)
        json["top"].push_back(planJson(plan));
    json["pareto"] = nlohmann::ordered_json::array();
    for (const galvatron::Plan& plan : result.pareto)
        json["pareto"].push_back(planJson(plan));
    json["search_time_s"] = result.stats.search_time_s;
    json["dp_calls"] = result.stats.dp_calls;
    json["threads"] = result.stats.threads;
    return json;
}

nlohmann::ordered_json evaluationJson(const galvatron::Evaluation& evaluation)
{
    nlohmann::ordered_json json = planJson(evaluation.plan);
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const galvatron::LayerBreakdown& layer : evaluation.layers) {
        nlohmann::ordered_json l;
        l["time_s"] = layer.time.sync_s;
        l["memory_mb"] = layer.memory.weight_mb;
        l["time_no_sync_s"] = layer.time.no_sync_s;
        l["stage"] = layer.stage;
        l["strategy"] = layer.strategy.notation();
        l["tp"] = layer.strategy.tp;
        l["sp"] = layer.strategy.sp;
        l["dp"] = layer.strategy.dp;
        l["dp_type"] = std::string(galvatron::dpTypeName(layer.strategy.dp_type));
        l["checkpoint"] = layer.strategy.checkpoint;
        l["local_batch"] = layer.time.local_batch;
        l["model_states_mb"] = layer.memory.model_states_mb;
        l["activation_mb"] = layer.memory.activation_mb;
        const double L = double(evaluation.layers.size());
        l["forward_ms"] = layer.time.steps.fct_ms / L;
        l["backward_ms"] = layer.time.steps.bct_ms / L;
        l["tp_comm_ms"] = layer.time.steps.tp_comm_ms / L;
        l["zero3_gather_ms"] = layer.time.steps.zero3_gather_ms / L;
        l["p2p_ms"] = layer.time.steps.p2p_ms / L;
        layers.push_back(l);
    }
    json["layers"] = layers;
    nlohmann::ordered_json stages = nlohmann::ordered_json::array();
    for (const galvatron::StageBreakdown& stage : evaluation.stages) {
        nlohmann::ordered_json s;
        s["stage"] = stage.stage;
        s["first_layer"] = stage.first_layer;
        s["layers"] = stage.layers;
        s["time_sync_s"] = stage.time_sync_s;
        s["time_no_sync_s"] = stage.time_no_sync_s;
        s["embedding_time_s"] = stage.embedding_time_s;
        s["exposed_sync_s"] = stage.exposed_sync_s;
        s["layer_memory_mb"] = stage.layer_memory_mb;
        s["embedding_memory_mb"] = stage.embedding_memory_mb;
        s["global_buffer_mb"] = stage.global_buffer_mb;
        s["memory_cost_mb"] = stage.memory_cost_mb;
        s["memory_remaining_mb"] = stage.memory_remaining_mb;
        stages.push_back(s);
    }
    json["stages"] = stages;
    json["fits"] = evaluation.fits;
    json["notes"] = evaluation.notes;
    return json;
}

} // namespace stratex::exporting
