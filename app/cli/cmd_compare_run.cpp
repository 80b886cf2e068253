// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli compare-run: a measured run (Megatron-LM log, PyTorch-profiler traces, reference
// record) against the stratex cost model's prediction for the same model, strategy and cluster.
#include <cstdio>

#include "app/cli/cli_command.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "core/common/input_limits.h"
#include "core/common/json_output.h"
#include "core/common/number_format.h"
#include "core/runs/run_comparison.h"
#include "core/runs/run_import.h"

namespace stratex::cli {

namespace {

std::string number(const std::optional<double>& value, int decimals)
{
    if (!value)
        return "-";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, *value);
    return buffer;
}

std::string errorText(const runs::ComparedValue& value)
{
    const std::optional<double> error = value.error();
    if (!error)
        return "";
    return " (" + signedPercent(*error) + ")";
}

std::string row(const std::string& what, const runs::ComparedValue& value, int decimals)
{
    char buffer[160];
    std::snprintf(buffer, sizeof buffer, "  %-24s %14s %14s%s\n", what.c_str(), number(value.predicted, decimals).c_str(),
        number(value.measured, decimals).c_str(), errorText(value).c_str());
    return buffer;
}

std::string text(const runs::RunComparison& c)
{
    std::string out;
    for (const auto& source : c.run.sources)
        out += std::string(runs::sourceKindName(source.kind)) + ": " + source.file.string() + "\n";
    out += std::to_string(c.cluster.worldSize()) + " x " + c.cluster.gpu.name + " (" + std::to_string(c.cluster.num_nodes)
        + " x " + std::to_string(c.cluster.gpus_per_node) + "), " + c.strategy.notation() + "\n";
    if (!c.estimate.problems.empty()) {
        out += "cannot be costed: " + c.estimate.problems.front() + "\n";
        return out;
    }
    if (!c.run.iteration_from.empty())
        out += "measured iteration time: " + c.run.iteration_from + "\n";
    char header[160];
    std::snprintf(header, sizeof header, "  %-24s %14s %14s\n", "", "predicted", "measured");
    out += header;
    out += row("iteration (ms)", c.iteration_ms, 1);
    out += row("tokens/s/GPU", c.tokens_per_s_per_gpu, 0);
    out += row("TFLOP/s/GPU", c.tflops_per_gpu, 1);
    if (c.run.logged_tflops_per_gpu)
        out += "  (Megatron logged " + number(c.run.logged_tflops_per_gpu, 1) + " TFLOP/s/GPU with its own FLOPs formula)\n";
    out += row("peak memory (MB)", c.peak_memory_mb, 0);
    for (const auto& s : c.stages) {
        const std::string stage = "stage " + std::to_string(s.stage);
        // Stages without a measurement would only repeat the prediction (64 rows for PP 64).
        if (s.memory_mb.measured)
            out += row(stage + " memory (MB)", s.memory_mb, 0);
        if (!s.times_from.empty()) {
            out += row(stage + " forward (ms)", s.forward_ms, 1);
            out += row(stage + " backward (ms)", s.backward_ms, 1);
            if (s.times_from == "chrome-trace") {
                out += row(stage + " dp comm (ms)", s.dp_comm_ms, 1);
                out += "  " + stage + ": pp send/recv " + number(s.measured_pp_comm_ms, 1) + " ms, exposed comm "
                    + number(s.measured_exposed_comm_ms, 1) + " ms, other " + number(s.measured_other_ms, 1)
                    + " ms (measured, traced ranks";
                for (const int rank : s.traced_ranks)
                    out += " " + std::to_string(rank);
                out += ")\n";
            }
        }
    }
    for (const auto& t : c.timers) {
        if (t.predicted_min_ms)
            out += "  timer " + t.name + ": measured (" + number(t.measured_min_ms, 1) + ", " + number(t.measured_max_ms, 1)
                + ") ms across ranks, predicted (" + number(t.predicted_min_ms, 1) + ", " + number(t.predicted_max_ms, 1)
                + ") across stages\n";
    }
    for (const auto& note : c.run.notes)
        out += "note: " + note + "\n";
    for (const auto& note : c.notes)
        out += "note: " + note + "\n";
    return out;
}

int runCompareRun(const QStringList& args)
{
    CliParser parser(QStringLiteral("compare-run"),
        QStringLiteral("Imports a measured training run and compares it with the stratex cost model's prediction "
                       "for the same model, strategy and cluster: iteration time, tokens/s and TFLOP/s per GPU, "
                       "memory per pipeline stage and, from traces, each stage's forward, backward and "
                       "communication time. A run is a Megatron-LM log (with its argument dump), PyTorch-profiler "
                       "Chrome traces (a file, or a directory of one *.json per rank), or a reference-run record "
                       "(resources/reference-runs); give --run several times to combine them."));
    parser.option(QStringLiteral("run"), QStringLiteral("FILE"),
        QStringLiteral("A Megatron-LM log, a Chrome trace (or a directory of them) or a reference-run record. "
                       "Repeatable."));
    parser.option(QStringLiteral("gpu"), QStringLiteral("PRESET"),
        QStringLiteral("The GPU model (a100-40gb, a100-80gb, h100-80gb, h800-80gb, h100-96gb, h200-141gb, b200-192gb, gb200-186gb, "
                       "l40s-48gb, v100-32gb, v100-16gb): logs do not say it; a trace's device name is used when this is not given."));
    parser.option(QStringLiteral("gpus-per-node"), QStringLiteral("N"),
        QStringLiteral("GPUs per node: logs and traces do not say it."));
    parser.option(QStringLiteral("warmup"), QStringLiteral("N"),
        QStringLiteral("Iterations up to N are warm-up and not averaged (default 2; the first logged line is "
                       "always skipped)."));
    parser.flag(QStringLiteral("json"), QStringLiteral("Print JSON instead of text."));
    parser.inputLimitOption();
    parser.workBudgetOption(); // a trace read whole (chrome_trace_import.h)
    parser.parse(args);
    if (!parser.positionalArguments().isEmpty())
        parser.usageError(QStringLiteral("unexpected argument \"%1\"").arg(parser.positionalArguments().first()));
    const QStringList runs = parser.values(QStringLiteral("run"));
    if (runs.isEmpty())
        parser.usageError(QStringLiteral("--run FILE is required"));

    runs::LogOptions options;
    options.warmup_iterations = parser.intValue(QStringLiteral("warmup"), 2, 0);
    runs::ClusterChoice choice;
    if (parser.isSet(QStringLiteral("gpu")))
        choice.gpu = parser.value(QStringLiteral("gpu")).toStdString();
    choice.gpus_per_node = parser.optionalInt(QStringLiteral("gpus-per-node"));
    if (choice.gpus_per_node && *choice.gpus_per_node > limits::kMaxGpusPerNode)
        parser.usageError(QStringLiteral("--gpus-per-node: at most %1").arg(limits::kMaxGpusPerNode));

    std::vector<std::filesystem::path> paths;
    for (const QString& run : runs)
        paths.emplace_back(run.toStdString());
    const runs::MeasuredRun run = runs::importRuns(paths, options);
    runs::requireCostable(run);
    const hardware::ClusterDescription cluster = runs::resolveCluster(run, choice);
    const runs::RunComparison comparison
        = runs::compareRun(run, cluster, hardware::efficiencyFor(cluster));
    if (parser.isSet(QStringLiteral("json")))
        printOut(jsonText(runs::comparisonJson(comparison), 2, "the JSON report") + "\n");
    else
        printOut(text(comparison));
    return comparison.estimate.problems.empty() ? kExitOk : kExitInvalidInput;
}

const RegisterCommand registerCompareRun({ QStringLiteral("compare-run"),
    QStringLiteral("Predicted vs measured for your own run (Megatron log, PyTorch trace or record)."), 76,
    runCompareRun });

} // namespace

} // namespace stratex::cli
