// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/plan_options.h"

#include <filesystem>

#include "core/planner/microbatch_lengths.h"

namespace stratex::cli {

using namespace stratex::planner;
using namespace stratex::sim;

void addPlanOptions(CliParser& parser)
{
    parser.option(QStringLiteral("cost-model"), QStringLiteral("FILE"),
        QStringLiteral("DynaPipe cost model JSON (required; repeat to merge files, e.g. one per recompute type)."));
    parser.option(QStringLiteral("tp"), QStringLiteral("T"), QStringLiteral("Tensor-parallel size (default 1)."));
    parser.option(QStringLiteral("lengths"), QStringLiteral("FILE"),
        QStringLiteral("Sample lengths: text, one \"LEN\" or \"ENC DEC\" per line, or JSON [LEN,...], "
                       "[[ENC,DEC],...] or {\"sample_lengths\":[...]}."));
    parser.option(QStringLiteral("synthetic"), QStringLiteral("lognormal:MEAN,SIGMA,N[:SEED]"),
        QStringLiteral("Synthetic lengths instead of --lengths: N samples, ln(length) ~ Normal(MEAN, SIGMA), "
                       "clamped to 8..4096 tokens."));
    parser.option(
        QStringLiteral("stages"), QStringLiteral("P"), QStringLiteral("Pipeline stages (devices, required)."));
    parser.option(QStringLiteral("layers-per-stage"), QStringLiteral("L"),
        QStringLiteral("Transformer layers per pipeline stage (required)."));
    parser.option(QStringLiteral("dp"), QStringLiteral("D"),
        QStringLiteral("Data-parallel groups the micro-batches are split over (default 1)."));
    parser.option(QStringLiteral("chunks"), QStringLiteral("C"),
        QStringLiteral("Stages per device (interleaved placement when > 1; default 1)."));
    parser.option(QStringLiteral("memory-mb"), QStringLiteral("M"),
        QStringLiteral("Device memory limit in MB (1e6 bytes, required)."));
    parser.option(QStringLiteral("mode"), QStringLiteral("normal|fast|auto"),
        QStringLiteral("Search effort (default: STRATEX_FAST_MODE=1 means fast, else auto: fast above 16 "
                       "micro-batches)."));
    parser.option(QStringLiteral("seed"), QStringLiteral("S"),
        QStringLiteral("Seed of the micro-batch permutations (default 0)."));
}

PlanInputs readPlanOptions(const CliParser& parser)
{
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    for (const char* required : { "cost-model", "stages", "layers-per-stage", "memory-mb" }) {
        if (!parser.isSet(QString::fromLatin1(required)))
            parser.usageError(QStringLiteral("--%1 is required").arg(QString::fromLatin1(required)));
    }
    const bool lengths = parser.isSet(QStringLiteral("lengths"));
    const bool synthetic = parser.isSet(QStringLiteral("synthetic"));
    if (lengths == synthetic)
        parser.usageError(QStringLiteral("give exactly one of --lengths and --synthetic"));

    PlanInputs inputs;
    PlannerConfig& config = inputs.config;
    config.tp = parser.intValue(QStringLiteral("tp"), 1);
    config.num_stages = parser.intValue(QStringLiteral("stages"), 1);
    config.layers_per_stage = parser.intValue(QStringLiteral("layers-per-stage"), 1);
    config.dp_size = parser.intValue(QStringLiteral("dp"), 1);
    config.chunks_per_device = parser.intValue(QStringLiteral("chunks"), 1);
    config.device_memory_mb = parser.doubleValue(QStringLiteral("memory-mb"), 0);
    if (!(config.device_memory_mb > 0))
        parser.usageError(QStringLiteral("--memory-mb must be a positive number of MB"));
    const QString mode = parser.choice(QStringLiteral("mode"),
        { QStringLiteral("normal"), QStringLiteral("fast"), QStringLiteral("auto") }, QString());
    if (!mode.isEmpty())
        config.mode = *parsePlannerMode(mode.toStdString());
    else
        config.mode = plannerModeFromEnvironment().value_or(PlannerMode::Auto);
    config.seed = static_cast<std::uint64_t>(parser.intValue(QStringLiteral("seed"), 0, 0));

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
