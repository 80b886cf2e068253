// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/plan_options.h"

#include <filesystem>

#include "app/cli/setting_options.h"
#include "core/planner/microbatch_lengths.h"
#include "core/planner/planner_setting_table.h"

namespace stratex::cli {

using namespace stratex::planner;
using namespace stratex::sim;

void addPlanOptions(CliParser& parser)
{
    parser.option(QStringLiteral("cost-model"), QStringLiteral("FILE"),
        QStringLiteral("DynaPipe cost model JSON (required; repeat to merge files, e.g. one per recompute type)."));
    parser.option(QStringLiteral("lengths"), QStringLiteral("FILE"),
        QStringLiteral("Sample lengths: text, one \"LEN\" or \"ENC DEC\" per line, or JSON [LEN,...], "
                       "[[ENC,DEC],...] or {\"sample_lengths\":[...]}."));
    parser.option(QStringLiteral("synthetic"), QStringLiteral("lognormal:MEAN,SIGMA,N[:SEED]"),
        QStringLiteral("Synthetic lengths instead of --lengths: N samples, ln(length) ~ Normal(MEAN, SIGMA), "
                       "clamped to 8..4096 tokens."));
    addSettingOptions(parser, plannerSettingTable());
}

PlanInputs readPlanOptions(const CliParser& parser)
{
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    if (!parser.isSet(QStringLiteral("cost-model")))
        parser.usageError(QStringLiteral("--cost-model is required"));

    PlanInputs inputs;
    // The environment's mode is the default a --mode on the command line overrides.
    inputs.config.mode = plannerModeFromEnvironment().value_or(PlannerMode::Auto);
    readSettingOptions(parser, plannerSettingTable(), inputs.config);

    const bool lengths = parser.isSet(QStringLiteral("lengths"));
    const bool synthetic = parser.isSet(QStringLiteral("synthetic"));
    if (lengths == synthetic)
        parser.usageError(QStringLiteral("give exactly one of --lengths and --synthetic"));

    std::vector<std::filesystem::path> files;
    for (const QString& file : parser.values(QStringLiteral("cost-model")))
        files.emplace_back(file.toStdString());
    inputs.model = std::make_unique<DynapipeCostModel>(DynapipeCostModel::load(files));
    if (lengths) {
        inputs.samples = loadSampleLengths(parser.value(QStringLiteral("lengths")).toStdString());
    } else {
        const SyntheticLengthSpec spec
            = parseSyntheticLengthSpec(parser.value(QStringLiteral("synthetic")).toStdString());
        inputs.samples = generateSyntheticSamples(spec, inputs.model->isEncoderDecoder());
    }
    return inputs;
}

} // namespace stratex::cli
