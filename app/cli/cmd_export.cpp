// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli export: a Galvatron strategy JSON as Galvatron 3.0 JSON, PaddleNLP config or launch
// script, or Megatron-LM arguments.
#include "app/cli/cli_command.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "app/cli/search_options.h"
#include "core/common/atomic_file.h"
#include "core/export/plan_export.h"
#include "core/search/strategy_file.h"

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

int runExport(const QStringList& args)
{
    CliParser parser(QStringLiteral("export"),
        QStringLiteral("Writes a Galvatron strategy JSON for a training framework: 'galvatron' (Galvatron main's "
                       "format with world_size), 'paddle' (PaddleNLP fine_grained_config.json), 'paddle-script' "
                       "(a PaddleNLP launch script; degrees from the first comma-separated value of dp_size_list / "
                       "tp_size_list), 'megatron' (pretrain_gpt.py arguments, with a comment for every per-layer "
                       "choice Megatron-LM cannot express). The settings give the cluster and model shape."));
    parser.option(QStringLiteral("strategy"), QStringLiteral("FILE"), QStringLiteral("The Galvatron strategy JSON."));
    parser.option(QStringLiteral("to"), formatNames().join(QLatin1Char('|')), QStringLiteral("Output format."));
    parser.option(QStringLiteral("out"), QStringLiteral("FILE"), QStringLiteral("Output file (default: stdout)."));
    addSearchSettingsOptions(parser);
    parser.inputLimitOption();
    parser.parse(args);
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    if (!parser.isSet(QStringLiteral("strategy")))
        parser.usageError(QStringLiteral("--strategy is required"));
    if (!parser.isSet(QStringLiteral("to")))
        parser.usageError(QStringLiteral("--to is required"));
    const exporting::ExportFormat format = *exporting::parseExportFormat(
        parser.choice(QStringLiteral("to"), formatNames(), QStringLiteral("galvatron")).toStdString());

    search::SearchSettings settings = readSearchSettings(parser);
    const search::StrategyFile strategy
        = search::StrategyFile::load(parser.value(QStringLiteral("strategy")).toStdString());
    if (!parser.isSet(QStringLiteral("num-layers")))
        settings.model.num_layers = strategy.layers();
    const search::Plan plan = search::planFromStrategyFile(strategy, settings);

    const exporting::ExportedFile file = exporting::exportPlan(format, plan, settings);
    if (parser.isSet(QStringLiteral("out")))
        writeFileAtomically(parser.value(QStringLiteral("out")).toStdString(), file.text,
            file.executable ? FileMode::Executable : FileMode::Regular);
    else
        printOut(file.text.back() == '\n' ? file.text : file.text + "\n");
    return kExitOk;
}

const RegisterCommand registration({ QStringLiteral("export"),
    QStringLiteral("Strategy JSON to Galvatron / PaddleNLP / Megatron-LM"), 32, runExport });

} // namespace

} // namespace stratex::cli
