// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli trace-ranks: which ranks a fake-rank workload tracer must run, per batch config,
// and optionally the bash script that runs them.
#include <iomanip>
#include <sstream>

#include "app/cli/cli_command.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "app/cli/rank_options.h"
#include "core/common/atomic_file.h"
#include "core/export/tracer_script.h"
#include "core/ranks/batch_config.h"
#include "core/ranks/ranks_json.h"
#include "core/ranks/tracer_plan.h"

namespace stratex::cli {

namespace {

using namespace stratex::ranks;

std::string planText(const std::vector<TraceConfigPlan>& plans)
{
    std::ostringstream text;
    for (const TraceConfigPlan& plan : plans) {
        text << "Config " << plan.index << ": ";
        if (plan.input.parseError.empty())
            text << "WORLD_SIZE=" << plan.input.world << " PP=" << plan.input.pp << " TP=" << plan.input.tp;
        else
            text << '"' << plan.input.source << '"';
        if (!plan.valid) {
            text << " -> invalid, skipped: " << plan.error << "\n";
            continue;
        }
        text << " DP=" << plan.dp << " -> " << plan.ranks.size() << " of " << plan.originalRanks << " ranks ("
             << std::fixed << std::setprecision(1) << plan.savingPercent << "% saved)\n";
        text << "  ranks:";
        for (int rank : plan.ranks)
            text << ' ' << rank;
        text << "\n  log dir: " << plan.logDir << "\n";
    }
    const TracerSummary summary = summarizeTracer(plans);
    text << summary.valid << " of " << plans.size() << " configs valid; " << summary.selected_ranks
         << " ranks to trace instead of " << summary.original_ranks << "\n";
    return text.str();
}

int runTraceRanks(const QStringList& args)
{
    CliParser parser(QStringLiteral("trace-ranks"),
        QStringLiteral("Ranks a fake-rank workload tracer must run: one per pipeline stage (dense) or one per "
                       "(stage, expert-parallel rank) with --moe. Either one config (--world --pp --tp) or a "
                       "batch (--batch \"W PP TP\" ... or --batch-file F); an invalid batch config is reported and "
                       "skipped, an empty batch falls back to the default 8192 2 2."));
    parser.option(QStringLiteral("world"), QStringLiteral("W"), QStringLiteral("World size of a single config."));
    parser.option(QStringLiteral("pp"), QStringLiteral("P"), QStringLiteral("Pipeline-parallel size (default 1)."));
    parser.option(QStringLiteral("tp"), QStringLiteral("T"), QStringLiteral("Tensor-parallel size (default 1)."));
    addLayoutOptions(parser);
    parser.flag(
        QStringLiteral("moe"), QStringLiteral("MoE model: trace one rank per (pipeline stage, expert-parallel rank)."));
    parser.option(
        QStringLiteral("batch"), QStringLiteral("\"W PP TP\""), QStringLiteral("A batch config; repeat for several."));
    parser.option(QStringLiteral("batch-file"), QStringLiteral("F"),
        QStringLiteral("A file of \"WORLD_SIZE PP TP\" lines (blank lines and # comments allowed)."));
    parser.option(QStringLiteral("model"), QStringLiteral("NAME"),
        QStringLiteral("Model name in the log directory names (default 485)."));
    parser.option(QStringLiteral("micro-batches"), QStringLiteral("N"),
        QStringLiteral("Micro-batches per step (default: global batch / (micro-batch size * DP), or 1)."));
    parser.option(
        QStringLiteral("micro-batch-size"), QStringLiteral("B"), QStringLiteral("Micro-batch size (default 1)."));
    parser.option(QStringLiteral("global-batch"), QStringLiteral("G"),
        QStringLiteral("Global batch (default: micro-batches * micro-batch size * DP)."));
    parser.option(QStringLiteral("emit-script"), QStringLiteral("FILE"),
        QStringLiteral("Write the bash script that runs the selected ranks of every valid config."));
    parser.option(QStringLiteral("command"), QStringLiteral("TEMPLATE"),
        QStringLiteral("Command the script runs per rank; placeholders {rank} {world} {pp} {tp} {dp} {cp} {ep} "
                       "{model} {config} {log_dir} {micro_batches} {micro_batch_size} {global_batch}."));
    parser.flag(QStringLiteral("json"), QStringLiteral("Print JSON instead of text."));
    parser.inputLimitOption();
    parser.parse(args);
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));

    const bool single = parser.isSet(QStringLiteral("world")) || parser.isSet(QStringLiteral("pp"))
        || parser.isSet(QStringLiteral("tp"));
    const bool batch = parser.isSet(QStringLiteral("batch")) || parser.isSet(QStringLiteral("batch-file"));
    if (single && batch)
        parser.usageError(QStringLiteral("give either --world/--pp/--tp or --batch/--batch-file, not both"));
    if (single && !parser.isSet(QStringLiteral("world")))
        parser.usageError(QStringLiteral("--pp and --tp need --world"));
    if (parser.isSet(QStringLiteral("emit-script")) != parser.isSet(QStringLiteral("command")))
        parser.usageError(QStringLiteral("--emit-script and --command go together"));

    TracerSettings settings;
    {
        ParallelConfig layout;
        readLayoutOptions(parser, layout);
        settings.cp = layout.cp;
        settings.ep = layout.ep;
        settings.etp = layout.etp;
        settings.order = layout.order;
        settings.gpusPerNode = layout.gpusPerNode;
    }
    settings.selection = parser.isSet(QStringLiteral("moe")) ? TraceSelection::Moe : TraceSelection::Dense;
    if (parser.isSet(QStringLiteral("model")))
        settings.model = parser.value(QStringLiteral("model")).toStdString();
    settings.microBatches = parser.intValue(QStringLiteral("micro-batches"), 0);
    settings.microBatchSize = parser.intValue(QStringLiteral("micro-batch-size"), 1);
    settings.globalBatch = parser.intValue(QStringLiteral("global-batch"), 0);

    std::vector<BatchConfig> configs;
    if (single) {
        BatchConfig config;
        config.world = parser.intValue(QStringLiteral("world"), 1);
        config.pp = parser.intValue(QStringLiteral("pp"), 1);
        config.tp = parser.intValue(QStringLiteral("tp"), 1);
        config.source
            = std::to_string(config.world) + " " + std::to_string(config.pp) + " " + std::to_string(config.tp);
        configs.push_back(config);
    } else {
        if (parser.isSet(QStringLiteral("batch-file"))) {
            const std::string file = parser.value(QStringLiteral("batch-file")).toStdString();
            configs = loadBatchConfigs(file);
        }
        for (const QString& line : parser.values(QStringLiteral("batch")))
            configs.push_back(parseBatchConfigLine(line.toStdString()));
    }

    const std::vector<TraceConfigPlan> plans = planTracer(configs, settings);
    int valid = 0;
    for (const TraceConfigPlan& plan : plans)
        valid += plan.valid ? 1 : 0;

    if (parser.isSet(QStringLiteral("emit-script")) && valid > 0) {
        exporting::TracerScriptOptions options;
        options.commandTemplate = parser.value(QStringLiteral("command")).toStdString();
        writeFileAtomically(parser.value(QStringLiteral("emit-script")).toStdString(),
            exporting::tracerScript(plans, settings, options), FileMode::Executable);
    }

    if (parser.isSet(QStringLiteral("json")))
        printJson(tracerJson(plans));
    else
        printOut(planText(plans));

    for (const TraceConfigPlan& plan : plans) {
        if (!plan.valid)
            printErr("config " + std::to_string(plan.index) + " skipped: " + plan.error + "\n");
    }
    if (valid == 0) {
        printErr("no valid configuration\n");
        return kExitInvalidInput;
    }
    return kExitOk;
}

const RegisterCommand registration({ QStringLiteral("trace-ranks"),
    QStringLiteral("Tracer rank selection per batch config, and the tracer batch script"), 20, runTraceRanks });

} // namespace

} // namespace stratex::cli
