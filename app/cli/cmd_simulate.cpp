// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli simulate: runs pipeline-schedule simulation cases (the case format of DynaPipe's
// schedule_ground_truth.json) and prints makespan and per-device peak memory of each, optionally
// writing the Chrome trace of the simulated timelines.
#include <cstdio>
#include <optional>
#include <string>

#include "app/cli/cli_command.h"
#include "app/cli/cli_interrupt.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "core/export/chrome_trace.h"
#include "core/sim/sim_cases.h"
#include "core/sim/sim_work.h"

namespace stratex::cli {

namespace {

using namespace stratex::sim;

std::string number(double value)
{
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6g", value);
    return buffer;
}

std::string caseText(std::size_t index, const SimulationCase& simCase, const SimulationResult& result)
{
    std::string text = "case " + std::to_string(index) + ": " + std::string(scheduleName(simCase.schedule)) + " on "
        + assignmentText(simCase.input.device_assignment) + ", " + std::to_string(simCase.input.microbatches.size())
        + " micro-batches";
    if (!simCase.description.empty())
        text += " (" + simCase.description + ")";
    text += "\n  makespan: ";
    text += result.feasible ? number(result.makespan_us) + " us" : "none (" + result.failure + ")";
    text += "\n  peak memory (MB) per device:";
    for (double peak : result.peak_memory_mb_per_device)
        text += " " + number(peak);
    text += "\n";
    if (result.feasible && !result.timeline.devices.empty()) {
        text += "  bubble % per device:";
        for (const DeviceUtilization& use : deviceUtilization(result.timeline)) {
            char buffer[32];
            std::snprintf(buffer, sizeof buffer, " %.1f", use.bubble_percent);
            text += buffer;
        }
        text += "\n";
    }
    return text;
}

int runSimulate(const QStringList& args)
{
    CliParser parser(QStringLiteral("simulate"),
        QStringLiteral("Simulates pipeline schedules (GPipe, 1F1B, interleaved-1F1B, ZB-H1, cyclic, wait-free-cyclic, "
                       "fifo, flexible-interleaved with the case's microbatch_group_size N, and on a V placement DualPipeV and "
                       "ZB-V) for the cases of a JSON file {\"cases\":[...]} "
                       "in the case format of DynaPipe's "
                       "schedule_ground_truth.json, and prints each case's makespan (us) and peak memory per device "
                       "(MB), in file order."));
    parser.option(QStringLiteral("cases"), QStringLiteral("FILE"), QStringLiteral("The cases file (required)."));
    parser.option(QStringLiteral("trace"), QStringLiteral("OUT.json"),
        QStringLiteral("Write the Chrome trace (Perfetto) of the simulated timelines: every case, or --trace-case."));
    parser.option(QStringLiteral("trace-case"), QStringLiteral("N"),
        QStringLiteral("Only case N (0-based) goes into the --trace file."));
    parser.flag(QStringLiteral("json"),
        QStringLiteral("Print {\"cases\":[{\"makespan_us\":..,\"peak_memory_mb_per_device\":[..]},...]}."));
    parser.inputLimitOption();
    parser.workBudgetOption();
    parser.parse(args);
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    if (!parser.isSet(QStringLiteral("cases")))
        parser.usageError(QStringLiteral("--cases is required"));
    if (parser.isSet(QStringLiteral("trace-case")) && !parser.isSet(QStringLiteral("trace")))
        parser.usageError(QStringLiteral("--trace-case needs --trace"));
    const std::optional<int> traceCase = parser.optionalInt(QStringLiteral("trace-case"), 0);

    const std::vector<SimulationCase> cases = loadSimulationCases(parser.value(QStringLiteral("cases")).toStdString());
    if (traceCase && *traceCase >= static_cast<int>(cases.size())) {
        parser.usageError(
            QStringLiteral("--trace-case %1 is out of range: the file has %2 cases").arg(*traceCase).arg(cases.size()));
    }
    const bool wantTrace = parser.isSet(QStringLiteral("trace"));

    // The simulations and the trace are budgeted before anything is simulated (issue 26: 2048 x 2048
    // took 2.7 GB, its trace ~5 GB): time and memory grow with the chunk passes (sim_work.h).
    double steps = 0;
    double tracedSteps = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        steps += simulationSteps(cases[i].input);
        if (wantTrace && (!traceCase || *traceCase == static_cast<int>(i)))
            tracedSteps += simulationSteps(cases[i].input);
    }
    const WorkEstimate work = estimateSimulationWork(
        "simulation", steps, !parser.isSet(QStringLiteral("json")) || wantTrace, tracedSteps);
    requireWithinBudget(work,
        "Simulate fewer micro-batches or stages, trace one case (--trace-case) or none, or run it anyway with "
            + std::string(kLiftWorkBudgetFlag) + ".",
        parser.liftsWorkBudget());

    // Ctrl-C stops between cases (each is bounded by the layer-cost limit): exit 130, nothing printed.
    InterruptProgress progress;
    std::vector<SimulationResult> results;
    results.reserve(cases.size());
    for (std::size_t i = 0; i < cases.size(); ++i) {
        progress.throwIfCancelled();
        SimulationOptions options = cases[i].options;
        options.build_timeline
            = !parser.isSet(QStringLiteral("json")) || (wantTrace && (!traceCase || *traceCase == static_cast<int>(i)));
        results.push_back(simulate(cases[i].input, cases[i].schedule, options));
    }
    progress.finish();

    if (wantTrace) {
        std::vector<exporting::ChromeTraceSection> sections;
        for (std::size_t i = 0; i < cases.size(); ++i) {
            if ((traceCase && *traceCase != static_cast<int>(i)) || results[i].timeline.devices.empty())
                continue;
            sections.push_back({ "case " + std::to_string(i) + " " + std::string(scheduleName(cases[i].schedule)),
                &results[i].timeline });
        }
        exporting::writeChromeTrace(parser.value(QStringLiteral("trace")).toStdString(), sections);
    }

    if (parser.isSet(QStringLiteral("json"))) {
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const SimulationResult& result : results)
            list.push_back(simulationResultJson(result));
        printJson(nlohmann::ordered_json { { "cases", std::move(list) } });
    } else {
        std::string text;
        for (std::size_t i = 0; i < cases.size(); ++i)
            text += caseText(i, cases[i], results[i]);
        printOut(text);
    }
    return kExitOk;
}

const RegisterCommand registration({ QStringLiteral("simulate"),
    QStringLiteral("Pipeline schedule simulation: makespan and peak memory per case"), 40, runSimulate });

} // namespace

} // namespace stratex::cli
