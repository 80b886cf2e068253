// SPDX-License-Identifier: GPL-3.0-or-later
// stratex-cli calibrate: the cost model's efficiencies fitted to measured runs of one cluster, by
// least squares, written as a calibrated cluster file that profile synth (and through its profile
// set, search and the GUI) and the cost model take.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "app/cli/cli_command.h"
#include "app/cli/cli_output.h"
#include "app/cli/cli_parser.h"
#include "core/common/atomic_file.h"
#include "core/common/error.h"
#include "core/common/input_limits.h"
#include "core/common/json_output.h"
#include "core/common/number_format.h"
#include "core/runs/cluster_calibration.h"
#include "core/runs/calibration_runs.h"
#include "core/runs/calibration_support.h"
#include "core/hardware/cluster_json.h"

namespace stratex::cli {

namespace {

QString q(const char* text)
{
    return QString::fromLatin1(text);
}

// --runs FILE or DIR (repeatable) and any further files on the command line: run records, Megatron-LM
// logs and Chrome traces, as the GUI's Calibrate page reads them.
std::vector<runs::ReferenceRun> readRuns(const CliParser& parser)
{
    QStringList paths = parser.values(q("runs"));
    paths << parser.positionalArguments();
    if (paths.isEmpty())
        parser.usageError(q("--runs FILE is required (a run record in the format of resources/reference-runs, a "
                            "Megatron-LM log or a Chrome trace)"));
    runs::CalibrationRunOptions options;
    options.log.warmup_iterations = parser.intValue(q("warmup"), 2, 0);
    if (parser.isSet(q("gpu")))
        options.cluster.gpu = parser.value(q("gpu")).toStdString();
    options.cluster.gpus_per_node = parser.optionalInt(q("gpus-per-node"));
    if (options.cluster.gpus_per_node && *options.cluster.gpus_per_node > limits::kMaxGpusPerNode)
        parser.usageError(q("--gpus-per-node: at most %1").arg(limits::kMaxGpusPerNode));
    std::vector<std::filesystem::path> files;
    for (const QString& path : paths)
        files.emplace_back(path.toStdString());
    return runs::readCalibrationRuns(files, options);
}

std::vector<std::string> fitParameters(const CliParser& parser)
{
    if (!parser.isSet(q("fit")))
        return runs::defaultCalibrationParameters();
    std::vector<std::string> names;
    for (const QString& name : parser.value(q("fit")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const std::string text = name.trimmed().toStdString();
        if (!hardware::findEfficiencyField(text)) {
            QStringList known;
            for (const hardware::EfficiencyField& field : hardware::efficiencyFields())
                known << QString::fromLatin1(field.name);
            parser.usageError(q("--fit: unknown parameter \"%1\" (expected names from: %2)")
                                  .arg(QString::fromStdString(text), known.join(q(", "))));
        }
        names.push_back(text);
    }
    if (names.empty())
        parser.usageError(q("--fit expects parameter names separated by commas"));
    return names;
}

int runCalibrate(const QStringList& args)
{
    CliParser parser(q("calibrate"),
        q("Fits the stratex cost model's efficiencies (GEMM efficiency and its curve, memory bandwidth, collective "
          "bandwidth and latency, data-parallel overlap; any Efficiency field with --fit) to measured runs of one "
          "cluster by least squares (Levenberg-Marquardt on log predicted/measured iteration time, and peak memory "
          "when a memory parameter is fitted), prints the error on each run before and after (and, with 3 runs or "
          "more, each run's error when it is left out of the fit), and writes the calibrated cluster: its GPU "
          "figures plus an \"efficiency\" object, which 'profile synth --cluster FILE' and the cost model use."));
    parser.option(q("runs"), q("FILE"),
        q("A measured run: a record in the format of resources/reference-runs, a Megatron-LM log (with its "
          "argument dump) or a PyTorch-profiler Chrome trace of one iteration (repeatable; a directory means every "
          "record *.json in it; further files may follow as arguments)."));
    parser.positional(q("files"), q("More runs."), q("[FILE...]"));
    parser.option(q("fit"), q("NAMES"),
        q("Efficiencies to fit, comma-separated (default: gemm,gemm_half_dim,hbm,network,collective_latency_us,"
          "dp_overlap; also kernel_overhead_us, attention, fp8_speedup, iteration_overhead_ms, memory_reserve_gb, "
          "activation_fragmentation)."));
    parser.option(q("cluster"), q("FILE"),
        q("Cluster to start from (a cluster file, or a file with a \"cluster\" key); its efficiencies, or its GPU "
          "preset's, are the starting point. Default: the runs' GPU preset and shape."));
    parser.option(q("gpu"), q("PRESET"),
        q("The GPU model of runs given as logs or traces (a100-40gb, a100-80gb, h100-80gb, ...): logs do not say "
          "it; a trace's device name is used when this is not given."));
    parser.option(q("gpus-per-node"), q("N"), q("GPUs per node of runs given as logs or traces."));
    parser.option(
        q("warmup"), q("N"), q("Megatron logs: iterations up to N are warm-up and not averaged (default 2)."));
    parser.option(q("out"), q("FILE"), q("Where to write the calibrated cluster (JSON)."));
    parser.flag(q("json"), q("Print JSON instead of text."));
    parser.workBudgetOption(); // leave-one-out fits once more per run (core/runs/calibration_work.h)
    parser.inputLimitOption();
    parser.parse(args);
    if (!parser.isSet(q("out")))
        parser.usageError(q("--out FILE is required"));
    runs::CalibrationOptions options;
    options.parameters = fitParameters(parser);
    options.lift_work_budget = parser.liftsWorkBudget();

    const std::vector<runs::ReferenceRun> runs = readRuns(parser);
    std::optional<hardware::ClusterDescription> start;
    if (parser.isSet(q("cluster")))
        start = hardware::readClusterFile(parser.value(q("cluster")).toStdString());
    NullProgress progress;
    const runs::ClusterCalibration calibration = runs::calibrateCluster(runs, start, options, progress);
    const runs::CalibrationResult& result = calibration.result;
    // More parameters than measurements: any error "after" is an artefact; no cluster is written
    // (the Calibrate page disables its Save for the same rule).
    if (const runs::CalibrationSupport support = runs::calibrationSupport(runs, result.parameters);
        support.underDetermined())
        throw Error(support.warning());
    const std::vector<runs::RunError>& leftOut = calibration.left_out;
    const hardware::ClusterDescription& cluster = calibration.cluster;
    const nlohmann::ordered_json file = runs::calibratedClusterJson(calibration);
    const nlohmann::ordered_json& calibrationRecord = file["calibration"];
    const std::string out = parser.value(q("out")).toStdString();
    writeFileAtomically(out, jsonText(file, 2, out) + "\n");

    if (parser.isSet(q("json"))) {
        nlohmann::ordered_json report = calibrationRecord;
        report.erase("generator");
        report["out"] = out;
        report["gpu"] = cluster.gpu.name;
        report["iterations"] = result.iterations;
        report["converged"] = result.converged;
        report["efficiency_before"] = hardware::toJson(result.initial);
        report["efficiency_after"] = hardware::toJson(result.fitted);
        printJson(report);
        return kExitOk;
    }
    std::string text = "Calibrated on " + std::to_string(runs.size()) + " run(s) on " + cluster.gpu.name + " ("
        + std::to_string(result.iterations) + " iterations" + (result.converged ? "" : ", not converged") + "):\n";
    for (const std::string& name : result.parameters) {
        const hardware::EfficiencyField& field = *hardware::findEfficiencyField(name);
        text += "  " + name + " " + fixed(result.initial.*field.member, 4) + " -> "
            + fixed(result.fitted.*field.member, 4) + "\n";
    }
    text += "Throughput error (predicted over measured, before -> after"
        + std::string(leftOut.empty() ? "" : "; left out") + "):\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        text += "  " + runs[i].id + ": " + signedPercent(result.before[i].throughput_error) + " -> "
            + signedPercent(result.after[i].throughput_error);
        if (!leftOut.empty())
            text += "; " + signedPercent(leftOut[i].throughput_error);
        if (result.after[i].predicted_oom)
            text += " (predicted OOM)";
        text += "\n";
    }
    text += "Mean absolute error: " + fixed(runs::meanAbsoluteThroughputError(result.before) * 100, 1) + " % -> "
        + fixed(runs::meanAbsoluteThroughputError(result.after) * 100, 1) + " %";
    if (!leftOut.empty())
        text += "; left out " + fixed(runs::meanAbsoluteThroughputError(leftOut) * 100, 1) + " %";
    text += "\nWrote " + out + "\n";
    printOut(text);
    return kExitOk;
}

const RegisterCommand registration({ q("calibrate"),
    q("Fit the cost model's efficiencies to measured runs; write a calibrated cluster."), 80, runCalibrate });

} // namespace

} // namespace stratex::cli
