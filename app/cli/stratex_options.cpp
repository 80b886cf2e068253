// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/stratex_options.h"

#include "app/cli/cli_output.h"
#include "app/cli/setting_options.h"
#include "core/common/json_reader.h"
#include "core/hardware/cluster_json.h"

namespace stratex::cli {

void addStratexOptions(CliParser& parser)
{
    addSettingOptions(parser, megatron::strategySearchSettingTable());
    parser.option(QStringLiteral("cluster"), QStringLiteral("FILE"),
        QStringLiteral("Cluster JSON for the stratex model (GPU preset or figures, nodes, GPUs per node), as profile "
                       "sets and plan files carry it."));
}

megatron::StrategySearchSettings readStratexSettings(const CliParser& parser)
{
    megatron::StrategySearchSettings settings;
    readSettingOptions(parser, megatron::strategySearchSettingTable(), settings);
    return settings;
}

megatron::StratexInputs stratexInputs(const CliParser& parser, const megatron::StrategySearchSettings& stratex,
    const galvatron::SearchSettings& settings, const settings::SettingNames& given, const galvatron::ModelSettings& modelFlags,
    const settings::SettingNames& givenModel)
{
    megatron::StratexInputs inputs;
    inputs.settings = settings;
    inputs.given = given;
    inputs.model_flags = modelFlags;
    inputs.given_model = givenModel;
    inputs.stratex = stratex;
    if (parser.isSet(QStringLiteral("cluster"))) {
        const JsonDocument document = JsonDocument::load(parser.value(QStringLiteral("cluster")).toStdString());
        inputs.cluster_file = hardware::readCluster(document.root());
    }
    return inputs;
}

megatron::StratexTarget resolveStratexTarget(const megatron::StratexInputs& inputs)
{
    megatron::StratexTarget target = megatron::resolveStratexTarget(inputs);
    for (const std::string& warning : target.warnings)
        printErr("warning: " + warning + "\n");
    return target;
}

} // namespace stratex::cli
