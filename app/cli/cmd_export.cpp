// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli export: a Galvatron or Stratex strategy JSON for a training framework.
#include "app/cli/cli_command.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "app/cli/search_options.h"
#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/export/plan_export.h"
#include "core/export/plan_file_export.h"
#include "core/export/torchtitan_module.h"
#include "core/megatron/plan_file.h"
#include "core/galvatron/strategy_file.h"

namespace stratex::cli {

namespace {

QStringList formatNames()
{
    QStringList names;
    for (exporting::ExportFormat format : exporting::exportFormats()) {
        const std::string_view name = exporting::exportFormatName(format);
        names << QString::fromUtf8(name.data(), qsizetype(name.size()));
    }
    return names;
}

// The options a Stratex plan file takes: it carries its model, cluster and strategy, so the search
// settings, model flags and profiles of a Galvatron file do not apply.
void requirePlanFileOptions(const CliParser& parser, const QStringList& args)
{
    static const QStringList allowed { QStringLiteral("strategy"), QStringLiteral("to"), QStringLiteral("out"),
        QStringLiteral("max-input-mb"), QStringLiteral("lift-work-budget"), QStringLiteral("torchtitan-version") };
    for (const QString& arg : args) {
        if (!arg.startsWith(QStringLiteral("--")))
            continue;
        const QString name = arg.mid(2).section(QLatin1Char('='), 0, 0);
        if (!allowed.contains(name))
            parser.usageError(QStringLiteral("--%1 does not apply to a Stratex plan file, which carries its model, "
                                             "cluster and strategy (give only --strategy, --to and --out)")
                                  .arg(name));
    }
}

// Both kinds of strategy file end here: the export's notes as warnings, then the file to --out or
// to stdout (ended by a newline).
int writeExportedFile(const CliParser& parser, const exporting::ExportedFile& file)
{
    for (const exporting::ExportNote& note : file.notes)
        printErr("warning: " + exporting::exportNoteLine(note) + "\n");
    if (parser.isSet(QStringLiteral("out")))
        writeFileAtomically(parser.value(QStringLiteral("out")).toStdString(), file.text,
            file.executable ? FileMode::Executable : FileMode::Regular);
    else
        printOut(file.text.back() == '\n' ? file.text : file.text + "\n");
    return kExitOk;
}

// A Stratex plan file (search --cost-model stratex): exported as it is.
int exportPlanFile(const CliParser& parser, const QStringList& args, exporting::ExportFormat format,
    exporting::TorchtitanVersion torchtitan)
{
    requirePlanFileOptions(parser, args);
    const megatron::PlanFile plan = megatron::PlanFile::load(parser.value(QStringLiteral("strategy")).toStdString());
    for (const std::string& assumption : plan.assumptions)
        printErr("note: " + plan.file + ": " + assumption + "\n");
    exporting::ExportedFile file;
    if (format == exporting::ExportFormat::Torchtitan && torchtitan == exporting::TorchtitanVersion::V0_2) {
        exporting::TorchtitanConfig config = exporting::torchtitanExport(torchtitan, plan);
        file = { std::move(config.text), false, std::move(config.notes) };
    } else {
        file = exporting::exportPlanFile(format, plan);
    }
    return writeExportedFile(parser, file);
}

int runExport(const QStringList& args)
{
    CliParser parser(QStringLiteral("export"),
        QStringLiteral(
            "Writes a strategy JSON for a training framework: 'galvatron' (Galvatron main's format with world_size, "
            "plus the model, cluster and search settings Stratex reads back), 'paddle' (PaddleNLP "
            "fine_grained_config.json), 'paddle-script' (a PaddleNLP auto-parallel launch script), 'megatron' "
            "(pretrain_gpt.py arguments, with a comment for every per-layer choice Megatron-LM cannot express and "
            "the re-costed memory of what it can), 'pytorch-schedule' (the plan's 1F1B or GPipe schedule as the CSV "
            "torch.distributed.pipelining loads: one row of actions such as 0F0, 0B0 per rank), 'torchtitan' (the "
            "Python config module torchtitan main loads with --module/--config: parallelism, token-based batch, "
            "the activation checkpointing object, the model flavour; --torchtitan-version 0.2 writes torchtitan "
            "v0.2's TOML job config instead), 'megatron-bridge' (a "
            "Megatron-Bridge Python recipe building the ConfigContainer: parallelism, layout, recompute, precision, "
            "data parallelism and the model provider's fields).\n\n"
            "A strategy file written by Stratex carries its model, cluster and search settings; flags given here "
            "win (with a warning where they contradict the file). For a Galvatron file the cluster follows from "
            "its world_size, and the launch scripts need the model: --model PRESET or every architecture flag. "
            "The Megatron export is re-costed on --profiles when given, else on profiles estimated from the "
            "file's model and cluster.\n\n"
            "A Stratex plan file (\"format\": \"stratex-plan\", from search --cost-model stratex) carries a "
            "Megatron-space strategy (TP, PP with virtual stages, CP, EP/ETP, DP with ZeRO 0-3, recompute, FP8) with "
            "its model and cluster: give only --strategy, --to and --out. Megatron-LM, torchtitan and the schedule "
            "CSV take every dimension (re-costed where the framework runs something else); Galvatron takes context and "
            "expert parallelism, PaddleNLP neither; both refuse virtual stages. Every approximation or refusal is "
            "printed as a warning and written as a comment where the file has comments."));
    parser.option(QStringLiteral("strategy"), QStringLiteral("FILE"), QStringLiteral("The strategy JSON."));
    parser.option(QStringLiteral("to"), formatNames().join(QLatin1Char('|')), QStringLiteral("Output format."));
    parser.option(QStringLiteral("out"), QStringLiteral("FILE"), QStringLiteral("Output file (default: stdout)."));
    parser.option(QStringLiteral("torchtitan-version"), QStringLiteral("main|0.2"),
        QStringLiteral("With --to torchtitan: main (default; a Python config module) or 0.2 (a TOML job config)."));
    addSearchSettingsOptions(parser);
    parser.inputLimitOption();
    parser.workBudgetOption(); // the pytorch-schedule's simulation (pytorch_plan_exports.cpp)
    addModelOptions(parser);
    addProfileOptions(parser);
    parser.parse(args);
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    if (!parser.isSet(QStringLiteral("strategy")))
        parser.usageError(QStringLiteral("--strategy is required"));
    if (!parser.isSet(QStringLiteral("to")))
        parser.usageError(QStringLiteral("--to is required"));
    const exporting::ExportFormat format = *exporting::parseExportFormat(
        parser.choice(QStringLiteral("to"), formatNames(), QStringLiteral("galvatron")).toStdString());

    exporting::TorchtitanVersion torchtitan = exporting::TorchtitanVersion::Main;
    if (parser.isSet(QStringLiteral("torchtitan-version"))) {
        if (format != exporting::ExportFormat::Torchtitan)
            parser.usageError(QStringLiteral("--torchtitan-version applies to --to torchtitan only"));
        torchtitan = *exporting::parseTorchtitanVersion(
            parser.choice(QStringLiteral("torchtitan-version"), { QStringLiteral("main"), QStringLiteral("0.2") },
                      QStringLiteral("main"))
                .toStdString());
    }

    if (megatron::isPlanFile(parser.value(QStringLiteral("strategy")).toStdString()))
        return exportPlanFile(parser, args, format, torchtitan);
    const galvatron::StrategyFile strategy
        = galvatron::StrategyFile::load(parser.value(QStringLiteral("strategy")).toStdString());
    galvatron::StrategyRun run = readStrategyRun(parser, strategy);
    if (exporting::exportNeedsModel(format) && !run.model.model)
        throw Error(strategy.file + ": "
            + galvatron::missingModelMessage("--to " + std::string(exporting::exportFormatName(format)),
                "the file (it has no \"model\") and the command line", run.model.missing));
    const galvatron::Plan plan = galvatron::planFromStrategyFile(strategy, run.settings);

    exporting::ExportContext context;
    context.model = run.model.model;
    context.cluster = run.cluster;
    if (format == exporting::ExportFormat::Megatron) {
        std::string why;
        try {
            context.cost_model = strategyCostModel(parser, run, why);
        } catch (const Error& error) {
            why = error.what();
        }
        if (!context.cost_model)
            printErr("note: the export is not re-costed: " + why + "\n");
    }

    exporting::ExportedFile file;
    if (format == exporting::ExportFormat::Torchtitan && torchtitan == exporting::TorchtitanVersion::V0_2) {
        exporting::TorchtitanConfig config = exporting::torchtitanExport(torchtitan, plan, run.settings, *context.model);
        file = { std::move(config.text), false, std::move(config.notes) };
    } else {
        file = exporting::exportPlan(format, plan, run.settings, context);
    }
    return writeExportedFile(parser, file);
}

const RegisterCommand registration({ QStringLiteral("export"),
    QStringLiteral("Strategy JSON to Galvatron / PaddleNLP / Megatron-LM / PyTorch / torchtitan / Megatron-Bridge"), 32, runExport });

} // namespace

} // namespace stratex::cli
