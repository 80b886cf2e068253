// SPDX-License-Identifier: GPL-3.0-or-later
#include "app/cli/rank_options.h"

#include "app/cli/cli_output.h"

namespace stratex::cli {

void addLayoutOptions(CliParser& parser)
{
    parser.option(QStringLiteral("cp"), QStringLiteral("C"), QStringLiteral("Context-parallel size (default 1)."));
    parser.option(QStringLiteral("ep"), QStringLiteral("E"), QStringLiteral("Expert-parallel size (default 1)."));
    parser.option(QStringLiteral("etp"), QStringLiteral("X"),
        QStringLiteral("Expert tensor-parallel size (default: the TP size)."));
    parser.option(QStringLiteral("order"), QStringLiteral("ORDER"),
        QStringLiteral("Megatron rank order, leftmost varies fastest (default tp-cp-ep-dp-pp; "
                       "--use-tp-pp-dp-mapping is tp-cp-ep-pp-dp)."));
    parser.option(QStringLiteral("gpus-per-node"), QStringLiteral("G"),
        QStringLiteral("GPUs per node, for node boundaries and warnings (default 8)."));
}

void readLayoutOptions(const CliParser& parser, ranks::ParallelConfig& config)
{
    config.cp = parser.intValue(QStringLiteral("cp"), 1);
    config.ep = parser.intValue(QStringLiteral("ep"), 1);
    config.etp = parser.intValue(QStringLiteral("etp"), 0);
    if (parser.isSet(QStringLiteral("order"))) {
        // An empty order would silently mean the default one: the user meant something else.
        if (parser.value(QStringLiteral("order")).trimmed().isEmpty())
            parser.usageError(
                QStringLiteral("--order must not be empty (e.g. %1)").arg(QLatin1String(ranks::kDefaultOrder)));
        config.order = parser.value(QStringLiteral("order")).toStdString();
    }
    config.gpusPerNode = parser.intValue(QStringLiteral("gpus-per-node"), 8);
}

void printWarnings(const std::vector<ranks::LayoutWarning>& warnings)
{
    for (const ranks::LayoutWarning& warning : warnings)
        printErr((warning.severity == ranks::Severity::Warning ? "warning: " : "note: ") + warning.message + "\n");
}

} // namespace stratex::cli
