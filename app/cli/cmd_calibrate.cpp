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
#include "core/common/json_reader.h"
#include "core/common/number_format.h"
#include "core/perf/calibration.h"
#include "core/profile/synth/cluster_json.h"

namespace stratex::cli {

namespace {

QString q(const char* text)
{
    return QString::fromLatin1(text);
}

std::string percent(double fraction)
{
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%+.1f%%", fraction * 100);
    return buffer;
}

double meanAbsolute(const std::vector<perf::RunError>& errors)
{
    double sum = 0;
    for (const perf::RunError& e : errors)
        sum += std::abs(e.throughput_error);
    return errors.empty() ? 0 : sum / double(errors.size());
}

// --runs FILE or DIR (repeatable) and any further files on the command line.
std::vector<perf::ReferenceRun> readRuns(const CliParser& parser)
{
    QStringList paths = parser.values(q("runs"));
    paths << parser.positionalArguments();
    if (paths.isEmpty())
        parser.usageError(q("--runs FILE is required (a run record in the format of resources/reference-runs)"));
    std::vector<perf::ReferenceRun> runs;
    for (const QString& path : paths) {
        const std::filesystem::path file = path.toStdString();
        if (std::filesystem::is_directory(file)) {
            for (perf::ReferenceRun& run : perf::readReferenceRuns(file))
                runs.push_back(std::move(run));
        } else {
            runs.push_back(perf::readReferenceRun(file));
        }
    }
    if (runs.empty())
        throw Error("calibrate: no run records (*.json) in " + paths.join(q(", ")).toStdString());
    return runs;
}

std::vector<std::string> fitParameters(const CliParser& parser)
{
    if (!parser.isSet(q("fit")))
        return perf::defaultCalibrationParameters();
    std::vector<std::string> names;
    for (const QString& name : parser.value(q("fit")).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const std::string text = name.trimmed().toStdString();
        if (!profile::synth::findEfficiencyField(text)) {
            QStringList known;
            for (const profile::synth::EfficiencyField& field : profile::synth::efficiencyFields())
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

nlohmann::ordered_json runJson(const perf::RunError& before, const perf::RunError& after, const perf::RunError* loo)
{
    nlohmann::ordered_json row = { { "id", before.id }, { "measured_iteration_s", before.measured_iteration_s },
        { "predicted_iteration_s_before", before.predicted_iteration_s },
        { "predicted_iteration_s_after", after.predicted_iteration_s },
        { "throughput_error_before", before.throughput_error }, { "throughput_error_after", after.throughput_error } };
    if (loo)
        row["throughput_error_left_out"] = loo->throughput_error;
    if (before.measured_peak_memory_gib)
        row["measured_peak_memory_gib"] = *before.measured_peak_memory_gib;
    row["predicted_peak_memory_gib_before"] = before.predicted_peak_memory_gib;
    row["predicted_peak_memory_gib_after"] = after.predicted_peak_memory_gib;
    row["predicted_oom_after"] = after.predicted_oom;
    return row;
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
        q("A measured run in the record format of resources/reference-runs (repeatable; a directory means every "
          "*.json in it; further files may follow as arguments)."));
    parser.positional(q("files"), q("More run records."), q("[FILE...]"));
    parser.option(q("fit"), q("NAMES"),
        q("Efficiencies to fit, comma-separated (default: gemm,gemm_half_dim,hbm,network,collective_latency_us,"
          "dp_overlap; also kernel_overhead_us, attention, fp8_speedup, iteration_overhead_ms, memory_reserve_gb, "
          "activation_fragmentation)."));
    parser.option(q("cluster"), q("FILE"),
        q("Cluster to start from (a cluster file, or a file with a \"cluster\" key); its efficiencies, or its GPU "
          "preset's, are the starting point. Default: the runs' GPU preset and shape."));
    parser.option(q("out"), q("FILE"), q("Where to write the calibrated cluster (JSON)."));
    parser.flag(q("json"), q("Print JSON instead of text."));
    parser.inputLimitOption();
    parser.parse(args);
    if (!parser.isSet(q("out")))
        parser.usageError(q("--out FILE is required"));
    perf::CalibrationOptions options;
    options.parameters = fitParameters(parser);

    const std::vector<perf::ReferenceRun> runs = readRuns(parser);
    profile::synth::ClusterDescription cluster = parser.isSet(q("cluster"))
        ? profile::synth::readClusterFile(parser.value(q("cluster")).toStdString())
        : runs.front().cluster;
    for (const perf::ReferenceRun& run : runs) {
        if (run.cluster.gpu.name != cluster.gpu.name)
            throw Error("calibrate: " + run.file.string() + ": run \"" + run.id + "\" is on " + run.cluster.gpu.name
                + ", the cluster on " + cluster.gpu.name + " (calibrate one GPU type at a time)");
    }
    const perf::Efficiency start = perf::efficiencyFor(cluster);
    const perf::CalibrationResult result = perf::calibrate(runs, start, options);
    std::vector<perf::RunError> leftOut;
    if (runs.size() >= 3)
        leftOut = perf::leaveOneOut(runs, start, options);

    cluster.efficiency = result.fitted;
    nlohmann::ordered_json file = profile::synth::toJson(cluster);
    nlohmann::ordered_json calibration = { { "generator", "stratex-cli calibrate" },
        { "parameters", result.parameters }, { "runs", nlohmann::ordered_json::array() },
        { "mean_absolute_throughput_error_before", meanAbsolute(result.before) },
        { "mean_absolute_throughput_error_after", meanAbsolute(result.after) } };
    if (!leftOut.empty())
        calibration["mean_absolute_throughput_error_left_out"] = meanAbsolute(leftOut);
    for (std::size_t i = 0; i < runs.size(); ++i)
        calibration["runs"].push_back(
            runJson(result.before[i], result.after[i], leftOut.empty() ? nullptr : &leftOut[i]));
    file["calibration"] = calibration;
    const std::string out = parser.value(q("out")).toStdString();
    writeFileAtomically(out, file.dump(2) + "\n");

    if (parser.isSet(q("json"))) {
        nlohmann::ordered_json report = calibration;
        report.erase("generator");
        report["out"] = out;
        report["gpu"] = cluster.gpu.name;
        report["iterations"] = result.iterations;
        report["converged"] = result.converged;
        report["efficiency_before"] = profile::synth::toJson(result.initial);
        report["efficiency_after"] = profile::synth::toJson(result.fitted);
        printJson(report);
        return kExitOk;
    }
    std::string text = "Calibrated on " + std::to_string(runs.size()) + " run(s) on " + cluster.gpu.name + " ("
        + std::to_string(result.iterations) + " iterations" + (result.converged ? "" : ", not converged") + "):\n";
    for (const std::string& name : result.parameters) {
        const profile::synth::EfficiencyField& field = *profile::synth::findEfficiencyField(name);
        text += "  " + name + " " + fixed(result.initial.*field.member, 4) + " -> "
            + fixed(result.fitted.*field.member, 4) + "\n";
    }
    text += "Throughput error (predicted over measured, before -> after"
        + std::string(leftOut.empty() ? "" : "; left out") + "):\n";
    for (std::size_t i = 0; i < runs.size(); ++i) {
        text += "  " + runs[i].id + ": " + percent(result.before[i].throughput_error) + " -> "
            + percent(result.after[i].throughput_error);
        if (!leftOut.empty())
            text += "; " + percent(leftOut[i].throughput_error);
        if (result.after[i].predicted_oom)
            text += " (predicted OOM)";
        text += "\n";
    }
    text += "Mean absolute error: " + fixed(meanAbsolute(result.before) * 100, 1) + " % -> "
        + fixed(meanAbsolute(result.after) * 100, 1) + " %";
    if (!leftOut.empty())
        text += "; left out " + fixed(meanAbsolute(leftOut) * 100, 1) + " %";
    text += "\nWrote " + out + "\n";
    printOut(text);
    return kExitOk;
}

const RegisterCommand registration({ q("calibrate"),
    q("Fit the cost model's efficiencies to measured runs; write a calibrated cluster."), 80, runCalibrate });

} // namespace

} // namespace stratex::cli
