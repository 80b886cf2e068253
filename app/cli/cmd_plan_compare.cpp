// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli plan-compare: the planner's normal and fast modes side by side on growing global
// batches -- planning time, speedup, makespan and the fast mode's quality loss.
#include <cstdint>

#include "app/cli/cli_command.h"
#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "app/cli/plan_options.h"
#include "core/common/atomic_file.h"
#include "core/planner/planner_compare.h"

namespace stratex::cli {

namespace {

using namespace stratex::planner;
using namespace stratex::sim;

constexpr int kMaxSeeds = 1000; // every seed plans every batch twice
constexpr int kMaxPlans = 1000; // batches x seeds

std::vector<int> readBatches(const CliParser& parser)
{
    std::vector<int> batches;
    const QString text = parser.value(QStringLiteral("global-batches"));
    for (const QString& part : text.split(QLatin1Char(','))) {
        bool ok = false;
        const int value = part.trimmed().toInt(&ok);
        if (!ok || value < 1)
            parser.usageError(
                QStringLiteral("--global-batches expects positive integers separated by commas, got \"%1\"").arg(text));
        batches.push_back(value);
    }
    return batches;
}

int runPlanCompare(const QStringList& args)
{
    CliParser parser(QStringLiteral("plan-compare"),
        QStringLiteral("Runs the planner in normal and in fast mode on global batches of growing size (the first "
                       "B samples of the lengths) and tabulates planning time, speedup, makespan and the fast "
                       "mode's quality loss. --mode is ignored: both modes run."));
    addPlanOptions(parser);
    parser.option(QStringLiteral("global-batches"), QStringLiteral("B1,B2,..."),
        QStringLiteral("Global batch sizes in samples (required), e.g. 8,16,32,64."));
    parser.option(QStringLiteral("seeds"), QStringLiteral("N"),
        QStringLiteral("Plan every batch with N permutation seeds (--seed, --seed + 1, ...) and report the spread "
                       "of each mode's makespan over them: how much of a plan is the luck of the shuffles "
                       "(default 1: no spread)."));
    parser.option(QStringLiteral("csv"), QStringLiteral("OUT.csv"), QStringLiteral("Also write the table as CSV."));
    parser.flag(QStringLiteral("json"), QStringLiteral("Print the table as JSON {\"rows\":[...]}."));
    parser.inputLimitOption();
    parser.workBudgetOption();
    parser.parse(args);
    if (!parser.isSet(QStringLiteral("global-batches")))
        parser.usageError(QStringLiteral("--global-batches is required"));
    const std::vector<int> batches = readBatches(parser);
    int seeds = 1;
    if (parser.isSet(QStringLiteral("seeds"))) {
        bool ok = false;
        seeds = parser.value(QStringLiteral("seeds")).toInt(&ok);
        if (!ok || seeds < 1 || seeds > kMaxSeeds)
            parser.usageError(QStringLiteral("--seeds expects an integer from 1 to %1, got \"%2\"")
                                  .arg(kMaxSeeds)
                                  .arg(parser.value(QStringLiteral("seeds"))));
    }
    // Every batch is planned twice per seed, each plan bounded by the planner's budget: their number
    // is bounded too (issue 26: 10,000 batches ran on without a refusal).
    if (std::int64_t(batches.size()) * seeds > kMaxPlans)
        parser.usageError(QStringLiteral("--global-batches x --seeds asks for %1 x %2 plannings per mode; at most %3")
                              .arg(batches.size())
                              .arg(seeds)
                              .arg(kMaxPlans));
    PlanInputs inputs = readPlanOptions(parser);
    inputs.config.lift_work_budget = parser.liftsWorkBudget(); // each planning's budgets (planner_work.h)

    InterruptProgress progress; // Ctrl-C: exit 130, nothing printed or written
    const std::vector<PlanCompareRow> rows
        = comparePlannerModes(inputs.samples, batches, *inputs.model, inputs.config, progress, seeds);
    progress.finish();
    if (parser.isSet(QStringLiteral("csv")))
        writeFileAtomically(parser.value(QStringLiteral("csv")).toStdString(), planCompareCsv(rows));
    if (parser.isSet(QStringLiteral("json")))
        printJson(planCompareJson(rows));
    else
        printOut(planCompareText(rows));
    return kExitOk;
}

const RegisterCommand registration({ QStringLiteral("plan-compare"),
    QStringLiteral("Planner normal vs fast mode: planning time and makespan per batch size"), 51, runPlanCompare });

} // namespace

} // namespace stratex::cli
