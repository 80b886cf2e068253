// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A cluster calibrated end to end, as `stratex-cli calibrate` and the GUI's Calibrate page do it:
// the fit on every run, each run left out of a fit in turn, and the calibrated cluster file with
// its "calibration" record. One definition, so the page writes the file the CLI writes.

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "core/common/progress.h"
#include "core/runs/calibration.h"
#include "core/hardware/cluster_description.h"

namespace stratex::runs {

struct ClusterCalibration {
    hardware::ClusterDescription cluster; // the starting cluster with the fitted efficiency
    std::vector<std::string> run_files; // where each run came from, in the runs' order
    CalibrationResult result;
    std::vector<RunError> left_out; // per run, fitted on the others; empty with fewer than 3 runs

    bool hasLeftOut() const { return !left_out.empty(); }
};

// Fits `options`' parameters to `runs`, starting from `start` (default: the first run's cluster)
// and its efficiencies (efficiencyFor: the cluster's own, else its GPU preset's), then, with 3 runs
// or more, predicts each run from a fit on the others. Every run must be on the start's GPU.
// Reports progress per fit and stops with stratex::Cancelled between fits. Throws stratex::Error
// as calibrate() does, or naming the run on another GPU.
ClusterCalibration calibrateCluster(const std::vector<ReferenceRun>& runs,
    const std::optional<hardware::ClusterDescription>& start, const CalibrationOptions& options,
    ProgressSink& progress);

// Mean of |throughput error| over the runs.
double meanAbsoluteThroughputError(const std::vector<RunError>& errors);

// The "calibration" record: parameters, per-run errors before, after (and left out), their means.
nlohmann::ordered_json calibrationRecordJson(const ClusterCalibration& calibration);
// The calibrated cluster file: the cluster (GPU figures, shape, "efficiency") and its record.
nlohmann::ordered_json calibratedClusterJson(const ClusterCalibration& calibration);

} // namespace stratex::runs
