// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/stratex_options.h"

#include <algorithm>

#include "app/cli/cli_output.h"
#include "app/cli/setting_options.h"
#include "core/common/error.h"
#include "core/common/json_reader.h"
#include "core/profile/synth/cluster_json.h"

namespace stratex::cli {

namespace {

// The search table's settings the stratex model reads too: the cluster's shape, the memory budget,
// the batch (as a fallback for --global-batch-size) and the model's shape.
constexpr std::string_view kSharedFlags[] = { "num-nodes", "num-gpus-per-node", "memory-constraint", "settle-bsz",
    "seq-length", "hidden-size", "num-layers", "num-heads", "vocab-size", "model-name" };

} // namespace

void addStratexOptions(CliParser& parser)
{
    addSettingOptions(parser, perf::strategySearchSettingTable());
    parser.option(QStringLiteral("cluster"), QStringLiteral("FILE"),
        QStringLiteral("Cluster JSON for the stratex model (GPU preset or figures, nodes, GPUs per node), as profile "
                       "sets and plan files carry it."));
}

perf::StrategySearchSettings readStratexSettings(const CliParser& parser)
{
    perf::StrategySearchSettings settings;
    readSettingOptions(parser, perf::strategySearchSettingTable(), settings);
    return settings;
}

StratexTarget resolveStratexTarget(const CliParser& parser, const perf::StrategySearchSettings& stratex,
    const search::SearchSettings& settings, const settings::SettingNames& given, const search::ModelSettings& modelFlags,
    const settings::SettingNames& givenModel, const StratexBase& base)
{
    StratexTarget target;
    const search::ResolvedModel resolved
        = search::resolveModel(base.model, base.label + "'s model", settings, given, modelFlags, givenModel);
    for (const std::string& warning : resolved.warnings)
        printErr("warning: " + warning + "\n");
    if (!resolved.model)
        throw Error(search::missingModelMessage("the stratex cost model",
            base.model ? base.label : std::string("the command line"), resolved.missing));
    target.model = *resolved.model;

    std::optional<profile::synth::ClusterDescription> cluster;
    if (parser.isSet(QStringLiteral("cluster"))) {
        const JsonDocument document
            = JsonDocument::load(parser.value(QStringLiteral("cluster")).toStdString());
        cluster = profile::synth::readCluster(document.root());
    } else if (base.cluster) {
        cluster = base.cluster;
    }
    if (!stratex.gpu.empty()) {
        profile::synth::GpuDescription gpu = profile::synth::gpuPreset(stratex.gpu);
        if (cluster && cluster->gpu.name != gpu.name)
            printErr("warning: --gpu " + stratex.gpu + " replaces the GPU " + cluster->gpu.name + "\n");
        if (!cluster) {
            cluster.emplace();
            cluster->num_nodes = settings.num_nodes;
            cluster->gpus_per_node = settings.num_gpus_per_node;
        }
        cluster->gpu = std::move(gpu);
    }
    if (!cluster)
        throw Error("the stratex cost model needs the GPU: give --gpu PRESET (profile synth --gpu's names), "
                    "--cluster FILE or a profile set made by 'stratex-cli profile synth'");
    if (given.contains("num-nodes"))
        cluster->num_nodes = settings.num_nodes;
    if (given.contains("num-gpus-per-node"))
        cluster->gpus_per_node = settings.num_gpus_per_node;
    target.cluster = *cluster;
    target.efficiency = perf::efficiencyFor(target.cluster); // a calibrated cluster's own, else the preset fit
    // GB as GPUs count them, binary (an "80 GB" H100 has 80 GiB); MB = 1e6 bytes in the estimates.
    constexpr double kMbPerGib = 1073.741824;
    target.memory_limit_mb = (given.contains("memory-constraint") ? settings.memory_constraint_gb
                                                                  : target.cluster.gpu.memory_gb)
        * kMbPerGib;
    return target;
}

std::vector<std::string> galvatronOnlyFlags(const settings::SettingNames& given)
{
    std::vector<std::string> flags;
    for (const std::string& flag : given) {
        if (std::ranges::find(kSharedFlags, flag) == std::end(kSharedFlags))
            flags.push_back("--" + flag);
    }
    return flags;
}

} // namespace stratex::cli
