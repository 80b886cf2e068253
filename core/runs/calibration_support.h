// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What a calibration's runs can support: a least-squares fit of k parameters to n independent
// measurements has n - k degrees of freedom. With k > n the fit is under-determined (many
// parameter sets reproduce the runs exactly: "0.0 % after" says nothing); with k = n it is exactly
// determined (the after-fit error is zero by construction, nothing is left to check it). Only the
// errors of runs held out of the fit (leaveOneOut, 3 runs or more) measure what a calibration
// predicts. Both front ends read this one rule: the Calibrate page disables saving and
// `stratex-cli calibrate` refuses to write the cluster when the fit is under-determined.

#include <string>
#include <vector>

#include "core/runs/reference_run.h"

namespace stratex::runs {

struct CalibrationSupport {
    int parameters = 0; // fitted
    int runs = 0;
    // Independent measurements the fit sees: one iteration time per run, plus one peak memory per
    // run that gives it when a memory parameter is fitted (calibrate()'s residuals).
    int measurements = 0;
    int held_out_runs_needed = 3; // leaveOneOut() needs at least this many runs

    bool underDetermined() const { return parameters > measurements; }
    bool exactlyDetermined() const { return parameters == measurements; }
    bool hasHeldOutError() const { return runs >= held_out_runs_needed; }
    // Empty when the runs support the fit; else one sentence that says why not and what to bring,
    // e.g. "6 parameters fitted to 1 measurement (1 run): under-determined, ...".
    std::string warning() const;
};

// `parameters`: short names as CalibrationOptions takes them (empty: the defaults).
CalibrationSupport calibrationSupport(const std::vector<ReferenceRun>& runs, std::vector<std::string> parameters);

} // namespace stratex::runs
