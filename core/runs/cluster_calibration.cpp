// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/cluster_calibration.h"

#include <cmath>

#include "core/common/error.h"
#include "core/runs/calibration_work.h"
#include "core/hardware/cluster_json.h"

namespace stratex::runs {

namespace {

nlohmann::ordered_json runJson(const RunError& before, const RunError& after, const RunError* leftOut)
{
    nlohmann::ordered_json row = { { "id", before.id }, { "measured_iteration_s", before.measured_iteration_s },
        { "predicted_iteration_s_before", before.predicted_iteration_s },
        { "predicted_iteration_s_after", after.predicted_iteration_s },
        { "throughput_error_before", before.throughput_error }, { "throughput_error_after", after.throughput_error } };
    if (leftOut)
        row["throughput_error_left_out"] = leftOut->throughput_error;
    if (before.measured_peak_memory_gib)
        row["measured_peak_memory_gib"] = *before.measured_peak_memory_gib;
    row["predicted_peak_memory_gib_before"] = before.predicted_peak_memory_gib;
    row["predicted_peak_memory_gib_after"] = after.predicted_peak_memory_gib;
    row["predicted_oom_after"] = after.predicted_oom;
    return row;
}

} // namespace

ClusterCalibration calibrateCluster(const std::vector<ReferenceRun>& runs,
    const std::optional<hardware::ClusterDescription>& start, const CalibrationOptions& options,
    ProgressSink& progress)
{
    if (runs.empty())
        throw Error("calibrate: no runs to fit");
    // Before any fit: leave-one-out is n + 1 fits over n runs (10,000 records hung, issue 26).
    requireBoundedCalibration(runs.size(), options);
    ClusterCalibration out;
    out.cluster = start ? *start : runs.front().cluster;
    for (const ReferenceRun& run : runs) {
        if (run.cluster.gpu.name != out.cluster.gpu.name)
            throw Error("calibrate: " + run.file.string() + ": run \"" + run.id + "\" is on " + run.cluster.gpu.name
                + ", the cluster on " + out.cluster.gpu.name + " (calibrate one GPU type at a time)");
        out.run_files.push_back(run.file.string());
    }
    const hardware::Efficiency initial = hardware::efficiencyFor(out.cluster);
    // One fit on all runs, then one per left-out run: progress counts fits.
    const bool leaveOut = runs.size() >= 3;
    const double fits = leaveOut ? double(runs.size() + 1) : 1.0;
    progress.throwIfCancelled();
    progress.report(0, "fitting on every run");
    out.result = calibrate(runs, initial, options);
    if (leaveOut) {
        // leaveOneOut() one run at a time, so that a cancel does not wait for every fit.
        for (std::size_t i = 0; i < runs.size(); ++i) {
            progress.throwIfCancelled();
            progress.report(double(i + 1) / fits, "fitting with one run left out");
            out.left_out.push_back(leftOutError(runs, i, initial, options));
        }
    }
    out.cluster.efficiency = out.result.fitted;
    progress.report(1, "calibrated");
    return out;
}

double meanAbsoluteThroughputError(const std::vector<RunError>& errors)
{
    double sum = 0;
    int timed = 0;
    for (const RunError& e : errors) {
        if (!e.measured_time) // a memory-only record has no throughput error
            continue;
        sum += std::abs(e.throughput_error);
        ++timed;
    }
    return timed == 0 ? 0 : sum / timed;
}

nlohmann::ordered_json calibrationRecordJson(const ClusterCalibration& c)
{
    const CalibrationResult& r = c.result;
    nlohmann::ordered_json record = { { "generator", "stratex-cli calibrate" }, { "parameters", r.parameters },
        { "runs", nlohmann::ordered_json::array() },
        { "mean_absolute_throughput_error_before", meanAbsoluteThroughputError(r.before) },
        { "mean_absolute_throughput_error_after", meanAbsoluteThroughputError(r.after) } };
    if (c.hasLeftOut())
        record["mean_absolute_throughput_error_left_out"] = meanAbsoluteThroughputError(c.left_out);
    for (std::size_t i = 0; i < r.before.size(); ++i)
        record["runs"].push_back(runJson(r.before[i], r.after[i], c.hasLeftOut() ? &c.left_out[i] : nullptr));
    return record;
}

nlohmann::ordered_json calibratedClusterJson(const ClusterCalibration& c)
{
    nlohmann::ordered_json file = hardware::toJson(c.cluster);
    file["calibration"] = calibrationRecordJson(c);
    return file;
}

} // namespace stratex::runs
