// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli ranks: Megatron's process groups of a parallel layout, or one rank's place in it.
#include <string>

#include "app/cli/cli_command.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "app/cli/rank_options.h"
#include "core/common/error.h"
#include "core/ranks/rank_grid.h"
#include "core/ranks/rank_warnings.h"
#include "core/ranks/ranks_json.h"

namespace stratex::cli {

namespace {

using namespace stratex::ranks;

constexpr int kTextGroupsShown = 8;

std::string bracketed(const std::vector<int>& members)
{
    std::string text = "[";
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (i > 0)
            text += ',';
        text += std::to_string(members[i]);
    }
    return text + "]";
}

std::string header(const RankGrid& grid)
{
    const ParallelSizes& s = grid.sizes();
    return "World " + std::to_string(grid.world()) + ", order " + grid.orderName() + ", "
        + std::to_string(grid.nodeCount()) + " node(s) of " + std::to_string(grid.gpusPerNode()) + " GPUs\n"
        + "Sizes: tp " + std::to_string(s.tp) + ", cp " + std::to_string(s.cp) + ", ep " + std::to_string(s.ep)
        + ", dp " + std::to_string(s.dp) + ", pp " + std::to_string(s.pp) + ", etp " + std::to_string(s.etp) + ", edp "
        + std::to_string(s.edp) + "\n";
}

std::string gridText(const RankGrid& grid)
{
    std::string text = header(grid);
    for (GroupKind kind : kAllGroupKinds) {
        const GroupList groups = grid.allGroups(kind);
        text += std::string(groupKindName(kind)) + " (" + std::to_string(groups.count()) + " group"
            + (groups.count() == 1 ? "" : "s") + " of " + std::to_string(groups.groupSize) + "):";
        for (int g = 0; g < std::min(groups.count(), kTextGroupsShown); ++g) {
            const auto members = groups.group(g);
            text += " " + bracketed(std::vector<int>(members.begin(), members.end()));
        }
        if (groups.count() > kTextGroupsShown)
            text += " ... (" + std::to_string(groups.count() - kTextGroupsShown) + " more; --json lists all)";
        text += "\n";
    }
    return text;
}

std::string rankText(const RankGrid& grid, int rank)
{
    const RankCoordinates c = grid.coordinates(rank);
    std::string text = header(grid);
    text += "Rank " + std::to_string(rank) + " on node " + std::to_string(c.node) + " (local rank "
        + std::to_string(c.localRank) + ")\n";
    text += "  coordinates: tp " + std::to_string(c.tp) + ", cp " + std::to_string(c.cp) + ", dp "
        + std::to_string(c.dp) + ", pp " + std::to_string(c.pp) + "; expert: etp " + std::to_string(c.etp) + ", ep "
        + std::to_string(c.ep) + ", edp " + std::to_string(c.edp) + "\n";
    for (GroupKind kind : kAllGroupKinds) {
        const std::vector<int> members = grid.groupOf(kind, rank);
        text += "  " + std::string(groupKindName(kind)) + ": " + (members.empty() ? "-" : bracketed(members)) + "\n";
    }
    return text;
}

int runRanks(const QStringList& args)
{
    CliParser parser(QStringLiteral("ranks"),
        QStringLiteral("Megatron-LM's rank layout and process groups (parallel_state.initialize_model_parallel)."));
    parser.option(QStringLiteral("world"), QStringLiteral("W"), QStringLiteral("World size (number of GPUs)."));
    parser.option(QStringLiteral("tp"), QStringLiteral("T"), QStringLiteral("Tensor-parallel size (default 1)."));
    parser.option(QStringLiteral("pp"), QStringLiteral("P"), QStringLiteral("Pipeline-parallel size (default 1)."));
    addLayoutOptions(parser);
    parser.option(QStringLiteral("rank"), QStringLiteral("R"),
        QStringLiteral("Show only this rank: its coordinates, node and the group of each type holding it."));
    parser.flag(QStringLiteral("json"), QStringLiteral("Print JSON instead of text."));
    parser.parse(args);
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    if (!parser.isSet(QStringLiteral("world")))
        parser.usageError(QStringLiteral("--world is required"));

    ParallelConfig config;
    config.world = parser.intValue(QStringLiteral("world"), 1);
    config.tp = parser.intValue(QStringLiteral("tp"), 1);
    config.pp = parser.intValue(QStringLiteral("pp"), 1);
    readLayoutOptions(parser, config);
    const std::optional<int> rank = parser.optionalInt(QStringLiteral("rank"), 0);

    const RankGrid grid = RankGrid::create(config);
    if (rank && *rank >= grid.world())
        throw Error(
            "rank " + std::to_string(*rank) + " is outside the world of " + std::to_string(grid.world()) + " ranks");
    const bool json = parser.isSet(QStringLiteral("json"));
    const std::vector<LayoutWarning> warnings = layoutWarnings(grid);

    if (json) {
        if (rank)
            printJson(rankJson(grid, *rank));
        else {
            printOut(gridJson(grid));
            printOut("\n");
        }
        printWarnings(warnings);
    } else {
        printOut(rank ? rankText(grid, *rank) : gridText(grid));
        for (const LayoutWarning& warning : warnings)
            printOut((warning.severity == Severity::Warning ? "warning: " : "note: ") + warning.message + "\n");
    }
    return kExitOk;
}

const RegisterCommand registration({ QStringLiteral("ranks"),
    QStringLiteral("Megatron rank grid: process groups of a layout, or one rank's groups"), 10, runRanks });

} // namespace

} // namespace stratex::cli
