// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// How much a calibration will cost before it starts (issue 26: `calibrate` on 10,000 records
// hung; leave-one-out is N + 1 fits over N runs). The unit is a run evaluation: one run costed
// under one set of efficiencies (runError, compareWithRun). Beyond the budget of
// core/common/reader_limits.h the CLI refuses, naming the estimate and --lift-work-budget; the
// Calibrate page asks "Run anyway?" (core/common/work_budget.h). One rule for both front ends:
// calibrateCluster(), fitPresets() and crossValidate() check it first.

#include <cstddef>
#include <vector>

#include "core/common/work_budget.h"
#include "core/runs/calibration.h"
#include "core/runs/reference_run.h"

namespace stratex::runs {

// Run evaluations of one calibrate() of `runs` runs fitting `parameters` parameters, at most
// `options.max_iterations` Levenberg-Marquardt iterations: the errors before and after and the
// starting residuals (3 n), and per iteration a forward-difference Jacobian (k n) and the trial
// steps, one accepted after one rejected on average (2 n). An upper bound: most fits converge
// in fewer iterations.
double fitEvaluations(std::size_t runs, std::size_t parameters, const CalibrationOptions& options);

// calibrateCluster(): the fit on every run and, with 3 runs or more, one fit on the others per run.
WorkEstimate estimateCalibrationWork(std::size_t runs, const CalibrationOptions& options);
// fitPresets() (`reference --fit`): one fit per GPU family of its fit runs.
WorkEstimate estimatePresetFitWork(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options);
// crossValidate(): per fold, the preset fits (fitPresets) on the fit runs of the other sources.
WorkEstimate estimateCrossValidationWork(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options);

// Throw WorkBudgetExceeded beyond the budget unless options.lift_work_budget.
void requireBoundedCalibration(std::size_t runs, const CalibrationOptions& options);
void requireBoundedPresetFit(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options);
void requireBoundedCrossValidation(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options);

} // namespace stratex::runs
