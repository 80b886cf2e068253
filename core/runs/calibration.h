// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/hardware/hardware_model.h"
#include "core/runs/family_prior.h"
#include "core/runs/reference_run.h"

namespace stratex::runs {

// Which efficiencies to fit and how.
struct CalibrationOptions {
    // Short names of Efficiency fields (hardware::efficiencyFields(): "gemm", "hbm",
    // "network", ...), or "compute": one scale on the start's GEMM and attention efficiency
    // together (a clock or power cap of the same silicon; not with "gemm"). Empty:
    // defaultCalibrationParameters().
    std::vector<std::string> parameters;
    int max_iterations = 60;
    // Weight of a run's log peak-memory residual against its log iteration-time residual. Memory
    // residuals enter only for runs that give a peak and only when a memory parameter
    // (memory_reserve_gb, activation_fragmentation) is fitted.
    double memory_weight = 1.0;
    // A weak pull of every parameter towards its starting value (per unit of log), so that a
    // parameter the runs cannot tell apart from another stays where it was instead of drifting.
    double prior_weight = 0.02;
    // Huber's robust loss on the log residuals: beyond this size a residual counts linearly, not
    // squared, so that a few runs the model cannot describe (a framework's own recompute policy,
    // say) do not drag every parameter. 0: plain least squares.
    double robust_scale = 0;
    // Run the fits even beyond the work budget (calibration_work.h): `--lift-work-budget`, or the
    // Calibrate page's "Run anyway".
    bool lift_work_budget = false;
};

// GEMM efficiency and its curve, memory bandwidth, collective bandwidth and latency, overlap
// (issue 10's list).
std::vector<std::string> defaultCalibrationParameters();

// One run's errors under one set of efficiencies.
struct RunError {
    std::string id;
    double measured_iteration_s = 0;
    double predicted_iteration_s = 0;
    double throughput_error = 0; // predicted over measured throughput - 1 (> 0: too optimistic)
    std::optional<double> measured_peak_memory_gib;
    double predicted_peak_memory_gib = 0;
    bool predicted_oom = false;
    bool measured_time = true; // false: a memory-only record (throughput_error 0, in no mean)
};

RunError runError(const ReferenceRun& run, const hardware::Efficiency& efficiency);

struct CalibrationResult {
    hardware::Efficiency initial;
    hardware::Efficiency fitted;
    std::vector<std::string> parameters; // what was fitted, short names
    std::vector<RunError> before; // per run, in the runs' order
    std::vector<RunError> after;
    double cost_before = 0; // half the sum of squared weighted residuals (log ratios)
    double cost_after = 0;
    int iterations = 0;
    bool converged = false;
    // Fitted parameters that end within 1 % of a bound of their range (issue 22: a parameter at a
    // bound stands in for a missing mechanism), short names in `parameters`' order.
    std::vector<std::string> at_bound;
};

// The fitted parameters of `result` within 1 % (of the range's width in log space) of a bound.
std::vector<std::string> parametersAtBound(const CalibrationResult& result);

// Levenberg-Marquardt least squares of the chosen parameters, in log space (positive, and kept
// inside each field's range by projection), on residuals log(predicted / measured) of iteration
// time and, where given and fitted, peak memory, with forward-difference Jacobians.
// Deterministic. Throws stratex::Error for an unknown parameter name, no runs, or a run the
// model cannot cost (naming the run and the reason).
CalibrationResult calibrate(
    const std::vector<ReferenceRun>& runs, const hardware::Efficiency& start, const CalibrationOptions& options = {});

// d log(predicted iteration time) / d log(parameter) at `start`, one row per run with a measured
// time (in the runs' order), one column per name (as calibrate() takes them; "compute": its
// scale), by a forward difference of 1 % (a share of the run's time: 0.4 when 40 % of it scales
// with the parameter). Throws stratex::Error as calibrate() does.
std::vector<std::vector<double>> timeSensitivities(
    const std::vector<ReferenceRun>& runs, const hardware::Efficiency& start, const std::vector<std::string>& names);

// Leave-one-out: for each run, calibrate on the others and predict it. Needs at least 3 runs.
std::vector<RunError> leaveOneOut(
    const std::vector<ReferenceRun>& runs, const hardware::Efficiency& start, const CalibrationOptions& options = {});
// One step of leaveOneOut(): run `index` predicted by a fit on the others (for callers that check
// cancellation between fits).
RunError leftOutError(const std::vector<ReferenceRun>& runs, std::size_t index, const hardware::Efficiency& start,
    const CalibrationOptions& options);

// The preset fit (`stratex-cli reference --fit`): the GPU presets' efficiencies fitted on the
// "fit" runs only, one fit per GPU family (presets that share a chip share their efficiencies).
// Each family starts from its prior (familyPrior()) and fits only what its runs identify
// (identifyParameters(), docs/calibration.md); a family with none identified keeps its prior
// (result.parameters empty, result.fitted the prior).
struct PresetFit {
    std::string family; // "a100", "h100-80gb", ...
    std::vector<std::string> gpus; // presets of the family that have fit runs
    FamilyIdentification identification; // which candidates were fitted, which inherited, why
    CalibrationResult result;
};
std::vector<PresetFit> fitPresets(const std::vector<ReferenceRun>& runs, const CalibrationOptions& options = {});
// The parameters a family's preset is fitted with (what efficiencyFor() stores): those its fit
// runs can tell apart. fitPresets() uses them unless the options name parameters.
std::vector<std::string> presetFitParameters(const std::string& family);
// A family's prior: the datasheet guesses of `gpu`, with its parent family's fitted parameters
// (parentFamily(), when `fits` holds that family) copied over. `priorName` says which.
hardware::Efficiency familyPrior(const std::string& family, const hardware::GpuDescription& gpu,
    const std::vector<PresetFit>& fits, std::string* priorName = nullptr);

} // namespace stratex::runs
