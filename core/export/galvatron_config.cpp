// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/export/galvatron_config.h"

#include <algorithm>
#include <functional>

#include "core/common/json_output.h"
#include "core/export/shell_quote.h"
#include "core/model/model_json.h"
#include "core/hardware/cluster_json.h"
#include "core/galvatron/search_setting_table.h"

namespace stratex::exporting {

namespace {

std::string perLayer(const galvatron::Plan& plan, const std::function<int(const galvatron::LayerStrategy&)>& value)
{
    std::string text;
    for (std::size_t i = 0; i < plan.layers.size(); ++i) {
        if (i > 0)
            text += ',';
        text += std::to_string(value(plan.layers[i]));
    }
    return text;
}

} // namespace

nlohmann::ordered_json galvatronConfigJson(const galvatron::Plan& plan)
{
    nlohmann::ordered_json json;
    json["pp_deg"] = plan.layers.empty() ? plan.pp : plan.layers.front().pp;
    json["tp_sizes_enc"] = perLayer(plan, [](const galvatron::LayerStrategy& s) { return s.tpsp(); });
    // Galvatron main's per-layer context parallelism (utils/config_utils.py config2strategy: absent
    // means 1 everywhere), written only when a layer has it.
    const bool contextParallel
        = std::any_of(plan.layers.begin(), plan.layers.end(), [](const galvatron::LayerStrategy& s) { return s.cp > 1; });
    if (contextParallel)
        json["cp_sizes_enc"] = perLayer(plan, [](const galvatron::LayerStrategy& s) { return s.cp; });
    json["tp_consecutive_flags"] = perLayer(plan, [](const galvatron::LayerStrategy&) { return 1; });
    json["dp_types_enc"]
        = perLayer(plan, [](const galvatron::LayerStrategy& s) { return s.dp_type == galvatron::DpType::Zero3 ? 1 : 0; });
    json["use_sp"] = perLayer(plan, [](const galvatron::LayerStrategy& s) { return s.sp > 1 ? 1 : 0; });
    json["checkpoint"] = perLayer(plan, [](const galvatron::LayerStrategy& s) { return s.checkpoint ? 1 : 0; });
    json["world_size"] = plan.layers.empty() ? plan.world : plan.layers.front().world();
    json["global_bsz"] = plan.gbsz;
    json["chunks"] = plan.chunks;
    std::string division;
    for (std::size_t i = 0; i < plan.pp_division.size(); ++i)
        division += (i ? "," : "") + std::to_string(plan.pp_division[i]);
    json["pp_division"] = division;
    json["pipeline_type"] = std::string(galvatron::pipelineTypeName(plan.pipeline_type));
    json["default_dp_type"] = std::string(galvatron::dpTypeName(plan.default_dp_type));
    json["vtp"] = plan.vtp();
    json["vsp"] = plan.vsp();
    if (contextParallel || plan.embedding.cp > 1)
        json["vcp"] = plan.embedding.cp;
    json["embed_sdp"] = plan.embedSdp();
    return json;
}

nlohmann::ordered_json galvatronFileJson(const galvatron::Plan& plan)
{
    nlohmann::ordered_json json = galvatronConfigJson(plan);
    json["vocab_sdp"] = plan.embedSdp();
    return json;
}

std::string galvatronConfigText(const galvatron::Plan& plan)
{
    return jsonText(galvatronFileJson(plan), 4, "the Galvatron configuration");
}

nlohmann::ordered_json strategyFileJson(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const std::optional<model::ModelDescription>& model,
    const std::optional<hardware::ClusterDescription>& cluster)
{
    nlohmann::ordered_json json = galvatronFileJson(plan);
    if (model)
        json["model"] = model::toJson(*model);
    if (cluster)
        json["cluster"] = hardware::toJson(*cluster);
    json["search_settings"] = galvatron::searchSettingTable().toJson(settings);
    return json;
}

std::string strategyFileText(const galvatron::Plan& plan, const galvatron::SearchSettings& settings,
    const std::optional<model::ModelDescription>& model,
    const std::optional<hardware::ClusterDescription>& cluster)
{
    return jsonText(strategyFileJson(plan, settings, model, cluster), 4, "the strategy file");
}

std::string galvatronConfigFileName(const galvatron::SearchSettings& settings, const std::string& modelName)
{
    std::string name = "galvatron_config_" + fileNamePart(modelName) + "_" + std::to_string(settings.num_nodes) + "nodes_"
        + std::to_string(settings.num_gpus_per_node) + "gpus_per_node_" + std::to_string(settings.memory_constraint_gb)
        + "GB_" + std::string(galvatron::mixedPrecisionName(settings.mixed_precision));
    if (settings.settle_bsz > 0)
        name += "_bsz" + std::to_string(settings.settle_bsz);
    std::string off;
    const auto add = [&](bool disabled, const char* what) {
        if (disabled)
            off += (off.empty() ? "" : "_") + std::string(what);
    };
    add(settings.disable_dp, "dp");
    add(settings.disable_tp, "tp");
    add(settings.disable_pp, "pp");
    add(settings.disable_fsdp, "fsdp");
    add(settings.disable_ckpt, "ckpt");
    if (!off.empty())
        name += "_[" + off + "_off]";
    return name + ".json";
}

} // namespace stratex::exporting
