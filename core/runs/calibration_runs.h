// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The runs `stratex-cli calibrate` and the GUI's Calibrate page fit on, from the files a user has:
// reference-run records (resources/reference-runs), Megatron-LM logs and PyTorch-profiler Chrome
// traces. One definition for both, so the page fits exactly what the CLI fits.

#include <filesystem>
#include <vector>

#include "core/runs/megatron_log.h"
#include "core/runs/run_comparison.h"
#include "core/runs/reference_run.h"

namespace stratex::runs {

struct CalibrationRunOptions {
    LogOptions log; // warm-up iterations of a Megatron log
    ClusterChoice cluster; // logs and traces do not name the GPU or the node size
};

// A measured run as a run to fit on: the model and strategy its files give, the cluster a record
// names or `choice` says (resolveCluster), the measured iteration time and, from a record's peak
// or Megatron's memory reports (the largest max reserved over the ranks, MiB), the peak memory.
// `file` names the run (its id is the file's stem). Throws stratex::Error naming the file when the
// run cannot be costed (missing arguments, no cluster) or measured no iteration time.
ReferenceRun calibrationRun(const MeasuredRun& run, const ClusterChoice& choice, const std::filesystem::path& file);

// Every run of `paths`, in order: a directory is its run records (every *.json in it, as before
// logs were read), a file one run of any kind importRun() reads. Records are read as
// readReferenceRun reads them (their "use" and assumptions kept). Throws stratex::Error when
// `paths` holds no run.
std::vector<ReferenceRun> readCalibrationRuns(
    const std::vector<std::filesystem::path>& paths, const CalibrationRunOptions& options = {});

} // namespace stratex::runs
