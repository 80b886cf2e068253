// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/runs/calibration_work.h"

#include <algorithm>
#include <map>
#include <set>

#include "core/common/work_limits.h"
#include "core/hardware/hardware_model.h"

namespace stratex::runs {

namespace {

std::size_t parameterCount(const CalibrationOptions& options)
{
    return options.parameters.empty() ? defaultCalibrationParameters().size() : options.parameters.size();
}

std::string runCount(std::size_t runs)
{
    return groupedCount(double(runs)) + (runs == 1 ? " run" : " runs");
}

// fitPresets() fits each family with its own parameters unless the options name them: count the
// most any family fits.
std::size_t presetParameterCount(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options)
{
    std::size_t k = options.parameters.size();
    if (k == 0) {
        for (const ReferenceRun& run : runs)
            k = std::max(k, presetFitParameters(hardware::presetFamily(run.cluster.gpu.name)).size());
    }
    return k;
}

} // namespace

double fitEvaluations(std::size_t runs, std::size_t parameters, const CalibrationOptions& options)
{
    const double n = double(runs);
    const double iterations = std::max(0, options.max_iterations);
    return n * (3 + iterations * (double(parameters) + 2));
}

WorkEstimate estimateCalibrationWork(std::size_t runs, const CalibrationOptions& options)
{
    const std::size_t k = parameterCount(options);
    WorkEstimate estimate;
    estimate.job = "calibration";
    estimate.work = fitEvaluations(runs, k, options);
    // calibrateCluster(): leave-one-out from 3 runs on, one fit of n - 1 runs per run.
    const bool leaveOut = runs >= 3;
    if (leaveOut)
        estimate.work += double(runs) * (fitEvaluations(runs - 1, k, options) + 1);
    estimate.budget = limits::kMaxCalibrationWork;
    estimate.size = groupedCount(double(leaveOut ? runs + 1 : 1)) + (leaveOut ? " fits" : " fit") + " of "
        + std::to_string(k) + (k == 1 ? " parameter" : " parameters") + " on " + runCount(runs)
        + (leaveOut ? " (each run left out in turn)" : "") + ", up to " + groupedCount(estimate.work)
        + " run evaluations";
    return estimate;
}

WorkEstimate estimatePresetFitWork(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options)
{
    const std::size_t fitRuns = std::size_t(std::count_if(runs.begin(), runs.end(), [](const ReferenceRun& run) { return run.fit; }));
    const std::size_t k = presetParameterCount(runs, options);
    WorkEstimate estimate;
    estimate.job = "preset fit";
    estimate.work = fitEvaluations(fitRuns, k, options);
    estimate.budget = limits::kMaxCalibrationWork;
    estimate.size = "a fit of up to " + std::to_string(k) + " parameters on " + runCount(fitRuns) + ", up to "
        + groupedCount(estimate.work) + " run evaluations";
    return estimate;
}

WorkEstimate estimateCrossValidationWork(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options)
{
    // As crossValidate(): a fold per source with fit runs, and one for the sources without.
    std::map<std::string, std::size_t> fitRunsOf;
    std::set<std::string> sources;
    std::size_t fitRuns = 0;
    for (const ReferenceRun& run : runs) {
        sources.insert(run.source);
        if (run.fit) {
            ++fitRunsOf[run.source];
            ++fitRuns;
        }
    }
    const std::size_t k = presetParameterCount(runs, options);
    WorkEstimate estimate;
    estimate.job = "cross-validation";
    std::size_t folds = 0;
    for (const auto& entry : fitRunsOf) {
        estimate.work += fitEvaluations(fitRuns - entry.second, k, options);
        ++folds;
    }
    if (sources.size() > fitRunsOf.size()) {
        estimate.work += fitEvaluations(fitRuns, k, options);
        ++folds;
    }
    estimate.work += double(runs.size()); // each run predicted once
    estimate.budget = limits::kMaxCalibrationWork;
    estimate.size = groupedCount(double(folds)) + (folds == 1 ? " fold" : " folds") + " over " + runCount(runs.size())
        + " (" + groupedCount(double(fitRuns)) + " fit runs) from " + groupedCount(double(sources.size()))
        + (sources.size() == 1 ? " source" : " sources") + ", up to " + groupedCount(estimate.work)
        + " run evaluations";
    return estimate;
}

void requireBoundedCalibration(std::size_t runs, const CalibrationOptions& options)
{
    const WorkEstimate estimate = estimateCalibrationWork(runs, options);
    if (estimate.exceedsBudget() && !options.lift_work_budget)
        throw WorkBudgetExceeded(estimate,
            "Calibrate on fewer runs (each is left out of a fit in turn), fit fewer parameters (--fit), or run it "
            "anyway with --lift-work-budget.");
}

void requireBoundedPresetFit(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options)
{
    const WorkEstimate estimate = estimatePresetFitWork(runs, options);
    if (estimate.exceedsBudget() && !options.lift_work_budget)
        throw WorkBudgetExceeded(estimate,
            "Fit on fewer records (--runs DIR), fit fewer parameters (--fit-parameters), or run it anyway with "
            "--lift-work-budget.");
}

void requireBoundedCrossValidation(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options)
{
    const WorkEstimate estimate = estimateCrossValidationWork(runs, options);
    if (estimate.exceedsBudget() && !options.lift_work_budget)
        throw WorkBudgetExceeded(estimate,
            "Cross-validate fewer records (--runs DIR), fit fewer parameters (--fit-parameters), or run it anyway "
            "with --lift-work-budget.");
}

} // namespace stratex::runs
