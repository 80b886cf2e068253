// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/stratex_options.h"

#include "app/cli/cli_output.h"
#include "app/cli/setting_options.h"
#include "core/common/json_reader.h"
#include "core/profile/synth/cluster_json.h"

namespace stratex::cli {

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

perf::StratexInputs stratexInputs(const CliParser& parser, const perf::StrategySearchSettings& stratex,
    const search::SearchSettings& settings, const settings::SettingNames& given, const search::ModelSettings& modelFlags,
    const settings::SettingNames& givenModel)
{
    perf::StratexInputs inputs;
    inputs.settings = settings;
    inputs.given = given;
    inputs.model_flags = modelFlags;
    inputs.given_model = givenModel;
    inputs.stratex = stratex;
    if (parser.isSet(QStringLiteral("cluster"))) {
        const JsonDocument document = JsonDocument::load(parser.value(QStringLiteral("cluster")).toStdString());
        inputs.cluster_file = profile::synth::readCluster(document.root());
    }
    return inputs;
}

perf::StratexTarget resolveStratexTarget(const perf::StratexInputs& inputs)
{
    perf::StratexTarget target = perf::resolveStratexTarget(inputs);
    for (const std::string& warning : target.warnings)
        printErr("warning: " + warning + "\n");
    return target;
}

} // namespace stratex::cli
